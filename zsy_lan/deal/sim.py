"""A local simulation of the private deal: all peers in one process.

Used by the tests and the benchmark. Every message goes through the canonical
encoding (``messages.encode``/``decode``) on its way to each other peer, is
logged in the receiver's ``received`` list, and is delivered in causal order.

Timing is a discrete-event model with zero network latency: each peer is a
single server that handles its messages in arrival order; a message sent when
its sender finishes a computation arrives at once at every other peer. So
``makespan`` is the pure computation on the critical path with the peers
working in parallel, as on a LAN; ``compute[seat]`` is each peer's own CPU
time and ``ops[seat]`` its group operations. Times are CPU times of the
running thread (``time.thread_time``), so other load on the machine does not
inflate them. For that the group operations run on the calling thread: a
``Sim`` sets ``group.WORKERS`` to 1 while it computes (a table splits a deck
step over worker threads, whose time ``thread_time`` would not see).
"""

from __future__ import annotations

import hashlib
import heapq
import time
from collections import Counter
from collections.abc import Callable, Sequence

from . import group
from .audit import AuditReport
from .errors import DealError
from .mental import DealConfig, DealPeer
from .messages import Message, decode, encode

_clock = time.thread_time

PeerFactory = Callable[..., DealPeer]
Tamper = Callable[[DealPeer, Message], Message | None]


def seeded_rand(seed: bytes) -> Callable[[int], bytes]:
    """Deterministic bytes (SHA-256 in counter mode). For tests only, never for play."""
    counter = 0
    buf = b""

    def rand(k: int) -> bytes:
        nonlocal counter, buf
        while len(buf) < k:
            buf += hashlib.sha256(seed + counter.to_bytes(8, "big")).digest()
            counter += 1
        out, buf = buf[:k], buf[k:]
        return out

    return rand


class Sim:
    """n peers of one table, wired together in memory."""

    def __init__(
        self,
        n_peers: int,
        deck_ids: Sequence[int],
        deal_layout: Sequence[int],
        *,
        table_id: bytes = b"sim-table",
        round_no: int = 1,
        peer_factories: dict[int, PeerFactory] | None = None,
        tamper: dict[int, Tamper] | None = None,
        seed: bytes | None = None,
        eager_validation: bool = True,
    ) -> None:
        self.cfg = DealConfig(table_id, round_no, n_peers, tuple(deck_ids), tuple(deal_layout))
        self.n = n_peers
        self.received: list[list[bytes]] = [[] for _ in range(n_peers)]
        self.errors: dict[int, list[DealError]] = {}
        self.compute = [0.0] * n_peers
        self.ops: list[Counter[str]] = [Counter() for _ in range(n_peers)]
        self.busy = [0.0] * n_peers
        self.tamper = tamper or {}
        self.audits: dict[int, AuditReport] = {}
        self.audit_time: dict[int, float] = {}
        self.deal_makespan = 0.0
        self.peers: list[DealPeer] = []
        factories = peer_factories or {}
        for seat in range(n_peers):
            factory = factories.get(seat, DealPeer)
            kw = {"eager_validation": eager_validation}
            if seed is not None:
                kw["rand"] = seeded_rand(seed + bytes([seat]))
            peer = self._timed(seat, lambda f=factory, s=seat, k=kw: f(self.cfg, s, **k))
            self.peers.append(peer)
            self.busy[seat] = self.compute[seat]

    # ------------------------------------------------------------ plumbing

    def _timed(self, seat: int, fn: Callable[[], object]) -> object:
        c0 = Counter(group.COUNTERS)
        workers, group.WORKERS = group.WORKERS, 1  # all on this thread: see the module doc
        t0 = _clock()
        try:
            return fn()
        finally:
            self.compute[seat] += _clock() - t0
            group.WORKERS = workers
            self.ops[seat].update(Counter(group.COUNTERS) - c0)

    def _call(self, seat: int, fn: Callable[[], list[Message]], arrival: float) -> list[Message]:
        start = max(arrival, self.busy[seat])
        before = self.compute[seat]
        try:
            out = self._timed(seat, fn)
        except DealError as err:
            self.errors.setdefault(seat, []).append(err)
            peer = self.peers[seat]
            reason = f"abort: {err}"
            out = list(err.outgoing) + self._timed(seat, lambda: peer.reveal(reason))
        self.busy[seat] = start + (self.compute[seat] - before)
        assert isinstance(out, list)
        return out

    def _run(self, initial: Sequence[tuple[int, Callable[[], list[Message]]]]) -> float:
        heap: list[tuple[float, int, int, int, bytes]] = []
        seq = 0
        t_begin = min(self.busy)

        def send(sender: int, msgs: list[Message], at: float) -> None:
            nonlocal seq
            fn = self.tamper.get(sender)
            for msg in msgs:
                if fn is not None:
                    msg = fn(self.peers[sender], msg)
                    if msg is None:
                        continue
                data = encode(msg)
                for dest in range(self.n):
                    if dest != sender:
                        heapq.heappush(heap, (at, seq, dest, sender, data))
                        seq += 1

        for seat, fn in initial:
            out = self._call(seat, fn, self.busy[seat])
            send(seat, out, self.busy[seat])
        while heap:
            at, _, dest, sender, data = heapq.heappop(heap)
            self.received[dest].append(data)
            msg = decode(data, sender=sender)
            peer = self.peers[dest]
            out = self._call(dest, lambda p=peer, m=msg: p.receive(m), at)
            send(dest, out, self.busy[dest])
        return max(self.busy) - t_begin

    # ------------------------------------------------------------ scenario

    def deal(self) -> float:
        """Run steps 1-4; returns the makespan (peer set-up included)."""
        # the clocks start at 0 before each peer's set-up (secrets, card table)
        self._run([(s, p.start) for s, p in enumerate(self.peers)])
        self.deal_makespan = max(self.busy)
        return self.deal_makespan

    def act(self, seat: int, fn: Callable[[DealPeer], list[Message]]) -> float:
        """Let ``seat`` act (play, show, pass, reveal_stock, ...) and deliver everything."""
        peer = self.peers[seat]
        return self._run([(seat, lambda: fn(peer))])

    def act_all(self, fn: Callable[[DealPeer], list[Message]]) -> float:
        """Every seat acts alike (e.g. ``reveal_stock``), in seat order."""
        return self._run([(s, (lambda p=p: fn(p))) for s, p in enumerate(self.peers)])

    def end_round(self, seats: Sequence[int] | None = None) -> dict[int, AuditReport]:
        """Everyone reveals, then each seat in ``seats`` (default all) audits."""
        self._run([(s, (lambda p=p: p.reveal("end"))) for s, p in enumerate(self.peers)])
        for seat in seats if seats is not None else range(self.n):
            peer = self.peers[seat]
            t0 = _clock()
            self.audits[seat] = peer.audit()
            self.audit_time[seat] = _clock() - t0
        return self.audits


def run_deal(
    n_peers: int, deck_ids: Sequence[int], deal_layout: Sequence[int], **kw: object
) -> Sim:
    """Set up ``n_peers`` peers and run the deal to the end of step 4."""
    sim = Sim(n_peers, deck_ids, deal_layout, **kw)  # type: ignore[arg-type]
    sim.deal()
    return sim
