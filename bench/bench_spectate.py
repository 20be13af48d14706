"""How fast a spectator catches up: the line-by-line Follower against ``zsy replay``.

Plays one bot match over loopback (``zsy demo``'s code), then verifies seat 0's
record twice: with :func:`zsy_lan.replay.replay_file` (the whole file at once)
and with :class:`zsy_lan.spectate.Follower` (one line at a time, as a
spectator receives it). Usage::

    python bench/bench_spectate.py [--players 4] [--rounds 2] [--open-deal]
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from pathlib import Path

from zsy_lan.demo import run_demo
from zsy_lan.engine.ruleset import build_rules
from zsy_lan.replay import replay_file
from zsy_lan.spectate import Follower


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--open-deal", action="store_true")
    args = ap.parse_args()
    deal = "open" if args.open_deal else "private"
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        ok = asyncio.run(
            run_demo(build_rules(args.players, [], {}), args.rounds, out, "easy",
                     echo=lambda _l: None, deal=deal)
        )
        assert ok
        path = out / "seat-0.jsonl"
        lines = path.read_text().splitlines()
        t0 = time.perf_counter()
        report = replay_file(path)
        t1 = time.perf_counter()
        f = Follower(lines[0])
        for line in lines[1:]:
            f.add(line)
        t2 = time.perf_counter()
        assert report.ok and f.head == report.head
        n = len(lines) - 1
        print(f"{deal} deal, {args.players} players, {len(f.game.match.results)} rounds, "
              f"{n} lines: zsy replay {t1 - t0:.2f} s, follower {t2 - t1:.2f} s "
              f"({n / (t2 - t1):.0f} lines/s)")


if __name__ == "__main__":
    main()
