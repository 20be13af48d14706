"""The host's settings on the full-screen table (issue #15), with Textual's Pilot.

The header states them; with hints off the ``h`` key answers one sentence and
selects nothing; with the counter off ``c`` opens no panel; the acting
player's countdown stands next to their seat on a clock the test holds.
"""

from __future__ import annotations

import pytest
from settings_support import ClockSession
from textual.screen import ModalScreen

from zsy_lan.protocol.table_settings import TableSettings
from zsy_lan.ui.line_mode import Assist
from zsy_lan.ui.render import Style
from zsy_lan.ui.screen import HandView, ScreenOptions, TableApp

SIZE = (110, 32)
pytestmark = [pytest.mark.timeout(60)]


def _app(session: ClockSession, now: list[float]) -> TableApp:
    timer = session.info.settings.clock
    return TableApp(
        session, Style(), Assist(timer=timer, remind=None), ScreenOptions(clock=lambda: now[0])
    )


@pytest.mark.asyncio
async def test_hints_and_counter_off_on_the_screen_and_the_header_says_so():
    session = ClockSession(TableSettings(clock=30, hints=False, counter=False))
    app = _app(session, [0.0])
    async with app.run_test(size=SIZE) as pilot:
        session.changed.set()
        await pilot.pause()
        centre = str(app.query_one("#centre").render())
        assert "Set by the host for everyone: table clock 30 seconds per turn" in centre
        await pilot.press("h")
        await pilot.pause()
        assert "The host turned hints off at this table" in str(app.query_one("#status").render())
        assert not app.query_one(HandView).selected  # nothing was put in the selection
        await pilot.press("c")
        await pilot.pause()
        assert not isinstance(app.screen, ModalScreen)  # no counter panel
        assert "card counter off" in str(app.query_one("#status").render())
        assert not session.submitted


@pytest.mark.asyncio
async def test_the_acting_players_countdown_is_next_to_their_seat():
    session = ClockSession(TableSettings(clock=30))
    actor = session.seat
    session.seat = (actor + 1) % 4  # this screen watches another player act
    now = [50.0]
    app = _app(session, now)
    async with app.run_test(size=SIZE) as pilot:
        session.changed.set()
        await pilot.pause()
        panel = str(app.query_one(f"#seat{actor}").render())
        assert "to act, 30 s left" in panel
        now[0] += 12
        app._tick()
        await pilot.pause()
        assert "to act, 18 s left" in str(app.query_one(f"#seat{actor}").render())
