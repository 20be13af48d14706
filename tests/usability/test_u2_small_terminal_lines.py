"""The lines ``zsy play`` prints before its table wrap to a small terminal, as the table does.

Played in a 40x12 tmux window (session 7, helper U2): "El terminal mide 40x12; la mesa a
pantal / la completa necesita 60x20: se usa el mo / do de líneas." The table's own lines
wrapped at spaces; the two lines before it were cut by the terminal inside words.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "ui"))
from test_table_screen import ScriptReader  # noqa: E402

from zsy_lan.engine.ruleset import build_rules  # noqa: E402
from zsy_lan.table.local_table import make_local_table  # noqa: E402
from zsy_lan.ui import screen  # noqa: E402
from zsy_lan.ui.play import play_local  # noqa: E402
from zsy_lan.ui.render import Style  # noqa: E402

pytestmark = [pytest.mark.timeout(60)]


def test_the_too_small_sentence_is_wrapped_to_the_terminal(monkeypatch, capsys) -> None:
    monkeypatch.setattr("sys.stdin.isatty", lambda: True, raising=False)
    monkeypatch.setattr("sys.stdout.isatty", lambda: True, raising=False)
    monkeypatch.setenv("TERM", "xterm-256color")
    monkeypatch.setattr(screen.shutil, "get_terminal_size", lambda *a: os.terminal_size((40, 12)))
    assert screen.screen_wanted(plain=False) is False
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) > 1 and all(len(x) <= 40 for x in lines)
    assert "40x12" in lines[0]


@pytest.mark.asyncio
async def test_the_local_table_line_is_wrapped_to_the_terminal(tmp_path) -> None:
    table = make_local_table(build_rules(4), 1, 0, "normal", tmp_path / "rec.jsonl", seed="s")
    out: list[str] = []
    await play_local(table, Style(width=30), ScriptReader([]), out.append)
    first = [x for x in out[:3] if x.strip()]
    assert first[0].startswith("Local table: 4 players")
    assert all(len(x) <= 30 for x in first)
