"""The one token bucket: every rate limit in zsy-lan (chat, replica floods, the relay).

Sans-IO like the rest of the protocol: the time is passed in, never read, so a
limit is the same in a test, a replay and at a table. A bucket holds at most
``burst`` tokens and gains ``rate`` a second; it starts full. Time never runs
backwards for it: an earlier ``now`` than the last one refills nothing.

Floats are fine here: a bucket only decides whether this peer admits, shows or
forwards a frame now (liveness, the log, the screen). Nothing it returns enters
a transcript, a state hash or a record, so no replica's state depends on it.
"""

from __future__ import annotations

__all__ = ["Bucket", "take_all"]


class Bucket:
    """``rate`` tokens a second, at most ``burst`` saved up; starts full at ``now``."""

    __slots__ = ("rate", "burst", "tokens", "at")

    def __init__(self, rate: float, burst: float, now: float) -> None:
        self.rate, self.burst, self.tokens, self.at = rate, burst, burst, now

    def _level(self, now: float) -> float:
        """The tokens there would be at ``now`` (an earlier ``now`` earns nothing)."""
        return min(self.burst, self.tokens + max(0.0, now - self.at) * self.rate)

    def refill(self, now: float) -> float:
        """Add what the time since the last call earned (capped at ``burst``); the tokens now."""
        if now > self.at:
            self.tokens = self._level(now)
            self.at = now
        return self.tokens

    def take(self, now: float, cost: float = 1.0) -> bool:
        """Spend ``cost`` tokens if they are all there (else spend nothing)."""
        if self.refill(now) >= cost:
            self.tokens -= cost
            return True
        return False

    def grant(self, now: float, n: int = 1) -> int:
        """Spend up to ``n`` whole tokens; how many there were (a partial answer is useful)."""
        got = min(n, int(self.refill(now)))
        self.tokens -= got
        return got

    def pause(self, seconds: float, now: float) -> None:
        """``seconds`` in which the owner did not listen earn nothing (never past ``now``).

        A host whose loop stalled reads the frames of that time in one burst: the
        stall is not the sender's, so it is not charged as silence, and not paid
        out as tokens either.
        """
        self.at = min(now, self.at + seconds)

    def wait(self, now: float) -> float:
        """Seconds until one token is there (0 when one is now); spends and refills nothing."""
        tokens = self._level(now)
        return 0.0 if tokens >= 1.0 else (1.0 - tokens) / self.rate


def take_all(now: float, *costs: tuple[Bucket, float]) -> bool:
    """Spend each ``(bucket, cost)`` only if every bucket has its cost (frames and bytes)."""
    if all([bucket.refill(now) >= cost for bucket, cost in costs]):  # every one refilled
        for bucket, cost in costs:
            bucket.tokens -= cost
        return True
    return False

