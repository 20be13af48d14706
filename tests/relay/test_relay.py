"""The relay on loopback: routing by key, table scopes, limits, refusals, end-to-end seals.

Two meshes whose direct endpoints lead nowhere (a closed port on 127.0.0.1)
can only talk through the relay; two whose endpoints work must use the
direct link. Relays that drop, alter, reflect or replay boxes are built by
overriding :meth:`Relay.forward_box` / :meth:`Relay._send`.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import secrets
import socket
import time

import pytest
import pytest_asyncio
import zmq
from waiting import until
from zmq.utils import z85

from zsy_lan.net.relay import (
    FROM,
    HELLO,
    NO,
    OK,
    TO,
    Relay,
    RelayAddress,
    RelayError,
    RelayLimits,
    b64,
    load_or_create_relay_key,
)
from zsy_lan.net.transport import CurveKeyPair, Guest, Mesh, MeshOptions
from zsy_lan.protocol import Identity
from zsy_lan.protocol.lobby import table_id_for
from zsy_lan.protocol.scope_ticket import make_ticket
from zsy_lan.table.relay_join import split_target

pytestmark = [pytest.mark.timeout(60)]

LO = "127.0.0.1"
FAST = MeshOptions(
    heartbeat_ivl_ms=200,
    heartbeat_timeout_ms=1000,
    heartbeat_ttl_ms=2000,
    reconnect_ivl_ms=50,
    reconnect_ivl_max_ms=300,
    connect_timeout_ms=300,
    send_timeout=1.0,
    direct_grace=0.3,
)


def host_ticket(name: str = "t") -> tuple[str, bytes]:
    """A real table id and its host's ticket: a relay opens a scope for its host only."""
    host, nonce = Identity.generate(), secrets.token_bytes(8)
    return table_id_for(host.public_key, name, nonce), make_ticket(host, name, nonce)


#: a table id and its ticket for the tests that speak the relay's wire by hand
TBL, TICKET = host_ticket()
SCOPE = TBL.encode()


def dead_endpoint() -> str:
    """A tcp:// endpoint on loopback where nothing listens (connections are refused)."""
    with socket.socket() as s:
        s.bind((LO, 0))
        port = s.getsockname()[1]
    return f"tcp://{LO}:{port}"


@pytest.fixture
def make_relay():
    relays: list[Relay] = []

    def factory(cls: type[Relay] = Relay, keys: CurveKeyPair | None = None, port: int = 0, **kw):
        r = cls(keys or CurveKeyPair.generate(), **kw)
        r.bind(LO, port)
        r.start_thread()
        relays.append(r)
        return r

    yield factory
    for r in relays:
        r.stop()


@pytest_asyncio.fixture
async def make_mesh():
    meshes: list[Mesh] = []

    async def factory(open_admission: bool = False) -> Mesh:
        m = await Mesh.start(
            LO, 0, CurveKeyPair.generate().secret, options=FAST, open_admission=open_admission
        )
        meshes.append(m)
        return m

    yield factory
    for m in meshes:
        await m.close()


async def pair_through(relay: Relay, make_mesh, scope: str = "t1", direct: bool = False):
    """Two meshes at ``relay``, linked as seats 0 and 1 (direct endpoints dead unless asked)."""
    a, b = await make_mesh(), await make_mesh()
    addr = relay.address(LO)
    scope, ticket = host_ticket(scope)
    assert await a.attach_relay(addr, scope, ticket=ticket) == ""
    assert await b.attach_relay(addr, scope, mode="join") == ""
    a.connect_peer(1, b.endpoint if direct else dead_endpoint(), b.public_key)
    b.connect_peer(0, a.endpoint if direct else dead_endpoint(), a.public_key)
    assert await a.wait_connected(1, 5) and await b.wait_connected(0, 5)
    return a, b


async def recv(mesh: Mesh, timeout: float = 5.0):
    return await asyncio.wait_for(mesh.recv(), timeout)


