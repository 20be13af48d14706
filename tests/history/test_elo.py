"""The rating arithmetic (docs/history.md): pairwise Elo over final placements, pure functions."""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from zsy_lan.record.history import (
    K_FACTOR,
    START_RATING,
    RatedMatch,
    elo_expected,
    match_deltas,
    match_places,
    rate,
)


def test_the_expectation_is_elos():
    assert elo_expected(1500, 1500) == 0.5
    assert elo_expected(1600, 1400) == pytest.approx(1 / (1 + 10 ** (-200 / 400)))
    assert elo_expected(1400, 1600) == pytest.approx(1 - elo_expected(1600, 1400))


def test_two_equal_players_move_by_half_k():
    d = match_deltas([("a", 1), ("b", 2)], {})
    assert d == {"a": K_FACTOR / 2, "b": -K_FACTOR / 2}


def test_a_favourite_wins_little_and_an_upset_costs_much():
    win = match_deltas([("fav", 1), ("dog", 2)], {"fav": 1600, "dog": 1400})
    loss = match_deltas([("fav", 2), ("dog", 1)], {"fav": 1600, "dog": 1400})
    assert win["fav"] == pytest.approx(32 * (1 - 0.759747), abs=1e-4)  # 7.69
    assert loss["fav"] == pytest.approx(-32 * 0.759747, abs=1e-4)  # -24.31
    assert win["dog"] == -win["fav"] and loss["dog"] == -loss["fav"]


def test_three_seats_are_three_pairs_with_k_shared():
    d = match_deltas([("a", 1), ("b", 2), ("c", 3)], {})
    assert d == {"a": 16.0, "b": 0.0, "c": -16.0}


def test_a_tie_between_equals_changes_nothing():
    assert match_deltas([("a", 2), ("b", 2), ("c", 1)], {}) == {"a": -8.0, "b": -8.0, "c": 16.0}
    assert match_deltas([("a", 1), ("b", 1)], {}) == {"a": 0.0, "b": 0.0}


def test_partners_are_not_compared_with_each_other():
    """ZSY-9.1 partnerships: two teams; each seat plays the other team's two seats."""
    d = match_deltas(
        [("a", 1), ("b", 3), ("c", 1), ("d", 3)], {}, teams=[("a", "c"), ("b", "d")]
    )
    share = K_FACTOR / 3
    assert d["a"] == d["c"] == pytest.approx(share) and d["b"] == d["d"] == pytest.approx(-share)


def test_places_follow_the_winners_then_the_score():
    # a tie on top broken by a deciding round (ZSY-8.5): seat 2 won it
    assert match_places([4, -8, 4], [2]) == (2, 3, 1)
    assert match_places([0, 1, 0, 0], [1]) == (2, 1, 2, 2)
    assert match_places([-3, -10, -1], [2]) == (2, 3, 1)  # penalty: the least lost is best


def test_rate_counts_games_and_wins():
    out = rate([
        RatedMatch((1.0, "h1"), (("a", 1), ("b", 2)), winners=("a",)),
        RatedMatch((2.0, "h2"), (("a", 2), ("b", 1)), winners=("b",)),
    ])
    assert out["a"].games == out["b"].games == 2 and out["a"].wins == out["b"].wins == 1
    # a won first at 1500 (+16), then lost as the favourite (more than 16)
    assert out["a"].rating < START_RATING < out["b"].rating


def test_time_order_not_input_order():
    first = RatedMatch((1.0, "x"), (("a", 1), ("b", 2)))
    second = RatedMatch((2.0, "y"), (("b", 1), ("c", 2)))
    assert rate([first, second]) == rate([second, first])
    swapped = rate([RatedMatch((2.0, "x"), first.places), RatedMatch((1.0, "y"), second.places)])
    assert swapped != rate([first, second])  # the order is the time's, and it matters


KEYS = ["k0", "k1", "k2", "k3", "k4", "k5"]


@st.composite
def matches(draw):
    n = draw(st.integers(min_value=1, max_value=8))
    out = []
    for i in range(n):
        size = draw(st.integers(min_value=2, max_value=4))
        seats = draw(st.permutations(KEYS))[:size]
        places = [draw(st.integers(min_value=1, max_value=size)) for _ in seats]
        t = float(draw(st.integers(min_value=0, max_value=3)))  # equal times happen
        out.append(RatedMatch((t, f"head{i:03d}"), tuple(zip(seats, places, strict=True))))
    return out


@given(matches(), st.randoms(use_true_random=False))
def test_ratings_do_not_depend_on_the_order_records_are_found(ms, rnd: random.Random):
    shuffled = list(ms)
    rnd.shuffle(shuffled)
    assert rate(shuffled) == rate(ms)


@given(matches())
def test_every_match_is_zero_sum(ms):
    out = rate(ms)
    assert sum(r.rating for r in out.values()) == pytest.approx(START_RATING * len(out))
    for m in ms:
        ratings = {k: r.rating for k, r in out.items()}
        assert sum(match_deltas(m.places, ratings).values()) == pytest.approx(0.0, abs=1e-9)
