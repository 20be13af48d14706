"""Mesh over real ZeroMQ sockets on 127.0.0.1 (CURVE, ZAP admission, limits, teardown)."""

from __future__ import annotations

import asyncio
import dataclasses
import time

import pytest
import zmq
import zmq.asyncio
from waiting import until
from zmq.utils import z85

from zsy_lan.net.transport import (
    CurveKeyPair,
    FrameTooLargeError,
    Guest,
    LinkState,
    Mesh,
    MeshClosedError,
    UnknownPeerError,
    routing_id_for,
)

pytestmark = [pytest.mark.asyncio, pytest.mark.timeout(30)]


async def recv(mesh: Mesh, timeout: float = 5.0):
    return await asyncio.wait_for(mesh.recv(), timeout)


async def assert_silent(mesh: Mesh, timeout: float) -> None:
    try:
        item = await asyncio.wait_for(mesh.recv(), timeout)
    except TimeoutError:
        return
    raise AssertionError(f"unexpected frame {item!r}")


async def link(a: Mesh, a_id, b: Mesh, b_id) -> None:
    """Full duplex: a and b admit and connect to each other, handshakes done."""
    a.connect_peer(b_id, b.endpoint, b.public_key)
    b.connect_peer(a_id, a.endpoint, a.public_key)
    assert await a.wait_connected(b_id, 5)
    assert await b.wait_connected(a_id, 5)


@pytest.mark.filterwarnings("ignore")
def test_keypair_roundtrip():
    kp = CurveKeyPair.generate()
    assert len(kp.public) == 32 and len(kp.secret) == 32
    assert CurveKeyPair.from_secret(kp.secret) == kp
    assert CurveKeyPair.from_secret(z85.encode(kp.secret)) == kp
    assert routing_id_for(kp.public)[0] != 0
    assert "secret" not in repr(kp) or repr(kp.secret) not in repr(kp)


async def test_start_rejects_mismatched_public_key():
    a, b = CurveKeyPair.generate(), CurveKeyPair.generate()
    with pytest.raises(ValueError):
        await Mesh.start("127.0.0.1", 0, a.secret, b.public)


async def test_two_peers_exchange_frames(make_mesh):
    events = []
    a = await make_mesh(on_link=events.append)
    b = await make_mesh()
    assert a.endpoint.startswith("tcp://127.0.0.1:") and a.port > 0
    await link(a, 0, b, 1)
    assert await a.send(1, b"hello b")
    assert await recv(b) == (0, b"hello b")
    assert await b.send(0, b"hello a")
    assert await recv(a) == (1, b"hello a")
    # order is kept on one link
    for i in range(50):
        assert await a.send(1, b"%d" % i)
    got = [await recv(b) for _ in range(50)]
    assert got == [(0, b"%d" % i) for i in range(50)]
    assert [e.state for e in events][:2] == [LinkState.CONNECTING, LinkState.CONNECTED]
    assert a.is_connected(1)
    # the async-iterator form
    assert await b.send(0, b"via aiter")
    async for peer, frame in a:
        assert (peer, frame) == (1, b"via aiter")
        break


async def test_bind_failure_is_clean():
    kp = CurveKeyPair.generate()
    with pytest.raises(zmq.ZMQError):  # an address this host does not have
        await Mesh.start("192.0.2.123", 0, kp.secret)


async def test_three_peers_broadcast(make_mesh):
    ms = [await make_mesh() for _ in range(3)]
    for i in range(3):
        for j in range(3):
            if i != j:
                ms[i].connect_peer(j, ms[j].endpoint, ms[j].public_key)
    for i in range(3):
        for j in range(3):
            if i != j:
                assert await ms[i].wait_connected(j, 5)
    for i, m in enumerate(ms):
        assert await m.broadcast(b"from %d" % i) == {j: True for j in range(3) if j != i}
    for j, m in enumerate(ms):
        got = sorted([await recv(m) for _ in range(2)])
        assert got == [(i, b"from %d" % i) for i in range(3) if i != j]


