"""Clock notes only where there is a clock (issue #25): a modified seat cannot make news.

The attack: at a table without a clock, a modified client signs ``{"clock": "timeout"}``
and ``{"clock": "auto"}`` into its feed, and every other seat told everyone "bob's
time ran out: the hint was played" as news. Now a seat judges each ``timeout`` note
by its own view of the table (``zsy_lan/table/clock.py``, ``ClockNotes``): told only at a
clocked table, for a turn of the author's it saw, that ran out by its own clock (less
``CLOCK_GRACE``), once per turn; the clock's ``auto`` after a false timeout is false
too. Anything else is dropped quietly: a debug log line and a count, no line on screen.

Seat 0 is a real :class:`TablePeer` (its clock injected); seats 1 and 2 are real
replicas standing for modified clients, signing whatever body they like.
"""

from __future__ import annotations

import asyncio
import hashlib
from pathlib import Path

import pytest
import pytest_asyncio
from local_support import spectator_story
from mesh_support import RecordingMesh, deliver

from zsy_lan.engine.game import Game
from zsy_lan.engine.ruleset import build_rules
from zsy_lan.protocol import Identity, Replica, Send
from zsy_lan.protocol.clock_notes import clock_body
from zsy_lan.protocol.lobby import Roster, Seat
from zsy_lan.protocol.table_settings import TableSettings
from zsy_lan.record.store import TableStore
from zsy_lan.table.clock import CLOCK_GRACE
from zsy_lan.table.peer import TablePeer

pytestmark = [pytest.mark.timeout(60)]

SEATS = (0, 1, 2)
CLOCK = 30


class _Table:
    """Seat 0 a real TablePeer at its own (injected) clock; seats 1 and 2 bare replicas."""

    def __init__(self, folder: Path, clock: int | None) -> None:
        ids = [Identity.from_seed(hashlib.sha256(b"clock-notes-%d" % s).digest()) for s in SEATS]
        rules = build_rules(3, [], {})
        seats = [Seat(s, ids[s].public_key, ids[s].curve_public, f"tcp://127.0.0.1:{9500 + s}",
                      ("alice", "bob", "carol")[s]) for s in SEATS]
        roster = Roster("t-clock-notes", "notes", 2, rules.config, seats,
                        settings=TableSettings(clock=clock))
        self.mesh = RecordingMesh()
        self.t = 0.0  # everyone's clock: seat 0's is this too
        self.peer = TablePeer(ids[0], roster, 0, self.mesh, TableStore(folder))  # type: ignore[arg-type]
        self.peer._now = lambda: self.t  # type: ignore[method-assign]
        n = [0]

        def entropy(k: int) -> bytes:
            n[0] += 1
            return hashlib.sha256(b"clock-notes-e%d" % n[0]).digest()[:k]

        self.others = [Replica(roster.table, s, ids[s], roster.keys, Game(rules, 2),
                               entropy=entropy, relay=False) for s in SEATS[1:]]

    def send(self, src: int, events: list) -> None:
        """``src``'s frames (a modified client's too) to every other seat, until quiet."""
        queue = [(src, e.to, e.frame) for e in events if isinstance(e, Send)]
        deliver(self.mesh, self.peer, self.others, queue, self.t, rounds=60)

    def pump(self) -> None:
        self.peer._handle(self.peer.replica.tick(self.t))
        for r in self.others:
            self.send(r.seat, r.tick(self.t))
        self.send(0, [])

    def until_turn_of(self, seat: int) -> None:
        """Play (seats 0 and 2 at once, bob too if it comes) until ``seat`` is to act."""
        for _ in range(80):
            self.pump()
            acting = self.peer.game.decision_seats()
            if acting == (seat,):
                return
            if self.peer.replica.can_act():
                self.peer._act(self.peer.game.legal(0)[-1].to_json())
                continue
            author = next((r for r in self.others if r.can_act()), None)
            if author is not None:
                self.move(author.seat)
            self.t += 0.1
        raise AssertionError(f"seat {seat}'s turn never came")

    def move(self, seat: int) -> None:
        r = self.others[seat - 1]
        self.send(seat, r.act(r.game.legal(seat)[-1].to_json(), self.t))

    def note(self, seat: int, event: str) -> None:
        """A clock note signed by ``seat`` into its own feed: the author's word, nothing more."""
        self.send(seat, self.others[seat - 1].chat(clock_body(event), self.t))

    def told(self) -> list[str]:
        out = []
        while not self.peer.notices.empty():
            out.append(self.peer.notices.get_nowait().text)
        return out


def _clock_news(lines: list[str]) -> list[str]:
    return [x for x in lines if "time ran out" in x or "auto-play" in x or " is back" in x]


@pytest_asyncio.fixture
async def make_table(tmp_path: Path):
    made: list[_Table] = []

    def make(clock: int | None) -> _Table:
        table = _Table(tmp_path / f"seat0-{len(made)}", clock)
        made.append(table)
        table.peer.start()
        return table

    yield make
    for table in made:
        await table.peer.close()


