"""The table clock at a seat (issue #15): a timeout plays the hint and tells the table;
the second starts auto-play (托管) until the player types; hints and the counter off.

In memory: a game and a session of this seat (no network), a clock of a few
hundredths of a second so nothing sleeps for long, a reader the test feeds.
"""

from __future__ import annotations

import asyncio

import pytest
from settings_support import ClockSession, FedReader
from waiting import eventually

from zsy_lan.protocol.table_settings import TableSettings
from zsy_lan.table.clock import TurnClock
from zsy_lan.table.session import hint_list
from zsy_lan.ui.line_mode import Assist, _handle, render, run_table
from zsy_lan.ui.render import Style

pytestmark = [pytest.mark.timeout(60)]


async def _others_play(s: ClockSession, stop: asyncio.Event) -> None:
    """The other seats pass or play their first legal move as soon as it is their turn."""
    while not stop.is_set() and not s.game.finished():
        actors = s.game.actors()
        if actors and s.seat not in actors:
            seat = actors[0]
            s.game.apply(seat, s.game.legal(seat)[0])
            s.changed.set()
        await asyncio.sleep(0.005)


@pytest.mark.asyncio
async def test_two_timeouts_play_the_hint_then_auto_play_until_the_player_types():
    s = ClockSession(TableSettings(clock=5, hints=False))  # hints off: the clock still plays
    view = s.game.view(s.seat)
    expected = hint_list(s.game.rules, view, s.seat, s.game.legal(s.seat))[0]
    reader, out, stop = FedReader(), [], asyncio.Event()
    assist = Assist(timer=0.05, remind=None)
    s.changed.set()
    table = asyncio.create_task(run_table(s, Style(), reader, out.append, assist))
    others = asyncio.create_task(_others_play(s, stop))
    try:
        await eventually(lambda: s.announced[:1] == ["timeout"], "the first timeout")
        assert s.submitted[0] == expected  # the hint command's first suggestion
        assert not assist.auto  # one timeout: still the player's own turns
        await eventually(lambda: "auto" in s.announced, "auto-play after the second timeout")
        assert s.announced[:3] == ["timeout", "timeout", "auto"]
        assert assist.auto and assist.auto_by_clock and assist.timeouts == 2
        assert any("auto-play (托管) is on" in line for line in out)
        played = len(s.submitted)
        await eventually(lambda: len(s.submitted) > played, "auto-play playing a turn")
        reader.lines.put_nowait("who")  # the player is back: any typed line
        await eventually(lambda: "back" in s.announced, "the player coming back")
        assert not assist.auto and not assist.auto_by_clock
        assert any("Auto-play OFF" in line for line in out)
        assert any("seat 0: p0" in line for line in out)  # the line was also handled
    finally:
        stop.set()
        reader.lines.put_nowait(None)
        await asyncio.wait_for(table, 10)
        others.cancel()
        await asyncio.gather(others, return_exceptions=True)


@pytest.mark.asyncio
async def test_no_clock_no_timeout():
    s = ClockSession(TableSettings())
    reader, out = FedReader(), []
    s.changed.set()
    table = asyncio.create_task(run_table(s, Style(), reader, out.append, Assist(remind=None)))
    await asyncio.sleep(0.2)
    assert not s.submitted and not s.announced
    reader.lines.put_nowait(None)
    assert await asyncio.wait_for(table, 10) == "end of input"


def _said(s: ClockSession, text: str) -> list[str]:
    out: list[str] = []
    asyncio.run(_handle(s, text, Style(), 0, out.append))
    return out


def test_hints_and_counter_off_are_one_sentence_each_and_on_they_work():
    off = ClockSession(TableSettings(hints=False, counter=False))
    assert _said(off, "hint") == [
        "! The host turned hints off at this table, for every seat alike (the clock still "
        "plays the hint when a player's time runs out)."
    ]
    assert _said(off, "h") == _said(off, "hint")
    assert _said(off, "c") == [
        "! The host turned the card counter off at this table, for every seat alike."
    ]
    on = ClockSession(TableSettings())
    assert _said(on, "hint")[0].startswith("Hint (1/")
    assert any(line.startswith("Played this round") for line in _said(on, "count"))


def test_the_header_states_the_hosts_settings_for_everyone():
    s = ClockSession(TableSettings(clock=5, hints=False))
    header = render(s, Style())[:2]
    assert header[1] == (
        "Set by the host for everyone: table clock 5 seconds per turn; hints off, card counter on"
    )


def test_the_acting_players_countdown_is_shown_to_the_others():
    s = ClockSession(TableSettings(clock=30))
    actor = s.seat
    s.seat = (actor + 1) % 4  # we watch: another player is to act
    now = [0.0]
    clock = TurnClock(30, lambda: now[0])
    clock.turn("turn-1")
    now[0] = 9.2
    names = [f"p{i}" for i in range(4)]
    assert clock.others_text(s, names) == f"p{actor}: 21 s left"
    s.info.seats[actor].bot = True  # bots are not timed
    assert clock.others_text(s, names) is None


def test_a_table_of_defaults_keeps_its_header_quiet():
    s = ClockSession(TableSettings())
    assert not any("Set by the host" in line for line in render(s, Style()))


def test_the_not_your_turn_answer_says_how_long_the_acting_player_has():
    s = ClockSession(TableSettings(clock=30))
    actor = s.seat
    s.seat = (actor + 1) % 4
    now = [0.0]
    clock = TurnClock(30, lambda: now[0])
    clock.turn("turn-1")
    now[0] = 4.5
    out: list[str] = []
    asyncio.run(_handle(s, "3", Style(), 0, out.append, clock))
    assert out == [
        f"! Not your turn: waiting for seat {actor} (p{actor}), 26 s left. "
        "(help, who, score work any time)"
    ]
