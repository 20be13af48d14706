"""What a spectator may not do, and how the host decides (issue #15): --spectators off
refuses with one sentence, ask waits for accept/refuse, and a spectator's game frame,
vote, lobby frame, oversized frame or flood is ignored and named as the spectator's."""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
import threading
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from spectate_support import LO, bot_table  # noqa: E402

from zsy_lan.engine.ruleset import build_rules  # noqa: E402
from zsy_lan.protocol import Identity  # noqa: E402
from zsy_lan.protocol.envelope import seal  # noqa: E402
from zsy_lan.protocol.lobby import join_body, seal_lobby  # noqa: E402
from zsy_lan.protocol.table_settings import TableSettings  # noqa: E402
from zsy_lan.protocol.transcript import load_line  # noqa: E402
from zsy_lan.record.store import TableStore  # noqa: E402
from zsy_lan.table.hosting import open_table  # noqa: E402
from zsy_lan.table.reach import NetConfig, TableError, start_mesh  # noqa: E402
from zsy_lan.table.watch import _next, watch_table  # noqa: E402
from zsy_lan.table.watch_frames import seal_watch, watch_body  # noqa: E402


@pytest.mark.asyncio
@pytest.mark.timeout(60)
async def test_spectators_off_refuses_mid_match_with_one_sentence(tmp_path):
    table = await bot_table(tmp_path, spectators="off", rounds=1)
    try:
        with pytest.raises(TableError, match="admits no spectators: its host chose "
                           "--spectators off, or the table has closed"):
            await asyncio.wait_for(watch_table(table.endpoint, table.curve, "bob", LO), 30)
        assert table.hosted.spectators is None
    finally:
        await table.close()


async def _filling_table(
    tmp_path: Path,
    spectators: str,
    *,
    mdns: bool = False,
    settings: TableSettings | None = None,
    name: str = "filling",
):
    """A 4-seat table that waits for its players: the lobby stays open (no bot to cancel).

    ``mdns``: advertised with zeroconf bound to loopback only (then give it a ``name``
    no other run on this machine advertises at the same time)."""
    identity = Identity.generate()
    said: list[str] = []
    commands: asyncio.Queue[str] = asyncio.Queue()
    ready = asyncio.Event()

    def notify(text: str) -> None:
        said.append(text)
        if "Spectators watch with" in text or "Others join with" in text:
            ready.set()

    task = asyncio.create_task(
        open_table(
            identity, build_rules(4, [], {}), 1, name, "host",
            lambda t: TableStore(tmp_path / "host" / t),
            NetConfig(address=LO, mdns=mdns, mdns_interfaces=[LO]),
            bots=0, notify=notify, commands=commands,
            bot_store=lambda t, s: TableStore(tmp_path / f"bot-{s}" / t),
            spectators=spectators, settings=settings,
        )
    )
    await asyncio.wait_for(ready.wait(), 20)
    url = next(line for line in said if "zsy join" in line).rsplit(" ", 1)[-1].rstrip(")")
    return task, identity, said, commands, url


@pytest.mark.asyncio
@pytest.mark.timeout(60)
async def test_spectators_off_refuses_while_the_table_fills(tmp_path):
    task, identity, said, _commands, url = await _filling_table(tmp_path, "off")
    try:
        endpoint = url.partition("#")[0]
        assert not any("Spectators watch with" in line for line in said)
        with pytest.raises(TableError, match=r"the host refused: this table admits no "
                           r"spectators \(its host chose --spectators off\)"):
            await asyncio.wait_for(
                watch_table(endpoint, identity.curve_public, "bob", LO), 30)
    finally:
        task.cancel()
        with contextlib.suppress(BaseException):
            await task


