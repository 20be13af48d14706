"""Big Two (RULES.md B2): one or more cases per rule id, through the plugin-author fixture.

Hands are typed with suits where they matter (``3D`` is 3♦); the table is built
exactly as ``zsy play --variant big-two`` builds it.
"""

from __future__ import annotations

import json
from itertools import combinations

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from zsy_lan.cli import cli
from zsy_lan.engine.cards import make_card
from zsy_lan.engine.cards import parse_cards_exact as parse_cards
from zsy_lan.engine.combos import beats, classify_cards, legal_plays
from zsy_lan.engine.errors import ConfigError
from zsy_lan.engine.match import MatchState
from zsy_lan.engine.phases import MatchPhase
from zsy_lan.engine.ruleset import build_rules
from zsy_lan.engine.selfplay import play_match
from zsy_lan.engine.state import PLAY, Action, evolve
from zsy_lan.plugins import big_two
from zsy_lan.testing import Table

THREE_D = make_card(0, 0)
DECK = tuple(range(52))


def table(**options) -> Table:
    return Table(["big-two"], options=options, rounds=2)


def combo(text: str, **options):
    rules = build_rules(None, ["big-two"], options)
    return classify_cards(rules, parse_cards(text))


def beats_text(a: str, b: str, **options) -> bool:
    rules = build_rules(None, ["big-two"], options)
    ca, cb = classify_cards(rules, parse_cards(a)), classify_cards(rules, parse_cards(b))
    assert ca is not None and cb is not None
    return beats(rules, ca, cb)


# --- B2-1 players, deck, deal -----------------------------------------------------------


def test_b2_1_1_four_players_52_cards_13_each():
    t = table()
    assert t.rules.players == 4 and sorted(t.rules.deck) == list(DECK)
    state = t.deal(1)
    assert state.counts == (13, 13, 13, 13)


def test_b2_1_1_three_players_only_with_the_option():
    with pytest.raises(ConfigError, match="three_players"):
        build_rules(3, ["big-two"])


@pytest.mark.parametrize("seed", range(8))
def test_b2_1_1_three_players_the_52nd_card_goes_to_the_holder_of_3d(seed):
    t = Table(["big-two"], players=3, options={"three_players": True})
    state = t.deal(seed)
    holder = next(s for s, h in enumerate(state.hands) if THREE_D in h)
    assert sorted(state.counts) == [17, 17, 18] and state.counts[holder] == 18
    assert state.turn == holder and state.must_contain == THREE_D
    assert state.get("secret_kitty") is None
    assert sorted(c for h in state.hands for c in h) == list(DECK)


def test_b2_1_1_three_players_when_the_set_aside_card_is_the_3d_the_first_seat_takes_it():
    t = Table(["big-two"], players=3, options={"three_players": True})
    state = t.set_hands("4D", "4C", "4H", dealer=2, kitty="3D")
    assert state.hands[0] == (THREE_D, make_card(1, 0)) and state.turn == 0
    assert state.must_contain == THREE_D


def test_b2_1_2_every_card_is_ranked_3d_lowest_2s_highest():
    assert beats_text("2S", "2H") and not beats_text("2H", "2S")
    assert beats_text("3C", "3D") and beats_text("4D", "3S")
    singles = [combo(c).key for c in ("3D", "3C", "3H", "3S", "4D", "AS", "2D", "2S")]
    assert singles == sorted(singles) and len(set(singles)) == len(singles)


# --- B2-2 leads -----------------------------------------------------------------------------


def test_b2_2_1_the_holder_of_3d_leads_every_deal_with_it():
    t = table()
    for seed in range(2):
        state = t.deal(seed)
        holder = next(s for s, h in enumerate(state.hands) if THREE_D in h)
        assert state.turn == holder and state.must_contain == THREE_D
        other = next(c for c in state.hands[holder] if c != THREE_D)
        t.expect_illegal(holder, Action(PLAY, holder, (other,)), rule="B2-2.1")
        assert all(THREE_D in a.cards for a in t.legal(holder) if a.kind == PLAY)
        while t.match.phase == MatchPhase.PLAYING:
            t.act(t.legal(t.state.turn)[0])


def test_b2_2_1_option_winner_leads_from_the_second_deal():
    t = table(winner_leads=True)
    t.deal(0)
    while t.match.phase == MatchPhase.PLAYING:
        t.act(t.legal(t.state.turn)[0])
    winner = t.match.results[-1].order[0]
    state = t.deal(1)
    assert state.turn == winner and state.must_contain is None


