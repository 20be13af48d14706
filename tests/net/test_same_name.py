"""Two tables with one name (issue #13): hosting refuses it, joining by name refuses to guess.

mDNS bound to 127.0.0.1 only; every advertiser is closed (goodbye) at the end.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest

from zsy_lan.engine.ruleset import build_rules
from zsy_lan.net.discovery import Advertiser, TableInfo, find_tables
from zsy_lan.net.transport import CurveKeyPair
from zsy_lan.protocol import Identity
from zsy_lan.record.store import TableStore
from zsy_lan.table.hosting import open_table
from zsy_lan.table.joining import resolve_target
from zsy_lan.table.reach import NetConfig, TableError

LO = ["127.0.0.1"]
# mDNS on 127.0.0.1 is one medium for every xdist worker: these tests take turns ("mdns").
pytestmark = [
    pytest.mark.asyncio,
    pytest.mark.slow,
    pytest.mark.timeout(60),
    pytest.mark.xdist_group("mdns"),
]


def _table(name: str, port: int) -> TableInfo:
    return TableInfo(
        table_id=os.urandom(6).hex(),
        name=name,
        protocol_version=1,
        ruleset_id="rs",
        variants=("zsy",),
        free_seats=2,
        seats=3,
        fingerprint="SHA256:" + os.urandom(4).hex(),
        port=port,
        curve_key=CurveKeyPair.generate().public,
        addresses=("127.0.0.1",),
    )


async def test_two_tables_of_one_name():
    name = f"same {os.urandom(3).hex()}"
    a, b = _table(name, 45001), _table(name, 45002)
    advs = [Advertiser(LO), Advertiser(LO)]
    net = NetConfig(address="127.0.0.1", mdns_interfaces=LO)

    async def join_by_name() -> str:
        with pytest.raises(TableError) as info:
            await resolve_target(name, net, 8, lambda _l: None)
        return str(info.value)

    async def host_the_name() -> None:
        with pytest.raises(TableError, match="already open on this network"):
            await open_table(
                Identity.generate(),
                build_rules(3, [], {}),
                1,
                name,
                "host",
                lambda t: TableStore(Path("/nonexistent") / t),
                net,
                notify=lambda _l: None,
                deal="open",
            )

    try:
        await asyncio.gather(advs[0].register(a), advs[1].register(b))  # they probe in parallel
        # Four independent look-ups, each with its own zeroconf and its own listening window
        # (SECOND_LOOK, SAME_NAME_BROWSE): run at once, the test waits for the longest, not
        # their sum (9 s before).
        found, text, (endpoint, _key), _ = await asyncio.gather(
            find_tables(name, LO, timeout=8, settle=3),
            join_by_name(),
            resolve_target(a.table_id, net, 8, lambda _l: None),  # by id: no ambiguity
            host_the_name(),
        )
        assert {t.table_id for t in found} == {a.table_id, b.table_id}
        assert a.table_id in text and b.table_id in text and "zsy join ID" in text
        assert endpoint == "tcp://127.0.0.1:45001"
    finally:
        for adv in advs:
            await adv.close()
