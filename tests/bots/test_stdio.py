"""The JSON-lines bot protocol: ``zsy bot --stdio``, ExternalBot, and its failure modes."""

from __future__ import annotations

import io
import json
import sys
import time
from pathlib import Path

import pytest
from bot_helpers import ZSY_BOT, rules_for

from zsy_lan.bots import ExternalBot, ExternalBotError, FallbackBot, Observation, make_bot
from zsy_lan.bots.wire import decode_observation, encode_observation
from zsy_lan.cli.bot_cmds import serve
from zsy_lan.engine.game import Game
from zsy_lan.engine.selfplay import play_match, round_seed
from zsy_lan.engine.view import view

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "bots" / "lowest_bot.py"


def first_obs(players=4, variants=(), seed="wire"):
    rules = rules_for(players, variants)
    game = Game(rules, 3 if rules.kitty_size else 1)
    game.start_round(round_seed(seed, 0))
    st = game.match.round
    return Observation.of(rules, view(st, st.turn), st.turn)


def script(body: str) -> list[str]:
    """A misbehaving external bot as a python one-liner program."""
    return [sys.executable, "-c", body]


# --- the wire format ----------------------------------------------------------------


def test_observation_round_trip_and_no_hidden_cards():
    obs = first_obs()
    wire = encode_observation(obs, 7)
    text = json.dumps(wire)
    assert wire["id"] == 7 and wire["seat"] == obs.seat
    hands = wire["view"]["hands"]
    assert [h is None for h in hands] == [s != obs.seat for s in range(4)]
    assert "secret_kitty" not in text
    back = decode_observation(json.loads(text))
    assert back.view == obs.view and back.legal == obs.legal and back.seat == obs.seat


def test_observation_carries_the_play_log():
    """The view's public play log (``RoundState.log``) travels as ``view.log``."""
    rules = rules_for(4)
    game = Game(rules, 1)
    game.start_round(round_seed("wire-log", 0))
    bots = [make_bot("easy", s) for s in range(4)]
    for _ in range(6):
        st = game.match.round
        game.apply(st.turn, bots[st.turn].act(rules, view(st, st.turn), st.turn))
    st = game.match.round
    obs = Observation.of(rules, view(st, st.turn), st.turn)
    wire = json.loads(json.dumps(encode_observation(obs)))
    assert len(wire["view"]["log"]) == 6 == len(st.log)
    assert decode_observation(wire).view.log == st.log
    bad = dict(wire, view=dict(wire["view"], log=[[0, "x"]]))
    with pytest.raises(ValueError):
        decode_observation(bad)


def test_dou_dizhu_observation_hides_the_kitty():
    obs = first_obs(3, ["doudizhu"])
    wire = encode_observation(obs)
    assert "secret_kitty" not in json.dumps(wire)
    assert wire["variants"] == ["doudizhu"] and wire["phase"] == "bidding"
    assert decode_observation(wire).rules.kitty_size == 3


def run_serve(lines, level="normal"):
    out = io.StringIO()
    serve(level, "t", io.StringIO("".join(line + "\n" for line in lines)), out)
    return [json.loads(x) for x in out.getvalue().splitlines()]


def test_serve_answers_and_never_crashes_on_garbage():
    obs = first_obs()
    good = json.dumps(encode_observation(obs, 3))
    bad_seat = dict(encode_observation(obs, 4), seat=9)
    bad_rules = dict(encode_observation(obs, 5), ruleset="0000")
    replies = run_serve([
        good, "not json at all", "[1, 2]", json.dumps(bad_seat), json.dumps(bad_rules),
        json.dumps({"type": "observation", "players": 4}), "", good,
    ])
    assert len(replies) == 7
    assert replies[0]["id"] == 3 and replies[0]["kind"] in ("play", "pass")
    assert "not JSON" in replies[1]["error"]
    assert "JSON object" in replies[2]["error"]
    assert replies[3]["id"] == 4 and "seat" in replies[3]["error"]
    assert replies[4]["id"] == 5 and "ruleset id" in replies[4]["error"]
    assert "error" in replies[5]
    assert replies[6] == replies[0]  # deterministic: same observation, same answer


def test_serve_quit_message_ends_the_loop():
    lines = [json.dumps({"type": "quit"}), json.dumps(encode_observation(first_obs()))]
    assert run_serve(lines) == []


# --- external programs --------------------------------------------------------------