async def test_traffic_is_curve_encrypted(make_mesh):
    """A plain (NULL mechanism) client cannot talk to the ROUTER at all."""
    a = await make_mesh(open_admission=True)
    ctx = zmq.asyncio.Context()
    try:
        d = ctx.socket(zmq.DEALER)
        d.linger = 0
        d.immediate = 1
        d.connect(a.endpoint)
        with pytest.raises(zmq.Again):
            await d.send(b"plaintext", flags=zmq.NOBLOCK)
        await assert_silent(a, 0.5)
    finally:
        ctx.destroy(linger=0)


async def test_unadmitted_key_is_refused(make_mesh):
    events = []
    a = await make_mesh()
    stranger = await make_mesh(on_link=events.append)
    # The stranger knows a's public key, but a never admitted the stranger's key.
    stranger.connect_peer("a", a.endpoint, a.public_key)
    # the refusal is an event (milliseconds); the windows after it show it lasts
    assert await until(lambda: LinkState.AUTH_FAILED in [e.state for e in events])
    connected, sent, _ = await asyncio.gather(  # three watches over the same 0.3 s
        stranger.wait_connected("a", 0.3),
        stranger.send("a", b"let me in", timeout=0.3),
        assert_silent(a, 0.3),
    )
    assert not connected and not sent
    assert stranger.link_state("a") is LinkState.AUTH_FAILED
    # once admitted (roster grows), the same key gets in
    a.admit("s", stranger.public_key)
    assert await stranger.wait_connected("a", 5)
    assert await stranger.send("a", b"now")
    assert await recv(a) == ("s", b"now")


async def test_wrong_server_key_never_connects(make_mesh):
    states: list[LinkState] = []
    a = await make_mesh()
    b = await make_mesh(on_link=lambda ev: states.append(ev.state))
    a.admit("b", b.public_key)
    b.connect_peer("a", a.endpoint, CurveKeyPair.generate().public)  # impostor key
    # the failed handshake is an event (milliseconds); the windows after it show it lasts
    assert await until(lambda: LinkState.HANDSHAKE_FAILED in states)
    connected, sent, _ = await asyncio.gather(  # three watches over the same 0.3 s
        b.wait_connected("a", 0.3), b.send("a", b"x", timeout=0.3), assert_silent(a, 0.3)
    )
    assert not connected and not sent


async def test_revoked_peer_frames_dropped(make_mesh):
    a = await make_mesh()
    b = await make_mesh()
    await link(a, "a", b, "b")
    assert await b.send("a", b"one")
    assert await recv(a) == ("b", b"one")
    a.revoke("b")
    assert await b.send("a", b"two")  # the old connection is still up ...
    assert await until(lambda: a.dropped["unadmitted"] >= 1)  # ... but a drops what comes over it
    await assert_silent(a, 0.2)  # (and nothing reaches the inbox)


async def test_routing_id_must_match_key(make_mesh):
    """An admitted key that claims another routing identity is dropped."""
    a = await make_mesh()
    kp = CurveKeyPair.generate()
    a.admit("x", kp.public)
    ctx = zmq.asyncio.Context()
    try:
        d = ctx.socket(zmq.DEALER)
        d.linger = 0
        d.routing_id = b"Zsomebody-else"
        d.curve_serverkey = z85.encode(a.public_key)
        d.curve_publickey = z85.encode(kp.public)
        d.curve_secretkey = z85.encode(kp.secret)
        d.connect(a.endpoint)
        await asyncio.wait_for(d.send(b"spoof"), 2)
        assert await until(lambda: a.dropped["bad_routing_id"] >= 1)  # arrived and dropped
        await assert_silent(a, 0.2)
        assert a.dropped["bad_routing_id"] == 1
    finally:
        ctx.destroy(linger=0)


