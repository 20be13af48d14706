"""Big Two on the full-screen table (Textual Pilot): its order, its words, its rule ids."""

from __future__ import annotations

from pathlib import Path

import pytest

from zsy_lan.engine.round import legal_actions
from zsy_lan.engine.ruleset import build_rules
from zsy_lan.table.local_table import LocalTable
from zsy_lan.ui.render import Style
from zsy_lan.ui.screen import HandView, ScreenOptions, TableApp

SIZE = (80, 24)
THREE_D = 0
SEED_3D_AT_SEAT_0 = "b2-screen-9"  # seat 0 is dealt 3♦


def _first_move(rules, view, seat):
    """The seats' stand-in: the first legal play (a pass only when nothing else is legal)."""
    legal = legal_actions(rules, view, seat)
    return next((a for a in legal if a.cards), legal[0])


def _table(tmp_path: Path, seed: str) -> LocalTable:
    rules = build_rules(None, ["big-two"])
    deciders = {s: _first_move for s in range(1, 4)}
    nicks = {s: f"bot-{s}" for s in range(1, 4)} | {0: "you"}
    return LocalTable(rules, 1, 0, deciders, tmp_path / "rec.jsonl", seed=seed, nicks=nicks)


async def _my_turn(pilot, table) -> None:
    if table._bots is None:
        table.start()
    for _i in range(400):
        await pilot.pause(0.02)
        if table.seat in table.game.actors() and not table.game.finished():
            await pilot.pause()
            return
    raise AssertionError("seat 0's turn never came")


@pytest.mark.asyncio
async def test_the_hand_is_in_big_two_order_and_a_lead_without_3d_is_refused_citing_b2(tmp_path):
    table = _table(tmp_path, SEED_3D_AT_SEAT_0)
    app = TableApp(table, Style(color=True), None, ScreenOptions(clock=lambda: 0.0))
    try:
        async with app.run_test(size=SIZE) as pilot:
            await _my_turn(pilot, table)
            hand = app.query_one(HandView)
            assert list(hand.cards) == sorted(hand.cards)  # 3♦ < 3♣ < ... < 2♠ (B2-1.2)
            state = table.game.match.round
            assert state.must_contain == THREE_D and THREE_D in hand.cards  # the seed's deal
            other = next(i for i, c in enumerate(hand.cards) if c != THREE_D)
            before = len(table.game.log)
            hand.selected = {other}
            await pilot.press("enter")
            await pilot.pause()
            assert len(table.game.log) == before
            assert "B2-2.1" in str(app.query_one("#status").render())
            # any refused pair of cards cites Big Two's ids, never ZSY's
            legal = {tuple(sorted(a.cards)) for a in table.game.legal(0)}
            pair = next(
                (i, j)
                for i in range(len(hand.cards))
                for j in range(i + 1, len(hand.cards))
                if tuple(sorted((hand.cards[i], hand.cards[j]))) not in legal
            )
            hand.selected = set(pair)
            await pilot.press("enter")
            await pilot.pause()
            status = str(app.query_one("#status").render())
            assert "B2-" in status and "ZSY-" not in status
    finally:
        await table.close()
