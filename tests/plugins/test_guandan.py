"""Guandan (掼蛋, RULES.md GD): one or more cases per rule id, with the plugin-author fixture.

Hands are typed as players type them; ``at_level`` puts a deal at a level (a
real deal gets it from the match through ``zsy_on_seed``).
"""

from __future__ import annotations

import pytest

from zsy_lan.engine.cards import card_str
from zsy_lan.engine.match import MatchState, RoundResult
from zsy_lan.engine.phases import Phase
from zsy_lan.engine.round import legal_moves
from zsy_lan.engine.state import Action, evolve, with_extra
from zsy_lan.plugins import guandan, guandan_tribute
from zsy_lan.plugins.guandan_combos import DEAL_LEVEL, level_rules, readings, wild_cards
from zsy_lan.testing import cards

# "*" in a hand: two cards nobody cares about, so the hand is not emptied (seat by seat,
# as there are two of each card)
FILLERS = ("10D 10C", "10D 10C", "10S 10H", "10S 10H")


def filled(hands) -> list[str]:
    return [h.replace("*", FILLERS[i]) for i, h in enumerate(hands)]


def table(zsy_table, *hands: str, level: int = 2, leader: int = 0, **kw):
    t = zsy_table(variants=["guandan"], **kw)
    t.set_hands(*filled(hands), leader=leader)
    at_level(t, level)
    return t


def at_level(t, level: int) -> None:
    """The current deal played at ``level`` (GD-1.2)."""
    t.game.match = evolve(t.game.match, round=with_extra(t.state, **{DEAL_LEVEL: level}))


def kinds(text: str, level: int) -> dict[str, tuple[int, int]]:
    """Every reading of typed cards at ``level``: kind -> (length, key)."""
    return {k: (c.length, c.key) for k, c in readings(cards(text), level).items()}


# --- GD-1 players, deck, teams ------------------------------------------------------


def test_gd_1_1_two_decks_four_players_fixed_teams(zsy_table):
    t = zsy_table(variants=["guandan"])
    assert t.rules.players == 4 and len(t.rules.deck) == 108
    assert t.rules.teams == ((0, 2), (1, 3))
    t.deal(1)
    assert t.state.counts == (27, 27, 27, 27)


def test_gd_1_1_other_counts_refused(zsy_table):
    from zsy_lan.engine.errors import ConfigError

    with pytest.raises(ConfigError, match="guandan"):
        zsy_table(variants=["guandan"], players=5)


def test_gd_1_2_first_deal_at_level_2_later_the_winners_level(zsy_table):
    t = zsy_table(variants=["guandan"], rounds=1)
    t.deal(3)
    assert t.state.get(DEAL_LEVEL) == 2
    t.play_out("greedy")
    order = t.match.results[-1].order
    up = guandan.gain(order)[1]
    t.deal(4)
    assert t.state.get(DEAL_LEVEL) == 2 + up


# --- GD-2 ranks and wilds -------------------------------------------------------------


def test_gd_2_1_level_rank_above_ace_below_jokers(zsy_table):
    t = table(zsy_table, "7S  *", "AS  *", "7C  *", "BJ  *", level=7)
    t.play(0, "7S")
    t.expect_illegal(1, "AS", rule="GD-3.4")
    t.pass_(1)
    t.expect_illegal(2, "7C", rule="GD-3.4")
    t.pass_(2)
    t.play(3, "BJ")


def test_gd_2_1_two_is_lowest_at_another_level():
    assert kinds("2S", 5) == {"single": (1, 0)}
    assert kinds("AS", 5)["single"][1] == 12
    assert kinds("5S", 5)["single"][1] == 13  # the level rank
    assert kinds("BJ", 5)["single"][1] == 14 and kinds("RJ", 5)["single"][1] == 15


