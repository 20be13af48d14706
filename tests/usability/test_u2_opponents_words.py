"""``zsy history --opponents`` says "tied", not "level 1" (read as a skill level).

Seen in session 7 (helper U2): "carol (...): 1 match, you finished above 0, below 1, level
0". Each count now says what it counts; ``--json`` keeps its keys.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "history"))
from history_support import file_as_seat, give_profile, play  # noqa: E402

from zsy_lan.cli import cli  # noqa: E402
from zsy_lan.protocol.identity import Identity  # noqa: E402

pytestmark = [pytest.mark.timeout(120)]


def test_opponents_say_ahead_behind_and_tied(tmp_path) -> None:
    me, a, b = (Identity.generate() for _ in range(3))
    game = play(tmp_path / "m.jsonl", [me, a, b], seed="u2")
    root = tmp_path / "data"
    give_profile(root, "p", me)
    file_as_seat(root, "p", game)
    out = CliRunner().invoke(
        cli,
        ["--lang", "en", "history", "--data-dir", str(root), "--profile", "p", "--opponents"],
        catch_exceptions=False,
    ).output
    lines = [line for line in out.splitlines() if "1 match;" in line]
    assert len(lines) == 2, out
    for line in lines:
        assert "you finished ahead of them in " in line and ", tied in " in line
        assert "level" not in line
