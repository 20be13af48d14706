"""The table clock's gap left by issue #15 (session 7): a seat resumed while on auto-play.

The table was told "Alice is on auto-play" (a signed ``{"clock": "auto"}`` note in
her feed), then her client dropped and ``zsy join`` resumed it. The resumed client
is not on auto-play (whoever resumed it is there), so before this fix the table
was never told she is back. Now her first act (a typed line, a key on the full
screen) signs ``{"clock": "back"}`` into her feed, as a seat whose player comes
back from auto-play does (docs/table-settings.md, "The clock").
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from mesh_support import RecordingMesh, deliver
from settings_support import ClockSession

from zsy_lan.engine.game import Game
from zsy_lan.engine.ruleset import build_rules
from zsy_lan.protocol import Identity, Replica, Send
from zsy_lan.protocol.clock_notes import clock_body, read_clock
from zsy_lan.protocol.lobby import Roster, Seat
from zsy_lan.protocol.table_settings import TableSettings
from zsy_lan.record.store import TableStore
from zsy_lan.table.clock import back_owed, told_auto
from zsy_lan.table.peer import TablePeer
from zsy_lan.ui.line_mode import Assist, player_is_back
from zsy_lan.ui.render import Style
from zsy_lan.ui.screen import ScreenOptions, TableApp

pytestmark = [pytest.mark.timeout(60)]

SEATS = (0, 1, 2)


def _note(event: str) -> tuple[str, Any]:
    return ("chat", clock_body(event))


def test_told_auto_reads_the_last_auto_play_note_of_a_feed():
    move = ("action", {"play": [3]})
    assert not told_auto([])
    assert told_auto([move, _note("timeout"), move, _note("timeout"), _note("auto"), move])
    assert not told_auto([_note("auto"), move, _note("back")])
    assert told_auto([_note("auto"), _note("back"), _note("auto"), ("chat", {"text": "hi"})])
    assert not told_auto([_note("timeout"), ("chat", {"clock": "auto", "x": 1})])  # no note


# --- a real seat resumed from its table folder (in memory: no socket) ------------------


def _ids() -> list[Identity]:
    return [Identity.from_seed(hashlib.sha256(b"clock-gap-%d" % s).digest()) for s in SEATS]


class _Table:
    """Seat 0 a real TablePeer with its files in ``folder``; seats 1 and 2 bare replicas."""

    def __init__(self, folder: Path, before: _Table | None = None) -> None:
        ids = _ids()
        rules = build_rules(3, [], {})
        seats = [Seat(s, ids[s].public_key, ids[s].curve_public, f"tcp://127.0.0.1:{9400 + s}",
                      ("alice", "bob", "carol")[s]) for s in SEATS]
        self.roster = Roster("t-clock-gap", "gap", 2, rules.config, seats,
                             settings=TableSettings(clock=5))
        self.mesh = RecordingMesh()
        self.peer = TablePeer(ids[0], self.roster, 0, self.mesh, TableStore(folder))  # type: ignore[arg-type]
        n = [0]

        def entropy(k: int) -> bytes:
            n[0] += 1
            return hashlib.sha256(b"clock-gap-e%d" % n[0]).digest()[:k]

        self.others = before.others if before is not None else [
            Replica(self.roster.table, s, ids[s], self.roster.keys, Game(rules, 2),
                    entropy=entropy, relay=False)
            for s in SEATS[1:]
        ]
        # the bare replicas' clock, a second a pump (their summaries go out again); it
        # goes on from the table before (the same replicas: their time never goes back)
        self.t = before.t if before is not None else 0.0

    def pump(self) -> None:
        """Deliver every frame until the table is quiet (bounded)."""
        queue: list[tuple[int, int | None, bytes]] = []
        self.peer._handle(self.peer.replica.tick(self.peer._now()))  # its ticker's work
        self.t += 1.0
        for r in self.others:
            queue += [(r.seat, e.to, e.frame) for e in r.tick(self.t) if isinstance(e, Send)]
        deliver(self.mesh, self.peer, self.others, queue, self.t)

    def play(self, moves: int) -> None:
        for _ in range(moves):
            self.pump()
            if self.peer.replica.can_act():
                self.peer._act(self.peer.game.legal(0)[-1].to_json())
                continue
            author = next((r for r in self.others if r.can_act()), None)
            if author is None:
                break
            events = author.act(author.game.legal(author.seat)[-1].to_json(), self.t)
            for e in events:
                if isinstance(e, Send):
                    self.peer._on_frame(author.seat, e.frame)
                    for r in self.others:
                        if r is not author:
                            r.receive(e.frame, self.t)
        self.pump()


def _notes_of_seat0(replica: Replica) -> list[str]:
    """The clock notes of seat 0's feed as another seat holds it."""
    feed = replica.ledger.feeds[0]
    return [e for e in (read_clock(env.body) for env in feed if env.type == "chat") if e]


