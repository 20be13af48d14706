"""The host's log of refused guests, kept short under a brute-force try (issue #25).

Each wrong invite secret wrote one log line: a guest guessing secrets as fast as
the lobby answers filled the host's log at about 23 KB/s. The refused guest still
gets its clear refusal at once (the lobby answers every join); only the log is
summarised here:

* per source (the guest's address where the mesh knows it, else its key's
  fingerprint), the first :data:`FIRST` refusals of an interval are logged one by
  one, as before;
* the rest are counted, and when the interval (:data:`EVERY` seconds) is over
  one line per source and reason says how many: "57 more wrong invite secrets
  from 10.0.0.7 in the last minute";
* at most :data:`LINES` single lines an interval in all and :data:`SOURCES`
  sources counted apart (the rest are pooled as "other sources"), so fresh keys
  or addresses do not buy a brute force its lines back.

Nothing here reads a clock or does I/O but the log: the lobby passes the time.
"""

from __future__ import annotations

import logging
from collections import Counter
from typing import Any

from zsy_lan.protocol.table_settings import INVITE_REFUSAL
from zsy_lan.text.sanitize import clean

__all__ = ["EVERY", "FIRST", "LINES", "OTHERS", "SOURCES", "RefusalLog", "refusal_source"]

log = logging.getLogger("zsy.table")  # the host's lobby log (table/hosting.py)

#: Refusals of one source logged one by one in an interval.
FIRST = 3
#: The interval, in seconds: each ends with one summary line per source and reason.
EVERY = 60.0
#: Single refusal lines in one interval, all sources together.
LINES = 20
#: Sources counted apart in one interval; the rest are pooled under :data:`OTHERS`.
SOURCES = 32
OTHERS = "other sources"


class RefusalLog:
    """Logs the lobby's refusals: the first few per source, then a count per interval."""

    def __init__(
        self,
        logger: logging.Logger | None = None,
        *,
        first: int = FIRST,
        every: float = EVERY,
        lines: int = LINES,
        sources: int = SOURCES,
    ) -> None:
        self.log = logger if logger is not None else log
        self.first, self.every, self.lines, self.sources = first, every, lines, sources
        self.since: float | None = None  # when the current interval began
        self._logged: Counter[str] = Counter()  # source -> single lines this interval
        self._hidden: Counter[tuple[str, str]] = Counter()  # (source, reason) -> not logged
        #: Every refusal seen, logged or counted (for a test, a status line).
        self.total = 0

    def refused(self, reason: str, source: str, now: float) -> bool:
        """A guest from ``source`` was refused for ``reason`` (English, a msgid) at ``now``.

        ``True`` when it was logged line by line (the caller may log its details),
        ``False`` when it was only counted for the interval's summary.
        """
        self.flush(now)
        if self.since is None:
            self.since = now
        self.total += 1
        source = clean(source, 80) or "?"
        if (
            self._logged[source] < self.first
            and sum(self._logged.values()) < self.lines
            and (source in self._logged or len(self._logged) < self.sources)
        ):
            self._logged[source] += 1
            self.log.info("lobby: refused a player from %s: %s", source, reason)
            return True
        known = {s for s, _r in self._hidden} | set(self._logged)
        if source not in known and len(known) >= self.sources:
            source = OTHERS
        self._hidden[(source, reason)] += 1
        return False

    def flush(self, now: float, *, force: bool = False) -> None:
        """End the interval if it is over (``force``: now, the lobby closes): one line per
        source and reason not logged."""
        if self.since is None or (now - self.since < self.every and not force):
            return
        for (source, reason), n in sorted(self._hidden.items()):
            self.log.info("lobby: %s", summary(n, reason, source, self.every))
        self.since = None
        self._logged.clear()
        self._hidden.clear()


def summary(n: int, reason: str, source: str, every: float) -> str:
    """``57 more wrong invite secrets from 10.0.0.7 in the last minute`` (the log's English)."""
    span = "the last minute" if every == 60 else f"the last {every:g} s"
    if reason == INVITE_REFUSAL:
        what = "wrong invite secret" if n == 1 else "wrong invite secrets"
    else:
        what = f"{'refusal' if n == 1 else 'refusals'} ({reason})"
    return f"{n} more {what} from {source} in {span}"


def refusal_source(mesh: Any, peer_id: Any) -> str:
    """Where a refused guest came from: its address where the mesh knows it
    (``Mesh.guest_address``), else its key's first characters (a guest keeps one key
    per connection)."""
    key = peer_id.public_key
    return mesh.guest_address(key) or f"key {key.hex()[:12]}"
