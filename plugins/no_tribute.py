"""No tribute (ZSY-9.3): rounds after the first start without any card exchange."""

from __future__ import annotations

from collections.abc import Sequence

from zsy_lan.engine.hookspecs import TableConfig, Tribute, hookimpl

name = "no-tribute"
version = "1.0.0"
description = "ZSY-9.3: no tribute exchange between rounds"


@hookimpl
def zsy_conflicts(table: TableConfig) -> Sequence[str]:
    """Meaningless outside Zheng Shangyou; contradicts doubled tribute."""
    out = []
    if table.game != "zsy":
        out.append(f"no-tribute changes Zheng Shangyou's tribute; '{table.game}' has none")
    if table.enabled("doubled-tribute"):
        out.append("conflicts with doubled-tribute: there is no tribute to double")
    return out


@hookimpl
def zsy_tribute(tribute: Tribute) -> Tribute:
    """ZSY-9.3: no exchange at all."""
    return Tribute(enabled=False, cards=tribute.cards, second=False)
