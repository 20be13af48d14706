"""The table clock end to end (issue #15): real ``zsy host`` and ``zsy join`` processes.

The host (its seat played by a bot, plus one bot seat) sets a 3-second clock,
hints off and an invitation; the joiner sits with the printed URL and types
nothing: its own client plays the hint twice, switches to auto-play, and the
host's process reads "ana's time ran out: the hint was played" and "ana is on
auto-play"; a typed line brings "ana is back". Loopback only (``--interface
lo --no-mdns``); every process group is killed at the end.
"""

from __future__ import annotations

import re

import pytest
from process_support import ZsyProcess

URL_RE = re.compile(r"zsy join (tcp://127\.0\.0\.1:\d+#[A-Za-z0-9_-]{43}\.[A-Za-z0-9_-]+)")


def _words(text: str) -> str:
    """A pattern for ``text`` as the line mode prints it: a long line is wrapped at the
    terminal's width, anywhere between words (where depends on the cards dealt)."""
    return r"\s+".join(re.escape(w) for w in text.split())


@pytest.mark.slow
@pytest.mark.timeout(120)
def test_a_silent_player_times_out_twice_goes_on_auto_play_and_comes_back(tmp_path):
    loop = ["--interface", "lo", "--plain", "--color", "never"]
    host = ZsyProcess(tmp_path, "host", [
        "host", "--players", "3", "--rounds", "3", "--bots", "1", "--bot", "normal",
        "--open-deal", "--turn-timer", "3", "--no-hints", "--invite", "--nick", "host",
        "--no-mdns", "--data-dir", str(tmp_path / "h"), *loop,
    ])
    joiner = None
    try:
        text = host.wait_for(URL_RE.pattern, 30)
        assert "invite only" in text and "table clock 3 seconds per turn" in text
        url = URL_RE.search(text).group(1)  # type: ignore[union-attr]
        joiner = ZsyProcess(tmp_path, "join", [
            "join", url, "--nick", "ana", "--data-dir", str(tmp_path / "j"), *loop,
        ])
        host.wait_for(_words("ana's time ran out: the hint was played"), 40)
        host.wait_for(_words("ana is on auto-play"), 40)
        # The joiner's own lines are waited for, not read once: its process prints them
        # and the host's prints what it was told; under load either may come first.
        joiner.wait_for(_words("time's up (3 s):"), 20)  # played, or passed: the hint
        joiner.wait_for(_words("auto-play (托管) is on"), 20)
        joiner.type("who\n")  # the player is back
        host.wait_for(_words("ana is back"), 20)
        joiner.wait_for(_words("Auto-play OFF: you play again"), 10)
    finally:
        for proc in (joiner, host):
            if proc is not None:
                proc.kill()
