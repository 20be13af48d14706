"""House rules of seed 004 (ZSY-9.6): every option, each tested."""

from __future__ import annotations

import pytest

from zsy_lan.engine.cards import parse_rank_list
from zsy_lan.engine.combos import Combo, beats, classify, classify_cards
from zsy_lan.engine.errors import ConfigError
from zsy_lan.engine.ruleset import build_rules
from zsy_lan.engine.state import Action
from zsy_lan.plugins.house_rules import WRAP_2, WRAP_A
from zsy_lan.testing import Table, cards


def hr(players=4, **opts):
    return build_rules(players, ["house-rules"], {k: "true" for k in opts})


def kind(rules, text):
    counts = [0] * 15
    for r in parse_rank_list(text):
        counts[r] += 1
    return classify(rules, counts)


def test_zsy9_6_everything_off_by_default_is_the_base_game():  # ZSY-9.6
    base, house = build_rules(4), hr()
    assert house.kinds == base.kinds and house.deck == base.deck


def test_zsy9_6_pair_chains():  # ZSY-9.6 consecutive pairs
    r = hr(pair_chains=1)
    assert kind(r, "5 5 6 6") == Combo("pairchain", 4, 3)
    assert kind(r, "5 5 6 6 7 7") == Combo("pairchain", 6, 4)
    assert kind(build_rules(4), "5 5 6 6") is None
    assert beats(r, kind(r, "6 6 7 7"), kind(r, "5 5 6 6"))
    assert not beats(r, kind(r, "6 6 7 7 8 8"), kind(r, "5 5 6 6"))


def test_zsy9_6_triple_chains():  # ZSY-9.6 consecutive triples
    r = hr(triple_chains=1)
    assert kind(r, "5 5 5 6 6 6") == Combo("triplechain", 6, 3)
    assert kind(hr(), "5 5 5 6 6 6") is None


def test_zsy9_6_triple_with_single():  # ZSY-9.6 compared by the triple
    r = hr(triple_single=1)
    assert kind(r, "9 9 9 3") == Combo("triple1", 4, 6)
    assert beats(r, kind(r, "10 10 10 3"), kind(r, "9 9 9 A"))
    t = Table(["house-rules"], options={"triple_single": True})
    t.set_hands("9 9 9 3", "10 10 10 4", "5", "6", leader=0)
    t.play(0, "9 9 9 3")
    assert "4 10 10 10" in t.moves(1)


def test_zsy9_6_three_card_bombs():  # ZSY-9.6 / ZSY-4.2
    r = hr(three_card_bombs=1)
    assert kind(r, "5 5 5") == Combo("bomb", 3, 2)
    assert beats(r, kind(r, "3 3 3"), kind(r, "2 2"))
    assert beats(r, kind(r, "3 3 3 3"), kind(r, "2 2 2"))  # more cards beat fewer
    assert "triple" not in {k.name for k in r.kinds}


def test_zsy9_6_wrap_straights():  # ZSY-9.6 A2345 > 23456 > 10JQKA > ... > 34567
    r = hr(wrap_straights=1)
    a2345 = kind(r, "A 2 3 4 5")
    s23456 = kind(r, "2 3 4 5 6")
    top = kind(r, "10 J Q K A")
    low = kind(r, "3 4 5 6 7")
    assert a2345 == Combo("straight", 5, WRAP_A) and s23456 == Combo("straight", 5, WRAP_2)
    assert beats(r, a2345, s23456) and beats(r, s23456, top) and beats(r, top, low)
    assert kind(r, "J Q K A 2") is None  # no running past the ace
    assert kind(r, "A 2 3 4 5 6") == Combo("straight", 6, WRAP_A)
    t = Table(["house-rules"], options={"wrap_straights": True})
    t.set_hands("A 2 3 4 5 9", "5", "6", "10 J Q K A 7", leader=3)
    t.play(3, "10 J Q K A")
    assert any(set(m.split()) == {"A", "2", "3", "4", "5"} for m in t.moves(0))


def test_zsy9_6_straight_flush():  # ZSY-9.6 D (2026-12-01): a straight flush is its own kind
    r = hr(straight_flush=1)
    flush = cards("3S 4S 5S 6S 7S", decks=1)
    mixed = cards("4D 5S 6S 7S 8S", decks=1)
    assert classify_cards(r, flush) == Combo("straightflush", 5, 4)
    assert classify_cards(r, mixed) == Combo("straight", 5, 5)
    # different combinations never beat each other, except the bomb
    assert not beats(r, Combo("straightflush", 5, 4), Combo("straight", 5, 11))
    assert not beats(r, Combo("straight", 5, 11), Combo("straightflush", 5, 4))
    assert beats(r, Combo("straightflush", 5, 9), Combo("straightflush", 5, 4))
    assert not beats(r, Combo("straightflush", 6, 9), Combo("straightflush", 5, 4))
    assert beats(r, Combo("bomb", 4, 0), Combo("straightflush", 5, 11))


def test_zsy9_6_straight_flush_does_not_beat_a_plain_straight_at_the_table():  # ZSY-9.6 D
    t = Table(["house-rules"], options={"straight_flush": True})
    t.set_hands("3S 4S 5S 6S 7S 9D", "5D", "6D", "8D 9C 10C JC QC K", leader=3)
    t.play(3, "8D 9C 10C JC QC")
    assert [a.kind for a in t.legal(0)] == ["pass"]  # the flush is no answer, only a bomb
    t.expect_illegal(0, "3S 4S 5S 6S 7S", rule="ZSY-4.1")


