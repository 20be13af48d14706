"""Zeroconf advertise / browse bound to 127.0.0.1 only."""

from __future__ import annotations

import asyncio
import dataclasses
import os
import time

import pytest

from zsy_lan.net.discovery import (
    SERVICE_TYPE,
    Advertiser,
    TableBrowser,
    TableInfo,
    TableNotFoundError,
    browse_tables,
    make_zeroconf,
    resolve_table,
)
from zsy_lan.net.transport import CurveKeyPair

LO = ["127.0.0.1"]
# mDNS on 127.0.0.1 is one medium for every xdist worker: these tests take turns ("mdns").
pytestmark = pytest.mark.xdist_group("mdns")


def make_table(**kw) -> TableInfo:
    tid = os.urandom(8).hex()
    base = dict(
        table_id=tid,
        name=f"test table {tid[:6]}",
        protocol_version=1,
        ruleset_id="rs-" + "ab" * 16,
        variants=("zheng-shangyou", "partnerships"),
        free_seats=3,
        seats=4,
        fingerprint="SHA256:" + "cd" * 16,
        port=45678,
        curve_key=CurveKeyPair.generate().public,
        addresses=("127.0.0.1",),
    )
    base.update(kw)
    return TableInfo(**base)


def test_txt_roundtrip_and_validation():
    t = make_table()
    props = {k.encode(): v.encode() for k, v in t.to_txt().items()}
    back = TableInfo.from_txt(props, addresses=t.addresses)
    assert back == t
    assert back.endpoint == "tcp://127.0.0.1:45678"
    bad = dict(props)
    bad[b"free"] = b"many"
    with pytest.raises(ValueError, match="free"):
        TableInfo.from_txt(bad)
    bad = dict(props)
    bad[b"ck"] = b"short"
    with pytest.raises(ValueError):
        TableInfo.from_txt(bad)
    bad = dict(props)
    del bad[b"id"]
    with pytest.raises(ValueError, match="id"):
        TableInfo.from_txt(bad)
    with pytest.raises(ValueError):
        TableInfo.from_txt({b"name": b"\xff\xfe"})
    with pytest.raises(ValueError, match="longer"):
        make_table(variants=("v" * 300,)).to_txt()


@pytest.mark.slow
@pytest.mark.asyncio
@pytest.mark.timeout(30)
async def test_advertise_browse_update_withdraw():
    table = make_table()
    seen: list[tuple[str, int]] = []
    adv = Advertiser(LO)
    browser = TableBrowser(LO, on_change=lambda kind, t: seen.append((kind, t.free_seats)))
    try:
        await browser.start()
        t0 = time.monotonic()
        assert await adv.register(table)
        probe = time.monotonic() - t0
        assert adv.advertised and adv.instance.endswith(SERVICE_TYPE)

        found = await browser.wait_for(lambda t: t.table_id == table.table_id, 10)
        assert found is not None, "table not found by the browser"
        assert dataclasses.replace(found, instance="") == table
        assert found.instance == adv.instance
        assert found.label == table.name
        assert found.curve_key == table.curve_key

        # a seat is taken: the record is updated
        await adv.update(dataclasses.replace(table, free_seats=1))
        assert await browser.wait_for(
            lambda t: t.table_id == table.table_id and t.free_seats == 1, 10
        )
        # the table fills: the record is withdrawn with a goodbye
        assert not await adv.update(dataclasses.replace(table, free_seats=0))
        assert not adv.advertised
        assert await browser.wait_gone(lambda t: t.table_id == table.table_id, 10)
        # a seat frees up: advertised again
        assert await adv.update(dataclasses.replace(table, free_seats=2))
        assert await browser.wait_for(
            lambda t: t.table_id == table.table_id and t.free_seats == 2, 10
        )
        await adv.unregister()
        assert await browser.wait_gone(lambda t: t.table_id == table.table_id, 10)
    finally:
        await adv.close()
        await browser.close()
    kinds = [k for k, _ in seen]
    assert kinds[0] == "added" and "removed" in kinds
    assert 0.5 < probe < 5  # mDNS probing takes about 1.2 s


@pytest.mark.slow
@pytest.mark.asyncio
@pytest.mark.timeout(30)
async def test_browse_and_resolve_helpers():
    me, someone = f"resolve me {os.urandom(3).hex()}", f"someone else {os.urandom(3).hex()}"
    table = make_table(name=me)
    other = make_table(name=someone)
    async with Advertiser(LO) as adv, Advertiser(LO) as adv2:
        await asyncio.gather(adv.register(table), adv2.register(other))  # probe in parallel
        # one zeroconf per process: later look-ups are answered from its cache
        zc = make_zeroconf(LO)
        try:
            # browse_tables is a listening window (what `zsy tables` shows)
            tables = await browse_tables(LO, timeout=2.0, zeroconf=zc)
            assert {table.table_id, other.table_id} <= {t.table_id for t in tables}
            found = await resolve_table(me, LO, timeout=10, zeroconf=zc)
            assert found.table_id == table.table_id
            by_id = await resolve_table(table.table_id, LO, timeout=10, zeroconf=zc)
            assert by_id.name == me
            with pytest.raises(TableNotFoundError, match="resolve me"):
                await resolve_table("no such table", LO, timeout=0.3, zeroconf=zc)
        finally:
            await zc.async_close()


@pytest.mark.asyncio
@pytest.mark.timeout(30)
async def test_full_table_is_never_advertised():
    async with Advertiser(LO) as adv:
        assert not await adv.register(make_table(free_seats=0))
        assert not adv.advertised


def test_interfaces_are_required():
    with pytest.raises(ValueError):
        Advertiser([])
    with pytest.raises(ValueError):
        TableBrowser([])