@pytest.mark.parametrize("table", [(4, []), (3, ["doudizhu"]), (6, ["partnerships"])])
def test_zsy_bot_stdio_plays_a_match_as_an_external_program(table):
    rules = rules_for(*table)
    ext = ExternalBot(ZSY_BOT + ["--level", "normal", "--seed", "1"], timeout=20)
    try:
        bots = [ext] + [make_bot("easy", s) for s in range(1, rules.players)]
        result = play_match(rules, 3 if rules.kitty_size else 1, "ext", bots)
        assert result.orders
        assert ext.name == "bot:python" or ext.name.startswith("bot:")
    finally:
        ext.close()


def test_external_answers_equal_builtin_answers():
    """The same level and seed decides the same through the protocol as in process."""
    obs = first_obs(seed="same")
    with ExternalBot(ZSY_BOT + ["--level", "normal", "--seed", "5"], timeout=20) as ext:
        assert ext.choose(obs) == make_bot("normal", f"5:{obs.seat}").choose(obs)


def test_example_script_plays_without_zsy_lan():
    assert "zsy_lan" not in EXAMPLE.read_text().split('"""')[2]  # no import of the package
    rules = rules_for(4)
    ext = ExternalBot([sys.executable, str(EXAMPLE)])
    try:
        result = play_match(rules, 2, "example", [ext] + [make_bot("easy", s) for s in (1, 2, 3)])
        assert result.orders
    finally:
        ext.close()


def test_garbage_answer_names_the_program():
    prog = script("import sys\nfor line in sys.stdin:\n print('hello there', flush=True)")
    with ExternalBot(prog, timeout=10) as ext, pytest.raises(ExternalBotError) as err:
        ext.choose(first_obs())
    assert "answered garbage" in str(err.value) and sys.executable in str(err.value)


def test_illegal_action_is_refused_with_the_legal_ones():
    prog = script(
        "import sys, json\n"
        "for line in sys.stdin:\n"
        " o = json.loads(line)\n"
        " print(json.dumps({'kind': 'play', 'seat': o['seat'], 'cards': [53], 'id': o['id']}),"
        " flush=True)"
    )
    obs = first_obs()
    with ExternalBot(prog, timeout=10) as ext, pytest.raises(ExternalBotError) as err:
        ext.choose(obs)
    assert "illegal action play RJ" in str(err.value) and "legal:" in str(err.value)


@pytest.mark.slow  # a real program must miss its 1.3 s to be killed
def test_timeout_kills_the_program_and_falls_back():
    prog = script("import sys, time\nfor line in sys.stdin:\n time.sleep(30)")
    ext = ExternalBot(prog, timeout=0.3, start_timeout=1.0, max_restarts=0)
    obs = first_obs()
    t0 = time.monotonic()
    with pytest.raises(ExternalBotError, match=r"did not answer within 1\.3s"):
        ext.choose(obs)
    assert time.monotonic() - t0 < 20  # not the 30 s it sleeps, however loaded the machine
    assert ext._proc is None  # killed
    with pytest.raises(ExternalBotError, match="failed too often"):
        ext.choose(obs)  # no restart left
    errors = []
    fb = FallbackBot(ExternalBot(prog, timeout=0.2, start_timeout=0.5), make_bot("normal"),
                     give_up_after=1, on_error=errors.append)
    action = fb.choose(obs)
    assert action in obs.legal and len(errors) == 1 and fb.gave_up
    assert fb.choose(obs) == action  # the builtin bot holds the seat now
    fb.close()


def test_crash_reports_exit_code_and_stderr():
    prog = script("import sys\nsys.stdin.readline()\nsys.exit('boom: no strategy')")
    with ExternalBot(prog, timeout=10) as ext, pytest.raises(ExternalBotError) as err:
        ext.choose(first_obs())
    assert "exited (code 1)" in str(err.value) and "boom: no strategy" in str(err.value)


def test_missing_program_is_a_clear_error():
    with pytest.raises(ExternalBotError, match="could not be started"):
        ExternalBot(["/nonexistent/zsy-bot-xyz"]).choose(first_obs())


def test_stale_answers_are_skipped_and_child_killed_on_close():
    """Answers carrying an older id are ignored; close() leaves no child behind."""
    prog = script(
        "import sys, json\n"
        "for line in sys.stdin:\n"
        " o = json.loads(line)\n"
        " a = dict(o['legal'][0])\n"
        " print(json.dumps(dict(a, id=o['id'] - 1)), flush=True)\n"
        " print(json.dumps(dict(a, id=o['id'])), flush=True)"
    )
    obs = first_obs()
    ext = ExternalBot(prog, timeout=10)
    assert ext.choose(obs) == obs.legal[0]
    proc = ext._proc
    assert proc is not None and proc.poll() is None
    ext.close()
    assert proc.poll() is not None
