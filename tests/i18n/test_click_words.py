"""Click's own words in the player's language: "Usage:", "Error: …", "Show this message and exit."

Session 7 (helper W3): at a German, Chinese or Spanish table the help and every
command-line error still framed the translated text in click's English ("Usage:",
"Try 'zsy host --help' for help.", "Error: Invalid value for '--rounds': 'x' is not a
valid integer range.", "No such option", "Did you mean", "Missing argument",
"Options:", "[default: …]"). Click marks them with Python's global gettext; the CLI
points click at our catalogue (``zsy_lan.text.i18n.serve_gettext_of``) and
``i18n_tools`` extracts click's messages from the installed click, so an
upgrade that adds one fails ``test_every_click_message_is_translated``.
"""

from __future__ import annotations

import ast
import gettext
import importlib.util
import re
import sys
import unicodedata
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from zsy_lan.cli import choose_language, cli
from zsy_lan.text.i18n import DOMAIN, LOCALE_DIR, set_language

pytest.importorskip("babel", reason="Babel comes with the test extra: pip install -e '.[test]'")

import i18n_tools  # noqa: E402

CLICK_DIR = Path(next(iter(importlib.util.find_spec("click").submodule_search_locations)))


@pytest.fixture(autouse=True)
def english_afterwards() -> Iterator[None]:
    """The language is per process: leave it (and click's words) English for other tests."""
    yield
    set_language("en")
    choose_language("en")


def _run(*args: str) -> str:
    got = CliRunner().invoke(
        cli,
        list(args),
        prog_name="zsy",
        env={"ZSY_LANG": None},
        terminal_width=200,  # one line per option: the texts are looked for whole
        max_content_width=200,
    )
    return got.output


@pytest.mark.parametrize("lang", i18n_tools.TARGETS)
def test_every_click_message_is_translated(lang: str) -> None:
    """Each message the installed click can pass to gettext is in the shipped ``.mo``."""
    messages, _dynamic = i18n_tools.click_messages()
    assert len(messages) > 50  # the extraction found click's words at all
    table = gettext.translation(DOMAIN, str(LOCALE_DIR), [lang])._catalog  # type: ignore[attr-defined]
    untranslated = []
    for msgid, where, _line in messages:
        key = (msgid[0], 0) if isinstance(msgid, tuple) else msgid
        if not table.get(key):
            untranslated.append(f"{where}: {msgid!r}")
    for msgid in i18n_tools.CLICK_DYNAMIC_MSGIDS:
        if not table.get(msgid):
            untranslated.append(f"(dynamic): {msgid!r}")
    assert not untranslated, f"{lang}: click says these in English:\n" + "\n".join(untranslated)


