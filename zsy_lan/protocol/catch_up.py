"""After a restart: what this seat must learn from the table before it signs again.

Why a module of its own: a restarted replica must never sign a second message
for a seq it already used, nor a move on a stale position the table already
replaced. Until the peers' ``have`` summaries show how far its own feed got it
is *mute*; if the table holds more of its messages than its record kept, it
stays mute for good (``RecordBehind``). Sans-IO: the time is passed in.
"""

from __future__ import annotations

from collections.abc import Mapping, Sized

from zsy_lan.protocol.events import Event, RecordBehind

__all__ = ["CatchUp"]

Have = Mapping[int, Mapping[int, tuple[int, str]]]  # peer -> author -> (seq, digest)


class CatchUp:
    """A replica's state after :meth:`~zsy_lan.protocol.replica.Replica.restore`."""

    def __init__(self, seat: int, wait: float) -> None:
        self.seat = seat
        self.wait = wait  # ``Timing.catch_up``: the longest own actions wait for the news
        self.resumed: float | None = None  # restored at this time: own actions wait to catch up
        # After a restore: how many own messages the record held, while this seat has not
        # yet learnt from the table how far its own feed got (it signs nothing until then).
        self.unconfirmed: int | None = None
        self.unconfirmed_since = 0.0
        self.behind = False  # the table holds own messages the record lost: never sign again

    def mute(self) -> bool:
        """True while this seat may sign nothing (see :meth:`own_feed_known`)."""
        return self.unconfirmed is not None or self.behind

    def unsure(self) -> str:
        """Why this seat signs nothing now, in a sentence."""
        if self.behind:
            return "this seat's record lacks messages the table holds: it signs nothing more"
        return "this seat is still learning from the table how far its own messages got"

    def own_feed_known(self, now: float, own: int, have: Have, out: list[Event]) -> bool:
        """True once the table told how far this seat's own feed (``own`` long here) got.

        That is every other seat's summary, or at least one once the wait has
        passed (a seat that is gone for good must not keep this one mute); no
        summary, no signing, however long. If the table holds more of our own
        messages than the record kept (a deleted journal, a lost tail),
        ``RecordBehind`` goes out once and this seat never signs again.
        """
        kept = self.unconfirmed
        assert kept is not None
        heard = {p: h[self.seat][0] for p, h in have.items() if self.seat in h}
        table_has = max([own, *heard.values()])
        if table_has > kept:
            self.behind = True
            self.unconfirmed = None
            out.append(RecordBehind(table_has, kept))
            return False
        if not heard:
            return False
        waited = now - self.unconfirmed_since >= self.wait
        if len(heard) < len(have) and not waited:
            return False
        self.unconfirmed = None
        return True

    def caught_up(self, now: float, have: Have, feeds: Mapping[int, Sized]) -> bool:
        """Some peer's summary is in and we hold all it has (in ``feeds``), or time is up."""
        assert self.resumed is not None
        if now - self.resumed >= self.wait:
            return True
        heard = [h for h in have.values() if h]
        if not heard:
            return False
        return all(len(feeds[a]) >= seq for h in heard for a, (seq, _) in h.items())