# ------------------------------------------------------------------ routing
@pytest.mark.asyncio
async def test_unreachable_peers_talk_through_the_relay_in_order(make_relay, make_mesh):
    relay = make_relay()
    a, b = await pair_through(relay, make_mesh)
    frames = [b"frame %d" % i for i in range(200)]
    for f in frames:
        assert a.send_now(1, f) or await a.send(1, f)
    got = [await recv(b) for _ in frames]
    assert got == [(0, f) for f in frames]  # labelled by the roster, whole, in order
    assert await b.send(0, b"back")
    assert await recv(a) == (1, b"back")
    assert relay.stats.forwarded >= 201
    assert await until(lambda: a.link_report()[1][1] is not None)
    path, rtt = a.link_report()[1]
    assert path == "relay" and 0 < rtt < 5


@pytest.mark.asyncio
async def test_a_direct_link_is_preferred(make_relay, make_mesh):
    relay = make_relay()
    a, b = await pair_through(relay, make_mesh, direct=True)
    assert await until(lambda: a.link_report()[1][0] == "direct")
    before = relay.stats.forwarded
    for i in range(300):
        assert await a.send(1, b"d%d" % i)
    assert [await recv(b) for _ in range(300)][-1] == (0, b"d299")
    # only pings (one a second per link) went through the relay, none of the 300 frames
    assert relay.stats.forwarded - before < 20
    assert await until(lambda: a.link_report()[1][1] is not None)  # the direct link's RTT


@pytest.mark.asyncio
async def test_the_relay_sees_only_sealed_boxes(make_relay, make_mesh):
    seen: list[bytes] = []

    class Recording(Relay):
        def forward_box(self, box: bytes) -> bytes | None:
            seen.append(box)
            return box

    relay = make_relay(Recording)
    a, b = await pair_through(relay, make_mesh)
    secret = b"the open deal's seed: 0123456789abcdef"
    assert await a.send(1, secret)
    assert await recv(b) == (0, secret)
    assert seen and not any(secret in box or secret[:16] in box for box in seen)


@pytest.mark.asyncio
async def test_a_guest_is_answered_through_the_relay(make_relay, make_mesh):
    """The lobby: a joiner that cannot reach the host's address knocks through the relay."""
    relay = make_relay()
    host, joiner = await make_mesh(open_admission=True), await make_mesh()
    addr = relay.address(LO)
    assert await host.attach_relay(addr, TBL, ticket=TICKET) == ""
    assert await joiner.attach_relay(addr, TBL, mode="join") == ""
    joiner.connect_peer(0, dead_endpoint(), host.public_key)
    assert await joiner.wait_connected(0, 5)
    assert await joiner.send(0, b"join")
    peer, frame = await recv(host)
    assert peer == Guest(joiner.public_key) and frame == b"join"
    assert await host.send(peer, b"welcome")
    assert await recv(joiner) == (0, b"welcome")


# ----------------------------------------------------------- scopes, refusals
@pytest.mark.asyncio
async def test_refusals_full_unknown_and_scopes(make_relay, make_mesh):
    relay = make_relay(limits=RelayLimits(max_tables=1))
    addr = relay.address(LO)
    a, b, c = await make_mesh(), await make_mesh(), await make_mesh()
    (one, t1), (two, t2) = host_ticket("one"), host_ticket("two")
    assert await a.attach_relay(addr, one, ticket=t1) == ""
    assert await b.attach_relay(addr, two, ticket=t2) == "full"  # --max-tables reached
    assert await c.attach_relay(addr, host_ticket("three")[0], mode="join") == "unknown"
    assert list(relay.tables) == [one.encode()]
    # a key outside the sender's table is not served, even if registered elsewhere
    a.connect_peer(1, dead_endpoint(), c.public_key)
    await asyncio.sleep(FAST.direct_grace + 0.1)
    assert not await a.send(1, b"x") or relay.stats.dropped["nopeer"] >= 1
    assert await until(lambda: relay.stats.dropped["nopeer"] >= 1)
    assert relay.stats.forwarded == 0


def _raw_dealer(ctx: zmq.Context, relay: Relay, keys: CurveKeyPair, rid: bytes) -> zmq.Socket:
    s = ctx.socket(zmq.DEALER)
    s.linger = 0
    s.rcvtimeo = 3000
    s.routing_id = rid
    s.curve_serverkey = z85.encode(relay.keypair.public)
    s.curve_publickey = z85.encode(keys.public)
    s.curve_secretkey = z85.encode(keys.secret)
    s.connect(relay.endpoint)
    return s


