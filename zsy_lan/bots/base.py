"""What every bot level shares: the observation it decides from, and what it may infer.

A bot sees one seat's *view* (``view(state, seat)``: its own hand, the counts,
the public plays and face-up tribute cards) plus the legal actions, bundled as
an :class:`Observation`. Everything here derives facts from that view only, so
no level can peek at hidden hands by accident: the unseen cards are computed
as "the deck minus what this seat has seen", never read from another hand.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from zsy_lan.engine.cards import BJ, NUM_RANKS, RANK_OF, RJ, TWO
from zsy_lan.engine.phases import Phase
from zsy_lan.engine.round import legal_actions
from zsy_lan.engine.rules import Rules
from zsy_lan.engine.state import PLAY, Action, RoundState


@dataclass(frozen=True)
class Observation:
    """Everything a bot may use for one decision.

    ``view`` must already be the seat's view (other hands ``None``); ``legal``
    are the actions the engine allows now. ``variants``/``options`` are the
    table's configuration as configured (what an external program is told).
    """

    rules: Rules
    view: RoundState
    seat: int
    legal: tuple[Action, ...]
    variants: tuple[str, ...] = ()
    options: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def of(
        cls,
        rules: Rules,
        view: RoundState,
        seat: int,
        *,
        variants: Sequence[str] = (),
        options: Mapping[str, Any] | None = None,
    ) -> Observation:
        """An observation of ``view`` with the legal actions computed from it."""
        return cls(
            rules, view, seat, tuple(legal_actions(rules, view, seat)), tuple(variants),
            dict(options or {}),
        )


class Bot:
    """Base of the bot levels: ``choose(observation) -> action``.

    It also speaks the engine's ``act(rules, state, seat)`` protocol (the one
    :func:`zsy_lan.engine.selfplay.play_match` and the local UI call), so any
    level drops in where a baseline bot did. ``name`` labels the seat for
    everyone ("bot:normal"): players expect to know who is a bot.
    """

    level = "bot"

    def __init__(self, seed: bytes | int | str = 0) -> None:
        self.seed = seed_bytes(seed)

    @property
    def name(self) -> str:
        """The label shown for a seat this bot plays."""
        return f"bot:{self.level}"

    def choose(self, obs: Observation) -> Action:
        """The chosen action; must be one of ``obs.legal``."""
        raise NotImplementedError

    def act(self, rules: Rules, state: RoundState, seat: int) -> Action:
        """Engine bot protocol: ``state`` must be ``seat``'s view."""
        obs = Observation.of(rules, state, seat)
        if not obs.legal:
            raise ValueError(f"seat {seat} has nothing to do now")
        return self.choose(obs)

    def close(self) -> None:
        """Release resources (external programs); builtin bots hold none."""

    def __repr__(self) -> str:
        return f"<{self.name}>"


def seed_bytes(seed: bytes | int | str) -> bytes:
    """A bot seed as bytes (ints and strings by their decimal/UTF-8 text)."""
    if isinstance(seed, bytes):
        return seed
    return str(seed).encode()


def going_out(obs: Observation) -> Action | None:
    """A legal play that empties this seat's hand, if there is one.

    Why every level asks first: going out ends the hand in the side's favour
    and no later play can do better; a bot that misses it looks broken.
    """
    if obs.view.phase != Phase.PLAY:
        return None
    left = len(obs.view.hands[obs.seat] or ())
    for a in obs.legal:
        if a.kind == PLAY and left and len(a.cards) == left:
            return a
    return None


# --- sides: who plays with whom ---------------------------------------------


def landlord_of(state: RoundState) -> int | None:
    """The Dou Dizhu landlord once bidding is over (``None`` otherwise or in ZSY)."""
    ll = state.get("landlord")
    return ll if isinstance(ll, int) and ll >= 0 else None


def side_of(rules: Rules, state: RoundState, seat: int) -> frozenset[int]:
    """The seats that win or lose together with ``seat`` this round.

    Partnerships (``rules.teams``), Dou Dizhu (the landlord alone against the
    farmers, from the public ``landlord`` field), otherwise just the seat.
    """
    team = rules.team_of(seat)
    if team:
        return frozenset(team)
    ll = landlord_of(state)
    if ll is not None:
        if seat == ll:
            return frozenset((ll,))
        return frozenset(s for s in range(rules.players) if s != ll)
    return frozenset((seat,))


# --- card counting -----------------------------------------------------------


def deck_counts(rules: Rules) -> list[int]:
    """Rank counts of the table's whole deck."""
    counts = [0] * NUM_RANKS
    for c in rules.deck:
        counts[RANK_OF[c]] += 1
    return counts


def known_holdings(state: RoundState, seat: int) -> dict[int, list[int]]:
    """Cards this seat knows another seat still holds (card ids by seat).

    Face-up tribute cards (ZSY-7.1) stay with their receiver until played;
    a shown Dou Dizhu kitty (``kitty`` extra field, DDZ-2.4) is the landlord's.
    Cards already played are dropped, so the result is what they hold *now*.
    """
    played = set(state.played)
    out: dict[int, list[int]] = {}
    for _giver, receiver, face_up, _n in state.tribute_log:
        if face_up and receiver != seat:
            out.setdefault(receiver, []).extend(c for c in face_up if c not in played)
    kitty = state.get("kitty")
    ll = landlord_of(state)
    if kitty and ll is not None and ll != seat:
        out.setdefault(ll, []).extend(c for c in kitty if isinstance(c, int) and c not in played)
    # a card handed on again (given up, then returned) must not count twice
    seen: set[int] = set()
    for s in sorted(out):
        out[s] = [c for c in out[s] if not (c in seen or seen.add(c))]  # type: ignore[func-returns-value]
    return {s: cs for s, cs in out.items() if cs}


def unseen_counts(rules: Rules, state: RoundState, seat: int) -> list[int]:
    """Rank counts of the cards held by the *other* seats, as far as ``seat`` can tell.

    Deck minus own hand minus every card played; that is exactly the union of
    the other hands (the kitty, when hidden, is in the landlord's hand too).
    """
    counts = deck_counts(rules)
    for c in state.hands[seat] or ():
        counts[RANK_OF[c]] -= 1
    for c in state.played:
        counts[RANK_OF[c]] -= 1
    return [max(0, x) for x in counts]


def bomb_ranks(rules: Rules, counts: Sequence[int]) -> set[int]:
    """Ranks tied up in a bomb of this hand (both jokers when the joker bomb is held)."""
    out = {r for r in range(TWO + 1) if counts[r] >= rules.min_bomb}
    if rules.decks and counts[BJ] >= rules.decks and counts[RJ] >= rules.decks:
        out |= {BJ, RJ}
    return out


def is_bomb(rules: Rules, kind: str) -> bool:
    """Is a combination of this kind a bomb under these rules."""
    k = rules.kind_by_name.get(kind)
    return bool(k is not None and k.bomb)
