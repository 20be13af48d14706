"""Waiting for an event in an asyncio test: poll a condition under a bounded deadline.

The one way the in-process network tests wait (docs/testing.md, "Wait for the event,
never for a fixed time"); tests of processes wait with ``ZsyProcess`` and
``Cluster.wait_url``, tmux tests with ``tmux_support.wait_until``.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any


async def until(cond: Callable[[], Any], timeout: float = 5.0) -> bool:
    """Whether ``cond()`` comes true within ``timeout`` seconds (polled every 10 ms)."""
    deadline = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > deadline:
            return False
        await asyncio.sleep(0.01)
    return True


async def eventually(cond: Callable[[], Any], what: str, timeout: float = 20.0) -> None:
    """Wait until ``cond()`` is true; past ``timeout`` seconds fail, saying ``what`` was awaited."""
    if not await until(cond, timeout):
        raise AssertionError(f"timed out waiting for {what}")
