"""The motion machine on its own (zsy_lan/protocol/motions.py): properties, by hypothesis.

The ledger and the replica hand every vote, return, resolution and release to
``Motions.process``, checked against two transition tables; ``Mover`` says when
this replica's own clock lets it vote. These tests drive both without a ledger
(a small board stands in for the turn order) and check what docs/protocol.md,
"Motions", promises:

* "Votes": a replica joins a motion only once it has itself waited past the
  timeout on the seat, so every other seat's vote, the quorum, is never reached
  before each of them has waited that long on its own clock;
* "Resolution": a declined motion names its movers (the voters whose cut stops
  short of the seat's message); a carried one voids the seat's messages from
  the cut until its return;
* "Coming back": a return for the position ends the void messages and lets the
  holder release the seat; a return for another position, or within the cut,
  does not;
* "Cheats": a vote about oneself, or a seat not at the table, is proof;
* and the machine never takes a step its tables do not list.
"""

from __future__ import annotations

import hashlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from zsy_lan.protocol.envelope import Envelope
from zsy_lan.protocol.events import Cheat, Motion, Released
from zsy_lan.protocol.motions import (
    AWAY,
    BACK,
    FREE,
    HOLDING,
    NONE,
    OPEN,
    TRANSITIONS,
    Carried,
    Declined,
    Dismiss,
    Forget,
    MotionError,
    Motions,
    Mover,
    Refused,
    Release,
    Return,
    Vote,
)
from zsy_lan.protocol.timing import Timing

X = "a" * 64  # the position the table waits at
Y = "b" * 64  # another position
STATE = "c" * 64


class Game:
    def public_hash(self) -> str:
        return STATE


class Board:
    """The ledger's side, as the machine reads it: roster, head, the seats the game waits on."""

    def __init__(self, n: int, waits_on: tuple[int, ...]) -> None:
        self.roster = {s: bytes([s + 1]) * 32 for s in range(n)}
        self.seats = tuple(self.roster)
        self.head = X
        self.entries: list[Envelope] = []
        self.steps: dict[str, tuple[int, int, frozenset[int]]] = {}
        self.game = Game()
        self.waits_on = waits_on
        self.motions: Motions | None = None

    def blame(self, seat: int, reason: str, evidence: tuple[bytes, ...]) -> Cheat:
        return Cheat(seat, reason, evidence)

    def owed(self) -> tuple[str, tuple[int, ...]]:
        return "action", self.waits_on

    def need(self, kind: str, owed: tuple[int, ...]) -> dict[int, list[int]]:
        assert self.motions is not None
        need: dict[int, list[int]] = {}
        for s in owed:
            author = self.motions.holder(s) if s in self.motions.held else s
            need.setdefault(author, []).append(s)
        return need

    def run(self, seat: int, n: int) -> list[Envelope]:
        return []


def machine(n: int, seat: int | None, waits_on: tuple[int, ...]) -> tuple[Board, Motions]:
    board = Board(n, waits_on)
    board.motions = Motions(board, seat)
    return board, board.motions


def env(seat: int, seq: int, kind: str, body: dict, state: str = STATE) -> Envelope:
    frame = f"{seat}/{seq}/{kind}/{sorted(body.items())}/{state}".encode()
    digest = hashlib.sha256(frame).hexdigest()
    return Envelope("t", seat, seq, "", state, kind, body, frame, digest)


def vote(author: int, about: int, motion: str = "hold", cut: int = 0, seq: int = 1, at=X):
    body = {"motion": motion, "seat": about, "at": at, "cut": cut}
    return Vote(env(author, seq, "motion", body))


def ret(seat: int, seq: int, at: str = X) -> Return:
    return Return(env(seat, seq, "return", {"at": at}))


# -- Votes: nobody joins before its own timeout ------------------------------------------


