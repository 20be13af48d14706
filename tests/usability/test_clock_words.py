"""The reminder names the table clock, as the header does (found with --lang de).

The header reads "table clock 15 seconds per turn" (German "Tischuhr"), but the reminder
said "The timer plays the hint for you in 5 seconds" ("Der Timer ..."): two names for one
thing, docs/table-settings.md calls it the table clock.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest

from zsy_lan.protocol.table_settings import TableSettings
from zsy_lan.ui.line_mode import Assist, run_table
from zsy_lan.ui.render import Style

sys.path.insert(0, str(Path(__file__).parent.parent / "table_settings"))
from settings_support import ClockSession, FedReader  # noqa: E402

pytestmark = [pytest.mark.timeout(60)]


def test_the_reminder_names_the_table_clock() -> None:
    s = ClockSession(TableSettings(clock=60))
    s.changed.set()  # the watcher sees the turn begin
    out: list[str] = []
    reader = FedReader()

    async def scenario() -> None:
        table = asyncio.create_task(
            run_table(s, Style(width=200), reader, out.append, Assist(timer=60.0, remind=0.05))
        )
        for _ in range(500):
            if any("Still your turn" in x for x in out):
                break
            await asyncio.sleep(0.01)
        reader.lines.put_nowait(None)
        await asyncio.wait_for(table, 20)

    asyncio.run(scenario())
    reminder = next(x for x in out if "Still your turn" in x)
    assert "The table clock plays the hint for you in 60 seconds." in reminder
    assert "timer" not in reminder
