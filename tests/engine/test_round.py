"""The round state machine: deal, first lead, tricks, the end, tribute (ZSY-1 to ZSY-7)."""

import pytest
from engine_helpers import hand, passes, play, position

from zsy_lan.engine.cards import make_card
from zsy_lan.engine.errors import RuleError
from zsy_lan.engine.round import apply, deal_hands, legal_actions, new_round, start_card_holder
from zsy_lan.engine.rules import base_rules
from zsy_lan.engine.shuffle import shuffled
from zsy_lan.engine.state import Action, Duty, evolve

R4 = base_rules(4)


@pytest.mark.parametrize(
    "players,sizes",
    [(3, [18, 17, 17]), (4, [14, 14, 13, 13]), (5, [22, 22, 22, 21, 21]), (6, [18] * 6)],
)
def test_deal_sizes_extras_go_first_after_dealer(players, sizes):  # ZSY-1.2 D
    rules = base_rules(players)
    dealer = 2
    hands, kitty = deal_hands(rules, shuffled(rules.deck, b"s"), dealer)
    got = [len(hands[(dealer + 1 + i) % players]) for i in range(players)]
    assert got == sizes and kitty == ()
    assert sorted(c for h in hands for c in h) == sorted(rules.deck)


def test_deal_refuses_a_non_permutation():  # ZSY-1.2
    with pytest.raises(RuleError) as err:
        deal_hands(R4, list(R4.deck[:-1]) + [R4.deck[0]], 0)
    assert err.value.rule == "ZSY-1.2"


def test_start_card_and_first_lead():  # ZSY-2.1
    hands, _ = deal_hands(R4, shuffled(R4.deck, b"x"), 0)
    holder = start_card_holder(R4, hands, 0)
    assert make_card(0, 0) in hands[holder]  # 3♦ with 4 players
    st = new_round(R4, hands, round_no=1, dealer=0)
    assert st.turn == holder and st.must_contain == make_card(0, 0)
    other = next(c for c in hands[holder] if c != make_card(0, 0))
    with pytest.raises(RuleError) as err:
        apply(R4, st, play(holder, (other,)))
    assert err.value.rule == "ZSY-2.1"
    for a in legal_actions(R4, st, holder):
        assert make_card(0, 0) in a.cards
    st2 = apply(R4, st, play(holder, (make_card(0, 0),)))
    assert st2.must_contain is None and st2.turn == (holder + 1) % 4


def test_three_players_start_with_three_of_hearts():  # ZSY-2.1 D
    r3 = base_rules(3)
    assert r3.lowest_card == make_card(0, 2)


def test_two_decks_first_holder_after_dealer_leads():  # ZSY-2.1 D
    r6 = base_rules(6)
    hands = [()] * 6
    hands = list(hands)
    hands[1] = (make_card(0, 0, deck=1),)
    hands[4] = (make_card(0, 0, deck=0),)
    assert start_card_holder(r6, hands, dealer=3) == 4
    assert start_card_holder(r6, hands, dealer=0) == 1


def test_fixed_start_card_option():  # ZSY-2.1 table option
    r = base_rules(4, start_card=make_card(0, 2))
    hands, _ = deal_hands(r, shuffled(r.deck, b"y"), 1)
    holder = start_card_holder(r, hands, 1)
    assert make_card(0, 2) in hands[holder]


def test_turns_passes_and_trick_winner():  # ZSY-5.1, ZSY-5.2
    st = position(R4, ["3 4 5 9", "6 7 8 10", "J Q K 2", "A A 8 9"], turn=0)
    with pytest.raises(RuleError) as err:
        apply(R4, st, passes(0))  # the leader must play
    assert err.value.rule == "ZSY-5.1"
    with pytest.raises(RuleError) as err:
        apply(R4, st, play(1, hand("6")))
    assert "turn" in str(err.value)
    st = apply(R4, st, play(0, hand("3")))
    st = apply(R4, st, passes(1))  # passing is allowed even when a play is possible
    st = apply(R4, st, play(2, hand("J")))
    st = apply(R4, st, passes(3))
    st = apply(R4, st, passes(0))
    assert st.trick is not None  # seat 1 may still act in the same trick
    st = apply(R4, st, passes(1))
    assert st.trick is None and st.turn == 2 and st.leader == 2


def test_follow_must_match_type_and_be_higher():  # ZSY-4.1, ZSY-4.2
    st = position(R4, ["3 3 4", "5 5 6 6 6", "7 7 7 7", "8 9"], turn=0)
    st = apply(R4, st, play(0, hand("3 3")))
    with pytest.raises(RuleError) as err:
        apply(R4, st, play(1, hand("6 6 6")))
    assert err.value.rule == "ZSY-4.1"
    st = apply(R4, st, play(1, hand("5 5")))
    st = apply(R4, st, play(2, hand("7 7 7 7")))  # a bomb beats the pair
    st = apply(R4, st, passes(3))
    with pytest.raises(RuleError) as err:
        apply(R4, st, play(0, hand("4")))
    assert err.value.rule == "ZSY-4.2"


