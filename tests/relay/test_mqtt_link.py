"""Frames through an MQTT broker (issue #29): a real amqtt broker started by the test.

Two meshes whose direct links lead nowhere (dead loopback ports) talk only
through the broker: in order, sealed (the broker sees no plaintext), timed by
``links``; a broker that refuses credentials, one without TLS where TLS is
asked, one with a certificate of a private authority (``--relay-ca``), one not
there at all: each a sentence that says what was wrong and what to do.
"""

from __future__ import annotations

import asyncio
import contextlib

import aiomqtt
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from nacl.public import PublicKey, SealedBox
from relay_support import FAST, LO, dead_endpoint
from waiting import until as until_within

from zsy_lan.net.broker import BrokerAddress, inbox_topic, parse_relay_url
from zsy_lan.net.mqtt_link import SENDER_LEN
from zsy_lan.net.seal import HEADER
from zsy_lan.net.transport import Mesh
from zsy_lan.table.relay_join import refusal_text

pytestmark = [pytest.mark.timeout(60)]

TABLE = "3cef06968486"


async def pair_via(url: str, make_mesh, **kw) -> tuple[Mesh, Mesh]:
    """Two meshes at the broker ``url``, seats 0 and 1, whose direct links go nowhere."""
    a, b = await make_mesh(), await make_mesh()
    addr = parse_relay_url(url)
    if kw:
        addr = BrokerAddress(**{**addr.__dict__, **kw})
    assert await a.attach_relay(addr, TABLE) == ""
    assert await b.attach_relay(addr, TABLE) == ""
    a.connect_peer(1, dead_endpoint(), b.public_key)
    b.connect_peer(0, dead_endpoint(), a.public_key)
    return a, b


async def until(cond, timeout: float = 15.0) -> bool:  # type: ignore[no-untyped-def]
    """A loaded machine's amqtt (Python) may take seconds where it usually takes ms."""
    return await until_within(cond, timeout)


async def recv(mesh: Mesh, timeout: float = 15.0):
    return await asyncio.wait_for(mesh.recv(), timeout)


@pytest.mark.slow
@pytest.mark.asyncio
async def test_peers_that_cannot_reach_each_other_talk_through_the_broker(
    amqtt_broker, make_mesh
):
    broker = amqtt_broker()
    a, b = await pair_via(broker.url, make_mesh)
    await asyncio.sleep(FAST.direct_grace + 0.1)
    for i in range(20):
        assert await a.send(1, b"frame %d" % i)
    got = [await recv(b) for _i in range(20)]
    assert got == [(0, b"frame %d" % i) for i in range(20)]
    assert await b.send(0, b"back")
    assert await recv(a) == (1, b"back")
    assert await until(lambda: a.link_report()[1][1] is not None)
    path, rtt = a.link_report()[1]
    assert path == "relay" and 0 < rtt < 2
    from zsy_lan.table.relay_join import link_lines

    lines = link_lines(a, lambda p: f"seat {p}")
    assert lines[0].startswith("seat 1: through the relay, round trip ")
    assert lines[-1] == f"the relay: the MQTT broker at mqtt://127.0.0.1:{broker.port}"
    assert a.relay_faults == {} and b.relay_faults == {}


@pytest.mark.slow
@pytest.mark.asyncio
async def test_bad_credentials_tls_and_silence_are_one_sentence_each(
    amqtt_broker, make_mesh, tmp_path
):
    broker = amqtt_broker(users={"ana": "s3cret"}, tls=True)
    mesh = await make_mesh()
    wrong = BrokerAddress(LO, broker.port, tls=True, user="ana", password="nope", ca=str(broker.ca))
    assert await mesh.attach_relay(wrong, TABLE, timeout=10) == "auth"
    text = refusal_text("auth", wrong)
    assert "refused the user name or password" in text and "ZSY_RELAY_PASSWORD" in text
    assert "nope" not in text

    other = await make_mesh()
    no_ca = BrokerAddress(LO, broker.port, tls=True, user="ana", password="s3cret")
    assert await other.attach_relay(no_ca, TABLE, timeout=10) == "tls"
    text = refusal_text("tls", no_ca, other.relay.status.detail)
    assert "--relay-ca" in text and "certificate" in text.lower()

    odd = await make_mesh()
    bad_ca = BrokerAddress(LO, broker.port, tls=True, ca=str(tmp_path / "missing.pem"))
    assert await odd.attach_relay(bad_ca, TABLE, timeout=10) == "tls"
    assert "missing.pem" in odd.relay.status.detail

    right = await make_mesh()
    ok = BrokerAddress(LO, broker.port, tls=True, user="ana", password="s3cret", ca=str(broker.ca))
    assert await right.attach_relay(ok, TABLE, timeout=10) == ""

    gone = await make_mesh()
    nowhere = parse_relay_url(f"mqtt://{LO}:{dead_endpoint().rsplit(':', 1)[1]}")
    assert await gone.attach_relay(nowhere, TABLE, timeout=5) == "unreachable"
    assert "cannot reach the MQTT broker" in refusal_text("unreachable", nowhere, "refused")


