"""``zsy play``: the network table's screen on a local session, bot levels, and its record."""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
from pathlib import Path

import pytest
from click.testing import CliRunner
from local_support import play_out_now

from zsy_lan.cli import cli
from zsy_lan.engine.ruleset import build_rules
from zsy_lan.record.replay import replay_file
from zsy_lan.table.local_table import make_local_table
from zsy_lan.ui.line_mode import _handle, roster_lines, score_lines
from zsy_lan.ui.render import Style


def _bots_play_out(tmp_path: Path, **kw) -> tuple[object, Path]:
    rules = build_rules(kw.pop("players", 4), kw.pop("variants", []))
    record = tmp_path / "rec.jsonl"
    table = make_local_table(rules, kw.pop("rounds", 2), 0, kw.pop("level", "easy"), record,
                             seed=kw.pop("seed", "t1"))
    play_out_now(table)
    return table, record


def test_a_local_match_leaves_a_record_that_replay_verifies(tmp_path):
    table, record = _bots_play_out(tmp_path)
    assert table.game.finished()
    report = replay_file(record)
    assert report.ok, report.verdict()
    assert report.finished
    assert report.head == table.replicas[0].transcript_head()
    # the same results as the table played them
    assert [r["order"] for r in report.results] == [
        list(r.order) for r in table.game.match.results
    ]
    result = CliRunner().invoke(cli, ["replay", "--verify", str(record)])
    assert result.exit_code == 0, result.output
    assert result.output.startswith("OK:")


def test_a_tampered_local_record_is_refused(tmp_path):
    _, record = _bots_play_out(tmp_path, rounds=1)
    lines = record.read_text().splitlines()
    del lines[5]  # one signed message gone
    record.write_text("\n".join(lines) + "\n")
    assert not replay_file(record).ok


def test_dou_dizhu_local_match_verifies(tmp_path):
    table, record = _bots_play_out(tmp_path, players=3, variants=["doudizhu"], rounds=3)
    assert table.game.finished()
    assert replay_file(record).ok


def test_the_seed_fixes_the_deals(tmp_path):
    rules = build_rules(4)
    a = make_local_table(rules, 1, 0, "easy", tmp_path / "a.jsonl", seed="same")
    b = make_local_table(rules, 1, 0, "easy", tmp_path / "b.jsonl", seed="same")
    c = make_local_table(rules, 1, 0, "easy", tmp_path / "c.jsonl", seed="other")

    async def deal(t):
        t.start()
        hand = t.game.round.hands[0]
        await t.close()
        return hand

    async def all_three():
        return [await deal(t) for t in (a, b, c)]

    ha, hb, hc = asyncio.run(all_three())
    assert ha == hb
    assert ha != hc


def test_table_commands_work_on_the_local_table(tmp_path):
    """who labels the bots with their level; score; table (the network table's commands)."""
    rules = build_rules(4)
    table = make_local_table(rules, 1, 0, "hard", tmp_path / "r.jsonl", seed="w")
    style = Style.detect("never", True)

    async def go():
        table.start()
        out: list[str] = []
        for word in ("who", "score", "table"):
            await _handle(table, word, style, 0, out.append)
        await table.close()
        return out

    out = asyncio.run(go())
    roster = roster_lines(table)
    assert "(you)" in roster[0]
    assert all("bot" in line and f"hard-{s}" in line for s, line in enumerate(roster) if s)
    assert out[:4] == roster
    assert score_lines(table)[0] in out
    assert any("hard-1 [bot]" in line for line in out)  # the table itself labels the bots


def _play(args: list[str], tmp_path: Path, text: str = "quit\n"):
    return CliRunner().invoke(
        cli,
        ["play", "--plain", "--color", "never", "--data-dir", str(tmp_path), "--rounds", "1",
         *args],
        input=text,
    )


def _record_from(output: str) -> Path:
    found = re.search(r"The game record: (\S+)", output)
    assert found, output
    return Path(found.group(1))


def test_play_accepts_the_table_levels_and_prints_the_record(tmp_path):
    result = _play(["--bot-level", "hard", "--seed", "x"], tmp_path)
    assert result.exit_code == 0, result.output
    record = _record_from(result.output)
    assert record.exists() and record.parent.parent == tmp_path
    header = json.loads(record.read_text().splitlines()[0])
    assert header["game"]["nicks"]["1"] == "hard-1" and header["game"]["bots"] == [1, 2, 3]
    assert replay_file(record).ok  # an unfinished match verifies too


@pytest.mark.parametrize(
    ("args", "hint"),
    [
        (["--bot-level", "random"], "use --bot-level easy, normal or hard"),
        (["--bot-level", "greedy"], "use --bot-level easy"),
        (["--bot", "greedy"], "use --bot-level easy"),
        (["--bot-level", "expert"], "use easy, normal or hard"),
    ],
)
def test_old_level_names_are_refused_with_a_hint(tmp_path, args, hint):
    result = _play(args, tmp_path)
    assert result.exit_code == 2
    assert hint in result.output
    assert "Traceback" not in result.output
    assert not (tmp_path / "local").exists()  # nothing started


