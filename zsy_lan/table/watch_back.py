"""A spectator whose host left mid-match waits for it to resume, then follows on.

Why a module of its own (issue #26): a host that quits and comes back with
``zsy join`` keeps its table (same address, same key, its desk reopened:
:func:`zsy_lan.table.spectator_desk.reopen_desk`), but its spectators stopped
at its ``bye`` and had to type ``zsy watch`` again. Now ``zsy watch`` waits
(:class:`HostAway`, at most :data:`~zsy_lan.table.watch_frames.HOST_BACK_WAIT`),
asks the returned host to watch again, and takes its record from where it
stopped: the new desk sends it from the start, and :func:`unseen` drops the
lines this spectator already verified, so nothing is told twice.
"""

from __future__ import annotations

from dataclasses import dataclass

from zsy_lan.table.watch_frames import PING_EVERY

__all__ = ["HostAway", "unseen"]


@dataclass
class HostAway:
    """The host left at ``since`` (monotonic s); it is waited for until ``since + limit``."""

    since: float
    limit: float
    asked: bool = False  # the returned host asks its player to accept us again (``ask``)
    last_request: float = float("-inf")

    def expired(self, now: float) -> bool:
        """True once the host has been away longer than this spectator waits."""
        return now - self.since >= self.limit

    def request_due(self, now: float) -> bool:
        """True when the watch request is to be sent again (once per ping interval)."""
        if now - self.last_request < PING_EVERY:
            return False
        self.last_request = now
        return True

    def unsent(self) -> None:
        """The request did not leave (the host's link was still down): due again at once.

        A host that resumed at the very end of its match lingers only briefly
        before it closes; a request held back a whole ping interval after the
        link came back could find it gone, and the spectator would wait in vain.
        """
        self.last_request = float("-inf")


def unseen(lines: list[object], at: int, expected: int) -> list[object] | None:
    """The lines of a batch starting at byte ``at`` that lie at or past ``expected``.

    A returned host's desk sends its record again from the start; the batches up
    to what this spectator holds are skipped line by line. ``None``: no line of
    the batch starts at ``expected`` (it ends before, or the record differs).
    """
    pos = at
    for i, line in enumerate(lines):
        if pos == expected:
            return lines[i:]
        if pos > expected or not isinstance(line, str):
            return None
        pos += len(line.encode("utf-8")) + 1
    return [] if pos == expected else None