@pytest.mark.asyncio
@pytest.mark.timeout(60)
async def test_ask_waits_for_the_host_who_refuses_one_and_accepts_another(tmp_path):
    task, identity, said, commands, url = await _filling_table(tmp_path, "ask")
    endpoint = url.partition("#")[0]
    stop = asyncio.Event()
    watchers: list[asyncio.Task] = []
    try:
        assert any("Spectators watch with:  zsy watch" in line and "accept NICK" in line
                   for line in said)
        bob_said: list[str] = []
        bob = asyncio.create_task(
            watch_table(endpoint, identity.curve_public, "bob", LO, show=bob_said.append))
        watchers.append(bob)
        for _ in range(100):
            if any("bob asks to watch: type accept bob or refuse bob" in s for s in said):
                break
            await asyncio.sleep(0.1)
        assert any("bob asks to watch" in s for s in said), said
        assert "asked to watch; waiting for the host to let you in" in bob_said
        commands.put_nowait("refuse bob")
        with pytest.raises(TableError, match="the host did not let you watch this table"):
            await asyncio.wait_for(bob, 20)
        carl_said: list[str] = []
        carl = asyncio.create_task(
            watch_table(endpoint, identity.curve_public, "carl", LO, show=carl_said.append,
                        stop=stop))
        watchers.append(carl)
        for _ in range(100):
            if any("carl asks to watch" in s for s in said):
                break
            await asyncio.sleep(0.1)
        commands.put_nowait("accept carl")
        for _ in range(100):
            if carl_said and carl_said[-1].startswith("Watching table 'filling'"):
                break
            await asyncio.sleep(0.1)
        assert any(s.startswith("Watching table 'filling' (private deal)") for s in carl_said)
        assert "carl may watch" in said and "carl is watching" in said
        commands.put_nowait("watchers")
        for _ in range(50):
            if any(s.startswith("watching: carl") for s in said):
                break
            await asyncio.sleep(0.1)
        assert any(s.startswith("watching: carl") for s in said)
        # a spectator never takes a seat: the table still waits for a player
        assert not any("The table is full" in s for s in said)
    finally:
        stop.set()
        task.cancel()
        for t in [task, *watchers]:
            with contextlib.suppress(BaseException):
                await asyncio.wait_for(t, 10)


@pytest.mark.slow
@pytest.mark.asyncio
@pytest.mark.timeout(110)
async def test_a_spectator_s_game_frames_and_votes_are_ignored_and_named_as_its_own(
    tmp_path, monkeypatch
):
    """One round: the host's seat holds its first move until the spectator's frames were
    judged, so the match is still on while they come, on a machine of any speed. Eve
    leaves without a word, so the host's closing desk would wait its whole CLOSE_BUDGET (5 s)
    for her ``leave``: the test's teardown, not its subject, so that wait is cut short."""
    from zsy_lan.table import spectator_desk
    from zsy_lan.table.watch_frames import BYE_BUDGET

    monkeypatch.setattr(spectator_desk, "CLOSE_BUDGET", BYE_BUDGET + 0.5)
    table = await bot_table(tmp_path, deal="private", spectators="open", rounds=1)
    peer = table.hosted.peer
    desk = table.hosted.spectators
    judged = threading.Event()
    decide = peer.decider

    def held(rules, view, seat):  # a bot's move runs in a worker thread: it may block
        judged.wait(60)
        return decide(rules, view, seat)

    peer.decider = held
    me = Identity.generate()
    mesh = await start_mesh(me, LO, 0)
    try:
        mesh.connect_peer(0, table.endpoint, table.curve)
        assert await mesh.wait_connected(0, 10)
        await mesh.send(0, seal_watch(me, "watch", watch_body(me, "eve")), timeout=2)
        welcome = None
        for _ in range(20):
            welcome = await _next(mesh, 1.0)
            if welcome is not None and welcome.kind == "welcome":
                break
        assert welcome is not None and welcome.kind == "welcome"
        assert await table.wait(lambda: len(peer.replica.transcript()) > 20, 30)
        # a genuine seat's frame relayed, and a vote (motion) of its own naming seat 1
        _seat, genuine = load_line(peer.store.transcript_lines()[5])
        vote = seal(me, table=peer.roster.table, seat=1, seq=1, prev="0" * 64, state="0" * 64,
                    type="motion", body={"motion": "void", "seat": 1, "at": "0" * 64, "cut": 0})
        join = seal_lobby(me, "join", join_body(me, "eve", mesh.endpoint))
        for frame in (genuine, vote, join, b"\x00" * 5000):
            await mesh.send(0, frame, timeout=2)
        for _ in range(30):  # a flood of pings
            await mesh.send(0, seal_watch(me, "ping", {}), timeout=2)
        assert await table.wait(lambda: len(desk.misbehaviour) >= 5, 10), desk.misbehaviour
        what = {w for who, w in desk.misbehaviour if who == "eve"}
        assert "spectator eve sent a game message (a spectator never plays or votes): " \
            "ignored" in what
        assert "spectator eve sent a lobby message (a spectator never sits down): ignored" in what
        assert "spectator eve sent an oversized message: ignored" in what
        assert "spectator eve sends too many messages: ignored" in what
        assert {who for who, _w in desk.misbehaviour} == {"eve"}  # never a seat
        assert await table.wait(lambda: any(
            "spectator eve sent a game message (a spectator never plays or votes): ignored" in n
            for n in table.notices()), 5)
        assert not peer.game.finished()  # all of it came mid-match
        judged.set()
        # the spectator just leaves (no bye): the game goes on and ends for every seat
        await mesh.close()
        assert await table.wait(lambda: peer.game.finished(), 90)
        assert peer.info.stopped is None and peer.replica.ledger.halted is None
        assert peer.replica.ledger.motion_log == [] and not peer.replica.ledger.votes
        assert not any("cheated" in n for n in table.notices())
    finally:
        judged.set()
        await mesh.close()
        await table.close()