@pytest.mark.slow
def test_unregistered_spoofed_and_oversized_senders(make_relay):
    relay = make_relay(limits=RelayLimits(max_frame=4096))
    ctx = zmq.Context()
    try:
        me, other = CurveKeyPair.generate(), CurveKeyPair.generate()
        s = _raw_dealer(ctx, relay, me, b"Z" + me.public)
        s.send_multipart([TO, other.public, b"box"])  # before registering
        assert s.recv_multipart()[:2] == [NO, b"unregistered"]
        s.send_multipart([HELLO, SCOPE, b"open", TICKET])
        assert s.recv_multipart() == [OK, SCOPE]
        # a connection claiming another key's routing id is ignored
        spoof = _raw_dealer(ctx, relay, other, b"Z" + me.public)
        spoof.send_multipart([HELLO, SCOPE, b"open", TICKET])
        deadline = time.monotonic() + 3  # the relay's thread drops it (and answers nothing)
        while relay.stats.dropped["bad_routing_id"] < 1 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert relay.stats.dropped["bad_routing_id"] >= 1
        spoof.rcvtimeo = 300  # an answer would have been sent before the drop was counted
        with pytest.raises(zmq.Again):
            spoof.recv_multipart()
        # an oversized frame costs its sender the connection, never the relay, and is
        # never forwarded; the same key connecting again is served
        b = _raw_dealer(ctx, relay, other, b"Z" + other.public)
        b.send_multipart([HELLO, SCOPE, b"open", TICKET])
        assert b.recv_multipart() == [OK, SCOPE]
        s.send_multipart([TO, other.public, b"x" * 10_000])
        b.rcvtimeo = 500
        with pytest.raises(zmq.Again):
            b.recv_multipart()
        s.close(linger=0)
        s = _raw_dealer(ctx, relay, me, b"Z" + me.public)
        s.send_multipart([HELLO, SCOPE, b"open", TICKET])
        assert s.recv_multipart() == [OK, SCOPE]
        s.send_multipart([TO, other.public, b"small"])
        assert b.recv_multipart() == [FROM, me.public, b"small"]
        deadline = time.monotonic() + 2  # the relay's thread counts it just after sending
        while relay.stats.forwarded < 1 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert relay.stats.forwarded == 1
    finally:
        ctx.destroy(linger=0)


def test_rate_limit_per_connection(make_relay):
    relay = make_relay(limits=RelayLimits(frames_per_second=10, frame_burst=10))
    ctx = zmq.Context()
    try:
        ka, kb = CurveKeyPair.generate(), CurveKeyPair.generate()
        a = _raw_dealer(ctx, relay, ka, b"Z" + ka.public)
        b = _raw_dealer(ctx, relay, kb, b"Z" + kb.public)
        for s in (a, b):
            s.send_multipart([HELLO, SCOPE, b"open", TICKET])
            assert s.recv_multipart()[0] == OK
        for i in range(100):
            a.send_multipart([TO, kb.public, b"%d" % i])
        got = []
        b.rcvtimeo = 500
        with pytest.raises(zmq.Again):
            while True:
                got.append(b.recv_multipart())
        assert all(m[0] == FROM and m[1] == ka.public for m in got)
        assert 5 <= len(got) <= 20  # the burst and a little refill, not 100
        assert relay.stats.dropped["rate"] >= 80
        assert a.recv_multipart()[:2] == [NO, b"rate"]  # told once, not once per frame
    finally:
        ctx.destroy(linger=0)


# -------------------------------------------------------- a relay that lies
class Altering(Relay):
    def forward_box(self, box: bytes) -> bytes | None:
        return box[:-1] + bytes([box[-1] ^ 1])


@pytest.mark.asyncio
async def test_an_altered_box_is_the_relays_fault(make_relay, make_mesh):
    relay = make_relay(Altering)
    a, b = await pair_through_faulty(relay, make_mesh)
    blamed: list[tuple[str, object]] = []
    b.on_relay_fault = lambda what, peer: blamed.append((what, peer))
    b.set_handler(lambda p, f: pytest.fail(f"delivered {f!r}"))
    assert await a.send(1, b"a frame")
    assert await until(lambda: bool(blamed))
    assert ("altered", 0) in blamed  # seat 0 is only who the relay claimed sent it


