"""Guandan (掼蛋), RULES.md GD, as a game plugin written the way a third party would.

Only the documented hooks (docs/plugins.md) are used. What lives where:

- the combinations and their generation with the two wild ♥ level cards:
  :mod:`zsy_lan.plugins.guandan_combos` (GD-2, GD-3);
- the levels (GD-1.2, GD-5) are match-level state (``zsy_deal_over``), copied
  into each deal's round by ``zsy_on_seed`` (``deal_level``) so that
  ``zsy_rules_in_effect`` can rank and find the wilds by the level in force;
- 接风 is ``zsy_next_leader`` (GD-4.3), the end of a deal ``zsy_round_over``
  (GD-4.4), the end of the match ``zsy_match_over`` (GD-5.2);
- the tribute (GD-6): :mod:`zsy_lan.plugins.guandan_tribute`, its own phase.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from zsy_lan.engine.cards import full_deck
from zsy_lan.engine.combos import ComboKind
from zsy_lan.engine.hookspecs import Deck, FirstLead, Lead, Option, TableConfig, hookimpl
from zsy_lan.engine.shuffle import choose
from zsy_lan.engine.state import RoundState, with_extra
from zsy_lan.plugins import guandan_tribute as tribute
from zsy_lan.plugins.guandan_combos import (
    ACE,
    DEAL_LEVEL,
    KINDS,
    TEAM_LEVELS,
    card_value,
    level_rules,
    wild_cards,
)

name = "guandan"
version = "1.0.0"
description = "Guandan (掼蛋): two decks, fixed teams, levels 2..A, wild ♥ level cards, GD-1..6"
game = True

TEAMS: tuple[tuple[int, int], tuple[int, int]] = ((0, 2), (1, 3))
LEVELS = "guandan.levels"  # match state: (level of team 0+2, level of team 1+3)
WON = "guandan.won"  # match state: the team that won the match, or None
FAILS = "guandan.fails"  # match state: failed attempts at A per team (the ace_limit option)


def team_of(seat: int) -> int:
    """0 for seats 0 and 2, 1 for seats 1 and 3 (GD-1.1)."""
    return seat % 2


@hookimpl
def zsy_options() -> Sequence[Option]:
    """GD-5.2 D: whether a team that fails three times at A drops back to 2."""
    return [
        Option("ace_limit", "bool", False,
               "GD-5.2 D: after 3 failed attempts at A the team drops to 2"),
        Option("tribute", "bool", True, "GD-6: tribute from the second deal"),
    ]


@hookimpl
def zsy_default_players() -> int:
    """GD-1.1: four players."""
    return 4


@hookimpl
def zsy_supported_players() -> Sequence[int]:
    """GD-1.1: four players, in two teams."""
    return (4,)


@hookimpl
def zsy_deck(table: TableConfig) -> Deck | None:
    """GD-1.1: two 54-card decks, 27 cards each."""
    return Deck(2, full_deck(2)) if table.game == name else None


@hookimpl
def zsy_first_lead(table: TableConfig) -> FirstLead | None:
    """No start card: the first deal's leader is drawn by lot (``zsy_deal_lead``)."""
    return FirstLead(required=False) if table.game == name else None


@hookimpl
def zsy_teams(table: TableConfig) -> Sequence[Sequence[int]] | None:
    """GD-1.1: partners sit opposite."""
    return TEAMS if table.game == name else None


@hookimpl
def zsy_combo_kinds(table: TableConfig, kinds: tuple[ComboKind, ...]) -> Sequence[ComboKind] | None:
    """GD-3: Guandan's kinds, all reading the actual cards (the wilds are suited)."""
    return KINDS if table.game == name and not kinds else None


@hookimpl
def zsy_rules_in_effect(table: TableConfig) -> Callable[[Any, RoundState], Any] | None:
    """GD-2: the deal's level decides the order and the wilds."""
    if table.game != name:
        return None

    def in_effect(rules: Any, state: RoundState) -> Any:
        return level_rules(rules, state.get(DEAL_LEVEL, 2))

    return in_effect


@hookimpl
def zsy_card_order(state: RoundState) -> Callable[[int], tuple[int, int, int]]:
    """Hands as Guandan players sort them: 2 lowest, the level rank above A with the two
    wild ♥ right after it, then the jokers."""
    level = int(state.get(DEAL_LEVEL, 2))
    wild = wild_cards(level)

    def key(card: int) -> tuple[int, int, int]:
        if card in wild:
            return (card_value(card, level), 9, card)
        return (card_value(card, level), card % 54 & 3, card)

    return key