def test_zsy9_6_only_a_higher_straight_flush_or_a_bomb_beats_one():  # ZSY-9.6 D
    t = Table(["house-rules"], options={"straight_flush": True})
    t.set_hands("3S 4S 5S 6S 7S 2", "8D 9C 10C JC QC", "4H 5H 6H 7H 8H", "K K K K A",
                leader=0)
    t.play(0, "3S 4S 5S 6S 7S")
    assert t.state.trick_combo.kind == "straightflush"
    t.expect_illegal(1, "8D 9C 10C JC QC", rule="ZSY-4.1")  # a higher plain straight
    t.pass_(1)
    plays = [a for a in t.legal(2) if a.kind == "play"]
    assert [sorted(a.cards) for a in plays] == [sorted(cards("4H 5H 6H 7H 8H", decks=1))]
    t.play(2, "4H 5H 6H 7H 8H")
    t.play(3, "K K K K")  # ZSY-4.2: a bomb beats it
    assert t.state.trick_combo.kind == "bomb"


def test_zsy9_6_straight_flush_cards_still_follow_a_straight_as_a_straight():  # ZSY-4.1
    t = Table(["house-rules"], options={"straight_flush": True})
    t.set_hands("9S 10S JS QS KS 3", "5D", "6D", "4D 5C 6C 7C 8C K", leader=3)
    t.play(3, "4D 5C 6C 7C 8C")
    t.play(0, "9S 10S JS QS KS")  # higher, read as the plain straight it also is
    assert t.state.trick_combo == Combo("straight", 5, 10)


def test_zsy9_6_suit_tiebreak():  # ZSY-9.6 equal straights: the top card's suit decides
    r = hr(suit_tiebreak=1)
    low = classify_cards(r, cards("3D 4D 5D 6D 7H", decks=1))
    high = classify_cards(r, cards("3C 4C 5C 6C 7S", decks=1))
    assert high.key > low.key and beats(r, high, low) and not beats(r, low, high)
    t = Table(["house-rules"], options={"suit_tiebreak": True})
    t.set_hands("3D 4D 5D 6D 7H", "3C 4C 5C 6C 7S 9", "5H", "6H", leader=0)
    t.play(0, "3D 4D 5D 6D 7H")
    plays = [a for a in t.legal(1) if a.kind == "play"]
    assert [sorted(a.cards) for a in plays] == [sorted(cards("3C 4C 5C 6C 7S", decks=1))]


def test_zsy9_6_single_tribute():  # ZSY-9.6 highest card up, two offered, one taken
    from zsy_lan.engine.cards import RANK_OF

    t = Table(["house-rules"], options={"single_tribute": True}, rounds=2)
    t.deal(1)
    t.play_out("greedy")
    order = t.match.results[0].order
    up, down = order[0], order[-1]
    st = t.deal(2)
    assert st.phase == "tribute" and [d.kind for d in st.duties] == ["give", "offer", "pick"]
    top = max(RANK_OF[c] for c in st.hands[down])  # jokers included
    low = min(st.hands[down], key=lambda c: RANK_OF[c])
    if RANK_OF[low] != top:
        t.expect_illegal(down, Action("give", down, (low,)), rule="ZSY-9.6")
    give = t.legal(down)
    assert len(give) == 1 and RANK_OF[give[0].cards[0]] == top
    t.act(give[0])
    offer = t.legal(up)[0]
    t.act(offer)
    assert t.state.get("offered") == tuple(sorted(offer.cards))  # shown to everyone
    pick = t.legal(down)
    assert [a.cards[0] for a in pick] == sorted(offer.cards)
    other = next(c for c in t.state.hands[up] if c not in offer.cards)
    t.expect_illegal(down, Action("pick", down, (other,)), rule="ZSY-9.6")
    st = t.act(pick[1])
    assert st.phase == "play" and st.turn == up
    assert st.counts[up] == len(t.match.round.hands[up]) and sum(st.counts) == 54
    assert pick[1].cards[0] in st.hands[down] and give[0].cards[0] in st.hands[up]


def test_zsy9_6_start_3h():  # ZSY-9.6 / ZSY-2.1 option
    r = hr(start_3h=1)
    assert r.start_card == 2
    st = Table(["house-rules"], options={"start_3h": True}).deal(3)
    assert st.must_contain == 2 and 2 in st.hands[st.turn]


def test_zsy9_6_no_jokers_four_players():  # ZSY-9.6 4 players with 52 cards
    r = hr(no_jokers=1)
    assert len(r.deck) == 52 and r.hand_sizes() == (13, 13, 13, 13)
    with pytest.raises(ConfigError, match="house-rules"):
        hr(players=5, no_jokers=1)


def test_zsy9_6_revolution():  # ZSY-9.6 a four of a kind reverses the rank order
    r = hr(revolution=1)
    assert kind(r, "6 6 6 6") == Combo("four", 4, 3)
    assert not r.bomb_kinds
    t = Table(["house-rules"], options={"revolution": True})
    t.set_hands("6 6 6 6 K 3", "7 7 7 7 4", "A 5", "2 8", leader=0)
    t.play(0, "6 6 6 6")
    assert t.state.get("revolution") == 1
    assert "7 7 7 7" not in t.moves(1)  # higher four cannot beat it any more
    t.pass_(1)
    t.pass_(2)
    t.pass_(3)
    t.play(0, "K")
    assert set(t.moves(1)) == {"4", "7", "pass"}  # lower ranks win now
    with pytest.raises(ConfigError, match="revolution and three_card_bombs"):
        hr(revolution=1, three_card_bombs=1)


def test_house_rules_conflicts():
    with pytest.raises(ConfigError, match="single_tribute conflicts with no-tribute"):
        build_rules(4, ["house-rules", "no-tribute"], {"single_tribute": "1"})
    with pytest.raises(ConfigError, match="doubled-tribute"):
        build_rules(4, ["house-rules", "doubled-tribute"], {"single_tribute": "1"})
