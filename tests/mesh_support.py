"""A mesh for a :class:`~zsy_lan.table.peer.TablePeer` that a test drives by hand.

Every frame the peer hands to the wire is kept in ``sent`` as (seat, frame); nothing
arrives by itself (the test feeds frames to the peer, or to ``handler``).
"""

from __future__ import annotations

import asyncio
from typing import Any


class RecordingMesh:
    """What a TablePeer needs of a mesh, recording every frame handed to the wire."""

    def __init__(self) -> None:
        self.sent: list[tuple[int | None, bytes]] = []
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
