"""A match being played: rules, match state and action log behind one small API.

This is what the command line, the bots' drivers and the network layer hold.
It speaks JSON actions (``{"kind": "play", "seat": 2, "cards": [0, 4]}``) so
the replication protocol can stay ignorant of the engine's types, and it can
run with full information (``knows=None``) or from one seat's knowledge
(``knows=seat``): then it only ever holds that seat's view.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from .canonical import digest_built
from .choices import Options, options
from .errors import EngineError, RuleError
from .match import MatchState, apply_action, deal_round, new_match
from .phases import MatchPhase, Phase
from .round import legal_actions
from .rules import Rules
from .state import Action, RoundState, evolve, public_json, with_extra
from .view import view, view_action


class ActionLog(list[Action]):
    """The actions applied so far; old rounds' actions may leave memory (``retire_history``).

    ``len`` counts every action ever applied (callers use it as a change
    counter); iterating and indexing see only the actions still held.
    """

    dropped = 0

    def __len__(self) -> int:
        return self.dropped + super().__len__()

    def forget(self, n: int) -> None:
        """Drop the ``n`` oldest actions still held."""
        n = min(n, super().__len__())
        if n > 0:
            del self[:n]
            self.dropped += n


@dataclass(frozen=True)
class Void:
    """A round that counts for nothing: the table voted it void, or an audit found a fault.

    Both deals keep them in ``voids``. ``at``: ``len(log)`` when it was voided
    (where a retelling places it); ``deal``: the deal it voided (a private
    deal counts deals, voided ones included; the open deal counts seeds).
    :meth:`to_json` is the private deal's public form (in its state hash).
    """

    round: int
    culprit: int | None
    step: str
    reason: str
    deal: int = 0
    at: int = 0

    def to_json(self) -> dict[str, Any]:
        """The fields every seat signs over in a private deal's public state (not ``at``)."""
        return {
            "round": self.round,
            "deal": self.deal,
            "culprit": self.culprit,
            "step": self.step,
            "reason": self.reason,
        }


