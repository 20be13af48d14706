"""A local simulation of the private deal: all peers in one process, driven like a table.

Used by the tests and the benchmark (``bench/bench_private_deal.py`` puts this
folder on its path). It lives with the tests, not in the installed package:
who owes the next message is its own model of the deal (below), not the
private deal's transition table (:mod:`zsy_lan.deal.private_game`), and a table
never runs it, so the program ships no second copy of that logic.

It drives the peers as the network table's driver (``PrivateGame``) does: one
transcript, in which every message, the author's own included, is checked by
every peer with ``DealPeer.verify`` and applied with ``DealPeer.ingest``; who
owes the next message is decided here, from the transcript (the last
commitment: seat 0's first shuffle; a step: the next seat's; the last re-lock:
everyone's deal keys; a reveal: everyone's reveal), and the owed message is
made with the peer's ``*_message`` builders. Every message goes through the
canonical encoding (``messages.encode``/``decode``) on its way to each other
peer and is logged in the receiver's ``received`` list.

A message a peer refuses (``verify`` raises: a fault every peer can see) is
kept in that peer's transcript (``DealPeer.keep``) and the peer stops applying
messages, as a table's replica halts; a fault ``ingest`` raises (only this
peer can see it) is recorded and the peer carries on, as the table does. Either
way the peer then reveals with ``abort: <the fault>`` and everyone replies
with its reveal, so the audits can name the culprit. ``errors[seat]`` lists
each seat's faults.

Timing is a discrete-event model with zero network latency: each peer is a
single server that handles the transcript in order; a message posted when its
author finishes computing it reaches every peer at once. So ``makespan`` is
the pure computation on the critical path with the peers working in
parallel, as on a LAN; ``compute[seat]`` is each peer's own CPU time and
``ops[seat]`` its group operations. Times are CPU times of the running thread
(``time.thread_time``), so other load on the machine does not inflate them.
For that the group operations run on the calling thread: a ``Sim`` sets
``group.WORKERS`` to 1 while it computes (a table splits a deck step over
worker threads, whose time ``thread_time`` would not see), and seat 0's first
shuffle is computed on the spot, not ahead on a background thread.
"""

from __future__ import annotations

import hashlib
import time
from collections import Counter, deque
from collections.abc import Callable, Sequence

from zsy_lan.deal import group
from zsy_lan.deal.audit import AuditReport
from zsy_lan.deal.deal_errors import DealError, NotReady, ProtocolViolation
from zsy_lan.deal.mental import DealConfig, DealPeer
from zsy_lan.deal.messages import Commit, Keys, Message, Relock, Reveal, Shuffle, decode, encode

_clock = time.thread_time

