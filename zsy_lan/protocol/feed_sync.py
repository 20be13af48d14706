"""Feeds, have and want: what each peer holds, what we asked for, what we resend.

docs/protocol.md, "Feeds, have and want". ZeroMQ does not guarantee delivery
across a reconnect, so a replica makes it reliable itself: peers exchange
short ``have`` summaries (last seq and digest per author), a gap is asked for
with a ``want`` (from the author, or any peer that has it: every message is
signed), and messages that arrive early wait in a bounded buffer until the gap
closes. Why a module of its own: this bookkeeping is the replica's transport
side, apart from ordering the feeds (the ledger) and from the game; it reads
the feeds it is given and never changes them. Sans-IO: the time is passed in.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from zsy_lan.protocol.envelope import MAX_WANT_SPAN, Envelope
from zsy_lan.protocol.events import Event, Rejected, Send
from zsy_lan.protocol.floods import Floods
from zsy_lan.protocol.timing import Timing

__all__ = ["BUFFER_WINDOW", "MAX_BUFFERED", "MAX_RESEND", "FeedSync"]

BUFFER_WINDOW = 256  # how far ahead of a gap an author's messages are kept
MAX_BUFFERED = 1024  # early messages kept in all, across authors
MAX_RESEND = 64  # frames sent back for one want


class _Feed(Protocol):
    base: int

    def __len__(self) -> int: ...

    def __getitem__(self, i: Any) -> Any: ...


@dataclass
class _Want:
    lo: int
    asked: float
    tries: int
    hi: int = 0  # the last seq asked for: the answer may still be on its way up to it


class FeedSync:
    """One replica's have/want bookkeeping and its buffer of early messages."""

    def __init__(
        self,
        seat: int,
        roster: Mapping[int, bytes],
        timing: Timing,
        stats: Counter[str],
        floods: Floods,
    ) -> None:
        self.seat = seat
        self.roster = roster
        self.peers = tuple(s for s in roster if s != seat)
        self.timing = timing
        self.stats = stats
        self.floods = floods
        self.have: dict[int, dict[int, tuple[int, str]]] = {p: {} for p in self.peers}
        self.wants: dict[int, _Want] = {}
        self.checks: dict[tuple[int, int, int], float] = {}
        self.answered: dict[tuple[int, int], tuple[int, int, float]] = {}
        self.buffer: dict[int, dict[int, Envelope]] = {s: {} for s in roster}
        self.buffered = 0
        self.last_heartbeat: float | None = None
        self.last_have: float | None = None
        self.have_sent: Mapping[str, Any] | None = None

    def summary_due(self, summary: Mapping[str, Any], now: float) -> str | None:
        """Which summary to send now: a periodic ``heartbeat``, a ``have`` on change, or None.

        A ``have`` goes out at most every ``have_min`` (each costs every peer a verify).
        """
        t = self.timing
        if self.last_heartbeat is None or now - self.last_heartbeat >= t.heartbeat:
            self.last_heartbeat = self.last_have = now
            self.have_sent = summary
            return "heartbeat"
        if summary != self.have_sent and (
            self.last_have is None or now - self.last_have >= t.have_min
        ):
            self.last_have = now
            self.have_sent = summary
            return "have"
        return None

    # -- what we hold, what they hold -------------------------------------------------

    def level(self, mine: Mapping[str, Sequence[Any]]) -> bool:
        """Every other seat's last summary shows exactly the feeds in ``mine``."""
        for p in self.peers:
            have = self.have[p]
            for author, (seq, digest) in mine.items():
                theirs = have.get(int(author))
                if theirs is None or (theirs[0], theirs[1]) != (seq, digest):
                    return False
        return True

    def heard(self, peer: int, summary: Mapping[str, Sequence[Any]]) -> None:
        """``peer``'s ``have`` (or heartbeat) summary came in."""
        have: dict[int, tuple[int, str]] = {}
        for key, (seq, digest) in summary.items():
            if int(key) in self.roster:
                have[int(key)] = (seq, digest)
        self.have[peer] = have

    def asked(self, author: int, seq: int) -> bool:
        """True when our open want for ``author`` covers ``seq`` (its answer is not a flood)."""
        want = self.wants.get(author)
        return want is not None and want.lo <= seq <= want.hi

    # -- early messages ------------------------------------------------------------------

    def keep(self, env: Envelope, next_seq: int) -> tuple[bool, Envelope | None]:
        """Keep an early message (bounded): (ask for the gap?, a different one for its seq)."""
        buffer = self.buffer[env.seat]
        other = buffer.get(env.seq)
        if other is not None:
            if other.digest == env.digest:
                self.stats["duplicates"] += 1
                return False, None
            return False, other
        if env.seq >= next_seq + BUFFER_WINDOW or self.buffered >= MAX_BUFFERED:
            self.stats["dropped_ahead"] += 1
        else:
            buffer[env.seq] = env
            self.buffered += 1
            self.stats["buffered"] += 1
        return True, None

    def next_kept(self, author: int, next_seq: int) -> Envelope | None:
        """The kept message that fills ``author``'s feed next, taken out of the buffer."""
        buffer = self.buffer[author]
        if next_seq not in buffer:
            return None
        self.buffered -= 1
        return buffer.pop(next_seq)

    def filed(self, author: int, next_seq: int) -> None:
        """``author``'s feed grew up to ``next_seq - 1``: a want it answered is closed."""
        want = self.wants.get(author)
        if want is not None and next_seq > want.hi:
            del self.wants[author]  # all of it came: the next gap may be asked for at once

    # -- wants in and out --------------------------------------------------------------

    def answer(self, env: Envelope, now: float, feeds: Mapping[int, _Feed]) -> list[Event]:
        """A peer's ``want``: the frames it asked for (bounded, deduplicated, rate-capped)."""
        author, lo, hi = env.body["author"], env.body["from"], env.body["to"]
        feed = feeds.get(author)
        if feed is None:
            return [Rejected(env.seat, f"want from seat {env.seat} names unknown seat {author}")]
        # The same want again before an honest peer would re-ask (want_retry) is
        # answered already: the frames are on their way.
        last = self.answered.get((env.seat, author))
        if last is not None and last[:2] == (lo, hi) and now - last[2] < self.timing.want_retry / 2:
            self.stats["wants_deduped"] += 1
            return []
        self.answered[(env.seat, author)] = (lo, hi, now)
        if lo <= feed.base:  # every seat applied those long ago: only records hold them
            self.stats["wants_retired"] += 1
            return []
        frames = [e.frame for e in feed[lo - 1 : min(hi, lo - 1 + MAX_RESEND)]]
        if frames:
            # A cost cap, not a verdict: a peer far behind may ask this much honestly
            # (it is slowed, not named; a want flood is named by the control bucket).
            n = self.floods.resend(env.seat, now, len(frames))
            if n < len(frames):  # the rest is asked for again after want_retry
                self.stats["resend_dropped"] += len(frames) - n
                frames = frames[:n]
        self.stats["resent"] += len(frames)
        return [Send(env.seat, f) for f in frames]

    def request(
        self,
        now: float,
        feeds: Mapping[int, _Feed],
        want: Callable[[int, int, int], bytes],
        only: int | None = None,
        peer: int | None = None,
    ) -> list[Event]:
        """Ask for gaps in authors' feeds and for messages whose digest a peer disputes.

        ``want(author, lo, hi)`` signs the control frame that asks.
        """
        out: list[Event] = []
        authors = (only,) if only is not None else tuple(self.roster)
        for author in authors:
            lo = len(feeds[author]) + 1
            known = [self.have[p].get(author, (0, ""))[0] for p in self.peers]
            buffered = self.buffer[author]
            best = max([*known, *buffered, 0])
            if best < lo:
                continue
            hi = min(best, lo + min(MAX_WANT_SPAN, MAX_RESEND) - 1)  # what one answer holds
            if buffered:
                hi = min(hi, min(buffered) - 1)
            if hi < lo:  # pragma: no cover - the buffer is drained whenever the gap closes
                continue
            # Not again while the answer to the last want may still be coming in: asking
            # each time one frame of it arrived made a responder resend frames already
            # on their way (and spent its rate allowance on them).
            last = self.wants.get(author)
            tries = 0
            if last is not None and last.lo <= lo <= last.hi:
                if now - last.asked < self.timing.want_retry:
                    continue
                tries = last.tries + 1  # unanswered: the next candidate peer
            holders = [p for p in self.peers if self.have[p].get(author, (0, ""))[0] >= lo]
            if author != self.seat and author not in holders:
                holders.insert(0, author)
            if not holders:
                holders = list(self.peers)
            if not holders:
                continue
            target = holders[tries % len(holders)]
            self.wants[author] = _Want(lo, now, tries, hi)
            self.stats["wants"] += 1
            out.append(Send(target, want(author, lo, hi)))
        # A peer that reports another digest for a seq we hold has seen a second version of it.
        for p in (peer,) if peer is not None else self.peers:
            for author, (seq, digest) in self.have[p].items():
                feed = feeds[author]
                if feed.base < seq <= len(feed) and feed[seq - 1].digest != digest:
                    key = (p, author, seq)
                    asked = self.checks.get(key)
                    if asked is not None and now - asked < self.timing.want_retry:
                        continue
                    self.checks[key] = now
                    self.stats["disputes"] += 1
                    out.append(Send(p, want(author, seq, seq)))
        return out
