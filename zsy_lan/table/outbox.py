"""A seated peer's frames on their way out: one queue and one sender task per other seat.

Why a component of its own (issue #23): the peer decides *what* leaves (the
replica's ``Send`` events, after their ``Persist``); how a frame reaches a seat
without a dead peer ever blocking the loop is this small mechanism. A frame
goes at once when the link takes it; otherwise it waits in that seat's queue
for its sender task. Nothing leaves once the seat's own storage failed
(``blocked``): the protocol's resend requests recover whatever is dropped here.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Iterable

from zsy_lan.net.transport import Mesh

log = logging.getLogger("zsy.peer")  # the peer's log: the same lines as before the split

OUTBOX_LIMIT = 2000  # frames queued for one peer; beyond this the oldest go (wants recover them)
SEND_TIMEOUT = 1.0
BYE_WAIT = 0.5  # at most this long to say bye when leaving (a gone peer must not delay quitting)

__all__ = ["BYE_WAIT", "OUTBOX_LIMIT", "SEND_TIMEOUT", "Outbox"]


class Outbox:
    """Frames for the other seats over ``mesh``; ``blocked()`` True: nothing more leaves."""

    def __init__(self, mesh: Mesh, blocked: Callable[[], bool]) -> None:
        self.mesh = mesh
        self._blocked = blocked
        self.queues: dict[int, asyncio.Queue[bytes]] = {}
        self._sending: set[int] = set()  # seats whose sender task holds a frame right now
        #: This seat said its one ``bye`` (leaving, or a fault of its own): never twice.
        self.said_bye = False
        self._farewell: asyncio.Task[None] | None = None

    def open(self, seat: int) -> asyncio.Task[None]:
        """A queue for ``seat`` and its sender task (the caller keeps and cancels the task)."""
        self.queues[seat] = asyncio.Queue()
        return asyncio.create_task(self._sender(seat))

    def put(self, to: int | None, frame: bytes) -> None:
        """Send at once when the link takes it; otherwise queue it for the seat's sender task.

        ``to`` None: every other seat. Nothing leaves once ``blocked()``.
        """
        if self._blocked():
            return
        targets = list(self.queues) if to is None else [to]
        for seat in targets:
            q = self.queues.get(seat)
            if q is None:
                continue
            if q.empty() and seat not in self._sending and self.mesh.send_now(seat, frame):
                continue  # on the wire now, in order: nothing queued or in flight before it
            if q.qsize() >= OUTBOX_LIMIT:
                q.get_nowait()  # the oldest goes: the protocol re-requests what is missing
            q.put_nowait(frame)

    def drop_all(self) -> None:
        """Forget every queued frame (this seat's storage failed: none may leave)."""
        for q in self.queues.values():
            while not q.empty():
                q.get_nowait()

    async def last_words(self, frames: list[bytes], seats: Iterable[int] | None = None) -> None:
        """Send ``frames`` to every other seat at once, waiting at most ``BYE_WAIT``.

        ``seats``: these instead of the seats with a queue (a seat that never started,
        its record refused on resume, still says why it cannot come back).
        """
        sends = [
            self.mesh.send(seat, frame, timeout=BYE_WAIT)
            for seat in (self.queues if seats is None else seats)
            for frame in frames
        ]
        with contextlib.suppress(Exception):
            await asyncio.wait_for(asyncio.gather(*sends, return_exceptions=True), BYE_WAIT + 0.5)

    def farewell(self, frames: list[bytes], seats: Iterable[int] | None = None) -> None:
        """Send this seat's one ``bye`` (a fault of its own, a refused resume) in the
        background, as :meth:`last_words` does; :meth:`farewell_sent` waits for it."""
        self.said_bye = True
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # no loop (a test driving the peer by hand): nothing to send on
            return
        self._farewell = loop.create_task(self.last_words(frames, seats))

    async def farewell_sent(self) -> None:
        """Wait for :meth:`farewell`'s frames (bounded): they leave before the mesh closes."""
        if self._farewell is not None:
            with contextlib.suppress(Exception, asyncio.CancelledError):
                await self._farewell

    async def _sender(self, seat: int) -> None:
        queue = self.queues[seat]
        while True:
            frame = await queue.get()
            if self._blocked():
                continue
            self._sending.add(seat)
            try:
                await self.mesh.send(seat, frame, timeout=SEND_TIMEOUT)
            except Exception as exc:  # noqa: BLE001 - a send failure is recovered by wants
                log.debug("send to seat %s failed: %s", seat, exc)
            finally:
                self._sending.discard(seat)
