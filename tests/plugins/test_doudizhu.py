"""Dou Dizhu (DDZ-1 to DDZ-6), rule by rule."""

from __future__ import annotations

import pytest

from zsy_lan.engine.cards import parse_rank_list, rank_counts
from zsy_lan.engine.combos import Combo, beats, classify, legal_plays
from zsy_lan.engine.errors import ConfigError, RuleError
from zsy_lan.engine.match import new_match
from zsy_lan.engine.ruleset import build_rules
from zsy_lan.engine.state import Action
from zsy_lan.engine.view import view
from zsy_lan.plugins import doudizhu as ddz
from zsy_lan.testing import Table

R3 = build_rules(3, ["doudizhu"])
R4 = build_rules(4, ["doudizhu"])


def kind(rules, text):
    counts = [0] * 15
    for r in parse_rank_list(text):
        counts[r] += 1
    return classify(rules, counts)


def moves(rules, hand, last=None):
    counts = [0] * 15
    for r in parse_rank_list(hand):
        counts[r] += 1
    combo = kind(rules, last) if last else None
    return {" ".join(_names(p.ranks)) for p in legal_plays(rules, counts, combo)}


def _names(ranks):
    from zsy_lan.engine.cards import RANK_NAMES

    return [RANK_NAMES[r] for r in ranks]


# --- DDZ-1 players and deal ----------------------------------------------------------


def test_ddz1_deck_and_deal():  # DDZ-1
    assert R3.players == 3 and len(R3.deck) == 54 and R3.kitty_size == 3
    assert R3.hand_sizes() == (17, 17, 17)
    t = Table(["doudizhu"])
    st = t.deal(1)
    assert st.phase == "bidding"
    assert st.counts == (17, 17, 17)
    assert len(st.get("secret_kitty")) == 3
    assert st.turn == st.get("first_bidder")


def test_ddz1_first_bidder_is_drawn_from_the_seed():  # DDZ-1
    firsts = {Table(["doudizhu"]).deal(s).turn for s in range(30)}
    assert firsts == {0, 1, 2}


def test_ddz_default_players_is_three_and_five_refused():  # DDZ-1
    assert build_rules(None, ["doudizhu"]).players == 3
    with pytest.raises(ConfigError, match="doudizhu"):
        build_rules(5, ["doudizhu"])


# --- DDZ-2 bidding -----------------------------------------------------------------------


def bidding_table(show=False, doubling=False, first=0):
    t = Table(["doudizhu"], options={"show_kitty": show, "doubling": doubling})
    t.set_hands("3 3 4 4 5 5 6 6 7 7 8 8 9 9 10 10 J", "3 4 5 6 7 8 9 10 J Q K A 2 2 Q K A",
                "3 4 5 6 7 8 9 10 J J Q K A 2 2 BJ RJ", kitty="Q K A", turn=first)
    return t


def test_ddz2_1_bids_must_rise():  # DDZ-2.1
    t = bidding_table()
    assert [a.value for a in t.legal(0)] == [1, 2, 3, 0]
    t.bid(0, 2)
    assert [a.value for a in t.legal(1)] == [3, 0]
    t.expect_illegal(1, Action("bid", 1, value=2), rule="DDZ-2.1")
    t.expect_illegal(1, Action("bid", 1, value=4), rule="DDZ-2.1")
    t.expect_illegal(2, Action("bid", 2, value=3), rule="DDZ-2.1")  # not its turn


def test_ddz2_1_playing_cards_during_the_bidding_says_what_to_type():  # DDZ-2.1
    t = bidding_table()
    t.bid(0, 1)
    err = t.expect_illegal(1, Action("play", 1, t.state.hands[1][:1]), rule="DDZ-2.1")
    assert "'bid 2' or 'bid 3' or 'pass'" in str(err)


def test_ddz2_2_bid_of_three_ends_at_once():  # DDZ-2.2
    t = bidding_table()
    t.bid(0, 1)
    st = t.bid(1, 3)
    assert st.phase == "play" and ddz.landlord_of(st) == 1 and st.get("bid") == 3
    assert st.turn == 1 and st.leader == 1  # DDZ-4.1