def test_gd_2_2_wild_heart_stands_for_any_card_but_a_joker():
    # level 7: 7♥ is wild
    assert kinds("9S 7H", 7) == {"pair": (2, 7)}  # a pair of 9s (position 7 is the 9)
    assert kinds("BJ 7H", 7) == {}  # never a joker
    assert kinds("7H", 7) == {"single": (1, 13)}  # alone: a level card
    assert kinds("7S 7H", 7) == {"pair": (2, 13)}
    assert kinds("7C", 7) == {"single": (1, 13)}  # a 7 of another suit is not wild
    assert kinds("9S 7C", 7) == {}
    assert len(wild_cards(7)) == 2


def test_gd_2_2_wilds_in_runs_full_houses_and_bombs():
    assert kinds("5S 6D 7H 8C 9C", 7)["straight"] == (5, 4)  # 7♥ as itself: 5..9 (key: 5's place)
    assert kinds("5S 6D 8C 9C 2H", 2)["straight"] == (5, 4)  # 2♥ fills the 7
    assert kinds("5S 6D 7D 8C 2H", 2)["straight"] == (5, 4)  # the highest reading: 5..9
    assert kinds("JS JD JC 2H 4C", 2)["fullhouse"] == (5, 9)  # J is 9th above the 2
    assert kinds("JS JD 4C 4D 2H", 2)["fullhouse"] == (5, 9)  # J over 4, not 4 over J
    assert kinds("QS QD QC QH 2H", 2)["bomb"] == (5, 10)
    assert kinds("3S 3D 4S 4D 2H 2H", 2) == {"tube": (6, 2), "plate": (6, 2)}


# --- GD-3 combinations (a run is keyed by its lowest card's place in A 2 3 .. K A) ---


def test_gd_3_1_exact_lengths():
    assert kinds("3S 4D 5C 6C 7C", 9)["straight"] == (5, 2)
    assert kinds("3S 4D 5C 6C 7C 8S", 9) == {}  # no straight of six
    assert kinds("3S 3D 4C 4D 5S 5C", 9)["tube"] == (6, 2)
    assert kinds("3S 3D 4C 4D", 9) == {}  # two pairs are nothing
    assert kinds("3S 3D 3C 4C 4D 4S", 9)["plate"] == (6, 2)
    assert kinds("3S 3D 3C 9C 9D", 2)["fullhouse"] == (5, 1)
    assert kinds("3S 3D 3C BJ BJ", 2)["fullhouse"] == (5, 1)


def test_gd_3_1_refused_citing_gd(zsy_table):
    t = table(zsy_table, "3S 4D 5C 6C 7C 8S  *", "*", "*", "*")
    t.expect_illegal(0, "3S 4D 5C 6C 7C 8S", rule="GD-3.1")


def test_gd_3_2_ace_low_and_high_no_wrap():
    assert kinds("AS 2D 3C 4C 5C", 9)["straight"] == (5, 0)
    assert kinds("10S JD QC KC AC", 9)["straight"] == (5, 9)
    assert kinds("JS QD KC AC 2C", 9) == {}
    assert kinds("AS AD 2C 2D 3S 3C", 9)["tube"] == (6, 0)
    assert kinds("QS QD KC KD AS AC", 9)["tube"] == (6, 11)
    assert kinds("AS AD AC 2D 2S 2C", 9)["plate"] == (6, 0)
    assert kinds("KS KD KC AD AS AC", 9)["plate"] == (6, 12)
    # the level rank sits in its natural place in runs
    assert kinds("5S 6D 7C 8C 9C", 7)["straight"] == (5, 4)


def test_gd_3_3_bomb_order():
    from zsy_lan.plugins.guandan_combos import bomb_power

    def power(text, level=9):
        combo = next(c for k, c in readings(cards(text), level).items()
                     if k in ("bomb", "straightflush", "jokerbomb"))
        return bomb_power(combo)

    four = power("3S 3D 3C 3H")
    five = power("2S 2D 2C 2H 2S")
    sf = power("3S 4S 5S 6S 7S")
    six = power("2S 2D 2C 2H 2S 2D")
    assert four < power("AS AD AC AH") < power("9S 9D 9C 9H") < five < sf < six
    assert power("10S JS QS KS AS") > sf
    assert six < power("2S 2D 2C 2H 2S 2D 2C") < power("BJ BJ RJ RJ")
    assert power("4S 4D 4C 4H 4S 4D 4C 4H 9H 9H") > power("AS AD AC AH AS AD AC AH")  # ten


