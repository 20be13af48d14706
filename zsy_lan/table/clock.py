"""The table clock at a seat: whose countdown runs, and the clock's notes to the others.

The clock is a table setting (:mod:`zsy_lan.protocol.table_settings`): every seat knows the
same number of seconds, and every seat counts the turn of whoever is to act
from the moment it saw that turn begin. Only the acting seat's own client
acts on it: when its player's time runs out it plays the hint for them; after
:data:`TIMEOUTS_TO_AUTO` timeouts *in a row* (no turn the player played
themselves in between) it switches that seat to auto-play (托管) until the
player types or presses a key. Peers have no authority over another seat's
moves, so another seat's clock running out changes nothing by itself here; a
modified client that ignores its clock is handled like any slow seat, by the
table's ``void``/hold motions after their own timeout.

So that everyone reads the same story, the acting client tells the others
what its clock did with a *clock note*: a chat message of its author's feed
whose body is ``{"clock": EVENT}`` (:func:`clock_body`). Why a chat body and
not a message type of its own: chat is already what a clock note must be,
a signed, numbered, journaled feed message that is transcript-neutral (never
in the state hash, never waited on, never in a vote), that the replica rate
limits, that the record keeps as an aside in its place and that a catching-up
seat gets again; and the chat body is judged on the reader's side, so the
protocol needed no change (a reader that does not know the kind drops it with
a logged reason). Being in its author's signed feed, a note relayed by another
seat is the author's own word, and each note is news once (a duplicate seq is
dropped; a restore tells nothing again).

The reader judges each note (:func:`read_clock`: exactly one known event),
shows it only from another seat and up to :data:`NOTE_BURST` at once per seat
(:meth:`ClockNotes.heard`). ``zsy replay`` tells notes in their place
(:mod:`zsy_lan.record.retell`). Because the notes are in the seat's own feed, the
count of timeouts in a row is read back from it (:func:`timeouts_in_a_row`),
so it survives a resume: the restored replica has the whole feed again.
"""

from __future__ import annotations

import contextlib
import logging
import time
import weakref
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from zsy_lan.protocol.bucket import Bucket
from zsy_lan.protocol.clock_notes import clock_body, note_text, read_clock
from zsy_lan.table.session import Announcing, FeedSession, Notice, SeatInfo
from zsy_lan.text.i18n import _, join_items

if TYPE_CHECKING:
    from zsy_lan.table.session import TableSession

log = logging.getLogger("zsy.clock")

__all__ = [
    "CLOCK_GRACE",
    "NOTE_BURST",
    "TIMEOUTS_TO_AUTO",
    "ClockNotes",
    "TurnClock",
    "acting_human",
    "announce",
    "back_owed",
    "clock_streak",
    "feed_pairs",
    "lobby_frame_dropped",
    "tell_back",
    "timeouts_in_a_row",
    "told_auto",
    "turn_key",
]

#: Clock notes shown from one seat at once, and regained one per second (a flood is dropped;
#: an honest seat sends at most two together: a timeout, then auto-play).
NOTE_BURST = 4.0
#: Timeouts in a row (no turn played by the player in between) that start auto-play (托管).
TIMEOUTS_TO_AUTO = 2
#: Seconds a turn may look shorter here than the clock and its ``timeout`` note still be
#: told: the author saw its turn begin when the move before reached it, we when it
#: reached us, and the note comes after the hint it played (network and relay delays).
CLOCK_GRACE = 2.0


def timeouts_in_a_row(feed: Iterable[tuple[str, Any]]) -> int:
    """The timeouts in a row at the end of one seat's feed: ``(type, body)`` in seq order.

    The rule (docs/table-settings.md): a ``timeout`` note counts one; a move
    the player made themselves ends the run (a move is the player's own unless
    the very next message of the feed is its ``timeout`` note, which the
    client signs right after the hint it played); ``auto`` and ``back`` notes
    end it too (auto-play took over, or the player came back). Deal steps,
    votes, proxies and chat lines change nothing. Only messages still in
    memory are read: the run is never longer than the last few of them.
    """
    run, unclaimed = 0, False  # unclaimed: a move whose timeout note has not followed
    for kind, body in feed:
        if kind == "action":
            if unclaimed:
                run = 0  # the move before was the player's own
            unclaimed = True
        elif kind == "chat":
            event = read_clock(body)
            if event == "timeout":
                run, unclaimed = run + 1, False
            elif event is not None:
                run, unclaimed = 0, False
    return 0 if unclaimed else run


