"""Choosing the language: ``--lang``, ``ZSY_LANG``, the locale; the help follows it.

Issue #13: the game speaks English, 简体中文, Deutsch or Español, chosen by
``--lang`` or the locale.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from zsy_lan.cli import choose_language, cli
from zsy_lan.text.i18n import _, current_language, pick_language, set_language


@pytest.fixture(autouse=True)
def english_afterwards() -> Iterator[None]:
    """The language is per process: leave it English (and the help English) for other tests."""
    yield
    set_language("en")
    choose_language("en")


@pytest.mark.parametrize(
    ("environ", "expected"),
    [
        ({}, "en"),
        ({"LANG": "C.UTF-8"}, "en"),
        ({"LANG": "POSIX"}, "en"),
        ({"LANG": "zh_CN.UTF-8"}, "zh"),
        ({"LANG": "de_AT.UTF-8@euro"}, "de"),
        ({"LANG": "es-419"}, "es"),
        ({"LANG": "fr_FR.UTF-8"}, "en"),
        ({"LC_ALL": "de_DE.UTF-8", "LANG": "zh_CN.UTF-8"}, "de"),  # LC_ALL beats LANG
        ({"LC_MESSAGES": "es_ES", "LANG": "de_DE"}, "es"),
        ({"LANGUAGE": "fr:es", "LANG": "de_DE"}, "es"),  # GNU's wish list, first one we ship
        ({"LANGUAGE": "fr", "LANG": "de_DE"}, "de"),
        ({"ZSY_LANG": "zh", "LC_ALL": "de_DE.UTF-8"}, "zh"),  # ours beats the locale
        ({"ZSY_LANG": "xx", "LANG": "es_ES"}, "es"),  # an unknown wish is passed over
    ],
)
def test_the_locale_picks_the_language(environ: dict[str, str], expected: str) -> None:
    assert pick_language(None, environ) == expected


def test_an_explicit_language_beats_the_locale_and_an_unknown_one_is_refused() -> None:
    assert pick_language("zh_CN", {"LANG": "de_DE"}) == "zh"
    assert pick_language("ES", {}) == "es"
    with pytest.raises(ValueError, match="choose one of"):
        pick_language("klingon", {})


def test_lang_zh_shows_the_help_in_chinese() -> None:
    result = CliRunner().invoke(cli, ["--lang", "zh", "--help"], env={"ZSY_LANG": None})
    assert result.exit_code == 0, result.output
    assert "争上游和斗地主" in result.output  # the group's own text, in Chinese
    assert "游戏语言" in result.output  # the --lang option's help
    assert "Dou Dizhu in the terminal" not in result.output
    assert current_language() == "zh"


def test_the_locale_chooses_when_there_is_no_lang_option() -> None:
    result = CliRunner().invoke(
        cli, ["--help"], env={"ZSY_LANG": None, "LC_ALL": None, "LANG": "de_DE.UTF-8"}
    )
    assert result.exit_code == 0, result.output
    assert "im Terminal" in result.output
    result = CliRunner().invoke(cli, ["--help"], env={"ZSY_LANG": "es", "LANG": "de_DE.UTF-8"})
    assert "en la terminal" in result.output


def test_the_language_reaches_the_subcommands_help() -> None:
    result = CliRunner().invoke(cli, ["--lang", "zh", "rules", "--help"], env={"ZSY_LANG": None})
    assert result.exit_code == 0, result.output
    english = CliRunner().invoke(cli, ["--lang", "en", "rules", "--help"]).output
    assert result.output != english  # the same help, another language
    assert "玩家人数" in result.output  # --players, from the shared rules options


def test_an_unknown_lang_is_one_clear_sentence() -> None:
    result = CliRunner().invoke(cli, ["--lang", "xx", "plugins"])
    assert result.exit_code == 2
    assert "'xx' is not a language we ship: choose one of en, zh, de, es." in result.output
    assert "Traceback" not in result.output


def test_translations_change_with_the_language() -> None:
    msgid = "The game's language: en, zh, de or es (default: ZSY_LANG, else the locale)."
    set_language("de")
    german = _(msgid)
    set_language("es")
    spanish = _(msgid)
    set_language("en")
    assert _(msgid) == msgid
    assert german != msgid and spanish != msgid and german != spanish


@pytest.mark.slow
def test_the_compiled_catalogues_ship_with_the_package(tmp_path: Path) -> None:
    """setuptools' build_py (what a wheel holds) copies every .mo next to zsy_lan/text/i18n.py."""
    root = Path(__file__).resolve().parents[2]
    for name in ("pyproject.toml", "README.md", "zsy_lan", "engine", "plugins"):
        src = root / name
        if src.is_dir():
            shutil.copytree(src, tmp_path / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy(src, tmp_path / name)
    out = tmp_path / "out"
    subprocess.run(
        [
            sys.executable,
            "-c",
            "from setuptools import setup; setup()",
            "-q",
            "build_py",
            "-d",
            str(out),
        ],
        cwd=tmp_path,
        check=True,
        capture_output=True,
        timeout=100,
    )
    for lang in ("zh", "de", "es"):
        assert (out / "zsy_lan" / "locale" / lang / "LC_MESSAGES" / "zsy.mo").is_file()


def test_the_game_names_plays_in_the_players_language() -> None:
    """The glossary's terms at the table: 对子, 顺子, 飞机带翅膀, 王炸; Straße, Rakete; escalera."""
    from zsy_lan.engine.cards import parse_cards_exact
    from zsy_lan.engine.ruleset import build_rules
    from zsy_lan.text import words

    zsy, ddz = build_rules(4, [], {}), build_rules(3, ["doudizhu"], {})

    def named(rules, text: str) -> str | None:
        return words.play_name(rules, parse_cards_exact(text, 1))

    set_language("zh")
    assert named(zsy, "9 9") == "一对9"
    assert "顺子" in named(zsy, "10 J Q K A")
    assert "飞机" in named(ddz, "7 7 7 8 8 8 3 K") and "翅膀" in named(ddz, "7 7 7 8 8 8 3 K")
    assert named(ddz, "BJ RJ") == "王炸"
    assert words.role_name(ddz, "landlord") == "地主"
    set_language("de")
    assert named(zsy, "10 J Q K A") == "Straße 10 bis A"  # the card notation stays as typed
    assert named(ddz, "BJ RJ") == "Rakete"
    set_language("es")
    assert named(zsy, "9 9") == "pareja de nueves"
    assert words.role_name(ddz, "landlord") == "terrateniente"


def test_a_bid_pass_and_a_play_pass_are_different_words_in_chinese() -> None:
    """DDZ-2.1: declining to bid is 不叫, passing a trick 不要; English says "pass" for both."""
    from zsy_lan.engine.ruleset import build_rules
    from zsy_lan.engine.state import Action
    from zsy_lan.text import words

    ddz = build_rules(3, ["doudizhu"], {})
    no_bid, no_play = Action("bid", 0, value=0), Action("pass", 0)
    assert words.action_text(ddz, no_bid) == words.action_text(ddz, no_play) == "pass"
    set_language("zh")
    assert words.action_text(ddz, no_bid) == "不叫"
    assert words.action_text(ddz, no_play) == "不要"