def test_gd_3_4_a_bomb_beats_any_play_only_same_kind_otherwise(zsy_table):
    t = table(zsy_table, "5S 5D  *", "KS  *", "9S 9D 9C 9H  *", "*")
    t.play(0, "5S 5D")
    t.expect_illegal(1, "KS", rule="GD-3.4")
    t.pass_(1)
    t.play(2, "9S 9D 9C 9H")


def test_gd_3_4_straight_flush_over_five_bomb(zsy_table):
    t = table(zsy_table, "8S 8D 8C 8H 8S  *", "3H 4H 5H 6H 7H  *", "*", "*",
              level=9)
    t.play(0, "8S 8D 8C 8H 8S")
    t.play(1, "3H 4H 5H 6H 7H")


# --- generation against classification ---------------------------------------------------


def test_every_generated_move_is_legal_and_keyed_as_the_checker_reads_it(zsy_table):
    t = table(zsy_table, "2H 2H 3S 4S 5S 6S 7D 7C 7S 8D 9D JS JD QC KC AS AD BJ RJ", "*",
              "*", "*")
    for level in (2, 7, 14):
        at_level(t, level)
        r = level_rules(t.rules, level)
        moves = [m for m in legal_moves(t.rules, t.state, 0) if m is not None]
        assert len(moves) > 20
        for m in moves:
            assert readings(m.cards, level)[m.combo.kind] == m.combo
        del r


# --- GD-4 play ----------------------------------------------------------------------------


def test_gd_4_1_first_deal_drawn_by_lot(zsy_table):
    leaders = set()
    for seed in range(12):
        t = zsy_table(variants=["guandan"])
        t.deal(seed)
        leaders.add(t.state.turn)
        assert t.state.must_contain is None
    assert len(leaders) > 1


def test_gd_4_3_partner_leads_after_the_finisher(zsy_table):
    t = table(zsy_table, "AS", "3S  *", "4S  *", "5S  *")
    t.play(0, "AS")  # out, and nobody beats it
    t.pass_(1)
    t.pass_(2)
    t.pass_(3)
    assert t.state.turn == 2 and t.state.trick is None


def test_gd_4_4_the_deal_ends_when_a_team_is_out(zsy_table):
    t = table(zsy_table, "AS", "3S  *", "KS", "5S  *")
    t.play(0, "AS")
    t.pass_(1)
    t.pass_(2)
    t.pass_(3)
    t.play(2, "KS")
    assert t.state.phase == Phase.DONE
    assert t.state.finished[:2] == (0, 2)


# --- GD-5 levels and the match --------------------------------------------------------------


def _match(results, levels=(2, 2), round_level=2, fails=(0, 0)):
    from zsy_lan.engine.state import RoundState

    rnd = RoundState(players=4, round_no=len(results), dealer=0, phase=Phase.DONE,
                     hands=((),) * 4, counts=(0,) * 4, turn=-1, leader=0,
                     seat_last=(None,) * 4, plays_made=(0,) * 4)
    rnd = with_extra(rnd, **{DEAL_LEVEL: round_level})
    res = tuple(RoundResult(i + 1, o, (0,) * 4) for i, o in enumerate(results))
    extra = tuple(sorted({guandan.LEVELS: tuple(levels), guandan.FAILS: tuple(fails)}.items()))
    return MatchState(players=4, rounds=1, results=res, round=rnd, extra=extra)


@pytest.mark.parametrize(("order", "levels"), [
    ((0, 2, 1, 3), [5, 2]),   # partner 2nd: +3
    ((0, 1, 2, 3), [4, 2]),   # partner 3rd: +2
    ((1, 0, 2, 3), [2, 3]),   # partner last: +1
])
def test_gd_5_1_levels_go_up_3_2_1(zsy_table, order, levels):
    rules = zsy_table(variants=["guandan"]).rules
    got = guandan.zsy_deal_over(rules, _match([order]))
    assert list(got[guandan.LEVELS]) == levels and got[guandan.WON] is None


