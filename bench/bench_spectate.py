"""What a spectator costs: the line-by-line Follower against ``zsy replay``, time and memory.

Plays one bot match over loopback (``zsy demo``'s code), then verifies seat 0's
record twice: with :func:`zsy_lan.record.replay.replay_file` (the whole file at once)
and with :class:`zsy_lan.table.follower.Follower` (one line at a time, as a
spectator receives it). Then the memory a spectator holds once it has followed
the whole record (``tracemalloc``: what is still allocated, and the peak), told
by a :class:`~zsy_lan.table.follower.Teller` as ``zsy watch`` does, with the
retention a seat's replica uses (the default) and with everything kept
(``retain=None``). Run it under an older checkout (``PYTHONPATH=...``) to
measure that version's Follower the same way. Usage::

    python bench/bench_spectate.py [--players 4] [--rounds 2] [--open-deal] [--keep DIR]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import tempfile
import time
import tracemalloc
from pathlib import Path
from typing import Any

from zsy_lan.engine.ruleset import build_rules
from zsy_lan.record.replay import replay_file
from zsy_lan.table.demo import run_demo
from zsy_lan.table.follower import Follower, Teller


def follow(lines: list[str], **kwargs: Any) -> tuple[Follower, Teller]:
    """Follow and tell ``lines`` as a spectator does (told after each line: the worst case)."""
    f = Follower(lines[0], **kwargs)
    t = Teller(f)
    for line in lines[1:]:
        f.add(line)
        t.new_lines()
    return f, t


def memory(lines: list[str], **kwargs: Any) -> tuple[float, float]:
    """(MB still held by the follower and its teller after the whole record, MB at the peak)."""
    follow(lines[: len(lines) // 4], **kwargs)  # lazy imports and caches: not the spectator's
    gc.collect()
    tracemalloc.start()
    kept = follow(lines, **kwargs)
    gc.collect()
    held, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    del kept
    return held / 1e6, peak / 1e6


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--open-deal", action="store_true")
    ap.add_argument("--keep", type=Path, default=None, help="play into DIR (reused if there)")
    args = ap.parse_args()
    deal = "open" if args.open_deal else "private"
    with tempfile.TemporaryDirectory() as tmp:
        out = args.keep or Path(tmp)
        path = out / "seat-0.jsonl"
        if not path.exists():
            ok = asyncio.run(
                run_demo(build_rules(args.players, [], {}), args.rounds, out, "easy",
                         echo=lambda _l: None, deal=deal)
            )
            assert ok
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
              f"{n} lines ({path.stat().st_size / 1e6:.2f} MB): zsy replay {t1 - t0:.2f} s, "
              f"follower {t2 - t1:.2f} s ({n / (t2 - t1):.0f} lines/s)")
        del f
        held, peak = memory(lines)
        print(f"  spectator memory (default): {held:.2f} MB held after the match, "
              f"peak {peak:.2f} MB")
        try:
            held, peak = memory(lines, retain=None)
        except TypeError:  # an older Follower: it always kept everything (measured above)
            return
        print(f"  spectator memory (retain=None, every frame kept): {held:.2f} MB held, "
              f"peak {peak:.2f} MB")


if __name__ == "__main__":
    main()
