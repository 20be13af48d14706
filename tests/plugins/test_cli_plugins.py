"""``zsy plugins``, ``zsy rules``, and ``zsy moves``/``zsy selfplay`` for every plugin."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from zsy_lan.cli import cli


@pytest.fixture
def run():
    runner = CliRunner()

    def invoke(*args: str):
        return runner.invoke(cli, list(args), catch_exceptions=False)

    return invoke


def test_plugins_lists_builtins_with_versions_and_options(run):
    res = run("plugins")
    assert res.exit_code == 0
    for name in ("zsy", "partnerships", "doubled-tribute", "no-tribute"):
        assert f"{name} 1.0.0" in res.output
    for name in ("doudizhu", "house-rules"):  # 1.1: redouble; the straight flush (ZSY-9.6 D)
        assert f"{name} 1.1.0" in res.output
    assert "--option show_kitty=<bool> (default false)" in res.output


def test_plugins_json(run):
    data = json.loads(run("plugins", "--json").output)["plugins"]
    ddz = next(p for p in data if p["name"] == "doudizhu")
    assert ddz["kind"] == "game" and ddz["version"] == "1.1.0" and ddz["problem"] is None
    assert {o["name"] for o in ddz["options"]} == {"show_kitty", "doubling", "match_multiple"}


def test_rules_shows_the_ruleset_id(run):
    from zsy_lan.engine.ruleset import build_rules, ruleset_id

    res = run("rules", "--variant", "doudizhu", "--option", "doubling=true")
    assert res.exit_code == 0
    rid = ruleset_id(build_rules(None, ["doudizhu"], {"doubling": "true"}))
    assert f"doudizhu for 3 players (ruleset {rid})" in res.output
    # the rules as a player reads them (zsy_lan/text/rules_text.py; tests/cli/test_rules_text.py)
    assert "3 face-down kitty cards" in res.output and "airplane with wings" in res.output
    assert "DDZ-6.2 Doubling (this table: on)" in res.output
    data = json.loads(run("rules", "--players", "6", "--variant", "partnerships", "--json").output)
    assert data["teams"] == [[0, 2, 4], [1, 3, 5]] and data["ruleset_id"]


@pytest.mark.parametrize(
    "args,message",
    [
        (["--variant", "nope"], "unknown plugin 'nope'"),
        (["--variant", "partnerships", "--players", "5"], "'partnerships' does not support 5"),
        (["--option", "show_kitty=1"], "belongs to plugin 'doudizhu'"),
        (["--variant", "doudizhu", "--option", "match_multiple=99"], "within 1..12"),
        (["--variant", "no-tribute", "--variant", "doubled-tribute"], "doubled-tribute"),
    ],
)
def test_rules_refusals_are_usage_errors(run, args, message):
    res = CliRunner().invoke(cli, ["rules", *args])
    assert res.exit_code == 2 and message in res.output


PLUGIN_ARGS = [
    [],
    ["--variant", "doudizhu", "--rounds", "3"],
    ["--variant", "doudizhu", "--players", "4", "--rounds", "3"],
    ["--variant", "partnerships"],
    ["--variant", "doubled-tribute"],
    ["--variant", "no-tribute"],
    ["--variant", "house-rules", "--option", "pair_chains=true", "--option", "revolution=true"],
]


@pytest.mark.parametrize("args", PLUGIN_ARGS, ids=lambda a: "-".join(a) or "base")
def test_selfplay_works_for_every_plugin(run, args):
    if "--rounds" not in args:
        args = [*args, "--rounds", "2"]
    res = run("selfplay", *args, "--json")
    assert res.exit_code == 0, res.output
    assert json.loads(res.output)["winners"]


def test_moves_for_doudizhu_play_phase(run):
    res = run("moves", "--variant", "doudizhu", "--hand", "3 3 3 4 4 4 9 9 9 9 5 6 BJ RJ",
              "--last", "5 5 5 6 6 6 7 8")
    assert res.exit_code == 0
    assert res.output.split("\n")[:2] == ["9 9 9 9", "BJ RJ"]
    res = run("moves", "--variant", "doudizhu", "--hand", "3 3 3 4 4 4 5 6")
    assert "3 3 3 4 4 4 5 6" in res.output.splitlines()


def test_moves_for_house_rules(run):
    res = run("moves", "--variant", "house-rules", "--option", "pair_chains=1", "--hand",
              "5 5 6 6 7 7", "--last", "3 3 4 4")
    assert "5 5 6 6" in res.output.splitlines() and "6 6 7 7" in res.output.splitlines()


def test_selfplay_text_speaks_the_variants_words(run):  # DDZ-4.5: no Upstream in Dou Dizhu
    res = run("selfplay", "--variant", "doudizhu", "--rounds", "3", "--seed", "1")
    assert res.exit_code == 0
    assert "Upstream" not in res.output and "Downstream" not in res.output
    assert "out first" in res.output and "winner: seat(s)" in res.output
    res = run("selfplay", "--players", "4", "--rounds", "2", "--seed", "1")
    assert "Upstream seat" in res.output and "rounds as Upstream" in res.output
