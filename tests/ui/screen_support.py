"""A local table for the screen's tests: seat 0 is the player, every other seat a bot of
the tests' own (:func:`first_move`), so what the screen shows does not change as the
real bot levels get stronger."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from zsy_lan.engine.round import legal_actions
from zsy_lan.engine.ruleset import build_rules
from zsy_lan.table.local_table import LocalTable


def first_move(rules: Any, view: Any, seat: int) -> Any:
    """The first legal move that is not a pass (so seat 0 has a trick to beat and may
    pass, ZSY-4.3); a pass only when nothing else is legal."""
    legal = legal_actions(rules, view, seat)
    return next((a for a in legal if a.kind != "pass" and a.value != 0 or a.cards), legal[0])


def screen_table(
    tmp_path: Path,
    players: int = 4,
    variants: Iterable[str] = (),
    rounds: int = 1,
    seed: str = "s1",
    options: dict[str, Any] | None = None,
) -> LocalTable:
    """``zsy play`` with seat 0 ``you`` and seats 1.. ``bot-N`` playing :func:`first_move`."""
    rules = build_rules(players, list(variants), options)
    deciders = {s: first_move for s in range(1, players)}
    nicks = {s: f"bot-{s}" for s in range(1, players)} | {0: "you"}
    return LocalTable(rules, rounds, 0, deciders, tmp_path / "rec.jsonl", seed=seed, nicks=nicks)
