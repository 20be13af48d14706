"""``--lang`` works after the command too: ``zsy play --lang de``.

Typed in session 7 (helper U2): "Error: No such option '--lang'. Did you mean '--plain'?";
``--lang`` is the group's option and only worked before the command.
"""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from zsy_lan.cli import cli, lang_first
from zsy_lan.text.i18n import set_language


@pytest.mark.parametrize(
    ("args", "moved"),
    [
        (["play", "--lang", "de"], ["--lang=de", "play"]),
        (["history", "--lang=zh", "--limit", "2"], ["--lang=zh", "history", "--limit", "2"]),
        (["--lang", "es", "history", "--lang", "de"], ["--lang=de", "history"]),  # the last
        (["join", "--", "--lang"], ["join", "--", "--lang"]),  # after -- nothing moves
        (["play", "--lang"], ["play", "--lang"]),  # no value: click says so
        (["play"], ["play"]),
    ],
)
def test_lang_first_moves_the_option_before_the_command(args, moved) -> None:
    assert lang_first(args) == moved


def test_a_command_speaks_the_language_given_after_it() -> None:
    try:
        got = CliRunner().invoke(cli, ["moves", "--help", "--lang", "de"])
        assert got.exit_code == 0, got.output
        assert "Jeden erlaubten Zug" in got.output
        bad = CliRunner().invoke(cli, ["moves", "--lang", "xx", "--hand", "3"])
        assert bad.exit_code == 2
        assert "'xx' is not a language we ship" in bad.output
    finally:
        set_language("en")
