"""Real records for tests: a local table of bots played to its end, no network.

Many tests need a genuine record to cut, tamper with, retell or watch; this is the one
way they make it (``zsy play``'s own LocalTable, every seat a bot)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

Before = Callable[[Any], Awaitable[None]]


async def play_out(table: Any, before: Before | None = None, timeout: float = 90.0) -> None:
    """Start ``table``, run ``before(table)`` (chat, a swapped file...), let its bots play the
    match to the end within ``timeout`` seconds, close it; the match must be finished."""
    table.start()
    try:
        if before is not None:
            await before(table)
        await asyncio.wait_for(table.run_bots_only(), timeout)
    finally:
        await table.close()
    assert table.game.finished()


def play_out_now(table: Any, before: Before | None = None, timeout: float = 90.0) -> None:
    """:func:`play_out` from synchronous code (its own event loop)."""
    asyncio.run(play_out(table, before, timeout))
