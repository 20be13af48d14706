"""The table's ``void`` command and the held-seat marks, on a fake session (no network)."""

from __future__ import annotations

import asyncio

from zsy_lan.engine.game import Game
from zsy_lan.engine.ruleset import build_rules
from zsy_lan.table.session import Notice, SeatInfo, SessionState
from zsy_lan.ui.line_mode import _handle, render, roster_lines
from zsy_lan.ui.render import Style


class FakeSession:
    def __init__(self, voting: bool = True) -> None:
        self.seat = 0
        self.game = Game(build_rules(4), 1)
        self.game.start_round(b"\x03" * 32)
        self.info = SessionState(seats=[SeatInfo(nick=f"p{i}") for i in range(4)])
        self.notices: asyncio.Queue[Notice] = asyncio.Queue()
        self.changed = asyncio.Event()
        self.votes: list[str] = []
        if voting:
            self.vote = self._vote

    async def _vote(self, motion: str) -> str:
        self.votes.append(motion)
        return f"you voted to {motion} the round"

    async def submit(self, action):  # pragma: no cover - not used here
        return None

    async def close(self) -> None:  # pragma: no cover
        return None


def run(session, text: str) -> list[str]:
    out: list[str] = []
    asyncio.run(_handle(session, text, Style.detect("never", True), 0, out.append))
    return out


def test_void_votes_through_the_session():
    session = FakeSession()
    assert run(session, "void") == ["* you voted to void the round"]
    assert session.votes == ["void"]


def test_void_on_a_session_that_cannot_vote_says_so():
    assert "Only a network table votes" in run(FakeSession(voting=False), "void")[0]


def test_a_held_seat_is_marked_in_the_seat_list_and_the_table():
    session = FakeSession()
    session.info.seats[2].held_by_bot = True
    session.info.seats[2].held_by = 0
    session.info.seats[2].connected = False
    assert "[bot holding, run by seat 0]" in roster_lines(session)[2]
    text = "\n".join(render(session, Style.detect("never", True)))
    assert "[bot holding]" in text and "a bot holds the seat" in text