@settings(max_examples=200, deadline=None)
@given(
    n=st.integers(3, 6),
    data=st.data(),
    stall=st.floats(1.0, 20.0),
    elapsed=st.floats(0.0, 40.0),
)
def test_quorum_is_never_reached_before_every_voter_waited_past_the_timeout(
    n: int, data: st.DataObject, stall: float, elapsed: float
) -> None:
    """docs/protocol.md, "Votes": each replica judges by its own clock, so a modified
    mover's early vote is joined by a seat only once that seat has waited ``stall``
    at the position itself; the motion needs every other seat, so it is never
    carried before the slowest voter's own timer ran out."""
    victim = data.draw(st.integers(0, n - 1), label="victim")
    mover = data.draw(st.sampled_from([s for s in range(n) if s != victim]), label="mover")
    timing = Timing(stall=stall)
    arrived = {  # when each seat's replica reached the position (its clock)
        s: data.draw(st.floats(0.0, 10.0), label=f"arrived {s}") for s in range(n)
    }
    now = max(arrived.values()) - 10.0 + elapsed
    ballots = {mover}  # the mover voted at once, skipping its own judgement
    for s in range(n):
        if s in (victim, mover):
            continue
        _, motions = machine(n, s, (victim,))
        assert motions.process(vote(mover, victim, "void")) is None
        assert (X, victim, "void") in motions.due  # another seat's vote makes it due...
        clock = Mover(s, motions.board.roster, frozenset({"void"}), timing)
        clock.arrived(X, arrived[s])

        def early(m: str, p: int, clock=clock) -> str | None:
            return clock.too_early(m, p, clock.wait(m, X, now, True, None))

        duty = clock.duty(motions, early, lambda m, p: None, resumed=False)
        waited = now - arrived[s] >= stall
        if duty is not None:
            assert waited, "a seat joined before its own timeout"
            assert duty == ("motion", {"motion": "void", "seat": victim, "at": X})
            ballots.add(s)
        else:
            assert not waited or now < arrived[s]  # ...but it votes only on its own clock
            assert (X, victim, "void") in motions.due  # still owed: it joins later
    quorum = ballots >= {s for s in range(n) if s != victim}
    if quorum:
        assert all(now - arrived[s] >= stall for s in range(n) if s not in (victim, mover))


@settings(max_examples=200, deadline=None)
@given(
    since=st.floats(0.0, 50.0),
    seen=st.one_of(st.none(), st.floats(0.0, 50.0)),
    connected=st.booleans(),
    later=st.floats(0.0, 60.0),
)
def test_a_hold_waits_for_the_seat_to_be_gone_for_hold_after_in_this_view(
    since: float, seen: float | None, connected: bool, later: float
) -> None:
    """docs/protocol.md, "Votes": ``hold`` only once the seat is disconnected in this
    replica's own view and has been, while the transcript waited on it here, for
    ``hold_after``; never while it is connected (``inf``)."""
    timing = Timing()
    clock = Mover(0, {0: b"", 1: b""}, frozenset({"hold"}), timing)
    clock.arrived(X, since)
    now = since + later
    wait = clock.wait("hold", X, now, connected, seen)
    if connected:
        assert wait == float("inf")
        return
    gone = since if seen is None else seen + timing.peer_timeout
    start = max(since, gone)
    assert wait == max(0.0, start + timing.hold_after - now)
    assert (wait == 0.0) == (now >= start + timing.hold_after)


# -- Resolution ---------------------------------------------------------------------------


@settings(max_examples=200, deadline=None)
@given(n=st.integers(3, 6), data=st.data())
def test_a_declined_motion_names_the_voters_whose_cut_stops_short(
    n: int, data: st.DataObject
) -> None:
    """docs/protocol.md, "Resolution": the movers of a declined motion are the voters
    whose cut stops short of the seat's message (they voted before they had it)."""
    victim = data.draw(st.integers(0, n - 1), label="victim")
    won = data.draw(st.integers(1, 8), label="won")
    _, motions = machine(n, None, (victim,))
    cuts = {}
    for seq, s in enumerate(s for s in range(n) if s != victim):
        cuts[s] = data.draw(st.integers(0, 10), label=f"cut {s}")
        motions.process(vote(s, victim, "hold", cuts[s], seq + 1))
    motions.take_notes()
    key = (X, victim, "hold")
    assert motions.phase(key) == OPEN
    motions.process(Declined(key, max(cuts.values()), won))
    assert motions.phase(key) == "declined"
    movers = sorted(s for s, c in cuts.items() if c < won)
    assert motions.log[-1]["movers"] == movers
    assert motions.log[-1]["outcome"] == "declined"
    assert [type(e) for e in motions.take_notes()] == [Motion]
    assert not motions.held and not motions.skipping
    with pytest.raises(MotionError):  # decided: it cannot be carried any more
        motions.process(Carried(key, max(cuts.values()), won, STATE))