def test_ddz2_2_two_passes_after_a_bid_end_it():  # DDZ-2.2
    t = bidding_table()
    t.bid(0, 1)
    t.bid(1, 2)
    t.bid(2, 0)
    assert t.state.phase == "bidding"  # only one pass in succession so far
    st = t.bid(0, 0)
    assert ddz.landlord_of(st) == 1 and st.get("bid") == 2


def test_ddz2_2_a_player_who_passed_may_bid_again():  # DDZ-2.2 (our reading)
    t = bidding_table()
    t.bid(0, 0)
    t.bid(1, 1)
    t.bid(2, 0)
    st = t.bid(0, 2)
    assert st.phase == "bidding" and st.get("bid") == 2


def test_ddz2_3_all_pass_voids_the_hand_and_asks_for_a_new_seed():  # DDZ-2.3
    t = Table(["doudizhu"], rounds=3)
    st = t.deal(5)
    for _ in range(3):
        st = t.bid(st.turn, 0)
    assert st.phase == "done" and st.get("void")
    assert t.game.needs_seed() and t.match.results == ()
    st2 = t.deal(6)
    assert st2.phase == "bidding" and st2.round_no == 1


def test_ddz2_4_landlord_takes_the_kitty():  # DDZ-2.4
    t = bidding_table()
    kitty = t.state.get("secret_kitty")
    st = t.bid(0, 3)
    assert st.counts == (20, 17, 17)
    assert set(kitty) <= set(st.hands[0])
    assert st.get("kitty") is None  # face down: nobody else sees it
    for seat in (1, 2):
        v = view(st, seat)
        assert v.get("secret_kitty") is None and v.hands[0] is None


def test_ddz2_4_show_kitty_option():  # DDZ-2.4 option
    t = bidding_table(show=True)
    kitty = t.state.get("secret_kitty")
    assert view(t.state, 1).get("kitty") is None  # not before it is taken
    st = t.bid(0, 3)
    assert view(st, 1).get("kitty") == kitty


# --- DDZ-3 combinations ----------------------------------------------------------------


@pytest.mark.parametrize(
    "text,expected",
    [
        ("5", ("single", 1, 2)),
        ("RJ", ("single", 1, 14)),
        ("5 5", ("pair", 2, 2)),
        ("2 2 2", ("triple", 3, 12)),
        ("5 5 5 9", ("triple1", 4, 2)),
        ("5 5 5 9 9", ("triple2", 5, 2)),
        ("3 4 5 6 7", ("chain", 5, 4)),
        ("10 J Q K A", ("chain", 5, 11)),
        ("3 3 4 4 5 5", ("pairchain", 6, 2)),
        ("7 7 7 8 8 8", ("plane", 6, 5)),
        ("7 7 7 8 8 8 3 K", ("plane1", 8, 5)),
        ("7 7 7 8 8 8 3 3 K K", ("plane2", 10, 5)),
        ("7 7 7 8 8 8 3 3", ("plane1", 8, 5)),  # rlcard: single wings may share a rank
        ("7 7 7 8 8 8 2 BJ", ("plane1", 8, 5)),  # a 2 or one joker may be a wing
        ("6 6 6 6 3 K", ("four2", 6, 3)),
        ("6 6 6 6 3 3 K K", ("four22", 8, 3)),
        ("9 9 9 9", ("bomb", 4, 6)),
        ("BJ RJ", ("rocket", 2, 14)),
    ],
)
def test_ddz3_combinations(text, expected):  # DDZ-3
    assert tuple(kind(R3, text)) == expected


