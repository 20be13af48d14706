"""A host resumed from disk is listed on mDNS again (session 8, helper U3, gap 3).

Before, a host that stopped mid-match and came back (``zsy join`` resuming its table)
served spectators again but was not advertised: ``zsy watch NAME`` and ``zsy join NAME``
found nothing, only the printed line worked. The fresh table keeps the addresses it was
listed on once full (``spectate.LISTING_FILE``), and the resumed host lists it there again
as the full table it is (no free seat, its spectator mode); a table never listed
(``--no-mdns``, ``--spectators off``) stays unlisted. Zeroconf bound to loopback only.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from spectate_support import LO, BotTable, returned  # noqa: E402

from zsy_lan.engine.ruleset import build_rules  # noqa: E402
from zsy_lan.net.discovery import TableBrowser  # noqa: E402
from zsy_lan.protocol import Identity  # noqa: E402
from zsy_lan.record.store import TableStore  # noqa: E402
from zsy_lan.table.deciders import make_decider  # noqa: E402
from zsy_lan.table.hosting import open_table, run_bot_peer  # noqa: E402
from zsy_lan.table.joining import resolve_target  # noqa: E402
from zsy_lan.table.reach import NetConfig, TableError, parse_join_url  # noqa: E402
from zsy_lan.table.resuming import resume_table  # noqa: E402
from zsy_lan.table.spectator_desk import (  # noqa: E402
    LISTING_FILE,
    SpectatorDesk,
    save_listing,
    saved_listing,
)
from zsy_lan.table.watch import resolve_watch_target  # noqa: E402


def test_the_saved_listing_is_read_back_and_anything_else_lists_nothing(tmp_path):
    assert saved_listing(tmp_path) is None  # a table from before, or never listed
    save_listing(tmp_path, [LO])
    assert saved_listing(tmp_path) == [LO]
    assert (tmp_path / LISTING_FILE).stat().st_mode & 0o777 == 0o600
    for junk in (b"[]", b'["eth0"]', b'"127.0.0.1"', b"\xff", b'["::1"]', b"[1, 2]"):
        (tmp_path / LISTING_FILE).write_bytes(junk)
        assert saved_listing(tmp_path) is None, junk


class _Adv:
    def __init__(self, interfaces):
        self.interfaces = tuple(interfaces)


def _desk_peer(folder: Path) -> SimpleNamespace:
    seats = [SimpleNamespace(seat=s) for s in range(3)]
    store = SimpleNamespace(path=folder, transcript_path=folder / "transcript.jsonl")
    return SimpleNamespace(store=store, roster=SimpleNamespace(seats=seats),
                           seat=0, spectators=None, notices=asyncio.Queue(),
                           changed=asyncio.Event())


@pytest.mark.asyncio
async def test_only_a_table_listed_once_full_keeps_its_addresses(tmp_path):
    """The desk keeps the listing when the match starts with its advert, and only then."""
    listed, unlisted = tmp_path / "listed", tmp_path / "unlisted"
    identity = Identity.generate()
    for folder, adv in ((listed, _Adv([LO])), (unlisted, None)):
        desk = SpectatorDesk(identity, "open", SimpleNamespace(), lambda _t: None, "open", "t")
        desk.advertiser = adv
        desk.attach(_desk_peer(folder))
    assert saved_listing(listed) == [LO]
    assert not (unlisted / LISTING_FILE).exists()


@pytest.mark.xdist_group("mdns")  # mDNS on loopback: one medium for both workers
@pytest.mark.slow
@pytest.mark.asyncio
@pytest.mark.timeout(150)
async def test_a_resumed_host_is_listed_again_and_zsy_watch_name_finds_it(tmp_path):
    """The table fills (host's bot seat, two host bots, a joining bot peer) and is listed as
    full; the host stops and is withdrawn; resumed from its folder, it is listed again,
    full and watchable, on the same port and key: ``zsy watch NAME`` finds it, ``zsy join
    NAME`` says it is full. Closing the desk withdraws it again."""
    identity = Identity.generate()
    said: list[str] = []
    ready = asyncio.Event()
    net = NetConfig(address=LO, mdns=True, mdns_interfaces=[LO])

    def notify(text: str) -> None:
        said.append(text)
        if "Others join with" in text:
            ready.set()

    name = f"u3resume{Identity.generate().fingerprint[:6]}"
    opening = asyncio.create_task(
        open_table(
            identity, build_rules(4, [], {}), 40, name, "host",
            lambda t: TableStore(tmp_path / "host" / t), net, bots=2, bot_level="easy",
            notify=notify, bot_store=lambda t, s: TableStore(tmp_path / f"bot-{s}" / t),
            host_bot=True, spectators="open",
        )
    )
    joiner = table = back = bmesh = runner = None
    try:
        await asyncio.wait_for(ready.wait(), 30)
        endpoint = next(x for x in said if "zsy join" in x).rsplit(" ", 1)[-1].rstrip(")")
        joiner = asyncio.create_task(run_bot_peer(
            *parse_join_url(endpoint), "easy", 7, net,
            lambda t, s: TableStore(tmp_path / "joiner" / t)))
        hosted = await asyncio.wait_for(opening, 40)
        hosted.peer.decider = make_decider("easy", identity.public_key)
        table = BotTable(hosted, identity, asyncio.create_task(hosted.peer.run()), said)
        hosted.bots.append(joiner)
        peer = hosted.peer
        folder = peer.store.path
        assert saved_listing(folder) == [LO]
        assert await table.wait(lambda: len(peer.game.log) >= 3, 40)

        # the host's process stops: its advert goes (here with a goodbye, so the
        # browser below does not wait for the record to expire)
        async with TableBrowser([LO]) as browser:
            assert await browser.wait_for(lambda t: t.name == name, 10)
            desk = hosted.spectators
            await asyncio.wait_for(desk.advertiser.close(), 5)
            desk.advertiser = None
            assert await browser.wait_gone(lambda t: t.name == name, 10)
        if desk._pump is not None:
            desk._pump.cancel()
        peer.stopped.set()
        with contextlib.suppress(BaseException):
            await asyncio.wait_for(table.runner, 10)
        port = hosted.mesh.port
        await hosted.mesh.close()

        back_said: list[str] = []
        back, bmesh = await resume_table(
            identity, TableStore(folder), NetConfig(address=LO, mdns_interfaces=[LO]),
            notify=back_said.append,
        )
        assert any(f"zsy watch {name} finds the table" in s for s in back_said), back_said
        assert back.spectators is not None and back.spectators.advertiser is not None
        back.decider = make_decider("easy", identity.public_key)
        back.start(resume=True)
        runner = asyncio.create_task(back.run())

        # one browser from here on; zsy watch NAME and zsy join NAME look at once (each
        # listens SECOND_LOOK, 1.5 s, past the first answer for a second table of the name)
        async with TableBrowser([LO]) as browser:
            watching, joined = await asyncio.gather(
                resolve_watch_target(name, [LO], 8.0, lambda _l: None),
                resolve_target(name, net, 5.0, lambda _l: None),
                return_exceptions=True,
            )
            assert await browser.wait_for(lambda t: t.name == name, 10)
            found = [t for t in browser.tables.values() if t.name == name]
            assert [(t.free_seats, t.watch, t.port, t.table_id, t.bots) for t in found] == [
                (0, "open", port, peer.roster.table, 2)
            ]
            assert found[0].curve_key == identity.curve_public
            ep, curve = returned(watching)
            assert (ep, curve) == (bmesh.endpoint, identity.curve_public)
            with pytest.raises(TableError, match=f"the match at '{name}' is full"):
                returned(joined)

            await asyncio.wait_for(back.spectators.close(), 8)
            assert back.spectators.advertiser is None
            assert await browser.wait_gone(lambda t: t.name == name, 10)
    finally:
        if back is not None:
            with contextlib.suppress(BaseException):
                await asyncio.wait_for(back.spectators.close(), 5)
            back.stopped.set()
        if runner is not None:
            with contextlib.suppress(BaseException):
                await asyncio.wait_for(runner, 10)
        if table is not None:
            await table.close()
        for t in (opening, joiner):
            if t is not None and not t.done():
                t.cancel()
            if t is not None:
                with contextlib.suppress(BaseException):
                    await t
        if bmesh is not None:
            await bmesh.close()


@pytest.mark.asyncio
async def test_a_resumed_table_never_listed_stays_unlisted(tmp_path, monkeypatch):
    """No listing file (``--no-mdns``, a table from before): nothing is advertised."""
    import zsy_lan.net.discovery as discovery
    from zsy_lan.table.resuming import _list_again

    made: list[object] = []
    monkeypatch.setattr(discovery, "Advertiser", lambda *a, **k: made.append(a))
    desk = SimpleNamespace(mode="open", advertiser=None)
    peer = SimpleNamespace(store=SimpleNamespace(path=tmp_path))
    said: list[str] = []
    await _list_again(Identity.generate(), peer, SimpleNamespace(), desk, said.append)
    assert made == [] and desk.advertiser is None and said == []