@pytest.mark.asyncio
async def test_a_seat_resumed_on_auto_play_tells_the_table_it_is_back_when_its_player_acts(
    tmp_path: Path,
):
    first = _Table(tmp_path / "seat0")
    first.peer.start()
    first.play(4)
    assert await first.peer.announce("timeout") and await first.peer.announce("timeout")
    assert await first.peer.announce("auto")  # two timeouts in a row: on auto-play
    first.pump()
    assert _notes_of_seat0(first.others[0]) == ["timeout", "timeout", "auto"]
    await first.peer.close()

    again = _Table(tmp_path / "seat0", before=first)  # zsy join: the same folder
    again.peer.start(resume=True)
    try:
        peer = again.peer
        assist = Assist(timer=5)  # a resumed client: auto-play off
        assert back_owed(peer, assist.auto)
        said: list[str] = []
        # an act before the table told the resumed seat how far its own feed got: it
        # cannot sign yet, so the note stays owed (and nothing is said to the player)
        assert await player_is_back(peer, assist, said.append) is False
        assert back_owed(peer, assist.auto) and said == []
        again.pump()
        again.pump()  # now it knows
        assert await player_is_back(peer, assist, said.append) is False  # no clock to restart
        assert not assist.auto and said == []
        again.pump()
        for other in again.others:  # every other seat holds the note, signed by seat 0
            assert _notes_of_seat0(other) == ["timeout", "timeout", "auto", "back"]
        # told once: the next acts say nothing more
        await player_is_back(peer, assist, said.append)
        await player_is_back(peer, assist, said.append)
        again.pump()
        assert _notes_of_seat0(again.others[0]).count("back") == 1
        assert not back_owed(peer, False)
    finally:
        await again.peer.close()


@pytest.mark.asyncio
async def test_a_seat_resumed_off_auto_play_owes_nothing(tmp_path: Path):
    first = _Table(tmp_path / "seat0")
    first.peer.start()
    first.play(3)
    assert await first.peer.announce("timeout")  # one timeout: not on auto-play
    first.pump()
    await first.peer.close()
    again = _Table(tmp_path / "seat0", before=first)
    again.peer.start(resume=True)
    try:
        again.pump()
        assert not back_owed(again.peer, False)
        await player_is_back(again.peer, Assist(timer=5), lambda _line: None)
        again.pump()
        assert _notes_of_seat0(again.others[0]) == ["timeout"]
    finally:
        await again.peer.close()


def test_a_seat_on_auto_play_by_its_players_choice_owes_nothing_while_on_it():
    """``auto`` typed by the player: the table was told, and the client is on it: no back."""
    session = SimpleNamespace(own_feed=lambda: [("chat", clock_body("auto"))])
    assert not back_owed(session, True)
    assert back_owed(session, False)


# --- the full screen: a key is an act --------------------------------------------------


class _ResumedSession(ClockSession):
    """A stand-in seat whose own feed says the table was last told it is on auto-play."""

    def __init__(self) -> None:
        super().__init__(TableSettings(clock=30))
        notes = [clock_body("timeout"), clock_body("timeout"), clock_body("auto")]
        self.feed = [("chat", b) for b in notes]

    def own_feed(self) -> list[tuple[str, object]]:
        return list(self.feed)

    async def announce(self, event: str) -> None:
        await super().announce(event)
        self.feed.append(("chat", clock_body(event)))


@pytest.mark.asyncio
async def test_on_the_full_screen_the_first_key_tells_the_table_the_player_is_back():
    session = _ResumedSession()
    app = TableApp(session, Style(), Assist(timer=30, remind=None),
                   ScreenOptions(clock=lambda: 0.0))
    async with app.run_test(size=(110, 32)) as pilot:
        session.changed.set()
        await pilot.pause()
        assert session.announced == []  # nothing before the player acts
        await pilot.press("right")
        await pilot.pause()
        assert session.announced == ["back"]
        await pilot.press("left")
        await pilot.pause()
        assert session.announced == ["back"]  # once
        assert not app.assist.auto and not session.submitted


@pytest.mark.asyncio
async def test_on_the_full_screen_a_typed_line_tells_it_too_and_auto_still_switches_on():
    """A line typed as the first act: ``back`` first; ``auto`` then switches auto-play on
    (the resumed seat was not on it here, so ``auto`` is not read as taking over)."""
    session = _ResumedSession()
    app = TableApp(session, Style(), Assist(timer=30, remind=None),
                   ScreenOptions(clock=lambda: 0.0))
    async with app.run_test(size=(110, 32)) as pilot:
        await pilot.pause()
        await app.typed("auto")
        await pilot.pause()
        assert session.announced == ["back", "auto"]
        assert app.assist.auto and not app.assist.auto_by_clock