@pytest.mark.asyncio
async def test_no_clock_no_timeout_news(make_table):
    """Before: "bob's time ran out: the hint was played" and "bob is on auto-play" at a
    table with no clock at all. Now both are dropped quietly and counted."""
    table = make_table(None)
    table.until_turn_of(1)
    table.told()
    table.t += 600  # however long bob took: there is no clock to run out
    table.move(1)  # the "hint"
    table.note(1, "timeout")
    table.note(1, "auto")
    assert _clock_news(table.told()) == []
    assert table.peer.chat_desk.notes.ignored == {"no clock": 1, "after a false timeout": 1}


@pytest.mark.asyncio
async def test_a_timeout_before_the_clock_ran_out_here_is_not_news(make_table):
    table = make_table(CLOCK)
    table.until_turn_of(1)
    table.told()
    table.t += CLOCK - CLOCK_GRACE - 3  # bob moved well before his time was up, by our clock
    table.move(1)
    table.note(1, "timeout")
    table.note(1, "auto")
    assert _clock_news(table.told()) == []
    assert table.peer.chat_desk.notes.ignored["too early"] == 1
    # a seat that is not to act at all has no turn to time out on
    table.note(2, "timeout")
    assert _clock_news(table.told()) == []
    assert sum(table.peer.chat_desk.notes.ignored.values()) == 3


@pytest.mark.asyncio
async def test_an_honest_timeout_is_told_once_per_turn(make_table):
    table = make_table(CLOCK)
    table.until_turn_of(1)
    table.told()
    table.t += CLOCK - CLOCK_GRACE + 0.5  # within the stated grace of the clock, seen here
    table.move(1)  # the hint its clock played
    table.note(1, "timeout")
    table.note(1, "auto")
    assert _clock_news(table.told()) == [
        "bob's time ran out: the hint was played",
        "bob is on auto-play",
    ]
    table.note(1, "timeout")  # the same turn again: said already
    table.note(1, "auto")  # and already on auto-play
    assert _clock_news(table.told()) == []
    assert table.peer.chat_desk.notes.ignored == {"repeat": 1, "after a false timeout": 1}
    table.note(1, "back")  # the player is back: news once
    table.note(1, "back")
    assert _clock_news(table.told()) == ["bob is back"]


@pytest.mark.asyncio
async def test_a_timeout_read_after_the_authors_next_turn_began_is_still_told(make_table):
    """The race CI found: bob's hint went out, the bots answered at once, and bob was to
    act again when his ``timeout`` note (the next message of his feed) was read here. The
    note is about the turn his hint ended, not the one that just began ("its turn ran
    0.0 s here" before, and his auto-play was never told)."""
    table = make_table(CLOCK)
    table.until_turn_of(1)
    table.told()
    table.t += CLOCK  # bob's clock ran out
    table.move(1)  # the hint it played
    table.until_turn_of(1)  # the others move before his note is read: his turn again
    table.told()  # (his link went quiet for the whole clock, and came back: not the clock's)
    table.note(1, "timeout")
    table.note(1, "auto")
    assert _clock_news(table.told()) == [
        "bob's time ran out: the hint was played",
        "bob is on auto-play",
    ]
    assert table.peer.chat_desk.notes.ignored == {}


@pytest.mark.asyncio
async def test_a_players_own_auto_switch_is_still_told_without_a_clock(make_table):
    """Typing ``auto`` works at any table (docs/table-settings.md): not the clock's word."""
    table = make_table(None)
    table.until_turn_of(1)
    table.told()
    table.note(1, "auto")
    table.note(1, "back")
    assert _clock_news(table.told()) == ["bob is on auto-play", "bob is back"]


# --- the record: zsy replay and a spectator's story ---------------------------------------


def test_replay_and_spectators_tell_no_timeout_of_a_table_without_a_clock(tmp_path: Path):
    """The record keeps (and verifies) what the modified seat signed; its readers, who hold
    no reader's clock, tell no timeout of a table without one (``RecordNotes``)."""
    from zsy_lan.record.replay import replay_file
    from zsy_lan.table.local_table import make_local_table

    record = tmp_path / "rec.jsonl"
    table = make_local_table(build_rules(4), 1, 0, "easy", record, seed="notes", me="alice",
                             bot_chat=False)

    async def go() -> None:
        table.start()
        for event in ("timeout", "auto", "back", "auto"):  # a false run, then the player's own
            table._pump([(1, table.replicas[1].chat(clock_body(event), 0.0))])
        await asyncio.wait_for(table.run_bots_only(), 60)
        await table.close()

    asyncio.new_event_loop().run_until_complete(go())
    report = replay_file(record)
    assert report.ok, report.verdict()
    notes = [x.strip() for x in report.narration if x.strip().startswith("* ")]
    assert notes == ["* easy-1 is back", "* easy-1 is on auto-play"], notes
    story = spectator_story(record.read_text().splitlines())
    told = [t for t in story if "auto-play" in t or "time ran" in t or " is back" in t]
    assert told == ["* easy-1 is back", "* easy-1 is on auto-play"], told