@pytest.mark.parametrize(
    "text",
    [
        "J Q K A 2",  # DDZ-3: 2s never in chains
        "3 4 5 6",  # chains need 5
        "3 3 4 4",  # pair chains need 3 pairs
        "K K K A A A 2 2 2",  # the 2 ends no airplane
        "7 7 7 8 8 8 BJ RJ",  # wings may not be both jokers
        "7 7 7 8 8 8 3 3 K",  # mixed wings
        "7 7 7 8 8 8 7 K",  # wing of a triple's rank
        "6 6 6 6 3 3",  # four+two singles of the same rank
        "6 6 6 6 BJ RJ",  # four+two: not both jokers
        "6 6 6 6 3 3 3 3",  # four+two pairs of one rank
        "BJ BJ",  # one deck: impossible, and not a pair
        "3 3 4 4 5",
    ],
)
def test_ddz3_not_combinations(text):  # DDZ-3
    counts = rank_counts([])
    for r in parse_rank_list(text):
        counts[r] += 1
    assert classify(R3, counts) is None or text == "BJ BJ"


def test_ddz3_longer_airplane_beats_wing_reading():  # DDZ-3 (rlcard: no adjacent triple wings)
    assert tuple(kind(R3, "3 3 3 4 4 4 5 5 5 6 6 6")) == ("plane", 12, 3)
    assert kind(R3, "4 4 4 5 5 5 6 6 6 9 9 9") == Combo("plane1", 12, 3)


def test_ddz3_generation_matches_classification():  # DDZ-3: plays classify as themselves
    hand = "3 3 3 4 4 4 5 5 5 6 7 8 9 9 2 2 BJ RJ K K"
    counts = [0] * 15
    for r in parse_rank_list(hand):
        counts[r] += 1
    plays = legal_plays(R3, counts)
    assert len(plays) == len(set(plays))
    for p in plays:
        c = [0] * 15
        for r in p.ranks:
            c[r] += 1
        assert classify(R3, c) == p.combo, p


@pytest.mark.parametrize(
    "text",
    [
        "5 5 5 6 6 6 7 7 7 8 8 8 9 9 9 3",  # a wing triple next to the airplane
        "5 5 5 6 6 6 7 7 7 8 8 8 3 3 3 3",  # a four among single wings
        "7 7 7 8 8 8 3 3 3 3",  # a four split into two pair wings
    ],
)
def test_ddz3_d_wings_limits(text):  # DDZ-3 D (2026-12-01, with rlcard)
    assert kind(R3, text) is None


def test_ddz3_d_a_triple_away_from_the_airplane_may_be_wings():  # DDZ-3 D (2026-12-01)
    assert kind(R3, "5 5 5 6 6 6 7 7 7 8 8 8 2 2 2 3") == Combo("plane1", 16, 5)


# --- DDZ-4 play and comparison -----------------------------------------------------------


@pytest.mark.parametrize(
    "play,last,ok",
    [
        ("8", "7", True),
        ("7", "7", False),
        ("4 5 6 7 8", "3 4 5 6 7", True),
        ("4 5 6 7 8 9", "3 4 5 6 7", False),  # DDZ-4.2 same number of cards
        ("8 8 8 3", "7 7 7 A", True),  # DDZ-4.2 kickers never matter
        ("8 8 8 3 3", "7 7 7 A", False),
        ("8 8 8 9 9 9 3 4", "7 7 7 8 8 8 A 2", True),
        ("8 8 8 9 9 9 3 3 4 4", "7 7 7 8 8 8 A 2", False),
        ("3 3 3 3", "2 2", True),  # DDZ-4.3 a bomb beats anything
        ("3 3 3 3", "6 6 6 6 A K", True),  # four+two is no bomb
        ("4 4 4 4", "3 3 3 3", True),
        ("BJ RJ", "2 2 2 2", True),  # the rocket beats all
        ("2 2 2 2", "BJ RJ", False),
    ],
)
def test_ddz4_comparison(play, last, ok):  # DDZ-4.2, DDZ-4.3
    assert beats(R3, kind(R3, play), kind(R3, last)) is ok
    assert (" ".join(_names(sorted(parse_rank_list(play)))) in moves(R3, play, last)) is ok


