"""Fixtures for the usability tests: real ``zsy`` processes, always killed at the end."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from process_support import ZsyProcess


@pytest.fixture
def zsy_process(tmp_path: Path) -> Iterator[Callable[..., ZsyProcess]]:
    """``zsy_process(*args, name="zsy")`` starts ``zsy ARGS`` (see :class:`ZsyProcess`)."""
    started: list[ZsyProcess] = []

    def start(*args: str, name: str = "zsy") -> ZsyProcess:
        proc = ZsyProcess(tmp_path, f"{name}-{len(started)}", list(args))
        started.append(proc)
        return proc

    try:
        yield start
    finally:
        for proc in started:
            proc.kill()
        leftovers = [p.name for p in started if p.popen.poll() is None]
        assert not leftovers, f"processes left running: {leftovers}"