def test_gd_5_3_never_past_ace(zsy_table):
    rules = zsy_table(variants=["guandan"]).rules
    got = guandan.zsy_deal_over(rules, _match([(0, 2, 1, 3)], levels=(13, 2), round_level=13))
    assert list(got[guandan.LEVELS]) == [14, 2]


def test_gd_5_2_won_at_ace_only_with_partner_not_last(zsy_table):
    rules = zsy_table(variants=["guandan"]).rules
    prev = (0, 1, 2, 3)
    won = guandan.zsy_deal_over(rules, _match([prev, (0, 1, 2, 3)], (14, 5), 14))
    assert won[guandan.WON] == 0
    assert guandan.zsy_match_over(_match([prev], (14, 5), 14)) == ()
    m = _match([prev, (0, 1, 2, 3)], (14, 5), 14)
    m = evolve(m, extra=tuple(sorted({**dict(m.extra), guandan.WON: 0}.items())))
    assert guandan.zsy_match_over(m) == (0, 2)
    lost = guandan.zsy_deal_over(rules, _match([prev, (0, 1, 3, 2)], (14, 5), 14))
    assert lost[guandan.WON] is None and list(lost[guandan.FAILS]) == [1, 0]


def test_gd_5_2_ace_limit_drops_to_two(zsy_table):
    rules = zsy_table(variants=["guandan"], options={"ace_limit": True}).rules
    got = guandan.zsy_deal_over(rules, _match([(0, 1, 2, 3), (1, 3, 0, 2)], (14, 5), 14,
                                              fails=(2, 0)))
    assert list(got[guandan.LEVELS]) == [2, 8]


def test_gd_5_a_whole_match_ends_at_ace(zsy_table):
    t = zsy_table(variants=["guandan"], rounds=1)
    res = t.selfplay(rounds=1, bot="greedy")
    assert tuple(res.winners) in ((0, 2), (1, 3))
    assert len(res.orders) >= 4  # at least four deals to climb from 2 past A


def test_gd_5_the_end_of_a_deal_tells_levels_not_points(zsy_table):
    """The deal's line names the levels gained and where each team stands (GD-5.1), not
    the base game's rounds out first and points (which at Guandan are levels summed)."""
    from zsy_lan.plugins.guandan_combos import TEAM_LEVELS
    from zsy_lan.text.present import round_over_text

    rules = zsy_table(variants=["guandan"]).rules
    m = _match([(0, 2, 1, 3)], levels=(5, 2))  # the match after the deal: team A 2 -> 5
    m = evolve(m, round=with_extra(m.round, **{TEAM_LEVELS: (2, 2)}))
    text = round_over_text(rules, m, lambda s: f"seat {s}")
    assert text.endswith("team A wins the round and goes up 3 levels. Levels: team A 5, team B 2.")
    assert "points" not in text and "first out:" not in text
    m = _match([(1, 0, 2, 3), (1, 0, 2, 3)], levels=(13, 14))  # team B from K to A: +1
    m = evolve(m, round=with_extra(m.round, **{TEAM_LEVELS: (13, 13)}))
    assert round_over_text(rules, m, str).endswith(
        "team B wins the round and goes up 1 level. Levels: team A K, team B A."
    )


# --- GD-6 tribute -----------------------------------------------------------------------------


def _deal_with(t, hands, order, level=2):
    """Start a later deal with these hands after a deal finished in ``order``."""
    t.set_hands(*filled(hands), leader=order[0])
    st = with_extra(t.state, **{DEAL_LEVEL: level})
    st = guandan_tribute.start(t.rules, st, order)
    t.game.match = evolve(t.game.match, round=st)
    return st