@hookimpl
def zsy_deal_lead(rules: Any, match: Any, seed: bytes) -> Lead | None:
    """GD-4.1: the first deal's leader by lot; later the first finisher (the tribute,
    when there is one, hands the lead to its giver)."""
    if not match.results:
        return Lead(seat=choose(seed, "guandan-first-lead", rules.players))
    return Lead(seat=match.results[-1].order[0])


def current_level(match: Any) -> int:
    """GD-1.2: the level of the team that won the previous deal (2 on the first)."""
    if not match.results:
        return 2
    levels = match.get(LEVELS, (2, 2))
    return int(levels[team_of(match.results[-1].order[0])])


@hookimpl
def zsy_on_seed(rules: Any, state: RoundState, match: Any) -> RoundState:
    """The deal's level into the round (public), then the tribute owed (GD-6)."""
    levels = tuple(match.get(LEVELS, (2, 2)))
    state = with_extra(state, **{DEAL_LEVEL: current_level(match), TEAM_LEVELS: levels})
    if match.results and option(rules, "tribute"):
        state = tribute.start(rules, state, match.results[-1].order)
    return state


@hookimpl
def zsy_phases(table: TableConfig) -> Mapping[str, Any] | None:
    """GD-6: the tribute phase."""
    return {tribute.PHASE: tribute.TributePhase()} if table.game == name else None


@hookimpl
def zsy_next_leader(rules: Any, state: RoundState, winner: int) -> int | None:
    """GD-4.3 接风: the partner of a player who went out on an unbeaten play leads."""
    partner = winner ^ 2
    return partner if partner not in state.finished else None


@hookimpl
def zsy_round_over(state: RoundState) -> bool:
    """GD-4.4: the deal ends when both players of one team are out."""
    out = state.finished
    return any(a in out and b in out for a, b in TEAMS)


def gain(order: Sequence[int]) -> tuple[int, int]:
    """GD-5.1: ``(winning team, levels gained)`` for a finishing order."""
    first = order[0]
    place = next(i for i, s in enumerate(order) if s == first ^ 2)
    return team_of(first), 4 - place


@hookimpl
def zsy_score_round(state: RoundState) -> tuple[int, ...]:
    """The levels each seat's team went up in this deal (GD-5.1)."""
    team, up = gain(state.finished)
    return tuple(up if team_of(s) == team else 0 for s in range(state.players))


def option(rules: Any, key: str) -> Any:
    """This plugin's resolved option ``key`` at a table."""
    return rules.option(name, key)


@hookimpl
def zsy_deal_over(rules: Any, match: Any) -> Mapping[str, Any]:
    """GD-5: the winning team goes up 3/2/1 levels, never past A (GD-5.1, 5.3); a deal
    played at A and won by a team at A with its partner not last wins the match (GD-5.2);
    with ``ace_limit`` a team whose deal at A fails three times drops back to 2."""
    levels = list(match.get(LEVELS, (2, 2)))
    fails = list(match.get(FAILS, (0, 0)))
    team, up = gain(match.results[-1].order)
    played_at = int(match.round.get(DEAL_LEVEL, 2)) if match.round is not None else 2
    won = team if levels[team] == ACE and played_at == ACE and up >= 2 else None
    levels[team] = min(ACE, levels[team] + up)
    if played_at == ACE and won is None and len(match.results) >= 2:
        declarer = team_of(match.results[-2].order[0])  # whose level A was played
        fails[declarer] += 1
        if option(rules, "ace_limit") and fails[declarer] >= 3:
            levels[declarer], fails[declarer] = 2, 0
    return {LEVELS: levels, WON: won, FAILS: fails}


@hookimpl
def zsy_match_over(match: Any) -> Sequence[int]:
    """GD-5.2: the match ends when a team wins a deal at its level A."""
    won = match.get(WON)
    return () if won is None else TEAMS[won]


@hookimpl
def zsy_match_score(match: Any) -> Sequence[int]:
    """Standing by team level (only read if a match is cut short)."""
    levels = match.get(LEVELS, (2, 2))
    return tuple(int(levels[team_of(s)]) for s in range(match.players))


#: The engine's refusals under GD's ids.
RULE_IDS: dict[str, str] = {
    "ZSY-3.5": "GD-3.1",
    "ZSY-4.1": "GD-3.4",
    "ZSY-4.2": "GD-3.4",
    "ZSY-5.1": "GD-4.2",
    "ZSY-6.2": "GD-4.4",
    "ZSY-7.1": "GD-6.1",
    "ZSY-7.4": "GD-6.4",
}


@hookimpl
def zsy_rule_ids(table: TableConfig) -> Mapping[str, str] | None:
    """Refusals cite GD's rules."""
    return RULE_IDS if table.game == name else None