PeerFactory = Callable[..., DealPeer]
Tamper = Callable[[DealPeer, Message], Message | None]
Build = Callable[[DealPeer], Message | list[Message]]


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
        #: the one transcript every peer applied, in order (what a table's ledger holds)
        self.transcript: list[Message] = []
        #: seats that refused a message and stopped applying (a table's halted replica)
        self.stopped: set[int] = set()
        self._revealing: set[int] = set()
        self._queue: deque[tuple[float, int, Message]] = deque()
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

    def _busy(self, seat: int, at: float, fn: Callable[[], object]) -> object:
        """Run ``fn`` as ``seat``'s next job, which can start at ``at`` at the earliest."""
        start = max(at, self.busy[seat])
        before = self.compute[seat]
        try:
            return self._timed(seat, fn)
        finally:
            self.busy[seat] = start + (self.compute[seat] - before)

    def _author(self, seat: int, build: Build, at: float) -> None:
        """``seat`` makes the message it owes (after ``at``) and posts it, through its tamper."""
        peer = self.peers[seat]
        made = self._busy(seat, at, lambda: build(peer))
        msgs = made if isinstance(made, list) else [made]
        fn = self.tamper.get(seat)
        for msg in msgs:
            if isinstance(msg, Reveal):
                self._revealing.add(seat)
            if fn is not None:
                msg = fn(peer, msg)
                if msg is None:
                    continue
            self._queue.append((self.busy[seat], seat, msg))

    def _deliver(self, dest: int, msg: Message, at: float) -> DealError | None:
        """``dest`` checks and applies ``msg`` as a table would; the fault it finds, if any."""
        peer = self.peers[dest]
        if dest in self.stopped:
            self._busy(dest, at, lambda: peer.keep(msg))
            return None
        try:
            self._busy(dest, at, lambda: peer.verify(msg))
        except (DealError, NotReady) as exc:
            # refused: a fault every peer sees (a table halts); kept for the audit
            err = exc if isinstance(exc, DealError) else ProtocolViolation(
                f"{msg.TYPE} before its turn", culprit=msg.sender, step="order"
            )
            self.stopped.add(dest)
            self._busy(dest, at, lambda: peer.keep(msg))
            return err
        try:
            self._busy(dest, at, lambda: peer.ingest(msg))
        except DealError as err:
            return err  # private: only this peer sees it; it carries on, as at a table
        return None

    def _owed(self, msg: Message) -> list[tuple[int, Build]]:
        """Who owes what now that ``msg`` is in everyone's transcript (like a table's actors)."""
        n, j, t = self.n, msg.sender, type(msg)
        out: list[tuple[int, Build]] = []
        if t is Commit:
            committed = {m.sender for m in self.transcript if type(m) is Commit}
            if len(committed) == n and not any(type(m) is Shuffle for m in self.transcript):
                out.append((0, _first_step))
        elif t is Shuffle and j < n - 1:
            out.append((j + 1, _step))
        elif t is Shuffle or (t is Relock and j < n - 1):
            out.append(((j + 1) % n, _step))
        elif t is Relock:
            out += [(s, _deal_keys) for s in range(n)]
        elif t is Reveal:
            reply = f"reply to seat {j}"
            out += [(s, _reveal(reply)) for s in range(n) if s not in self._revealing]
        return [(s, b) for s, b in out if s not in self.stopped and s not in self._revealing]

    def _run(self, initial: Sequence[tuple[int, Build]]) -> float:
        """Post the initial messages, then every message owed, until nobody owes anything."""
        t_begin = min(self.busy)
        for seat, build in initial:
            self._author(seat, build, self.busy[seat])
        while self._queue:
            at, sender, msg = self._queue.popleft()
            self.transcript.append(msg)
            data = encode(msg)
            faults: list[tuple[int, DealError]] = []
            for dest in range(self.n):
                if dest == sender:
                    got = msg
                else:
                    self.received[dest].append(data)
                    got = decode(data, sender=sender)
                err = self._deliver(dest, got, at)
                if err is not None:
                    self.errors.setdefault(dest, []).append(err)
                    faults.append((dest, err))
            for seat, err in faults:
                if seat not in self._revealing:
                    self._author(seat, _reveal(f"abort: {err}"), self.busy[seat])
            for seat, build in self._owed(msg):
                self._author(seat, build, self.busy[seat])
        return max(self.busy) - t_begin

    # ------------------------------------------------------------ scenario

    def deal(self) -> float:
        """Run steps 1-4; returns the makespan (peer set-up included)."""
        # the clocks start at 0 before each peer's set-up (secrets, card table)
        self._run([(s, _commit) for s in range(self.n)])
        self.deal_makespan = max(self.busy)
        return self.deal_makespan

    def act(self, seat: int, build: Build) -> float:
        """``seat`` posts what ``build(peer)`` makes (``p.open_message(...)``, a list, ...)."""
        return self._run([(seat, build)])

    def act_all(self, build: Build) -> float:
        """Every seat acts alike (e.g. ``p.stock_keys_message(kitty)``), in seat order."""
        return self._run([(s, build) for s in range(self.n)])

    def end_round(self, seats: Sequence[int] | None = None) -> dict[int, AuditReport]:
        """Everyone still owing reveals, then each seat in ``seats`` (default all) audits."""
        self._run([(s, _reveal("end")) for s in range(self.n) if s not in self._revealing])
        for seat in seats if seats is not None else range(self.n):
            peer = self.peers[seat]
            t0 = _clock()
            self.audits[seat] = peer.audit()
            self.audit_time[seat] = _clock() - t0
        return self.audits


def _commit(p: DealPeer) -> Message:
    return p.commit_message()


def _first_step(p: DealPeer) -> Message:
    p.start_first_shuffle(background=False)  # (on this thread: see the module doc)
    return p.step_message()


def _step(p: DealPeer) -> Message:
    return p.step_message()


def _deal_keys(p: DealPeer) -> Keys:
    return p.deal_keys_message()


def _reveal(reason: str) -> Build:
    return lambda p: p.reveal_message(reason)


def run_deal(
    n_peers: int, deck_ids: Sequence[int], deal_layout: Sequence[int], **kw: object
) -> Sim:
    """Set up ``n_peers`` peers and run the deal to the end of step 4."""
    sim = Sim(n_peers, deck_ids, deal_layout, **kw)  # type: ignore[arg-type]
    sim.deal()
    return sim