def test_gd_6_1_single_tribute_last_gives_highest_to_first(zsy_table):
    t = zsy_table(variants=["guandan"])
    st = _deal_with(t, ["5S  *", "6S", "7S", "AS KS 2H"], order=(0, 2, 1, 3))
    # double-down: 1 and 3 give. With 2H wild at level 2, seat 3's highest is AS
    assert st.get(guandan_tribute.TRIBUTE) is not None
    gifts = {g: c for g, r, c in st.get(guandan_tribute.TRIBUTE)}
    assert card_str(gifts[3]) == "A♠" and card_str(gifts[1]) == "6♠"
    assert st.phase == Phase.TRIBUTE


def test_gd_6_1_single_tribute_duiluo(zsy_table):
    t = zsy_table(variants=["guandan"])
    # 对落: the last out is the first finisher's partner, so the 3rd gives
    st = _deal_with(t, ["5S  *", "QS 9S  *", "7S", "KS"], order=(0, 1, 3, 2))
    assert [(g, r) for g, r, _ in st.get(guandan_tribute.TRIBUTE)] == [(3, 0)]
    assert guandan_tribute.givers((0, 3, 1, 2)) == [1]  # 单落... the last (2) is partner: 3rd
    assert guandan_tribute.givers((0, 1, 2, 3)) == [3]  # 单落: the last gives


def test_gd_6_1_double_higher_card_to_first_and_giver_leads(zsy_table):
    t = zsy_table(variants=["guandan"])
    st = _deal_with(t, ["5S 5D  *", "QS 9S  *", "6S 6D  *", "KS 9D  *"],
                    order=(0, 2, 1, 3))
    rec = st.get(guandan_tribute.TRIBUTE)
    assert [(g, r) for g, r, _ in rec] == [(3, 0), (1, 2)]
    assert st.leader == 3  # GD-4.1: the giver of the higher card


def test_gd_6_2_return_ten_or_lower(zsy_table):
    t = zsy_table(variants=["guandan"])
    _deal_with(t, ["JS 9S  *", "5S", "6S", "KS 8S"], order=(0, 1, 2, 3))
    assert t.state.turn == 0
    t.expect_illegal(0, Action("return", 0, cards("JS")), rule="GD-6.2")
    t.act(Action("return", 0, cards("9S")))
    assert t.state.phase == Phase.PLAY and t.state.turn == 3
    assert "9" in t.hand(3).split()


def test_gd_6_3_resisting_with_both_red_jokers(zsy_table):
    t = zsy_table(variants=["guandan"])
    st = _deal_with(t, ["5S  *", "RJ QS", "6S  *", "RJ KS"], order=(0, 2, 1, 3))
    assert st.get(guandan_tribute.TRIBUTE) == "resisted"
    assert st.phase == Phase.PLAY and st.turn == 0


# --- bots -----------------------------------------------------------------------------------------


def test_bots_do_not_overtake_a_partner_winning_play(zsy_table):
    from zsy_lan.bots import make_bot
    from zsy_lan.engine.view import view

    for level in ("easy", "normal", "hard"):
        t = table(zsy_table, "9S  *", "5S 5D  *", "KS 6S 6D 8C 9C JC QD *",
                  "3H 7C 8H 9H JH QH *", leader=0)
        t.play(0, "9S")
        t.pass_(1)
        a = make_bot(level, 1).act(t.rules, view(t.state, 2), 2)
        assert a.kind == "pass", (level, a)


@pytest.mark.slow
def test_every_level_finishes_a_short_match(zsy_table):
    """The fast levels play a whole match to A; normal and hard (the card planner, about a
    second a deal) play two deals in tests/plugins/test_card_planner.py."""
    from zsy_lan.bots import make_bot
    from zsy_lan.engine.selfplay import play_match

    t = zsy_table(variants=["guandan"], options={"ace_limit": True})
    for i, level in enumerate(("easy", "random", "rule")):
        bots = [make_bot(level, f"{level}{s}") for s in range(4)]
        res = play_match(t.rules, 1, f"gd-{i}", bots)
        assert res.orders


