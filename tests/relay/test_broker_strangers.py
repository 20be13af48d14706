"""Strangers on the relay cannot take a table's place there (issue #29; the twin of the
home-made relay's scope tests, tests/adversarial/test_relay_scopes.py, gone with it).

The home-made relay served a bounded number of table *scopes*, which sixty-four fresh
keys from eight addresses once took, so it needed host tickets, per-address shares and
idle scopes giving way. A broker has no scopes: a table's topics are derived from its id
and each seat's key (``zsy_lan.net.broker.inbox_topic``), nobody owns a topic, and two
tables never share one. What is left to take is connections, and the guarantee becomes:

* ``zsy relay``'s broker bounds what one source address holds (its guard: a share of the
  connections per address), so a crowd from a few addresses leaves room for the players;
* on any broker (a public one, with no guard at all) strangers who subscribe to every
  ``zsy/`` topic, publish on made-up tables' topics, or even on a real seat's own topic,
  take nothing: the table plays, they hear only sealed boxes, and what they publish is
  refused as the relay's doing (test_broker_hostile.py for what they inject).
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets

import aiomqtt
import pytest
from mqtt_clients import Inbox
from relay_support import FAST, LO, dead_endpoint
from test_mqtt_link import recv, until

from zsy_lan.net.broker import inbox_topic, parse_relay_url
from zsy_lan.net.broker_server import BrokerLimits, EmbeddedBroker
from zsy_lan.net.transport import Mesh

pytestmark = [pytest.mark.timeout(60), pytest.mark.asyncio]

SECRET = b"the open deal's seed: 0123456789abcdef"


async def table_plays(url: str, make_mesh) -> tuple[Mesh, Mesh]:  # type: ignore[no-untyped-def]
    """A real host and its joiner open a new table at ``url`` and talk through it only."""
    table = secrets.token_hex(6)
    host, joiner = await make_mesh(open_admission=True), await make_mesh()
    addr = parse_relay_url(url)
    assert await host.attach_relay(addr, table, timeout=15) == ""
    assert await joiner.attach_relay(addr, table, timeout=15) == ""
    host.connect_peer(1, dead_endpoint(), joiner.public_key)
    joiner.connect_peer(0, dead_endpoint(), host.public_key)
    await asyncio.sleep(FAST.direct_grace + 0.1)
    assert await joiner.send(0, SECRET)
    assert await recv(host) == (1, SECRET)
    assert await host.send(1, b"welcome")
    assert await recv(joiner) == (0, b"welcome")
    return host, joiner


async def crowd(port: int, stack: contextlib.AsyncExitStack, per_address: int) -> int:
    """Eight addresses (127.0.0.2-9) each try ``per_address`` fresh clients that squat on
    made-up tables' topics; how many got in."""
    took = 0
    for a in range(2, 10):
        for _ in range(per_address):
            client = aiomqtt.Client(LO, port, bind_address=f"127.0.0.{a}", timeout=5)
            try:
                await stack.enter_async_context(client)
            except aiomqtt.MqttError:
                continue
            took += 1
            made_up = inbox_topic(secrets.token_hex(6), secrets.token_bytes(32))
            await client.subscribe(made_up)
            await client.publish(made_up, secrets.token_bytes(100))
    return took


async def test_64_strangers_from_8_addresses_leave_room_for_a_real_table(make_mesh):
    limits = BrokerLimits(per_address=4, max_connections=40)
    broker = EmbeddedBroker(LO, 0, limits=limits)
    await broker.start()
    try:
        async with contextlib.AsyncExitStack() as stack:
            assert await crowd(broker.port, stack, per_address=8) == 32  # 4 per address
            assert broker.stats.refused["too many from one address"] == 32
            await table_plays(f"mqtt://{LO}:{broker.port}", make_mesh)  # from 127.0.0.1
    finally:
        await broker.stop()


@pytest.mark.slow
async def test_on_a_public_broker_strangers_take_no_table(amqtt_broker, make_mesh):
    """amqtt without any guard stands for a public test broker."""
    broker = amqtt_broker()
    async with contextlib.AsyncExitStack() as stack:
        assert await crowd(broker.port, stack, per_address=8) == 64  # nothing bounds them
        spy = await stack.enter_async_context(Inbox(broker.port, "zsy/#"))  # hears every table
        host, joiner = await table_plays(broker.url, make_mesh)
        # even a stranger who knows the table and the host's key (a watch line gives both)
        # and publishes on the host's own topic takes nothing: the host still hears its seat
        # (what it injects is refused: test_broker_hostile.py)
        topic = inbox_topic(host.relay.scope, host.public_key)
        async with aiomqtt.Client(LO, broker.port) as squatter:
            await squatter.subscribe(topic)
            await squatter.publish(topic, secrets.token_bytes(200))
            assert await joiner.send(0, b"still mine")
            assert await recv(host) == (1, b"still mine")
        table = {inbox_topic(host.relay.scope, k) for k in (host.public_key, joiner.public_key)}
        assert await until(lambda: len([t for t, _, _ in spy.got if t in table]) >= 3)
        assert not any(SECRET[:16] in p or b"still mine" in p for p in spy.payloads)
