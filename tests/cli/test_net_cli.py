"""The network commands' traps (issues #12, #13): help, listings, Ctrl-C, bot seats, a taken port.

Everything runs in this process except one bounded ``zsy host`` on loopback
(``--interface lo --no-mdns``), killed at the end if it is still running.
"""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
from click.testing import CliRunner

from zsy_lan.cli import cli, net_cmds
from zsy_lan.engine.ruleset import build_rules
from zsy_lan.net.discovery import TableInfo
from zsy_lan.protocol.lobby import Roster, Seat
from zsy_lan.record.store import Profile
from zsy_lan.table.session import SeatInfo, SessionState

ZSY = str(Path(sys.executable).with_name("zsy"))


def _invoke(*args: str):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def test_host_help_tells_the_lobby_commands():
    out = _invoke("host", "--help").output
    for word in ("kick SEAT|NICK", "accept NICK", "refuse NICK", "--approve", "bots run by seat 0"):
        assert word in out, word


def _save(root: Path, table: str, name: str, mtime: float) -> None:
    store = Profile(root, "default").table(table)
    roster = Roster(
        table,
        name,
        1,
        build_rules(3, [], {}).config,
        [Seat(0, b"k" * 32, b"c" * 32, "tcp://127.0.0.1:4000", "me")],
    )
    store.save_roster(roster.to_json(), 0)
    os.utime(store.roster_path, (mtime, mtime))


def test_join_list_and_tables_mine_show_unfinished_tables_newest_first(tmp_path):
    """Issue #13: after a crash the player could not tell (or pick) which table resumes."""
    _save(tmp_path, "aaa111", "old table", 1_000_000)
    _save(tmp_path, "ccc333", "crashed table", 3_000_000)
    _save(tmp_path, "bbb222", "other table", 2_000_000)
    for args in (("join", "--list"), ("tables", "--mine")):
        res = _invoke(*args, "--data-dir", str(tmp_path))
        assert res.exit_code == 0
        lines = res.output.splitlines()
        assert "crashed table (id ccc333)" in lines[0]
        assert "other table (id bbb222)" in lines[1]
        assert "old table (id aaa111)" in lines[2]
        assert "zsy join ID" in lines[3]


def test_ctrl_c_names_the_game_record(tmp_path, capsys):
    """Issue #13: Ctrl-C did not print the game record's path (q does)."""
    record = tmp_path / "tables" / "t1" / "transcript.jsonl"

    async def interrupted() -> str:
        raise KeyboardInterrupt

    with pytest.raises(SystemExit) as info:
        net_cmds._run(interrupted(), [record], tmp_path)
    assert info.value.code == 130
    err = capsys.readouterr().err
    assert str(record) in err and "zsy replay" in err


def _fake_peer(connected: list[bool], stopped: str | None = None) -> SimpleNamespace:
    return SimpleNamespace(
        seat=0,
        info=SessionState(seats=[SeatInfo(connected=c) for c in connected], stopped=stopped),
        stopped=asyncio.Event(),
    )


@pytest.mark.asyncio
@pytest.mark.timeout(20)
async def test_bot_seat_gives_up_when_the_match_cannot_finish():
    """Issue #12: `zsy join --bot` kept running when the match could not finish."""
    # Short waits: it looks every alone_after/5 seconds, and each case below can only
    # pass as asserted (a slow machine makes the looks later, never the verdict other).
    never = asyncio.create_task(asyncio.sleep(3600))
    try:
        peer = _fake_peer([True, True, True], stopped="seat 2 cheated: x")
        await asyncio.wait_for(net_cmds._bot_seat_outcome(peer, never, 0.5), 5)
        assert peer.stopped.is_set()

        peer = _fake_peer([True, False, False])  # everyone else gone
        await asyncio.wait_for(net_cmds._bot_seat_outcome(peer, never, 0.2), 5)
        assert peer.stopped.is_set() and "cannot finish" in peer.info.stopped

        peer = _fake_peer([True, True, False])  # someone is still there: keep waiting
        with pytest.raises(TimeoutError):  # 3 times as long as alone_after (15 looks)
            await asyncio.wait_for(net_cmds._bot_seat_outcome(peer, never, 0.2), 0.6)
        assert not peer.stopped.is_set()
    finally:
        never.cancel()


def test_tables_says_which_bots_the_host_runs(monkeypatch):
    """Issue #12: bots in the host's process are visible to that player: say so."""
    key = b"\x01" * 32
    found = [
        TableInfo("abc", "ana's table", 1, "rs", ("zsy",), 1, 4, "fp", 5000, key, ("127.0.0.1",)),
        TableInfo(
            "def", "bo's table", 1, "rs", ("zsy",), 1, 4, "fp", 5001, key, ("127.0.0.1",), bots=2
        ),
    ]

    async def fake_browse(addrs, timeout):
        return found

    import zsy_lan.net.discovery as discovery

    monkeypatch.setattr(discovery, "browse_tables", fake_browse)
    out = _invoke("tables", "--interface", "lo").output.splitlines()
    assert "bots run by seat 0" not in out[0]
    assert "2 bots run by seat 0" in out[1]


