"""A window made small and large again under an open overlay gets its table back.

Played in tmux (session 7, helper U2): the window was 50x15 when the match ended and the
score sheet opened over the table; made 120x40 again, the table stayed replaced by "This
window is 50x15; the table needs at least 60x20" behind the score sheet. The size check
marked whatever screen was on top (the overlay), never the table's own.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "ui"))
from screen_support import screen_table  # noqa: E402
from test_screen import SIZE, _app  # noqa: E402

pytestmark = [pytest.mark.timeout(60)]


@pytest.mark.asyncio
async def test_the_table_comes_back_when_the_window_grows_under_an_overlay(tmp_path):
    table = screen_table(tmp_path)
    app = _app(table)
    try:
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            base = app.screen
            await pilot.press("f1")  # the help overlay is on top
            await pilot.pause()
            assert app.screen is not base
            await pilot.resize_terminal(50, 15)
            assert base.has_class("small")
            assert "50x15" in str(base.query_one("#small").render())
            await pilot.resize_terminal(*SIZE)
            assert not base.has_class("small")
            await pilot.press("escape")
            await pilot.pause()
            assert app.screen is base and not base.has_class("small")
    finally:
        await table.close()
