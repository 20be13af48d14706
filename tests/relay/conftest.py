"""Relay tests: loopback units, and namespace tests (root only; skipped elsewhere)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import pytest_asyncio

_HERE = str(Path(__file__).resolve().parent)
_LAN = str(Path(__file__).resolve().parent.parent / "lan")
for p in (_HERE, _LAN):
    if p not in sys.path:
        sys.path.insert(0, p)

import netns  # noqa: E402
from topology import SplitLans  # noqa: E402
from topology import isolated_seats as isolated  # noqa: E402


def _namespaces(topo: SplitLans):
    """Set ``topo`` up, yield it, always tear it down and check nothing was left behind."""
    reason = netns.unavailable_reason()
    if reason:
        pytest.skip(reason)
    netns.remove_stale()
    before = netns.root_links()
    topo.setup()
    try:
        yield topo
    finally:
        topo.teardown()
    left = [ns for ns in topo.namespaces + [topo.bridge_ns] if ns in netns.list_namespaces()]
    assert not left, f"namespaces left behind: {left}"
    assert netns.root_links() <= before, "a link appeared in the root namespace"


@pytest.fixture
def split_lans():
    """Two LANs without a route between them plus a relay namespace; always torn down."""
    yield from _namespaces(SplitLans())


@pytest.fixture
def isolated_seats():
    """Three seats, each alone on its LAN: they reach each other only through the relay's
    namespace (``topology.isolated_seats``); always torn down."""
    yield from _namespaces(isolated(3))


@pytest.fixture
def amqtt_broker(tmp_path):
    """A factory of real amqtt brokers on 127.0.0.1 (mqtt_broker.py); all stopped at the end."""
    from mqtt_broker import AmqttBroker

    brokers: list[AmqttBroker] = []

    def start(**kw) -> AmqttBroker:
        b = AmqttBroker(tmp_path / f"broker{len(brokers)}", **kw)
        brokers.append(b)
        return b.start()

    yield start
    for b in brokers:
        b.stop()


@pytest_asyncio.fixture
async def make_mesh():
    """A factory of meshes on 127.0.0.1 with fast timers (relay_support.FAST); all closed."""
    from relay_support import FAST, LO

    from zsy_lan.net.transport import CurveKeyPair, Mesh

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


@pytest_asyncio.fixture
async def zsy_broker():
    """``zsy relay``'s own broker (amqtt behind its guard, in this process) on 127.0.0.1."""
    from zsy_lan.net.broker_server import EmbeddedBroker

    b = EmbeddedBroker("127.0.0.1", 0)
    await b.start()
    try:
        yield b
    finally:
        await b.stop()
