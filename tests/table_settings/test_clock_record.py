"""The table clock's notes in the record, the timeouts in a row, and a host giving up its lobby.

Clock notes ("Alice's time ran out: the hint was played", "... is on auto-play",
"... is back") are chat bodies of their own kind in their author's signed feed
(zsy_lan/table/clock.py): the record keeps them and ``zsy replay`` tells them in
their place; the run of timeouts is read back from the seat's own feed, so it
follows the rule of docs/table-settings.md (two in a row: a turn the player
played themselves ends the run) and survives a resume
(test_settings_loopback.py). Last, ``open_table`` cancelled while its lobby is
open awaits the bot seats it started, so none of their sockets outlives it.
"""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path

import pytest

from zsy_lan.engine.ruleset import build_rules
from zsy_lan.protocol import Identity
from zsy_lan.protocol.table_settings import TableSettings
from zsy_lan.record.replay import replay_file
from zsy_lan.record.store import TableStore
from zsy_lan.table import hosting as table_mod
from zsy_lan.table.clock import (
    NOTE_BURST,
    ClockNotes,
    clock_body,
    clock_streak,
    read_clock,
    timeouts_in_a_row,
)
from zsy_lan.table.hosting import open_table
from zsy_lan.table.local_table import make_local_table
from zsy_lan.table.reach import NetConfig
from zsy_lan.table.session import Notice, SeatInfo, SessionState
from zsy_lan.ui.line_mode import Assist, _my_turn, clock_ran_out, play_for_me, player_is_back

LO = "127.0.0.1"
MOVE = ("action", {"kind": "play"})


def _note(event: str) -> tuple[str, dict[str, str]]:
    return ("chat", clock_body(event))


def test_a_clock_note_is_exactly_one_known_event():
    assert read_clock({"clock": "timeout"}) == "timeout"
    assert read_clock({"clock": "back"}) == "back"
    assert read_clock({"clock": "explode"}) is None  # an event this version does not know
    assert read_clock({"clock": "auto", "text": "x"}) is None  # more than a note
    assert read_clock({"clock": 1}) is None and read_clock("clock") is None
    assert read_clock({"text": "hello"}) is None  # a chat line is not a note
    with pytest.raises(ValueError):
        clock_body("explode")


def test_timeouts_count_in_a_row_from_the_seats_own_feed():
    """docs/table-settings.md: two timeouts in a row start auto-play; a turn the player
    played themselves, auto-play and coming back each end the run."""
    assert timeouts_in_a_row([]) == 0
    one = [MOVE, _note("timeout")]  # the hint played, then its note
    assert timeouts_in_a_row(one) == 1
    assert timeouts_in_a_row(one + [MOVE, _note("timeout")]) == 2
    assert timeouts_in_a_row(one + [MOVE]) == 0  # a move with no note after it: by hand
    # the player played a turn themselves in between: a new run
    assert timeouts_in_a_row(one + [MOVE, MOVE, _note("timeout")]) == 1
    assert timeouts_in_a_row(one + [MOVE, MOVE]) == 0
    assert timeouts_in_a_row(one + [MOVE, _note("timeout"), _note("auto")]) == 0
    assert timeouts_in_a_row(one + [_note("back"), MOVE, _note("timeout")]) == 1
    # chat lines, deal steps, votes and proxies change nothing
    noise = [("chat", {"text": "hi"}), ("reveal", {}), ("motion", {}), ("proxy", {})]
    assert timeouts_in_a_row([MOVE, _note("timeout"), *noise]) == 1
    assert timeouts_in_a_row([MOVE, *noise, _note("timeout"), *noise, MOVE, *noise]) == 0


class _Seat:
    """A chat seat's clock notes (:class:`ClockNotes`), its notices and its clock."""

    def __init__(self, seat: int) -> None:
        self.seat = seat
        self.info = SessionState(seats=[SeatInfo(nick=f"p{i}") for i in range(3)])
        self.notices: asyncio.Queue[Notice] = asyncio.Queue()
        self.notes = ClockNotes(seat, self.info.seats, self.notices.put_nowait)
        self.now = 0.0

    def told(self) -> list[str]:
        return [self.notices.get_nowait().text for _ in range(self.notices.qsize())]


def clock_heard(seat: _Seat, author: int, body: object) -> bool:
    """The note heard at ``seat``'s chat desk, at its clock."""
    return seat.notes.heard(author, body, seat.now)


def test_a_heard_note_is_told_once_within_its_rate_and_never_our_own():
    """(Whether a ``timeout`` is true, judged by the seat's own clock and view of the
    table: tests/adversarial/test_clock_notes.py.)"""
    seat = _Seat(0)
    assert clock_heard(seat, 1, clock_body("auto"))  # the player's own switch: any table
    assert clock_heard(seat, 1, clock_body("back"))
    assert seat.told() == ["p1 is on auto-play", "p1 is back"]
    assert not clock_heard(seat, 1, clock_body("back"))  # nothing new: quiet
    for n in range(50):
        clock_heard(seat, 2, clock_body("auto" if n % 2 == 0 else "back"))
    assert len(seat.told()) == NOTE_BURST  # a burst at most, the rest dropped
    seat.now += 1.0
    assert clock_heard(seat, 2, clock_body("auto"))  # one more a second (told back last)
    assert not clock_heard(seat, 0, clock_body("auto"))  # our own note: our client said it
    assert not clock_heard(seat, 1, {"clock": "\x1b[2Jexplode"})  # unknown: dropped
    assert not clock_heard(seat, 1, clock_body("timeout"))  # no clock at this table
    assert seat.told() == ["p2 is on auto-play"]


