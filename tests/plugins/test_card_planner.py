"""The card planner (zsy_lan/bots/card_planner.py): ``normal`` and ``hard`` at Big Two and Guandan.

Unit positions a player would call absurd if a bot got them wrong: 2s spent as a
full house's pair, wild cards spent on a low tube when they make a bomb, a
partner's winning play overtaken, a wild card handed back as tribute.
"""

from __future__ import annotations

import pytest
from test_guandan import _deal_with, table  # the Guandan cases' own position helpers

from zsy_lan.bots import make_bot
from zsy_lan.bots.card_planner import CardPlanner, card_planned
from zsy_lan.engine.cards import RANK_OF, TWO, card_str
from zsy_lan.engine.game import Game
from zsy_lan.engine.ruleset import build_rules
from zsy_lan.engine.selfplay import round_seed
from zsy_lan.engine.view import view
from zsy_lan.plugins.guandan_combos import level_rules, wild_cards
from zsy_lan.testing import Table, cards


def test_card_planned_where_the_rank_planner_cannot_model_the_variant():
    assert card_planned(build_rules(4, ["big-two"]))
    assert card_planned(build_rules(4, ["guandan"]))
    assert not card_planned(build_rules(4, []))
    assert not card_planned(build_rules(3, ["doudizhu"]))
    # house rules add a straight flush on top of the rank kinds: still the rank planner's
    assert not card_planned(build_rules(4, ["house-rules"], {"straight_flush": True}))


# --- Big Two -----------------------------------------------------------------------------------


def big_two(*hands: str, leader: int = 0) -> Table:
    t = Table(["big-two"], rounds=2)
    t.set_hands(*hands, leader=leader)
    return t


def test_b2_twos_are_not_a_full_houses_pair_when_another_pair_serves():
    hand = cards("5D 5C 5H 7D 7S 2S 2H 9C JD KH", 1)
    planner = CardPlanner(build_rules(4, ["big-two"]))
    groups = [g.play for g in planner.split(hand).groups]
    full = [p for p in groups if p.combo.kind == "fullhouse"]
    assert full and all(RANK_OF[c] != TWO for c in full[0].cards), groups
    assert any(p.combo.kind == "pair" and RANK_OF[p.cards[0]] == TWO for p in groups)
    t = big_two("5D 5C 5H 7D 7S 2S 2H 9C JD KH", "4D 6D 8D 9D 10D", "3C 3H 4C 4H 6C",
                "10H 10S JC JS QC", leader=0)
    for level in ("normal", "hard"):
        a = make_bot(level, 1).act(t.rules, view(t.state, 0), 0)
        assert not any(RANK_OF[c] == TWO for c in a.cards), (level, [card_str(c) for c in a.cards])


def test_b2_five_card_hands_go_before_their_cards_as_singles():
    # 3 4 5 6 7 is a straight: it is led whole, not as a single 3
    t = big_two("3D 4C 5H 6S 7D KC 2S", "4D 6D 8D 9D 10D", "3C 3H 4H 6C 8C",
                "10H 10S JC JS QC", leader=0)
    a = make_bot("normal", 1).act(t.rules, view(t.state, 0), 0)
    assert len(a.cards) == 5, [card_str(c) for c in a.cards]


def test_b2_a_twos_pair_is_kept_while_many_cards_are_left():
    # a pair of 4s led: the pair of 2s would fit, but it is the hand's control
    t = big_two("4D 4C 9D 10C 3S 5S 7S", "2S 2H 5D 6C 7H 9S 10D JC QH KS", "3C 3H 6D 6H 8C 8H",
                "10H 10S JD JS QC", leader=0)
    t.play(0, "4D 4C")
    a = make_bot("normal", 1).act(t.rules, view(t.state, 1), 1)
    assert a.kind == "pass", [card_str(c) for c in a.cards]


# --- Guandan -----------------------------------------------------------------------------------


