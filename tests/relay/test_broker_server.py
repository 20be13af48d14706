"""The broker ``zsy relay`` starts (zsy_lan/net/broker_server.py): its guard and its users.

Each limit is tried the way a greedy or hostile user would meet it, with plain aiomqtt
clients on loopback.
"""

from __future__ import annotations

import asyncio
import getpass
import socket
import ssl
import time

import aiomqtt
import pytest
from mqtt_broker import self_signed
from mqtt_clients import Inbox, raw_connect, talker

from zsy_lan.net.broker_server import (
    BrokerError,
    BrokerLimits,
    EmbeddedBroker,
    read_password_file,
    tls_context,
)
from zsy_lan.net.mosquitto import MosquittoSetup
from zsy_lan.net.mqtt_wire import Publish

pytestmark = [pytest.mark.timeout(30)]


async def started(**kw) -> EmbeddedBroker:  # type: ignore[no-untyped-def]
    b = EmbeddedBroker("127.0.0.1", 0, **kw)
    await b.start()
    return b


@pytest.mark.asyncio
async def test_users_of_the_password_file_and_nobody_else():
    b = await started(users={"ann": "s3cret"})
    try:
        async with Inbox(b.port, "zsy/x", username="ann", password="s3cret") as inbox:
            async with talker(b.port, username="ann", password="s3cret") as out:
                await out.publish("zsy/x", b"hi")
            assert await inbox.wait(1) == [b"hi"]
        for who in ({"username": "ann", "password": "wrong"}, {"username": "bob"}, {}):
            with pytest.raises(aiomqtt.MqttError, match="Not authorized|135|5"):
                async with talker(b.port, **who):
                    pass
    finally:
        await b.stop()


@pytest.mark.asyncio
async def test_one_address_cannot_take_every_connection():
    b = await started(limits=BrokerLimits(per_address=2, max_connections=3))
    try:
        async with talker(b.port), talker(b.port):
            t0 = time.monotonic()
            with pytest.raises(aiomqtt.MqttError, match="unavailable"):
                async with talker(b.port):
                    pass
            # refused at once, not left to the client's 10 s timeout
            assert time.monotonic() - t0 < 8
            # another address (127.0.0.2 is loopback too) still gets in
            async with aiomqtt.Client("127.0.0.1", b.port, bind_address="127.0.0.2"):
                pass
        assert b.stats.refused["too many from one address"] == 1
    finally:
        await b.stop()


@pytest.mark.asyncio
async def test_the_broker_full_refuses_the_next():
    b = await started(limits=BrokerLimits(per_address=10, max_connections=1))
    try:
        async with talker(b.port):
            with pytest.raises(aiomqtt.MqttError, match="unavailable"):
                async with talker(b.port):
                    pass
        for _ in range(200):  # the broker sees the first one leave
            if not b.connected:
                break
            await asyncio.sleep(0.01)
        async with talker(b.port):  # the place came free
            pass
        assert b.stats.refused["broker full"] == 1
    finally:
        await b.stop()


@pytest.mark.asyncio
async def test_a_packet_too_large_is_refused_from_its_header():
    b = await started(limits=BrokerLimits(max_packet=4096))
    try:
        async with Inbox(b.port, "zsy/#") as inbox:
            # a raw client that announces 100 MiB and sends only the header: a broker
            # that buffered first would wait (and hold the memory); the guard cuts it off
            r, w = await asyncio.open_connection("127.0.0.1", b.port)
            w.write(raw_connect("evil"))
            await r.readexactly(4)  # CONNACK
            w.write(b"\x30" + bytes.fromhex("80808032"))  # PUBLISH, remaining 100 MiB
            await w.drain()
            assert await asyncio.wait_for(r.read(), 2) == b""  # closed
            w.close()
            async with talker(b.port) as out:
                await out.publish("zsy/t", b"x" * 4000)  # under the limit: carried
            assert await inbox.wait(1) == [b"x" * 4000]
        assert b.stats.refused["packet too large"] == 1
    finally:
        await b.stop()