def test_click_calls_gettext_only_in_ways_we_catch() -> None:
    """What the extraction and the rebinding rely on, read from the installed click.

    Click's messages reach gettext only through ``from gettext import gettext /
    ngettext`` (rebound by serve_gettext_of), and each call with a non-literal
    message is one of CLICK_DYNAMIC_MSGIDS: a click that calls ``gettext.pgettext``
    or passes a new variable to ``_`` fails here, not silently in English.
    """
    for source in sorted(CLICK_DIR.glob("*.py")):
        tree = ast.parse(source.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                assert "gettext" not in {a.name for a in node.names}, source.name
            elif isinstance(node, ast.ImportFrom) and node.module == "gettext":
                assert {a.name for a in node.names} <= {"gettext", "ngettext"}, source.name
    _messages, dynamic = i18n_tools.click_messages()
    assert len(dynamic) == len(i18n_tools.CLICK_DYNAMIC_MSGIDS), dynamic
    core = (CLICK_DIR / "core.py").read_text(encoding="utf-8")
    for msgid in i18n_tools.CLICK_DYNAMIC_MSGIDS:
        assert f'"{msgid}"' in core  # the literal the variable holds


def test_no_click_module_keeps_the_global_gettext() -> None:
    """After the CLI is loaded, every click module looks its words up in our catalogue."""
    import zsy_lan.cli  # noqa: F401 - loading the CLI binds click's gettext
    from zsy_lan.text.i18n import serve_gettext_of

    serve_gettext_of("click")  # idempotent: nothing is left to rebind
    left = [
        f"{name}.{attr}"
        for name, module in list(sys.modules.items())
        if name == "click" or name.startswith("click.")
        for attr, value in vars(module).items()
        if value is gettext.gettext or value is gettext.ngettext
    ]
    assert not left
    assert "click.exceptions" in sys.modules and "click.formatting" in sys.modules


def test_a_cli_error_is_framed_in_german() -> None:
    out = _run("--lang", "de", "host", "--rounds", "x")
    assert "Aufruf: zsy host [OPTIONEN]" in out
    assert "Hilfe gibt es mit „zsy host --help“." in out
    assert "Fehler: Ungültiger Wert für '--rounds': 'x' ist keine gültige Ganzzahl." in out
    for english in ("Usage:", "Try '", "Error:", "Invalid value", "integer"):
        assert english not in out


@pytest.mark.parametrize(
    ("args", "want", "english"),
    [
        (["--lang", "de", "host", "--plan"], "Die Option '--plan' gibt es nicht.", "No such"),
        (["--lang", "de", "hots"], "Meintest du 'host'?", "Did you mean"),
        (["--lang", "es", "replay"], "Falta el argumento 'FILE'.", "Missing argument"),
        (["--lang", "es", "replay", "/no/such"], "Archivo '/no/such' no existe.", "File"),
        (["--lang", "zh"], "错误：缺少命令。", "Missing command"),
        (["--lang", "zh", "play", "--seed"], "选项 '--seed' 后面需要 1 个值。", "requires"),
        (["--lang", "es", "host", "--bot-level", "x"], "no es ninguno de 'easy'", "is not one of"),
        (["--lang", "de", "host", "--port", "99999"], "liegt nicht im Bereich", "not in the range"),
    ],
)
def test_click_errors_in_the_users_language(args: list[str], want: str, english: str) -> None:
    out = _run(*args)
    assert want in out, out
    assert english not in out, out


def test_lang_zh_help_shows_click_words_in_chinese() -> None:
    out = _run("--lang", "zh", "--help")
    assert out.startswith("用法：zsy [选项] 命令 [参数]...")
    assert "\n选项：\n" in out and "\n命令：\n" in out
    assert "显示此帮助并退出。" in out and "显示版本并退出。" in out
    assert "游戏语言" in out  # our own option help, as before
    for english in ("Usage:", "Options:", "Commands:", "Show this message", "Show the version"):
        assert english not in out


def test_a_commands_help_follows_a_change_of_language() -> None:
    """Click keeps each command's --help option once made: a later language still reaches it."""
    zh = _run("--lang", "zh", "host", "--help")
    assert "显示此帮助并退出。" in zh and "--rounds 整数" in zh and "[默认：" in zh
    de = _run("--lang", "de", "host", "--help")
    assert "Diese Hilfe zeigen und beenden." in de and "--rounds GANZZAHL" in de
    assert "[Vorgabe: 0; 0<=x<=5]" in de  # --bots: click's "[default: …]"
    assert "--data-dir VERZEICHNIS" in de  # a path's kind, named by click when it was made
    en = _run("--lang", "en", "host", "--help")
    assert "Show this message and exit." in en and "--rounds INTEGER RANGE" in en
    assert "[default: 0; 0<=x<=5]" in en and "--data-dir DIRECTORY" in en
    assert "Usage: zsy host [OPTIONS]" in en


def test_version_in_the_users_language() -> None:
    assert _run("--lang", "es", "--version").startswith("zsy, versión ")
    assert _run("--lang", "en", "--version").startswith("zsy, version ")


def test_english_stays_clicks_own() -> None:
    out = _run("--lang", "en", "host", "--rounds", "x")
    assert "Usage: zsy host [OPTIONS]\nTry 'zsy host --help' for help." in out
    assert "Error: Invalid value for '--rounds': 'x' is not a valid integer range." in out


def _columns(line: str) -> int:
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in line)


def test_chinese_help_fits_the_terminal() -> None:
    """Click counts a Chinese character as one column and breaks only at spaces.

    ``zsy --lang zh host --help`` ran lines of 110 columns past an 80-column
    terminal, ``zsy --lang zh --help`` listed ``tables`` with its whole paragraph
    and showed a translation's line break as a space between two characters.
    """
    pages = []
    for args in ([], ["host"], ["watch"], ["tables"], ["play"]):
        got = CliRunner().invoke(
            cli, ["--lang", "zh", *args, "--help"], prog_name="zsy", terminal_width=80
        )
        assert got.exit_code == 0, got.output
        pages.append(got.output)
    lines = "\n".join(pages).splitlines()
    assert max(_columns(line) for line in lines) <= 80
    assert not [line for line in lines if line.strip()[:1] in tuple("。，、；：）")]
    commands = pages[0].partition("\n命令：\n")[2] or pages[0].partition("\nCommands:\n")[2]
    assert "tables" in commands and "watch" in commands
    wide_space_wide = re.compile(r"[\u4e00-\u9fff\uff00-\uffef] [\u4e00-\u9fff\uff00-\uffef]")
    assert not wide_space_wide.search(commands), commands
    assert len(commands.strip().splitlines()) == len(cli.commands)  # one line per command


def test_english_help_is_laid_out_by_click() -> None:
    """The wide-aware layout leaves a help without Chinese to click as it was.

    (``host``'s English help names 托管 in one option: that one row is wrapped by columns.)
    """
    import click

    for name in ("join", "watch", "replay"):
        args = ["--lang", "en", name, "--help"]
        got = CliRunner().invoke(cli, args, prog_name="zsy", terminal_width=80)
        root = click.Context(cli, info_name="zsy", terminal_width=80)
        plain = click.Context(cli.commands[name], info_name=name, parent=root)
        assert type(plain) is click.Context and plain.formatter_class is click.HelpFormatter
        assert got.output == plain.get_help() + "\n"
