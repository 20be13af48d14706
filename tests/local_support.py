"""Real records for tests: a local table of bots played to its end, no network, and what
a spectator makes of a record.

Many tests need a genuine record to cut, tamper with, retell or watch; this is the one
way they make it (``zsy play``'s own LocalTable, every seat a bot), and the one way they
feed its lines to a spectator's :class:`~zsy_lan.table.follower.Follower`."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from zsy_lan.table.follower import Follower, Teller

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


def followed(lines: list[str], end: int | None = None) -> Follower:
    """A spectator's follower of a record: its header (``lines[0]``), then the lines after
    it up to ``end`` (a slice's end: ``None`` for all of them)."""
    follower = Follower(lines[0])
    for line in lines[1:end]:
        follower.add(line)
    return follower


def spectator_story(lines: list[str]) -> list[str]:
    """What ``zsy watch`` tells of a whole record: a batch after each line, as while
    following it live (:class:`~zsy_lan.table.follower.Teller`)."""
    follower = Follower(lines[0])
    teller = Teller(follower)
    told: list[str] = []
    for line in lines[1:]:
        follower.add(line)
        told.extend(teller.new_lines())
    return told