@pytest.mark.asyncio
async def test_a_flooding_client_is_slowed_not_the_others():
    rate = BrokerLimits(packets_per_second=50, packet_burst=10)
    b = await started(limits=rate)
    try:
        async with Inbox(b.port, "zsy/#") as inbox:
            r, w = await asyncio.open_connection("127.0.0.1", b.port)
            w.write(raw_connect("flood"))
            await r.readexactly(4)
            t0 = time.monotonic()
            # six seconds of flood at 50 a second, written at once: the broker reads it
            # no faster than its buckets allow, the rest waits in the flooder's socket
            w.write(b"".join(Publish("zsy/f", b"%d" % i).encode() for i in range(300)))
            async with talker(b.port) as other:
                await other.publish("zsy/o", b"other")
                await inbox.wait_for(b"other")
                flood = len(inbox.payloads) - 1
                elapsed = time.monotonic() - t0
            w.close()
        # the other client's message did not queue behind the flood...
        assert flood < 300
        # ...and the flood got the burst and 50 a second, not more (a bound a slow machine
        # only makes easier)
        assert flood <= 10 + 50 * elapsed + 2, (flood, elapsed)
    finally:
        await b.stop()


@pytest.mark.asyncio
async def test_tls(tmp_path):
    certfile, keyfile = self_signed(tmp_path)
    b = await started(tls=tls_context(certfile, keyfile))
    try:
        client_ctx = ssl.create_default_context(cafile=str(certfile))
        tls = aiomqtt.TLSParameters(ca_certs=str(certfile))
        async with aiomqtt.Client("127.0.0.1", b.port, tls_params=tls) as c:
            await c.publish("zsy/t", b"sealed twice")
        # a plain client gets no CONNACK out of a TLS port
        r, w = await asyncio.open_connection("127.0.0.1", b.port)
        w.write(raw_connect("plain"))
        assert not (await asyncio.wait_for(r.read(4), 2)).startswith(b"\x20")
        w.close()
        assert client_ctx.verify_mode == ssl.CERT_REQUIRED
    finally:
        await b.stop()
    with pytest.raises(BrokerError, match="cannot load the certificate"):
        tls_context(keyfile, certfile)


def test_password_file(tmp_path):
    f = tmp_path / "users"
    f.write_text("# the group\nann:pa:ss\n\nbob:x\n")
    assert read_password_file(f) == {"ann": "pa:ss", "bob": "x"}
    for text, says in (("ann\n", "line 1: expected USER:PASSWORD"), ("# none\n", "names no user")):
        f.write_text(text)
        with pytest.raises(BrokerError, match=says):
            read_password_file(f)
    with pytest.raises(BrokerError, match="cannot read"):
        read_password_file(tmp_path / "missing")


def test_mosquitto_configuration(tmp_path):
    lim = BrokerLimits(max_connections=50, max_packet=65536)
    conf = MosquittoSetup("127.0.0.1", 18830, lim).config(tmp_path)
    lines = conf.splitlines()
    for want in (
        "listener 18830 127.0.0.1",
        "max_connections 50",
        "max_packet_size 65536",
        "allow_anonymous true",
        "persistence false",
        "sys_interval 0",
        "set_tcp_nodelay true",  # without, a play took 5 times as long (bench_relay.py)
        f"user {getpass.getuser()}",  # started as root it would switch to "mosquitto"
    ):
        assert want in lines, conf
    assert lines.index("per_listener_settings false") < lines.index("listener 18830 127.0.0.1")
    cert, key = tmp_path / "c.pem", tmp_path / "k.pem"
    secured = MosquittoSetup(
        "::1", 8883, lim, certfile=cert, keyfile=key, users={"ann": "x"}
    ).config(tmp_path)
    assert "allow_anonymous false" in secured and f"password_file {tmp_path / 'passwd'}" in secured
    assert f"certfile {cert.resolve()}" in secured and f"keyfile {key.resolve()}" in secured
    assert "listener 8883 ::1" in secured


def test_a_taken_port_is_an_oserror():
    async def go() -> None:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            s.listen()
            b = EmbeddedBroker("127.0.0.1", s.getsockname()[1])
            with pytest.raises(OSError):
                await b.start()
            await b.stop()

    asyncio.run(go())
