"""Partnerships (ZSY-9.1): fixed teams in alternating seats, 4 or 6 players.

Seats 0, 2(, 4) play against 1, 3(, 5). The team of the Upstream wins the
round: with ranking scoring every member of that team scores the round; with
points, members keep their own points and the team's standing is the sum.
When a trick's winner went out with the winning play, their partner leads
(ZSY-5.4 D), if still in. Partners see each other's card counts (all counts
are public) but never each other's cards.

Tribute with teams (ZSY-7, our reading, see docs/plugins.md): tribute only
ever flows from the losing team to the winning one. The main tribute comes
from the last-finishing opponent of the Upstream; the second tribute (4
players, or 5-6 with the base option) only when the 2nd-to-last is an
opponent and the 2nd out a team-mate of the Upstream.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from zsy_lan.engine.hookspecs import TableConfig, hookimpl
from zsy_lan.engine.rules import Rules
from zsy_lan.engine.state import Duty, RoundState

name = "partnerships"
version = "1.0.0"
description = "ZSY-9.1 partnerships: alternating-seat teams with 4 or 6 players"


def teams_for(players: int) -> tuple[tuple[int, ...], ...]:
    """Alternating seats: (0, 2) v (1, 3); (0, 2, 4) v (1, 3, 5)."""
    return (tuple(range(0, players, 2)), tuple(range(1, players, 2)))


@hookimpl
def zsy_vocabulary() -> Mapping[str, str]:
    """The sides of a partnership game, in words."""
    return {
        "role:team": "team",
        "roles:team": "teams",
        "role:partner": "partner",
        "roles:partner": "partners",
    }


@hookimpl
def zsy_supported_players() -> Sequence[int]:
    """ZSY-9.1: 4 or 6 players."""
    return (4, 6)


@hookimpl
def zsy_conflicts(table: TableConfig) -> Sequence[str]:
    """Partnerships are a Zheng Shangyou variant."""
    if table.game != "zsy":
        return [f"partnerships are a Zheng Shangyou variant; '{table.game}' has its own sides"]
    return []


@hookimpl
def zsy_teams(table: TableConfig) -> Sequence[Sequence[int]]:
    """ZSY-9.1: alternating seats."""
    return teams_for(table.players)


@hookimpl
def zsy_next_leader(rules: Rules, state: RoundState, winner: int) -> int | None:
    """ZSY-5.4 D: the partner of a winner who went out leads, if still in."""
    for seat in rules.partner_of(winner):
        if seat not in state.finished:
            return seat
    return None


@hookimpl
def zsy_tribute_duties(rules: Rules, order: tuple[int, ...]) -> Sequence[Duty]:
    """ZSY-7 with teams: tribute flows from the losing team to the winning one only."""
    if not rules.tribute:
        return ()
    up = order[0]
    team = rules.team_of(up) or (up,)
    pairs = []
    giver = next((s for s in reversed(order) if s not in team), None)
    if giver is not None:
        pairs.append((giver, up, rules.tribute_cards))
    if rules.second_tribute and len(order) >= 4:
        second_up, second_down = order[1], order[-2]
        if second_up in team and second_down not in team and second_down != giver:
            pairs.append((second_down, second_up, 1))
    gives = [Duty("give", g, r, k) for g, r, k in pairs]
    returns = [Duty("return", r, g, k) for g, r, k in pairs]
    return tuple(gives + returns)


@hookimpl
def zsy_score_round(rules: Rules, state: RoundState) -> tuple[int, ...] | None:
    """Ranking scoring: every member of the Upstream's team scores the round."""
    if rules.scoring != "ranking":
        return None
    team = rules.team_of(state.finished[0]) or ()
    return tuple(1 if s in team else 0 for s in range(state.players))


@hookimpl
def zsy_match_score(rules: Rules, match: Any) -> Sequence[int]:
    """Team standing: the sum over the team (rounds won, or points; penalty: lowest)."""
    if rules.scoring == "ranking":
        per_seat = [int(match.totals[s]) for s in range(match.players)]
    elif rules.scoring == "penalty":
        per_seat = [-int(t) for t in match.totals]
    else:
        per_seat = [int(t) for t in match.totals]
    out = []
    for s in range(match.players):
        team = rules.team_of(s) or (s,)
        out.append(sum(per_seat[m] for m in team))
    return out
