"""The full-screen table end to end (issue #14): ``zsy host`` and ``zsy join`` in two tmux
terminals on loopback, a round played with the keys only (a number picks a move, Enter
plays it), q typed as a queen, Ctrl-Q asking first, and each terminal left as it was."""

from __future__ import annotations

import re
import shutil
import sys
import time
import uuid
from pathlib import Path

import pytest
from click.testing import CliRunner
from tmux_support import keys_are_read, tmux_fixture, wait_for

from zsy_lan.cli import cli

ZSY = str(Path(sys.executable).with_name("zsy"))

pytestmark = [
    pytest.mark.slow,
    pytest.mark.timeout(200),
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
]


tmux = tmux_fixture(height=40)


def test_host_and_join_play_a_round_with_the_keys(tmux, tmp_path):
    name = f"s{uuid.uuid4().hex[:6]}"

    def shell(tag: str, cmd: str) -> str:
        # the terminal settings before and after prove the terminal is restored
        return (
            f"sh -c 'stty -g > {tmp_path}/{tag}.before; env -u COLUMNS -u LINES "
            f"TERM=xterm-256color {cmd}; "
            f"echo EXIT=$?; stty -g > {tmp_path}/{tag}.after; sleep 120'"
        )

    tmux.new(
        "host",
        shell(
            "host",
            f"{ZSY} host --players 3 --bots 1 --rounds 1 --interface lo --nick ana "
            f"--name {name} --no-mdns --open-deal --data-dir {tmp_path / 'ana'}",
        ),
    )
    url = wait_for(
        lambda: (m := re.search(r"zsy join (tcp://\S+#\S+)\)", tmux.screen("host"))) and m.group(1),
        30,
        "the host's join line",
    )
    tmux.new(
        "join",
        shell("join", f"{ZSY} join {url} --interface lo --nick bob --data-dir {tmp_path / 'bob'}"),
    )
    for pane in ("host", "join"):
        wait_for(lambda p=pane: "Your hand (" in tmux.screen(p), 40, f"the full screen ({pane})")
    for pane in ("host", "join"):
        keys_are_read(tmux, pane)  # the first frame is drawn a moment before that
    # q on the hand starts the typed line; there it is a queen, never "quit": refused
    # with "(Q is a queen ...)" out of turn or when no queen fits, or played ("you: Q")
    # when the joiner's turn came first and a queen beats the lead (the deal decides)
    tmux.keys("join", "q")
    tmux.keys("join", "Enter")
    wait_for(
        lambda: re.search(r"queen|you: Q", tmux.screen("join")),
        10,
        "q read as a queen",
        lambda: tmux.screen("join"),
    )
    # Enter sent the line and the hand has the keys again
    # Ctrl-Q asks first; any key but y stays
    tmux.keys("join", "C-q")
    wait_for(
        lambda: "Leave the table while the match is on?" in tmux.screen("join"),
        10,
        "leaving asks first",
        lambda: tmux.screen("join"),
    )
    tmux.keys("join", "n")
    wait_for(lambda: "You stay at the table." in tmux.screen("join"), 10, "staying")

    # Keys go to a pane when its screen asks for them and has changed since its last keys
    # (so they are not sent twice on one frame), or a second after them (a key may be lost).
    answered: dict[str, tuple[str, float]] = {}  # pane: the screen last keyed on, and when
    deadline = time.monotonic() + 150
    while time.monotonic() < deadline:
        screens = {pane: tmux.screen(pane) for pane in ("host", "join")}
        if all("EXIT=" in screen for screen in screens.values()):
            break
        for pane, screen in screens.items():
            seen, at = answered.get(pane, ("", 0.0))
            if "EXIT=" in screen or (screen == seen and time.monotonic() - at < 1.0):
                continue
            if "Match over. Press Enter" in screen:
                tmux.keys(pane, "Enter")
            elif "Your turn." in screen:
                tmux.keys(pane, "1")  # the first listed move into the selection...
                tmux.keys(pane, "Enter")  # ...and Enter plays it
            else:
                continue
            answered[pane] = (screen, time.monotonic())
        time.sleep(0.03)  # a key that arrives late is harmless: 1 picks, never toggles
    host, join = tmux.screen("host"), tmux.screen("join")
    assert "Bye (match over)" in host and "Bye (match over)" in join, host + join
    assert "EXIT=0" in host and "EXIT=0" in join
    for tag in ("host", "join"):
        before = (tmp_path / f"{tag}.before").read_text()
        after = (tmp_path / f"{tag}.after").read_text()
        assert before == after, f"{tag}: terminal settings not restored"
    records = sorted(tmp_path.glob("*/profiles/default/tables/*/transcript.jsonl"))
    assert len(records) == 2
    for rec in records:
        out = CliRunner().invoke(cli, ["replay", "--verify", str(rec)])  # in this process
        assert out.exit_code == 0, out.output
