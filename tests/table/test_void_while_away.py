"""What ``void`` says when the seats that must join it are gone, or the seat came back.

Issue #26: the host quit with the two bots it runs and the joiner's ``void`` looked
settled, though it needs every other seat; and a host back at the table lost its
round. :class:`~zsy_lan.table.holding.SeatHolder` is driven here with a stub view:
what it reads of the table is all that decides its words.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import SimpleNamespace

from zsy_lan.engine.ruleset import build_rules
from zsy_lan.protocol import Timing
from zsy_lan.protocol.events import Motion
from zsy_lan.table.holding import SeatHolder
from zsy_lan.table.session import Notice, SeatInfo


@dataclass
class StubView:
    """The part of a SeatView ``vote`` reads: seat 3 votes; the table waits on seat 0."""

    seat: int = 3
    seats: list[SeatInfo] = field(
        default_factory=lambda: [SeatInfo(f"p{s}", connected=s == 3) for s in range(4)]
    )
    timing: Timing = field(default_factory=Timing)
    wait: float = 0.0  # what the replica says of a void about seat 0

    def can_void(self) -> bool:
        return True

    def allows(self, motion: str) -> bool:
        return motion == "void"

    def awaited(self) -> list[int]:
        return [0]

    def motion_wait(self, motion: str, seat: int, now: float) -> float:
        return self.wait

    def stopped(self, seat: int) -> str | None:
        return None

    def connected(self, seat: int) -> bool:
        return self.seats[seat].connected

    resumed: bool = False  # this seat came back (zsy join) and has not moved since

    def back(self) -> bool:
        return self.resumed

    @property
    def game(self) -> SimpleNamespace:
        return SimpleNamespace(decision_seats=lambda: (self.seat,))


def _holder(
    view: StubView, moved: list[tuple[str, int]], told: list[Notice] | None = None
) -> SeatHolder:
    told = [] if told is None else told
    return SeatHolder(
        view,  # type: ignore[arg-type]
        build_rules(4, [], {}),
        b"k" * 32,
        who=lambda s: f"seat {s} (p{s})",
        tell=told.append,
        move=lambda m, s, now: moved.append((m, s)) or [],  # type: ignore[func-returns-value]
        hold=lambda now: [],
        act_for=lambda s, a: [],
        look_again=lambda: None,
        live=lambda: True,
        now=lambda: 100.0,
    )


def test_a_void_moved_while_the_other_voters_are_gone_says_it_waits_for_them() -> None:
    moved: list[tuple[str, int]] = []
    said = _holder(StubView(), moved).vote("void")
    assert moved == [("void", 0)]
    assert said == (
        "you voted to void the round (seat 0 (p0) withholds its part); each other seat joins "
        "once it has waited as long on that seat itself; seat 1 (p1), seat 2 (p2) left "
        "too: the round is voided only once they are back and agree, and it goes on if "
        "seat 0 (p0) is back by then"
    )


def test_with_every_voter_here_nothing_is_added() -> None:
    view = StubView()
    for s in (1, 2):
        view.seats[s].connected = True
    said = _holder(view, []).vote("void")
    assert "left too" not in said


def test_a_seat_that_came_back_keeps_its_round() -> None:
    """The replica backs no void about it (``inf``): nothing is moved, and the player reads why."""
    moved: list[tuple[str, int]] = []
    view = StubView(wait=float("inf"))
    view.seats[0].connected = True
    said = _holder(view, moved).vote("void")
    assert moved == []
    assert said == (
        "seat 0 (p0) came back and is choosing a move: the round goes on (a round is voted "
        "void only while a seat is gone or withholds a deal step)"
    )


def test_a_seat_back_at_its_turn_reads_that_its_round_goes_on() -> None:
    """The host resumed at its turn and finds the joiner's void: no timer is running on it."""
    told: list[Notice] = []
    view = StubView(resumed=True)
    _holder(view, [], told).motion(Motion("void", 3, "at", "open", by=1))
    assert [n.text for n in told] == [
        "seat 1 (p1) moved to void the round while you were away; you are back, so the round "
        "goes on: no seat backs a void while you choose your move"
    ]
    told.clear()
    view.resumed = False  # a seat that did not leave: the usual words
    _holder(view, [], told).motion(Motion("void", 3, "at", "open", by=1))
    assert told[0].text.endswith("your part keeps the round if it comes in time")
