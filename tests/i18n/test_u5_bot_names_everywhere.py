"""Issue #26: a hosted bot's nick (``bot:normal``) reads the same for a spectator and in
``zsy replay`` as at the players' tables: in the reader's language
(zsy_lan.text.bot_names.shown_nick, the one function for all three)."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from local_support import play_out_now

from zsy_lan.cli import cli
from zsy_lan.engine.round import legal_actions
from zsy_lan.engine.ruleset import build_rules
from zsy_lan.table.follower import Follower
from zsy_lan.table.local_table import LocalTable
from zsy_lan.text.i18n import set_language

#: seat 0 is a person who calls themselves like a bot: a person keeps their name
NICKS = {0: "bot:hard", 1: "bot:normal", 2: "bot:hard", 3: "bot:normal-2"}


def _first(rules, view, seat):
    return legal_actions(rules, view, seat)[0]


@pytest.fixture(scope="module")
def record(tmp_path_factory) -> Path:
    """A match whose three bots carry a host's bot nicks (the header marks them bots)."""
    path = tmp_path_factory.mktemp("hosted") / "rec.jsonl"
    rules = build_rules(4)
    deciders = {s: _first for s in (1, 2, 3)}
    play_out_now(LocalTable(rules, 1, 0, deciders, path, seed="bots", nicks=NICKS))
    return path


@pytest.mark.parametrize(
    ("lang", "normal", "hard"),
    [
        ("en", "bot:normal", "bot:hard"),
        ("zh", "普通机器人", "困难机器人"),
        ("de", "Bot:normal", "Bot:schwer"),
    ],
)
def test_zsy_replay_names_hosted_bots_in_the_reader_s_language(record, lang, normal, hard):
    res = CliRunner().invoke(cli, ["--lang", lang, "replay", str(record)])
    assert res.exit_code == 0, res.output
    seats = res.output.splitlines()[1]
    assert f"{normal}-2" in seats and normal in seats and hard in seats, seats
    assert "bot:hard" in seats  # seat 0, a person: the name it chose
    if lang != "en":
        assert "bot:normal" not in res.output


def test_a_spectator_reads_hosted_bots_in_its_language(record):
    set_language("zh")
    lines = record.read_text(encoding="utf-8").splitlines()
    follower = Follower(lines[0])
    assert follower.nicks == {0: "bot:hard", 1: "普通机器人", 2: "困难机器人", 3: "普通机器人-2"}


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("lang", "said"),
    [("zh", "普通机器人 在1号座位坐下"), ("de", "Bot:normal hat sich auf Platz 1 gesetzt"),
     ("en", "bot:normal (bot) sat down at seat 1")],
)
async def test_the_hosts_lobby_names_its_bot_in_its_language(lang, said) -> None:
    """Found by hand: the host's own lobby line read "bot:normal（机器人） 在1号座位坐下"."""
    from types import SimpleNamespace

    from zsy_lan.protocol.lobby import Seat
    from zsy_lan.table.hosting import _seat_joined

    mesh = SimpleNamespace(connect_peer=lambda *_a: None)
    bot = Seat(1, b"k" * 32, b"c" * 32, "tcp://127.0.0.1:1", "bot:normal", True)
    lobby = SimpleNamespace(free=2, hosted={bot.key})
    lines: list[str] = []
    set_language(lang)
    await _seat_joined(mesh, lobby, bot, None, lines.append)
    assert lines and lines[0].startswith(said), lines
