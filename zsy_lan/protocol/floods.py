"""Flood limits per sender: what a replica admits before it checks a signature.

docs/protocol.md, "Rate limits". Why a module of its own: a replica must stay
cheap under a flood (a frame over the limit costs a hash and a byte compare,
never a verify), and the allowances, the buckets (the one
:class:`~zsy_lan.protocol.bucket.Bucket`) and the naming of an episode
(``Flooding``, once per episode) are one concern apart from ordering the
feeds. Sans-IO: the time is passed in.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

from zsy_lan.protocol.bucket import Bucket
from zsy_lan.protocol.envelope import CONTROL_TYPES, peek_seat
from zsy_lan.protocol.events import Event, Flooding
from zsy_lan.protocol.identity import SIGNATURE_SIZE

__all__ = [
    "CONTROL_BURST",
    "CONTROL_RATE",
    "FLOOD_QUIET",
    "RESEND_BURST",
    "RESEND_RATE",
    "VOTE_BURST",
    "VOTE_RATE",
    "VOTE_TYPES",
    "Floods",
    "is_control",
    "is_vote",
    "peek_seq",
]

# Flood limits, per sender (docs/protocol.md, "Rate limits"). An honest peer sends
# about 3 control frames a second (a heartbeat, at most 2 have summaries) and, while
# it catches up, at most one want per author per tick (10/s per author it lacks):
# a 6-seat catch-up stays under 70/s. The bucket allows 100/s with 2 s of burst.
CONTROL_RATE = 100.0  # control frames (hello, have, heartbeat, want) a second, kept up
CONTROL_BURST = 200.0  # control frames at once
RESEND_RATE = 2000.0  # frames a second sent back to one peer in answer to its wants
RESEND_BURST = 4000.0  # a whole match's worth at once, for a peer catching up
FLOOD_QUIET = 10.0  # a flooding episode ends after this long without excess
# Votes, returns and releases are feed messages outside the game: an honest seat signs
# a handful per motion, a modified one could sign thousands a second (each kept in its
# feed, a return even in a list). Per author (their signature is checked first: the
# author is proven, never a link's claim), beyond this they are dropped unfiled, like
# excess control frames; frames this replica asked for (a want's range) are exempt.
VOTE_RATE = 20.0  # votes, returns, releases a second from one author, kept up
VOTE_BURST = 100.0  # at once
# Chat messages (zsy_lan.protocol.chat) are feed messages outside the game too: the same allowance
# (an honest seat says a line every few seconds at most; its UI refuses faster).
VOTE_TYPES = frozenset({"motion", "return", "release", "chat"})
_CONTROL_TAILS = tuple(f'"type":"{t}"}}'.encode() for t in sorted(CONTROL_TYPES))
_VOTE_TAILS = tuple(f'"type":"{t}"}}'.encode() for t in sorted(VOTE_TYPES))
_SEQ_FIELD = b',"seq":'


def is_control(frame: bytes) -> bool:
    """The frame claims a control type (unauthenticated: canonical JSON ends with it)."""
    return frame.endswith(_CONTROL_TAILS, 0, len(frame) - SIGNATURE_SIZE)


def is_vote(frame: bytes) -> bool:
    """The frame claims a vote, return, release or chat type (unauthenticated)."""
    return frame.endswith(_VOTE_TAILS, 0, len(frame) - SIGNATURE_SIZE)


def peek_seq(frame: bytes) -> int | None:
    """The seq a frame claims, unauthenticated (canonical JSON: the last ``"seq"`` field)."""
    at = frame.rfind(_SEQ_FIELD, 0, len(frame) - SIGNATURE_SIZE)
    if at < 0:
        return None
    start = at + len(_SEQ_FIELD)
    end = frame.find(b",", start, start + 21)
    digits = frame[start:end] if end > start else b""
    return int(digits) if digits.isdigit() else None


@dataclass
class _Flood:
    """One sender's current flooding episode: control frames counted, when it was named."""

    since: float
    last: float  # the latest excess
    count: int = 0  # control frames from the sender since ``since``
    said: bool = False