def test_gd_wilds_make_a_bomb_not_a_low_tube():
    # 9 9 and the two wild 2♥ are a bomb; 3 3 4 4 5 and a wild would be a tube
    rules = level_rules(build_rules(4, ["guandan"]), 2)
    hand = cards("3S 3D 4S 4D 5S 2H 2H 9S 9D KS AD", 2)
    wild = wild_cards(2)
    planner = CardPlanner(rules)
    for g in planner.split(hand).groups:
        if any(c in wild for c in g.play.cards):
            assert g.play.combo.kind == "bomb", g.play


def test_gd_normal_leads_without_spending_a_wild(zsy_table):
    t = table(zsy_table, "3S 3D 4S 4D 5S 2H 2H 9S 9D KS AD", "6S 6D *", "7S 7D *",
              "8S 8D *", level=2)
    for level in ("normal", "hard"):
        a = make_bot(level, 1).act(t.rules, view(t.state, 0), 0)
        assert not set(a.cards) & wild_cards(2), (level, [card_str(c) for c in a.cards])


@pytest.mark.parametrize("level", ["easy", "normal", "hard"])
def test_gd_a_partners_low_winning_play_is_not_overtaken(zsy_table, level):
    # seat 2's single 6 would fit its plan, but the partner's 4 is winning the trick
    t = table(zsy_table, "4S  *", "3D  *", "6S 8C 8D JC JD QS QD *", "5C 5D 7C 7D *", leader=0)
    t.play(0, "4S")
    t.pass_(1)
    a = make_bot(level, 1).act(t.rules, view(t.state, 2), 2)
    assert a.kind == "pass", (level, a)


def test_gd_a_partners_play_is_overtaken_to_go_out(zsy_table):
    t = table(zsy_table, "4S  *", "3D  *", "9S", "5C 5D 7C 7D *", leader=0)
    t.play(0, "4S")
    t.pass_(1)
    a = make_bot("normal", 1).act(t.rules, view(t.state, 2), 2)
    assert a.kind == "play" and card_str(a.cards[0]) == "9♠"


def test_gd_tribute_return_is_never_a_wild_card(zsy_table):
    # at level 5 the two 5♥ are wild (and 10 or lower, so returnable): a 6 goes back instead
    t = zsy_table(variants=["guandan"])
    _deal_with(t, ["5H 5H 6S 8S 8D 8C QS QD KS AS *", "5D", "6H", "KD 8H"],
               order=(0, 1, 2, 3), level=5)
    for level in ("normal", "hard"):
        a = make_bot(level, 1).act(t.rules, view(t.state, 0), 0)
        assert a.kind == "return" and card_str(a.cards[0]) == "6♠", (level, a)


# --- bounded matches ---------------------------------------------------------------------------


def play_deals(rules, bots, deals: int, seed: str) -> list[tuple[int, ...]]:
    """Play ``deals`` deals of a match (tribute included from the second); their orders."""
    game = Game(rules, 99)
    index = 0
    while len(game.match.results) < deals and not game.finished():
        if game.needs_seed():
            game.start_round(round_seed(seed, index))
            index += 1
            continue
        state = game.match.round
        seat = state.turn
        game.apply(seat, bots[seat].act(rules, view(state, seat), seat))
    return [r.order for r in game.match.results]


@pytest.mark.slow
@pytest.mark.parametrize("variant", ["big-two", "guandan"])
@pytest.mark.parametrize("level", ["normal", "hard"])
def test_card_planned_levels_finish_bounded_matches(variant, level):
    rules = build_rules(4, [variant])
    bots = [make_bot(level, f"{level}{s}", budget=4, budget_ms=None) if level == "hard"
            else make_bot(level, f"{level}{s}") for s in range(4)]
    orders = play_deals(rules, bots, 2, f"{variant}-{level}")
    assert len(orders) == 2 and all(len(set(o)) == len(o) for o in orders)
