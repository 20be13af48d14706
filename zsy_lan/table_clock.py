"""The table clock at a seat: whose countdown runs, and the clock's notes to the others.

The clock is a table setting (:mod:`.table_settings`): every seat knows the
same number of seconds, and every seat counts the turn of whoever is to act
from the moment it saw that turn begin. Only the acting seat's own client
acts on it: when its player's time runs out it plays the hint for them; after
two timeouts in the match it switches that seat to auto-play (托管) until the
player types or presses a key. Peers have no authority over another seat's
moves, so another seat's clock running out changes nothing by itself here; a
modified client that ignores its clock is handled like any slow seat, by the
table's ``void``/hold motions after their own timeout.

So that everyone reads the same story, the acting client tells the others
what its clock did with a *clock note*: a lobby-format frame (``kind``
``clock``) signed by the seat's identity, sent to every seat on the
encrypted mesh. Notes are outside the game: never in the transcript, the
state hash or a vote, and a lost one costs only a line of narration. A note
is shown only when its author holds a seat at this table, it names this
table, and its author has not sent more than :data:`NOTE_BURST` at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .i18n import _
from .lobby import LobbyError, open_lobby, seal_lobby
from .sanitize import clean
from .session import Notice

if TYPE_CHECKING:
    from .session import TableSession

log = logging.getLogger("zsy.clock")

__all__ = [
    "EVENTS",
    "NOTE_BURST",
    "ClockNotes",
    "TurnClock",
    "acting_human",
    "note_frame",
    "note_text",
    "read_note",
]

#: What a clock note can say: the hint was played for a timed-out player, the seat
#: went on auto-play, the player is back.
EVENTS = ("timeout", "auto", "back")
#: Clock notes shown from one seat at once, and regained one per second (a flood is dropped;
#: an honest seat sends at most two together: a timeout, then auto-play).
NOTE_BURST = 4.0
#: Seconds a note may take to reach one seat before it is given up.
NOTE_SEND_TIMEOUT = 1.0


def note_frame(identity: object, table: str, event: str) -> bytes:
    """A signed clock note: ``event`` (one of :data:`EVENTS`) at ``table``."""
    if event not in EVENTS:
        raise ValueError(f"unknown clock event {event!r}")
    return seal_lobby(identity, "clock", {"table": table, "event": event})  # type: ignore[arg-type]


def read_note(frame: bytes, keys: dict[int, bytes], table: str) -> tuple[int, str] | None:
    """``(seat, event)`` of a valid clock note at ``table`` (``keys``: seat -> identity key).

    ``None`` for anything else: a note by a key that holds no seat here, for
    another table, or with an event this version does not know.
    """
    try:
        msg = open_lobby(frame)
    except LobbyError:
        return None
    if msg.kind != "clock" or msg.body.get("table") != table:
        return None
    event = msg.body.get("event")
    seat = next((s for s, k in keys.items() if k == msg.author), None)
    if seat is None or event not in EVENTS:
        return None
    return seat, str(event)


def note_text(event: str, nick: str) -> str:
    """What the table reads about ``nick``'s clock (the seat's own client says it too)."""
    nick = clean(nick) or "?"
    if event == "timeout":
        return _("{name}'s time ran out: the hint was played").format(name=nick)
    if event == "auto":
        return _("{name} is on auto-play").format(name=nick)
    return _("{name} is back").format(name=nick)


class ClockNotes:
    """The clock notes of a :class:`~zsy_lan.peer.TablePeer` (a mixin, as its narration).

    It uses the peer's ``identity``, ``roster``, ``seat``, ``mesh``,
    ``_outboxes`` (the other seats), ``info`` and ``notices``.
    """

    _note_last: dict[int, tuple[float, float]]  # seat -> (notes it may send now, when)

    async def announce(self, event: str) -> None:
        """Tell every other seat what this seat's clock did (bounded; a gone seat is skipped)."""
        peer = self  # type: ignore[assignment]
        frame = note_frame(peer.identity, peer.roster.table, event)  # type: ignore[attr-defined]
        seats = list(peer._outboxes)  # type: ignore[attr-defined]
        sends = [
            peer.mesh.send(s, frame, timeout=NOTE_SEND_TIMEOUT)  # type: ignore[attr-defined]
            for s in seats
        ]
        with contextlib.suppress(Exception):
            await asyncio.wait_for(
                asyncio.gather(*sends, return_exceptions=True), NOTE_SEND_TIMEOUT + 0.5
            )

    def _on_note(self, frame: bytes, via: object = None) -> None:
        """A lobby-format frame during play: shown if it is a valid clock note, else dropped.

        ``via``: the seat whose direct link it came on (``int``), if known; a note
        that another seat passes on (an old one replayed) is not its author's news.
        """
        peer = self  # type: ignore[assignment]
        roster = peer.roster  # type: ignore[attr-defined]
        got = read_note(frame, roster.keys, roster.table)
        if got is None or got[0] == peer.seat:  # type: ignore[attr-defined]
            return
        seat, event = got
        if type(via) is int and via != seat:
            log.info("clock note of seat %s dropped: it came on seat %s's link", seat, via)
            return
        buckets = getattr(self, "_note_last", None)
        if buckets is None:
            buckets = self._note_last = {}
        now = time.monotonic()
        tokens, then = buckets.get(seat, (NOTE_BURST, now))
        tokens = min(NOTE_BURST, tokens + (now - then))
        if tokens < 1.0:
            log.info("clock note from seat %s dropped: too many at once", seat)
            return
        buckets[seat] = (tokens - 1.0, now)
        nick = peer.info.seats[seat].nick if seat < len(peer.info.seats) else str(seat)  # type: ignore[attr-defined]
        peer.notices.put_nowait(Notice("play", note_text(event, nick)))  # type: ignore[attr-defined]


def acting_human(session: TableSession) -> list[int]:
    """The seats whose turn it is and whom the clock counts: not this seat, not a bot,
    not a seat a bot holds (bots are not timed)."""
    game = session.game
    if game.view(session.seat) is None or game.finished():
        return []
    seats = getattr(game, "decision_seats", game.actors)()
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
        who = ", ".join(names[s] if s < len(names) else str(s) for s in seats)
        return _("{who}: {s} s left").format(who=who, s=left)
