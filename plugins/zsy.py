"""Zheng Shangyou (争上游), the base game (ZSY-1 to ZSY-8), as the default game plugin.

Every table runs exactly one game plugin; when no ``--variant`` names a game,
this one is enabled. Its options are the base game's table options: the
scoring scheme (ZSY-8), whether a 2 may end a straight (ZSY-3.3), a fixed
start card (ZSY-2.1) and the second tribute with 5-6 players (ZSY-7.2).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from zsy_lan.engine.cards import TWO, make_card
from zsy_lan.engine.combos import ZSY_KINDS, ComboKind
from zsy_lan.engine.hookspecs import (
    ComboLimits,
    Deck,
    FirstLead,
    Option,
    TableConfig,
    Tribute,
    hookimpl,
)
from zsy_lan.engine.rules import SCORING_SCHEMES, deck_for

name = "zsy"
version = "1.0.0"
description = "Zheng Shangyou (争上游), the base game: 3-6 players, tribute, ZSY-1..8"
game = True

START_CARDS = {"lowest": None, "3C": make_card(0, 1), "3H": make_card(0, 2)}


@hookimpl
def zsy_options() -> Sequence[Option]:
    """The base game's table options."""
    return [
        Option("scoring", "choice", "ranking",
               "ZSY-8: ranking (rounds as Upstream), penalty (seeds 000/001) or cardcount "
               "(seed 004)", choices=SCORING_SCHEMES),
        Option("two_in_straights", "bool", True, "ZSY-3.3 D: a 2 may end a straight (J Q K A 2)"),
        Option("start_card", "choice", "lowest",
               "ZSY-2.1: the card whose holder leads round 1: the lowest dealt (3♦, 3♥ with "
               "3 players), 3C or 3H", choices=tuple(START_CARDS)),
        Option("second_tribute_big", "bool", False,
               "ZSY-7.2 option: with 5-6 players the 2nd and 2nd-to-last also exchange one card"),
    ]


@hookimpl
def zsy_default_players() -> int:
    """Four players unless the table says otherwise."""
    return 4


@hookimpl
def zsy_supported_players() -> Sequence[int]:
    """ZSY-1.1: 3 to 6 players."""
    return (3, 4, 5, 6)


@hookimpl
def zsy_conflicts(table: TableConfig) -> Sequence[str]:
    """3♣ is not in the 3-player deck (ZSY-1.2)."""
    if table.game == name and table.players == 3 and table.opt(name, "start_card") == "3C":
        return ["option start_card=3C: 3♣ is removed from the 3-player deck (ZSY-1.2)"]
    return []


@hookimpl
def zsy_deck(table: TableConfig) -> Deck | None:
    """ZSY-1.2: 52 cards with 3 players, 54 with 4, two decks with 5-6."""
    if table.game != name:
        return None
    decks, cards = deck_for(table.players)
    return Deck(decks, cards)


@hookimpl
def zsy_first_lead(table: TableConfig) -> FirstLead | None:
    """ZSY-2.1: the start-card holder leads round 1 with it."""
    if table.game != name:
        return None
    return FirstLead(required=True, start_card=START_CARDS[table.opt(name, "start_card")])


@hookimpl
def zsy_combo_kinds(table: TableConfig, kinds: tuple[ComboKind, ...]) -> Sequence[ComboKind] | None:
    """ZSY-3: single, pair, triple, full house, straight, bomb, joker bomb."""
    return ZSY_KINDS if table.game == name and not kinds else None


@hookimpl
def zsy_combo_limits(table: TableConfig, limits: ComboLimits) -> ComboLimits | None:
    """ZSY-3.3: straights of 5 or more, up to the 2 unless the option says A."""
    if table.game != name:
        return None
    top = TWO if table.opt(name, "two_in_straights") else TWO - 1
    return ComboLimits(min_straight=5, straight_top=top, min_bomb=limits.min_bomb)


@hookimpl
def zsy_tribute(table: TableConfig, tribute: Tribute) -> Tribute | None:
    """ZSY-7: two cards; the second tribute with 4 players (and 5-6 by option)."""
    if table.game != name:
        return None
    big = table.opt(name, "second_tribute_big") and table.players >= 5
    return Tribute(enabled=True, cards=2, second=table.players == 4 or big)


@hookimpl
def zsy_scoring(table: TableConfig) -> str | None:
    """ZSY-8: the scheme chosen by the ``scoring`` option."""
    return table.opt(name, "scoring") if table.game == name else None


def options_of(table: TableConfig) -> Mapping[str, Any]:
    """This plugin's resolved options (helper for modifiers reading base options)."""
    return table.options.get(name, {})


#: The base game's words (English; zsy_lan.text.words lists the same texts for translation).
VOCABULARY: dict[str, str] = {
    "kind:single": "single",
    "kinds:single": "singles",
    "play:single": "single {rank}",
    "kind:pair": "pair",
    "kinds:pair": "pairs",
    "play:pair": "pair of {ranks}",
    "kind:triple": "triple",
    "kinds:triple": "triples",
    "play:triple": "three {ranks}",
    "kind:fullhouse": "full house",
    "kinds:fullhouse": "full houses",
    "play:fullhouse": "full house, {ranks} over {kicker_ranks}",
    "kind:straight": "straight",
    "kinds:straight": "straights",
    "play:straight": "straight {low} to {high}",
    "kind:bomb": "bomb",
    "kinds:bomb": "bombs",
    "play:bomb": "bomb of {count} {ranks}",
    "kind:jokerbomb": "joker bomb",
    "kinds:jokerbomb": "joker bombs",
    "play:jokerbomb": "joker bomb",
    "place:1": "Upstream",
    "place:-1": "Downstream",
    "place:4:2": "Second-Upstream",
    "place:4:3": "Second-Downstream",
    "action:pass": "pass",
    "action:give": "give {cards}",
    "action:return": "return {cards}",
    "stake": "points",
}


@hookimpl
def zsy_vocabulary(table: TableConfig) -> Mapping[str, str] | None:
    """ZSY-3 and ZSY-6 in players' words: the combinations, Upstream and Downstream."""
    return VOCABULARY if table.game == name else None