def test_ctrl_c_closes_the_table_and_prints_the_record(tmp_path, monkeypatch):
    from zsy_lan.ui import line_mode as table_ui

    async def interrupted(self, prompt):
        os.kill(os.getpid(), signal.SIGINT)  # what Ctrl-C sends; asyncio.run turns it around
        await asyncio.sleep(5)

    monkeypatch.setattr(table_ui.PlainReader, "read", interrupted)
    result = _play(["--bot-level", "easy", "--seed", "c"], tmp_path)
    assert "The game record:" in result.output and "Bye (Ctrl-C)" in result.output
    assert result.exit_code == 130
    assert "Traceback" not in result.output
    record = _record_from(result.output)
    assert replay_file(record).ok


def test_the_local_table_tells_moves_like_the_network_table(tmp_path):
    """Notices in the peer's words: tribute names the real giver and receiver (ZSY-7.1),
    each round over with its titles."""
    table, _ = _bots_play_out(tmp_path, rounds=2)
    told = []
    while not table.notices.empty():
        told.append(table.notices.get_nowait().text)
    first = table.game.match.results[0]
    up, down = first.order[0], first.order[-1]
    who = table.who
    assert any(t.startswith(f"{who(down)} give") and f" to {who(up)}" in t or
               t.startswith(f"{who(down)} gives you") for t in told)
    assert sum(t.startswith("round ") and " over: " in t for t in told) == len(
        table.game.match.results
    )


def test_turn_timer_is_read_as_at_a_network_table(tmp_path, monkeypatch):
    from zsy_lan.ui import play as local

    seen = {}

    def fake_run_local(*args, **kw):
        seen["timer"] = kw["timer"]
        return "quit"

    monkeypatch.setattr(local, "run_local", fake_run_local)
    assert _play(["--turn-timer", "fast"], tmp_path).exit_code == 0
    assert seen["timer"] == 15
    refused = _play(["--turn-timer", "1"], tmp_path)
    assert refused.exit_code == 2 and "number of seconds from 3 to 600" in refused.output


def test_the_record_is_the_players_own(tmp_path):
    """It holds every hand of a match still under way: no other local user reads it."""
    _, record = _bots_play_out(tmp_path / "data", rounds=1)
    assert record.stat().st_mode & 0o777 == 0o600


def test_a_full_disk_stops_the_record_not_the_match(tmp_path):
    """A storage error is a local fault: told once, in one sentence; the match goes on."""
    import errno

    rules = build_rules(4)
    record = tmp_path / "rec.jsonl"
    table = make_local_table(rules, 1, 0, "easy", record, seed="full")

    class Full:
        def __init__(self, inner, room):
            self.inner, self.room = inner, room

        def write(self, text):
            if self.room <= 0:
                raise OSError(errno.ENOSPC, "No space left on device")
            self.room -= 1
            return self.inner.write(text)

        def flush(self):
            self.inner.flush()

        def close(self):
            self.inner.close()

    async def go():
        table.start()
        table._file = Full(table._file, 10)
        await asyncio.wait_for(table.run_bots_only(), 60)
        await table.close()

    asyncio.run(go())
    assert table.game.finished()
    errors = []
    while not table.notices.empty():
        n = table.notices.get_nowait()
        if n.kind == "error":
            errors.append(n.text)
    assert len(errors) == 1 and "No space left on device" in errors[0]
    assert "Traceback" not in errors[0]
    report = replay_file(record)  # what was written still verifies, unfinished
    assert report.ok and not report.finished


def test_ctrl_c_at_the_prompt_leaves_cleanly(tmp_path, monkeypatch):
    """prompt_toolkit raises KeyboardInterrupt inside the reading task: no traceback,
    the table closes, the record is named, exit 130 (as zsy join)."""
    from zsy_lan.ui import line_mode as table_ui

    async def ctrl_c(self, prompt):
        raise KeyboardInterrupt

    monkeypatch.setattr(table_ui.PlainReader, "read", ctrl_c)
    result = _play(["--seed", "p"], tmp_path)
    assert result.exit_code == 130
    assert "Bye (Ctrl-C)" in result.output and "Traceback" not in result.output
    assert replay_file(_record_from(result.output)).ok


def test_memory_does_not_grow_with_the_local_match(tmp_path):
    """DESIGN.md "Memory does not grow with the match": finished rounds leave the
    replicas (the record on disk keeps everything and verifies)."""
    table, record = _bots_play_out(tmp_path, rounds=6, seed="mem")
    led = table.replicas[0].ledger
    assert led.entries.base > 0  # early rounds were let go
    assert len(led.entries.items) < len(led.entries)
    report = replay_file(record)
    assert report.ok and report.finished and report.messages == len(led.entries)


def test_the_score_sheet_counts_deciding_rounds_apart(tmp_path):
    """A tie after the agreed rounds is played on (ZSY-8.5); the sheet read "after 3 rounds of
    2", which looked like a mistake. Seeds are tried until one match ties (most do at 3 seats)."""
    for n in range(12):
        table, _record = _bots_play_out(tmp_path / str(n), players=3, seed=f"tie{n}")
        if len(table.game.match.results) > 2:
            break
    else:
        raise AssertionError("no match of twelve went to a deciding round")
    done = len(table.game.match.results)
    head = score_lines(table)[0]
    assert head == (
        f"Score sheet after {done} rounds: the 2 agreed and {done - 2} deciding "
        f"round{'s' if done > 3 else ''} (ZSY-8.5):"
    ), head
