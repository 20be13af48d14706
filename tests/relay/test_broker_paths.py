"""Which path a frame takes when the relay is an MQTT broker (issue #29; the twins of the
home-made relay's routing tests).

``zsy relay``'s own broker (amqtt, in this process) on loopback. Meshes whose direct
endpoints lead nowhere talk through it; meshes whose endpoints work keep their direct
link; a direct link that opens later takes the frames back from the broker; a lobby guest
that cannot reach the host is answered through it; ``links`` says which path and how fast.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
from types import SimpleNamespace

import pytest
from relay_support import FAST, LO, dead_endpoint
from test_mqtt_link import TABLE, recv, until

from zsy_lan.net.broker import parse_relay_url
from zsy_lan.net.transport import Guest, Mesh
from zsy_lan.table.relay_join import session_links

pytestmark = [pytest.mark.timeout(60), pytest.mark.asyncio]


async def pair(port: int, make_mesh, direct: bool) -> tuple[Mesh, Mesh]:
    """Seats 0 and 1 at the broker on ``port``; their direct endpoints work if ``direct``."""
    a, b = await make_mesh(), await make_mesh()
    addr = parse_relay_url(f"mqtt://{LO}:{port}")
    assert await a.attach_relay(addr, TABLE) == ""
    assert await b.attach_relay(addr, TABLE) == ""
    a.connect_peer(1, b.endpoint if direct else dead_endpoint(), b.public_key)
    b.connect_peer(0, a.endpoint if direct else dead_endpoint(), a.public_key)
    assert await a.wait_connected(1, 15) and await b.wait_connected(0, 15)
    return a, b


async def test_a_direct_link_is_preferred(zsy_broker, make_mesh):
    a, b = await pair(zsy_broker.port, make_mesh, direct=True)
    assert await until(lambda: a.link_report()[1][0] == "direct")
    before = a.relay.sent_frames
    for i in range(300):
        assert await a.send(1, b"d%d" % i)
    assert [await recv(b) for _ in range(300)][-1] == (0, b"d299")
    # none of the 300 frames went through the broker (pings only, one a second at most)
    assert a.relay.sent_frames - before < 20
    assert await until(lambda: a.link_report()[1][1] is not None)  # the direct link's RTT


async def test_frames_move_to_the_direct_link_when_it_comes_up(zsy_broker, make_mesh):
    """At first only the broker carries A's frames; once a TCP path to B opens, they take it."""
    a, b = await make_mesh(), await make_mesh()
    addr = parse_relay_url(f"mqtt://{LO}:{zsy_broker.port}")
    assert await a.attach_relay(addr, TABLE) == ""
    assert await b.attach_relay(addr, TABLE) == ""
    gate = dead_endpoint()  # nothing listens here yet: A's direct link is refused
    a.connect_peer(1, gate, b.public_key)
    b.connect_peer(0, dead_endpoint(), a.public_key)
    assert await a.wait_connected(1, 15)
    assert await a.send(1, b"via the broker")
    assert await recv(b) == (0, b"via the broker")
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

    server = await asyncio.start_server(forward, LO, int(gate.rsplit(":", 1)[1]))
    try:  # the direct path opens
        assert await until(lambda: a.link_report()[1][0] == "direct")
        before = a.relay.sent_frames
        for i in range(100):
            assert await a.send(1, b"d%d" % i)
        assert [await recv(b) for _ in range(100)][-1] == (0, b"d99")
        assert a.relay.sent_frames - before < 10  # pings only
    finally:
        server.close()


async def test_a_guest_is_answered_through_the_broker(zsy_broker, make_mesh):
    """The lobby: a joiner that cannot reach the host's address knocks through the broker."""
    host, joiner = await make_mesh(open_admission=True), await make_mesh()
    addr = parse_relay_url(f"mqtt://{LO}:{zsy_broker.port}")
    assert await host.attach_relay(addr, TABLE) == ""
    assert await joiner.attach_relay(addr, TABLE) == ""
    joiner.connect_peer(0, dead_endpoint(), host.public_key)
    await asyncio.sleep(FAST.direct_grace + 0.1)
    assert await joiner.send(0, b"join")
    peer, frame = await recv(host)
    assert peer == Guest(joiner.public_key) and frame == b"join"
    assert host.guest_address(joiner.public_key) == "relay"  # no address of its own here
    assert await host.send(peer, b"welcome")
    assert await recv(joiner) == (0, b"welcome")


async def test_links_say_which_path_and_the_round_trip(zsy_broker, make_mesh):
    a, _b = await pair(zsy_broker.port, make_mesh, direct=False)
    assert await until(lambda: a.link_report()[1][1] is not None)
    seats = [SimpleNamespace(nick="ana"), SimpleNamespace(nick="bo\x1b[2J")]
    lines = session_links(SimpleNamespace(mesh=a, info=SimpleNamespace(seats=seats)))
    # the nick as the network gave it is never printed raw (the escape is gone)
    assert re.fullmatch(r"seat 1 bo\S*: through the relay, round trip \d+\.\d ms", lines[0])
    assert "\x1b" not in "\n".join(lines)
    assert lines[-1] == f"the relay: the MQTT broker at mqtt://{LO}:{zsy_broker.port}"
    assert session_links(SimpleNamespace()) == ["This table has no network links (a local match)."]