def test_b2_2_2_a_passed_player_plays_again_and_all_passing_gives_the_lead():
    t = table()
    t.set_hands("3D 9S KD QS", "5D 6D", "7D 8D", "4C 4D", leader=0)
    t.play(0, "3D")
    t.pass_(1)
    t.play(2, "7D")
    t.pass_(3)
    t.play(0, "9S")
    t.pass_(1)
    t.pass_(2)
    t.pass_(3)
    assert t.state.turn == 0 and t.state.trick is None  # free lead for the last player
    t.play(0, "KD")
    t.expect_illegal(1, "5D", rule="B2-3.2")


def test_b2_2_2_passing_out_of_turn_cites_b2():
    t = table()
    t.set_hands("3D 9S", "5D 6D", "7D 8D", "4C 4D", leader=0)
    t.expect_illegal(1, Action("pass", 1), rule="B2-2.2")


# --- B2-3 combinations ----------------------------------------------------------------------


@pytest.mark.parametrize("text", ["4D 4C 4H 4S", "3D 4D", "5D 6C 7D 8D", "3D 3C 4D 4C"])
def test_b2_3_1_nothing_but_singles_pairs_triples_and_five_card_hands(text):
    assert combo(text) is None
    t = table()
    t.set_hands(text + " KS", "5S", "6S", "7S", leader=0)
    t.expect_illegal(0, text, rule="B2-3.1")


def test_b2_3_1_triples_are_allowed():
    assert combo("9D 9C 9S").kind == "triple"


def test_b2_3_2_same_rank_decided_by_the_highest_suit():
    assert beats_text("KD KS", "KC KH")
    assert not beats_text("KD KH", "KC KS")
    assert beats_text("AD AC", "KH KS")
    t = table()
    t.set_hands("3D KC KH", "KD KS 5D", "6D", "7D", leader=0)
    t.play(0, "KC KH")
    t.play(1, "KD KS")
    t.set_hands("3D KD KS", "KC KH 5D", "6D", "7D", leader=0)
    t.play(0, "KD KS")
    t.expect_illegal(1, "KC KH", rule="B2-3.2")
    t.expect_illegal(1, "5D", rule="B2-3.2")  # a single on a pair


CATEGORIES = [
    ("3D 4C 5D 6D 7D", "straight"),
    ("3D 5D 7D 9D JD", "flush"),
    ("3D 3C 3H 4D 4C", "fullhouse"),
    ("3D 3C 3H 3S 4D", "fourkind"),
    ("3C 4C 5C 6C 7C", "straightflush"),
]


def test_b2_3_3_five_card_categories_low_to_high_and_any_higher_beats_any_lower():
    for i, (low, kind) in enumerate(CATEGORIES):
        assert combo(low).kind == kind
        for high, _ in CATEGORIES[i + 1:]:
            assert beats_text(high, low) and not beats_text(low, high)
    # the highest straight still loses to the lowest flush
    assert beats_text("3D 5D 7D 9D JD", "2S 3S 4H 5H 6H")
    t = table()
    t.set_hands("3D 3C 3H 4D 4C 9S", "5D 7D 9D JD KD 8S", "6S", "7S", leader=0)
    t.play(0, "3D 3C 3H 4D 4C")
    t.expect_illegal(1, "5D 7D 9D JD KD", rule="B2-3.2")


def test_b2_3_4_within_a_category():
    assert beats_text("4C 5D 6D 7D 8S", "4D 5C 6C 7C 8H")  # straights: top card's suit
    assert beats_text("4D 5D 6D 7D 9D", "3S 5S 6S 7S 8S")  # flush: highest card (9♦ > 8♠)
    assert beats_text("4D 4C 4H 3D 3C", "3H 3S 3D 2D 2S") is True  # full house by the triple
    assert beats_text("5D 5C 5H 5S 3D", "4D 4C 4H 4S 2S")  # four + one by the four
    assert beats_text("4H 5H 6H 7H 8H", "4S 5S 6S 7S 8S") is False


def test_b2_3_4_option_flushes_by_suit_first():
    assert beats_text("4D 5D 6D 7D 9D", "3S 5S 6S 7S 8S")
    assert beats_text("3S 5S 6S 7S 8S", "4D 5D 6D 7D 9D", flush_by_suit=True)
    assert beats_text("3S 5S 6S 7S 9S", "3S 4S 6S 7S 8S", flush_by_suit=True)


