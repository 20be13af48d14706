"""Partnerships (ZSY-9.1), doubled tribute (ZSY-9.2), no tribute (ZSY-9.3), scoring (ZSY-8)."""

from __future__ import annotations

import pytest

from zsy_lan.engine.errors import ConfigError
from zsy_lan.engine.match import tribute_duties
from zsy_lan.engine.ruleset import build_rules
from zsy_lan.engine.state import Duty
from zsy_lan.testing import Table

P4 = build_rules(4, ["partnerships"])


def test_zsy9_1_teams_alternate():  # ZSY-9.1
    assert P4.teams == ((0, 2), (1, 3))
    assert build_rules(6, ["partnerships"]).teams == ((0, 2, 4), (1, 3, 5))
    with pytest.raises(ConfigError, match="partnerships"):
        build_rules(3, ["partnerships"])


def test_zsy5_4_lead_passes_to_the_partner():  # ZSY-5.4 D, ZSY-9.1
    t = Table(["partnerships"])
    t.set_hands("K", "3 4", "5 6", "7 8", leader=0)
    t.play(0, "K")
    t.pass_(1)
    t.pass_(2)
    st = t.pass_(3)
    assert st.turn == 2 and st.leader == 2


def test_zsy5_4_winner_out_partner_in_leads():  # ZSY-5.4 D
    t = Table(["partnerships"])
    t.set_hands("K 3", "3 4", "A", "7 8", leader=0)
    t.play(0, "3")
    t.pass_(1)
    t.play(2, "A")  # seat 2 goes out with the winning play
    t.pass_(3)
    t.pass_(0)
    st = t.pass_(1)
    assert st.turn == 0  # its partner leads, not seat 3


def test_zsy5_4_partner_already_out_next_active_leads():  # ZSY-5.4 D
    t = Table(["partnerships"])
    t.set_hands("3", "4 5", "A", "7 8", leader=0)
    t.play(0, "3")  # seat 0 out
    t.pass_(1)
    t.play(2, "A")  # seat 2 out too: its partner is gone
    t.pass_(3)
    st = t.pass_(1)
    assert st.turn == 3


def test_zsy9_1_team_of_upstream_wins_the_round():  # ZSY-9.1
    t = Table(["partnerships"], rounds=1)
    t.set_hands("3", "4 5", "6 7", "8 9", leader=0)
    t.play(0, "3")
    t.play_out("greedy")
    res = t.match.results[-1]
    assert res.points == (1, 0, 1, 0)
    assert t.match.winners == (0, 2)


def test_zsy7_team_tribute_flows_from_losers_to_winners():  # ZSY-7 with ZSY-9.1
    # double win: both opponents pay (main 2 cards, second 1 card)
    assert tribute_duties(P4, (0, 2, 1, 3)) == (
        Duty("give", 3, 0, 2), Duty("give", 1, 2, 1), Duty("return", 0, 3, 2),
        Duty("return", 2, 1, 1))
    # Upstream's partner last: the last opponent pays, no second tribute
    assert tribute_duties(P4, (0, 1, 3, 2)) == (Duty("give", 3, 0, 2), Duty("return", 0, 3, 2))
    # opponents in 2nd place: no second tribute to the losing side
    assert tribute_duties(P4, (0, 1, 2, 3)) == (Duty("give", 3, 0, 2), Duty("return", 0, 3, 2))


def test_zsy9_2_doubled_tribute():  # ZSY-9.2
    r = build_rules(4, ["doubled-tribute"])
    assert tribute_duties(r, (0, 1, 2, 3))[0] == Duty("give", 3, 0, 3)
    t = Table(["doubled-tribute"], rounds=2)
    t.deal(1)
    t.play_out("greedy")
    st = t.deal(2)
    assert st.phase == "tribute" and st.duties[0].n == 3
    giver = st.duties[0].giver
    t.act(t.legal(giver)[0])
    assert len(t.state.tribute_log[0][2]) == 3


def test_zsy9_3_no_tribute():  # ZSY-9.3
    t = Table(["no-tribute"], rounds=2)
    t.deal(1)
    t.play_out("greedy")
    st = t.deal(2)
    assert st.phase == "play" and st.duties == () and st.turn == t.match.results[0].order[0]


def test_no_tribute_and_doubled_tribute_conflict():
    with pytest.raises(ConfigError, match="doubled-tribute"):
        build_rules(4, ["doubled-tribute", "no-tribute"])


@pytest.mark.parametrize("plugin", ["no-tribute", "doubled-tribute", "partnerships", "house-rules"])
def test_zsy_modifiers_refuse_doudizhu(plugin):
    with pytest.raises(ConfigError, match=plugin):
        build_rules(4, ["doudizhu", plugin])


@pytest.mark.parametrize("scheme", ["ranking", "penalty", "cardcount"])
def test_zsy8_scoring_schemes_as_options(scheme):  # ZSY-8.1..8.3
    r = build_rules(4, [], {"scoring": scheme})
    assert r.scoring == scheme
    res = Table([], options={"scoring": scheme}).selfplay(2, seed=5)
    if scheme == "cardcount":
        assert all(sum(p) == 0 for p in res.points)  # the Upstream takes the others' losses
    if scheme == "ranking":
        assert all(sorted(p) == [0, 0, 0, 1] for p in res.points)


def test_zsy8_partnership_standing_is_the_team_sum():  # ZSY-8.5 with ZSY-9.1
    res = Table(["partnerships"], options={"scoring": "cardcount"}).selfplay(3, seed=2)
    assert len(res.winners) == 2 and res.winners[1] - res.winners[0] == 2


def test_base_options_start_card_and_two_in_straights():  # ZSY-2.1, ZSY-3.3
    r = build_rules(4, [], {"start_card": "3H", "two_in_straights": "false"})
    assert r.start_card == 2 and r.straight_top == 11
    with pytest.raises(ConfigError, match="3C"):
        build_rules(3, [], {"start_card": "3C"})
    assert build_rules(5, [], {"second_tribute_big": "true"}).second_tribute
    assert not build_rules(5).second_tribute