def test_ddz4_following_lists_only_beating_plays():  # DDZ-4.2
    got = moves(R3, "3 3 3 4 4 4 9 9 9 9 5 6 BJ RJ", "5 5 5 6 6 6 7 8")
    assert got == {"9 9 9 9", "BJ RJ"}
    got = moves(R3, "3 4 5 6 7 8 9 10 J", "4 5 6 7 8")
    assert got == {"5 6 7 8 9", "6 7 8 9 10", "7 8 9 10 J"}


def ddz_play_table():
    t = bidding_table()
    t.bid(0, 3)
    return t


def test_ddz4_landlord_leads_and_two_passes_end_the_trick():  # DDZ-4.1, DDZ-4.4
    t = ddz_play_table()
    st = t.play(0, "3")
    assert st.turn == 1
    t.pass_(1)
    st = t.pass_(2)
    assert st.trick is None and st.turn == 0


def test_ddz4_5_hand_ends_when_one_player_is_out():  # DDZ-4.5
    t = Table(["doudizhu"], options={"match_multiple": 1}, rounds=1)
    t.set_hands("3 4 5 6 7 8 9 10 J Q K A 2 2 2 2 BJ", "3 3 4 4 5 5 6 6 7 7 8 8 9 9 10 10 J",
                "3 4 5 6 7 8 9 10 J J Q Q Q K K A A", kitty="K A RJ", turn=0)
    t.bid(0, 1)
    t.bid(1, 0)
    t.bid(2, 0)
    t.play(0, "3 4 5 6 7 8 9 10 J Q K A")
    t.pass_(1)
    t.pass_(2)
    t.play(0, "2 2 2 2 K A")
    t.pass_(1)
    t.pass_(2)
    st = t.play(0, "BJ RJ")
    assert st.phase == "done" and st.finished[0] == 0
    res = t.match.results[-1]
    # DDZ-5: bid 1, a bomb-free four+two, the rocket doubles, spring doubles: 1*2*2 = 4
    assert res.points == (8, -4, -4)


# --- DDZ-5 scoring --------------------------------------------------------------------------


def finished_state(lord_wins=True, bombs=0, bid=2, farmer_plays=1, lord_plays=3, doubles=None):
    from zsy_lan.engine.round import new_round
    from zsy_lan.engine.state import evolve, with_extra

    st = new_round(R3, [(0,), (1,), (2,)], round_no=1, dealer=0)
    extra = {"landlord": 0, "bid": bid, "bombs": bombs}
    if doubles is not None:
        extra["doubles"] = doubles
    st = with_extra(st, **extra)
    finished = (0, 1, 2) if lord_wins else (1, 2, 0)
    return evolve(st, phase="done", finished=finished,
                  plays_made=(lord_plays, farmer_plays, farmer_plays))


def test_ddz5_1_stake_doubles_per_bomb():  # DDZ-5.1
    assert ddz.score(R3, finished_state(bombs=0)) == (4, -2, -2)
    assert ddz.score(R3, finished_state(bombs=2)) == (16, -8, -8)


def test_ddz5_1_spring():  # DDZ-5.1
    assert ddz.score(R3, finished_state(farmer_plays=0)) == (8, -4, -4)
    assert ddz.score(R3, finished_state(lord_wins=False, lord_plays=1)) == (-8, 4, 4)
    assert ddz.score(R3, finished_state(lord_wins=False, lord_plays=2)) == (-4, 2, 2)


def test_ddz5_2_seed_example():  # DDZ-5.2: bid 2, a bomb and the rocket: 8
    assert ddz.score(R3, finished_state(bid=2, bombs=2)) == (16, -8, -8)
    assert ddz.score(R3, finished_state(bid=2, bombs=2, lord_wins=False)) == (-16, 8, 8)


def test_ddz5_3_match_is_a_multiple_of_three():  # DDZ-5.3
    with pytest.raises(RuleError) as exc:
        new_match(R3, 5)
    assert exc.value.rule == "DDZ-5.3"
    new_match(R3, 9)
    new_match(build_rules(3, ["doudizhu"], {"match_multiple": "1"}), 5)


def test_ddz5_3_highest_total_wins():  # DDZ-5.3
    res = Table(["doudizhu"]).selfplay(3, seed=4, bot="greedy")
    best = max(res.totals)
    assert all(res.totals[w] == best for w in res.winners)
    assert sum(res.totals) == 0


