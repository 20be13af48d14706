"""Short straights: Zheng Shangyou with straights of three or more cards.

A house rule some tables play: ``3 4 5`` is a straight. The shortest length is
the option ``min_length`` (3 or 4; 5 is the normal game). Straights still
only beat straights of the same length (ZSY-3.3, ZSY-4.1).
"""

from __future__ import annotations

from collections.abc import Sequence

from zsy_lan import hookimpl
from zsy_lan.engine.hookspecs import ComboLimits, Option, TableConfig

name = "short-straights"
version = "1.0.0"
description = "Straights of three or more cards (option min_length)"


@hookimpl
def zsy_options() -> Sequence[Option]:
    """One option: the shortest straight."""
    return [Option("min_length", "int", 3, "the shortest straight, in cards", min=3, max=5)]


@hookimpl
def zsy_conflicts(table: TableConfig) -> Sequence[str]:
    """Only Zheng Shangyou has these straights."""
    if table.game != "zsy":
        return [f"short straights change Zheng Shangyou, not '{table.game}'"]
    return []


@hookimpl
def zsy_combo_limits(table: TableConfig, limits: ComboLimits) -> ComboLimits:
    """Shorten the minimum straight; keep the rest of the limits as they were."""
    return ComboLimits(
        min_straight=table.opt(name, "min_length"),
        straight_top=limits.straight_top,
        min_bomb=limits.min_bomb,
    )
