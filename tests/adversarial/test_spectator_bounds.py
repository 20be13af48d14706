"""Spectators are bounded (issue #25): places per address, rewinds per interval.

Modified clients, not mocks of the desk:

* sixteen fresh identities from one address (raw CURVE DEALERs connecting from
  127.0.0.2, each sending a correctly signed ``watch``) took every spectator
  place and a real ``zsy watch`` was refused; now one address holds
  :data:`PER_ADDRESS` places, the rest are refused with a sentence saying why,
  and a real spectator from another address is welcomed;
* a spectator that keeps reporting position 0 made the host send the whole
  record again every two pings (182 MB against 69 MB for sixteen honest ones
  over 30 rounds); now a rewind is served once per :data:`REWIND_EVERY` per
  spectator and from one shared budget of resent bytes, while an honest
  spectator's lost batch is still sent again at once.
"""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path
from types import SimpleNamespace

import pytest
import zmq
import zmq.asyncio
from mesh_support import DeskMesh
from zmq.utils import z85

from zsy_lan.net.transport import Guest
from zsy_lan.protocol import Identity
from zsy_lan.protocol.source import address_group
from zsy_lan.table.reach import start_mesh
from zsy_lan.table.spectator_desk import SpectatorDesk, _Seen
from zsy_lan.table.watch import watch_table
from zsy_lan.table.watch_frames import (
    BATCH_BYTES,
    PER_ADDRESS,
    REWIND_BURST,
    REWIND_EVERY,
    REWIND_RATE,
    START_EVERY,
    STARTS_PER_ADDRESS,
    Watcher,
    open_watch,
    seal_watch,
    watch_body,
)

LO = "127.0.0.1"
pytestmark = [pytest.mark.timeout(60)]


def _hostile(ctx: zmq.asyncio.Context, endpoint: str, host_curve: bytes, source: str):
    """A modified spectator: its own identity, a raw DEALER connecting from ``source``."""
    me = Identity.generate()
    s = ctx.socket(zmq.DEALER)
    s.linger = 0
    s.routing_id = b"Z" + me.curve_public
    s.curve_serverkey = z85.encode(host_curve)
    s.curve_publickey = z85.encode(me.curve_public)
    s.curve_secretkey = z85.encode(me.curve_secret)
    s.connect(f"tcp://{source}:0;{endpoint[len('tcp://') :]}")
    return me, s


async def _answer(s: zmq.asyncio.Socket) -> tuple[str, dict]:
    frame = await asyncio.wait_for(s.recv(), 10)
    msg = open_watch(frame)
    return msg.kind, msg.body


@pytest.mark.asyncio
@pytest.mark.parametrize("mode", ["open", "ask"])
async def test_sixteen_identities_from_one_address_hold_only_a_few_places(mode):
    host = Identity.generate()
    mesh = await start_mesh(host, LO, 0, open_admission=True)
    said: list[str] = []
    desk = SpectatorDesk(host, mode, mesh, said.append, table_name="t")

    async def serve() -> None:  # what the lobby and the seated peer do with a guest's frame
        async for peer_id, frame in mesh:
            if isinstance(peer_id, (Guest, Watcher)):
                desk.on_frame(peer_id, frame)

    server = asyncio.create_task(serve())
    ctx = zmq.asyncio.Context()
    try:
        answers = []
        for _i in range(16):
            me, s = _hostile(ctx, mesh.endpoint, host.curve_public, "127.0.0.2")
            await s.send(seal_watch(me, "watch", watch_body(me, "alice")))
            answers.append(await _answer(s))
        held = "welcome" if mode == "open" else "asked"
        assert [k for k, _b in answers[:PER_ADDRESS]] == [held] * PER_ADDRESS
        refused = answers[PER_ADDRESS:]
        assert [k for k, _b in refused] == ["refused"] * (16 - PER_ADDRESS)
        assert "network address" in refused[0][1]["reason"]
        assert "stop another zsy watch" in refused[0][1]["reason"]
        assert {w.address for w in desk.seen.values() if w.state != "new"} == {"127.0.0.2"}
        if mode == "ask":  # the host is asked about a few, not sixteen
            assert sum("asks to watch" in line for line in said) == PER_ADDRESS
            return
        # a real `zsy watch` from another address is let in
        shown: list[str] = []
        stop = asyncio.Event()
        real = asyncio.create_task(
            watch_table(mesh.endpoint, host.curve_public, "bob", LO, show=shown.append, stop=stop)
        )
        for _i in range(100):
            if any("Watching table" in line for line in shown) or real.done():
                break
            await asyncio.sleep(0.1)
        nicks = sorted(w.nick for w in desk.watching())
        stop.set()
        with contextlib.suppress(BaseException):
            await asyncio.wait_for(real, 5)
        assert any("Watching table 't'" in line for line in shown), shown
        assert nicks == ["alice", "alice-2", "alice-3", "bob"]
    finally:
        server.cancel()
        with contextlib.suppress(BaseException):
            await server
        ctx.destroy(linger=0)
        for task in list(desk._sends):  # no close(): it would wait for the modified clients' leave
            task.cancel()
        await mesh.close()