def four_player_table(**options):
    """A 4-player Dou Dizhu table (DDZ-6.3): 25 cards each, the 8 highest in the kitty."""
    from zsy_lan.engine.cards import RANK_NAMES, full_deck, rank_of, sort_cards

    names = [RANK_NAMES[rank_of(c)] for c in sort_cards(full_deck(2))]
    t = Table(["doudizhu"], players=4, options={"match_multiple": 1, **options})
    t.set_hands(*(" ".join(names[i:100:4]) for i in range(4)), kitty=" ".join(names[100:]),
                turn=0)
    return t


def test_ddz4_4_d_four_players_bidding_ends_after_three_passes():  # DDZ-4.4 D (2026-12-01)
    t = four_player_table()
    t.bid(0, 1)
    t.bid(1, 0)
    st = t.bid(2, 0)
    assert st.phase == "bidding" and st.turn == 3  # two passes are not enough with four
    st = t.bid(3, 0)
    assert st.phase == "play" and st.get("landlord") == 0 and st.counts[0] == 33


def test_ddz4_4_d_four_players_all_passing_voids_the_hand():  # DDZ-4.4 D, DDZ-2.3
    t = four_player_table()
    for seat in range(3):
        st = t.bid(seat, 0)
        assert st.phase == "bidding"
    st = t.bid(3, 0)
    assert st.phase == "done" and st.get("void")


def test_ddz6_2_d_four_players_stakes_per_farmer():  # DDZ-6.2 D with DDZ-6.3
    from zsy_lan.engine.state import evolve

    t = four_player_table(doubling=True)
    t.bid(0, 2)
    for seat in (1, 2, 3):
        t.bid(seat, 0)
    assert [a.kind for a in t.legal(1)] == ["double", "double"]
    t.act(Action("double", 1, value=1))
    t.act(Action("double", 2, value=0))
    t.act(Action("double", 3, value=1))
    st = t.act(Action("redouble", 0, value=1))
    assert st.phase == "play" and st.get("doubles") == (1, 1, 0, 1)
    done = evolve(st, phase="done", finished=(0,), plays_made=(3, 1, 1, 1))
    assert ddz.stakes(t.rules, done) == {1: 8, 2: 2, 3: 8}  # only doubled stakes redoubled
    assert ddz.score(t.rules, done) == (18, -8, -2, -8)


def test_ddz4_4_d_four_players_trick_ends_after_three_passes():  # DDZ-4.4 D (2026-12-01)
    t = four_player_table()
    t.bid(0, 3)
    t.play(0, "3")
    t.pass_(1)
    st = t.pass_(2)
    assert st.trick is not None and st.turn == 3
    st = t.pass_(3)
    assert st.trick is None and st.turn == 0


# --- DDZ-6 options ------------------------------------------------------------------------


def test_ddz6_2_doubling():  # DDZ-6.2
    t = bidding_table(doubling=True)
    t.bid(0, 2)
    t.bid(1, 0)
    st = t.bid(2, 0)
    assert st.phase == "doubling" and st.turn == 1
    t.act(Action("double", 1, value=1))
    st = t.act(Action("double", 2, value=0))
    assert st.turn == 0  # the landlord may redouble because a farmer doubled
    st = t.act(Action("double", 0, value=1))
    assert st.phase == "play" and st.turn == 0
    st = finished_state(bid=2, doubles=(1, 1, 0))
    assert ddz.score(R3, st) == (2 * 4 + 2, -8, -2)


