"""A card is never read as a command (issue #13: typing ``Q`` to play a queen quit the table).

ZSY-5.1: a player plays cards they hold; every one-letter rank a player may type (``Q``,
``J``, ``K``, ``A``, ``T``, ``B``, ``R``, ``X``...) must reach the card parser in any case,
and no command word may also read as cards.
"""

from __future__ import annotations

import pytest

from zsy_lan.engine.cards import JOKER_ALIASES, RANK_NAMES, parse_cards_exact, sort_cards
from zsy_lan.engine.errors import RuleError
from zsy_lan.engine.round import legal_actions, new_round
from zsy_lan.engine.rules import base_rules
from zsy_lan.engine.state import Action, evolve
from zsy_lan.ui.commands import PASS_WORDS, UI_WORDS, Request, interpret, is_card_text
from zsy_lan.ui.line_mode import TABLE_WORDS

RULES = base_rules(4)


def hand(text: str) -> tuple[int, ...]:
    return sort_cards(parse_cards_exact(text, 1))


def _table(cards: str):
    hands = [hand(t) for t in (cards, "8 8 10 10", "9 9 3 3", "4 4 5 5")]
    state = evolve(new_round(RULES, hands, round_no=2, dealer=3, leader=0), must_contain=None)
    return state, legal_actions(RULES, state, 0)


ONE_LETTER_RANKS = sorted(
    {n for n in RANK_NAMES if len(n) == 1 and n.isalpha()}
    | {"T"}
    | {a for a in JOKER_ALIASES["BJ"] + JOKER_ALIASES["RJ"] if len(a) == 1 and a.isascii()}
)


@pytest.mark.parametrize("letter", ONE_LETTER_RANKS + [x.lower() for x in ONE_LETTER_RANKS])
def test_a_single_rank_letter_is_a_card_in_any_case(letter):
    """``Q`` and ``q`` play a queen; the same for J K A T and the joker letters B R X."""
    state, legal = _table("J Q K A 10 BJ RJ")
    got = interpret(letter, RULES, state, 0, legal)
    assert isinstance(got, Action), f"{letter!r} was read as {got!r}"
    assert len(got.cards) == 1


def test_q_without_a_queen_is_refused_as_a_card_not_taken_as_quit():
    state, legal = _table("3 4 5 6 7")
    with pytest.raises(RuleError, match=r"(?i)\bq\b|queen"):
        interpret("Q", RULES, state, 0, legal)


@pytest.mark.parametrize("word", sorted(set(UI_WORDS) | set(PASS_WORDS) | set(TABLE_WORDS)))
def test_no_command_word_reads_as_cards(word):
    assert not is_card_text(word), f"the command {word!r} is also a card"


def test_leaving_is_the_whole_word():
    state, legal = _table("3 4 5 6 7")
    assert interpret("quit", RULES, state, 0, legal) == Request("quit")
    assert interpret("QUIT", RULES, state, 0, legal) == Request("quit")
