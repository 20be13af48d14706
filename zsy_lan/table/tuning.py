"""Seconds a table process may be told through its environment.

Tests of real processes (and impatient tables) shorten a few waits without a command-line
option for each: ``ZSY_HOLD_AFTER`` (how long a dropped seat waits for its bot),
``ZSY_TIMING`` (any :class:`~zsy_lan.protocol.timing.Timing` field, e.g.
``heartbeat=0.25,want_retry=0.1``), ``ZSY_RELAY_RESEND`` (a joiner's repeat of a lobby
request through a relay) and ``ZSY_AUTO_PAUSE`` (auto-play's look at the table before each
move). One reader, so each says the same thing about a value it cannot read: it is logged
and the default holds.
"""

from __future__ import annotations

import logging
import os

__all__ = ["env_seconds", "env_seconds_fields"]

log = logging.getLogger("zsy.table")


def env_seconds(name: str, default: float, floor: float = 0.0) -> float:
    """``$name`` as seconds (at least ``floor``), or ``default`` when unset or unreadable."""
    raw = os.environ.get(name)
    if not raw:
        return default
    try:
        return max(floor, float(raw))
    except ValueError:
        log.warning("ignoring %s=%r: not a number of seconds", name, raw)
        return default


def env_seconds_fields(name: str, fields: set[str]) -> dict[str, float]:
    """``$name`` read as ``field=SECONDS,...`` over ``fields``; nothing when unset or unreadable."""
    raw = os.environ.get(name)
    if not raw:
        return {}
    out: dict[str, float] | None
    try:
        pairs = [item.split("=", 1) for item in raw.split(",") if item.strip()]
        out = {key.strip(): max(0.0, float(value)) for key, value in pairs}
    except ValueError:  # not NAME=SECONDS
        out = None
    if out is None or not out.keys() <= fields:
        log.warning("ignoring %s=%r: not NAME=SECONDS,... of %s", name, raw, sorted(fields))
        return {}
    return out
