"""A pytest plugin for ``bench/bench_tests.py``: each test's wall time and CPU time.

Loaded with ``-p suite_clock`` (``bench/`` on ``PYTHONPATH``); under xdist every worker
loads it too. CPU is this process's own time plus that of the child processes it reaped
during the test (the ``zsy`` processes a test starts and waits for), so a test that only
waits on sockets shows little CPU and much wall time. Each process writes its rows to
``$ZSY_SUITE_CLOCK_DIR/<pid>.json`` when the session ends.
"""

from __future__ import annotations

import json
import os
import resource
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

_ROWS: list[dict[str, object]] = []


def _cpu() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    cpu, wall, start = _cpu(), time.monotonic(), time.time()
    yield
    _ROWS.append(
        {
            "test": item.nodeid.split("@")[0],  # loadgroup appends @group
            "wall": time.monotonic() - wall,
            "cpu": _cpu() - cpu,
            "slow": item.get_closest_marker("slow") is not None,
            "start": start,  # the epoch, so that workers' timelines line up
            "worker": os.environ.get("PYTEST_XDIST_WORKER", "main"),
        }
    )


def pytest_sessionfinish(session: pytest.Session) -> None:
    folder = os.environ.get("ZSY_SUITE_CLOCK_DIR")
    if folder and _ROWS:
        Path(folder, f"{os.getpid()}.json").write_text(json.dumps(_ROWS), encoding="utf-8")
