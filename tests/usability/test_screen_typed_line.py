"""A key on the full screen's hand opens the typed line; the keys after it follow it.

The first character went in selected (Textual's Input selects its text on focus), so the
next key replaced it: ":gg" typed on the hand reached the table as "gg" ("'gg' is not a
card"), "QQ" as "Q". README: "Tab, or any other letter: the typed line".
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from textual.widgets import Input

from zsy_lan.protocol.table_settings import TableSettings
from zsy_lan.ui.line_mode import Assist
from zsy_lan.ui.render import Style
from zsy_lan.ui.screen import ScreenOptions, TableApp

sys.path.insert(0, str(Path(__file__).parent.parent / "table_settings"))
from settings_support import ClockSession  # noqa: E402

pytestmark = [pytest.mark.timeout(60)]


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("keys", "line"), [(("colon", "g", "g"), ":gg"), (("Q", "space", "Q"), "Q Q")]
)
async def test_the_key_that_opens_the_typed_line_is_kept(keys, line) -> None:
    session = ClockSession(TableSettings())
    app = TableApp(session, Style(), Assist(remind=None), ScreenOptions(clock=lambda: 0.0))
    async with app.run_test(size=(110, 32)) as pilot:
        session.changed.set()
        await pilot.pause()
        for key in keys:
            await pilot.press(key)
            await pilot.pause()
        assert app.query_one("#cmd", Input).value == line
