"""Broker tests: the embedded broker of ``zsy relay`` on loopback, and the hostile harness."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import pytest_asyncio

_HERE = str(Path(__file__).resolve().parent)
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)

pytest.importorskip("amqtt", reason="the broker tests need the broker extra (amqtt)")
pytest.importorskip("aiomqtt", reason="the broker tests need aiomqtt")


@pytest_asyncio.fixture
async def broker():
    """``zsy relay``'s broker (amqtt behind its guard) on 127.0.0.1, any free port."""
    from zsy_lan.net.broker_server import EmbeddedBroker

    b = EmbeddedBroker("127.0.0.1", 0)
    await b.start()
    try:
        yield b
    finally:
        await b.stop()
