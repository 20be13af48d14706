"""Guandan's generator against its checker (GD-2, GD-3), by Hypothesis.

Why both directions: wilds make a hand's moves combinatorial, so the
generator only lists what matters (one play per combination, naturals before
wilds). It must never list a play the checker refuses or keys differently, and
on small hands it must miss no combination the checker accepts: every subset
of the hand is classified and each reading must be among the generated ones.
"""

from __future__ import annotations

from itertools import combinations

from hypothesis import given, settings
from hypothesis import strategies as st

from zsy_lan.engine.cards import rank_counts
from zsy_lan.engine.combos import beats, legal_plays
from zsy_lan.engine.ruleset import build_rules
from zsy_lan.plugins.guandan_combos import level_rules, readings, wild_cards

RULES = build_rules(None, ["guandan"], {})


@st.composite
def hands(draw, size: int, few_ranks: bool):
    """A hand of ``size`` cards at a level, holding 0, 1 or 2 of its wilds."""
    level = draw(st.integers(2, 14))
    wild = sorted(wild_cards(level))
    n_wild = draw(st.integers(0, 2))
    pool = [c for c in range(108) if c not in wild]
    if few_ranks:  # concentrated hands make the runs, full houses and bombs
        ranks = draw(st.lists(st.integers(0, 12), min_size=3, max_size=5, unique=True))
        pool = [c for c in pool if c % 54 >= 52 or (c % 54) // 4 in ranks]
    rest = draw(st.lists(st.sampled_from(pool), min_size=size - n_wild,
                         max_size=size - n_wild, unique=True))
    return level, tuple(sorted(wild[:n_wild] + rest))


def plays(level, hand, last=None):
    return legal_plays(level_rules(RULES, level), rank_counts(hand), last, hand)


@settings(max_examples=40, deadline=None)
@given(hands(27, few_ranks=False))
def test_every_generated_play_reads_as_generated(case):
    level, hand = case
    leads = plays(level, hand)
    assert leads
    for p in leads:
        assert readings(p.cards, level)[p.combo.kind] == p.combo
        assert set(p.cards) <= set(hand)
    last = leads[len(leads) // 2].combo
    rules = level_rules(RULES, level)
    for p in plays(level, hand, last):
        assert readings(p.cards, level)[p.combo.kind] == p.combo
        assert beats(rules, p.combo, last)


@settings(max_examples=25, deadline=None)
@given(hands(9, few_ranks=True))
def test_the_checker_accepts_nothing_the_generator_misses(case):
    level, hand = case
    generated = {p.combo for p in plays(level, hand)}
    for n in range(1, len(hand) + 1):
        for sub in combinations(hand, n):
            for combo in readings(sub, level).values():
                assert combo in generated, (level, sub, combo)


@settings(max_examples=20, deadline=None)
@given(hands(9, few_ranks=True), st.data())
def test_following_lists_every_combination_that_beats(case, data):
    level, hand = case
    rules = level_rules(RULES, level)
    leads = plays(level, hand)
    last = data.draw(st.sampled_from(leads)).combo
    generated = {p.combo for p in plays(level, hand, last)}
    for n in range(1, len(hand) + 1):
        for sub in combinations(hand, n):
            for combo in readings(sub, level).values():
                if beats(rules, combo, last):
                    assert combo in generated, (level, sub, combo, last)
