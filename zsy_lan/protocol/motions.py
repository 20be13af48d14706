"""Motions in one room: hold, void, return and release, their quorum and their timers.

Turn order alone lets the transcript wait forever on a seat that is gone; a
motion lets every *other* seat agree to go on (docs/protocol.md, "Motions").
This module is the whole of that machine, after h11's rule: everything that
moves it lives in this file. One transition table (:data:`TRANSITIONS`) says
which phase follows which, for its two roles as h11's does for client and
server: one motion, and one seat; :meth:`Motions.process` is the one function
that takes an input (:class:`Vote`, :class:`Return`, :class:`Declined`,
:class:`Carried`, :class:`Refused`, :class:`Release`, :class:`Dismiss`,
:class:`Forget`), checks it against the table and changes the state. The
ledger hands in what joined the feeds and what the turn order decided, and
reads the state back (who is held, which messages are void); the replica asks
:class:`Mover` when its own clock lets it vote (docs/protocol.md, "Votes").

Sans-IO like the rest of the protocol: no socket, no clock (time is passed in).
With no motion moved every table is empty and the ledger's hot path reads one
flag (:attr:`Motions.skipping`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from zsy_lan.protocol.envelope import MOTIONS, Envelope
from zsy_lan.protocol.events import Cheat, Event, Motion, Rejected, Released
from zsy_lan.protocol.game_iface import GameMachine, can_void
from zsy_lan.protocol.timing import Timing

__all__ = [
    "TRANSITIONS",
    "MotionKey",
    "Motions",
    "Mover",
    "MotionError",
    "Vote",
    "Return",
    "Declined",
    "Carried",
    "Refused",
    "Release",
    "Dismiss",
    "Forget",
    "may_void",
    "void_round",
]

MotionKey = tuple[str, int, str]  # (position, seat, motion)

# -- phases --------------------------------------------------------------------

# one motion (position X, seat P, "hold"|"void"); the outcomes are Motion.outcome's words
NONE = "none"  # nobody voted it (or its position left memory before it resolved)
OPEN = "open"  # votes are coming in
DECLINED = "declined"  # P's message at X came within the cut: it won
HELD = "held"  # carried: a bot run by the holder plays for P
VOIDED = "voided"  # carried: the round is void
REFUSED = "refused"  # carried where the game cannot void: nothing changes

# one seat
FREE = "free"  # plays for itself
AWAY = "away"  # a carried motion voided its messages: it owes a return (not held)
HOLDING = "held"  # held, its return not seen yet
BACK = "back"  # held and returned: its holder releases it at its own turn

MOTION = "motion"  # the role of one motion (position, seat, motion)
SEAT = "seat"  # the role of one seat

#: The one table: role -> phase -> input tag -> next phase.
#:
#: For a motion, a vote on a decided one is kept (it is signed and in the
#: feeds) but changes nothing. For a seat, "hold"/"void": a motion about it was
#: carried (", returned": its return for that position was already in its
#: feed); "return": its return ends the void messages; "stray return": one for
#: another position, or before any carry (noted, it may end a later one). A
#: held seat is never waited on itself (its holder is), so no motion about it
#: can be carried; a release of a seat that has not returned leaves it away.
TRANSITIONS: dict[str, dict[str, dict[str, str]]] = {
    MOTION: {
        NONE: {"vote": OPEN, "dismiss": NONE, "forget": NONE},
        OPEN: {
            "vote": OPEN,
            "decline": DECLINED,
            "carry hold": HELD,
            "carry void": VOIDED,
            "refuse": REFUSED,
            "dismiss": OPEN,
            "forget": NONE,
        },
        DECLINED: {"vote": DECLINED, "dismiss": DECLINED, "forget": DECLINED},
        HELD: {"vote": HELD, "dismiss": HELD, "forget": HELD},
        VOIDED: {"vote": VOIDED, "dismiss": VOIDED, "forget": VOIDED},
        REFUSED: {"vote": REFUSED, "dismiss": REFUSED, "forget": REFUSED},
    },
    SEAT: {
        FREE: {
            "hold": HOLDING,
            "hold, returned": BACK,
            "void": AWAY,
            "void, returned": FREE,
            "stray return": FREE,
        },
        AWAY: {
            "hold": HOLDING,
            "hold, returned": BACK,
            "void": AWAY,
            "void, returned": FREE,
            "return": FREE,
            "stray return": AWAY,
        },
        HOLDING: {"return": BACK, "stray return": HOLDING, "release": AWAY},
        BACK: {"release": FREE, "stray return": BACK},
    },
}


def may_void(game: GameMachine) -> bool:
    """True when the game can void its current round now (the private deal, a deal under way).

    The machine's narrow interface to a game: ``can_void_round`` and ``void_round``
    (``zsy_lan.protocol.game_iface``); a game without them is never voted void.
    """
    return can_void(game) and bool(game.can_void_round())  # type: ignore[attr-defined]


def void_round(game: GameMachine, seat: int) -> None:
    """A ``void`` about ``seat`` carried: the game ends the round with no result."""
    game.void_round(seat, f"seat {seat} withheld its message past the timeout")  # type: ignore[attr-defined]


class MotionError(RuntimeError):
    """An input the transition tables do not allow in the current phase: a bug, not a peer."""


# -- inputs ------------------------------------------------------------------------


@dataclass(frozen=True)
class Vote:
    """A ``motion`` message joined its author's feed (verified, in seq order)."""

    env: Envelope


