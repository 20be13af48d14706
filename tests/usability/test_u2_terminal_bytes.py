"""A byte from the terminal that is no UTF-8 does not end the full-screen table.

Found in session 7 (helper U2) by sending random bytes to ``zsy play`` in tmux: Textual's
input thread raised "UnicodeDecodeError: 'utf-8' codec can't decode byte 0x93" and the
table ended with a traceback (a Latin-1 terminal's é is such a byte).
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "ui"))
from tmux_support import tmux_fixture, wait_for  # noqa: E402

from zsy_lan.ui.screen import lenient_terminal_input  # noqa: E402

ZSY = str(Path(sys.executable).with_name("zsy"))

tmux = tmux_fixture(height=40)


def test_the_terminal_decoder_replaces_what_is_not_utf8() -> None:
    from textual.drivers import linux_driver

    lenient_terminal_input()
    lenient_terminal_input()  # twice is once
    decode = linux_driver.getincrementaldecoder("utf-8")().decode
    assert decode(b"a\x93b") == "a\ufffdb"
    assert decode(b"\xc3") == "" and decode(b"\xa9") == "é"  # a character split in two reads


@pytest.mark.slow
@pytest.mark.timeout(120)
@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
def test_a_latin1_byte_typed_at_the_table_is_no_crash(tmux, tmp_path) -> None:
    tmux.new(
        "p",
        f"sh -c 'env -u COLUMNS -u LINES TERM=xterm-256color {ZSY} --lang en play --seed 9 "
        f"--quiet-bots --data-dir {tmp_path}; echo EXIT=$?; sleep 60'",
    )
    show = lambda: tmux.screen("p")  # noqa: E731
    wait_for(lambda: "Your hand" in show(), 30, "the full screen", show)
    tmux.keys("p", "Tab")
    tmux.keys("p", "-H", "63", "61", "66", "e9", "93")  # "caf" then Latin-1 é and a stray byte
    tmux.keys("p", "x")  # the table still reads the keys after them
    wait_for(lambda: " caf" in tmux.screen("p") and "x" in tmux.screen("p").split(" caf")[1][:8],
             10, "the typed line", lambda: tmux.screen("p"))
    screen = tmux.screen("p")
    assert "EXIT=" not in screen and "UnicodeDecodeError" not in screen
