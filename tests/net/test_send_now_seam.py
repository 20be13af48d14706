"""``Mesh.send_now`` leans on pyzmq's private ``Socket._schedule_remaining_events``.

The fast path sends on a plain view of the link's socket and must then let the
asyncio socket look at its edge-triggered descriptor again. These tests fail
when the pyzmq in use no longer has that method, or when send_now stops
calling it; without it send_now says no and the caller uses ``send()``.
"""

from __future__ import annotations

import asyncio

import pytest
import zmq.asyncio

from zsy_lan.net import transport
from zsy_lan.net.transport import Mesh

pytestmark = [pytest.mark.asyncio, pytest.mark.timeout(30)]

PRIVATE = "_schedule_remaining_events"


async def _linked(make_mesh) -> tuple[Mesh, Mesh]:
    a = await make_mesh()
    b = await make_mesh()
    a.connect_peer(1, b.endpoint, b.public_key)
    b.connect_peer(0, a.endpoint, a.public_key)
    assert await a.wait_connected(1, 5)
    assert await b.wait_connected(0, 5)
    return a, b


async def test_the_pyzmq_in_use_has_the_private_method() -> None:
    assert transport.REARM == PRIVATE
    assert callable(getattr(zmq.asyncio.Socket, PRIVATE, None)), (
        f"pyzmq {zmq.__version__} has no zmq.asyncio.Socket.{PRIVATE}: Mesh.send_now "
        "now always falls back to send(); find the new way to re-arm the socket"
    )


async def test_send_now_uses_it(make_mesh, monkeypatch) -> None:
    a, b = await _linked(make_mesh)
    calls: list[object] = []
    original = getattr(zmq.asyncio.Socket, PRIVATE)

    def spy(self, *args, **kwargs):
        calls.append(self)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(zmq.asyncio.Socket, PRIVATE, spy)
    before = len(calls)
    assert a.send_now(1, b"now")
    assert len(calls) > before  # re-armed after the plain send
    assert await asyncio.wait_for(b.recv(), 5) == (0, b"now")


async def test_without_it_send_now_says_no_and_send_works(make_mesh, monkeypatch) -> None:
    a, b = await _linked(make_mesh)
    # as if pyzmq renamed it (pyzmq itself still calls its own, so it cannot be deleted)
    monkeypatch.setattr(transport, "REARM", "_no_such_method_in_this_pyzmq")
    assert not a.send_now(1, b"later")  # no silent fast path without the re-arm
    assert await a.send(1, b"later")
    assert await asyncio.wait_for(b.recv(), 5) == (0, b"later")
