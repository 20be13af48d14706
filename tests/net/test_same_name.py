"""Two tables with one name (issue #13): hosting refuses it, joining by name refuses to guess.

mDNS bound to 127.0.0.1 only; every advertiser is closed (goodbye) at the end.
"""

from __future__ import annotations

import os

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
# The look-ups run one after another on purpose: run at once (tried for speed), their queries
# and answers interfered and under load a join by name saw one table of the two, or none.
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
    try:
        await advs[0].register(a)
        await advs[1].register(b)
        found = await find_tables(name, LO, timeout=8, settle=3)
        assert {t.table_id for t in found} == {a.table_id, b.table_id}

        net = NetConfig(address="127.0.0.1", mdns_interfaces=LO)
        with pytest.raises(TableError) as info:
            await resolve_target(name, net, 8, lambda _l: None)
        text = str(info.value)
        assert a.table_id in text and b.table_id in text and "zsy join ID" in text
        # by id: no ambiguity
        endpoint, _key = await resolve_target(a.table_id, net, 8, lambda _l: None)
        assert endpoint == "tcp://127.0.0.1:45001"

        with pytest.raises(TableError, match="already open on this network"):
            await open_table(
                Identity.generate(),
                build_rules(3, [], {}),
                1,
                name,
                "host",
                lambda t: TableStore(__import__("pathlib").Path("/nonexistent") / t),
                net,
                notify=lambda _l: None,
                deal="open",
            )
    finally:
        for adv in advs:
            await adv.close()
