"""The frames' labels in forms that fit (zsy_lan/ui/labels.py, issue #26)."""

from __future__ import annotations

import pytest
from screen_fit import bots_until_seat0, cut_labels
from screen_support import first_move
from test_screen_snapshots import _app

from zsy_lan.ui.labels import fit_label, points_forms, seat_titles


def test_the_first_form_that_fits_else_the_shortest():
    assert fit_label(["seat 5", "#5"], 6) == "seat 5"
    assert fit_label(["seat 5", "#5"], 5) == "#5"
    assert fit_label(["seat 5", "#5"], 1) == "#5"  # narrower than any: the shortest
    assert seat_titles(5) == ["seat 5", "#5"]
    assert points_forms(-12) == ["-12 points", "-12 pts"]
    assert points_forms(1)[0] == "1 point"


@pytest.mark.asyncio
async def test_a_long_table_name_gives_way_to_the_round_in_the_middle_s_title(tmp_path):
    """A table's name may be 64 characters (NAME_MAX): where it does not fit beside the
    round, the middle's title names the round alone (the table's name is on its last
    line), rather than ending in ``…``; a wider window shows both."""
    app, table = _app(tmp_path, 4)
    table.info.table_name = "friday-night-cards-at-anas-flat"
    async with app.run_test(size=(80, 24)) as pilot:
        table.start()
        table._bots.cancel()
        try:
            bots_until_seat0(table, first_move)
            await pilot.pause()
            title = str(app.query_one("#centre").border_title)
            assert title.startswith("Round 1 - dealer seat"), title
            assert not cut_labels(app)
            await pilot.resize_terminal(120, 40)  # the app redraws after the resize
            await pilot.pause()
            await pilot.pause()
            title = str(app.query_one("#centre").border_title)
            assert title.startswith("friday-night-cards-at-anas-flat: Round 1"), title
            assert not cut_labels(app)
        finally:
            await table.close()