def test_b2_3_5_straights_23456_highest_then_a2345_then_10jqka_and_no_other_wraps():
    order = ["3D 4C 5D 6D 7S", "10D JC QD KD AS", "AD 2C 3D 4D 5S", "2D 3C 4D 5D 6S"]
    for lo, hi in zip(order, order[1:], strict=False):
        assert beats_text(hi, lo) and not beats_text(lo, hi)
    assert combo("JD QC KD AD 2S") is None
    assert combo("QD KC AD 2D 3S") is None
    assert combo("2D 3C 4D 5D 6S").kind == "straight"
    # the 2 decides between two A2345s (the highest card of the straight)
    assert beats_text("AD 2S 3D 4D 5C", "AS 2H 3S 4S 5D")


# --- B2-4 end and scoring ---------------------------------------------------------------------


def test_b2_4_1_the_deal_ends_at_the_first_out():
    t = table()
    t.set_hands("3D", "5D 6D", "7D 8D 9D", "4C 4D", leader=0)
    t.play(0, "3D")
    assert t.match.results and t.match.results[-1].order[0] == 0


@pytest.mark.parametrize(
    "left, two, double, pays",
    [(1, False, False, 1), (9, False, False, 9), (10, False, False, 20), (12, True, False, 24),
     (13, False, False, 39), (5, True, True, 10), (13, True, True, 78), (17, False, False, 51)],
)
def test_b2_4_2_penalties(left, two, double, pays):
    assert big_two.penalty(left, two, double) == pays


def test_b2_4_2_the_winner_gains_what_the_others_lose_and_twos_double():
    for options, want in (({}, (2 + 22 + 39, -2, -22, -39)),
                          ({"twos_double": True}, (4 + 22 + 78, -4, -22, -78))):
        t = table(**options)
        t.set_hands("3D", "2S 5D", "4D 5C 5H 6D 6C 7D 7C 8D 8C 9D 9C",
                    "2D 4H 4S 5S 6H 6S 7H 7S 8H 8S 9H 9S 10D", leader=0)
        t.play(0, "3D")
        assert t.match.results[-1].points == want
        assert sum(want) == 0


def test_b2_4_3_after_the_agreed_deals_the_highest_total_wins_ties_share():
    rules = build_rules(None, ["big-two"])
    result = play_match(rules, 3, seed="b2-4.3")
    assert len(result.orders) == 3
    best = max(result.totals)
    assert result.winners == [s for s, t in enumerate(result.totals) if t == best]
    played = MatchState(players=4, rounds=1, results=(None,), totals=(5, 5, -5, -5))
    assert big_two.zsy_match_over(rules, played) == (0, 1)
    assert big_two.zsy_match_over(rules, evolve(played, rounds=2)) == ()


# --- the order of five-card hands and move generation (hypothesis) ---------------------------

five_cards = st.lists(st.sampled_from(DECK), min_size=5, max_size=5, unique=True)


@settings(max_examples=100, deadline=None)
@given(five_cards, five_cards, five_cards)
def test_b2_3_3_five_card_hands_form_a_total_order(a, b, c):
    rules = build_rules(None, ["big-two"])
    combos = [classify_cards(rules, x) for x in (a, b, c)]
    if any(x is None for x in combos):
        return
    ca, cb, cc = combos
    # exactly one of: a beats b, b beats a, or they are the same rank-and-suit strength
    assert not (beats(rules, ca, cb) and beats(rules, cb, ca))
    if ca.key != cb.key:
        assert beats(rules, ca, cb) or beats(rules, cb, ca)
    if beats(rules, ca, cb) and beats(rules, cb, cc):
        assert beats(rules, ca, cc)
    # a higher category always beats a lower one
    cat = big_two.FIVE_KINDS.index
    if cat(ca.kind) > cat(cb.kind):
        assert beats(rules, ca, cb)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.sampled_from(DECK), min_size=9, max_size=11, unique=True))
def test_generation_finds_exactly_the_five_card_hands_that_classify(hand):
    rules = build_rules(None, ["big-two"])
    hand = tuple(sorted(hand))
    generated = {p.cards for p in legal_plays(rules, [0] * 15, None, hand) if len(p.cards) == 5}
    want = {cs for cs in combinations(hand, 5) if classify_cards(rules, cs) is not None}
    assert generated == want


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(DECK), min_size=6, max_size=13, unique=True), five_cards)
def test_following_plays_are_exactly_the_ones_that_beat(hand, last):
    rules = build_rules(None, ["big-two"])
    last_combo = classify_cards(rules, last)
    if last_combo is None:
        return
    hand = tuple(sorted(hand))
    every = legal_plays(rules, [0] * 15, None, hand)
    following = legal_plays(rules, [0] * 15, last_combo, hand)
    assert {p.cards for p in following} == {
        p.cards for p in every if beats(rules, p.combo, last_combo)
    }
    assert all(len(p.cards) == 5 for p in following)