def test_broker_urls_and_opaque_topics():
    a = parse_relay_url("mqtts://bob:p%40ss@broker.example:8884")
    assert (a.host, a.port, a.tls) == ("broker.example", 8884, True)
    assert (a.user, a.password) == ("bob", "p@ss")
    assert a.url == "mqtts://bob@broker.example:8884" and "p@ss" not in repr(a)
    assert parse_relay_url("mqtt://127.0.0.1").port == 1883
    assert parse_relay_url("mqtts://h").port == 8883
    assert parse_relay_url("mqtt://[::1]:1999").endpoint == "mqtt://[::1]:1999"
    for bad, says in [
        ("mqtt://", "not a broker address"),
        ("mqtt://h:99999", "not a broker address"),
        ("mqtts://u:secret@h/t", "leave out any /path"),
        ("http://h", "not a broker address"),
    ]:
        with pytest.raises(ValueError, match=says) as err:
            parse_relay_url(bad)
        assert "secret" not in str(err.value)
    key = bytes(range(32))
    topic = inbox_topic(TABLE, key)
    assert topic.startswith("zsy/") and TABLE not in topic and key.hex()[:8] not in topic
    assert topic != inbox_topic("other", key) and topic != inbox_topic(TABLE, bytes(32))


@pytest.mark.slow
@pytest.mark.asyncio
async def test_what_others_on_the_broker_see_and_do_is_the_brokers_doing(
    amqtt_broker, make_mesh
):
    """Another client with rights on every topic (as the broker itself has): it sees only
    sealed boxes; what it replays, alters, misattributes or makes up is refused and
    counted as the relay's fault, and the seats' frames still arrive."""
    broker = amqtt_broker()
    a, b = await pair_via(broker.url, make_mesh)
    await asyncio.sleep(FAST.direct_grace + 0.1)
    seen: list[tuple[str, bytes]] = []
    async with aiomqtt.Client(LO, broker.port, protocol=aiomqtt.ProtocolVersion.V311) as spy:
        await spy.subscribe("#")

        async def listen() -> None:
            async for m in spy.messages:
                seen.append((str(m.topic), bytes(m.payload)))

        task = asyncio.create_task(listen())
        try:
            secret = b"the queen of hearts, in plain text"
            assert await a.send(1, secret)
            assert await recv(b) == (0, secret)
            inbox = inbox_topic(TABLE, b.public_key)
            size = SENDER_LEN + 40 + HEADER + len(secret)  # the frame's message, not a ping's

            def frame_seen() -> bool:
                return any(t == inbox and len(p) == size for t, p in seen)

            assert await until(frame_seen)
            assert not any(secret in p for _t, p in seen)
            assert not any(k in p for _t, p in seen for k in (a.public_key, b.public_key))
            topic, box = next((t, p) for t, p in seen if t == inbox and len(p) == size)
            assert TABLE not in topic and all(t.startswith("zsy/") for t, _p in seen)
            await spy.publish(topic, box)  # replayed
            assert await until(lambda: b.relay_faults["replayed"] >= 1)
            flipped = box[:-1] + bytes([box[-1] ^ 1])
            await spy.publish(topic, flipped)  # altered
            assert await until(lambda: b.relay_faults["altered"] >= 1)
            other = bytes(SealedBox(PublicKey(b.public_key)).encrypt(b.public_key))
            await spy.publish(topic, other + box[len(other) :])  # under another sender
            await spy.publish(topic, b"\x00" * 10)  # made up
            assert await until(lambda: b.relay_faults["altered"] >= 2)
            assert await until(lambda: b.relay_faults["misaddressed"] >= 1)
            assert await a.send(1, b"still heard")
            assert await recv(b) == (0, b"still heard")
        finally:
            task.cancel()
    retained = []
    async with aiomqtt.Client(LO, broker.port, protocol=aiomqtt.ProtocolVersion.V311) as late:
        await late.subscribe("#")
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(0.5):
                async for m in late.messages:
                    retained.append(m)
    # nothing kept: a late subscriber gets no retained message (the two meshes still ping
    # each other meanwhile, live messages that a subscriber to # hears too)
    assert not [m for m in retained if m.retain]


@pytest.mark.slow
@pytest.mark.asyncio
async def test_a_broker_that_dies_and_comes_back_carries_the_table_again(
    amqtt_broker, make_mesh
):
    broker = amqtt_broker()
    a, b = await pair_via(broker.url, make_mesh)
    await asyncio.sleep(FAST.direct_grace + 0.1)
    assert await a.send(1, b"before")
    assert await recv(b) == (0, b"before")
    broker.kill()  # SIGKILL: no goodbye to the clients
    assert await until(lambda: not a.relay.status.registered, 30)
    assert a.relay.status.refused == "unreachable"
    broker.start()  # the same port: the links connect and subscribe again by themselves
    assert await until(lambda: a.relay.status.registered and b.relay.status.registered, 15)
    got = []

    async def keep_sending() -> None:
        while True:  # until a ping re-proves the path (the protocol resends the same way)
            await a.send(1, b"after")
            await asyncio.sleep(0.2)

    sender = asyncio.create_task(keep_sending())
    try:
        got.append(await recv(b, 10))
    finally:
        sender.cancel()
    assert got == [(0, b"after")]
    assert a.relay_faults == {} and b.relay_faults == {}


@settings(max_examples=100, deadline=None)
@given(
    st.sampled_from(["127.0.0.1", "broker.example.org", "::1", "10.0.0.5"]),
    st.integers(1, 65535),
    st.booleans(),
    st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), max_size=12),
    st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), max_size=12),
)
def test_a_broker_line_reads_back_as_itself_and_never_says_the_password(
    host, port, tls, user, password
):
    addr = BrokerAddress(host, port, tls, user, password if user else "")
    line = addr.url
    again = parse_relay_url(line)
    assert again == addr and again.password == ""  # (compare leaves the password out)
    secret = "pw:" + password  # (a password that is no part of the user's name or the host)
    shown = BrokerAddress(host, port, tls, user or "u", secret)
    assert secret not in shown.url and secret not in repr(shown) and secret not in str(shown)