def feed_pairs(feeds: Mapping[int, Iterable[Any]], seat: int) -> list[tuple[str, Any]] | None:
    """``seat``'s feed messages as ``(type, body)`` from a ledger's ``feeds`` (``None``: none).

    The one reading of a signed feed the clock needs; each session's
    :meth:`~zsy_lan.table.session.FeedSession.own_feed` hands its ledger's feeds here.
    """
    feed = feeds.get(seat)
    return None if feed is None else [(env.type, env.body) for env in feed]


def _own_feed(session: object) -> list[tuple[str, Any]] | None:
    """This seat's own feed messages as ``(type, body)``, where the session keeps one."""
    return session.own_feed() if isinstance(session, FeedSession) else None


def clock_streak(session: object, this_timeout: bool = False) -> int | None:
    """This seat's timeouts in a row, read from its own signed feed (``None``: no feed here).

    A resumed seat has its whole feed again (journal and record), so the run
    goes on where it stopped. ``this_timeout``: the clock has just played the
    hint and its note is not signed yet; it counts as if it were.
    """
    feed = _own_feed(session)
    if feed is None:
        return None
    if this_timeout:
        feed = [*feed, ("chat", clock_body("timeout"))]
    return timeouts_in_a_row(feed)


def told_auto(feed: Iterable[tuple[str, Any]]) -> bool:
    """True when the last auto-play note of one seat's feed is ``auto``: the table was
    told the seat is on auto-play (by its clock or its player) and not that it is back."""
    last = None
    for kind, body in feed:
        if kind == "chat":
            event = read_clock(body)
            if event in ("auto", "back"):
                last = event
    return last == "auto"


#: Sessions whose feed owes no ``back`` note, or owes one (:func:`back_owed`): read from
#: the feed once per session, so a key press costs a look-up. Weak: a closed seat goes.
_OWED: weakref.WeakKeyDictionary[object, bool] = weakref.WeakKeyDictionary()


def back_owed(session: object, auto: bool) -> bool:
    """True when this seat owes the table a ``back`` note: its feed says the table was
    told it is on auto-play, yet this client is not (``auto`` False).

    That is a seat resumed (``zsy join``) while it was on auto-play: the new
    client starts with auto-play off (whoever resumed it is there), and it tells
    the table so once its player acts, as a seat whose player comes back does
    (:func:`zsy_lan.ui.line_mode.player_is_back`). Read from the feed once; a seat
    that owes nothing is not read again (:data:`_OWED`).
    """
    if auto:
        return False
    owed = _cached(session)
    if owed is None:
        feed = _own_feed(session)
        if feed is None:
            return False  # no signed feed here (a test's stand-in): nothing was told
        owed = told_auto(feed)
        _remember(session, owed)
    return owed


def _cached(session: object) -> bool | None:
    with contextlib.suppress(TypeError):  # a stand-in that takes no weak reference
        return _OWED.get(session)
    return None


def _remember(session: object, owed: bool) -> None:
    with contextlib.suppress(TypeError):
        _OWED[session] = owed


async def tell_back(session: object) -> bool:
    """Tell the table this seat is back (:func:`back_owed`); ``True`` once the note is signed.

    A seat still learning its own feed after the resume cannot sign yet: it
    stays owed, and the player's next act tries again.
    """
    if not await announce(session, "back"):
        return False
    _remember(session, False)
    return True


async def announce(session: object, event: str) -> bool:
    """Tell the table what this seat's clock did; ``True`` when the note is in the feed.

    A session that announces (:class:`~zsy_lan.table.session.Announcing`: a network
    seat, ``zsy play``, a test's stand-in) signs the note into its feed; anything
    else has nobody to tell.
    """
    if not isinstance(session, Announcing):
        return False
    return await session.announce(event) is not False


