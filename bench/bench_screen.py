"""The full-screen table (issue #14): how soon a play shows, and whether bots thinking freeze it.

Run from the repository root with the project's virtualenv::

    nice .venv/bin/python bench/bench_screen.py              # 4 rounds, easy and hard bots
    .venv/bin/python bench/bench_screen.py --rounds 1 --json out.json

What is measured, on a local table (every seat in this process, as ``zsy play``)
shown by :class:`zsy_lan.ui.screen.TableApp` headless at 120x40, the
player's seat played by an ``easy`` bot deciding in a thread (as a person
would decide, off the screen's loop):

* **play to screen**: from the moment a play has been applied to the seat's
  game (the session's ``changed`` event is set) to the moment the screen has
  redrawn with it (``ScreenOptions.on_shown``, called after Textual's refresh).
  Several plays arriving before one redraw each count from their own arrival.
* **loop lag while bots think**: a task sleeps 10 ms again and again and
  records how late it wakes; bots think in a worker thread, so this stays
  small even with ``hard`` bots (a frozen screen would show as lag of a whole
  bot decision, hundreds of ms).

Wall-clock figures on a shared machine: the share of CPU stolen by the
hypervisor is printed with them (bench/machine.py).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))


def _pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def _run(level: str, rounds: int, seed: str) -> dict[str, Any]:
    from zsy_lan.bots.registry import make_bot
    from zsy_lan.engine.ruleset import build_rules
    from zsy_lan.table.local_table import make_local_table
    from zsy_lan.ui.line_mode import Assist
    from zsy_lan.ui.render import Style
    from zsy_lan.ui.screen import ScreenOptions, TableApp

    rules = build_rules(4, [])
    with tempfile.TemporaryDirectory() as tmp:
        table = make_local_table(rules, rounds, 0, level, Path(tmp) / "rec.jsonl", seed=seed)
        pending: list[float] = []
        latencies: list[float] = []
        lags: list[float] = []

        pump = table._pump

        def timed_pump(first: Any) -> None:
            pump(first)
            pending.append(time.perf_counter())  # changed was just set: the play is in

        table._pump = timed_pump  # type: ignore[method-assign]

        def shown() -> None:
            now = time.perf_counter()
            latencies.extend(now - t for t in pending)
            pending.clear()

        app = TableApp(table, Style(color=True), Assist(), ScreenOptions(on_shown=shown))
        me = make_bot("easy", seed + ":me").act

        async def player() -> None:
            """Seat 0 as a quick player: decides in a thread (as a person would, off the
            screen's loop) and submits, so the loop's lag is the screen's and the table's."""
            while not table.game.finished():
                view = table.game.view(0)
                if view is not None and 0 in table.game.actors():
                    action = await asyncio.to_thread(me, rules, view, 0)
                    await table.submit(action)
                await asyncio.sleep(0.05)

        async def lag_probe() -> None:
            while True:
                t = time.perf_counter()
                await asyncio.sleep(0.01)
                lags.append(time.perf_counter() - t - 0.01)

        started = time.perf_counter()
        async with app.run_test(size=(120, 40)) as pilot:
            table.start()
            probe = asyncio.create_task(lag_probe())
            seat0 = asyncio.create_task(player())
            deadline = time.monotonic() + 600
            while not table.game.finished() and time.monotonic() < deadline:
                await pilot.pause(0.05)
            await pilot.pause(0.2)
            probe.cancel()
            seat0.cancel()
            await table.close()
        wall = time.perf_counter() - started
    return {
        "level": level,
        "rounds": rounds,
        "finished": table.game.finished(),
        "plays_shown": len(latencies),
        "play_to_screen_ms": {
            "p50": round(1000 * _pct(latencies, 0.5), 2),
            "p99": round(1000 * _pct(latencies, 0.99), 2),
            "max": round(1000 * max(latencies, default=float("nan")), 2),
        },
        "loop_lag_ms": {
            "p50": round(1000 * _pct(lags, 0.5), 2),
            "p99": round(1000 * _pct(lags, 0.99), 2),
            "max": round(1000 * max(lags, default=float("nan")), 2),
            "mean": round(1000 * statistics.fmean(lags), 2) if lags else None,
        },
        "wall_s": round(wall, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--levels", default="easy,hard")
    parser.add_argument("--seed", default="bench-screen")
    parser.add_argument("--json", dest="json_out", default=None)
    args = parser.parse_args()
    from machine import StealMeter

    results = []
    for level in args.levels.split(","):
        with StealMeter() as steal:
            result = asyncio.run(_run(level, args.rounds, args.seed))
        result["cpu_stolen_percent"] = steal.percent
        results.append(result)
        p, lag = result["play_to_screen_ms"], result["loop_lag_ms"]
        print(
            f"{level:5} bots, {result['rounds']} rounds, {result['plays_shown']} plays: "
            f"play to screen p50 {p['p50']} ms, p99 {p['p99']} ms (max {p['max']}); "
            f"loop lag while bots think p50 {lag['p50']} ms, p99 {lag['p99']} ms "
            f"(max {lag['max']}); stolen CPU {steal.percent}%"
        )
    if args.json_out:
        Path(args.json_out).write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()