@dataclass(frozen=True)
class Return:
    """A ``return`` message joined its author's feed."""

    env: Envelope


@dataclass(frozen=True)
class Declined:
    """The seat's message at the position came within the largest cut ``cut``: it won."""

    key: MotionKey
    cut: int
    won: int  # the seq of that message (the voters whose cut stops short moved it)


@dataclass(frozen=True)
class Carried:
    """Every voter voted and the seat's message did not come within the cut."""

    key: MotionKey
    cut: int
    start: int  # the first of the seat's messages that is void
    state: str  # the public state hash the transcript waited on


@dataclass(frozen=True)
class Refused:
    """A ``void`` carried where the game cannot void the round: nothing changes."""

    key: MotionKey
    cut: int


@dataclass(frozen=True)
class Release:
    """The holder's ``release`` of held ``seat`` entered the transcript (entry ``index``)."""

    seat: int
    by: int
    index: int


@dataclass(frozen=True)
class Dismiss:
    """This seat no longer owes its vote on ``key`` (it voted, or may never)."""

    key: MotionKey


@dataclass(frozen=True)
class Forget:
    """Position ``at`` left memory (:meth:`Ledger.retire`): its ballots go."""

    at: str


Input = Vote | Return | Declined | Carried | Refused | Release | Dismiss | Forget


@dataclass
class Region:
    """Messages of one seat a carried motion voided: seq ``start`` up to its return."""

    at: str  # the position the motion was carried at
    start: int  # first void seq
    cut: int  # the motion's cut: a return counts only beyond it
    end: int | None = None  # seq of the return that ends the region (None: not seen yet)


class Board(Protocol):
    """What the motion machine reads of the ledger: the order, never its own state."""

    roster: dict[int, bytes]
    seats: tuple[int, ...]
    head: str
    entries: Sequence[Envelope]
    steps: dict[str, tuple[int, int, frozenset[int]]]
    game: GameMachine

    def blame(self, seat: int, reason: str, evidence: tuple[bytes, ...]) -> Cheat: ...

    def owed(self) -> tuple[str, tuple[int, ...]]: ...

    def need(self, kind: str, owed: tuple[int, ...]) -> dict[int, list[int]]: ...

    def run(self, seat: int, n: int) -> list[Envelope]: ...


Ballots = dict[int, Envelope]


