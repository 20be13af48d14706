"""The transcript file this replica wrote: what is on disk, and where a rewind cuts it.

Why a module of its own: a replica hands out ``Transcribed`` and ``Aside``
lines for the shell to append, and after a restart (or a rebuild after a
motion) it must neither write a line twice nor leave a line that the feeds
now order differently: it compares each new line with what the file holds
and, on the first difference, tells the shell to cut the file back
(``Rewound``) before writing on (docs/protocol.md, "The record").
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

from zsy_lan.protocol.envelope import Envelope, open_frame
from zsy_lan.protocol.events import Aside, Event, Rejected, Rewound, Transcribed
from zsy_lan.protocol.transcript_format import load_entry, load_header

__all__ = ["WrittenRecord", "read_record"]


def read_record(
    record: Callable[[], Iterable[str]] | None, table: str, roster: Mapping[int, bytes]
) -> list[tuple[bool, bytes, Envelope]] | None:
    """The transcript file's body as (aside?, frame, envelope), from ``record``; None if bad.

    Every message a retire dropped was written there first (it drops only
    what the record holds), and each author's lines come in seq order.
    """
    if record is None:
        return None
    try:
        lines = [line for line in record() if line.strip()]
        if not lines or load_header(lines[0]) != (table, roster):
            return None
        out = []
        for line in lines[1:]:
            _, frame, aside = load_entry(line)
            out.append((aside, frame, open_frame(frame, roster, table)))
    except Exception:  # noqa: BLE001 - the shell's reader failed, or the file is damaged
        return None
    return out


class WrittenRecord:
    """The lines of the transcript file body, as (aside?, frame), and a pending rewind reason."""

    def __init__(self) -> None:
        self.lines: list[tuple[bool, bytes]] = []
        self.cleared = 0  # lines already forgotten (retired from memory)
        self.rewind_reason: str | None = None

    def load(
        self, lines: list[str], table: str, roster: Mapping[int, bytes]
    ) -> tuple[list[Event], bool]:
        """Take the saved file's lines (header first): (complaints, usable?)."""
        out: list[Event] = []
        saved: list[tuple[bool, bytes]] = []
        if lines:
            try:
                header = load_header(lines[0])
            except ValueError as exc:
                return [Rejected(None, f"saved transcript: {exc}")], False
            if header != (table, roster):
                wrong = "saved transcript belongs to another table or roster"
                return [Rejected(None, wrong)], False
            for n, line in enumerate(lines[1:], start=2):
                try:
                    _, frame, aside = load_entry(line)
                except ValueError as exc:
                    out.append(Rejected(None, f"saved transcript line {n}: {exc}"))
                    break
                saved.append((aside, frame))
        self.lines = saved
        return out, True

    def check(self, event: Transcribed | Aside, out: list[Event]) -> None:
        """Pass ``event`` on unless the file holds that very line; rewind on a difference."""
        disk = self.lines
        if event.pos < len(disk):
            if disk[event.pos] == (isinstance(event, Aside), event.frame):
                return
            reason = self.rewind_reason or (
                f"saved transcript line {event.pos + 2} disagrees with the feeds"
            )
            self.rewind_reason = None
            del disk[event.pos :]
            out.append(Rewound(event.pos, reason))
        out.append(event)

    def forget(self, gone: int) -> None:
        """The first ``gone`` lines left memory: they are compared no more."""
        disk = self.lines
        for i in range(self.cleared, min(gone, len(disk))):
            disk[i] = (False, b"")  # compared only for lines still to come
        self.cleared = max(self.cleared, min(gone, len(disk)))
