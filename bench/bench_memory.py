"""Memory over long matches: does a peer's memory stay flat in the number of rounds?

One process runs a whole table in memory: ``--peers`` replicas (the real
:class:`~zsy_lan.protocol.Replica`, with :class:`~zsy_lan.deal.private_game.PrivateGame`
for the private deal or the engine's ``Game`` for the open deal), joined by a
lossless FIFO "network", each seat played by the easy bot, the shell contract
obeyed (events in order; transcript lines, journal records and frames are
counted and dropped, as if written to disk), ``tick`` every 0.1 s of simulated
time. No sockets, no threads of our own, no disk. Each round count runs in a
fresh child process, so the figure is that process's own peak/current RSS.

Printed per round count: RSS (current, from /proc/self/statm) after the last
round, Python heap in use (tracemalloc, when ``--trace``), and what the peers
still hold: feed messages and transcript entries in memory (summed over
peers). ``--top`` prints the allocation sites that grew most between round 10
and the last round (tracemalloc), which is how we found where memory went.

    python bench/bench_memory.py [--deal private|open] [--rounds 10,100,300]
                                 [--peers 3] [--keep-all] [--trace] [--top 15]

``--keep-all`` turns retention off (every frame stays in memory, as before).
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import multiprocessing as mp
import os
import sys
import time
import tracemalloc
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def _rss_mb() -> float:
    with open("/proc/self/statm") as f:
        pages = int(f.read().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE") / 2**20


def _entropy(seat: int, salt: str) -> Callable[[int], bytes]:
    counter = [0]

    def draw(n: int) -> bytes:
        out = b""
        while len(out) < n:
            counter[0] += 1
            out += hashlib.sha256(f"{salt}/{seat}/{counter[0]}".encode()).digest()
        return out[:n]

    return draw


RETAIN = 2  # finished rounds kept in memory, as zsy_lan.table.peer.TablePeer does


class MemTable:
    """A whole table in one process (see the module doc); ``rounds`` of ZSY with ``peers``."""

    def __init__(self, peers: int, rounds: int, deal: str, retain: bool) -> None:
        from zsy_lan.deal.private_game import PrivateGame
        from zsy_lan.engine.game import Game
        from zsy_lan.engine.ruleset import build_rules
        from zsy_lan.protocol import Identity, Replica
        from zsy_lan.table.deciders import make_decider

        self.rules = build_rules(peers, [], {})
        self.n = peers
        ids = {
            s: Identity.from_seed(hashlib.sha256(f"mem-{s}".encode()).digest())
            for s in range(peers)
        }
        roster = {s: i.public_key for s, i in ids.items()}
        self.games: dict[int, Any] = {}
        self.replicas: dict[int, Any] = {}
        self.deciders = {s: make_decider("easy", ids[s].public_key) for s in range(peers)}
        self.lines = 0
        for s in range(peers):
            if deal == "private":
                game: Any = PrivateGame(
                    self.rules,
                    rounds,
                    table="mem",
                    seat=s,
                    persist=lambda _n, _secret: None,
                    entropy=_entropy(s, "deal"),
                )
            else:
                game = Game(self.rules, rounds)
            self.games[s] = game
            kwargs = {"retain": RETAIN} if retain else {}
            self.replicas[s] = Replica(
                "mem",
                s,
                ids[s],
                roster,
                game,
                entropy=_entropy(s, "seed"),
                relay=False,
                **kwargs,
            )
        self.queue: deque[tuple[int, int | None, bytes]] = deque()
        self.now = 0.0
        for s in range(peers):
            self.handle(s, self.replicas[s].tick(self.now))

    def handle(self, seat: int, events: list[Any]) -> None:
        from zsy_lan.protocol import Cheat, Send

        for ev in events:
            if isinstance(ev, Send):
                self.queue.append((seat, ev.to, ev.frame))
            elif isinstance(ev, Cheat):
                raise RuntimeError(f"seat {seat}: {ev.reason}")
            elif hasattr(ev, "line"):
                self.lines += 1  # written to the record on disk, not kept here
        self.auto(seat)

    def auto(self, seat: int) -> None:
        r, game = self.replicas[seat], self.games[seat]
        while r.can_act() and not game.finished():
            local = getattr(game, "local_action", None)
            action = local() if local is not None else None
            if action is None:
                view = game.view(seat)
                if view is None:
                    return
                choice = self.deciders[seat](game.rules, view, seat)
                prepare = getattr(game, "prepare", None)
                action = prepare(choice.to_json()) if prepare is not None else choice.to_json()
            events = r.act(action, self.now)
            self.handle(seat, events)
            if any(type(e).__name__ in ("Rejected", "Fault") for e in events):
                raise RuntimeError(f"seat {seat} refused its own move: {events}")

    def rounds_done(self) -> int:
        return min(len(g.match.results) for g in self.games.values())

    def run_until(self, rounds: int, max_time: float = 1e7) -> None:
        while self.rounds_done() < rounds and self.now < max_time:
            while self.queue and self.rounds_done() < rounds:
                src, to, frame = self.queue.popleft()
                for dst in [s for s in range(self.n) if s != src] if to is None else [to]:
                    self.handle(dst, self.replicas[dst].receive(frame, self.now))
            self.now += 0.1
            for s in range(self.n):
                self.handle(s, self.replicas[s].tick(self.now))

    def held(self) -> tuple[int, int]:
        """(feed messages, transcript entries) still in memory, summed over the peers."""
        feeds = sum(
            len(list(iter(f))) for r in self.replicas.values() for f in r.ledger.feeds.values()
        )
        entries = sum(len(list(iter(r.ledger.entries))) for r in self.replicas.values())
        return feeds, entries


def _one(args: tuple[int, int, str, bool, bool, int], out: Any) -> None:
    peers, rounds, deal, retain, trace, top = args
    if trace or top:
        tracemalloc.start(8 if top else 1)
    t = MemTable(peers, rounds, deal, retain)
    t0 = time.perf_counter()
    snap = None
    if top:
        t.run_until(min(10, rounds))
        gc.collect()
        snap = tracemalloc.take_snapshot()
    t.run_until(rounds)
    gc.collect()
    res: dict[str, Any] = {
        "rounds": t.rounds_done(),
        "rss": _rss_mb(),
        "secs": time.perf_counter() - t0,
        "held": t.held(),
        "lines": t.lines,
    }
    if trace or top:
        res["heap"] = tracemalloc.get_traced_memory()[0] / 2**20
    if snap is not None:
        diff = tracemalloc.take_snapshot().compare_to(snap, "traceback")
        here = str(Path(__file__).resolve().parent.parent)
        res["top"] = [
            (
                d.size_diff / 2**10,
                d.count_diff,
                [ln for ln in d.traceback.format(most_recent_first=True) if here in ln][:3],
            )
            for d in diff[:top]
        ]
    out.put(res)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--deal", choices=("private", "open"), default="private")
    ap.add_argument("--rounds", default="10,100,300")
    ap.add_argument("--peers", type=int, default=3)
    ap.add_argument("--keep-all", action="store_true", help="no retention (the old behaviour)")
    ap.add_argument("--trace", action="store_true", help="also report the traced Python heap")
    ap.add_argument("--top", type=int, default=0, help="allocation sites that grew most")
    a = ap.parse_args()
    ctx = mp.get_context("spawn")
    print(
        f"{a.peers} peers in one process, {a.deal} deal, ZSY, easy bots, "
        f"retention {'off' if a.keep_all else 'on'}"
    )
    for rounds in [int(x) for x in a.rounds.split(",")]:
        q = ctx.Queue()
        p = ctx.Process(
            target=_one, args=((a.peers, rounds, a.deal, not a.keep_all, a.trace, a.top), q)
        )
        p.start()
        res = q.get()
        p.join()
        heap = f", heap {res['heap']:.1f} MB" if "heap" in res else ""
        feeds, entries = res["held"]
        print(
            f"rounds {res['rounds']:4d}: RSS {res['rss']:6.1f} MB{heap}; in memory "
            f"{feeds} feed messages, {entries} transcript entries "
            f"(of {res['lines']} record lines); {res['secs']:.0f} s"
        )
        for kib, count, lines in res.get("top", []):
            print(f"  {kib:+9.0f} KiB {count:+7d} objects")
            for line in lines:
                print(f"      {line}")


if __name__ == "__main__":
    main()