class Reflecting(Relay):
    """Sends every box back to its own sender, as if the destination had sent it."""

    def _forward(self, rid: bytes, key: bytes, dest: bytes, box: bytes) -> None:
        self._send([rid, FROM, dest, box])


class Replaying(Relay):
    """Hands every box on as the first box it forwarded from that sender to that receiver."""

    def _forward(self, rid: bytes, key: bytes, dest: bytes, box: bytes) -> None:
        firsts = self.__dict__.setdefault("_firsts", {})
        super()._forward(rid, key, dest, firsts.setdefault((key, dest), box))


async def pair_through_faulty(relay: Relay, make_mesh):
    """Like :func:`pair_through`, without waiting for pongs (a lying relay spoils them)."""
    a, b = await make_mesh(), await make_mesh()
    addr = relay.address(LO)
    assert await a.attach_relay(addr, TBL, ticket=TICKET) == ""
    assert await b.attach_relay(addr, TBL) == ""
    a.connect_peer(1, dead_endpoint(), b.public_key)
    b.connect_peer(0, dead_endpoint(), a.public_key)
    await asyncio.sleep(FAST.direct_grace + 0.1)
    return a, b


@pytest.mark.asyncio
async def test_a_reflected_box_is_misaddressed(make_relay, make_mesh):
    relay = make_relay(Reflecting)
    a, _b = await pair_through_faulty(relay, make_mesh)
    a.set_handler(lambda p, f: pytest.fail(f"delivered {f!r}"))
    assert await a.send(1, b"mine")
    assert await until(lambda: a.relay_faults["misaddressed"] >= 1)


@pytest.mark.asyncio
async def test_a_replayed_box_is_dropped(make_relay, make_mesh):
    relay = make_relay(Replaying)
    a, b = await pair_through_faulty(relay, make_mesh)
    got: list[bytes] = []
    b.set_handler(lambda p, f: got.append(f))
    for i in range(3):
        assert await a.send(1, b"f%d" % i)
    assert await until(lambda: b.relay_faults["replayed"] >= 1)
    assert got.count(got[0]) == 1 if got else True  # never twice


# ---------------------------------------------------------------- restarts
@pytest.mark.slow
@pytest.mark.asyncio
async def test_a_restarted_relay_serves_again_with_the_same_key(make_relay, make_mesh, tmp_path):
    keys = load_or_create_relay_key(tmp_path)
    assert load_or_create_relay_key(tmp_path) == keys  # the URL stays the same
    first = make_relay(keys=keys)
    port = first.port
    a, b = await pair_through(first, make_mesh)
    first.stop()
    make_relay(keys=keys, port=port)  # nobody registered here yet
    ok = False
    deadline = time.monotonic() + 10
    while not ok and time.monotonic() < deadline:  # the peers register again by themselves
        await a.send(1, b"again")
        with contextlib.suppress(TimeoutError):
            ok = await recv(b, 0.3) == (0, b"again")
    assert ok


# ------------------------------------------------------------------- URLs
def test_relay_urls():
    key = bytes(range(32))
    addr = RelayAddress("192.0.2.7", 7641, key)
    assert addr.url == f"zsy-relay://192.0.2.7:7641#{b64(key)}"
    assert RelayAddress.parse(addr.url) == addr
    assert RelayAddress.parse(f"192.0.2.7:7641#{b64(key)}") == addr
    v6 = RelayAddress("::1", 9, key)
    assert RelayAddress.parse(v6.url) == v6 and v6.endpoint == "tcp://[::1]:9"
    for bad in (
        "zsy-relay://h:1",
        "zsy-relay://h:0#" + b64(key),
        "zsy-relay://h:1#short",
        "zsy-relay://:5#" + b64(key),
    ):
        with pytest.raises(RelayError):
            RelayAddress.parse(bad)


def test_join_lines_with_a_relay():
    key = bytes(32)
    relay = RelayAddress("10.0.0.9", 7641, key)
    base = "tcp://10.0.0.1:5000#" + b64(bytes(range(32)))
    line = f"{base},relay={relay.url},table=3cef06968486"
    assert split_target(line) == (base, relay, "3cef06968486")
    assert split_target(base) == (base, None, None)
    for bad in (
        f"{base},relay={relay.url}",
        f"{base},table=abc",
        f"{base},x=1",
        f"{base},relay={relay.url},table=a;b",
    ):
        with pytest.raises(ValueError):
            split_target(bad)


