"""Combinations (ZSY-3), comparison (ZSY-4) and move generation against brute force."""

from itertools import product

import pytest
from engine_helpers import combo
from hypothesis import given
from hypothesis import strategies as st

from zsy_lan.engine.cards import BJ, NUM_RANKS, RJ
from zsy_lan.engine.combos import Combo, beats, classify, legal_plays
from zsy_lan.engine.rules import base_rules

R4 = base_rules(4)
R6 = base_rules(6)


@pytest.mark.parametrize(
    "text,kind,length,key",
    [
        ("7", "single", 1, 4),  # ZSY-3.1
        ("7 7", "pair", 2, 4),
        ("7 7 7", "triple", 3, 4),
        ("7 7 7 3 3", "fullhouse", 5, 4),  # ZSY-3.2 compared by the triple
        ("3 3 2 2 2", "fullhouse", 5, 12),
        ("3 4 5 6 7", "straight", 5, 4),  # ZSY-3.3
        ("10 J Q K A 2", "straight", 6, 12),  # D: the 2 may end a straight
        ("8 8 8 8", "bomb", 4, 5),  # ZSY-3.4
        ("BJ RJ", "jokerbomb", 2, RJ),  # D: BJ+RJ is a bomb, never a pair
        ("BJ", "single", 1, BJ),
    ],
)
def test_classify_base_kinds(text, kind, length, key):
    assert combo(R4, text) == Combo(kind, length, key)


@pytest.mark.parametrize(
    "text",
    [
        "3 4",
        "3 4 5 6",
        "Q K A 2 3",
        "J Q K A 2 BJ",
        "3 3 4 4",
        "7 7 7 3",
        "7 7 7 3 4",
        "2 2 2 2 BJ",
    ],
)
def test_not_a_combination(text):  # ZSY-3.3 no wrap-around, no jokers in straights; ZSY-3.5
    assert combo(R4, text) is None


def test_two_decks_jokers():  # ZSY-3.4 D
    assert combo(R6, "BJ BJ") == Combo("pair", 2, BJ)
    assert combo(R6, "BJ RJ") is None
    assert combo(R6, "BJ BJ RJ RJ") == Combo("jokerbomb", 4, RJ)
    assert combo(R6, "5 5 5 5 5 5 5 5") == Combo("bomb", 8, 2)


def test_no_two_in_straights_option():  # ZSY-3.3 table option
    r = base_rules(4, two_in_straights=False)
    assert combo(r, "10 J Q K A 2") is None
    assert combo(r, "10 J Q K A") == Combo("straight", 5, 11)


@pytest.mark.parametrize(
    "a,b,expected",
    [
        ("8", "7", True),
        ("7", "8", False),
        ("8 8", "7", False),  # ZSY-4.1 same type
        ("4 5 6 7 8 9", "3 4 5 6 7", False),  # straights only of the same length
        ("4 5 6 7 8", "3 4 5 6 7", True),
        ("3 3 3 3", "2 2 2 BJ BJ", True),
        ("3 3 3 3", "RJ", True),  # ZSY-4.2 a bomb beats any non-bomb
        ("3 3 3 3 3", "A A A A", True),  # more cards beat fewer
        ("4 4 4 4", "3 3 3 3", True),
        ("3 3 3 3", "4 4 4 4", False),
        ("BJ BJ RJ RJ", "3 3 3 3 3 3 3 3", True),  # the joker bomb beats every bomb
    ],
)
def test_beats(a, b, expected):
    rules = R6
    ca, cb = combo(rules, a), combo(rules, b)
    assert ca is not None
    if cb is None:
        pytest.skip("not a combination under these rules")
    assert beats(rules, ca, cb) is expected


def brute_force(rules, counts, last):
    """Every sub-multiset of the hand that classifies (and beats ``last``)."""
    ranges = [range(c + 1) for c in counts]
    out = set()
    for pick in product(*ranges):
        if not any(pick):
            continue
        c = classify(rules, list(pick))
        if c is None or (last is not None and not beats(rules, c, last)):
            continue
        out.add(tuple(r for r in range(NUM_RANKS) for _ in range(pick[r])))
    return out


def hands(decks):
    """Rank counts of hands of up to 12 cards (small enough to brute-force every subset)."""

    def to_counts(ranks):
        counts = [0] * NUM_RANKS
        for r in ranks:
            cap = decks if r >= BJ else 4 * decks
            if counts[r] < cap:
                counts[r] += 1
        return counts

    return st.lists(st.integers(0, RJ), max_size=12).map(to_counts)


LASTS_1 = ["5", "9 9", "4 4 4", "3 4 5 6 7", "6 6 6 4 4", "7 7 7 7", "BJ"]


@given(hands(1), st.one_of(st.none(), st.sampled_from(LASTS_1)))
def test_legal_plays_equal_brute_force_one_deck(counts, last_text):
    last = None if last_text is None else combo(R4, last_text)
    got = [p.ranks for p in legal_plays(R4, counts, last)]
    assert len(got) == len(set(got)), "a play is listed twice"
    assert set(got) == brute_force(R4, counts, last)


@given(hands(2), st.one_of(st.none(), st.sampled_from(["8", "BJ BJ", "5 5 5 5 5", "3 4 5 6 7 8"])))
def test_legal_plays_equal_brute_force_two_decks(counts, last_text):
    last = None if last_text is None else combo(R6, last_text)
    got = [p.ranks for p in legal_plays(R6, counts, last)]
    assert len(got) == len(set(got))
    assert set(got) == brute_force(R6, counts, last)


def test_every_generated_play_classifies_as_itself():
    counts = [2, 2, 2, 2, 1, 3, 4, 1, 1, 1, 1, 2, 2, 1, 1]
    for p in legal_plays(R4, counts, None):
        c = [0] * NUM_RANKS
        for r in p.ranks:
            c[r] += 1
        assert classify(R4, c) == p.combo
