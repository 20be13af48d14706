"""A seat that comes back reads the others' feeds unevenly (docs/protocol.md, "Coming back").

CI found it: seat 2 resumed after its disk filled, with a move of its own applied that
the table had replaced (the others had voted to hold it, with a cut below that move).
One voter's ballot had reached it, the other's not yet; so it did not know yet that its
own state was the wrong one, read seat 1's later play on that state, found seat 1 "does
not hold" the cards (the open deal's public hash covers neither hands nor the seed) and
told the table seat 1 cheated. While a motion about this seat at a position it left can
still void a message of its own, the motion is *unsettled*
(:attr:`~zsy_lan.protocol.motions.Motions.unsettled`) and the ledger blames nobody for a
message that does not fit: it waits for the missing ballots, then rebuilds or goes on.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import SimpleNamespace

from zsy_lan.protocol.envelope import Envelope
from zsy_lan.protocol.motions import Motions, Vote

X = "x" * 64  # the position the table waited on seat 2 (where it moved, seq 5)
Y = "y" * 64  # where this replica's game is now


def _env(author: int, seq: int, type_: str = "action", **body) -> Envelope:
    frame = b"%d:%d" % (author, seq)
    return Envelope("t", author, seq, "p" * 64, X, type_, body, frame, "d" * 64)


@dataclass
class _Board:
    """The few things of a ledger the motion machine reads: seat 2's move applied at X."""

    roster: dict = field(default_factory=lambda: {s: bytes([s]) * 32 for s in range(3)})
    seats: tuple = (0, 1, 2)
    head: str = Y
    entries: list = field(default_factory=lambda: [_env(2, 5)])
    steps: dict = field(default_factory=lambda: {X: (0, 1, frozenset())})
    game: object = field(default_factory=SimpleNamespace)
    blamed: list = field(default_factory=list)

    def blame(self, seat, reason, evidence):
        self.blamed.append((seat, reason))
        return SimpleNamespace(culprit=seat, reason=reason)


def _vote(voter: int, cut: int) -> Vote:
    return Vote(_env(voter, 9, "motion", seat=2, at=X, motion="hold", cut=cut))


def test_one_ballot_below_our_move_makes_the_motion_unsettled_until_the_last_comes():
    board = _Board()
    m = Motions(board, seat=2)  # type: ignore[arg-type]
    assert m.process(_vote(0, cut=4)) is None
    assert m.unsettled == {(X, 2, "hold")}  # seat 1's ballot may void our move 5
    assert m.process(_vote(1, cut=4)) is None
    assert not m.unsettled and m.diverged and "beyond the cut 4" in m.diverged
    assert board.blamed == []


def test_a_ballot_that_saw_our_move_settles_it_and_another_seat_is_never_unsettled():
    m = Motions(_Board(), seat=2)  # type: ignore[arg-type]
    m.process(_vote(0, cut=5))  # seat 0 had our move: the motion cannot void it
    assert not m.unsettled
    other = _Board()
    seat0 = Motions(other, seat=0)  # seat 0's own replica reading seat 1's ballot about 2
    seat0.process(_vote(1, cut=4))
    assert not seat0.unsettled  # only the seat a motion is about can be the wrong one