@settings(max_examples=200, deadline=None)
@given(
    cut=st.integers(0, 20),
    back=st.integers(0, 30),
    other_at=st.booleans(),
    data=st.data(),
)
def test_a_return_cancels_a_hold(cut: int, back: int, other_at: bool, data: st.DataObject) -> None:
    """docs/protocol.md, "Resolution" and "Coming back": a carried hold voids the seat's
    messages from the cut up to its return; a return for that position beyond the
    cut ends them and lets the holder release the seat; any other return does not."""
    n, victim = 4, data.draw(st.integers(0, 3), label="victim")
    start = data.draw(st.integers(1, cut + 1), label="start")  # its message in the cut, or after
    _, motions = machine(n, None, (victim,))
    voters = [s for s in range(n) if s != victim]
    for s in voters:
        motions.process(vote(s, victim, "hold", cut))
    key = (X, victim, "hold")
    motions.process(Carried(key, cut, start, STATE))
    assert motions.seat_phase(victim) == HOLDING
    assert motions.held == {victim: X} and motions.holder(victim) == min(voters)
    assert motions.return_due(victim) == X and not motions.returned(victim)
    assert motions.void(env(victim, start, "action", {}, state="d" * 64))
    assert not motions.void(env(victim, start - 1, "action", {}, state="d" * 64))

    seq = cut + 1 + back
    at = Y if other_at else X
    motions.process(ret(victim, seq, at))
    if other_at:  # a stray return: still away, its region open
        assert motions.seat_phase(victim) == HOLDING
        assert motions.return_due(victim) == X
        return
    assert motions.seat_phase(victim) == BACK
    assert motions.returned(victim) and motions.return_due(victim) is None
    assert motions.void(env(victim, start, "action", {}, "d" * 64)) == (start < seq)
    assert not motions.void(env(victim, seq + 1, "action", {}, "d" * 64))
    motions.process(Release(victim, motions.holder(victim), 7))
    assert motions.seat_phase(victim) == FREE and not motions.held
    assert motions.take_notes()[-1] == Released(victim, min(voters))
    assert motions.log[-1] == {"motion": "release", "seat": victim, "by": min(voters), "index": 7}


@given(cut=st.integers(0, 10), early=st.integers(0, 10))
def test_a_return_within_the_cut_ends_nothing(cut: int, early: int) -> None:
    """docs/protocol.md, "Resolution": only a return with seq beyond the cut ends the region
    (one signed before the motion, however it reads, says nothing about coming back)."""
    _, motions = machine(3, None, (2,))
    for s in (0, 1):
        motions.process(vote(s, 2, "void", cut))
    motions.process(Carried((X, 2, "void"), cut, cut + 1, STATE))
    assert motions.seat_phase(2) == AWAY and STATE in motions.voided_states
    motions.process(ret(2, min(early, cut)))
    assert motions.seat_phase(2) == AWAY and motions.return_due(2) == X


def test_a_return_already_in_the_feed_counts_when_the_motion_carries() -> None:
    """docs/protocol.md, "Resolution": the void messages run up to the seat's first return
    with ``at`` = X and seq > c, whether it came before or after the carry."""
    _, motions = machine(3, None, (1,))
    motions.process(ret(1, 5))
    assert motions.seat_phase(1) == FREE  # noted, nothing to end yet
    for s in (0, 2):
        motions.process(vote(s, 1, "hold", 3))
    motions.process(Carried((X, 1, "hold"), 3, 4, STATE))
    assert motions.seat_phase(1) == BACK and motions.returned(1)


# -- Cheats and the tables ------------------------------------------------------------


@given(n=st.integers(3, 6), data=st.data())
def test_a_vote_about_oneself_or_a_stranger_is_proof(n: int, data: st.DataObject) -> None:
    """docs/protocol.md, "Cheats": a vote by P about itself names P; so does one about a
    seat that is not at the table. Neither opens a motion."""
    seat = data.draw(st.integers(0, n - 1))
    _, motions = machine(n, None, (seat,))
    cheat = motions.process(vote(seat, seat))
    assert isinstance(cheat, Cheat) and cheat.culprit == seat
    cheat = motions.process(vote(seat, n + 3))
    assert isinstance(cheat, Cheat) and cheat.culprit == seat
    assert motions.phase((X, seat, "hold")) == NONE and not motions.notes


INPUTS = st.lists(
    st.tuples(
        st.sampled_from(["vote", "return", "decline", "carry", "refuse", "release", "dismiss"]),
        st.integers(0, 3),  # author
        st.integers(0, 3),  # about
        st.sampled_from(["hold", "void"]),
        st.integers(0, 6),  # cut / seq
        st.booleans(),  # at X (else Y)
    ),
    max_size=30,
)


