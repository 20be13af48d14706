"""Bots play every variant the engine accepts, also one their search cannot model (issue #27).

``hard`` crashed on a suit-ranked variant (IndexError in the rollouts, which
move rank counts only): a plugin whose singles compare by rank, then suit.
Where the search cannot model a variant, ``hard`` plays its planner's pick.
"""

from __future__ import annotations

import pytest
from bot_helpers import VARIANT_TABLES, rules_for

from zsy_lan import hookimpl
from zsy_lan.bots import LEVELS, make_bot
from zsy_lan.bots.search import search_models
from zsy_lan.engine.cards import rank_of, suit_of
from zsy_lan.engine.combos import Combo, ComboKind, Play
from zsy_lan.engine.ruleset import build_rules
from zsy_lan.engine.selfplay import play_match

FAST_HARD = {"budget_ms": 1e9, "max_iters": 3}  # deterministic: the cap decides


def _suited_key(card: int) -> int:
    suit = suit_of(card)
    return rank_of(card) * 4 + (3 if suit is None else suit)


def _single_c(cards, rules):
    return Combo("single", 1, _suited_key(cards[0])) if len(cards) == 1 else None


def _single_g(hand, rules, last):
    for card in sorted(set(hand)):
        key = _suited_key(card)
        if last is None or key > last.key:
            yield Play(Combo("single", 1, key), (rank_of(card),), (card,))


class SuitedSingles:
    """A modifier ranking singles by rank, then suit (♦ < ♣ < ♥ < ♠), as Big Two does."""

    name = "suited-singles"
    version = "1.0"
    description = "singles compare by rank, then suit"

    @hookimpl
    def zsy_combo_kinds(self, kinds):
        kind = ComboKind("single", _single_c, _single_g, cards=True)
        return tuple(kind if k.name == "single" else k for k in kinds)


def sources_of(bots):
    """Record how each choice of ``bots`` was made (``HardBot.last_source``), in one list."""
    seen: list[str] = []
    for b in bots:
        choose = b.choose

        def recorded(obs, choose=choose, b=b):
            action = choose(obs)
            seen.append(getattr(b, "last_source", ""))
            return action

        b.choose = recorded
    return seen


def suited_rules():
    return build_rules(4, ["suited-singles"], plugins={"suited-singles": SuitedSingles()})


def test_search_models_rank_count_variants_but_not_suit_ranked_singles():
    assert all(search_models(rules_for(*t)) for t in VARIANT_TABLES)  # straight flush: added
    assert not search_models(suited_rules())


@pytest.mark.parametrize("level", list(LEVELS))
def test_every_level_plays_a_suit_ranked_variant(level):
    rules = suited_rules()
    bots = [make_bot(level, f"s{s}", **(FAST_HARD if level == "hard" else {})) for s in range(4)]
    seen = sources_of(bots)
    result = play_match(rules, 2, f"suited-{level}", bots)
    assert len(result.orders) == 2
    if level == "hard":
        assert "unmodelled" in seen and not {"search", "planner"} & set(seen)


def test_hard_still_searches_where_card_kinds_only_add_plays():
    """House rules' straight flush reads the cards but adds to the rank kinds: search stays."""
    rules = rules_for(4, ["house-rules"], {"straight_flush": True, "suit_tiebreak": True})
    assert rules.card_kinds
    bots = [make_bot("hard", f"h{s}", budget=8, budget_ms=1e9) for s in range(rules.players)]
    seen = sources_of(bots)
    play_match(rules, 1, "search-straight-flush", bots)
    assert {"search", "planner"} & set(seen) and "unmodelled" not in seen
