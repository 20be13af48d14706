"""The terminal UI driven as a user would: host and join in two tmux terminals, play a
round on loopback, refuse a bad play with its reason, leave the terminal as it was
(issue "The LAN table": the terminal UI test)."""

from __future__ import annotations

import re
import shutil
import sys
import time
import uuid
from pathlib import Path

import pytest
from click.testing import CliRunner
from tmux_support import tmux_fixture, wait_for

from zsy_lan.cli import cli

ZSY = str(Path(sys.executable).with_name("zsy"))

pytestmark = [
    pytest.mark.slow,
    pytest.mark.timeout(180),
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
]


tmux = tmux_fixture(height=50, history=2000)


def test_host_and_join_in_two_terminals(tmux, tmp_path):
    # --plain: the line mode (a terminal this large would get the full screen, issue #14,
    # which tests/ui/test_screen_tmux.py plays)
    host_dir, join_dir = tmp_path / "ana", tmp_path / "bob"
    name = f"t{uuid.uuid4().hex[:6]}"

    def shell(tag: str, cmd: str) -> str:
        # record the terminal settings before and after, to prove they are restored
        return (
            f"sh -c 'stty -g > {tmp_path}/{tag}.before; {cmd}; echo EXIT=$?; "
            f"stty -g > {tmp_path}/{tag}.after; sleep 120'"
        )

    tmux.new(
        "host",
        shell(
            "host",
            f"{ZSY} host --players 3 --bots 1 --rounds 1 --interface lo --nick ana "
            f"--name {name} --no-mdns --data-dir {host_dir} --plain",
        ),
    )
    url = wait_for(
        lambda: (m := re.search(r"zsy join (tcp://\S+#\S+)\)", tmux.screen("host"))) and m.group(1),
        30,
        "the host's join line",
    )
    tmux.new(
        "join",
        shell(
            "join",
            f"{ZSY} join {url} --interface lo --nick bob --data-dir {join_dir} --plain",
        ),
    )
    wait_for(
        lambda: re.search(r"round 1 dealt|deal done", tmux.screen("join")),
        30,
        "the first deal at the joiner",
    )
    tmux.type("join", "zz")
    wait_for(lambda: "'zz' is not a card" in tmux.screen("join"), 10, "a refusal naming the token")
    # issue #13: a Q is a queen, never "quit" (it used to end the joiner's match: "Bye (quit)")
    def joined(pane: str) -> str:  # the table wraps long lines itself: read them whole
        return re.sub(r"\n +", " ", tmux.screen(pane))

    tmux.type("join", "Q")
    wait_for(
        lambda: re.search(r"Q is a queen|you: Q|hold no queens", joined("join")),
        10,
        "Q read as a card (played, or refused as one)",
    )
    tmux.type("join", "quit")
    wait_for(lambda: "Type yes to leave" in joined("join"), 10, "quit asking first")
    tmux.type("join", "no")
    wait_for(lambda: "You stay at the table." in joined("join"), 10, "staying")
    assert "Bye (" not in tmux.screen("join")
    tmux.type("join", "who")
    wait_for(lambda: "seat 1: bot:normal - bot" in tmux.screen("join"), 10, "the roster")

    # Neither player has typed a move (a Q at most), so the table waits on one of the two:
    # "#1" typed in the other terminal is out of turn, and refused
    your_turn = re.compile(r"\[your turn[^\]]*\] >\s*$")

    def asks(pane: str) -> bool:
        lines = [line for line in tmux.screen(pane).splitlines() if line.strip()]
        return bool(lines) and bool(your_turn.search(lines[-1]))

    on_turn = wait_for(
        lambda: next((p for p in ("host", "join") if asks(p)), None), 10, "a your-turn prompt"
    )
    off_turn = "join" if on_turn == "host" else "host"
    tmux.type(off_turn, "#1")
    wait_for(lambda: "Not your turn" in tmux.screen(off_turn), 10, "typing out of turn refused")
    # then "#1" (the first legal move) goes to a pane as soon as its prompt says it is its
    # turn with nothing typed yet, and blindly every half second too (a prompt may be missed)
    typed: dict[str, tuple[str, float]] = {}  # pane: the screen "#1" was typed on, and when
    deadline = time.monotonic() + 150
    while time.monotonic() < deadline:
        screens = {pane: tmux.screen(pane) for pane in ("host", "join")}
        if all("EXIT=" in screen for screen in screens.values()):
            break
        for pane, screen in screens.items():
            seen, at = typed.get(pane, ("", 0.0))
            lines = [line for line in screen.splitlines() if line.strip()]
            asked = bool(lines) and bool(your_turn.search(lines[-1])) and screen != seen
            if "EXIT=" not in screen and (asked or time.monotonic() - at >= 0.5):
                tmux.type(pane, "#1")
                typed[pane] = (screen, time.monotonic())
        time.sleep(0.03)
    host_screen, join_screen = tmux.screen("host"), tmux.screen("join")
    assert "Match over. Winner" in host_screen and "Match over. Winner" in join_screen
    assert "EXIT=0" in host_screen and "EXIT=0" in join_screen
    assert "Not your turn" in host_screen + join_screen  # typing out of turn is refused
    for tag in ("host", "join"):
        before = (tmp_path / f"{tag}.before").read_text()
        after = (tmp_path / f"{tag}.after").read_text()
        assert before == after, f"{tag}: terminal settings not restored"
    records = sorted(tmp_path.glob("*/profiles/default/tables/*/transcript.jsonl"))
    assert len(records) == 2
    heads = []
    for rec in records:
        out = CliRunner().invoke(cli, ["replay", "--verify", str(rec)])  # in this process
        assert out.exit_code == 0, out.output
        heads.append(out.output.split("head ")[-1].strip())
    assert heads[0] == heads[1]
