"""Process-wide settings for a process that sits at a table.

A peer runs its event loop (frames in and out, the replica) next to worker
threads (bots thinking, fsyncs, the plain-terminal reader). CPython hands the
GIL over only every ``sys.getswitchinterval()`` seconds (5 ms by default), so
a bot thinking in a worker could keep the loop from a frame for up to 5 ms:
measured with ``bench/bench_table.py --pace 0``, the p99 of a play reaching
every replica fell from 61 ms to 23 ms with a 0.5 ms interval (4 peers).
"""

from __future__ import annotations

import sys

__all__ = ["SWITCH_INTERVAL", "tune_for_table"]

SWITCH_INTERVAL = 0.0005  # seconds


def tune_for_table() -> None:
    """Hand the GIL over often enough that a thinking bot never delays the loop for long."""
    if sys.getswitchinterval() > SWITCH_INTERVAL:
        sys.setswitchinterval(SWITCH_INTERVAL)