async def test_open_lobby_guest_then_roster(make_mesh):
    host = await make_mesh(open_admission=True)
    joiner = await make_mesh()
    joiner.connect_peer("host", host.endpoint, host.public_key)
    assert await joiner.send("host", b"join please")
    peer, frame = await recv(host)
    assert peer == Guest(joiner.public_key) and frame == b"join please"
    # the host answers on the guest's own connection (ROUTER side)
    assert await host.send(peer, b"welcome, seat 1")
    assert await recv(joiner) == ("host", b"welcome, seat 1")
    # seat it: from now on its frames carry the seat
    host.connect_peer(1, joiner.endpoint, joiner.public_key)
    assert await joiner.send("host", b"ready")
    assert await recv(host) == (1, b"ready")
    # a second guest, then the lobby closes: it is no longer heard
    late = await make_mesh()
    late.connect_peer("host", host.endpoint, host.public_key)
    assert await late.send("host", b"me too")
    assert (await recv(host))[0] == Guest(late.public_key)
    host.set_open_admission(False)
    assert await late.send("host", b"still there?")
    assert await until(lambda: host.dropped["unadmitted"] >= 1)  # it arrived and was dropped
    await assert_silent(host, 0.2)
    # a brand-new unknown client cannot even complete the handshake now
    states: list[LinkState] = []
    later = await make_mesh(on_link=lambda ev: states.append(ev.state))
    later.connect_peer("host", host.endpoint, host.public_key)
    assert await until(lambda: LinkState.AUTH_FAILED in states)  # refused in milliseconds
    assert not await later.wait_connected("host", 0.3)


async def test_send_errors(make_mesh):
    a = await make_mesh()
    with pytest.raises(UnknownPeerError):
        await a.send("nobody", b"x")
    with pytest.raises(FrameTooLargeError):
        await a.send("nobody", b"x" * (256 * 1024 + 1))
    # a peer that is not listening: bounded wait, then False
    a.connect_peer("gone", "tcp://127.0.0.1:9", CurveKeyPair.generate().public)
    t0 = time.monotonic()
    assert not await a.send("gone", b"x", timeout=0.3)
    assert time.monotonic() - t0 < 1.5
    # a guest that is not connected: ROUTER_MANDATORY -> False at once
    assert not await a.send(Guest(CurveKeyPair.generate().public), b"x")
    with pytest.raises(ValueError):
        a.connect_peer("bad", "udp://127.0.0.1:1", CurveKeyPair.generate().public)
    with pytest.raises(ValueError, match="cannot connect"):
        a.connect_peer("bad", "tcp://127.0.0.1:notaport", CurveKeyPair.generate().public)
    assert "bad" not in a.peers and a.peer_for_key(a.public_key) is None
    k = CurveKeyPair.generate().public
    a.admit("k", k)
    with pytest.raises(ValueError, match="already admitted"):
        a.connect_peer("other", "tcp://127.0.0.1:9", k)  # one key, one peer
    assert "other" not in a.peers


async def test_oversized_frame_dropped_then_link_recovers(make_mesh, fast_options):
    big_opts = dataclasses.replace(fast_options, max_message_size=1024 * 1024)
    a = await make_mesh()  # default cap 256 KiB
    b = await make_mesh(options=big_opts)  # b's own cap lets it send 300 KiB
    await link(a, "a", b, "b")
    assert await b.send("a", b"x" * (300 * 1024))
    await assert_silent(a, 0.5)  # libzmq dropped it (and the connection)
    # the DEALER reconnects (ROUTER_HANDOVER lets it take its identity back)
    deadline = time.monotonic() + 10
    while True:
        assert await b.send("a", b"small")
        try:
            assert await recv(a, 0.3) == ("b", b"small")
            break
        except TimeoutError:
            assert time.monotonic() < deadline, "link never recovered"