def test_cards_not_held_and_non_combinations():  # ZSY-3.5
    st = position(R4, ["3 4 5 9", "6 7 8 10", "J Q K 2", "A A 8 9"], turn=0)
    with pytest.raises(RuleError) as err:
        apply(R4, st, play(0, hand("3 4")))
    assert err.value.rule == "ZSY-3.5"
    with pytest.raises(RuleError, match="does not hold"):
        apply(R4, st, play(0, hand("K")))


def test_finished_players_are_skipped_and_lead_passes_on():  # ZSY-5.3, ZSY-5.4, ZSY-6.1
    st = position(R4, ["3", "6 7", "J Q", "A 2"], turn=0)
    st = apply(R4, st, play(0, hand("3")))  # seat 0 goes out with the lead
    assert st.finished == (0,)
    assert st.first_out_counts == (0, 2, 2, 2)
    st = apply(R4, st, passes(1))
    st = apply(R4, st, passes(2))
    st = apply(R4, st, passes(3))
    # the winner is out: the next active player after them leads (ZSY-5.4 D)
    assert st.trick is None and st.turn == 1
    st = apply(R4, st, play(1, hand("6")))
    st = apply(R4, st, play(2, hand("J")))
    st = apply(R4, st, play(3, hand("A")))
    assert st.turn == 1  # seat 0 is skipped


def test_round_ends_when_one_player_holds_cards():  # ZSY-6.1, ZSY-6.2
    st = position(R4, ["3", "4", "5", "6 7"], turn=0)
    st = apply(R4, st, play(0, hand("3")))
    st = apply(R4, st, play(1, hand("4")))
    assert st.phase == "play"
    st = apply(R4, st, play(2, hand("5")))  # only seat 3 holds cards now: Downstream
    assert st.phase == "done" and st.finished == (0, 1, 2, 3) and st.turn == -1
    with pytest.raises(RuleError) as err:
        apply(R4, st, play(3, hand("6")))
    assert err.value.rule == "ZSY-6.2"


def tribute_state(hands_text, duties, leader=0):
    rules = R4
    st = position(rules, hands_text, turn=leader)
    return rules, evolve(st, phase="tribute", duties=tuple(duties), turn=duties[0].giver)


DUTIES_4 = [
    Duty("give", 3, 0, 2),
    Duty("give", 2, 1, 1),
    Duty("return", 0, 3, 2),
    Duty("return", 1, 2, 1),
]


def test_tribute_both_tiers_four_players():  # ZSY-7.1, ZSY-7.2
    rules, st = tribute_state(["3 4 5", "6 7 8", "9 10 2 BJ", "J Q K A RJ"], DUTIES_4)
    assert [a.cards for a in legal_actions(rules, st, 3)] == [hand("K A")]  # jokers excluded
    st = apply(rules, st, Action("give", 3, hand("K A")))
    assert st.tribute_log[-1] == (3, 0, hand("K A"), 2)  # face up: public
    st = apply(rules, st, Action("give", 2, hand("2")))
    st = apply(rules, st, Action("return", 0, hand("3 4")))
    st = apply(rules, st, Action("return", 1, hand("6")))
    assert st.phase == "play" and st.turn == 0  # the Upstream leads freely (ZSY-2.2)
    assert st.hands[0] == hand("5 K A") and st.hands[3] == hand("3 4 J Q RJ")
    assert st.tribute_log[2] == (0, 3, None, 2)  # the return is face down


def test_tribute_cannot_hold_back_a_higher_card():  # ZSY-7.4
    rules, st = tribute_state(["3 4 5", "6 7 8", "9 10 2", "J Q K A"], DUTIES_4)
    with pytest.raises(RuleError) as err:
        apply(rules, st, Action("give", 3, hand("J Q")))
    assert err.value.rule == "ZSY-7.4"


def test_tribute_ties_giver_picks_the_copy():  # ZSY-7.3
    rules, st = tribute_state(["3 4 5", "6 7 8", "9 10 2", "Jc A Ad As"], DUTIES_4)
    st = apply(rules, st, Action("give", 3, hand("As Ad")))
    assert hand("As") in [(c,) for c in st.hands[0]]


def test_three_players_main_tribute_only():  # ZSY-7.2
    from zsy_lan.engine.match import tribute_duties

    assert len(tribute_duties(base_rules(3), (1, 0, 2))) == 2
    assert len(tribute_duties(base_rules(4), (1, 0, 2, 3))) == 4
    assert len(tribute_duties(base_rules(6), (0, 1, 2, 3, 4, 5))) == 2
    big = base_rules(6, second_tribute_big=True)
    assert [d.giver for d in tribute_duties(big, (0, 1, 2, 3, 4, 5))] == [5, 4, 0, 1]
