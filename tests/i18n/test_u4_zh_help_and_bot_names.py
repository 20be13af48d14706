"""``zsy --lang zh host --help`` is Chinese throughout, and bots are named in the player's language.

Issue #26: the help showed ``--relay URL``, ``--interface IF``, ``[默认：0; 0<=x<=5]`` and two
options without any help (``--bot-level``, ``--color``); ``zsy play``'s bots were
``normal-1`` in every language.
"""

from __future__ import annotations

import re

from click.testing import CliRunner

from zsy_lan.cli import cli
from zsy_lan.table.local_table import local_nicks
from zsy_lan.text import i18n
from zsy_lan.text.bot_names import level_name


def _help(lang: str, *args: str) -> str:
    got = CliRunner().invoke(
        cli, ["--lang", lang, *args, "--help"], prog_name="zsy", terminal_width=80
    )
    assert got.exit_code == 0, got.output
    return got.output


def test_the_host_help_names_its_placeholders_in_chinese() -> None:
    out = _help("zh", "host")
    for english, chinese in (
        ("--relay URL", "--relay 地址"),
        ("--interface IF", "--interface 接口"),
        ("--variant NAME", "--variant 名称"),
        ("--option NAME=VALUE", "--option 名称=值"),
        ("SECONDS", "off|fast|normal|slow|秒数"),
    ):
        assert english not in out and chinese in out, english
    assert "[默认：0；0<=x<=5]" in out  # click's "; " between a default and a range
    # every option has a help text (the values it takes stay as typed: easy|normal|hard)
    for option in ("--bot-level [easy|normal|hard]", "--color [auto|always|never]"):
        line = next(x for x in out.splitlines() if x.strip().startswith(option))
        assert re.search(r"[\u4e00-\u9fff]", line), line


def test_other_languages_keep_their_own_placeholders() -> None:
    assert "--interface SCHNITTSTELLE" in _help("de", "host")
    assert "--interface INTERFAZ" in _help("es", "host")
    assert "--relay URL" in _help("en", "host") and "[default: 0; 0<=x<=5]" in _help("en", "host")


def test_zsy_play_names_its_bots_by_level_in_the_players_language() -> None:
    assert local_nicks(3, 0, "normal", "me") == {0: "me", 1: "normal-1", 2: "normal-2"}
    try:
        i18n.set_language("zh")
        assert local_nicks(3, 0, "hard", "me")[1] == "困难-1"
        assert level_name("easy") == "简单" and level_name("nobody-knows") == "nobody-knows"
        i18n.set_language("de")
        assert local_nicks(4, 2, "easy", "ich")[3] == "leicht-3"
    finally:
        i18n.set_language("en")


def test_every_option_says_what_it_does() -> None:
    """An option without help shows bare in every language (``--color [auto|always|never]``)."""
    import click

    def bare(command: click.Command, path: str) -> list[str]:
        out = [
            f"{path} {p.opts[0]}"
            for p in command.params
            if isinstance(p, click.Option) and not p.hidden and not p.help
        ]
        if isinstance(command, click.Group):
            for name, sub in command.commands.items():
                out += bare(sub, f"{path} {name}")
        return out

    assert bare(cli, "zsy") == []


def test_a_hosted_bot_is_named_in_each_players_language() -> None:
    from zsy_lan.text.bot_names import shown_nick

    assert shown_nick("bot:normal", True) == "bot:normal"
    try:
        i18n.set_language("zh")
        assert shown_nick("bot:hard", True) == "困难机器人"
        assert shown_nick("bot:hard", False) == "bot:hard"  # a person's chosen name stays
        assert shown_nick("bot:custom", True) == "bot:custom"  # an external bot program
        i18n.set_language("es")
        assert shown_nick("bot:easy", True) == "bot:fácil"
        assert shown_nick("bot:easy-2", True) == "bot:fácil-2"
    finally:
        i18n.set_language("en")