@pytest.mark.asyncio
@pytest.mark.timeout(60)
async def test_a_late_joiner_is_told_the_match_has_started_and_how_to_watch(tmp_path):
    from zsy_lan.table.joining import join_table
    from zsy_lan.table.reach import join_url

    table = await bot_table(tmp_path, spectators="ask", rounds=3)
    try:
        with pytest.raises(TableError, match=r"the match has started: this table seats nobody "
                           r"new \(zsy watch to watch it\)"):
            await asyncio.wait_for(
                join_table(Identity.generate(), join_url(table.endpoint, table.curve), "late",
                           lambda t, s: TableStore(tmp_path / "late" / t),
                           NetConfig(address=LO, mdns=False), notify=lambda _l: None),
                30,
            )
        assert len(table.hosted.peer.roster.seats) == 4
    finally:
        await table.close()


@pytest.mark.xdist_group("mdns")  # mDNS on loopback: one medium for both workers
@pytest.mark.slow
@pytest.mark.asyncio
@pytest.mark.timeout(60)
async def test_zsy_watch_finds_a_filling_table_by_name_with_mdns_on_loopback(tmp_path):
    from zsy_lan.table.joining import resolve_target

    name = f"filling-{os.urandom(3).hex()}"
    task, identity, said, _commands, _url = await _filling_table(
        tmp_path, "open", mdns=True, name=name
    )
    stop = asyncio.Event()
    watcher = None
    try:
        net = NetConfig(address=LO, mdns=True, mdns_interfaces=[LO])
        endpoint, curve = await resolve_target(name, net, 8.0, lambda _l: None)
        assert curve == identity.curve_public
        shown: list[str] = []
        watcher = asyncio.create_task(
            watch_table(endpoint, curve, "bob", LO, show=shown.append, stop=stop))
        for _ in range(100):
            if shown:
                break
            await asyncio.sleep(0.1)
        assert shown and shown[0].startswith(f"Watching table '{name}' (private deal)")
        assert "bob is watching" in said
    finally:
        stop.set()
        task.cancel()
        for t in [task, watcher]:
            if t is not None:
                with contextlib.suppress(BaseException):
                    await asyncio.wait_for(t, 10)


@pytest.mark.asyncio
@pytest.mark.timeout(60)
async def test_an_invitation_table_asks_the_host_for_each_spectator_even_with_open(tmp_path):
    """--invite with --spectators open: nobody who merely finds the table may watch unasked."""
    task, _identity, said, _commands, _url = await _filling_table(
        tmp_path, "open", settings=TableSettings(invite=True)
    )
    try:
        assert any("lets each spectator in by hand" in line for line in said)
        line = next(x for x in said if "Spectators watch with" in x)
        assert "accept NICK" in line and "anyone with this line" not in line
    finally:
        task.cancel()
        with contextlib.suppress(BaseException):
            await task