class Floods:
    """Per sender: control frames in, votes in, frames resent out; episodes named once."""

    def __init__(self, stats: Counter[str]) -> None:
        self.stats = stats
        self.control_in: dict[int, Bucket] = {}
        self.votes_in: dict[int, Bucket] = {}  # per author: votes, returns, releases
        self.resend_out: dict[int, Bucket] = {}
        self.episodes: dict[int, _Flood] = {}

    def screen(
        self, frame: bytes, via: int | None, now: float, vote_ok: Callable[[int, int, float], bool]
    ) -> tuple[list[Event] | None, bool]:
        """Before the signature check: (the excess, if ``frame`` is dropped; a vote charged?).

        ``via`` is the seat whose authenticated link (CURVE) the frame came on,
        when the shell knows it: a control frame is charged to it (else to the
        seat it claims); a vote, return, release or chat line on its author's
        own link is charged to the author whatever the signature turns out to be
        (``vote_ok(author, seq, now)`` applies the allowance and its exemptions).
        """
        if is_control(frame):
            sender = via if via is not None else peek_seat(frame)
            if sender is not None and not self.admit(sender, now):
                return self.excess(sender, now), False
        if via is not None and peek_seat(frame) == via and is_vote(frame):
            seq = peek_seq(frame)
            if seq is not None:
                if not vote_ok(via, seq, now):
                    return self.excess(via, now), True
                return None, True
        return None, False

    def admit(self, sender: int, now: float) -> bool:
        """Take one control frame from ``sender`` out of its bucket."""
        return self._take(sender, now, self.control_in, CONTROL_RATE, CONTROL_BURST)

    def admit_vote(self, author: int, now: float) -> bool:
        """Take one vote, return, release or chat message by ``author`` out of its bucket."""
        return self._take(author, now, self.votes_in, VOTE_RATE, VOTE_BURST)

    def resend(self, peer: int, now: float, n: int) -> int:
        """How many of ``n`` frames may go back to ``peer`` now (a cost cap, not a verdict)."""
        bucket = self.resend_out.get(peer)
        if bucket is None:
            bucket = self.resend_out[peer] = Bucket(RESEND_RATE, RESEND_BURST, now)
        return bucket.grant(now, n)

    def _take(
        self, sender: int, now: float, buckets: dict[int, Bucket], rate: float, burst: float
    ) -> bool:
        bucket = buckets.get(sender)
        if bucket is None:
            bucket = buckets[sender] = Bucket(rate, burst, now)
        flood = self.episodes.get(sender)
        if flood is not None:
            flood.count += 1
        return bucket.grant(now) == 1

    def excess(self, sender: int, now: float) -> list[Event]:
        """``sender`` went over a limit: its excess is dropped; named once per episode."""
        self.stats["flood_dropped"] += 1
        flood = self.episodes.get(sender)
        if flood is None or now - flood.last > FLOOD_QUIET:
            flood = self.episodes[sender] = _Flood(now, now, 1)
        flood.last = now
        return self._name(sender, flood, now)

    def tick(self, now: float) -> list[Event]:
        """End the episodes quiet for ``FLOOD_QUIET``; name those that lasted a second."""
        out: list[Event] = []
        for sender, flood in list(self.episodes.items()):
            if now - flood.last > FLOOD_QUIET:
                del self.episodes[sender]  # the episode is over; another one is named again
            elif not flood.said:
                out += self._name(sender, flood, now)
        return out

    def _name(self, sender: int, flood: _Flood, now: float) -> list[Event]:
        """One ``Flooding`` per episode, once it has lasted a second (its rate is measured)."""
        if flood.said or now - flood.since < 1.0:
            return []
        flood.said = True
        return [Flooding(sender, round(flood.count / (now - flood.since)))]
