"""The clock note's format: what a seat's client tells the others its clock did.

A clock note is a chat message of its author's feed whose body is ``{"clock": EVENT}``
(why a chat body: :mod:`zsy_lan.table.clock`, which sends and counts them). Why a
module of its own (issue #23): the seat that signs a note, the seat that reads it,
the spectator's follower and ``zsy replay``'s retelling all read the same format;
it lives below all of them, so a record reader needs nothing of the seated peer.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from zsy_lan.protocol.table_settings import TableSettings
from zsy_lan.text.i18n import _
from zsy_lan.text.sanitize import clean

__all__ = ["EVENTS", "RecordNotes", "clock_body", "is_clock", "note_text", "read_clock"]

#: What a clock note can say: the hint was played for a timed-out player, the seat
#: went on auto-play, the player is back.
EVENTS = ("timeout", "auto", "back")


def clock_body(event: str) -> dict[str, str]:
    """The chat body of a clock note: ``{"clock": event}`` (``event`` one of :data:`EVENTS`)."""
    if event not in EVENTS:
        raise ValueError(f"unknown clock event {event!r}")
    return {"clock": event}


def read_clock(body: Any) -> str | None:
    """The event of a chat body that is a clock note, else ``None``.

    Judged here, on the reader's side (the envelope takes any chat body up to 2 KiB):
    exactly ``{"clock": EVENT}`` with an event this version knows. A body with
    more keys or another event is not a note (and not a chat line either: the
    chat reader drops it with its reason).
    """
    if not isinstance(body, Mapping) or set(body) != {"clock"}:
        return None
    event = body["clock"]
    return event if isinstance(event, str) and event in EVENTS else None


def is_clock(body: Any) -> bool:
    """True for a chat body of the clock kind, known event or not (never shown as chat)."""
    return isinstance(body, Mapping) and "clock" in body


def note_text(event: str, nick: str) -> str:
    """What the table reads about ``nick``'s clock (the seat's own client says it too)."""
    nick = clean(nick) or "?"
    if event == "timeout":
        return _("{name}'s time ran out: the hint was played").format(name=nick)
    if event == "auto":
        return _("{name} is on auto-play").format(name=nick)
    return _("{name} is back").format(name=nick)


class RecordNotes:
    """Which clock notes of a record its readers tell (``zsy replay``, ``zsy watch``).

    A seat at the table judges another's note by its own clock and view of the
    turn (:class:`zsy_lan.table.clock.ClockNotes`, issue #25). A record keeps no
    reader's clock, so how long a turn ran cannot be checked there; what can be:
    at a table without a clock (``clocked`` False: the header's settings) no
    ``timeout`` is true, nor the clock's ``auto`` right after one. Those are
    dropped (the record still keeps and verifies them: they are signed); the
    rest are told as recorded.
    """

    def __init__(self, clocked: bool) -> None:
        self.clocked = clocked
        self._last: dict[int, str] = {}  # seat -> its last note's event

    def tells(self, seat: int, event: str) -> bool:
        """``seat``'s next note in the record, ``event``: told (``True``) or dropped."""
        last, self._last[seat] = self._last.get(seat), event
        if self.clocked:
            return True
        return event != "timeout" and not (event == "auto" and last == "timeout")

    @classmethod
    def of(cls, meta: Mapping[str, Any]) -> RecordNotes:
        """The filter for a record whose header's game block is ``meta``."""
        try:
            clock = TableSettings.from_json(meta.get("settings")).clock
        except ValueError:
            clock = None  # settings that do not parse: no clock to have run out
        return cls(clock is not None)