# --- commands -------------------------------------------------------------------------------


def test_zsy_rules_lists_every_b2_rule_id():
    out = CliRunner().invoke(cli, ["rules", "--variant", "big-two"]).output
    for rid in ("B2-1.1", "B2-1.2", "B2-2.1", "B2-2.2", "B2-3.1", "B2-3.2", "B2-3.3",
                "B2-3.4", "B2-3.5", "B2-4.1", "B2-4.2", "B2-4.3"):
        assert rid in out


def test_zsy_moves_big_two_follows_a_straight_with_higher_five_card_hands():
    res = CliRunner().invoke(cli, ["moves", "--variant", "big-two",
                                    "--hand", "3D 4D 5D 6D 7D 7S 7H 9C 2S",
                                    "--last", "4D 5C 6D 7D 8D"])
    assert res.exit_code == 0, res.output
    assert res.output.split("\n")[:2] == ["3♦ 4♦ 5♦ 6♦ 2♠", "3♦ 4♦ 5♦ 6♦ 7♦"]


def test_zsy_moves_refusal_cites_b2():
    res = CliRunner().invoke(cli, ["moves", "--variant", "big-two", "--hand", "3D",
                                    "--last", "4 4 4 4"])
    assert res.exit_code != 0 and "B2-3.1" in res.output


def test_the_words_name_the_combinations():
    from zsy_lan.text import words

    rules = build_rules(None, ["big-two"])
    named = {text: words.play_name(rules, parse_cards(text)) for text, _ in CATEGORIES}
    assert named == {
        "3D 4C 5D 6D 7D": "straight 3 to 7",
        "3D 5D 7D 9D JD": "flush, J high",
        "3D 3C 3H 4D 4C": "full house, 3s over 4s",
        "3D 3C 3H 3S 4D": "four 3s with 4",
        "3C 4C 5C 6C 7C": "straight flush 3 to 7",
    }
    assert words.play_name(rules, parse_cards("2D 3C 4D 5D 6S")) == "straight 2 to 6"
    assert words.play_name(rules, parse_cards("KD KS")) == "pair of kings"


def test_every_big_two_text_is_listed_for_translation():
    """The plugin cannot import the translation layer: words.py repeats its texts, equal."""
    from zsy_lan.text import words

    vocab = dict(big_two.VOCABULARY)
    lines = vocab.pop("rules:big-two").split("\n")
    assert tuple(lines) == words.BIG_TWO_RULES
    assert vocab == words.BUILTIN_TERMS["big-two"]


def test_the_score_sheet_counts_deals_won_first_out_not_upstreams():
    """Big Two has no titles (``places`` = ``none``): the sheet says who won how many deals."""
    from types import SimpleNamespace

    from zsy_lan.engine.game import Game
    from zsy_lan.table.session import SeatInfo, SessionState
    from zsy_lan.ui.line_mode import score_lines

    rules = build_rules(None, ["big-two"])
    res = play_match(rules, 2, seed=3)
    game = Game(rules, 2)
    actions = iter(res.log)
    for seed in res.seeds:
        game.start_round(seed)
        while game.match.phase == MatchPhase.PLAYING:
            a = next(actions)
            game.apply(a.seat, a)
    info = SessionState(seats=[SeatInfo(nick=f"p{i}") for i in range(4)], table_name="t")
    sheet = "\n".join(score_lines(SimpleNamespace(game=game, seat=0, info=info)))
    assert "Upstream" not in sheet
    winner = res.orders[0][0]
    assert sum(o[0] == winner for o in res.orders) >= 1 and "out first" in sheet


def test_typed_ranks_take_the_suits_that_make_the_play_legal():
    """A player typing ``7 7`` on 7♣ 7♥ means the pair that beats it (7♦ 7♠), and a flush
    typed by ranks means the flush, not the lowest suits."""
    from zsy_lan.ui.commands import interpret

    t = table()
    t.set_hands("3D 7C 7H 9S", "7D 7S 5C 6D 8H 9H JH KH", "4D", "4C", leader=0)
    t.play(0, "7C 7H")
    action = interpret("7 7", t.rules, t.state, 1, t.legal(1))
    assert action.cards == parse_cards("7D 7S")
    t.set_hands("3D 4D", "5H 8H 9H JH KH 5C", "4S", "4C", leader=1)
    action = interpret("5 8 9 J K", t.rules, t.state, 1, t.legal(1))
    assert action.cards == parse_cards("5H 8H 9H JH KH")
    t.act(action)
    assert t.state.trick_combo.kind == "flush"


