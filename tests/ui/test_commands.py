"""What a typed line means (ZSY-5.1 holding the cards): cards, numbered moves, words."""

import pytest

from zsy_lan.engine.cards import parse_cards_exact, sort_cards
from zsy_lan.engine.errors import ParseError
from zsy_lan.engine.round import legal_actions, new_round
from zsy_lan.engine.rules import base_rules
from zsy_lan.engine.state import evolve
from zsy_lan.ui.commands import Request, interpret

RULES = base_rules(4)


def hand(text: str) -> tuple[int, ...]:
    return sort_cards(parse_cards_exact(text, 1))


def _table(cards: str):
    """Seat 0 to lead with ``cards``; the others hold cards it does not."""
    hands = [hand(t) for t in (cards, "8 8 10 10", "J J Q Q", "K K A A")]
    state = evolve(new_round(RULES, hands, round_no=2, dealer=3, leader=0), must_contain=None)
    return state, legal_actions(RULES, state, 0)


def test_a_bare_number_is_a_card_not_a_move_number():
    state, legal = _table("4 5 6 7 9")
    action = interpret("4", RULES, state, 0, legal)
    assert action.cards == hand("4")
    assert legal[3].cards != hand("4")  # move #4 is another play: "4" must not pick it


def test_hash_number_picks_that_move_of_the_list():
    state, legal = _table("4 5 6 7 9")
    assert interpret("#2", RULES, state, 0, legal) == legal[1]
    assert interpret("# 3", RULES, state, 0, legal) == legal[2]


@pytest.mark.parametrize("text", ["#0", "#99", "#x", "#"])
def test_a_move_number_outside_the_list_is_refused_with_the_range(text):
    state, legal = _table("4 5 6 7 9")
    with pytest.raises(ParseError) as exc:
        interpret(text, RULES, state, 0, legal)
    assert f"#1..#{len(legal)}" in str(exc.value)


def test_a_move_number_out_of_turn_is_refused():
    state, _ = _table("4 5 6 7 9")
    with pytest.raises(ParseError, match="not your turn"):
        interpret("#1", RULES, state, 0, [])


def test_words_are_requests():
    state, legal = _table("4 5 6 7 9")
    assert interpret("?", RULES, state, 0, legal) == Request("list")
    assert interpret("h", RULES, state, 0, legal) == Request("hint")


def test_unread_notices_keep_the_newest_up_to_the_limit():
    """A seat nobody reads (a bot inside the host's process) keeps a bounded backlog."""
    from zsy_lan.table.session import NOTICE_LIMIT, Notice, NoticeQueue

    q = NoticeQueue()
    for i in range(NOTICE_LIMIT + 50):
        q.put_nowait(Notice("play", str(i)))
    assert q.qsize() == NOTICE_LIMIT
    assert q.get_nowait().text == "50"  # the 50 oldest went
