"""Doubled tribute (ZSY-9.2): the Downstream gives three cards, the Upstream returns three."""

from __future__ import annotations

from collections.abc import Sequence

from zsy_lan.engine.hookspecs import TableConfig, Tribute, hookimpl

name = "doubled-tribute"
version = "1.0.0"
description = "ZSY-9.2: the main tribute is three cards each way"


@hookimpl
def zsy_conflicts(table: TableConfig) -> Sequence[str]:
    """Meaningless outside Zheng Shangyou and with the single-card tribute."""
    out = []
    if table.game != "zsy":
        out.append(f"doubled-tribute changes Zheng Shangyou's tribute; '{table.game}' has none")
    if table.enabled("house-rules") and table.opt("house-rules", "single_tribute"):
        out.append("conflicts with house-rules option single_tribute: choose one tribute size")
    return out


@hookimpl
def zsy_tribute(tribute: Tribute) -> Tribute:
    """ZSY-9.2: three cards instead of two (the second tribute stays one card)."""
    return Tribute(enabled=tribute.enabled, cards=3, second=tribute.second)
