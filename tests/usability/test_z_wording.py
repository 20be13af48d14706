"""Small wording leftovers a tester found at real tables (brief Z, part 3)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parents[1] / "ui"))
from test_peer_narration import _drain, _peer  # noqa: E402  (the narration tests' own peer)

from zsy_lan.protocol import Stalled  # noqa: E402

pytestmark = [pytest.mark.timeout(60)]


@pytest.mark.parametrize("what", ["action", "its shuffle step"])
def test_a_wait_is_one_sentence_without_double_parentheses(tmp_path, what):
    """"waiting for seat 3 (Bob) (a move) since ...": the nick's parentheses and the
    owed thing's stood side by side. A move reads "to move"; anything else is said once."""
    peer = _peer(tmp_path)
    peer._handle([Stalled(2, what)])
    told = [t for t in _drain(peer.notices) if "seat 2 (p2)" in t]
    assert len(told) == 1
    assert ") (" not in told[0]
    if what == "action":
        assert told[0].startswith("waiting for seat 2 (p2) to move, since ")
    else:
        assert told[0].startswith("waiting for its shuffle step from seat 2 (p2), since ")


@pytest.mark.parametrize("stage", ["play", "shuffle"])
def test_what_a_private_deal_seat_owes_is_said_in_the_players_language(
    tmp_path, monkeypatch, stage
):
    """The private deal's "a move" / "its shuffle step (private deal)" reached a Chinese
    table in English; the move was said as "(a move)" after "seat 2 (p2)"."""
    import gettext

    import zsy_lan.text.i18n as i18n
    from zsy_lan.deal.private_game import PrivateGame, Stage

    class StandIn(gettext.NullTranslations):
        def gettext(self, message: str) -> str:
            return {"its shuffle step": "洗牌步骤"}.get(message, message)

    peer = _peer(tmp_path)
    game = PrivateGame.__new__(PrivateGame)  # only what the stall notice reads
    game.stage = Stage(stage)
    game.actors = lambda: [2]  # type: ignore[method-assign]
    game.decision_seats = lambda: [2]  # type: ignore[method-assign]
    peer.game = game
    monkeypatch.setattr(peer.view, "connected", lambda seat: True)
    monkeypatch.setattr(i18n, "_translation", StandIn())
    peer.narration.stalled(Stalled(2, "x"))  # the narration's own handler, nothing else
    told = [t for t in _drain(peer.notices) if "seat 2 (p2)" in t]
    assert len(told) == 1 and ") (" not in told[0]
    if stage == "play":
        assert told[0].startswith("waiting for seat 2 (p2) to move, since ")
    else:
        assert "洗牌步骤" in told[0] and "shuffle step" not in told[0]


def _first(rules, view, seat):
    from zsy_lan.engine.round import legal_actions

    return legal_actions(rules, view, seat)[0]


def test_the_line_mode_leaves_no_empty_prompt_above_bye(tmp_path):
    """The match ended while the prompt waited: the score sheet was followed by a fresh
    "> " that nobody answers, left as an empty ">" line above "Bye (match over)"."""
    import asyncio
    import io
    import os

    from zsy_lan.engine.ruleset import build_rules
    from zsy_lan.table.local_table import LocalTable
    from zsy_lan.ui.line_mode import Assist, PlainReader, run_table
    from zsy_lan.ui.render import Style

    rules = build_rules(3, [])
    table = LocalTable(
        rules, 1, 0, {s: _first for s in (1, 2)}, tmp_path / "rec.jsonl", seed="z",
        nicks={0: "you", 1: "b1", 2: "b2"},
    )
    rfd, wfd = os.pipe()
    stdin = os.fdopen(rfd, "r")
    stdout = io.StringIO()
    reader = PlainReader(stdin=stdin, stdout=stdout)

    async def go() -> str:
        table.start()
        try:
            played = run_table(table, Style(), reader, assist=Assist(auto=True, auto_pause=0.0))
            return await asyncio.wait_for(played, 60)
        finally:
            await table.close()

    try:
        assert asyncio.run(go()) == "match over"
    finally:
        os.close(wfd)
        stdin.close()
    lines = stdout.getvalue().split("\n")
    assert lines[-1] == ""  # the last thing written ends its line: "Bye" starts a fresh one
    assert not any(line.strip() == ">" for line in lines[-6:]), lines[-6:]


