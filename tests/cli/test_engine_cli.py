"""The engine's command line: zsy moves, zsy selfplay, zsy play (issue: user features)."""

import asyncio
import json

import pytest
from click.testing import CliRunner

from zsy_lan.cli import cli


@pytest.fixture
def run():
    runner = CliRunner()

    def invoke(*args, input=None):
        return runner.invoke(cli, list(args), input=input, catch_exceptions=False)

    return invoke


def test_moves_as_leader(run):
    res = run("moves", "--hand", "3 3 4 5 6 7 BJ RJ")
    assert res.exit_code == 0
    lines = res.output.splitlines()
    assert "3 3" in lines and "3 4 5 6 7" in lines and "BJ RJ" in lines
    assert "BJ" in lines and "4 5 6 7" not in lines


def test_moves_following_and_json(run):  # ZSY-4.1, ZSY-4.2
    res = run("moves", "--hand", "3 3 4 5 6 7 BJ RJ", "--last", "4 4", "--json")
    assert json.loads(res.output) == {"plays": ["BJ RJ"], "kinds": ["jokerbomb"]}
    res = run("moves", "--hand", "10 J Q K A 2 2", "--last", "9 10 J Q K", "--json")
    assert json.loads(res.output)["plays"] == ["10 J Q K A", "J Q K A 2"]


def test_moves_two_decks(run):  # ZSY-3.4 D
    res = run("moves", "--players", "6", "--hand", "BJ BJ RJ RJ 3", "--last", "Q Q", "--json")
    assert json.loads(res.output)["plays"] == ["BJ BJ", "RJ RJ", "BJ BJ RJ RJ"]


@pytest.mark.parametrize(
    "args,needle",
    [
        (["--hand", "3 3 Z"], "'Z'"),
        (["--hand", "3 3", "--last", "3 4"], "not a combination"),
        (["--hand", "3 3 3 3 3"], "five 3s, but a 4-player deck holds only four"),
        ([], "--hand is required"),
    ],
)
def test_moves_bad_input_exit_2(args, needle):
    res = CliRunner().invoke(cli, ["moves", *args])
    assert res.exit_code == 2
    assert needle in res.output


def test_moves_batch(run):
    lines = "\n".join(
        [json.dumps({"hand": "3 3 4", "last": "3"}), "not json", json.dumps({"hand": "5 Q"})]
    )
    res = CliRunner().invoke(cli, ["moves", "--batch"], input=lines)
    out = [json.loads(x) for x in res.output.splitlines()]
    assert out[0] == {"plays": ["4"]}
    assert "line 2" in out[1]["error"]
    assert out[2] == {"plays": ["5", "Q"]}
    assert res.exit_code == 2


def test_selfplay_json_is_deterministic(run):
    a = json.loads(
        run("selfplay", "--players", "4", "--rounds", "3", "--seed", "9", "--json").output
    )
    b = json.loads(
        run("selfplay", "--players", "4", "--rounds", "3", "--seed", "9", "--json").output
    )
    assert a["hashes"] == b["hashes"] and len(a["hashes"]) == a["rounds"] >= 3
    assert {"rounds", "hashes", "actions", "seconds"} <= set(a)
    c = json.loads(
        run("selfplay", "--players", "4", "--rounds", "3", "--seed", "10", "--json").output
    )
    assert c["hashes"] != a["hashes"]


def test_selfplay_summary_text(run):
    res = run("selfplay", "--players", "3", "--rounds", "2", "--seed", "1", "--bot", "random")
    assert res.exit_code == 0
    assert "round 1: finishing order" in res.output and "winner: seat(s)" in res.output


def test_play_refuses_illegal_then_quits_cleanly(run, tmp_path):
    # seed 0 deals the start card (ZSY-2.1) to seat 0: the player leads at once
    res = run("play", "--seed", "0", "--rounds", "1", "--color", "never", "--plain",
              "--data-dir", str(tmp_path), input="zz\n3 4\n?\nquit\ny\n")
    assert res.exit_code == 0
    assert "'zz' is not a card" in res.output
    assert "(ZSY-" in res.output  # the refusal names the rule
    assert "  #1  " in res.output and "Bye (quit)" in res.output


def test_play_whole_round_on_auto(run, tmp_path, monkeypatch):
    """The player types auto (托管) once; the match plays out and its record is named.

    Auto-play waits ``Assist.auto_pause`` (0.3 s) at each of the player's turns so a
    person sees the table first; this test only needs the match to end, so it passes 0
    (as ``--pace 0`` does for the bots): the round is played, not watched.
    """
    import functools

    from zsy_lan.ui import line_mode as table_ui
    from zsy_lan.ui import play as play_ui

    monkeypatch.setattr(play_ui, "Assist", functools.partial(table_ui.Assist, auto_pause=0.0))

    typed = iter(["auto"])

    async def reader(self, prompt):
        line = next(typed, None)
        if line is None:
            await asyncio.sleep(3600)  # the table ends the read when the match is over
        return line

    monkeypatch.setattr(table_ui.PlainReader, "read", reader)
    res = run("play", "--seed", "3", "--rounds", "1", "--color", "never", "--plain",
              "--pace", "0", "--data-dir", str(tmp_path))
    assert res.exit_code == 0
    assert "Match over. Winner" in res.output and "Bye (match over)" in res.output


def test_help_lists_the_commands(run):
    out = run("--help").output
    for name in ("moves", "selfplay", "play"):
        assert name in out
