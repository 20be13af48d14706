"""``zsy play --plain``: the table's news starts on its own line (a real process, a pipe).

The line mode prints a notice on a fresh line and the prompt again after it (PlainReader.show),
but ``zsy play`` handed the table ``click.echo`` and a Ctrl-C wrapper, so it never used that:
"[your turn, 3 s left] > * time's up (3 s): played 3 of hearts for you", and no prompt after.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = [pytest.mark.slow, pytest.mark.timeout(60)]


def test_a_clock_notice_is_not_glued_to_the_prompt(tmp_path: Path) -> None:
    zsy = Path(sys.executable).with_name("zsy")
    env = {**os.environ, "ZSY_LANG": "en", "NO_COLOR": "1"}
    proc = subprocess.Popen(
        [str(zsy), "--lang", "en", "play", "--plain", "--players", "3", "--rounds", "1",
         "--seed", "7", "--turn-timer", "3", "--quiet-bots", "--data-dir", str(tmp_path)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env,
    )
    out = b""
    try:
        os.set_blocking(proc.stdout.fileno(), False)
        deadline = time.monotonic() + 40
        while b"time's up" not in out and time.monotonic() < deadline:
            chunk = proc.stdout.read()
            if chunk:
                out += chunk
            else:
                time.sleep(0.05)
        time.sleep(0.3)  # the prompt that follows the notice
        out += proc.stdout.read() or b""
    finally:
        proc.kill()
        proc.wait(10)
        proc.stdout.close()
        proc.stdin.close()
    text = out.decode()
    assert "time's up" in text, text[-2000:]
    lines = text.split("\n")
    notice = next(x for x in lines if "time's up" in x)
    assert notice.startswith("* time's up"), notice
    after = lines[lines.index(notice) + 1 :]
    assert any(x.endswith("> ") for x in after), after  # the prompt again, on its own line