@settings(max_examples=300, deadline=None)
@given(steps=INPUTS)
def test_the_machine_only_takes_steps_its_tables_list(steps: list) -> None:
    """h11's rule (docs/protocol.md, "Motions"): whatever the inputs, a motion and a seat
    only ever move along the one table, :data:`TRANSITIONS`; an input it does not
    list is refused (``MotionError``) and changes nothing."""
    _, motions = machine(4, 0, (1, 2, 3))
    seqs = {s: 0 for s in range(4)}
    for kind, author, about, m, n, here in steps:
        at = X if here else Y
        key = (at, about, m)
        seqs[author] += 1
        if kind == "vote":
            event = vote(author, about, m, n, seqs[author], at)
        elif kind == "return":
            event = ret(author, seqs[author], at)
        elif kind == "decline":
            event = Declined(key, n, n)
        elif kind == "carry":
            event = Carried(key, n, n + 1, STATE)
        elif kind == "refuse":
            event = Refused(key, n)
        elif kind == "release":
            event = Release(about, author, n)
        else:
            event = Dismiss(key)
        before = {k: motions.phase(k) for k in _keys(motions, key)}
        seats_before = {s: motions.seat_phase(s) for s in range(4)}
        try:
            motions.process(event)
        except MotionError:
            assert {k: motions.phase(k) for k in before} == before
            assert {s: motions.seat_phase(s) for s in range(4)} == seats_before
            continue
        for k, old in before.items():
            assert motions.phase(k) in set(TRANSITIONS["motion"][old].values()) | {old}
        for s, old in seats_before.items():
            new = motions.seat_phase(s)
            assert new == old or new in TRANSITIONS["seat"][old].values(), (s, old, new)
    for at in (X, Y):
        motions.process(Forget(at))
        assert all(motions.phase(k) != OPEN for k in _keys(motions, (at, 0, "hold")) if k[0] == at)


def _keys(motions: Motions, key: tuple[str, int, str]) -> set[tuple[str, int, str]]:
    keys = {key} | set(motions.resolved)
    for at, here in motions.votes.items():
        keys |= {(at, a, m) for a, m in here}
    return keys


@settings(max_examples=100, deadline=None)
@given(
    rounds=st.lists(
        st.tuples(st.booleans(), st.sets(st.integers(0, 4)), st.sets(st.integers(0, 4))),
        max_size=12,
    )
)
def test_the_shell_moves_hold_once_per_position(rounds: list) -> None:
    """docs/protocol.md, "The shell": the seat moves ``hold`` about a seat gone past the
    timeout at its turn once per position; it may move again once the table moved on
    and came to wait on that seat anew."""
    clock = Mover(0, {s: b"" for s in range(4)}, frozenset({"hold"}), Timing())
    moved: set[tuple[str, int]] = set()
    at, n = X, 0
    for new_position, awaited, gone in rounds:
        if new_position:
            n += 1
            at = f"{n:064x}"
        waits = {p: 0.0 if p in gone else 1.0 for p in range(5)}
        due = list(clock.silent(sorted(awaited), at, float(n), waits.__getitem__))
        assert 0 not in due and all(p in gone and p in awaited and p < 4 for p in due)
        assert not moved & {(at, p) for p in due}, "moved twice about one seat at one position"
        moved |= {(at, p) for p in due}
        moved = {(a, p) for a, p in moved if a == at and p in awaited}  # what the table waits on
        assert set(clock.moved) == {(at, p) for p in awaited if (at, p) in moved}


def test_a_seat_that_came_back_is_not_voted_void_while_it_chooses() -> None:
    """Issue #26: seen gone while the table waited on it here, then heard again: a ``void``
    about it waits ``back_grace`` from its return (``returned``), not the stall counted from
    when the table began to wait; a seat that never left keeps the stall timeout. One that
    came back and then never moves can be voided once its grace is over (it cannot stall
    the table for ever), and one that goes again starts a new grace when it returns."""
    t = Timing()
    clock = Mover(0, {s: b"" for s in range(4)}, frozenset({"void"}), t)
    clock.note_gone(X, 0.0, [2])  # the host left while the table waited on it
    assert clock.came_back(2, connected=True) and not clock.came_back(2, connected=False)
    assert not clock.came_back(3, connected=True)  # never seen gone here
    assert clock.back_since(3, True, 5.0) is None
    back = t.stall + 1.0  # it resumed after the table had waited past the stall
    assert clock.back_since(2, True, back) == back
    assert clock.back_since(2, True, back + 5.0) == back  # noted once
    assert clock.wait("void", X, back, True, None, returned=back) == t.back_grace
    assert clock.wait("void", X, back, True, None) == 0.0  # the usual rule otherwise
    reason = clock.too_early("void", 2, t.back_grace)
    assert reason is not None and "came back while the table waited on it" in reason
    over = back + t.back_grace
    assert clock.wait("void", X, over, True, None, returned=back) == 0.0  # back, never moved
    clock.note_gone(X, over, [2])  # gone again ...
    assert clock.back_since(2, True, over + 1.0) == over + 1.0  # ... and back: a new grace
    clock.note_gone(f"{1:064x}", over + 2.0, [])  # the table moved on: a new wait, a new rule
    assert not clock.came_back(2, connected=True)
