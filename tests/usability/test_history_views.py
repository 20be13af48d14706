"""``zsy history`` says when its options do not go together (found trying the views).

``--opponents --ratings`` showed the ratings alone, and ``--ratings --limit 3`` the ratings
of every match: an option was dropped without a word. Each now gets one sentence saying
what to do (docs/history.md lists the views one per line).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from zsy_lan.cli import cli


def _run(tmp_path, *args: str):
    (tmp_path / "data").mkdir(exist_ok=True)  # a missing --data-dir is refused (a typo)
    return CliRunner().invoke(cli, ["history", "--data-dir", str(tmp_path / "data"), *args])


@pytest.mark.parametrize(
    "args", [("--opponents", "--ratings"), ("--variants", "--opponents", "--json")]
)
def test_two_views_at_once_are_refused_with_one_sentence(tmp_path, args) -> None:
    got = _run(tmp_path, *args)
    assert got.exit_code == 2
    assert "Choose one of --opponents, --variants and --ratings" in got.output
    assert "Traceback" not in got.output


@pytest.mark.parametrize(
    "args", [("--ratings", "--limit", "3"), ("--variants", "--all"), ("--opponents", "--all")]
)
def test_list_options_with_a_tally_are_refused_with_one_sentence(tmp_path, args) -> None:
    got = _run(tmp_path, *args)
    assert got.exit_code == 2
    assert f"leave them out with {args[0]}." in got.output


@pytest.mark.parametrize(
    "args",
    [(), ("--ratings",), ("--opponents", "--json"), ("--variants",), ("--limit", "2", "--all")],
)
def test_each_view_alone_still_works(tmp_path, args) -> None:
    assert _run(tmp_path, *args).exit_code == 0


def test_only_unfinished_matches_are_said_not_silently_empty(tmp_path) -> None:
    """A player who left their only match read "No finished matches in this history yet."
    and nothing about the record they had just been told was kept."""
    import shutil

    src = next(Path(__file__).parent.glob("data/unfinished-*.jsonl"))
    local = tmp_path / "data" / "local"
    local.mkdir(parents=True, exist_ok=True)
    shutil.copy(src, local / src.name)
    got = _run(tmp_path)
    assert got.exit_code == 0
    assert "1 unfinished match is not a result (zsy history --all lists it)" in got.output
    assert "unfinished match, not a result" in _run(tmp_path, "--all").output
