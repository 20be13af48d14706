"""Who is connected and how long the transcript has waited: the replica's liveness view.

Why a module of its own: liveness is the only thing besides retries that
depends on time (docs/protocol.md, "Timing"), and motions read it (a ``hold``
needs the seat disconnected in this replica's own view, see
:meth:`zsy_lan.protocol.motions.Mover.wait`). Sans-IO: the time is passed in.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from zsy_lan.protocol.events import Event, PeerState, Stalled
from zsy_lan.protocol.timing import Timing

__all__ = ["Liveness"]


class Liveness:
    """Per peer: when it was last heard and whether it counts as connected; stall reports."""

    def __init__(self, peers: Sequence[int], timing: Timing, stats: Counter[str]) -> None:
        self.peers = tuple(peers)
        self.timing = timing
        self.stats = stats
        self.last_seen: dict[int, float] = {}
        self.connected: dict[int, bool] = {p: False for p in self.peers}
        self.byes: set[int] = set()  # seats whose bye was told (until they are heard again)
        #: seats whose bye said they stopped on a local fault, with its class (until heard again)
        self.faults: dict[int, str] = {}
        self.wait_key: object = None
        self.wait_since = 0.0
        self.stall_said: float | None = None

    def saw(self, seat: int, now: float) -> list[Event]:
        """A control frame from ``seat`` itself came in."""
        self.last_seen[seat] = now
        self.byes.discard(seat)
        self.faults.pop(seat, None)
        if not self.connected.get(seat, True):
            self.connected[seat] = True
            return [PeerState(seat, True)]
        return []

    def left(self, seat: int, now: float, fault: str | None = None) -> list[Event]:
        """``seat`` said ``bye``: gone from now on, as if its silence had just timed out.

        ``fault``: its ``bye`` said it stopped on a local fault of that class; the
        motions about it then need no timeout (:meth:`stopped`).
        """
        if seat not in self.connected:
            return []
        self.last_seen[seat] = now - self.timing.peer_timeout  # a hold counts from now
        self.connected[seat] = False
        self.stats["byes"] += 1
        if fault is not None:
            if self.faults.get(seat) == fault:
                return []  # said once, until it is heard again
            self.faults[seat] = fault
            self.byes.add(seat)
            return [PeerState(seat, False, left=True, fault=fault)]
        if seat in self.byes:
            return []  # said once, until it is heard again
        self.byes.add(seat)
        return [PeerState(seat, False, left=True)]

    def stopped(self, seat: int) -> str | None:
        """The local fault ``seat`` said it stopped on (its signed ``bye``), until heard again."""
        return self.faults.get(seat)

    def tick(self, now: float) -> list[Event]:
        """Peers silent for ``peer_timeout`` are reported disconnected."""
        out: list[Event] = []
        for p in self.peers:
            seen = self.last_seen.get(p)
            if self.connected[p] and seen is not None and now - seen > self.timing.peer_timeout:
                self.connected[p] = False
                out.append(PeerState(p, False))
        return out

    def waited(self, now: float) -> float:
        """How long the transcript has been stuck at the wait last seen by :meth:`stalls`."""
        return max(0.0, now - self.wait_since)

    def stalls(self, key: object, waiting: list[tuple[int, str]], now: float) -> list[Event]:
        """``Stalled`` for each seat the transcript has waited on for ``stall`` (then repeated).

        ``key`` names the wait (position, stage, who): a new one restarts the timer.
        """
        if key != self.wait_key:
            self.wait_key, self.wait_since, self.stall_said = key, now, None
            return []
        if not waiting or now - self.wait_since < self.timing.stall:
            return []
        if self.stall_said is not None and now - self.stall_said < self.timing.stall_repeat:
            return []
        self.stall_said = now
        return [Stalled(seat, what) for seat, what in waiting]