def test_an_ipv6_host_counts_as_its_slash_64():
    assert address_group("2001:db8::1") == address_group("2001:db8::ffff:1") == "2001:db8::/64"
    assert address_group("2001:db8:0:1::1") != address_group("2001:db8::1")
    assert address_group("::ffff:192.0.2.7") == "192.0.2.7"
    assert address_group("") == ""


class _Clock:
    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


def _desk_with_record(tmp_path: Path, size: int, spectators: int):
    clock = _Clock()
    host = Identity.generate()
    mesh = DeskMesh()
    record = tmp_path / "transcript.jsonl"
    line = "x" * 999 + "\n"
    record.write_text(line * (size // len(line)))
    peer = SimpleNamespace(
        store=SimpleNamespace(transcript_path=record), roster=SimpleNamespace(seats=[]),
        seat=0, notices=asyncio.Queue(), changed=asyncio.Event(),
    )
    desk = SpectatorDesk(host, "open", mesh, lambda _t: None, clock=clock)  # type: ignore[arg-type]
    desk.attach(peer)
    watchers = []
    for i in range(spectators):
        me = Identity.generate()
        key = me.curve_public
        desk.seen[key] = _Seen(key, me.public_key, f"s{i}", "watching", last=clock.t)
        mesh.admit(Watcher(key), key)
        watchers.append((me, key))
    return desk, mesh, clock, watchers


async def _catch_up(desk: SpectatorDesk, clock: _Clock, rounds: int = 40) -> None:
    for _i in range(rounds):
        clock.t += 0.2
        await desk.pump()


@pytest.mark.asyncio
async def test_a_spectator_reporting_position_zero_gets_a_rewind_once_per_interval(tmp_path):
    desk, mesh, clock, [(eve, ekey), (bob, bkey)] = _desk_with_record(tmp_path, 2 << 20, 2)
    await _catch_up(desk, clock)
    size = desk.seen[ekey].offset
    assert size > 2_000_000 and desk.seen[bkey].offset == size  # both hold the whole record
    sent_before = mesh.bytes[Watcher(ekey)]
    for _i in range(60):  # two minutes of pings "I hold nothing", every two seconds
        desk.on_frame(Watcher(ekey), seal_watch(eve, "ping", {"at": 0}))
        desk.seen[bkey].last = clock.t
        await _catch_up(desk, clock, 10)
    resent = mesh.bytes[Watcher(ekey)] - sent_before
    # before: every second ping rewound to 0 (30 whole records, about 60 MB); now one in
    # REWIND_EVERY seconds, and only from the shared budget
    served = desk.rewind_stats["served"]
    assert 1 <= served <= 120 / REWIND_EVERY + 1
    assert resent <= REWIND_BURST + REWIND_RATE * 120 + 2 * BATCH_BYTES
    assert resent < 3 * size  # not thirty records
    assert desk.rewind_stats["deferred"] >= 25
    # an honest spectator that lost its last batch gets it again at once
    at = size - 100_000
    bob_before = mesh.bytes[Watcher(bkey)]
    desk.seen[bkey].offset = size  # what the host had sent
    clock.t += REWIND_EVERY  # the budget has refilled a little meanwhile
    for _i in range(2):
        desk.on_frame(Watcher(bkey), seal_watch(bob, "ping", {"at": at}))
    assert desk.seen[bkey].offset == at
    await _catch_up(desk, clock, 3)
    assert mesh.bytes[Watcher(bkey)] - bob_before >= 100_000
    assert desk.misbehaviour == []  # a rewind is no misbehaviour: an honest loss looks the same


@pytest.mark.asyncio
async def test_sixteen_rewinding_spectators_share_one_budget(tmp_path):
    desk, mesh, clock, watchers = _desk_with_record(tmp_path, 1 << 20, 16)
    await _catch_up(desk, clock)
    size = desk.seen[watchers[0][1]].offset
    first = sum(mesh.bytes.values())
    for _i in range(2):  # each reports 0 twice: each would get the whole record again
        for me, key in watchers:
            desk.on_frame(Watcher(key), seal_watch(me, "ping", {"at": 0}))
    await _catch_up(desk, clock, 40)
    resent = sum(mesh.bytes.values()) - first
    assert resent <= REWIND_BURST + REWIND_RATE * 10 + 16 * 2 * 1024  # frames' own bytes
    assert resent < 4 * size  # not sixteen records
    assert desk.rewind_stats["served"] <= REWIND_BURST // size + 1


@pytest.mark.asyncio
async def test_places_taken_and_left_again_with_fresh_keys_are_bounded_too():
    """Each new spectator costs the host a whole catch-up: three places left and taken
    again with fresh keys, over and over, would resend the record without end."""
    clock = _Clock()
    mesh = DeskMesh("192.0.2.9")
    desk = SpectatorDesk(Identity.generate(), "open", mesh, lambda _t: None, clock=clock)  # type: ignore[arg-type]

    async def watch_and_leave() -> str:
        me = Identity.generate()
        key = me.curve_public
        mesh.sent.clear()
        desk.on_frame(Guest(key), seal_watch(me, "watch", watch_body(me, "eve")))
        await asyncio.sleep(0)  # the desk's answer is sent in a task
        kinds = [open_watch(f) for _p, f in mesh.sent]
        desk.on_frame(Watcher(key), seal_watch(me, "leave", {}))
        return kinds[0].kind if kinds[0].kind == "welcome" else kinds[0].body["reason"]

    got = [await watch_and_leave() for _i in range(int(STARTS_PER_ADDRESS) + 2)]
    assert got[: int(STARTS_PER_ADDRESS)] == ["welcome"] * int(STARTS_PER_ADDRESS)
    assert all("too often" in why and "wait a minute" in why for why in got[-2:])
    clock.t += START_EVERY  # a minute later: one more
    assert await watch_and_leave() == "welcome"
    assert "too often" in await watch_and_leave()
    for task in list(desk._sends):
        task.cancel()


@pytest.mark.asyncio
async def test_spectators_through_the_relay_are_not_one_address():
    """The host sees no address for a spectator that comes through its relay (the relay
    bounds what one address registers there): friends far away are not three at most."""
    from zsy_lan.net.transport import RELAYED

    mesh = DeskMesh(RELAYED)
    desk = SpectatorDesk(Identity.generate(), "open", mesh, lambda _t: None)  # type: ignore[arg-type]
    for i in range(PER_ADDRESS + 2):
        me = Identity.generate()
        desk.on_frame(Guest(me.curve_public), seal_watch(me, "watch", watch_body(me, f"f{i}")))
    await asyncio.sleep(0)
    assert len(desk.watching()) == PER_ADDRESS + 2
    for task in list(desk._sends):
        task.cancel()
