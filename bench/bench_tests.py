"""How long the test suite takes, and where: wall time, CPU, per folder (issue #24).

Run from the repository root, nothing else heavy running::

    .venv/bin/python bench/bench_tests.py                   # the README's pytest, as CI does
    .venv/bin/python bench/bench_tests.py --hog             # beside a CPU-bound process
    .venv/bin/python bench/bench_tests.py -- -m "not slow"  # the fast lane
    .venv/bin/python bench/bench_tests.py -- -n0            # serially (the "before" figure)

Arguments after ``--`` go to pytest.

Reported: the wall time of the whole command, the CPU it used (pytest, its xdist workers
and every process the tests started, from ``os.times()``), and per top folder of
``tests/`` the summed wall and CPU time of its tests (``bench/suite_clock.py``): with N
workers the folder sums add up to about N times the wall time. Per xdist worker: when it
began its first test and ended its last (seconds from the command's start: a worker that
ends long before the others shows a tail that ordering could fill). Then the slowest tests, and
how many tests took a second or more that are not marked ``slow`` (the fast lane's budget).
A run whose pytest failed is reported as failed, with its exit status.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

from machine import StealMeter

ROOT = Path(__file__).resolve().parent.parent


def _folder(test: str) -> str:
    parts = test.split("::")[0].split("/")
    return parts[1] if len(parts) > 2 else "(top)"


def run(pytest_args: list[str], hog: bool) -> dict[str, object]:
    """One run of pytest; its figures."""
    with tempfile.TemporaryDirectory(prefix="zsy-bench-tests-") as rows_dir:
        env = dict(os.environ, ZSY_SUITE_CLOCK_DIR=rows_dir)
        env["PYTHONPATH"] = os.pathsep.join(
            p for p in (str(ROOT / "bench"), env.get("PYTHONPATH", "")) if p
        )
        argv = [str(ROOT / ".venv/bin/pytest"), "-p", "suite_clock", *pytest_args]
        burner, hog_cpu = None, 0.0
        if hog:  # one process that wants a whole core for as long as the suite runs
            burner = subprocess.Popen([sys.executable, "-c", "while True: pass"])
        before = os.times()
        start, epoch = time.monotonic(), time.time()
        try:
            with StealMeter() as steal:
                done = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True)
        finally:
            if burner is not None:  # reaped here, its CPU kept out of the suite's
                burner.kill()
                _, _, usage = os.wait4(burner.pid, 0)
                hog_cpu = usage.ru_utime + usage.ru_stime
        wall = time.monotonic() - start
        after = os.times()
        rows: list[dict] = []
        for path in Path(rows_dir).glob("*.json"):
            rows.extend(json.loads(path.read_text(encoding="utf-8")))
    cpu = (after.children_user + after.children_system) - (
        before.children_user + before.children_system
    )
    folders: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0, 0])
    for row in rows:
        f = folders[_folder(row["test"])]
        f[0] += row["wall"]
        f[1] += row["cpu"]
        f[2] += 1
    workers: dict[str, list[float]] = defaultdict(lambda: [float("inf"), 0.0, 0.0, 0])
    for row in rows:  # when each worker began its first test and ended its last, and its load
        w = workers[row.get("worker", "main")]
        w[0] = min(w[0], row["start"] - epoch)
        w[1] = max(w[1], row["start"] - epoch + row["wall"])
        w[2] += row["wall"]
        w[3] += 1
    return {
        "exit": done.returncode,
        "tail": done.stdout[-1500:] + done.stderr[-500:],
        "wall": wall,
        "cpu": cpu - hog_cpu,
        "hog_cpu": hog_cpu,
        "steal": steal.percent,
        "tests": len(rows),
        "folders": dict(folders),
        "workers": dict(workers),
        "slowest": sorted(rows, key=lambda r: -r["wall"])[:15],
        "rows": rows,
        "long_fast": sorted(
            (r for r in rows if r["wall"] >= 1.0 and not r["slow"]), key=lambda r: -r["wall"]
        ),
    }


def report(figures: dict[str, object], hog: bool) -> None:
    verdict = "passed" if figures["exit"] == 0 else f"FAILED (pytest exit {figures['exit']})"
    beside = ""
    if hog:
        beside = f" beside a CPU-bound process (which took {figures['hog_cpu']:.0f} s of CPU)"
    print(f"{figures['tests']} tests {verdict} in {figures['wall']:.0f} s wall{beside}")
    print(
        f"CPU {figures['cpu']:.0f} s ({figures['cpu'] / figures['wall']:.0%} of one core),"
        f" stolen by the hypervisor {figures['steal']}%"
    )
    if figures["exit"] != 0:
        print(figures["tail"])
    print(f"\n{'folder':16}{'tests':>6}{'wall s':>9}{'CPU s':>8}")
    folders = figures["folders"]
    for name, (wall, cpu, n) in sorted(folders.items(), key=lambda kv: -kv[1][0]):
        print(f"{name:16}{n:6d}{wall:9.1f}{cpu:8.1f}")
    print(f"\n{'worker':8}{'tests':>6}{'first s':>9}{'last s':>8}{'busy s':>8}")
    for name, (first, last, busy, n) in sorted(figures["workers"].items()):
        print(f"{name:8}{n:6d}{first:9.1f}{last:8.1f}{busy:8.1f}")
    print("\nslowest tests (wall s, CPU s):")
    for row in figures["slowest"]:
        print(f"{row['wall']:6.1f} {row['cpu']:6.1f}  {row['test']}")
    long_fast = figures["long_fast"]
    print(f"\n{len(long_fast)} tests of 1 s or more not marked slow:")
    for row in long_fast:
        print(f"{row['wall']:6.1f} {row['cpu']:6.1f}  {row['test']}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hog", action="store_true", help="run a CPU-bound process beside it")
    parser.add_argument("--json", type=Path, help="also write the figures (every test's) here")
    parser.add_argument("pytest_args", nargs="*", help="after --: arguments for pytest")
    args = parser.parse_args()
    pytest_args = args.pytest_args or ["--durations=15"]
    figures = run(pytest_args, args.hog)
    report(figures, args.hog)
    if args.json:
        args.json.write_text(json.dumps(figures, indent=1), encoding="utf-8")
    sys.exit(0 if figures["exit"] == 0 else 1)


if __name__ == "__main__":
    main()
