"""What the machine itself did during a benchmark: CPU time stolen by the hypervisor.

On a shared virtual machine the host can take CPU away from this guest ("steal"
in ``/proc/stat``); the same code then measures slower. The benchmarks report
the share stolen during each measurement so figures from different runs can be
compared (Linux only; None elsewhere).
"""

from __future__ import annotations

from pathlib import Path


def _cpu_jiffies() -> tuple[int, int] | None:
    """(all CPU time, stolen time) since boot, in clock ticks, summed over CPUs."""
    try:
        fields = Path("/proc/stat").read_text().splitlines()[0].split()
    except OSError:
        return None
    if not fields or fields[0] != "cpu" or len(fields) < 9:
        return None
    ticks = [int(x) for x in fields[1:9]]  # user nice system idle iowait irq softirq steal
    return sum(ticks), ticks[7]


class StealMeter:
    """``with StealMeter() as m: ...`` then ``m.percent``: CPU time stolen meanwhile."""

    def __init__(self) -> None:
        self.percent: float | None = None
        self._start: tuple[int, int] | None = None

    def __enter__(self) -> StealMeter:
        self._start = _cpu_jiffies()
        return self

    def __exit__(self, *exc: object) -> None:
        end = _cpu_jiffies()
        if self._start is None or end is None or end[0] <= self._start[0]:
            return
        self.percent = round(100.0 * (end[1] - self._start[1]) / (end[0] - self._start[0]), 1)