async def test_peer_restart_reconnects(make_mesh):
    a = await make_mesh()
    kb = CurveKeyPair.generate()
    b = await make_mesh(kb)
    await link(a, "a", b, "b")
    port = b.port
    await b.close()
    # b restarts with the same key on the same port
    b2 = await Mesh.start("127.0.0.1", port, kb.secret, options=b.options)
    try:
        b2.admit("a", a.public_key)
        deadline = time.monotonic() + 10
        while True:
            assert await a.send("b", b"after restart", timeout=2)
            try:
                peer, frame = await recv(b2, 0.3)
            except TimeoutError:
                assert time.monotonic() < deadline
                continue
            if frame == b"after restart":
                assert peer == "a"
                break
    finally:
        await b2.close()


async def test_close_never_hangs(make_mesh):
    a = await make_mesh()
    b = await make_mesh()
    await link(a, "a", b, "b")
    a.connect_peer("gone", "tcp://127.0.0.1:9", CurveKeyPair.generate().public)
    waiter = asyncio.create_task(a.recv())
    sender = asyncio.create_task(a.send("gone", b"x", timeout=10))
    await asyncio.sleep(0.05)
    t0 = time.monotonic()
    await a.close()
    await a.close()  # idempotent
    assert time.monotonic() - t0 < 2
    with pytest.raises(MeshClosedError):
        await asyncio.wait_for(waiter, 2)
    with pytest.raises((MeshClosedError, asyncio.CancelledError)):
        await asyncio.wait_for(sender, 2)
    with pytest.raises(MeshClosedError):
        await a.send("b", b"x")
    with pytest.raises(MeshClosedError):
        await a.recv()


async def test_many_start_close_cycles():
    t0 = time.monotonic()
    for _ in range(10):
        kp = CurveKeyPair.generate()
        m = await Mesh.start("127.0.0.1", 0, kp.secret)
        m.connect_peer(1, "tcp://127.0.0.1:9", CurveKeyPair.generate().public)
        await m.close()
    assert time.monotonic() - t0 < 5


async def test_disconnect_peer(make_mesh):
    events = []
    a = await make_mesh(on_link=events.append)
    b = await make_mesh()
    await link(a, "a", b, "b")
    await a.disconnect_peer("b")
    assert events[-1].state is LinkState.CLOSED
    assert a.peers == []
    with pytest.raises(UnknownPeerError):
        await a.send("b", b"x")
    assert await b.send("a", b"x")
    await assert_silent(a, 0.3)  # revoked too


async def test_send_now_takes_a_frame_at_once_or_says_no(make_mesh):
    a = await make_mesh()
    b = await make_mesh()
    await link(a, 0, b, 1)
    assert a.send_now(1, b"now")  # the link is up: libzmq took it without waiting
    assert await recv(b) == (0, b"now")
    for i in range(20):  # in order, like send()
        assert a.send_now(1, b"%d" % i)
    assert [await recv(b) for _ in range(20)] == [(0, b"%d" % i) for i in range(20)]
    assert not a.send_now("nobody", b"x")  # no link: the caller falls back to send()
    assert not a.send_now(1, b"x" * (256 * 1024 + 1))  # too big for the link
    # a link that never came up: IMMEDIATE means nothing is queued, so False
    a.connect_peer("gone", "tcp://127.0.0.1:9", CurveKeyPair.generate().public)
    assert not a.send_now("gone", b"x")
    await a.close()
    assert not a.send_now(1, b"x")  # closed: False, never an exception


async def test_send_now_never_hides_a_reply_on_the_same_socket(make_mesh):
    """send_now bypasses the asyncio socket; a reply arriving on that DEALER meanwhile
    (libzmq's edge-triggered descriptor may be consumed by the send) still arrives."""
    host = await make_mesh(open_admission=True)
    joiner = await make_mesh()
    joiner.connect_peer("host", host.endpoint, host.public_key)
    assert await joiner.send("host", b"hello")
    guest, _ = await recv(host)
    for i in range(20):
        assert await host.send(guest, b"reply %d" % i)  # lands on the joiner's DEALER
        time.sleep(0.02)  # blocking on purpose: the reply is queued before the loop looks
        assert joiner.send_now("host", b"ping %d" % i)  # a send on that same socket
        assert await recv(joiner) == ("host", b"reply %d" % i)
        assert await recv(host) == (guest, b"ping %d" % i)


