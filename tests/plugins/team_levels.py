"""A test plugin written as a third party would: Guandan's levels, across deals.

``team-levels`` (a modifier, 4 players): two fixed teams (seats 0 and 2, 1
and 3), each with a level from 2 to A (14) kept in the match-level state
(``zsy_deal_over``); the team of the first out goes up 3, 2 or 1 levels as
its partner finished 2nd, 3rd or last (GD-5.1), and the match ends when a
team wins a deal at level A with its partner not last (``zsy_match_over``,
GD-5.2), whatever the agreed number of rounds.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from zsy_lan import hookimpl

name = "team-levels"
version = "1.0"
description = "Team levels 2..A across deals; a deal won at A wins the match"

LEVELS = "team-levels.levels"  # (level of team 0, level of team 1)
WON = "team-levels.won"  # the team that won the match, or None
ACE = 14
TEAMS = ((0, 2), (1, 3))


@hookimpl
def zsy_supported_players() -> Sequence[int]:
    return (4,)


@hookimpl
def zsy_teams() -> Sequence[Sequence[int]]:
    return TEAMS


@hookimpl
def zsy_deal_over(rules: Any, match: Any) -> Mapping[str, Any]:
    levels = list(match.get(LEVELS, (2, 2)))
    order = match.results[-1].order
    team = 0 if order[0] in TEAMS[0] else 1
    partner_place = next(i for i, s in enumerate(order) if s in TEAMS[team] and s != order[0])
    won = team if levels[team] == ACE and partner_place < 3 else None
    levels[team] = min(ACE, levels[team] + 4 - partner_place)
    return {LEVELS: levels, WON: won}


@hookimpl
def zsy_match_over(match: Any) -> Sequence[int]:
    won = match.get(WON)
    return () if won is None else TEAMS[won]
