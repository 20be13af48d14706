"""The exact endgame solver of the ``hard`` level (issue #16): right, and used.

The solver is checked against a plain minimax over the engine's own rules
(``legal_actions`` and ``apply``: DDZ-4.2 follow higher, DDZ-4.4 two passes end
the trick, DDZ-4.5 the first seat out decides for its side), then in a
position whose hidden hands are all known (a shown kitty, DDZ-2.4, that is the
landlord's whole hand) where only one lead wins and the rollouts alone miss it.
"""

from __future__ import annotations

import random

import pytest
from bot_helpers import position, rules_for

from zsy_lan.bots import make_bot
from zsy_lan.bots.base import Observation, side_of
from zsy_lan.bots.endgame import EndgameSolver
from zsy_lan.engine.cards import RANK_OF, rank_counts
from zsy_lan.engine.round import apply, legal_actions
from zsy_lan.engine.rules import Rules
from zsy_lan.engine.state import RoundState, with_extra
from zsy_lan.engine.view import view

NAMES = ["3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "2"]


def _minimax(rules: Rules, st: RoundState, side: frozenset[int]) -> bool:
    """Does ``side`` go out first with best play? Every legal action, no memo."""
    if st.finished or st.phase != "play":
        return st.finished[0] in side
    results = (_minimax(rules, apply(rules, st, a), side)
               for a in legal_actions(rules, st, st.turn))
    return any(results) if st.turn in side else all(results)


def _solver_says(rules: Rules, st: RoundState, seat: int) -> bool | None:
    sides = [side_of(rules, st, s) for s in range(rules.players)]
    solver = EndgameSolver(rules, sides, seat, node_cap=100_000)
    hands = [rank_counts(h) for h in st.hands]
    return solver.solve(hands, st.trick_combo, st.trick_seat, st.turn, st.passes)


def test_solver_agrees_with_plain_minimax_on_small_dou_dizhu_positions():
    """DDZ-4.2, 4.4, 4.5: the memoised rank-count search gives the engine's answer."""
    rules = rules_for(3, ["doudizhu"], {"match_multiple": 1})
    rnd = random.Random(16)
    checked = wins = 0
    while checked < 40:
        deck = [n for n in NAMES for _ in range(4)] + ["BJ", "RJ"]
        rnd.shuffle(deck)
        sizes = [rnd.randint(1, 3) for _ in range(3)]
        texts, pos = [], 0
        for k in sizes:
            texts.append(" ".join(deck[pos:pos + k]))
            pos += k
        lord, turn = rnd.randrange(3), rnd.randrange(3)
        st = position(rules, texts, turn, extra={"landlord": lord})
        for seat in range(3):
            side = side_of(rules, st, seat)
            expected = _minimax(rules, st, side)
            assert _solver_says(rules, st, seat) == expected, (texts, lord, turn, seat)
            wins += int(expected)
        checked += 1
    assert 0 < wins < 3 * checked  # both outcomes were met


def test_solver_reads_the_trick_on_the_table():
    """DDZ-4.2: farmer 1 led a 10; the landlord's A takes it and its 3 goes out, unless
    farmer 2 holds the 2 that beats the A."""
    rules = rules_for(3, ["doudizhu"], {"match_multiple": 1})
    st = position(rules, ["3 A", "4", "K"], 0, trick=(1, "10"), extra={"landlord": 0})
    assert _solver_says(rules, st, 0) is True
    assert _solver_says(rules, st, 1) is False  # the farmers' side sees the same
    st = position(rules, ["3 A", "4", "2"], 0, trick=(1, "10"), extra={"landlord": 0})
    assert _solver_says(rules, st, 0) is False


def test_solver_gives_up_past_its_node_allowance():
    """A position too big for the allowance answers None (the rollout plays on)."""
    rules = rules_for(3, ["doudizhu"], {"match_multiple": 1})
    st = position(rules, ["3 3 5 7 9 J K A 2", "4 4 6 8 10 Q K", "5 6 8 9 J Q A"], 0,
                  extra={"landlord": 0})
    sides = [side_of(rules, st, s) for s in range(3)]
    solver = EndgameSolver(rules, sides, 0, node_cap=50)
    assert solver.solve([rank_counts(h) for h in st.hands], None, -1, 0, 0) is None
    assert solver.capped == 1


def _known_position() -> tuple[Rules, RoundState]:
    """Seat 2 to lead 6 7 9; farmer 1 holds a 4; the landlord's shown kitty 5 7 2 is all
    it holds (DDZ-2.4), so seat 2 knows every hand."""
    rules = rules_for(3, ["doudizhu"], {"show_kitty": True, "match_multiple": 1})
    st = position(rules, ["5 7 2", "4", "6 7 9"], 2, extra={"landlord": 0})
    return rules, with_extra(st, kitty=list(st.hands[0]))


def test_only_the_seven_wins_in_the_known_position():
    """DDZ-4.2, 4.5: a 6 or a 9 lets the landlord win the lead with its 7 or 2 and go out on
    its last card; the 7 cannot be beaten by the landlord's own 7, so it must spend
    its 2 and the farmer's 9 (or 7) gets the last word."""
    rules, st = _known_position()
    verdict = {}
    for a in legal_actions(rules, st, 2):
        verdict[RANK_OF[a.cards[0]]] = _minimax(rules, apply(rules, st, a), side_of(rules, st, 2))
    assert verdict == {3: False, 4: True, 6: False}  # ranks 6, 7, 9


@pytest.mark.parametrize("seed", ["a", "b", "c"])
def test_hard_finds_the_only_winning_lead_with_the_solver(seed):
    """With the exact endgame every world shows the 7 winning and the 6 or 9 losing."""
    rules, st = _known_position()
    obs = Observation.of(rules, view(st, 2), 2)
    choice = make_bot("hard", seed, budget=48, budget_ms=None).choose(obs)
    assert [RANK_OF[c] for c in choice.cards] == [4]


def test_the_rollouts_alone_miss_the_winning_lead():
    """What the solver changes: without it (``endgame=0``) the planner's weakest single,
    the 6, stands for some seeds (the rollouts misjudge the landlord's answers)."""
    rules, st = _known_position()
    obs = Observation.of(rules, view(st, 2), 2)
    picks = [make_bot("hard", seed, budget=48, budget_ms=None, endgame=0).choose(obs)
             for seed in ("a", "b", "c")]
    assert any([RANK_OF[c] for c in a.cards] != [4] for a in picks)


def test_a_bomb_the_planner_prefers_must_prove_itself_against_the_pass():
    """DDZ-5.1: a bomb doubles the stake for both sides, so in the search the plain move
    (the pass) is the default the bomb has to beat, not the other way round."""
    from zsy_lan.bots.search import bomb_must_prove
    from zsy_lan.engine.state import PASS

    rules = rules_for(3, ["doudizhu"], {"match_multiple": 1})
    # the landlord led a pair of 2s and holds three cards: the planner bombs (danger)
    st = position(rules, ["7 7 7 7 5 6", "3 4 8", "9 K A"], 0, trick=(1, "2 2"),
                  extra={"landlord": 1})
    obs = Observation.of(rules, view(st, 0), 0)
    ranked = make_bot("normal", 1).ranked(obs)
    assert len(ranked[0].cards) == 4  # the planner's first choice: the bomb 7 7 7 7
    cands = bomb_must_prove(obs, ranked[:4])
    assert cands[0].kind == PASS and cands[1] == ranked[0]
    plain = [a for a in ranked if a.kind == PASS] + [ranked[0]]
    assert bomb_must_prove(obs, plain) == plain  # a plain default stays
    assert bomb_must_prove(obs, ranked[:1]) == ranked[:1]  # nothing to compare with


def test_a_bomb_that_only_raises_the_stake_is_not_picked():
    """DDZ-5.1: a bomb that wins the same worlds as the pass, only doubled (1.5 instead
    of 1 per win, -0.5 instead of 0 per loss), scores better on points but is not played:
    it must also win more often. One that turns losses into wins is played."""
    from zsy_lan.bots.search import pick

    base = [1.0, 1.0, 1.0, 0.0] * 10
    stake_only = [1.5, 1.5, 1.5, -0.5] * 10  # the same worlds won, doubled
    assert pick([base, stake_only], 1.0) == 1  # on points alone the bomb would be played
    assert pick([base, stake_only], 1.0, frozenset({1})) == 0
    saves = [1.5, 1.5, 1.5, 1.5] * 10  # wins the worlds the pass loses
    assert pick([base, saves], 1.0, frozenset({1})) == 1
