"""The joiner's "seated" line counts its free seats in words that agree (found joining).

A joiner that took the last free seat read "waiting for the table to fill (1 free seats
when you joined)". Real host and joiner on 127.0.0.1; everything is closed.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
from pathlib import Path

import pytest

from zsy_lan.protocol import Identity
from zsy_lan.record.store import TableStore
from zsy_lan.table.joining import join_table
from zsy_lan.table.reach import NetConfig

sys.path.insert(0, str(Path(__file__).parent.parent / "table_settings"))
from test_settings_loopback import LO, _Host  # noqa: E402


@pytest.mark.asyncio
@pytest.mark.timeout(90)
async def test_one_free_seat_is_said_in_the_singular(tmp_path: Path) -> None:
    host = await _Host(tmp_path).start(bots=1)  # 3 seats: the host, a bot, one free
    said: list[str] = []
    joiner = jmesh = None
    try:
        # the bot sits down in its own task: join only once the host has seated it, or
        # the joiner rightly reads "2 free seats" (seen under load)
        for _k in range(1500):
            if any("(bot) sat down at seat" in ln for ln in host.lines):
                break
            await asyncio.sleep(0.02)
        else:
            raise AssertionError(f"the bot never sat down: {host.lines}")
        joiner, jmesh = await asyncio.wait_for(
            join_table(
                Identity.generate(),
                host.url,
                "ana",
                lambda t, s: TableStore(tmp_path / "ana" / t),
                NetConfig(address=LO, mdns=False),
                notify=said.append,
            ),
            30,
        )
        seated = next(x for x in said if x.startswith("seated at table"))
        assert "(1 free seat when you joined)" in seated, seated
    finally:
        if jmesh is not None:
            with contextlib.suppress(BaseException):
                await jmesh.close()
        await host.close()
