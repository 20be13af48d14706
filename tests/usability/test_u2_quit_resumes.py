"""A player who types ``quit`` during a network match is told ``zsy join`` brings them back.

Played in session 7 (helper U2): Ctrl-C ended with "`zsy join` resumes the table.", but
``quit`` (and Ctrl-Q, y) only said "Bye (quit). The game record: ...", though the table
waits for that seat and only ``zsy join`` brings it back (README: "If you drop (or quit...)").
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = [pytest.mark.slow, pytest.mark.timeout(90)]


def test_quit_during_the_match_names_zsy_join(tmp_path: Path) -> None:
    zsy = Path(sys.executable).with_name("zsy")
    env = {**os.environ, "ZSY_LANG": "en", "NO_COLOR": "1"}
    proc = subprocess.Popen(
        [str(zsy), "--lang", "en", "host", "--plain", "--players", "3", "--bots", "2",
         "--open-deal", "--quiet-bots", "--rounds", "1", "--data-dir", str(tmp_path)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env,
    )
    out = b""
    try:
        os.set_blocking(proc.stdout.fileno(), False)
        deadline = time.monotonic() + 60
        while b"Your hand" not in out and time.monotonic() < deadline:
            chunk = proc.stdout.read()
            if chunk:
                out += chunk
            else:
                time.sleep(0.05)
        assert b"Your hand" in out, out.decode()[-2000:]
        proc.stdin.write(b"quit\nyes\n")
        proc.stdin.flush()
        deadline = time.monotonic() + 30
        while proc.poll() is None and time.monotonic() < deadline:
            chunk = proc.stdout.read()
            if chunk:
                out += chunk
            else:
                time.sleep(0.05)
        os.set_blocking(proc.stdout.fileno(), True)
        out += proc.stdout.read() or b""
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait(10)
        proc.stdout.close()
        proc.stdin.close()
    text = out.decode()
    assert "Bye (quit)" in text, text[-2000:]
    assert "`zsy join` resumes the table." in text.split("Bye (quit)")[1]
