"""Builders for bot tests: tables, positions from typed hands, played-out states."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any

from zsy_lan.engine.cards import sort_cards
from zsy_lan.engine.game import Game
from zsy_lan.engine.round import apply, new_round
from zsy_lan.engine.rules import Rules
from zsy_lan.engine.ruleset import build_rules
from zsy_lan.engine.selfplay import round_seed
from zsy_lan.engine.state import Action, RoundState, evolve, with_extra
from zsy_lan.engine.view import view

# Command line of the builtin stdio bot, run as an external program.
ZSY_BOT = [sys.executable, "-c", "from zsy_lan.cli import main; main()", "bot", "--stdio"]

# Every built-in variant configuration the bots must handle: (players, variants, options).
VARIANT_TABLES: list[tuple[int, list[str], dict[str, Any]]] = [
    (3, [], {}),
    (4, [], {}),
    (5, [], {}),
    (6, [], {}),
    (4, ["partnerships"], {}),
    (6, ["partnerships"], {}),
    (4, ["doubled-tribute"], {}),
    (5, ["no-tribute"], {}),
    (3, ["doudizhu"], {}),
    (3, ["doudizhu"], {"doubling": True, "show_kitty": True}),
    (4, ["doudizhu"], {}),
    (4, ["house-rules"], {"pair_chains": True, "triple_chains": True, "triple_single": True,
                          "straight_flush": True, "wrap_straights": True,
                          "three_card_bombs": True, "single_tribute": True}),
    (4, ["house-rules"], {"revolution": True, "no_jokers": True}),
]


def table_id(table: tuple[int, list[str], dict[str, Any]]) -> str:
    """A readable pytest id for a table configuration."""
    players, variants, options = table
    opts = ",".join(sorted(options))
    return f"{players}p-{'+'.join(variants) or 'zsy'}" + (f"-{opts}" if opts else "")


def cards(text: str, decks: int = 1, used: set[int] | None = None) -> tuple[int, ...]:
    """Concrete cards from text; cards in ``used`` are taken (another suit, then deck)."""
    from zsy_lan.engine.cards import _free_card, parse_ranks

    used = used if used is not None else set()
    if not text.strip():
        return ()
    return sort_cards(_free_card(r, s, decks, used, text) for r, s in parse_ranks(text))


def position(
    rules: Rules,
    hands: Sequence[str],
    turn: int,
    *,
    trick: tuple[int, str] | None = None,
    played: str = "",
    extra: dict[str, Any] | None = None,
    finished: tuple[int, ...] = (),
) -> RoundState:
    """A play-phase state: ``hands`` by text, seat ``turn`` to act.

    ``trick`` = (seat, cards text): that seat's play is on the table and the
    seats between it and ``turn`` passed. ``played``: cards already gone.
    """
    used: set[int] = set()
    hs = [cards(h, rules.decks, used) for h in hands]
    gone = cards(played, rules.decks, used) if played.strip() else ()
    st = new_round(rules, hs, round_no=2, dealer=(turn - 1) % rules.players, leader=turn)
    st = evolve(st, must_contain=None, played=gone, phase="play", finished=finished)
    if extra:
        st = with_extra(st, **extra)
    if trick is not None:
        owner, text = trick
        tcards = cards(text, rules.decks, used)
        hands2 = list(st.hands)
        counts = list(st.counts)
        from zsy_lan.engine.cards import rank_counts
        from zsy_lan.engine.combos import classify

        combo = classify(rules, rank_counts(tcards))
        n = rules.players
        passes = 0
        seat_last: list[tuple[int, ...] | None] = [None] * n
        seat_last[owner] = tcards
        s = (owner + 1) % n
        while s != turn:
            seat_last[s] = ()
            passes += 1
            s = (s + 1) % n
        st = evolve(
            st, hands=tuple(hands2), counts=tuple(counts), trick=tcards, trick_seat=owner,
            trick_combo=combo, passes=passes, seat_last=tuple(seat_last),
            played=st.played + tcards, turn=turn, leader=owner,
        )
    return st


def dealt_states(rules: Rules, seed: str, upto: int = 60) -> list[RoundState]:
    """Full-information states met while easy bots play a round (for determinism tests)."""
    from zsy_lan.bots import make_bot

    game = Game(rules, 3 if rules.kitty_size else 2)
    game.start_round(round_seed(seed, 0))
    bots = [make_bot("easy", s) for s in range(rules.players)]
    out = []
    while game.match.phase == "playing" and len(out) < upto:
        st = game.match.round
        assert st is not None
        out.append(st)
        s = st.turn
        game.apply(s, bots[s].act(rules, view(st, s), s))
    return out


def rules_for(players: int, variants: Sequence[str] = (), options: dict[str, Any] | None = None):
    """``build_rules`` (kept in one place for the tests)."""
    return build_rules(players, list(variants), options or {})


def step(rules: Rules, state: RoundState, action: Action) -> RoundState:
    """Apply an action."""
    return apply(rules, state, action)
