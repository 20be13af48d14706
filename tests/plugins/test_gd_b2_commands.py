"""Guandan's and Big Two's words in the commands (issue #27): ``zsy moves --level``, the
same cards named when listed twice, the rounds a retelling says were played, and a
plugin's declared order in ``zsy plugins``."""

from __future__ import annotations

import importlib.metadata as md
import json
from dataclasses import replace
from types import SimpleNamespace

import pytest
from click.testing import CliRunner
from plugin_helpers import FakeEntryPoint, make_plugin

from zsy_lan.cli import cli
from zsy_lan.engine.match import MatchPhase, MatchState, RoundResult
from zsy_lan.engine.ruleset import build_rules, refresh
from zsy_lan.record.retell import header_line
from zsy_lan.text.i18n import set_language


def run(*args: str):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


# --- zsy moves --level (GD-1.2, GD-2.2) ------------------------------------------------


def test_the_level_decides_which_hearts_are_wild():
    """GD-2.2: 7♥ is wild at level 7 (it pairs with 3♠), an ordinary 7 at level 2."""
    hand = ["--variant", "guandan", "--hand", "3♠ 7♥"]
    assert "3♠ 7♥" not in run("moves", *hand).output.splitlines()
    assert "3♠ 7♥" in run("moves", *hand, "--level", "7").output.splitlines()
    at_2 = run("moves", *hand, "--level", "2").output
    assert at_2 == run("moves", *hand).output  # the default is level 2, the first deal's
    assert "3♠ 7♥" in run("moves", *hand, "--level", "7", "--json").output


def test_the_level_is_read_as_a_rank():
    hand = ["moves", "--variant", "guandan", "--hand", "3♠ Q♥"]
    assert "3♠ Q♥" in run(*hand, "--level", "q").output.splitlines()
    for bad in ("1", "15", "X", "joker"):
        res = run(*hand, "--level", bad)
        assert res.exit_code == 2 and "is not a level: a rank from 2 to A" in res.output


def test_a_game_without_levels_refuses_the_option():
    res = run("moves", "--hand", "3 4", "--level", "7")
    assert res.exit_code == 2
    assert "this game is not played at levels (Guandan is: --variant guandan)" in res.output


def test_a_straight_and_a_straight_flush_of_the_same_cards_are_named():
    """GD-3.3: 3♥-7♥ is a straight and a straight flush (a bomb): the list says which."""
    out = run("moves", "--variant", "guandan", "--hand", "3♥ 4♥ 5♥ 6♥ 7♥ 9♠").output
    lines = out.splitlines()
    assert "3♥ 4♥ 5♥ 6♥ 7♥ (straight)" in lines
    assert "3♥ 4♥ 5♥ 6♥ 7♥ (straight flush)" in lines
    assert "9♠" in lines and "3♥ 4♥ 5♥ 6♥ 7♥" not in lines  # only the twice-listed named
    data = json.loads(run("moves", "--variant", "guandan", "--json", "--hand",
                          "3♥ 4♥ 5♥ 6♥ 7♥").output)
    pairs = list(zip(data["plays"], data["kinds"], strict=True))
    assert ("3♥ 4♥ 5♥ 6♥ 7♥", "straight") in pairs
    assert ("3♥ 4♥ 5♥ 6♥ 7♥", "straightflush") in pairs


def test_the_named_moves_are_said_in_the_players_language():
    try:
        out = run("--lang", "zh", "moves", "--variant", "guandan", "--hand", "3♥ 4♥ 5♥ 6♥ 7♥")
    finally:
        set_language("en")
    assert "3♥ 4♥ 5♥ 6♥ 7♥（同花顺）" in out.output.splitlines()


# --- the retelling's header -------------------------------------------------------------


def _game(variant: list[str], agreed: int, played: int, over: bool):
    rules = build_rules(4, variant)
    results = tuple(RoundResult(n + 1, (0, 1, 2, 3), (0, 0, 0, 0), False) for n in range(played))
    match = MatchState(players=4, rounds=agreed, results=results,
                       phase=MatchPhase.OVER if over else MatchPhase.DEAL)
    return SimpleNamespace(rules=rules, match=match, finished=lambda: over)


@pytest.mark.parametrize(
    ("variant", "agreed", "played", "over", "said"),
    [
        (["guandan"], 1, 9, True, "4 players, 9 rounds played, open deal."),  # GD-5.2: to A
        (["big-two"], 1, 3, True, "4 players, 3 rounds played, open deal."),
        ([], 5, 6, True, "4 players, 6 rounds played, open deal."),  # a deciding round
        ([], 5, 5, True, "4 players, 5 rounds, open deal."),
        (["guandan"], 1, 4, False, "4 players, 1 round, open deal."),  # cut short: agreed
    ],
)
def test_the_header_says_the_rounds_played_when_the_match_went_past_them(
    variant, agreed, played, over, said
):
    game = _game(variant, agreed, played, over)
    assert header_line(game, {"name": "friday"}) == f"Table 'friday': {said}"


def test_the_header_says_dou_dizhu_s_hands_played():
    game = _game(["doudizhu"], 6, 7, True)
    game.rules = replace(build_rules(3, ["doudizhu"]))
    assert header_line(game, {"name": "t"}) == "Table 't': 3 players, 7 hands played, open deal."


# --- zsy plugins: the declared order ------------------------------------------------------


def test_plugins_lists_a_plugin_s_declared_order(monkeypatch):
    late = make_plugin("late")
    late.after = ("house-rules", "no-tribute")
    eps = list(md.entry_points(group="zsy.variants")) + [FakeEntryPoint("late", late)]
    monkeypatch.setattr("zsy_lan.engine.ruleset.md.entry_points", lambda group: eps)
    refresh()
    try:
        text = run("plugins").output
        data = json.loads(run("plugins", "--json").output)["plugins"]
    finally:
        refresh()
    block = text[text.index("late 0.1"):].splitlines()
    assert "    comes after: house-rules, no-tribute (where they differ, its rules win)" in block
    found = {p["name"]: p["after"] for p in data}
    assert found["late"] == ["house-rules", "no-tribute"] and found["zsy"] == []
    assert "comes after" not in text[: text.index("late 0.1")]  # the built-ins declare none


def test_rounds_given_to_guandan_is_said_not_used_and_json_stays_clean():
    """GD-5.2: the match ends at A whatever the count; a --rounds the player gave is not
    dropped without a word (standard error, so --json stays one object)."""
    said = CliRunner().invoke(
        cli, ["selfplay", "--variant", "guandan", "--rounds", "3", "--seed", "g", "--json"]
    )
    assert said.exit_code == 0, said.output
    assert "until a team wins a deal at level A (GD-5.2): --rounds 3 is not used" in said.stderr
    assert len(json.loads(said.stdout)["orders"]) >= 4  # from 2 past A: at least four deals
    plain = CliRunner().invoke(cli, ["selfplay", "--variant", "guandan", "--seed", "g"])
    assert plain.exit_code == 0 and "--rounds" not in plain.stderr
    zsy = CliRunner().invoke(cli, ["selfplay", "--rounds", "3", "--seed", "g"])
    assert zsy.exit_code == 0 and "--rounds" not in zsy.stderr
