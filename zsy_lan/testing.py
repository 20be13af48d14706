"""Test helpers for rule-plugin authors: build a table with your plugin, act, assert.

Use it from your plugin's tests (pytest)::

    # conftest.py
    pytest_plugins = ["zsy_lan.testing"]

    # test_my_rule.py
    import my_plugin

    def test_short_straight(zsy_table):
        t = zsy_table(variants=["my-rule"], plugins={"my-rule": my_plugin})
        t.set_hands("3 4 5 6", "K K", "A A", "2 2", leader=0)
        t.play(0, "3 4 5")                      # a legal play, or RuleError
        t.expect_illegal(1, "K K", rule="ZSY-4.1")
        assert t.state.counts == (1, 2, 2, 2)

``plugins={"name": module}`` registers a plugin that is not installed (the
same checks as an installed one apply); once your package is installed,
``variants=["name"]`` alone finds it through its ``zsy.variants`` entry
point. :class:`Table` also works without pytest.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from zsy_lan.engine.bots import BOTS
from zsy_lan.engine.cards import BJ, RANK_OF, make_card, parse_ranks, ranks_str, sort_cards
from zsy_lan.engine.errors import RuleError
from zsy_lan.engine.game import Game
from zsy_lan.engine.match import MatchState, deal_lead
from zsy_lan.engine.phases import MatchPhase
from zsy_lan.engine.round import legal_actions, legal_moves, new_round, play_from_ranks
from zsy_lan.engine.rules import Rules
from zsy_lan.engine.ruleset import build_rules
from zsy_lan.engine.selfplay import SelfplayResult, play_match
from zsy_lan.engine.state import PASS, PLAY, Action, RoundState, evolve
from zsy_lan.engine.view import view

__all__ = ["Table", "cards", "seed_bytes", "zsy_table"]


def seed_bytes(seed: bytes | int | str) -> bytes:
    """A 32-byte round seed from anything (``SHA-256`` of its text)."""
    if isinstance(seed, bytes) and len(seed) == 32:
        return seed
    return hashlib.sha256(f"zsy-testing\x00{seed!r}".encode()).digest()


def cards(
    text: str,
    decks: int = 2,
    used: set[int] | None = None,
    deck: Sequence[int] | None = None,
) -> tuple[int, ...]:
    """Card ids for typed cards (``"3 3 10S BJ"``): lowest free suit unless given.

    Pass the same ``used`` set for several hands so no card is dealt twice.
    With ``deck`` (the table's cards) only those are used, so a bare ``3`` at a
    3-player table is 3♥ (3♦ and 3♣ are not in its deck, ZSY-1.2).
    """
    used = set() if used is None else used
    allowed = None if deck is None else frozenset(deck)
    out = []
    for rank, suit in parse_ranks(text) if text.strip() else []:
        suits = [None] if rank >= BJ else ([suit] if suit is not None else range(4))
        for d in range(decks):
            card = next(
                (
                    c
                    for s in suits
                    if (c := make_card(rank, s, d)) not in used
                    and (allowed is None or c in allowed)
                ),
                None,
            )
            if card is not None:
                used.add(card)
                out.append(card)
                break
        else:
            raise ValueError(f"no free card left for {text!r}")
    return sort_cards(out)


class Table:
    """One table with full information: rules from plugins, a match, helpers to act."""

    def __init__(
        self,
        variants: Sequence[str] = (),
        players: int | None = None,
        options: Mapping[str, Any] | None = None,
        *,
        plugins: Mapping[str, Any] | None = None,
        rounds: int = 3,
    ) -> None:
        self.rules: Rules = build_rules(players, list(variants), dict(options or {}),
                                        plugins=plugins)
        self.game = Game(self.rules, rounds)

    # --- setting up a round ---------------------------------------------------------

    def deal(self, seed: bytes | int | str = 0) -> RoundState:
        """Deal the next round from a seed, as the network would."""
        self.game.start_round(seed_bytes(seed))
        return self.state

    def set_hands(
        self,
        *hands: str,
        dealer: int = 0,
        leader: int | None = None,
        turn: int | None = None,
        round_no: int = 1,
        kitty: str = "",
    ) -> RoundState:
        """Start a round with chosen hands (typed cards, one string per seat).

        With ``leader`` the start-card rule is skipped (``round_no`` 1 with a
        leader behaves like a later round without tribute). The game's
        ``on_deal`` hook runs (Dou Dizhu starts bidding); ``turn`` overrides
        whose turn it is afterwards.
        """
        n = self.rules.players
        if len(hands) != n:
            raise ValueError(f"{len(hands)} hands for {n} players")
        used: set[int] = set()
        deck = self.rules.deck
        dealt = [cards(h, self.rules.decks, used, deck) for h in hands]
        kit = cards(kitty, self.rules.decks, used, deck) if kitty else None
        lead = None
        if leader is None:  # a deal led by a card (zsy_deal_lead) finds its holder here too
            lead = deal_lead(self.rules, self.game.match, bytes(32))
            lead = lead if lead is not None and lead.card is not None else None
        state = new_round(self.rules, dealt, round_no=round_no, dealer=dealer, leader=leader,
                          kitty=kit, lead=lead)
        if leader is not None:
            state = evolve(state, must_contain=None)
        if turn is not None:
            state = evolve(state, turn=turn)
        match = evolve(self.game.match, phase=MatchPhase.PLAYING, dealer=dealer, round=state)
        self.game.match = match
        return state

    # --- acting ------------------------------------------------------------------------

    @property
    def state(self) -> RoundState:
        """The current round (full information)."""
        r = self.game.match.round
        assert r is not None, "deal or set_hands first"
        return r

    @property
    def match(self) -> MatchState:
        """The match state (results, totals, phase)."""
        return self.game.match

    def act(self, action: Action) -> RoundState:
        """Apply any action (raises :class:`RuleError` when illegal)."""
        self.game.apply(action.seat, action)
        return self.state

    def play(self, seat: int, text: str) -> RoundState:
        """Play typed cards: ranks (``"3 3"``, lowest suits) or exact cards (``"3H 3S"``)."""
        return self.act(self.play_action(seat, text))

    def play_action(self, seat: int, text: str) -> Action:
        """The play action for typed cards from ``seat``'s hand."""
        parsed = parse_ranks(text)
        hand = self.state.hands[seat] or ()
        if any(s is not None for _, s in parsed):
            wanted = cards(text, self.rules.decks, set(range(108)) - set(hand))
            return Action(PLAY, seat, wanted)
        return play_from_ranks(self.rules, self.state, seat, [r for r, _ in parsed])

    def pass_(self, seat: int) -> RoundState:
        """Pass (ZSY-5.1)."""
        return self.act(Action(PASS, seat))

    def bid(self, seat: int, value: int) -> RoundState:
        """Dou Dizhu: bid 1-3, or 0 to pass (DDZ-2)."""
        return self.act(Action("bid", seat, value=value))

    def expect_illegal(self, seat: int, what: str | Action, rule: str | None = None) -> RuleError:
        """Assert that a play (typed cards) or action is refused, optionally citing ``rule``."""
        try:
            action = what if isinstance(what, Action) else self.play_action(seat, what)
            self.game.check(seat, action)
        except RuleError as exc:
            if rule is not None and exc.rule != rule:
                raise AssertionError(f"refused citing {exc.rule}, expected {rule}: {exc}") from exc
            return exc
        raise AssertionError(f"{what!r} by seat {seat} was accepted")

    # --- looking -------------------------------------------------------------------------

    def legal(self, seat: int) -> list[Action]:
        """Every legal action of ``seat`` now."""
        return legal_actions(self.rules, self.state, seat)

    def moves(self, seat: int) -> list[str]:
        """Legal plays of ``seat`` as rank text (``"3 3"``), ``"pass"`` for passing."""
        return ["pass" if m is None else ranks_str(m.ranks)
                for m in legal_moves(self.rules, self.state, seat)]

    def hand(self, seat: int) -> str:
        """``seat``'s hand as rank text."""
        return ranks_str(RANK_OF[c] for c in self.state.hands[seat] or ())

    def view(self, seat: int) -> RoundState:
        """What ``seat`` may know."""
        return view(self.state, seat)

    # --- playing out -------------------------------------------------------------------------

    def play_out(self, bot: str = "random", seed: int | str = 0, max_actions: int = 10_000) -> None:
        """Let bots finish the current round (each sees only its own view)."""
        bots = [BOTS[bot](f"{seed}:{s}") for s in range(self.rules.players)]
        start = len(self.game.match.results)
        for _ in range(max_actions):
            if self.game.match.phase != MatchPhase.PLAYING or len(self.game.match.results) > start:
                return
            st = self.state
            self.act(bots[st.turn].act(self.rules, view(st, st.turn), st.turn))
        raise AssertionError("the round did not end")

    def selfplay(self, rounds: int, seed: int | str = 0, bot: str = "random") -> SelfplayResult:
        """A whole match between bots under these rules."""
        return play_match(self.rules, rounds, seed, bot)


def _factory() -> Any:
    def make(*args: Any, **kwargs: Any) -> Table:
        return Table(*args, **kwargs)

    return make


try:  # the fixture exists only where pytest does
    import pytest

    @pytest.fixture
    def zsy_table() -> Iterator[Any]:
        """A factory: ``zsy_table(variants, players, options, plugins=..., rounds=...)``."""
        yield _factory()

except ImportError:  # pragma: no cover - used without pytest
    zsy_table = None  # type: ignore[assignment]
