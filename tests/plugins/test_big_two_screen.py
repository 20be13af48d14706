"""Big Two on the full-screen table (Textual Pilot): its order, its words, its rule ids."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from zsy_lan.ui.render import Style
from zsy_lan.ui.screen import HandView, ScreenOptions, TableApp

SIZE = (80, 24)
THREE_D = 0
SEED_3D_AT_SEAT_0 = "b2-screen-9"  # seat 0 is dealt 3♦

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "ui"))
from screen_support import screen_table  # noqa: E402
from test_screen import _my_turn  # noqa: E402


@pytest.mark.asyncio
async def test_the_hand_is_in_big_two_order_and_a_lead_without_3d_is_refused_citing_b2(tmp_path):
    table = screen_table(tmp_path, variants=["big-two"], seed=SEED_3D_AT_SEAT_0)
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
