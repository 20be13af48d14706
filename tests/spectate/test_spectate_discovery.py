"""``zsy watch NAME`` mid-match (issue #15): a table that admits spectators stays listed by
mDNS once full, marked watchable (TXT ``watch``, nothing secret); ``zsy tables`` says how to
watch it, ``zsy join NAME`` says it is full and how to watch. Zeroconf bound to loopback."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import os
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

sys.path.insert(0, str(Path(__file__).parent))

from spectate_support import LO, BotTable, returned  # noqa: E402

from zsy_lan.cli import cli  # noqa: E402
from zsy_lan.engine.ruleset import build_rules  # noqa: E402
from zsy_lan.net.discovery import Advertiser, TableBrowser, TableInfo  # noqa: E402
from zsy_lan.net.transport import CurveKeyPair  # noqa: E402
from zsy_lan.protocol import Identity  # noqa: E402
from zsy_lan.record.store import TableStore  # noqa: E402
from zsy_lan.table.deciders import make_decider  # noqa: E402
from zsy_lan.table.hosting import open_table, run_bot_peer  # noqa: E402
from zsy_lan.table.joining import resolve_target  # noqa: E402
from zsy_lan.table.reach import NetConfig, TableError, parse_join_url  # noqa: E402
from zsy_lan.table.watch import resolve_watch_target, watch_table  # noqa: E402

#: mDNS on loopback is one medium for both xdist workers: these run one at a time
MDNS = pytest.mark.xdist_group("mdns")


def _table(**kw) -> TableInfo:
    tid = os.urandom(8).hex()
    base = dict(
        table_id=tid, name=f"watch me {tid[:6]}", protocol_version=1, ruleset_id="rs",
        variants=("zsy",), free_seats=0, seats=4, fingerprint="SHA256:" + "cd" * 16,
        port=45678, curve_key=CurveKeyPair.generate().public, addresses=(LO,),
    )
    base.update(kw)
    return TableInfo(**base)


def test_the_txt_record_carries_only_the_spectator_mode():
    for mode in ("ask", "open"):
        t = _table(watch=mode)
        props = t.to_txt()
        assert props["watch"] == mode
        raw = {k.encode(): v.encode() for k, v in props.items()}
        back = TableInfo.from_txt(raw, addresses=(LO,))
        assert back == t and back.watchable
    assert "watch" not in _table().to_txt() and not _table().watchable  # off: as before
    odd = {k.encode(): v.encode() for k, v in _table().to_txt().items()} | {b"watch": b"\x1b[2J"}
    assert TableInfo.from_txt(odd).watch == "off"  # untrusted: anything else is "none"


@MDNS
@pytest.mark.slow
@pytest.mark.asyncio
@pytest.mark.timeout(40)
async def test_a_full_table_that_admits_spectators_stays_listed_and_join_says_how_to_watch():
    """A full watchable table is listed with free=0; one without spectators is withdrawn."""
    watched = _table(watch="ask")
    closed = _table(watch="off", free_seats=1)
    adv, adv2 = Advertiser([LO]), Advertiser([LO])
    browser = TableBrowser([LO])
    try:
        await browser.start()
        # both probe at once (about 1.2 s each, RFC 6762), not one after the other
        assert await asyncio.gather(adv.register(watched), adv2.register(closed)) == [True, True]
        assert await browser.wait_for(lambda t: t.table_id == closed.table_id, 10)
        found = await browser.wait_for(lambda t: t.table_id == watched.table_id, 10)
        assert found is not None and found.free_seats == 0 and found.watch == "ask"
        # the table without spectators fills: withdrawn, as before
        assert not await adv2.update(dataclasses.replace(closed, free_seats=0))
        assert await browser.wait_gone(lambda t: t.table_id == closed.table_id, 10)

        net = NetConfig(address=LO, mdns=True, mdns_interfaces=[LO])
        said: list[str] = []
        # each lookup by name listens SECOND_LOOK (1.5 s) for a second table of the name:
        # zsy join and zsy watch look at once, as two users would
        joined, watching = await asyncio.gather(
            resolve_target(watched.name, net, 5.0, lambda _l: None),
            resolve_watch_target(watched.name, [LO], 5.0, said.append),
            return_exceptions=True,
        )
        with pytest.raises(TableError, match=rf"the match at '{watched.name}' is full: it seats "
                           rf"nobody new. To watch it: zsy watch \"{watched.name}\""):
            returned(joined)
        endpoint, curve = returned(watching)
        assert (endpoint, curve) == (f"tcp://{LO}:45678", watched.curve_key)
        host = watched.fingerprint
        assert said == [f"watching '{watched.name}' at tcp://{LO}:45678 (host {host})"]
    finally:
        await adv.close()
        await adv2.close()
        await browser.close()


@MDNS
@pytest.mark.slow
@pytest.mark.asyncio
@pytest.mark.timeout(40)
async def test_zsy_watch_names_a_table_whose_host_admits_no_spectators():
    """Both lookups and the advert run at once: each waits on mDNS (probing, listening)."""
    filling = _table(watch="off", free_seats=2)
    async with Advertiser([LO]) as adv:
        registered, refused, nobody = await asyncio.gather(
            adv.register(filling),
            resolve_watch_target(filling.name, [LO], 8.0, lambda _l: None),
            resolve_watch_target("nobody here", [LO], 0.5, lambda _l: None),
            return_exceptions=True,
        )
        assert returned(registered)
        with pytest.raises(TableError, match=r"admits no spectators \(its host chose "
                           r"--spectators off\)"):
            returned(refused)
    with pytest.raises(TableError, match="no table named 'nobody here' that admits spectators"):
        returned(nobody)
    url = "tcp://127.0.0.1:5000#" + "A" * 43
    assert await resolve_watch_target(url, [], 0.5, lambda _l: None) == parse_join_url(url)


def test_zsy_tables_says_a_full_match_can_be_watched(monkeypatch):
    found = [_table(name="friday", watch="open"), _table(name="quiet", free_seats=1)]

    async def fake_browse(addrs, timeout):
        return found

    import zsy_lan.net.discovery as discovery

    monkeypatch.setattr(discovery, "browse_tables", fake_browse)
    runner = CliRunner()
    out = runner.invoke(cli, ["tables", "--interface", "lo"]).output.splitlines()
    assert out[0].startswith("friday:") and "0/4 seats free" in out[0]
    assert out[0].endswith("full — zsy watch friday to watch")
    assert "zsy watch" not in out[1]
    js = runner.invoke(cli, ["tables", "--interface", "lo", "--json"]).output
    assert '"spectators": "open"' in js and '"spectators": "off"' in js


@MDNS
@pytest.mark.slow
@pytest.mark.asyncio
@pytest.mark.timeout(110)
async def test_zsy_watch_name_finds_a_full_table_mid_match_and_it_is_withdrawn_at_the_end(
    tmp_path,
):
    """The table fills (host's bot seat, two host bots, one joining bot peer), the match
    runs, and the spectator finds it by name; closing the desk withdraws the advert."""
    # a name no other run on this machine advertises at the same time (loopback mDNS)
    name = f"midmatch-{os.urandom(3).hex()}"
    identity = Identity.generate()
    said: list[str] = []
    ready = asyncio.Event()
    net = NetConfig(address=LO, mdns=True, mdns_interfaces=[LO])

    def notify(text: str) -> None:
        said.append(text)
        if "Others join with" in text:
            ready.set()

    opening = asyncio.create_task(
        open_table(
            identity, build_rules(4, [], {}), 40, name, "host",  # long: still on
            lambda t: TableStore(tmp_path / "host" / t), net, bots=2, bot_level="easy",
            notify=notify, bot_store=lambda t, s: TableStore(tmp_path / f"bot-{s}" / t),
            host_bot=True, spectators="open",
        )
    )
    joiner = table = watcher = browser = None
    stop = asyncio.Event()
    try:
        await asyncio.wait_for(ready.wait(), 30)
        endpoint = next(x for x in said if "zsy join" in x).rsplit(" ", 1)[-1].rstrip(")")
        joiner = asyncio.create_task(run_bot_peer(
            *parse_join_url(endpoint), "easy", 7, net,
            lambda t, s: TableStore(tmp_path / "joiner" / t)))
        hosted = await asyncio.wait_for(opening, 40)
        hosted.peer.decider = make_decider("easy", identity.public_key)
        table = BotTable(hosted, identity, asyncio.create_task(hosted.peer.run()), said)
        hosted.bots.append(joiner)  # closed with the host's bots
        assert hosted.spectators is not None and hosted.spectators.advertiser is not None

        # one browser for the whole test; zsy join NAME and zsy watch NAME look at once
        browser = await TableBrowser([LO]).start()
        joined, watching = await asyncio.gather(
            resolve_target(name, net, 5.0, lambda _l: None),
            resolve_watch_target(name, [LO], 8.0, lambda _l: None),
            return_exceptions=True,
        )
        # the lookups listened SECOND_LOOK past the first answer: the browser, as long
        assert await browser.wait_for(lambda t: t.name == name, 10)
        listed = [t for t in browser.tables.values() if t.name == name]
        assert [(t.free_seats, t.watch) for t in listed] == [(0, "open")]
        with pytest.raises(TableError, match=f"the match at '{name}' is full"):
            returned(joined)
        ep, curve = returned(watching)
        assert curve == identity.curve_public
        shown: list[str] = []
        host_state: list[bool] = []  # the host's match finished, at each batch received
        watcher = asyncio.create_task(watch_table(
            ep, curve, "bob", LO, show=shown.append, stop=stop,
            on_batch=lambda _f, _fr: host_state.append(hosted.peer.game.finished())))
        ok = await table.wait(lambda: any(" dealt" in x for x in shown) or watcher.done(), 40)
        assert ok and not watcher.done(), (shown, watcher.done() and watcher.exception())
        assert shown[0].startswith(f"Watching table '{name}' (private deal)")
        assert host_state and not host_state[0]  # it came mid-match
        stop.set()
        await asyncio.wait_for(watcher, 10)

        assert await browser.wait_for(lambda t: t.name == name, 10)
        await asyncio.wait_for(hosted.spectators.close(), 8)
        assert hosted.spectators.advertiser is None
        assert await browser.wait_gone(lambda t: t.name == name, 10)
    finally:
        stop.set()
        if browser is not None:
            await browser.close()
        if table is not None:
            await table.close()
        for t in (opening, joiner, watcher):
            if t is not None and not t.done():
                t.cancel()
            if t is not None:
                with contextlib.suppress(BaseException):
                    await asyncio.wait_for(t, 10)