def test_the_end_of_a_deal_says_who_won_it_never_upstream():
    from zsy_lan.text.present import round_over_text
    from zsy_lan.ui.render import table_lines  # noqa: F401  (the screen's module imports)

    t = table()
    t.set_hands("3D", "5D 6D", "7D 8D 9D", "4C 4D", leader=0)
    t.play(0, "3D")
    text = round_over_text(t.rules, t.match, lambda s: f"seat {s}")
    assert text == ("round 1 over: seat 0 went out and wins the round. "
                    "Points: seat 0 +7, seat 1 -2, seat 2 -3, seat 3 -2. "
                    "Totals: seat 0 7, seat 1 -2, seat 2 -3, seat 3 -2.")


# --- bots: every level finishes a Big Two match ---------------------------------------------

# hard's search and the rule baseline split rank counts: at Big Two (cards ranked by suit)
# each plays the normal planner's pick (bots/search.py search_models)
@pytest.mark.parametrize("level", ["easy", "normal", "hard", "random", "rule"])
def test_every_bot_level_finishes_a_big_two_match(level):
    res = CliRunner().invoke(cli, ["selfplay", "--variant", "big-two", "--bot", level,
                                   "--rounds", "2", "--seed", "b2", "--budget", "4", "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.output)
    assert len(out["orders"]) == 2 and out["winners"]
    assert sum(out["totals"]) == 0


def test_the_table_shows_big_two_in_its_own_words():
    """The hand in Big Two's order, plays named by their combination, the deal's end by its
    winner: never a finishing order, Upstream or an engine name."""
    from types import SimpleNamespace

    from zsy_lan.engine.game import Game
    from zsy_lan.table.session import SeatInfo, SessionState
    from zsy_lan.ui.line_mode import render
    from zsy_lan.ui.render import Style

    rules = build_rules(None, ["big-two"])
    game = Game(rules, 1)
    game.start_round(b"\x05" * 32)
    info = SessionState(seats=[SeatInfo(nick=f"p{i}") for i in range(4)], table_name="t")
    me = SimpleNamespace(game=game, seat=0, info=info)
    hand = game.match.round.hands[0]
    assert list(hand) == sorted(hand)  # card id order is B2-1.2's order
    seen = []
    while game.match.phase == MatchPhase.PLAYING:
        seat = game.actors()[0]
        moves = [a for a in game.legal(seat) if a.kind == PLAY]
        five = [a for a in moves if len(a.cards) == 5]
        game.apply(seat, (five or moves or game.legal(seat))[0])
        seen.append("\n".join(render(me, Style())))
    text = "\n".join(seen)
    first = game.match.results[-1].order[0]
    assert "went out and wins the round" in text and "Finishing order" not in text
    assert "Upstream" not in text and "fourkind" not in text and "straightflush" not in text
    assert "To beat: " in text and any(w in text for w in ("(single ", "(pair of ", "(three "))
    assert f"seat {first}" in text.split("went out and wins the round")[0].splitlines()[-1]


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 10**6),
    three=st.booleans(),
    winner_leads=st.booleans(),
    twos_double=st.booleans(),
    flush_by_suit=st.booleans(),
)
def test_whole_matches_keep_b2_invariants(seed, three, winner_leads, twos_double, flush_by_suit):
    """B2-1.1 hand sizes, B2-2.1 every deal's lead, B2-4.2 zero-sum deals, under any options."""
    from zsy_lan.engine.game import Game
    from zsy_lan.engine.selfplay import round_seed

    options = {"three_players": three, "winner_leads": winner_leads,
               "twos_double": twos_double, "flush_by_suit": flush_by_suit}
    rules = build_rules(3 if three else 4, ["big-two"], options)
    game = Game(rules, 3)
    pick = seed
    for deal in range(3):
        game.start_round(round_seed(str(seed), deal))
        state = game.match.round
        sizes = sorted(state.counts)
        assert sizes == ([17, 17, 18] if three else [13, 13, 13, 13])
        if winner_leads and deal:
            assert state.turn == game.match.results[-1].order[0] and state.must_contain is None
        else:
            assert THREE_D in state.hands[state.turn] and state.must_contain == THREE_D
        first = True
        while game.match.phase == MatchPhase.PLAYING:
            seat = game.actors()[0]
            legal = game.legal(seat)
            action = legal[pick % len(legal)]
            pick = pick * 31 + 7
            if first and state.must_contain is not None:
                assert THREE_D in action.cards
            first = False
            game.apply(seat, action)
        assert sum(game.match.results[-1].points) == 0
    assert game.match.phase == MatchPhase.OVER and game.match.winners
