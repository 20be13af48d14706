"""Where the mesh puts each frame it received: the caller's handler, or a bounded queue.

Why an object of its own: three paths receive frames (the ROUTER, each DEALER,
the relay) and each hands them on by the same rule: to the handler the caller
set (:meth:`~zsy_lan.net.transport.Mesh.set_handler`), else into a queue that
:meth:`~zsy_lan.net.transport.Mesh.recv` reads, waiting, pausing or dropping
when it is full as the path requires. That rule and that queue live here.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Hashable

log = logging.getLogger("zsy_lan.net.transport")

#: what :meth:`Inbox.get` returns once the mesh is closed
CLOSED = object()

Handler = Callable[[Hashable, bytes], None]


class Inbox:
    """The frames received and not read yet, or the handler that takes them at once.

    ``size``: frames the queue holds before back-pressure (0: no bound);
    ``drop(reason)``: counts a frame lost (a handler's exception).
    """

    def __init__(self, size: int, drop: Callable[[str], None]) -> None:
        self.queue: asyncio.Queue = asyncio.Queue(maxsize=size)
        self.handler: Handler | None = None
        self._drop = drop

    def call_handler(self, peer_id: Hashable, frame: bytes) -> None:
        """Run the handler on one frame; its exception is logged, the frame counted dropped."""
        assert self.handler is not None
        try:
            self.handler(peer_id, frame)
        except Exception:  # noqa: BLE001 - a handler bug must not stop the receiver
            self._drop("handler_error")
            log.exception("frame handler failed")

    async def put(self, peer_id: Hashable, frame: bytes) -> None:
        """Hand a frame to the handler, or to the queue once it has room."""
        if self.handler is None:
            await self.queue.put((peer_id, frame))
        else:
            self.call_handler(peer_id, frame)

    def put_now(self, peer_id: Hashable, frame: bytes) -> bool:
        """Hand a frame to the handler or the queue; False (nothing done) when it is full."""
        if self.handler is not None:
            self.call_handler(peer_id, frame)
            return True
        try:
            self.queue.put_nowait((peer_id, frame))
        except asyncio.QueueFull:
            return False
        return True

    async def get(self) -> object:
        """The next ``(peer_id, frame)``, or :data:`CLOSED` (left for any other reader too)."""
        item = await self.queue.get()
        if item is CLOSED:
            self.queue.put_nowait(CLOSED)  # wake any other receiver too
        return item

    def close(self) -> None:
        """Wake every reader with :data:`CLOSED` (in place of the oldest frame if full)."""
        try:
            self.queue.put_nowait(CLOSED)
        except asyncio.QueueFull:
            self.queue.get_nowait()
            self.queue.put_nowait(CLOSED)