@pytest.mark.asyncio
async def test_links_say_which_path_and_the_round_trip(make_relay, make_mesh):
    from types import SimpleNamespace

    from zsy_lan.table.relay_join import session_links

    relay = make_relay()
    a, b = await pair_through(relay, make_mesh)
    assert await until(lambda: a.link_report()[1][1] is not None)
    seats = [SimpleNamespace(nick="ana"), SimpleNamespace(nick="bo\x1b[2J")]
    lines = session_links(SimpleNamespace(mesh=a, info=SimpleNamespace(seats=seats)))
    assert re.fullmatch(r"seat 1 bo: through the relay, round trip \d+\.\d ms", lines[0])
    assert lines[-1] == f"the relay: zsy relay at {relay.address(LO).endpoint}"
    assert session_links(SimpleNamespace()) == ["This table has no network links (a local match)."]


class MakingUpGuests(Relay):
    """With every box it forwards, sends 300 boxes that open, from keys it made up."""

    def _forward(self, rid: bytes, key: bytes, dest: bytes, box: bytes) -> None:
        from nacl.public import Box, PrivateKey, PublicKey

        super()._forward(rid, key, dest, box)
        for _ in range(300):
            fake = PrivateKey.generate()
            plain = bytes([1]) + dest[:8] + bytes(8) + (1).to_bytes(8, "big") + b"hi"
            sealed = bytes(Box(fake, PublicKey(dest)).encrypt(plain))
            self._send([b"Z" + dest, FROM, bytes(fake.public_key), sealed])


@pytest.mark.asyncio
async def test_keys_a_relay_makes_up_stay_bounded(make_relay, make_mesh):
    relay = make_relay(MakingUpGuests)
    host, joiner = await make_mesh(open_admission=True), await make_mesh()
    addr = relay.address(LO)
    assert await host.attach_relay(addr, TBL, ticket=TICKET) == ""
    assert await joiner.attach_relay(addr, TBL, mode="join") == ""
    joiner.connect_peer(0, dead_endpoint(), host.public_key)
    await asyncio.sleep(FAST.direct_grace + 0.1)
    assert await joiner.send(0, b"join")
    assert await until(lambda: host.relay.received_frames >= 300)
    assert len(host._relay.guests) <= 64
    sealer = host.relay._sealer
    assert len(sealer._boxes) <= 256 and len(sealer._heard) <= 256


@pytest.mark.asyncio
async def test_frames_move_to_the_direct_link_when_it_comes_up(make_relay, make_mesh):
    """At first only the relay works; once a TCP path to B opens, A's frames take it."""
    relay = make_relay()
    a, b = await make_mesh(), await make_mesh()
    addr = relay.address(LO)
    assert await a.attach_relay(addr, TBL, ticket=TICKET) == ""
    assert await b.attach_relay(addr, TBL) == ""
    gate = dead_endpoint()  # nothing listens here yet: A's direct link is refused
    a.connect_peer(1, gate, b.public_key)
    b.connect_peer(0, dead_endpoint(), a.public_key)
    assert await a.wait_connected(1, 5)
    assert await a.send(1, b"via relay")
    assert await recv(b) == (0, b"via relay")
    assert a.link_report()[1][0] == "relay"
    b_port = int(b.endpoint.rsplit(":", 1)[1])

    async def pipe(r: asyncio.StreamReader, w: asyncio.StreamWriter) -> None:
        with contextlib.suppress(Exception):
            while data := await r.read(65536):
                w.write(data)
                await w.drain()
        w.close()

    async def forward(r: asyncio.StreamReader, w: asyncio.StreamWriter) -> None:
        r2, w2 = await asyncio.open_connection(LO, b_port)
        await asyncio.gather(pipe(r, w2), pipe(r2, w))

    port = int(gate.rsplit(":", 1)[1])
    server = await asyncio.start_server(forward, LO, port)  # the direct path opens
    try:
        assert await until(lambda: a.link_report()[1][0] == "direct", 10)
        before = relay.stats.forwarded
        for i in range(100):
            assert await a.send(1, b"d%d" % i)
        assert [await recv(b) for _ in range(100)][-1] == (0, b"d99")
        assert relay.stats.forwarded - before < 10  # pings only
    finally:
        server.close()
