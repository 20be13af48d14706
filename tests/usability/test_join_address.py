"""A join line may name the host by another address than the one it bound (found by hand).

``zsy join tcp://localhost:PORT#KEY`` to a host bound on 127.0.0.1 sat down, then died
with a traceback ("peer 0 already linked") when the match began: the roster's address
for the host differed from the one typed. The link the player typed reaches the same
key, and it is kept. Real host and joiner on loopback; everything is closed.
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
async def test_a_join_line_naming_the_host_as_localhost_plays_on(tmp_path: Path) -> None:
    host = await _Host(tmp_path).start(bots=1)
    typed = host.url.replace(f"tcp://{LO}:", "tcp://localhost:")
    assert typed != host.url
    joiner = jmesh = None
    try:
        joiner, jmesh = await asyncio.wait_for(
            join_table(
                Identity.generate(),
                typed,
                "ana",
                lambda t, s: TableStore(tmp_path / "ana" / t),
                NetConfig(address=LO, mdns=False),
                notify=lambda _line: None,
            ),
            30,
        )
        host_seat = joiner.roster.seats[0]
        assert host_seat.endpoint.startswith(f"tcp://{LO}:")  # the roster names the bound one
        assert jmesh.linked(0, host_seat.curve) and not jmesh.linked(1, host_seat.curve)
        joiner.start()  # raised ValueError: peer 0 already linked
        assert await jmesh.wait_connected(0, 10)
    finally:
        if joiner is not None:
            joiner.stopped.set()
            with contextlib.suppress(BaseException):
                await asyncio.wait_for(joiner.close(), 10)
        if jmesh is not None:
            with contextlib.suppress(BaseException):
                await jmesh.close()
        await host.close()
