"""A test plugin written as a third party would: the Big Two platform features.

``diamond-lead`` (a modifier of the base game): 52 cards, no tribute, the
holder of 3♦ leads every deal with it (``zsy_deal_lead``), the table's
refusals cite this plugin's own rule ids (``zsy_rule_ids``), and it plays
with 4 players, or 3 with its option ``three_players`` (the player counts
come from the plugin). Not installed: tests pass it to ``build_rules(...,
plugins=...)`` or put it in the registry the CLI reads.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from zsy_lan import hookimpl
from zsy_lan.engine.cards import BJ, full_deck, make_card, rank_of
from zsy_lan.engine.hookspecs import Deck, Lead, Option, Tribute

name = "diamond-lead"
version = "1.0"
description = "3♦ leads every deal; 52 cards; 4 players (3 as an option)"

THREE_OF_DIAMONDS = make_card(0, 0)


@hookimpl
def zsy_options() -> Sequence[Option]:
    return [Option("three_players", "bool", False, "DL-1.1 D: three players, 17 or 18 each")]


@hookimpl
def zsy_default_players() -> int:
    return 4


@hookimpl
def zsy_supported_players(options: Mapping[str, Any]) -> Sequence[int]:
    return (3, 4) if options["three_players"] else (4,)


@hookimpl
def zsy_deck() -> Deck:
    return Deck(1, tuple(c for c in full_deck(1) if rank_of(c) < BJ))


@hookimpl
def zsy_tribute() -> Tribute:
    return Tribute(enabled=False)


@hookimpl
def zsy_deal_lead(rules: Any, match: Any) -> Lead:
    return Lead(card=THREE_OF_DIAMONDS)


@hookimpl
def zsy_rule_ids() -> Mapping[str, str]:
    return {"ZSY-2.1": "DL-2.1", "ZSY-4.1": "DL-3.2"}


@hookimpl
def zsy_vocabulary() -> Mapping[str, str]:
    return {
        "rules:diamond-lead": "DL-2.1 Every deal: the holder of 3♦ leads, with it.\n"
        "DL-3.2 Follow with the same kind and size, higher."
    }
