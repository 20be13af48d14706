"""Chat cannot fake a line (issue #25): another seat's text never starts a row of its own.

The attack: a modified seat says "wrap" + 90 spaces + "» host: I concede, j1 wins this
round". Every screen wrapped it where the spaces ran out, so a row of the spectator's
screen read "» host: I concede, j1 wins this round", as if the host had said it. Now
the reader collapses every run of white space (tabs, Unicode spaces, blank fillers;
zero-width and bidi characters were removed already) and each row after the first of
a wrapped chat line starts with an indent and a bar (``CONTINUED``) that no line starts
with: on the line mode, the full screen's log, the spectator's (``zsy watch``) story
and ``zsy replay``.

The author is a real replica signing whatever it likes (a modified client: no
``body_for`` cleaning before the signature); the readers are a real network seat
(``TablePeer``), a ``zsy play`` table and its record.
"""

from __future__ import annotations

import asyncio
import hashlib
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from local_support import spectator_story
from mesh_support import RecordingMesh

from zsy_lan.cli import cli
from zsy_lan.engine.ruleset import build_rules
from zsy_lan.protocol import Identity, Send
from zsy_lan.protocol.chat import CHAT_MARK, CONTINUED, read
from zsy_lan.protocol.lobby import Roster, Seat
from zsy_lan.record.store import TableStore
from zsy_lan.table.peer import TablePeer
from zsy_lan.ui.render import Style, line_printer

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "ui"))
from screen_support import screen_table  # noqa: E402
from test_screen import _app, _my_turn  # noqa: E402

pytestmark = [pytest.mark.timeout(60)]

#: The issue's line, word for word.
FAKE = "wrap" + " " * 90 + "» host: I concede, j1 wins this round"
#: The same trick without a single space: filler sized to end a row where the name ends
#: ("» bot-1: " is 9 columns), then the fake line.
FILLER = "x" * (40 - 9) + "»host: I concede, j1 wins this round"
#: Every other way to push text along a row: tabs, Unicode spaces, blank letters,
#: zero-width and bidi characters.
BLANKS = ("a\t\t\tb\u00a0\u00a0c\u3000\u3000d\u2003\u2003e\u3164\u3164f\u2800\u2800g"
          "\u200b\u200b\u200bh\u202e\u2066i\u034fj")


def _rows(text: str, width: int) -> list[str]:
    """``text`` as the line mode (and ``zsy watch --plain``) prints it at ``width``."""
    rows: list[str] = []
    line_printer(Style(width=width), rows.append)(text)
    return rows


def _is_one_line(rows: list[str]) -> bool:
    """The first row is the chat line; every other row is marked as its continuation."""
    return rows[0].lstrip().startswith(CHAT_MARK) and all(
        r.lstrip(" ").startswith(CONTINUED.strip()) and r.startswith(" ") for r in rows[1:]
    )


def test_the_reader_collapses_every_run_of_white_space():
    assert read({"text": FAKE})[0] == "wrap » host: I concede, j1 wins this round"
    assert read({"text": BLANKS})[0] == "a b c d e f ghij"
    assert read({"text": " \t\u3000 "})[1] is not None  # nothing left: dropped, with a reason


@pytest.mark.parametrize("text", [FAKE, FILLER, "word " * 39])
@pytest.mark.parametrize("width", [20, 40, 80])
def test_the_line_mode_marks_each_row_of_a_wrapped_chat_line(text: str, width: int):
    shown = CHAT_MARK + "bot-1: " + read({"text": text})[0]
    rows = _rows(shown, width)
    assert _is_one_line(rows), rows
    assert not any(r.startswith(CHAT_MARK) for r in rows[1:]), rows
    # indented lines of zsy replay's story keep their indent, rows marked below it
    rows = _rows("  " + shown, width)
    assert rows[0].startswith("  " + CHAT_MARK) and _is_one_line(rows), rows


# --- a network seat hears the modified seat ---------------------------------------------


