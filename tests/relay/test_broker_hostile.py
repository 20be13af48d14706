"""test_relay_hostile.py and the relay's memory test, for the broker (issue #29).

The broker is ``zsy relay``'s own (amqtt behind its guard, in this process); what a
hostile broker does is done by the proxy of hostile_broker.py in front of it, or by
another client with publish rights:

* keys made up by whoever can publish on a seat's topic stay bounded in the seat's memory
  (twin of test_relay.test_keys_a_relay_makes_up_stay_bounded);
* a broker cannot answer a sealed ping to look fast: a box reflected to its sender is
  misaddressed, and the round trip shown is the real one (twin of
  test_relay_hostile.test_a_relay_cannot_answer_pings_to_look_fast);
* a peer that starts again is heard, and a box of its previous run replayed afterwards is
  still refused (twin of test_a_peer_restarted_with_its_clock_gone_back_is_heard);
* a whole stream through a proxy that drops, alters, replays, reorders, misattributes and
  forges: what arrives is only what the sender sent, once each, and every spoiled box is
  counted as the relay's fault.

The relay's flood-of-registrations tests have their twin in the guard
(test_broker_server.test_one_address_cannot_take_every_connection): a broker has no table
scopes to take, only connections.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

import aiomqtt
import pytest
from hostile_broker import (
    SENDER,
    UP,
    Alter,
    Drop,
    Forge,
    HostileProxy,
    Misattribute,
    Reorder,
    Replay,
    Rule,
)
from mqtt_clients import Snoop
from nacl.public import Box, PrivateKey, PublicKey, SealedBox
from relay_support import FAST, LO, dead_endpoint
from test_mqtt_link import TABLE, pair_via, until

from zsy_lan.net.broker import inbox_topic, parse_relay_url
from zsy_lan.net.broker_server import BrokerLimits, EmbeddedBroker
from zsy_lan.net.transport import CurveKeyPair, Mesh
from zsy_lan.table.relay_join import refusal_text

pytestmark = [pytest.mark.timeout(60), pytest.mark.asyncio]


def url(port: int) -> str:
    return f"mqtt://{LO}:{port}"


async def test_keys_made_up_on_a_seats_topic_stay_bounded(zsy_broker, make_mesh):
    host = await make_mesh(open_admission=True)
    assert await host.attach_relay(parse_relay_url(url(zsy_broker.port)), TABLE) == ""
    topic = inbox_topic(TABLE, host.public_key)
    async with aiomqtt.Client(LO, zsy_broker.port) as attacker:
        for _ in range(300):
            fake = PrivateKey.generate()
            plain = bytes([1]) + host.public_key[:8] + bytes(8) + (1).to_bytes(8, "big") + b"hi"
            sealed = bytes(Box(fake, PublicKey(host.public_key)).encrypt(plain))
            claim = bytes(SealedBox(PublicKey(host.public_key)).encrypt(bytes(fake.public_key)))
            await attacker.publish(topic, claim + sealed)
        assert await until(lambda: host.relay.received_frames >= 300, timeout=20)
    assert len(host._relay.guests) <= 64
    sealer = host.relay._sealer
    assert len(sealer._boxes) <= 256 and len(sealer._heard) <= 256


@dataclass
class Reflect(Rule):
    """Passes each box up to the broker, and at once hands a copy back to its sender as if
    the destination had answered (all a broker can do: it cannot seal a pong). This broker
    knows both keys (the strongest case: the wire no longer shows them)."""

    direction: str | None = UP
    proxy: HostileProxy | None = None
    inboxes: dict[bytes, str] = field(default_factory=dict)  # key -> its inbox topic

    def act(self, pub, raw, send):  # type: ignore[no-untyped-def]
        send(raw, 0)
        dest = next((k for k, t in self.inboxes.items() if t == pub.topic), None)
        sender = next((k for k in self.inboxes if k != dest), None)  # two seats: the other
        if dest is None or sender is None or self.proxy is None:
            return
        claim = bytes(SealedBox(PublicKey(sender)).encrypt(dest))  # "from dest", to sender
        self.proxy.inject(self.inboxes[sender], claim + pub.payload[SENDER:])


async def test_a_broker_cannot_answer_pings_to_look_fast(zsy_broker, make_mesh):
    reflect = Reflect()
    async with HostileProxy((LO, zsy_broker.port), rules=[reflect]) as proxy:
        reflect.proxy = proxy
        a, b = await pair_via(url(proxy.port), make_mesh)
        reflect.inboxes.update({k: inbox_topic(TABLE, k) for k in (a.public_key, b.public_key)})
        assert await until(lambda: a.link_report()[1][1] is not None)  # the real pong came
        assert await until(lambda: a.relay_faults["misaddressed"] >= 1)
        assert proxy.done["inject"] >= 1
        rtt = a.link_report()[1][1]
        assert rtt is not None and rtt > 0


@pytest.mark.slow
async def test_a_peer_started_again_is_heard_and_its_old_boxes_stay_refused(zsy_broker, make_mesh):


    from zsy_lan.net.broker import parse_relay_url

    addr = parse_relay_url(url(zsy_broker.port))
    secret = CurveKeyPair.generate().secret
    b = await make_mesh()
    got: list[bytes] = []
    b.set_handler(lambda p, f: got.append(f))
    assert await b.attach_relay(addr, TABLE) == ""

    async def start_a() -> Mesh:
        a = await Mesh.start(LO, 0, secret, options=FAST)
        assert await a.attach_relay(addr, TABLE) == ""
        a.connect_peer(1, dead_endpoint(), b.public_key)
        return a

    async with Snoop(LO, zsy_broker.port) as snoop:
        a = await start_a()
        b.connect_peer(0, dead_endpoint(), a.public_key)
        await asyncio.sleep(FAST.direct_grace + 0.1)
        try:
            assert await until(lambda: a.relay.status.registered)
            assert await a.send(1, b"before the restart")
            assert await until(lambda: b"before the restart" in got)
        finally:
            await a.close()
        to_b = inbox_topic(TABLE, b.public_key)
        old = [(t, p) for t, p in snoop.seen if t == to_b]
        assert old
        a = await start_a()  # the same player, started again
        try:
            assert await until(lambda: a.relay.status.registered)
            assert await a.send(1, b"after the restart")
            assert await until(lambda: b"after the restart" in got), b.relay_faults
            assert b.relay_faults["replayed"] == 0
            for t, p in old:  # the broker (or anyone on it) replays the previous run
                await snoop.inject(t, p)
            assert await until(lambda: b.relay_faults["replayed"] >= len(old))
            assert got.count(b"before the restart") == 1
        finally:
            await a.close()


@pytest.mark.slow
async def test_a_stream_through_a_hostile_proxy_arrives_only_as_sent(zsy_broker, make_mesh):
    rules = [
        Drop(rate=0.1),
        Alter(rate=0.1),
        Replay(rate=0.1, after=0.05),
        Reorder(rate=0.1, hold=0.1),
        Misattribute(rate=0.1),
        Forge(rate=0.1),
    ]
    async with HostileProxy((LO, zsy_broker.port), rules=rules) as proxy:
        a, b = await pair_via(url(proxy.port), make_mesh)
        got: list[bytes] = []
        b.set_handler(lambda p, f: got.append(f))
        await asyncio.sleep(FAST.direct_grace + 0.1)
        sent = [b"frame %d" % i for i in range(200)]
        for f in sent:
            assert await a.send(1, f)
            await asyncio.sleep(0.002)
        await until(lambda: len(got) >= 100, timeout=5)
        await asyncio.sleep(0.5)  # the last delayed and reordered ones
    assert len(got) == len(set(got))  # never twice
    assert set(got) <= set(sent)  # never anything the sender did not send
    assert 100 <= len(got) < len(sent)  # the losses are the protocol's to ask for again
    faults = b.relay_faults
    assert faults["altered"] >= 1 and faults["replayed"] >= 1, faults
    for kind in ("drop", "alter", "replay", "reorder", "misattribute", "forge"):
        assert proxy.done[kind] >= 1, proxy.done


async def test_a_full_broker_is_one_sentence_for_the_player(make_mesh):
    """Twin of test_relay_hostile.test_the_refusal_is_one_sentence_for_the_player: a seat
    turned away by zsy relay's guard is told the broker is full, not that it is unreachable."""
    b = EmbeddedBroker(LO, 0, limits=BrokerLimits(max_connections=1))
    await b.start()
    try:
        async with aiomqtt.Client(LO, b.port):  # someone holds the only place
            mesh = await make_mesh()
            addr = parse_relay_url(url(b.port))
            assert await mesh.attach_relay(addr, TABLE, timeout=5) == "busy"
            text = refusal_text("busy", addr)
            assert "takes no more connections now" in text and "another broker" in text
    finally:
        await b.stop()
