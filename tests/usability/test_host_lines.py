"""What the host reads when the table opens (found hosting with --invite and --no-mdns).

With ``--invite`` the host was never told the commands it can type while the table fills
(kick, who, accept/refuse), and with ``--no-mdns`` it was told "Others join with:  zsy join
NAME", a name nobody can find when the table is not advertised. A real host on 127.0.0.1.
"""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path

import pytest

from zsy_lan.engine.ruleset import build_rules
from zsy_lan.protocol import Identity
from zsy_lan.protocol.table_settings import TableSettings
from zsy_lan.record.store import TableStore
from zsy_lan.table.hosting import open_table
from zsy_lan.table.reach import NetConfig

LO = "127.0.0.1"
pytestmark = [pytest.mark.timeout(60)]


async def _opening_lines(tmp: Path, settings: TableSettings, approve: bool = False) -> list[str]:
    """The host's lines up to its join line; the host is closed again."""
    lines: list[str] = []
    task = asyncio.create_task(
        open_table(
            Identity.generate(),
            build_rules(3, [], {}),
            1,
            "friday",
            "host",
            lambda t: TableStore(tmp / "host" / t),
            NetConfig(address=LO, mdns=False),
            notify=lines.append,
            deal="open",
            settings=settings,
            commands=asyncio.Queue(),
            approve=approve,
        )
    )
    try:
        for _k in range(500):
            if any("While the table fills" in x for x in lines) or task.done():
                break
            await asyncio.sleep(0.02)
        await asyncio.sleep(0.1)
    finally:
        task.cancel()
        with contextlib.suppress(BaseException):
            await task
    return lines


@pytest.mark.asyncio
async def test_a_host_by_invitation_is_told_the_lobby_commands(tmp_path: Path) -> None:
    lines = await _opening_lines(tmp_path, TableSettings(invite=True), approve=True)
    assert any("By invitation" in x for x in lines), lines
    told = [x for x in lines if x.startswith("While the table fills, type: kick")]
    assert len(told) == 1 and "accept N or refuse N (the number shown)" in told[0], lines


@pytest.mark.asyncio
async def test_a_host_not_advertised_is_not_told_to_share_its_name(tmp_path: Path) -> None:
    lines = await _opening_lines(tmp_path, TableSettings())
    join = [x for x in lines if "zsy join" in x]
    assert len(join) == 1, lines
    assert "zsy join friday" not in join[0]
    assert "not advertised on the LAN (zsy join tcp://" in join[0] and join[0].endswith(")")
    assert any(x.startswith("While the table fills, type: kick") for x in lines), lines