@pytest.mark.timeout(60)
def test_host_on_a_taken_port_says_so_and_exits_1(tmp_path):
    """Issue #13: a port in use gave a ZMQError traceback."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        env = {**os.environ, "ZSY_DATA_DIR": str(tmp_path), "PYTHONUNBUFFERED": "1"}
        argv = [ZSY, "host", "--interface", "lo", "--no-mdns", "--port", str(port), "--plain"]
        proc = subprocess.Popen(
            argv,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        try:
            out, _err = proc.communicate(timeout=40)
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(5)
    text = out.decode(errors="replace")
    assert proc.returncode == 1, text
    assert f"port {port}" in text and "already in use" in text
    assert "Traceback" not in text and "ZMQError" not in text


def _read_until(path: Path, pattern: str, proc: subprocess.Popen, timeout: float) -> str:
    """The file's text once ``pattern`` is in it (polled with a deadline)."""
    import re
    import time

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        text = path.read_text(errors="replace") if path.exists() else ""
        m = re.search(pattern, text)
        if m:
            return m.group(1) if m.groups() else text
        if proc.poll() is not None:
            break
        time.sleep(0.1)
    raise AssertionError(f"{pattern!r} not seen in {path.name}: {path.read_text()[-1500:]}")


@pytest.mark.slow  # two zsy processes on loopback, about a second
@pytest.mark.timeout(90)
def test_host_types_kick_and_the_squatter_leaves_with_one_sentence(tmp_path):
    """Issue #12: the host removes a seated guest by typing at its terminal while waiting."""
    procs: list[subprocess.Popen] = []

    def start(name: str, argv: list[str], stdin) -> tuple[subprocess.Popen, Path]:
        out = tmp_path / f"{name}.txt"
        env = {**os.environ, "ZSY_DATA_DIR": str(tmp_path / name), "PYTHONUNBUFFERED": "1"}
        proc = subprocess.Popen(
            [ZSY, *argv],
            env=env,
            stdin=stdin,
            stdout=out.open("w"),
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        procs.append(proc)
        return proc, out

    lo = ["--interface", "lo", "--plain", "--color", "never"]
    try:
        host, host_out = start(
            "host",
            ["host", "--no-mdns", "--players", "3", "--open-deal", "--nick", "h", *lo],
            subprocess.PIPE,
        )
        url = _read_until(host_out, r"(tcp://127\.0\.0\.1:\d+#[A-Za-z0-9_-]{43})", host, 30)
        assert "kick SEAT|NICK" in host_out.read_text()
        squat, squat_out = start(
            "squat", ["join", url, "--nick", "squat", "--bot", "easy", *lo], subprocess.DEVNULL
        )
        _read_until(host_out, r"(squat \(bot\) sat down at seat 1)", host, 30)
        assert host.stdin is not None
        host.stdin.write(b"kick squat\n")
        host.stdin.flush()
        assert squat.wait(30) == 1
        text = squat_out.read_text()
        assert "the host removed you from the table" in text and "Traceback" not in text
        _read_until(host_out, r"(removed squat \(seat 1\); 2 seat)", host, 10)
        assert host.poll() is None  # the host is still open for others
    finally:
        for proc in procs:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(5)


@pytest.mark.slow
@pytest.mark.timeout(120)
def test_bot_seat_exits_1_when_the_host_dies_mid_match(tmp_path):
    """Issue #12: `zsy join --bot` kept running when the match could no longer finish."""
    procs: list[subprocess.Popen] = []

    def start(name: str, argv: list[str], **env_extra: str) -> tuple[subprocess.Popen, Path]:
        out = tmp_path / f"{name}.txt"
        env = {
            **os.environ,
            "ZSY_DATA_DIR": str(tmp_path / name),
            "PYTHONUNBUFFERED": "1",
            "TMPDIR": str(tmp_path),
            **env_extra,
        }
        proc = subprocess.Popen(
            [ZSY, *argv],
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=out.open("w"),
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        procs.append(proc)
        return proc, out

    lo = ["--interface", "lo", "--plain", "--color", "never"]
    try:
        host, host_out = start(
            "host",
            ["host", "--no-mdns", "--players", "3", "--bots", "1", "--open-deal", "--rounds", "50"]
            + ["--bot", "easy", *lo],
        )
        url = _read_until(host_out, r"(tcp://127\.0\.0\.1:\d+#[A-Za-z0-9_-]{43})", host, 30)
        bot, bot_out = start("bot", ["join", url, "--bot", "easy", *lo], ZSY_BOT_ALONE_AFTER="0.5")
        _read_until(bot_out, r"(round 1|dealt|plays)", bot, 60)
        os.killpg(host.pid, signal.SIGKILL)  # the host and its bot vanish mid-match
        host.wait(5)
        assert bot.wait(60) == 1, bot_out.read_text()[-1500:]
        text = bot_out.read_text()
        assert "Traceback" not in text
        assert "game record" in text
    finally:
        for proc in procs:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(5)