class ClockNotes:
    """The clock notes a seat hears from the others: told once each, within their rate,
    and only where this seat's own view of the table makes them true.

    A component of a chat seat's :class:`~zsy_lan.table.chat_desk.ChatDesk` (a network
    seat, ``zsy play``): it takes a note and the time, and tells the player through
    ``tell``. Its per-seat token buckets are its own.

    A note is its author's word, so it is judged here before anyone reads it
    (issue #25, "Clock notes only where there is a clock"):

    * ``timeout`` says the table clock ran out on the author's turn. It is told
      only at a table with a clock (``clock`` seconds), from a seat that is not a
      bot (bots are not timed), about a turn of the author's that this seat saw
      (``game``: whose turn it is, watched by :meth:`saw`) and that ran, by this
      seat's own clock, at least the clock's seconds less :data:`CLOCK_GRACE`
      (the author saw its turn begin a little earlier or later than we did), and
      once per turn. The turn judged is the author's latest *finished* one: the
      note follows the hint that ended it in the author's feed, and by the time
      it is read the author may be to act again (bots moved in between);
    * ``auto`` right after a ``timeout`` of the same turn is the clock's auto-play
      and shares that note's verdict; any other ``auto`` is the player's own switch
      (typing ``auto`` works at any table) and is told when it changes what this
      seat was told, as is ``back`` (a repeat says nothing new).

    A note that fails is dropped quietly: a debug log line and a count in
    :attr:`ignored` (a modified seat's false news is nobody's business but the
    log's), never a line on the screen.
    """

    def __init__(
        self,
        seat: int,
        seats: list[SeatInfo],
        tell: Callable[[Notice], None],
        *,
        clock: float | None = None,
        game: Callable[[], Any] | None = None,
        grace: float | None = None,
    ) -> None:
        self.seat = seat
        self._seats = seats
        self._tell = tell
        self._clock = clock
        self._game = game
        self._grace = CLOCK_GRACE if grace is None else grace
        self._buckets: dict[int, Bucket] = {}  # seat -> its notes, one a second
        #: Notes dropped quietly, by the reason's kind ("no clock", "too early", ...).
        self.ignored: Counter[str] = Counter()
        self._key: object = None  # the turn as last seen (what changes when a turn begins)
        self._acting: frozenset[int] = frozenset()
        self._began: dict[int, float] = {}  # seat -> when its current turn began, seen here
        self._done: dict[int, tuple[float, float]] = {}  # seat -> its latest finished turn
        self._claimed: dict[int, float] = {}  # seat -> the turn (its start) a timeout told
        self._last: dict[int, tuple[str, object, bool]] = {}  # seat -> (event, key, told)
        self._auto: dict[int, bool] = {}  # seat -> on auto-play, as this seat was told

    def saw(self, now: float) -> None:
        """Look at whose turn it is now: a turn that begins or ends is timed from here.

        The seat calls this whenever its game may have moved (and :meth:`heard`
        does first). A turn begins, for every seat the game waits on, each time
        what the turn is changes (a move, a deal step): the acting client
        starts its countdown at the same points (``ui/line_mode.py``'s turn key).
        """
        game = self._game() if self._game is not None else None
        if game is None:
            return
        key = turn_key(game)
        if key == self._key:
            return
        acting = frozenset(() if game.finished() else game.decision_seats())
        for s in self._acting:  # each turn ends here, also one followed by the same seat's
            self._done[s] = (self._began[s], now)
        for s in acting:
            self._began[s] = now
        self._key, self._acting = key, acting

    def heard(self, seat: int, body: Any, now: float) -> bool:
        """A clock note from ``seat``'s feed: told once, within its rate, when it is true here.

        Never our own (this client told its player already), never an event this
        version does not know, at most :data:`NOTE_BURST` at once per seat, one
        more a second (a modified peer's flood is dropped with a logged reason),
        and only as the class docstring says. ``True`` when told.
        """
        event = read_clock(body)
        if event is None:
            log.info("clock note from seat %s dropped: not a known event", seat)
            return False
        if seat == self.seat:
            return False
        self.saw(now)
        why = self._judge(seat, event, now)
        if why is not None:
            self.ignored[why[0]] += 1
            log.debug("clock note %r from seat %s ignored: %s", event, seat, why[1])
            return False
        bucket = self._buckets.get(seat)
        if bucket is None:
            bucket = self._buckets[seat] = Bucket(1.0, NOTE_BURST, now)
        if not bucket.take(now):
            log.info("clock note from seat %s dropped: too many at once", seat)
            return False
        self._auto[seat] = event == "auto"  # what this seat was told (a timeout: not on auto)
        seats = self._seats
        if 0 <= seat < len(seats):  # shown on its seat box to everyone, as a held seat is
            seats[seat].auto_play = event == "auto"
        nick = seats[seat].nick if 0 <= seat < len(seats) else str(seat)
        self._tell(Notice("play", note_text(event, nick)))
        return True

    def _judge(self, seat: int, event: str, now: float) -> tuple[str, str] | None:
        """Why ``seat``'s note ``event`` is not told: ``(kind, reason)``, or ``None``."""
        last = self._last.get(seat)
        if event == "timeout":
            why = self._ran_out(seat, now)
            self._last[seat] = (event, self._key, why is None)
            return why
        self._last[seat] = (event, self._key, True)
        clocks = event == "auto" and last is not None and last[:2] == ("timeout", self._key)
        if clocks and last is not None and not last[2]:  # the clock's auto-play, of a false run
            self._last[seat] = (event, self._key, False)
            return ("after a false timeout", "the timeout it follows was not told")
        if self._auto.get(seat) == (event == "auto"):
            return ("repeat", "this seat was told so already")
        return None

    def _ran_out(self, seat: int, now: float) -> tuple[str, str] | None:
        """Why a ``timeout`` from ``seat`` is not true here, or ``None`` (then its turn is
        claimed: one timeout per turn)."""
        if self._clock is None:
            return ("no clock", "this table has no clock")
        seats = self._seats
        if 0 <= seat < len(seats) and seats[seat].bot:
            return ("bot", "bots are not timed")
        turn = self._done.get(seat)
        if turn is None:
            return ("not its turn", "it has finished no turn since this seat looked")
        start, end = turn
        if self._claimed.get(seat) == start:
            return ("repeat", "its turn's timeout was told already")
        need = self._clock - self._grace
        if end - start < need:
            return (
                "too early",
                f"its turn ran {end - start:.1f} s here, the clock is {self._clock:g} s",
            )
        self._claimed[seat] = start
        return None