def test_a_network_seat_tells_the_line_collapsed(tmp_path: Path):
    ids = [Identity.from_seed(hashlib.sha256(b"chat-lines-%d" % s).digest()) for s in range(3)]
    seats = [Seat(s, ids[s].public_key, ids[s].curve_public, f"tcp://127.0.0.1:{9600 + s}",
                  ("host", "mallory", "j1")[s]) for s in range(3)]
    roster = Roster("t-chat-lines", "lines", 1, build_rules(3, [], {}).config, seats)
    host = TablePeer(ids[0], roster, 0, RecordingMesh(), TableStore(tmp_path / "host"))  # type: ignore[arg-type]
    mallory = TablePeer(ids[1], roster, 1, RecordingMesh(), TableStore(tmp_path / "m"))  # type: ignore[arg-type]
    for body in ({"text": FAKE}, {"text": FILLER}):
        # signed by mallory's replica as it is given: a modified client cleans nothing
        frames = [e.frame for e in mallory.replica.chat(body, 0.0) if isinstance(e, Send)]
        assert frames
        for frame in frames:
            host._on_frame(1, frame)
    told = []
    while not host.notices.empty():
        told.append(host.notices.get_nowait())
    chats = [n.text for n in told if n.kind == "chat"]
    assert chats == ["mallory: wrap » host: I concede, j1 wins this round",
                     "mallory: " + FILLER]
    for text in chats:
        assert _is_one_line(_rows(CHAT_MARK + text, 40))


# --- zsy play: the full screen, the record, zsy replay and a spectator's story ----------


@pytest.mark.asyncio
@pytest.mark.slow  # a zsy play table on the full screen: a few seconds
async def test_the_full_screen_log_marks_the_rows_of_a_wrapped_chat_line(tmp_path: Path):
    table = screen_table(tmp_path)
    app = _app(table)
    try:
        async with app.run_test(size=(60, 30)) as pilot:
            await _my_turn(pilot, table)
            table._pump([(1, table.replicas[1].chat({"text": FAKE}, 0.0))])
            table._pump([(1, table.replicas[1].chat({"text": FILLER}, 0.0))])
            rows: list[str] = []
            for _i in range(100):
                await pilot.pause(0.02)
                rows = [line.text.rstrip() for line in app.query_one("#log").lines]
                if any("»host" in r for r in rows):
                    break
            said = [i for i, r in enumerate(rows) if r.startswith(CHAT_MARK + "bot-1")]
            assert len(said) == 2, rows
            for i in said:
                tail = rows[i + 1 :]
                more = tail[: next((k for k, r in enumerate(tail) if not r.startswith(" ")),
                                   len(tail))]
                assert more and _is_one_line([rows[i], *more]), rows
            # no row but the two lines' first starts like a line of someone's
            assert [r for r in rows if r.startswith(CHAT_MARK)] == [rows[i] for i in said]
            assert not any(r.lstrip().startswith(CHAT_MARK + "host") for r in rows)
    finally:
        await table.close()


def _record(tmp_path: Path) -> Path:
    from zsy_lan.table.local_table import make_local_table

    record = tmp_path / "rec.jsonl"
    table = make_local_table(build_rules(4), 1, 0, "easy", record, seed="lines",
                             bot_chat=False)

    async def go() -> None:
        table.start()
        table._pump([(1, table.replicas[1].chat({"text": FAKE}, 0.0))])
        table._pump([(2, table.replicas[2].chat({"text": FILLER}, 0.0))])
        await asyncio.wait_for(table.run_bots_only(), 60)
        await table.close()

    asyncio.new_event_loop().run_until_complete(go())
    return record


def test_replay_and_the_spectators_story_mark_the_rows_too(tmp_path: Path):
    record = _record(tmp_path)
    result = CliRunner().invoke(cli, ["replay", str(record)], env={"COLUMNS": "40"})
    assert result.exit_code == 0, result.output
    rows = result.output.splitlines()
    said = [i for i, r in enumerate(rows) if r.lstrip().startswith(CHAT_MARK)]
    assert len(said) == 2, rows
    for i in said:
        assert rows[i + 1].startswith("  " + CONTINUED), rows[i : i + 3]
    assert all(len(r) <= 40 for i in said for r in rows[i : i + 2])
    assert not any(r.lstrip().startswith(CHAT_MARK + "host") or r.lstrip().startswith("»host")
                   for r in rows)
    # the spectator's story (zsy watch) of the same record, printed by the line mode's printer
    told = spectator_story(record.read_text().splitlines())
    chats = [t for t in told if t.startswith(CHAT_MARK)]
    assert len(chats) == 2 and "wrap » host: I concede" in chats[0]
    for text in chats:
        assert _is_one_line(_rows(text, 40))