RULES_TEXT = "\n".join((
    "GD-1.1 4 players, partners opposite (seats 0+2, 1+3); two decks, 27 cards each.",
    "GD-1.2 Each team has a level from 2 to A; a deal is played at the level of the team "
    "that won the previous one (2 on the first).",
    "GD-2.1 Ranks: 2 3 4 5 6 7 8 9 10 J Q K A, then the level rank, then BJ, RJ.",
    "GD-2.2 The two ♥ cards of the level rank are wild: each stands for any card but a joker.",
    "GD-3.1 Single, pair, triple, full house (triple + pair), straight of exactly 5, "
    "tube of exactly 3 pairs, plate of exactly 2 triples.",
    "GD-3.2 In runs A is low (A 2 3 4 5) or high (10 J Q K A); no wrap.",
    "GD-3.3 Bombs: 4 < 5 of a rank < straight flush < 6 < 7 < 8 < 9 < 10 of a rank < the "
    "four jokers.",
    "GD-3.4 A play beats only the same kind, higher; a bomb beats any non-bomb and lower bombs.",
    "GD-4.1 First deal: a seat drawn by lot leads; later the tribute giver, or the first "
    "finisher.",
    "GD-4.2 Passing is always allowed; the last to play leads the next trick.",
    "GD-4.3 接风: who goes out on an unbeaten play hands the lead to their partner.",
    "GD-4.4 The deal ends when both players of one team are out.",
    "GD-5.1 The first finisher's team goes up 3, 2 or 1 levels as the partner finished "
    "2nd, 3rd or last.",
    "GD-5.2 A team at A wins the match by winning a deal at A with the partner not last.",
    "GD-6.1 From the second deal the losers give their highest card (not the wild ones): "
    "both when they finished 3rd and last, else the lower of them.",
    "GD-6.2 Each receiver returns a card of 10 or lower to its giver.",
    "GD-6.3 抗贡: no tribute when the givers hold both red jokers; the first finisher leads.",
))


#: Guandan's words (English; zsy_lan.text.words repeats them for translation).
VOCABULARY: dict[str, str] = {
    "kind:single": "single",
    "kinds:single": "singles",
    "play:single": "single",
    "kind:pair": "pair",
    "kinds:pair": "pairs",
    "play:pair": "pair",
    "kind:triple": "triple",
    "kinds:triple": "triples",
    "play:triple": "triple",
    "kind:fullhouse": "full house",
    "kinds:fullhouse": "full houses",
    "play:fullhouse": "full house",
    "kind:straight": "straight",
    "kinds:straight": "straights",
    "play:straight": "straight",
    "kind:tube": "tube",
    "kinds:tube": "tubes",
    "play:tube": "tube",
    "kind:plate": "plate",
    "kinds:plate": "plates",
    "play:plate": "plate",
    "kind:bomb": "bomb",
    "kinds:bomb": "bombs",
    "play:bomb": "bomb of {n} cards",
    "kind:straightflush": "straight flush",
    "kinds:straightflush": "straight flushes",
    "play:straightflush": "straight flush",
    "kind:jokerbomb": "four jokers",
    "kinds:jokerbomb": "four jokers",
    "play:jokerbomb": "four jokers",
    "role:team": "team",
    "roles:team": "teams",
    "role:partner": "partner",
    "place:1": "first out",
    "place:-1": "last out",
    "place:4:2": "second out",
    "place:4:3": "third out",
    "action:pass": "pass",
    "action:give": "give {cards}",
    "action:return": "return {cards}",
    "stake": "levels",
    "term:deal_level": "This deal is played at level {rank}: the two {rank}♥ are wild",
    "term:deal_level_short": "level {rank}, {rank}♥ wild",
    "term:match_end": "Guandan is played until a team wins a deal at level A (GD-5.2)",
    "tribute:give:me": (
        "Tribute (GD-6.1): you must give your highest card (jokers count, the wild ♥ level "
        "card does not) face up to {receiver}."
    ),
    "tribute:give:to_me": (
        "Tribute (GD-6.1): {giver} must give you their highest card (jokers count, the wild "
        "♥ level card does not), face up."
    ),
    "tribute:give:others": (
        "Tribute (GD-6.1): {giver} must give their highest card (jokers count, the wild ♥ "
        "level card does not) face up to {receiver}."
    ),
    "tribute:return:me": (
        "Tribute (GD-6.2): you return a card of 10 or lower, face down, to {receiver}."
    ),
    "tribute:return:to_me": (
        "Tribute (GD-6.2): {giver} returns a card of 10 or lower to you, face down."
    ),
    "tribute:return:others": (
        "Tribute (GD-6.2): {giver} returns a card of 10 or lower, face down, to {receiver}."
    ),
    "rules:guandan": RULES_TEXT,
}


@hookimpl
def zsy_vocabulary(table: TableConfig) -> Mapping[str, str] | None:
    """GD in players' words."""
    return VOCABULARY if table.game == name else None
