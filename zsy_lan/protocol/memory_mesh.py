"""The in-memory mesh: frames between replicas in one process, with no sockets and no clock.

Why one: ``zsy play``'s local table, the protocol and private-deal tests and the
memory bench each ran replicas in one process and each carried frames between
them with its own queue. They now share this carrier, so a local match and
the tests that stand for a network table move frames by the same rules.

The mesh only carries frames. A shell posts what its replica sends
(:meth:`MemoryMesh.post_sends`), takes the next delivery (:meth:`MemoryMesh.pop`)
and hands the frame to each destination's replica itself: what it does with
the events that come back (journal, record, screen) stays its own.

Two kinds of network:

* **lossless** (no ``faults``): a frame reaches every destination, in the
  order sent, at once. A broadcast (``to=None``) is one delivery whose
  destinations are every seat but its sender, so a shell hands one frame to
  everyone before the next; this is the local table's network.
* **faulty** (:class:`Faults`): each copy of a frame to each destination may be
  dropped, duplicated and delayed, drawn from the generator the caller gives
  (a test's seeded ``random.Random``: the same seed, the same schedule), and
  is delivered once ``now`` reaches its time. ``reliable`` posts are never
  dropped (a test's own forged frames). The draws per destination, in order:
  drop (unless reliable), duplicate, then a delay for each copy.

Either way a seat in :attr:`MemoryMesh.cut_off` is partitioned away: frames to
or from it are lost. Sans-IO like the protocol: the time is passed in.
"""

from __future__ import annotations

import heapq
import math
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, NamedTuple, Protocol

from zsy_lan.protocol.events import Send

__all__ = ["Delivery", "Draws", "Faults", "MemoryMesh"]


class Draws(Protocol):
    """What the faulty network draws from (``random.Random`` has both)."""

    def random(self) -> float: ...  # in [0, 1)

    def uniform(self, a: float, b: float) -> float: ...  # in [a, b]


@dataclass(frozen=True)
class Faults:
    """A lossy link: each copy dropped with ``drop``, doubled with ``dup``, delayed up to
    ``max_delay`` seconds, every decision drawn from ``rng``."""

    rng: Draws
    drop: float = 0.0
    dup: float = 0.0
    max_delay: float = 0.02


class Delivery(NamedTuple):
    """One frame taken off the mesh: who sent it and the seats it reaches now."""

    src: int
    dsts: tuple[int, ...]
    frame: bytes


class MemoryMesh:
    """Frames between ``seats`` in memory: lossless and in order, or with ``faults``."""

    def __init__(self, seats: Iterable[int], faults: Faults | None = None) -> None:
        self.seats = tuple(seats)
        self.faults = faults
        self.cut_off: set[int] = set()  # seats partitioned away: every frame to or from is lost
        self.sent = 0  # frames addressed to a seat (one per destination), lost ones included
        self._fifo: deque[tuple[int, int | None, bytes]] = deque()  # lossless: (src, to, frame)
        self._timed: list[tuple[float, int, int, int, bytes]] = []  # (at, n, src, dst, frame)
        self._n = 0

    def __len__(self) -> int:
        """Deliveries still on the mesh (due or not)."""
        return len(self._fifo) + len(self._timed)

    def _targets(self, src: int, to: int | None) -> tuple[int, ...]:
        return tuple(s for s in ((to,) if to is not None else self.seats) if s != src)

    def post(
        self, src: int, to: int | None, frame: bytes, now: float = 0.0, *, reliable: bool = False
    ) -> None:
        """Put ``src``'s frame on the mesh, to seat ``to`` or (``None``) every other seat."""
        faults = self.faults
        if faults is None:
            self.sent += len(self._targets(src, to))
            if src not in self.cut_off:
                self._fifo.append((src, to, frame))
            return
        for dst in self._targets(src, to):
            self.sent += 1
            if src in self.cut_off or dst in self.cut_off:
                continue
            if not reliable and faults.rng.random() < faults.drop:
                continue
            copies = 2 if faults.rng.random() < faults.dup else 1
            for _ in range(copies):
                self._n += 1
                at = now + faults.rng.uniform(0, faults.max_delay)
                heapq.heappush(self._timed, (at, self._n, src, dst, frame))

    def post_sends(self, src: int, events: Iterable[Any], now: float = 0.0) -> None:
        """Post every :class:`~zsy_lan.protocol.events.Send` among a replica's ``events``."""
        for ev in events:
            if isinstance(ev, Send):
                self.post(src, ev.to, ev.frame, now)

    def pop(self, now: float = math.inf) -> Delivery | None:
        """The next delivery due by ``now`` (``None``: nothing is)."""
        if self._fifo:
            src, to, frame = self._fifo.popleft()
            dsts = tuple(d for d in self._targets(src, to) if d not in self.cut_off)
            return Delivery(src, dsts, frame)
        if self._timed and self._timed[0][0] <= now:
            _at, _n, src, dst, frame = heapq.heappop(self._timed)
            return Delivery(src, (dst,), frame)
        return None
