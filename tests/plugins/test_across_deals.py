"""Across deals (issue #27): match-level plugin state, the end of the match, the lead of
every deal, rule ids owned by a plugin, player counts from the plugin.

Each feature is proved with a test plugin written as a third party would
(``team_levels``: Guandan's levels; ``diamond_lead``: Big Two's 3♦ lead, its
rule ids and player counts), loaded like any plugin that is not installed.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))

import diamond_lead  # noqa: E402
import team_levels  # noqa: E402
from plugin_helpers import make_plugin  # noqa: E402

from zsy_lan.engine.cards import make_card  # noqa: E402
from zsy_lan.engine.errors import ConfigError  # noqa: E402
from zsy_lan.engine.game import Game  # noqa: E402
from zsy_lan.engine.hookspecs import Lead  # noqa: E402
from zsy_lan.engine.phases import MatchPhase  # noqa: E402
from zsy_lan.engine.round import DECK  # noqa: E402
from zsy_lan.engine.ruleset import build_rules  # noqa: E402
from zsy_lan.engine.selfplay import play_match, round_seed  # noqa: E402
from zsy_lan.engine.state import PLAY  # noqa: E402

LEVELS = {"team-levels": team_levels}
DIAMOND = {"diamond-lead": diamond_lead}
THREE_D = make_card(0, 0)


def levels_rules():
    return build_rules(None, ["team-levels"], plugins=LEVELS)


def diamond_rules(players=None, **options: Any):
    return build_rules(players, ["diamond-lead"], options, plugins=DIAMOND)


def replay(rules, seeds, log) -> Game:
    """A second replica fed the same seeds and actions (what a peer or a replay does)."""
    game = Game(rules, 3)
    actions = iter(log)
    for seed in seeds:
        game.start_round(seed)
        while game.match.phase == MatchPhase.PLAYING:
            a = next(actions)
            game.apply(a.seat, a)
    return game


# --- 1. match-level plugin state ---------------------------------------------------------


def test_levels_carry_from_deal_to_deal_and_follow_gd_5_1():
    rules = levels_rules()
    game = Game(rules, 3)
    levels = (2, 2)
    for i in range(3):
        game.start_round(round_seed("levels", i))
        while game.match.phase == MatchPhase.PLAYING:
            r = game.match.round
            game.apply(r.turn, game.legal(r.turn)[0])
        order = game.match.results[-1].order
        team = 0 if order[0] in (0, 2) else 1
        partner = next(p for p, s in enumerate(order) if s in team_levels.TEAMS[team] and p)
        want = list(levels)
        want[team] = min(14, want[team] + 4 - partner)
        levels = tuple(want)
        assert game.match.get(team_levels.LEVELS) == levels  # stored as a tuple


def test_match_state_is_in_the_public_hash_and_every_replica_agrees():
    rules = levels_rules()
    res = play_match(rules, 3, seed=7)
    game = replay(rules, res.seeds, res.log)
    assert game.public_json()["extra"][team_levels.LEVELS] == game.match.get(team_levels.LEVELS)
    again = replay(rules, res.seeds, res.log)
    assert again.public_hash() == game.public_hash()
    # the hash covers it: the same match with other levels hashes differently
    from zsy_lan.engine.match import merge_extra

    other = merge_extra(game.match, {team_levels.LEVELS: (3, 3)}, "test")
    assert other.extra != game.match.extra
    again.match = other
    assert again.public_hash() != game.public_hash()


def test_a_table_without_match_state_hashes_as_before():
    game = Game(build_rules(4, []), 1)
    assert "extra" not in game.public_json()


@pytest.mark.parametrize(
    "value, said",
    [(1.5, "floats are not canonical"), ({1, 2}, "set is not canonical"), (object(), "object")],
)
def test_a_value_without_one_canonical_form_is_refused_naming_the_plugin(value, said):
    bad = make_plugin("floaty", zsy_deal_over=lambda rules, match: {"floaty.x": value})
    rules = build_rules(4, ["floaty"], plugins={"floaty": bad})
    said = f"plugin 'floaty': zsy_deal_over\\['floaty.x'\\]: .*{said}"
    with pytest.raises(TypeError, match=said):
        play_match(rules, 1, seed=1)


def test_each_plugin_sees_the_updates_of_the_plugins_before_it():
    seen = []

    def second(match):
        seen.append(match.get("a.n"))
        return {"b.n": match.get("a.n", 0) * 10}

    a = make_plugin("a", zsy_deal_over=lambda match: {"a.n": match.get("a.n", 0) + 1})
    b = make_plugin("b", zsy_deal_over=second)
    rules = build_rules(4, ["b", "a"], plugins={"a": a, "b": b})
    res = play_match(rules, 2, seed=3)
    deals = len(res.orders)  # (a tie adds a deciding round: it counts too)
    assert seen == list(range(1, deals + 1))
    assert replay(rules, res.seeds, res.log).match.get("b.n") == 10 * deals


# --- 2. the end of the match ---------------------------------------------------------------


def test_the_match_ends_when_the_plugin_says_and_the_whole_team_wins():
    rules = levels_rules()
    res = play_match(rules, 3, seed=1)  # 3 agreed rounds: the plugin plays on past them
    assert len(res.orders) > 3
    game = replay(rules, res.seeds, res.log)
    won = game.match.get(team_levels.WON)
    assert won is not None and res.winners == list(team_levels.TEAMS[won])
    assert game.match.phase == MatchPhase.OVER and game.match.winners == team_levels.TEAMS[won]
    # GD-5.2: the deal that won was played at A
    before = replay(rules, res.seeds[:-1], res.log[: _actions_before_last(res)])
    assert before.match.get(team_levels.LEVELS)[won] == 14
    assert before.match.phase == MatchPhase.DEAL


def _actions_before_last(res) -> int:
    rules = levels_rules()
    game = Game(rules, 3)
    n = 0
    for seed in res.seeds[:-1]:
        game.start_round(seed)
        while game.match.phase == MatchPhase.PLAYING:
            a = res.log[n]
            game.apply(a.seat, a)
            n += 1
    return n


def test_a_match_over_hook_can_end_early_and_none_keeps_the_agreed_rounds():
    early = make_plugin("early", zsy_match_over=lambda match: (1, 3) if match.results else None)
    res = play_match(build_rules(4, ["early"], plugins={"early": early}), 5, seed=2)
    assert len(res.orders) == 1 and res.winners == [1, 3]
    none = make_plugin("none", zsy_match_over=lambda match: None)
    res = play_match(build_rules(4, ["none"], plugins={"none": none}), 2, seed=2)
    assert len(res.orders) == 2 and res.winners


def test_winners_that_are_not_seats_are_refused():
    bad = make_plugin("bad", zsy_match_over=lambda match: (7,))
    with pytest.raises(ValueError, match="winners are seats"):
        play_match(build_rules(4, ["bad"], plugins={"bad": bad}), 2, seed=2)


# --- 3. the lead of every deal ---------------------------------------------------------------


def test_the_holder_of_3d_leads_every_deal_with_it():
    rules = diamond_rules()
    res = play_match(rules, 4, seed=5)
    game = Game(rules, 4)
    n = 0
    for seed in res.seeds:
        game.start_round(seed)
        r = game.match.round
        holder = next(s for s, h in enumerate(r.hands) if THREE_D in h)
        assert r.turn == holder and r.must_contain == THREE_D % DECK
        first = res.log[n]
        assert first.kind == PLAY and first.seat == holder and THREE_D in first.cards
        while game.match.phase == MatchPhase.PLAYING:
            a = res.log[n]
            game.apply(a.seat, a)
            n += 1
    assert len(res.seeds) == 4


def test_a_lead_by_seat_and_a_bad_lead_are_checked():
    dealer_left = make_plugin(
        "left", zsy_deal_lead=lambda rules, match: Lead(seat=(len(match.results) + 1) % 4)
    )
    rules = build_rules(4, ["left", "no-tribute"], plugins={"left": dealer_left})
    game = Game(rules, 2)
    game.start_round(round_seed(0, 0))
    assert game.match.round.turn == 1 and game.match.round.must_contain is None
    for answer, said in [(Lead(seat=9), "not a seat"), (Lead(card=make_card(0, 0, 1)), None),
                         (Lead(), "Lead\\(seat=...\\) or"), ("3D", "Lead\\(seat")]:
        p = make_plugin("odd", zsy_deal_lead=lambda rules, match, a=answer: a)
        game = Game(build_rules(4, ["odd"], plugins={"odd": p}), 1)
        if said is None:  # the second deck's 3♦ is the same card by rank and suit
            game.start_round(round_seed(0, 0))
            continue
        with pytest.raises(ValueError, match=said):
            game.start_round(round_seed(0, 0))


def test_a_card_lead_on_a_deal_that_owes_tribute_is_refused():
    p = make_plugin("every", zsy_deal_lead=lambda rules, match: Lead(card=THREE_D))
    rules = build_rules(4, ["every"], plugins={"every": p})
    res_game = Game(rules, 2)
    res_game.start_round(round_seed(0, 0))
    while res_game.match.phase == MatchPhase.PLAYING:
        r = res_game.match.round
        res_game.apply(r.turn, res_game.legal(r.turn)[0])
    with pytest.raises(ValueError, match="owes tribute"):
        res_game.start_round(round_seed(0, 1))


# --- 4. rule ids owned by the plugin -------------------------------------------------------------


def _diamond_table(zsy_table):
    t = zsy_table(variants=["diamond-lead"], plugins=DIAMOND)
    t.set_hands("3D 5 5 K", "3C 6 6 A", "4 7 7 Q", "4 8 8 J")
    t.game.match.round.__dict__["must_contain"] = THREE_D % DECK  # as dealt: 3♦ leads
    return t


def test_a_refusal_cites_the_plugins_own_rule_id(zsy_table):
    t = _diamond_table(zsy_table)
    err = t.expect_illegal(0, "5 5", rule="DL-2.1")  # the lead must contain 3♦
    assert str(err).endswith("(DL-2.1)")
    t.play(0, "3D")
    t.expect_illegal(1, "6 6", rule="DL-3.2")  # not the same kind
    t.play(1, "A")
    t.expect_illegal(2, "Q", rule="DL-3.2")  # not higher
    t.expect_illegal(2, "9", rule="ZSY-5.1")  # an id the plugin did not take over


def test_rule_ids_must_map_text_to_text():
    bad = make_plugin("bad", zsy_rule_ids=lambda: {"ZSY-4.1": 3})
    with pytest.raises(ConfigError, match="plugin 'bad': zsy_rule_ids"):
        build_rules(4, ["bad"], plugins={"bad": bad})


def test_rule_ids_merge_later_plugin_wins():
    a = make_plugin("a", zsy_rule_ids=lambda: {"ZSY-4.1": "A-1", "ZSY-2.1": "A-2"})
    b = make_plugin("b", zsy_rule_ids=lambda: {"ZSY-4.1": "B-1"})
    rules = build_rules(4, ["b", "a"], plugins={"a": a, "b": b})
    assert rules.rule_ids == {"ZSY-4.1": "B-1", "ZSY-2.1": "A-2"}
    assert rules.rule_id("ZSY-4.1") == "B-1" and rules.rule_id("ZSY-5.1") == "ZSY-5.1"


def test_the_engine_text_reads_a_plugin_id_with_a_digit():
    from zsy_lan.text.engine_text import translate

    said = "5♦ 5♣ is not higher than the last play (B2-3.2)"
    assert translate(said).endswith("(B2-3.2)")


# --- 5. player counts from the plugin --------------------------------------------------------


def test_player_counts_come_from_the_plugin():
    assert diamond_rules().players == 4
    assert diamond_rules(3, three_players="true").players == 3
    with pytest.raises(ConfigError) as exc:
        diamond_rules(3)
    msg = str(exc.value)
    assert "plugin 'diamond-lead' does not support 3 players (it plays with 4" in msg
    assert "3 with --option diamond-lead.three_players=true" in msg
    with pytest.raises(ConfigError, match="it plays with 3, 4\\)"):
        diamond_rules(5, three_players="true")


# --- the commands, with the test plugins installed ------------------------------------------------


@pytest.fixture
def run(monkeypatch):
    """``zsy`` with the two test plugins installed beside the built-in ones."""
    from click.testing import CliRunner

    from zsy_lan.cli import cli, plugin_cmds
    from zsy_lan.engine import ruleset

    registry = ruleset.discover(extra={**LEVELS, **DIAMOND})
    monkeypatch.setattr(ruleset, "installed", lambda: registry)
    monkeypatch.setattr(plugin_cmds, "installed", lambda: registry)
    runner = CliRunner()
    return lambda *args: runner.invoke(cli, list(args), catch_exceptions=False)


def test_zsy_rules_lists_the_plugins_rule_ids(run):
    res = run("rules", "--variant", "diamond-lead")
    assert res.exit_code == 0, res.output
    assert "DL-2.1 Every deal: the holder of 3♦ leads, with it." in res.output
    assert "DL-2.1 in place of ZSY-2.1, DL-3.2 in place of ZSY-4.1" in res.output
    # the base game's lead rules give way to the plugin's (no "round 1 only", no ZSY-2.2)
    assert "ZSY-2 Leads: at this table a plugin decides who leads each deal" in res.output
    assert "ZSY-2.1" not in res.output.split("Rule ids")[0] and "ZSY-2.2" not in res.output
    data = json.loads(run("rules", "--variant", "diamond-lead", "--json").output)
    assert data["rule_ids"] == {"ZSY-2.1": "DL-2.1", "ZSY-4.1": "DL-3.2"}
    assert "every deal" in data["first_lead"]
    assert "in place of" not in run("rules").output  # the base game cites its own ids


@pytest.mark.parametrize("command", [["rules"], ["selfplay", "--rounds", "1"]])
def test_a_count_the_plugin_refuses_is_a_usage_error_that_says_how(run, command):
    res = run(*command, "--variant", "diamond-lead", "--players", "3")
    assert res.exit_code == 2
    assert "does not support 3 players (it plays with 4; 3 with --option " in res.output
    ok = run(*command, "--variant", "diamond-lead", "--players", "3",
             "--option", "three_players=true")
    assert ok.exit_code == 0, ok.output


def test_zsy_plugins_lists_the_player_counts(run):
    out = run("plugins").output
    block = out[out.index("diamond-lead 1.0"):]
    assert "players: 4 (default 4)" in block.splitlines()[2]
    data = {p["name"]: p for p in json.loads(run("plugins", "--json").output)["plugins"]}
    assert data["team-levels"]["players"] == [4] and data["zsy"]["default_players"] == 4


def test_selfplay_plays_until_the_plugin_ends_the_match(run):
    res = run("selfplay", "--variant", "team-levels", "--rounds", "2", "--seed", "1", "--json")
    assert res.exit_code == 0, res.output
    data = json.loads(res.output)
    assert data["rounds"] > 2 and data["winners"] in ([0, 2], [1, 3])


@pytest.mark.parametrize(
    "command", [["play", "--plain"], ["host", "--no-mdns", "--interface", "lo", "--plain"]]
)
def test_play_and_host_refuse_a_count_the_plugin_does_not_play(run, command, tmp_path):
    res = run(*command, "--data-dir", str(tmp_path), "--variant", "diamond-lead", "--players", "3")
    assert res.exit_code == 2
    assert "plugin 'diamond-lead' does not support 3 players (it plays with 4; 3 with" in res.output


def test_the_score_sheet_of_a_match_the_plugin_ends_counts_no_agreed_rounds():
    """The sheet says "after 5 rounds", not "after 5 rounds of 3", and names the team."""
    from types import SimpleNamespace

    from zsy_lan.table.session import SeatInfo, SessionState
    from zsy_lan.ui.line_mode import score_lines

    rules = levels_rules()
    res = play_match(rules, 3, seed=1)
    game = replay(rules, res.seeds, res.log)
    info = SessionState(seats=[SeatInfo(nick=f"p{i}") for i in range(4)], table_name="t")
    sheet = score_lines(SimpleNamespace(game=game, seat=0, info=info))
    deals = len(res.orders)
    assert sheet[0] == f"Score sheet after {deals} rounds:"
    team = "team A" if res.winners == [0, 2] else "team B"
    assert sheet[-1] == f"Match over. Winner: {team}"


def test_a_seat_drawn_by_lot_from_the_deals_seed_leads_the_first_deal():
    """GD-4.1's first deal: zsy_deal_lead gets the deal's shared seed; later deals keep
    the base rule (None: the previous first out leads)."""
    from zsy_lan.engine.shuffle import choose

    def by_lot(rules, match, seed):
        return None if match.results else Lead(seat=choose(seed, "lot", rules.players))

    p = make_plugin("lot", zsy_deal_lead=by_lot)
    game = Game(build_rules(4, ["lot", "no-tribute"], plugins={"lot": p}), 2)
    for i in range(2):
        seed = round_seed("lot", i)
        game.start_round(seed)
        r = game.match.round
        want = choose(seed, "lot", 4) if i == 0 else game.match.results[-1].order[0]
        assert r.turn == r.leader == want and r.must_contain is None
        while game.match.phase == MatchPhase.PLAYING:
            game.apply(r.turn, game.legal(r.turn)[0])
            r = game.match.round