class Game:
    """One match. ``knows``: ``None`` for full information, or the seat whose view is kept."""

    #: What :meth:`check` raises for an illegal or malformed action (the network
    #: layer blames the author for these only; anything else is a local bug)
    violations: tuple[type[Exception], ...] = (EngineError,)

    def __init__(self, rules: Rules, rounds: int, knows: int | None = None) -> None:
        self.rules = rules
        self.knows = knows
        self.match: MatchState = new_match(rules, rounds)
        self.log: list[Action] = ActionLog()
        self._marks: list[int] = []  # len(self.log) at each round's deal (retire_history)
        self.seeds: list[bytes] = []
        self.voids: list[Void] = []  # rounds the table voted void
        self._hashed: tuple[MatchState, str] | None = None
        # (state, seat, action, parsed, next state) of the last check(): the replica
        # checks every action and then applies it; the second time is free.
        self._checked: tuple[MatchState, int, Any, Action, MatchState] | None = None

    # --- the network layer's GameMachine interface ---------------------------

    @property
    def round(self) -> RoundState | None:
        """The current (or last finished) round."""
        return self.match.round

    def actors(self) -> tuple[int, ...]:
        """Seats the game waits on: the one whose turn it is, or none."""
        r = self.match.round
        if self.match.phase != MatchPhase.PLAYING or r is None or r.turn < 0:
            return ()
        return (r.turn,)

    def needs_seed(self) -> bool:
        """True when the next round must be dealt."""
        return self.match.phase == MatchPhase.DEAL

    def finished(self) -> bool:
        """True when the match is over."""
        return self.match.phase == MatchPhase.OVER

    def start_round(self, seed: bytes) -> None:
        """Deal the next round from a 32-byte shared seed."""
        match = deal_round(self.rules, self.match, seed)
        if self.knows is not None and match.round is not None:
            match = evolve(match, round=view(match.round, self.knows))
        self.match = match
        self.seeds.append(bytes(seed))
        self._marks.append(len(self.log))

    def parse(self, seat: int, action: dict[str, Any] | Action) -> Action:
        """An :class:`Action` from JSON, checking it is ``seat``'s own."""
        act = action if isinstance(action, Action) else Action.from_json(action)
        if act.seat != seat:
            rule = self.rules.rule_id("ZSY-5.1")
            raise RuleError(rule, f"seat {seat} cannot act for seat {act.seat}")
        return act

    def check(self, seat: int, action: dict[str, Any] | Action) -> None:
        """Raise :class:`RuleError` (or ``ValueError`` if malformed) unless legal now."""
        act = self.parse(seat, action)
        nxt = self._next(act)
        kept = dict(action) if isinstance(action, dict) else action  # a copy: callers may reuse
        self._checked = (self.match, seat, kept, act, nxt)

    def apply(self, seat: int, action: dict[str, Any] | Action) -> None:
        """Apply a legal action (raises like :meth:`check` otherwise)."""
        c = self._checked
        self._checked = None
        if c is not None and c[0] is self.match and c[1] == seat and c[2] == action:
            act, nxt = c[3], c[4]  # just checked on this very state: same result
        else:
            act = self.parse(seat, action)
            nxt = self._next(act)
        self.match = nxt
        self.log.append(act)

    def _next(self, act: Action) -> MatchState:
        r = self.match.round
        if self.knows is not None and r is not None:
            act = view_action(r, act, self.knows)
        return apply_action(self.rules, self.match, act)

    def retire_history(self, keep: int) -> None:
        """Forget the actions of all but the last ``keep`` rounds (memory over long matches).

        The network layer calls it once per round (its ``retain``); the match
        state (results, totals) is kept, and the record on disk has every
        action. ``len(self.log)`` still counts them all.
        """
        log = self.log
        if keep < 0 or len(self._marks) <= keep or not isinstance(log, ActionLog):
            return
        log.forget(self._marks[-(keep + 1)] - log.dropped)
        del self._marks[: -(keep + 1)]

    def can_void_round(self) -> bool:
        """True when :meth:`void_round` may be called: a round of this match is being played.

        A subclass with state of its own beyond the match (the private deal)
        must override :meth:`void_round`; until it does this says False for it.
        """
        own = type(self) is Game or type(self).void_round is not Game.void_round
        return own and self.match.phase == MatchPhase.PLAYING and self.match.round is not None

    def void_round(self, seat: int, reason: str) -> None:
        """End the current round with no result: ``seat`` withheld what it owed (a table vote).

        Earlier rounds stand (results, totals, titles, the dealer they set);
        the round counts for nothing, like a Dou Dizhu deal everybody passed
        (DDZ-2.3): the match waits for the next seed and deals the same round
        number again. The round keeps ``void`` (who and why) for the record.
        """
        if not self.can_void_round():
            raise RuleError("ZSY-8.5", "no round of this match is being played: nothing to void")
        r = self.match.round
        assert r is not None
        done = with_extra(evolve(r, phase=Phase.DONE, turn=-1), void=f"seat {seat}: {reason}")
        self.match = evolve(self.match, round=done, phase=MatchPhase.DEAL)
        no = len(self.match.results) + 1
        self.voids.append(Void(no, seat, "vote", reason, len(self.seeds), len(self.log)))

    def public_hash(self) -> str:
        """SHA-256 of what every seat knows about the match.

        Cached per match state: the replica asks several times per message, and
        ``self.match`` is an immutable value that every deal and action replaces.
        """
        m = self.match
        cached = self._hashed
        if cached is not None and cached[0] is m:
            return cached[1]
        h = digest_built(self.public_json(for_hash=True))
        self._hashed = (m, h)
        return h

    def public_json(self, *, for_hash: bool = False) -> dict[str, Any]:
        """The public match state (no hidden cards); ``for_hash``: see :func:`public_json`."""
        m = self.match
        out = {
            "phase": m.phase,
            "dealer": m.dealer,
            "results": [[r.round_no, list(r.order), list(r.points), r.deciding] for r in m.results],
            "totals": list(m.totals),
            "upstreams": list(m.upstreams),
            "tied": list(m.tied),
            "winners": list(m.winners),
            "round": None if m.round is None else public_json(m.round, for_hash=for_hash),
        }
        if m.extra:
            # the plugins' match-level state (zsy_deal_over); absent when unused, so the
            # hashes of tables without it (records, golden replays) are unchanged
            out["extra"] = {k: v for k, v in m.extra}
        return out

    # --- the shell's game surface (protocol.game_iface.TableGame) ---------------
    #
    # The private deal (zsy_lan.deal.private_game) answers the same questions its
    # own way; the shell, the UI and the record never ask which deal they hold.

    #: no replica knows another seat's hand (the private deal): the retelling
    #: comes from what the audit opened, and each seat owes steps of its own
    hidden_hands: ClassVar[bool] = False

    def prepare(self, action: dict[str, Any]) -> dict[str, Any]:
        """The feed action for this seat's move (the open deal: the move as it is)."""
        return dict(action)

    def local_action(self) -> dict[str, Any] | None:
        """A message this seat owes by itself, no choice (the open deal: never)."""
        return None

    def wants_decision(self) -> bool:
        """True when what this seat may do now is a choice (the open deal: always)."""
        return True

    def decision_seats(self) -> tuple[int, ...]:
        """Seats whose *choice* the game waits for (the UI's "whose turn")."""
        return self.actors()

    def may(self, seat: int) -> Options:
        """What ``seat`` may do now (:class:`~zsy_lan.engine.choices.Options`)."""
        state = self.view(seat)
        turn = state is not None and seat in self.decision_seats()
        return options(state, seat, turn, self.legal(seat) if turn else [])

    def engine_action(self, seat: int, action: dict[str, Any]) -> Action | None:
        """The engine action in a feed action, as this replica may know it (for narration)."""
        try:
            return Action.from_json(action)
        except ValueError:
            return None

    def withholding(self, seat: int, gone: bool) -> bool:
        """True when what the table waits for from ``seat`` only that seat can give
        (``gone``: it left). The open deal: never, a bot can hold any seat."""
        return False

    def holder_view(self, seat: int) -> RoundState | None:
        """What a bot holding absent ``seat`` plays from: its view (every hand is known here)."""
        return self.view(seat)

    def owed(self, seat: int) -> str | None:
        """What ``seat`` owes now as an English message id the narration translates, or None."""
        return "a move" if seat in self.actors() else None

    def pop_notes(self) -> list[str]:
        """Things to tell the player since the last call (the open deal has none)."""
        return []

    # --- conveniences ----------------------------------------------------------

    def view(self, seat: int) -> RoundState | None:
        """The current round as ``seat`` may know it."""
        r = self.match.round
        return None if r is None else view(r, seat)

    def legal(self, seat: int) -> list[Action]:
        """Legal actions of ``seat`` now (from what this game knows)."""
        r = self.match.round
        if r is None or self.match.phase != MatchPhase.PLAYING:
            return []
        return legal_actions(self.rules, r, seat)
