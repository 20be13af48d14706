"""A mesh for a :class:`~zsy_lan.table.peer.TablePeer` that a test drives by hand.

Every frame the peer hands to the wire is kept in ``sent`` as (seat, frame); nothing
arrives by itself (the test feeds frames to the peer, or to ``handler``, or lets
:func:`deliver` carry them between the peer and bare replicas).
"""

from __future__ import annotations

import asyncio
from typing import Any

from zsy_lan.net.transport import MeshOptions
from zsy_lan.protocol import Send

#: Short heartbeats and reconnects, so that a test's failure cases resolve in well under a
#: second (the net, table and relay tests each had a copy of these numbers).
FAST_MESH = MeshOptions(
    heartbeat_ivl_ms=200,
    heartbeat_timeout_ms=1000,
    heartbeat_ttl_ms=2000,
    reconnect_ivl_ms=50,
    reconnect_ivl_max_ms=300,
    connect_timeout_ms=500,
    send_timeout=1.0,
)


class RecordingMesh:
    """What a TablePeer needs of a mesh, recording every frame handed to the wire."""

    def __init__(self) -> None:
        self.sent: list[tuple[int | None, bytes]] = []
        self.delivered = 0  # of ``sent``, how many :func:`deliver` took off the wire
        self.handler: Any = None

    def connect_peer(self, *_args: Any) -> None:
        pass

    def set_handler(self, handler: Any) -> None:
        self.handler = handler

    def send_now(self, seat: int, frame: bytes) -> bool:
        self.sent.append((seat, frame))
        return True

    async def send(self, seat: int, frame: bytes, timeout: float | None = None) -> None:
        self.sent.append((seat, frame))

    def __aiter__(self) -> RecordingMesh:
        return self

    async def __anext__(self) -> tuple[int, bytes]:
        await asyncio.Event().wait()  # nothing arrives this way: the test delivers
        raise StopAsyncIteration


def deliver(
    mesh: RecordingMesh,
    peer: Any,
    others: list[Any],
    queue: list[tuple[int, int | None, bytes]],
    now: float,
    rounds: int = 40,
    on_event: Any = None,
) -> None:
    """Deliver frames until the table is quiet (at most ``rounds`` passes).

    Seat 0 is ``peer`` (a real TablePeer on ``mesh``); seats 1.. are ``others``
    (bare replicas, answering at ``now``). ``queue`` holds (source, to, frame) to
    send first (``to`` None: every other seat); seat 0's frames are taken off
    ``mesh.sent`` as it sends them. ``on_event(seat, event)`` sees every event a
    bare replica returns (a Cheat it names, say).
    """
    seats = range(len(others) + 1)
    for _ in range(rounds):
        new = mesh.sent[mesh.delivered :]
        mesh.delivered = len(mesh.sent)
        queue += [(0, to, frame) for to, frame in new]
        if not queue:
            return
        while queue:
            src, to, frame = queue.pop(0)
            for t in [s for s in seats if s != src] if to is None else [to]:
                if t == 0:
                    peer._on_frame(src, frame)
                    continue
                for e in others[t - 1].receive(frame, now):
                    if isinstance(e, Send):
                        queue.append((t, e.to, e.frame))
                    if on_event is not None:
                        on_event(t, e)


class DeskMesh:
    """What the host's spectator desk uses of a Mesh: who is admitted, and every frame it
    sends kept in ``sent`` and counted per peer in ``bytes`` (the host's upload).
    ``address``: where every guest seems to come from (``Mesh.guest_address``)."""

    def __init__(self, address: str = "") -> None:
        self.sent: list[tuple[object, bytes]] = []
        self.bytes: dict[object, int] = {}
        self.keys: dict[bytes, object] = {}
        self.address = address

    async def send(self, peer_id: object, frame: bytes, timeout: float | None = None) -> bool:
        self.sent.append((peer_id, frame))
        self.bytes[peer_id] = self.bytes.get(peer_id, 0) + len(frame)
        return True

    def admit(self, peer_id: object, key: bytes) -> None:
        self.keys[key] = peer_id

    def revoke(self, peer_id: object) -> None:
        self.keys = {k: p for k, p in self.keys.items() if p != peer_id}

    def peer_for_key(self, key: bytes) -> object:
        return self.keys.get(key)

    def guest_address(self, key: bytes) -> str:
        return self.address