class Motions:
    """The motion state of one ledger, changed only by :meth:`process`.

    ``seat`` is the replica's own seat (its due votes and its freeze), None
    for an observer such as ``verify_transcript``. The tables the ledger reads
    (:attr:`held`, :attr:`votes`, :attr:`log`) are never rebound, so the
    ledger may keep them under its own names.
    """

    def __init__(self, board: Board, seat: int | None) -> None:
        self.board = board
        self.seat = seat
        self.held: dict[int, str] = {}  # held seat -> position its hold was carried at
        self.held_set: frozenset[int] = frozenset()
        self.regions: dict[int, Region] = {}
        self.voided_states: set[str] = set()
        self.skipping = False  # some region or voided state exists: pending() checks them
        self.votes: dict[str, dict[tuple[int, str], Ballots]] = {}
        self.resolved: dict[MotionKey, str] = {}
        self.returns: dict[int, list[Envelope]] = {}
        self.due: set[MotionKey] = set()  # motions this seat must vote on (mandatory)
        self.diverged: str | None = None  # we applied something a motion voided: rebuild
        #: motions about this seat at a position it left, some ballots still missing, that
        #: may yet void a message of ours applied here: until they are in, our state may be
        #: the one that is wrong, so nobody else is blamed for a message that does not fit
        self.unsettled: set[MotionKey] = set()
        self.log: list[dict[str, Any]] = []
        self.notes: list[Event] = []  # Motion/Released events, handed out by the ledger

    # -- the one function that moves the machine ----------------------------------

    def process(self, event: Input) -> Cheat | None:
        """Apply one input; returns the proof when it shows its author cheated.

        Every change of a motion's or a seat's phase is looked up in
        :data:`TRANSITIONS` first; an input it does not allow raises
        :class:`MotionError` (the ledger never hands one in: the table is the
        specification it is checked against).
        """
        board = self.board
        if isinstance(event, Vote):
            env = event.env
            body = env.body
            a, at, m = body["seat"], body["at"], body["motion"]
            if a == env.seat:
                return board.blame(env.seat, f"seat {a} voted to {m} its own seat", (env.frame,))
            if a not in board.roster:
                return board.blame(
                    env.seat,
                    f"seat {env.seat} voted about seat {a}, which is not at the table",
                    (env.frame,),
                )
            ballots = self.votes.setdefault(at, {}).setdefault((a, m), {})
            if env.seat in ballots:
                return None  # a second vote by the same seat counts for nothing
            key = (at, a, m)
            self._check(MOTION, key, "vote")
            ballots[env.seat] = env
            if key in self.resolved:
                return None
            if len(ballots) == 1:
                self.notes.append(Motion(m, a, at, "open", by=env.seat))
            if self.seat is not None and self.seat != a:
                if self.seat in ballots:
                    self.due.discard(key)
                else:
                    self.due.add(key)
            if at != board.head and at in board.steps:
                return self._past(key, ballots, env)
            return None
        if isinstance(event, Return):
            env = event.env
            self.returns.setdefault(env.seat, []).append(env)
            r = self.regions.get(env.seat)
            ends = r is not None and r.end is None and env.body["at"] == r.at and env.seq > r.cut
            self._check(SEAT, env.seat, "return" if ends else "stray return")
            if ends:
                r.end = env.seq  # type: ignore[union-attr]
            return None
        if isinstance(event, Declined):
            self._check(MOTION, event.key, "decline")
            self._record(event.key, DECLINED, event.cut, None, won=event.won)
            return None
        if isinstance(event, Refused):
            self._check(MOTION, event.key, "refuse")
            self._record(event.key, REFUSED, event.cut, None)
            return None
        if isinstance(event, Carried):
            at, a, m = key = event.key
            self._check(MOTION, key, f"carry {m}")
            start = event.start
            old = self.regions.get(a)
            if old is not None and old.end is None:
                start = min(start, old.start)
            cut = event.cut
            end = next(
                (r.seq for r in self.returns.get(a, ()) if r.body["at"] == at and r.seq > cut), None
            )
            self._check(SEAT, a, m + (", returned" if end is not None else ""))
            self.regions[a] = Region(at, start, event.cut, end)
            self.skipping = True
            holder = None
            if m == "hold":
                self.held[a] = at
                self.held_set = frozenset(self.held)
                holder = self.holder(a)
            self._record(key, HELD if m == "hold" else VOIDED, event.cut, holder)
            if m == "void":
                self.voided_states.add(event.state)
            return None
        if isinstance(event, Release):
            p = event.seat
            self._check(SEAT, p, "release")
            del self.held[p]
            self.held_set = frozenset(self.held)
            self.notes.append(Released(p, event.by))
            self.log.append({"motion": "release", "seat": p, "by": event.by, "index": event.index})
            return None
        if isinstance(event, Dismiss):
            self._check(MOTION, event.key, "dismiss")
            self.due.discard(event.key)
            return None
        if isinstance(event, Forget):
            for a, m in self.votes.get(event.at, {}):
                self._check(MOTION, (event.at, a, m), "forget")
            self.votes.pop(event.at, None)
            return None
        raise MotionError(f"not a motion input: {event!r}")  # pragma: no cover

    # -- phases (read from the state; the tables say which may follow) ---------------

    def phase(self, key: MotionKey) -> str:
        """The phase of one motion: :data:`NONE`, :data:`OPEN` or its outcome."""
        done = self.resolved.get(key)
        if done is not None:
            return done
        at, a, m = key
        return OPEN if self.votes.get(at, {}).get((a, m)) else NONE

    def seat_phase(self, seat: int) -> str:
        """The phase of one seat: :data:`FREE`, :data:`AWAY`, :data:`HOLDING` or :data:`BACK`."""
        r = self.regions.get(seat)
        away = r is not None and r.end is None
        if seat in self.held:
            return HOLDING if away else BACK
        return AWAY if away else FREE

    def _check(self, role: str, subject: Any, tag: str) -> None:
        """Check that ``tag`` may happen now to ``subject`` (a motion key or a seat)."""
        old = self.phase(subject) if role == MOTION else self.seat_phase(subject)
        if tag not in TRANSITIONS[role][old]:
            raise MotionError(f"{role} {subject}: no transition for {tag!r} from {old!r}")

    def _past(self, key: MotionKey, ballots: Ballots, env: Envelope) -> Cheat | None:
        """A vote about a position we already left: check it, and whether we must rebuild."""
        board = self.board
        at, a, m = key
        start, count, held = board.steps[at]
        mine = [e for e in board.entries[start : start + count] if e.seat == a]
        if not mine:
            return board.blame(
                env.seat,
                f"seat {env.seat} voted to {m} seat {a} at a position where the game did not "
                f"wait on seat {a}",
                (env.frame,),
            )
        voters = [s for s in board.seats if s != a and s not in held]
        if any(v not in ballots for v in voters):
            cuts = [ballots[v].body["cut"] for v in voters if v in ballots]
            if a == self.seat and max(cuts, default=0) < max(e.seq for e in mine):
                self.unsettled.add(key)  # a resumed seat reading the others' feeds unevenly
            return None
        self.unsettled.discard(key)
        cut = max(ballots[v].body["cut"] for v in voters)
        if any(e.seq > cut for e in mine):
            self.diverged = (
                f"the table voted to {m} seat {a} at a position where this replica had "
                f"applied seat {a}'s message {mine[0].seq} (beyond the cut {cut})"
            )
            return None
        return self.process(Declined(key, cut, min(e.seq for e in mine)))

    def _record(
        self, key: MotionKey, outcome: str, cut: int, holder: int | None, won: int | None = None
    ) -> None:
        """Resolve a motion; ``won``: a declined one's seat message that came in time.

        A declined motion's log entry names its ``movers``: the voters whose cut
        stops short of ``won`` (they voted before it reached them), so a record
        (``zsy replay``) says who moved it, as every screen did at the table.
        """
        at, a, m = key
        self.resolved[key] = outcome
        self.unsettled.discard(key)
        self.due.discard(key)
        entry: dict[str, Any] = {
            "motion": m,
            "seat": a,
            "at": at,
            "outcome": outcome,
            "cut": cut,
            "holder": holder,
            "index": len(self.board.entries),
        }
        if won is not None:
            ballots = self.votes.get(at, {}).get((a, m), {})
            entry["movers"] = sorted(v for v, env in ballots.items() if env.body["cut"] < won)
        self.log.append(entry)
        self.notes.append(Motion(m, a, at, outcome, holder=holder, cut=cut))

    # -- questions ------------------------------------------------------------------

    def take_notes(self) -> list[Event]:
        """The Motion and Released events since the last call, in order."""
        notes, self.notes = self.notes, []
        return notes

    def holder(self, seat: int) -> int:
        """Who plays for held ``seat``: the lowest seat that is neither it nor held."""
        for s in self.board.seats:
            if s != seat and s not in self.held:
                return s
        return seat

    def void(self, env: Envelope) -> bool:
        """True when a carried motion voided ``env`` (skipped; it stays in feed and record)."""
        if env.state in self.voided_states:
            return True
        r = self.regions.get(env.seat)
        return r is not None and env.seq >= r.start and (r.end is None or env.seq < r.end)

    def returned(self, seat: int) -> bool:
        """True when held ``seat`` has signed its return (its holder may release it)."""
        r = self.regions.get(seat)
        return r is None or r.end is not None

    def return_due(self, seat: int) -> str | None:
        """The position ``seat`` must sign a return for (a motion voided its messages), or None."""
        r = self.regions.get(seat)
        return r.at if r is not None and r.end is None else None

    def blocks(self, seat: int, head: str, blocking: Iterable[str]) -> bool:
        """True when ``seat`` may not sign at ``head``: held, its return owed, or voted on.

        Only the motions in ``blocking`` hold it back while open (the replica
        passes those its own clock says may be fair, see :meth:`Mover.fair`).
        """
        if seat in self.held:
            return True  # a held seat plays again after its holder's release
        r = self.regions.get(seat)
        if r is not None and r.end is None:
            return True  # its return comes first
        here = self.votes.get(head)
        return bool(
            here
            and any((seat, m) in here and (head, seat, m) not in self.resolved for m in blocking)
        )

    def frozen(self, here: dict[tuple[int, str], Ballots], a: int, env: Envelope) -> bool:
        """True when our own open vote about ``a`` here holds back ``env`` (beyond our cut)."""
        me = self.seat
        if me is None:
            return False
        head = self.board.head
        for m in MOTIONS:
            ballots = here.get((a, m))
            if ballots is None or me not in ballots or (head, a, m) in self.resolved:
                continue
            if env.seq > ballots[me].body["cut"]:
                return True
        return False

    def open_at(self, at: str, need: Mapping[int, list[int]]) -> bool:
        """True when a motion at ``at`` about a seat in ``need`` is still open."""
        here = self.votes.get(at, {})
        return any((at, a, m) not in self.resolved and a in need for a, m in here)

    def vote_place(self, at: str, seat: int) -> str:
        """Where a vote about ``seat`` at position ``at`` stands for us.

        ``now`` (we are there and wait on it), ``past`` (we left it after
        ``seat`` acted there), ``later`` (not there yet) or ``never``.
        """
        board = self.board
        if at == board.head:
            need = board.need(*board.owed())
            if seat in need:
                return "now"
            return "later" if self.open_at(at, need) else "never"
        authors = self.past_authors(at)
        if authors is not None:
            return "past" if seat in authors else "never"
        return "later"

    def holder_slots(self, seat: int) -> list[int]:
        """Held seats whose slot ``seat`` (their holder) must fill now and has not yet."""
        if not self.held:
            return []
        board = self.board
        kind, owed = board.owed()
        if kind != "action":
            return []
        fors = board.need(kind, owed).get(seat)
        if not fors:
            return []
        state = board.game.public_hash()
        run = [e for e in board.run(seat, len(fors)) if e.state == state]
        return [p for p in fors[len(run) :] if p != seat]

    def release_ok(self, seat: int) -> bool:
        """True when held ``seat``'s slot may take a release now (its own turn, alone)."""
        kind, owed = self.board.owed()
        return kind == "action" and owed == (seat,) and seat in self.held

    def may_vote(self, at: str) -> bool:
        """True when our seat is a voter at ``at`` (not held there)."""
        if self.seat is None:
            return False
        if at == self.board.head:
            return self.seat not in self.held
        step = self.board.steps.get(at)
        return step is None or self.seat not in step[2]

    def past_authors(self, at: str) -> set[int] | None:
        """The seats whose messages made the step taken at ``at``; None if not known here."""
        step = self.board.steps.get(at)
        if step is None:
            return None
        start, count, _ = step
        return {e.seat for e in self.board.entries[start : start + count]}

    def voters(self, a: int) -> list[int]:
        """Every seat that votes about ``a`` here: all but ``a`` and the held seats."""
        return [s for s in self.board.seats if s != a and s not in self.held]

    def movers(self, ev: Motion, pending: Callable[[], Envelope | None]) -> tuple[int, ...]:
        """The voters of declined ``ev`` whose vote came before the seat's message reached them.

        Their cut stops short of the seat's message at that position (every
        replica holds the same signed votes, so every screen names the same
        seats); ``pending()``: that seat's next message here, asked only when
        the position is still the current one.
        """
        ballots = self.votes.get(ev.at, {}).get((ev.seat, ev.motion), {})
        won: int | None = None
        step = self.board.steps.get(ev.at)
        if step is not None:
            start, count, _ = step
            entries = self.board.entries[start : start + count]
            seqs = [e.seq for e in entries if e.seat == ev.seat]
            won = min(seqs) if seqs else None
        if won is None:
            pm = pending()
            won = pm.seq if pm is not None else (ev.cut or 0)
        return tuple(sorted(v for v, env in ballots.items() if env.body["cut"] < won))

    def quiet_for_retire(self, known: Callable[[str], bool]) -> bool:
        """True when no motion holds memory: nobody held, no void region, no note, no due vote.

        ``known(at)``: the position is still held in memory (the head or a retained
        step); an open motion or a due vote about a position not held (ahead, or
        long gone) needs nothing that leaves memory now.
        """
        if self.held or self.regions or self.notes:
            return False
        if any(known(at) for at, _, _ in self.due):
            return False
        return not any(
            known(at) and any((at, a, m) not in self.resolved for a, m in motions)
            for at, motions in self.votes.items()
        )


