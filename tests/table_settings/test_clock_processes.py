"""The table clock end to end (issue #15): real ``zsy host`` and ``zsy join`` processes.

The host (its seat played by a bot, plus one bot seat) sets a 3-second clock,
hints off and an invitation; the joiner sits with the printed URL and types
nothing: its own client plays the hint twice, switches to auto-play, and the
host's process reads "ana's time ran out: the hint was played" and "ana is on
auto-play"; a typed line brings "ana is back". Loopback only (``--interface
lo --no-mdns``); every process group is killed at the end.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ZSY = str(Path(sys.executable).with_name("zsy"))
URL_RE = re.compile(r"zsy join (tcp://127\.0\.0\.1:\d+#[A-Za-z0-9_-]{43}\.[A-Za-z0-9_-]+)")


def _start(args: list[str], out: Path, tmp: Path, stdin=subprocess.DEVNULL) -> subprocess.Popen:
    env = dict(os.environ, PYTHONUNBUFFERED="1", TMPDIR=str(tmp))
    env.pop("ZSY_DATA_DIR", None)
    with out.open("wb") as f:
        return subprocess.Popen(
            [ZSY, *args],
            stdin=stdin,
            stdout=f,
            stderr=subprocess.STDOUT,
            env=env,
            cwd=tmp,
            start_new_session=True,
        )


def _wait_text(path: Path, pattern: str, proc: subprocess.Popen, timeout: float) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        text = path.read_text(errors="replace")
        if re.search(pattern, text):
            return text
        if proc.poll() is not None:
            break
        time.sleep(0.1)
    raise AssertionError(f"no {pattern!r} in {path.name}:\n{path.read_text(errors='replace')}")


def _kill(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(5)


@pytest.mark.slow
@pytest.mark.timeout(120)
def test_a_silent_player_times_out_twice_goes_on_auto_play_and_comes_back(tmp_path):
    host_out, join_out = tmp_path / "host.out", tmp_path / "join.out"
    loop = ["--interface", "lo", "--plain", "--color", "never"]
    host = _start(
        ["host", "--players", "3", "--rounds", "3", "--bots", "1", "--bot", "normal",
         "--open-deal", "--turn-timer", "3", "--no-hints", "--invite", "--nick", "host",
         "--no-mdns",
         "--data-dir", str(tmp_path / "h"), *loop],
        host_out, tmp_path,
    )
    joiner = None
    try:
        text = _wait_text(host_out, URL_RE.pattern, host, 30)
        assert "invite only" in text and "table clock 3 seconds per turn" in text
        url = URL_RE.search(text).group(1)  # type: ignore[union-attr]
        joiner = _start(
            ["join", url, "--nick", "ana", "--data-dir", str(tmp_path / "j"), *loop],
            join_out, tmp_path, stdin=subprocess.PIPE,
        )
        _wait_text(host_out, r"ana's time ran out: the hint was played", host, 40)
        _wait_text(host_out, r"ana is on auto-play", host, 40)
        # The joiner's own lines are waited for, not read once: its process prints them
        # and the host's prints what it was told; under load either may come first.
        _wait_text(join_out, re.escape("time's up (3 s): played"), joiner, 20)
        _wait_text(join_out, re.escape("auto-play (托管) is on"), joiner, 20)
        assert joiner.stdin is not None
        joiner.stdin.write(b"who\n")  # the player is back
        joiner.stdin.flush()
        _wait_text(host_out, r"ana is back", host, 20)
        _wait_text(join_out, r"Auto-play OFF: you play again", joiner, 10)
    finally:
        for proc in (joiner, host):
            if proc is not None:
                _kill(proc)
                if proc.stdin is not None:
                    with contextlib.suppress(OSError):
                        proc.stdin.close()
