"""The full screen's status line after a command that answers with several lines.

``phrases`` typed on the full screen listed the phrases in the log and left the status line
under the table on the last one ("   :bye          Bye, thanks for the game!"), as if that
were the answer. The status line now shows the answer's first line (its heading).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from zsy_lan.protocol.table_settings import TableSettings
from zsy_lan.ui.line_mode import Assist
from zsy_lan.ui.render import Style
from zsy_lan.ui.screen import ScreenOptions, TableApp

sys.path.insert(0, str(Path(__file__).parent.parent / "table_settings"))
from settings_support import ClockSession  # noqa: E402

pytestmark = [pytest.mark.timeout(60)]


@pytest.mark.asyncio
async def test_phrases_leave_their_heading_on_the_status_line() -> None:
    session = ClockSession(TableSettings())
    app = TableApp(session, Style(), Assist(remind=None), ScreenOptions(clock=lambda: 0.0))
    async with app.run_test(size=(110, 32)) as pilot:
        session.changed.set()
        await pilot.pause()
        await app.typed("phrases")
        await pilot.pause()
        status = str(app.query_one("#status").render())
        assert status.startswith("Quick phrases"), status
        assert ":bye" not in status