def _drain(table) -> list[Notice]:
    out = []
    while not table.notices.empty():
        out.append(table.notices.get_nowait())
    return out


async def _my_turn_comes(table) -> None:
    for _ in range(3000):
        if _my_turn(table) and not table.game.finished():
            return
        await asyncio.sleep(0.01)
    raise AssertionError("the player's turn did not come")


def test_zsy_play_keeps_the_clock_notes_and_counts_timeouts_in_a_row(tmp_path: Path):
    """At a zsy play table: timeout, a turn played by hand, timeout (not auto-play yet:
    not two in a row), timeout (auto-play), back; each note is in the record, which
    ``zsy replay`` verifies and tells in its place."""
    record = tmp_path / "clock.jsonl"
    # the record keeps the table's clock (zsy play --turn-timer 5); the test's client counts
    # hundredths of a second to be quick. Without a clock in the record, its readers tell no
    # timeout (tests/adversarial/test_clock_notes.py)
    table = make_local_table(build_rules(4), 2, 0, "easy", record, seed="clock-k2", me="alice",
                             bot_chat=False, clock=5)
    assist = Assist(timer=0.05)
    out: list[str] = []

    async def timeout() -> None:
        await _my_turn_comes(table)
        await clock_ran_out(
            table, assist, out.append, lambda why: play_for_me(table, why, out.append)
        )

    async def go() -> None:
        table.start()
        try:
            await timeout()
            assert clock_streak(table) == 1 and not assist.auto
            await _my_turn_comes(table)  # the player plays this turn themselves
            assert await play_for_me(table, "by hand", out.append)
            assert clock_streak(table) == 0
            await timeout()
            assert clock_streak(table) == 1 and not assist.auto  # one in a row, not two
            await timeout()
            assert assist.auto and assist.auto_by_clock  # two in a row: auto-play
            assert clock_streak(table) == 0  # auto-play ends the run
            assert await player_is_back(table, assist, out.append)
            assert not [n for n in _drain(table) if n.kind == "chat"]  # notes are no chat lines
        finally:
            await table.close()

    asyncio.new_event_loop().run_until_complete(go())
    report = replay_file(record)
    assert report.ok, report.verdict()
    told = [line.strip() for line in report.narration if line.strip().startswith("* alice")]
    assert told == [
        "* alice's time ran out: the hint was played",
        "* alice's time ran out: the hint was played",
        "* alice's time ran out: the hint was played",
        "* alice is on auto-play",
        "* alice is back",
    ]
    lines = report.narration
    first = next(i for i, line in enumerate(lines) if "alice's time ran out" in line)
    assert any("Trick" in line for line in lines[:first])  # told in its place, after a trick


@pytest.mark.asyncio
@pytest.mark.timeout(60)
async def test_a_host_cancelled_in_its_lobby_awaits_its_bot_seats(tmp_path):
    """open_table cancelled while the table fills (a seat still free): the bot seats it
    started are cancelled *and awaited*, so their sockets are closed when it returns."""
    lines: list[str] = []
    before = set(asyncio.all_tasks())
    task = asyncio.create_task(
        open_table(
            Identity.generate(),
            build_rules(3, [], {}),
            1,
            "cancelled",
            "host",
            lambda t: TableStore(tmp_path / "host" / t),
            NetConfig(address=LO, mdns=False),
            bots=1,
            bot_level="easy",
            notify=lines.append,
            bot_store=lambda t, s: TableStore(tmp_path / f"bot-{s}"),
            deal="open",
            settings=TableSettings(),
        )
    )
    bots: list[asyncio.Task] = []
    try:
        for _ in range(1500):  # the lobby open and the bot started (its own task)
            bots = [
                t for t in asyncio.all_tasks() - before
                if getattr(t.get_coro(), "__qualname__", "") == "run_bot_peer"
            ]
            if bots and any("zsy join tcp://" in line for line in lines):
                break
            assert not task.done(), lines
            await asyncio.sleep(0.02)
        assert bots, "the bot seat did not start"
        for _ in range(1500):  # the bot sits down (its socket open): the host says so
            if any("(bot) sat down" in line for line in lines):
                break
            assert not task.done(), lines
            await asyncio.sleep(0.02)
        assert any("(bot) sat down" in line for line in lines), lines
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert all(t.done() for t in bots), "a bot seat was left running after open_table"
    finally:
        for t in bots:
            t.cancel()
        with contextlib.suppress(BaseException):
            await asyncio.wait_for(asyncio.gather(*bots, return_exceptions=True), 10)
    assert table_mod.BOT_STOP_TIMEOUT > 0


def test_a_seat_on_auto_play_is_marked_for_everyone_until_it_is_back():
    """Issue #26: 托管 on the seat box to everyone, as ``[bot holding]`` is: the note a
    seat signs when its player turns auto-play on marks its seat; ``back`` clears it."""
    from zsy_lan.ui.line_mode import _names

    seat = _Seat(0)
    assert clock_heard(seat, 2, clock_body("auto"))
    assert seat.info.seats[2].auto_play and "[auto-play]" in _names(seat)[2]
    assert not seat.info.seats[1].auto_play and "[auto-play]" not in _names(seat)[1]
    seat.now += 2.0  # past the note rate
    assert clock_heard(seat, 2, clock_body("back"))
    assert not seat.info.seats[2].auto_play and "[auto-play]" not in _names(seat)[2]
    seat.info.seats[2].held_by_bot = True  # a held seat says so once, not twice
    seat.info.seats[2].auto_play = True
    assert "[bot holding]" in _names(seat)[2] and "[auto-play]" not in _names(seat)[2]