def turn_key(game: Any) -> object:
    """What changes when a turn begins, for anyone's turn (a move, a deal step, a new round).

    The seat-free part of the line mode's key (``ui/line_mode.py``): the acting
    client restarts its countdown at each change, and so does a seat that times
    another's turn (:meth:`ClockNotes.saw`).
    """
    r = game.round
    where = None if r is None else (r.round_no, r.turn)
    return (len(game.log), game.match.phase, where)


def lobby_frame_dropped(via: object = None) -> None:
    """A lobby-format frame during play: dropped.

    Clock notes were such frames before they joined the feed; a frame from
    an older client is no longer told (its author's feed is the one place
    a note is read from, so the record and every seat tell the same).
    """
    log.debug("a lobby frame during play dropped (from %s)", via)


def acting_human(session: TableSession) -> list[int]:
    """The seats whose turn it is and whom the clock counts: not this seat, not a bot,
    not a seat a bot holds (bots are not timed)."""
    game = session.game
    if game.view(session.seat) is None or game.finished():
        return []
    seats = game.decision_seats()
    out = []
    for s in sorted(set(seats)):
        info = session.info.seats[s] if s < len(session.info.seats) else None
        if s == session.seat or (info is not None and (info.bot or info.held_by_bot)):
            continue
        out.append(s)
    return out


@dataclass
class TurnClock:
    """When the current turn began, as this seat saw it, and the seconds left of it.

    ``seconds``: the table clock (``None``: no clock, nothing is counted).
    ``now``: a monotonic clock (tests pass their own).
    """

    seconds: float | None
    now: Callable[[], float] = time.monotonic
    key: object = None
    began: float | None = None

    def turn(self, key: object) -> None:
        """A turn key seen: a new one starts the count again."""
        if key != self.key:
            self.key = key
            self.began = self.now()

    def left(self) -> int | None:
        """Whole seconds left of the current turn (rounded up), ``None`` without a clock."""
        if self.seconds is None or self.began is None:
            return None
        return max(0, int(self.seconds - (self.now() - self.began) + 0.999))

    def others_text(self, session: TableSession, names: list[str]) -> str | None:
        """``Alice: 12 s left`` for the seats that act now (not this one), or ``None``."""
        left = self.left()
        seats = acting_human(session)
        if left is None or not seats:
            return None
        who = join_items(names[s] if s < len(names) else str(s) for s in seats)
        return _("{who}: {s} s left").format(who=who, s=left)