async def test_handler_gets_frames_in_place_of_the_inbox(make_mesh):
    a = await make_mesh()
    b = await make_mesh()
    await link(a, 0, b, 1)
    assert await a.send(1, b"queued")
    assert await recv(b) == (0, b"queued")  # no handler yet: the inbox
    got: list[tuple[object, bytes]] = []
    b.set_handler(lambda peer, frame: got.append((peer, frame)))
    for i in range(5):
        assert a.send_now(1, b"h%d" % i)
    deadline = time.monotonic() + 5
    while len(got) < 5 and time.monotonic() < deadline:
        await asyncio.sleep(0.01)
    assert got == [(0, b"h%d" % i) for i in range(5)]
    await assert_silent(b, 0.2)  # none of them went to the inbox too

    def broken(peer: object, frame: bytes) -> None:
        raise RuntimeError("handler bug")

    b.set_handler(broken)  # a failing handler is counted, the receiver lives on
    assert a.send_now(1, b"boom")
    deadline = time.monotonic() + 5
    while not b.dropped["handler_error"] and time.monotonic() < deadline:
        await asyncio.sleep(0.01)
    assert b.dropped["handler_error"] == 1
    b.set_handler(None)
    assert await a.send(1, b"back")
    assert await recv(b) == (0, b"back")


async def test_a_full_inbox_pauses_reading_and_loses_nothing(make_mesh, fast_options):
    """With the inbox full the ROUTER is not read (libzmq holds the frames and pushes
    back); each frame arrives once, in order, when the reader makes room."""
    a = await make_mesh()
    b = await make_mesh(options=dataclasses.replace(fast_options, inbox_size=3))
    await link(a, 0, b, 1)
    for i in range(200):  # far more than the inbox holds, and more than one read batch
        assert await a.send(1, b"f%d" % i)
    await asyncio.sleep(0.2)
    assert b._inbox.queue.qsize() == 3  # full, and nothing read past it meanwhile
    got = [await recv(b) for _ in range(200)]
    assert got == [(0, b"f%d" % i) for i in range(200)]
    await assert_silent(b, 0.2)
    assert not b.dropped


async def test_many_frames_at_once_are_read_in_batches(make_mesh):
    """A burst larger than one reader callback's batch is read completely (the reader
    re-schedules itself: libzmq's descriptor does not signal again for queued frames)."""
    a = await make_mesh()
    b = await make_mesh()
    await link(a, 0, b, 1)
    got: list[bytes] = []
    b.set_handler(lambda peer, frame: got.append(frame))
    for i in range(500):
        assert a.send_now(1, b"%d" % i) or await a.send(1, b"%d" % i)
    deadline = time.monotonic() + 5
    while len(got) < 500 and time.monotonic() < deadline:
        await asyncio.sleep(0.01)
    assert got == [b"%d" % i for i in range(500)]


async def test_direct_links_are_timed_without_a_relay_and_soon_after_a_restart(make_mesh):
    """Issue #26: ``links`` read ``?`` at a table without a relay, and right after a resume:
    only the relay's probe pinged direct links. A new link is pinged every
    ``FIRST_EVERY`` until its first pong, then once a second."""
    a = await make_mesh()
    kb = CurveKeyPair.generate()
    b = await make_mesh(kb)
    await link(a, "a", b, "b")
    assert await until(lambda: a.link_report()["b"][1] is not None, 3)
    path, rtt = a.link_report()["b"]
    assert path == "direct" and 0 < rtt < 2
    port = b.port
    await b.close()  # b resumes: the same key on the same port, a new link to a
    b2 = await Mesh.start("127.0.0.1", port, kb.secret, options=b.options)
    try:
        b2.connect_peer("a", a.endpoint, a.public_key)
        assert await b2.wait_connected("a", 5)
        assert await until(lambda: b2.link_report()["a"][1] is not None, 3)
    finally:
        await b2.close()