@pytest.mark.parametrize("mode", ["local", "open"])
def test_help_at_a_local_table_leaves_out_links_and_void(mode):
    """``zsy play``: no peers, so ``links`` (how this seat reaches the others) and ``void``
    (a vote of the seats) mean nothing there; a network table still lists both."""
    import asyncio

    from zsy_lan.engine.game import Game
    from zsy_lan.engine.ruleset import build_rules
    from zsy_lan.table.session import Notice, SeatInfo, SessionState
    from zsy_lan.ui.line_mode import _handle
    from zsy_lan.ui.render import Style

    class Local:
        seat = 0

        def __init__(self) -> None:
            self.game = Game(build_rules(4), 1)
            self.game.start_round(b"\x03" * 32)
            self.info = SessionState(
                seats=[SeatInfo(nick=f"p{i}") for i in range(4)], deal_mode=mode
            )
            self.notices: asyncio.Queue[Notice] = asyncio.Queue()

    out: list[str] = []
    asyncio.run(_handle(Local(), "help", Style.detect("never", True), 0, out.append))
    text = "\n".join(out)
    assert "auto (" in text and "score (" in text  # the table's own commands are still there
    if mode == "local":
        assert "void (" not in text and "links:" not in text
    else:
        assert "void (" in text and "links:" in text


def test_history_with_a_mistyped_data_dir_says_the_folder_does_not_exist(tmp_path):
    """``zsy history --data-dir /typo`` said "No finished matches in this history yet."."""
    from click.testing import CliRunner

    from zsy_lan.cli import cli

    typo = tmp_path / "no-such-folder"
    res = CliRunner().invoke(cli, ["--lang", "en", "history", "--data-dir", str(typo)])
    assert res.exit_code == 1
    assert "No finished matches" not in res.output
    assert f"The folder {typo} does not exist" in res.output
    assert "Traceback" not in res.output
    empty = tmp_path / "empty"  # an existing folder with no records: still the quiet answer
    empty.mkdir()
    res = CliRunner().invoke(cli, ["--lang", "en", "history", "--data-dir", str(empty)])
    assert res.exit_code == 0 and "No finished matches" in res.output


def test_the_hosts_who_line_names_bots_in_the_players_language_and_cleans_nicks(monkeypatch):
    """The host's ``who`` glued an English " (bot)" and ASCII ", " onto translated text,
    and printed the joiners' nicks as they came."""
    import gettext
    from types import SimpleNamespace

    import zsy_lan.text.i18n as i18n
    from zsy_lan.table.hosting import _seat_line

    class StandIn(gettext.NullTranslations):
        def gettext(self, message: str) -> str:
            return {
                "{seat} {nick} (bot)": "{seat} {nick}（机器人）",
                "seats: {seats}; {free} free": "座位：{seats}；空 {free} 个",
            }.get(message, message)

        def pgettext(self, context: str, message: str) -> str:
            return "、" if (context, message) == ("between list items", ", ") else message

    seats = [
        SimpleNamespace(seat=0, nick="ann", bot=False),
        SimpleNamespace(seat=1, nick="b\x1b[31mob", bot=True),
    ]
    lobby = SimpleNamespace(roster=SimpleNamespace(seats=seats), free=2)
    assert _seat_line(lobby) == "seats: 0 ann, 1 bob (bot); 2 free"  # type: ignore[arg-type]
    monkeypatch.setattr(i18n, "_translation", StandIn())
    assert _seat_line(lobby) == "座位：0 ann、1 bob（机器人）；空 2 个"  # type: ignore[arg-type]