def test_bots_return_a_low_card_that_breaks_nothing(zsy_table):
    from zsy_lan.bots import make_bot
    from zsy_lan.engine.view import view

    for level in ("easy", "normal", "hard"):
        t = zsy_table(variants=["guandan"])
        _deal_with(t, ["9S 9D 9C 9H 6S 6D 6C 5S KS AS *", "5D", "6H", "KD 8S"],
                   order=(0, 1, 2, 3))
        a = make_bot(level, 1).act(t.rules, view(t.state, 0), 0)
        assert a.kind == "return" and card_str(a.cards[0]) == "5♠", (level, a)


# --- at the table -------------------------------------------------------------------------------


def test_the_table_shows_the_teams_levels_and_the_deals_level(zsy_table):
    from zsy_lan.ui.render import team_lines

    t = zsy_table(variants=["guandan"])
    t.deal(1)
    lines = team_lines(t.rules, None, 0, with_extra(t.state, team_levels=(5, 14), deal_level=14))
    assert lines[0].endswith("level 5") and lines[1].endswith("level A")
    assert lines[2] == "This deal is played at level A: the two A♥ are wild"
    assert len(team_lines(t.rules, None, 0)) == 2  # without a round: the teams alone


@pytest.mark.slow
def test_a_local_guandan_match_leaves_a_record_that_replay_verifies(tmp_path):
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).parents[1]))
    from local_support import play_out_now

    from zsy_lan.engine.ruleset import build_rules
    from zsy_lan.record.replay import replay_file
    from zsy_lan.table.local_table import make_local_table

    record = tmp_path / "gd.jsonl"
    # seed t3: a match of 7 deals (t1 took 8 and twice the time, t2 ten)
    table = make_local_table(build_rules(4, ["guandan"]), 1, 0, "easy", record, seed="t3")
    play_out_now(table)
    match = table.game.match
    assert table.game.finished() and match.winners in ((0, 2), (1, 3))
    assert len(match.results) > 1
    # the last deal's tribute was paid (every hand is known at a local table) and replays
    assert isinstance(dict(match.round.extra).get(guandan_tribute.TRIBUTE), tuple | str)
    assert replay_file(record).ok


def test_the_table_shows_the_tribute_given_until_the_first_play(zsy_table):
    from zsy_lan.ui.render import Style, paid_tribute_lines

    t = zsy_table(variants=["guandan"])
    _deal_with(t, ["JS 9S *", "5S", "6S", "KS 8S"], order=(0, 1, 2, 3))
    assert paid_tribute_lines(t.state, Style(), None, 0) == [
        "seat 3 gave K♠ to seat 0 (you) as tribute"
    ]
    t.act(Action("return", 0, cards("9S")))
    t.play(3, "8S")
    assert paid_tribute_lines(t.state, Style(), None, 0) == []
    resisted = with_extra(t.state, tribute_paid="resisted")
    assert paid_tribute_lines(evolve(resisted, plays_made=(0,) * 4), Style(), None, 0)


def test_the_hand_is_shown_in_guandan_order(zsy_table):
    from zsy_lan.text.play_order import hand_shown
    from zsy_lan.ui.render import Style, hand_text

    t = table(zsy_table, "2S 3S AS 7S 7H RJ BJ KS *", "*", "*", "*", level=7)
    shown = hand_shown(t.rules, t.state, t.state.hands[0])
    # 2 lowest; the level rank (7) above A, its wild ♥ last of them; then the jokers
    assert [card_str(c) for c in shown] == [
        "2♠", "3♠", "10♦", "10♣", "K♠", "A♠", "7♠", "7♥", "BJ", "RJ"]
    assert hand_text(t.state.hands[0], Style(), t.rules, t.state).startswith("2♠ 3♠")
    # other games keep the engine's order
    base = zsy_table()
    base.set_hands("2S 3S AS", "4S", "5S", "6S", leader=0)
    assert [card_str(c) for c in hand_shown(base.rules, base.state, base.state.hands[0])] == [
        "3♠", "A♠", "2♠"]