def test_ddz6_2_the_landlord_is_offered_a_redouble_after_a_double():  # DDZ-6.2
    t = bidding_table(doubling=True)
    t.bid(0, 2)
    t.bid(1, 0)
    t.bid(2, 0)
    assert t.legal(1) == [Action("double", 1, value=0), Action("double", 1, value=1)]
    t.act(Action("double", 1, value=0))
    t.act(Action("double", 2, value=1))
    assert t.legal(0) == [Action("redouble", 0, value=0), Action("redouble", 0, value=1)]
    t.expect_illegal(0, Action("bid", 0, value=3), rule="DDZ-6.2")
    st = t.act(Action("redouble", 0, value=1))
    assert st.phase == "play" and st.get("doubles") == (1, 0, 1)
    # per farmer (DDZ-6.2 D): only the doubling farmer's stake is doubled, then redoubled
    st = finished_state(bid=2, doubles=(1, 0, 1))
    assert ddz.stakes(R3, st) == {1: 2, 2: 8}


def test_ddz6_2_a_farmer_cannot_redouble():  # DDZ-6.2
    t = bidding_table(doubling=True)
    t.bid(0, 3)
    t.expect_illegal(1, Action("redouble", 1, value=1), rule="DDZ-6.2")


def test_ddz6_2_no_redouble_without_a_double():  # DDZ-6.2
    t = bidding_table(doubling=True)
    t.bid(0, 3)
    t.act(Action("double", 1, value=0))
    st = t.act(Action("double", 2, value=0))
    assert st.phase == "play"


def test_ddz6_3_four_players():  # DDZ-6.3
    assert len(R4.deck) == 108 and R4.kitty_size == 8 and R4.hand_sizes() == (25,) * 4
    names = {k.name for k in R4.kinds}
    assert "triple1" not in names and "plane1" not in names and "four2" not in names
    assert kind(R4, "BJ RJ") is None  # not a pair, not the rocket
    assert tuple(kind(R4, "BJ BJ")) == ("pair", 2, 13)
    assert tuple(kind(R4, "BJ BJ RJ RJ")) == ("rocket", 4, 14)
    assert beats(R4, kind(R4, "3 3 3 3 3"), kind(R4, "2 2 2 2"))  # more cards beat fewer
    assert beats(R4, kind(R4, "BJ BJ RJ RJ"), kind(R4, "3 3 3 3 3 3 3 3"))
    t = Table(["doudizhu"], players=4)
    st = t.deal(3)
    assert st.counts == (25,) * 4 and len(st.get("secret_kitty")) == 8


def test_ddz6_3_only_big_bombs_double():  # DDZ-6.3
    from zsy_lan.engine.state import with_extra

    st = with_extra(Table(["doudizhu"], players=4).deal(1), bombs=0)
    assert ddz.zsy_on_play(R4, st, None, Combo("bomb", 5, 3)) is None
    assert ddz.zsy_on_play(R4, st, None, Combo("bomb", 6, 3)).get("bombs") == 1
    assert ddz.zsy_on_play(R4, st, None, Combo("rocket", 4, 14)).get("bombs") == 1


# --- the rank-count playout agrees with the state machine -------------------------------


@pytest.mark.parametrize("players", [3, 4])
def test_random_playout_agrees_with_the_engine(players):  # DDZ-2, DDZ-4, DDZ-5
    import hashlib

    from zsy_lan.engine.match import apply_action, deal_round
    from zsy_lan.engine.round import legal_actions, legal_moves, move_action
    from zsy_lan.engine.shuffle import HashStream

    rules = build_rules(players, ["doudizhu"], {"match_multiple": "1"})
    for i in range(25):
        seed = hashlib.sha256(b"agree%d" % i).digest()
        m = deal_round(rules, new_match(rules, 1), seed)
        st = m.round
        counts = [rank_counts(h) for h in st.hands]
        kitty = rank_counts(st.get("secret_kitty"))
        expected = ddz.random_playout(rules, counts, kitty, st.turn,
                                      HashStream(b"picks%d" % i).uniform)
        stream = HashStream(b"picks%d" % i)
        while m.phase == "playing":
            st = m.round
            if st.phase == "play":
                mv = legal_moves(rules, st, st.turn)
                action = move_action(st, st.turn, mv[stream.uniform(len(mv))])
            else:
                acts = legal_actions(rules, st, st.turn)
                action = acts[stream.uniform(len(acts))]
            m = apply_action(rules, m, action)
        got = m.results[-1].points if m.results else None
        assert got == expected