class Mover:
    """This seat's side of motions: when its own clock and view let it vote, and what it owes.

    Each replica judges by its own clock and its own view, so one modified
    peer cannot carry a motion against a seat that acts in time: it needs
    every other seat's vote (docs/protocol.md, "Votes"). Sans-IO: the time is
    passed in, and the clock is the latest time it was given.
    """

    def __init__(
        self, seat: int, roster: Mapping[int, bytes], allowed: frozenset[str], timing: Timing
    ) -> None:
        self.seat = seat
        self.roster = roster
        self.allowed = allowed  # what this table lets us vote on
        self.timing = timing
        self.born: float | None = None  # the first ``now`` this replica was given
        self.here: str | None = None  # the transcript position last seen...
        self.here_since = 0.0  # ...and since when this replica has been there
        self.clock = 0.0  # the latest ``now`` given (for can_act, which takes none)
        self.reported: set[str] = set()  # refusals told once
        self.moved: dict[tuple[str, int], float] = {}  # (position, seat) -> moved to hold at
        #: seats seen gone (disconnected) while the table waited on them at ``here``: once
        #: heard again they came back, and a void proposed meanwhile must not end their round
        self.gone_here: set[int] = set()
        #: when each of those was first heard again here (the start of its grace to move)
        self.back_here: dict[int, float] = {}
        #: this seat restarted (``zsy join`` resumed it) and has not moved since: an open
        #: void about it does not hold back its move (:meth:`fair`)
        self.back = False

    def arrived(self, head: str, now: float) -> float:
        """When this replica reached position ``head`` (the start of its own wait there)."""
        if self.born is None:
            self.born = now
        if head != self.here:
            self.here, self.here_since = head, now
            self.gone_here = set()
            self.back_here = {}
        return self.here_since

    def note_gone(self, head: str, now: float, gone: Iterable[int]) -> None:
        """The shell's timer: ``gone`` are the awaited seats disconnected in our view now."""
        self.arrived(head, now)
        for seat in gone:
            self.gone_here.add(seat)
            self.back_here.pop(seat, None)  # gone again: its next return starts a new grace

    def came_back(self, seat: int, connected: bool) -> bool:
        """True when ``seat`` was gone while the table waited on it here and is heard again.

        Such a seat resumed (``zsy join``) or its link recovered: it takes its turn
        like anyone, so a void moved while it was away is not backed about it while
        it stays connected (the table still voids a seat that withholds a deal step,
        and one that goes again). A voided round it came back to was the complaint of
        issue #26: the host resumed and its own bots, back with it, carried the void.
        """
        return connected and seat in self.gone_here

    def back_since(self, seat: int, connected: bool, now: float) -> float | None:
        """When ``seat`` came back here (:meth:`came_back`), first noted at ``now``; else None."""
        if not self.came_back(seat, connected):
            return None
        return self.back_here.setdefault(seat, now)

    def tick(self, head: str, now: float) -> None:
        """The shell's timer: note the position and the latest time (for :meth:`fair`)."""
        self.arrived(head, now)
        self.clock = max(self.clock, now)

    def silent(
        self, awaited: Iterable[int], at: str, now: float, wait: Callable[[int], float]
    ) -> Iterator[int]:
        """The seats to move ``hold`` about now, once per position (docs/protocol.md, "The shell").

        Each seat the table waits on at ``at`` whose ``wait(seat)`` (its
        :meth:`wait` for ``hold``) is over, and that this seat has not moved
        about here yet. Lazy: the caller moves each before the next is judged
        (a move may change what the next one waits for); once it is exhausted,
        positions the table no longer waits at are forgotten.
        """
        waiting = set()
        for p in awaited:
            if p == self.seat or p not in self.roster:
                continue
            waiting.add((at, p))
            if (at, p) not in self.moved and wait(p) == 0.0:
                self.moved[(at, p)] = now
                yield p
        for key in [k for k in self.moved if k not in waiting]:
            del self.moved[key]

    def wait(
        self,
        motion: str,
        head: str,
        now: float,
        connected: bool,
        last_seen: float | None,
        stopped: bool = False,
        returned: float | None = None,
    ) -> float:
        """Seconds still to wait on a seat before backing ``motion`` about it (0.0: vote now).

        * ``void``: the transcript has waited on the seat at this position for
          ``stall``;
        * ``hold``: the seat has been disconnected (silent for ``peer_timeout``),
          while the transcript waited on it here, for ``hold_after``; ``inf``
          while it is connected in this replica's view.

        ``stopped``: the seat's own signed ``bye`` said it stopped on a local fault
        (and nothing of it was heard since): no wait. The timeouts protect a seat
        that may still act; this one said it will not, and only its own word
        shortens them (docs/protocol.md, "Votes").

        ``returned``: when the seat, gone while the table waited on it here, came back
        (:meth:`back_since`), if it owes a move it is choosing (no deal step): a ``void``
        waits ``back_grace`` from its return. The round it came back to goes on; a seat
        that came back and then never moves can still be voided, as any seat can.
        """
        since = self.arrived(head, now)
        if stopped:
            return 0.0
        t = self.timing
        if motion == "void" and returned is not None:
            return max(0.0, max(since, returned) + t.back_grace - now)
        if motion == "void":
            return max(0.0, since + t.stall - now)
        if connected:
            return float("inf")
        gone = self.born if last_seen is None else last_seen + t.peer_timeout
        start = max(since, gone if gone is not None else now)
        return max(0.0, start + t.hold_after - now)

    def too_early(self, motion: str, seat: int, wait: float) -> str | None:
        """Why this replica does not back ``motion`` about ``seat`` yet (``wait`` left), or None."""
        if wait <= 0.0:
            return None
        t = self.timing
        if motion == "void" and seat in self.back_here:  # noted only for a seat gone here
            return (
                f"seat {seat} came back while the table waited on it and is choosing its "
                f"move: a round is voided only once it has been back {t.back_grace:g} s "
                f"without moving ({wait:.0f} s left)"
            )
        if motion == "void":
            return (
                f"the table has waited on seat {seat} for {t.stall - wait:.1f} s here; a round "
                f"is voided only once a seat withholds its part for {t.stall:g} s"
            )
        if wait == float("inf"):
            return (
                f"seat {seat} is connected here: a bot holds a seat only once it has dropped "
                f"and kept the table waiting for {t.hold_after:g} s"
            )
        return (
            f"seat {seat} has kept the table waiting, disconnected, for "
            f"{t.hold_after - wait:.1f} s; a bot holds it after {t.hold_after:g} s"
        )

    def refusal(
        self, motion: str, seat: int, game: GameMachine, motions: Motions, halted: Cheat | None
    ) -> str | None:
        """Why this replica will not vote ``motion`` about ``seat``, or None."""
        if motion not in MOTIONS:
            return f"unknown motion {motion!r}"
        if motion not in self.allowed:
            return f"this table does not vote to {motion} a seat"
        if motion == "void" and not can_void(game):
            return "this game cannot void a round (it lacks void_round)"
        if seat == self.seat:
            return "a seat does not vote about itself"
        if seat not in self.roster:
            return f"seat {seat} is not at this table"
        if self.seat in motions.held:
            return "a held seat does not vote (its holder's bot plays for it)"
        if halted is not None:
            return f"table halted: {halted.reason}"
        return None

    def refuse_move(
        self,
        motion: str,
        seat: int,
        motions: Motions,
        can_void_now: Callable[[], bool],
        early: Callable[[str, int], str | None],
    ) -> str | None:
        """Why this seat may not move ``motion`` about ``seat`` at the current position, or None.

        Past :meth:`refusal`: the game must be able to void now, the table must
        wait on the seat here, this replica's own clock must agree (``early``),
        and it must not have voted already nor the motion be decided.
        """
        if motion == "void" and not can_void_now():
            return "the game cannot void this round (not now, or not yet)"
        at = motions.board.head
        if motions.vote_place(at, seat) != "now":
            return f"the table does not wait on seat {seat} now"
        too_early = early(motion, seat)
        if too_early:
            return too_early
        if self.seat in motions.votes.get(at, {}).get((seat, motion), {}):
            return f"already voted to {motion} seat {seat} here"
        if (at, seat, motion) in motions.resolved:
            return f"the motion to {motion} seat {seat} here is decided"
        return None

    def fair(
        self, motions: Motions, head: str, now: float | None, choosing: bool = False
    ) -> tuple[str, ...]:
        """The motions about this very seat that hold it back now: ``("void",)`` or none.

        An open ``void`` holds it back only once this replica has kept the
        table waiting here for ``stall`` (then the outcome decides, and nothing
        signed here can be voided under it). A ``hold`` never does: honest
        peers back one only on a seat that is gone from their view; a running
        seat acts, and if it was cut off and loses the cut rule it rebuilds.
        A seat that resumed and is ``choosing`` its move (no deal step) is not
        held back until it moved: the others no longer back a void about it
        (:meth:`came_back`), so its move declines the void moved while it was away.
        """
        if now is not None and now > self.clock:
            self.clock = now
        fair = (
            motions.votes
            and not (self.back and choosing)
            and "void" in self.allowed
            and head == self.here
            and self.clock - self.here_since >= self.timing.stall
        )
        return ("void",) if fair else ()

    def duty(
        self,
        motions: Motions,
        early: Callable[[str, int], str | None],
        refusal: Callable[[str, int], str | None],
        resumed: bool,
    ) -> tuple[str, dict[str, Any]] | Rejected | None:
        """What this seat must sign by itself now, one at a time: none of it is a choice.

        Its return after a motion voided its messages, a vote the table made
        due (only once its own clock agrees: ``early(motion, seat)``), or a
        release of a held seat it holds that came back.
        """
        at = motions.return_due(self.seat)
        if at is not None:
            return "return", {"at": at}
        for key in sorted(motions.due):
            at, seat, motion = key
            where = motions.vote_place(at, seat)
            if where == "later":
                continue
            refused = refusal(motion, seat)
            if where == "now" and not refused and motions.may_vote(at) and early(motion, seat):
                # Another seat's vote is no reason: this replica joins only once it has
                # waited past the timeout on that seat itself. If the seat acts first,
                # it votes from "past" below, with a cut that holds the move: declined.
                continue
            motions.process(Dismiss(key))
            if where == "never" or not motions.may_vote(at) or refused:
                if refused and f"refuse:{key}" not in self.reported:
                    self.reported.add(f"refuse:{key}")
                    return Rejected(self.seat, f"not voting to {motion} seat {seat}: {refused}")
                continue
            return "motion", {"motion": motion, "seat": seat, "at": at}
        if not resumed:
            for p in motions.holder_slots(self.seat):
                if motions.returned(p) and motions.release_ok(p):
                    return "release", {"seat": p}
        return None
