"""What a seat's local fault is, in a player's words (issue #25).

A seat that stops on its own disk (full, read-only, a damaged record) or on a
bug of its program says so in its signed ``bye`` with one short word
(:mod:`zsy_lan.protocol.local_fault`). The other seats say that word here, in
their own language: nothing of what the stopping seat sent is shown but the
choice of one of these phrases, so there is nothing to sanitise.
"""

from __future__ import annotations

from zsy_lan.protocol.local_fault import (
    DISK_ERROR,
    DISK_FULL,
    LOCAL,
    PLUGIN,
    PROGRAM,
    READ_ONLY,
    RECORD_DAMAGED,
    TOO_MANY_FILES,
)
from zsy_lan.text.i18n import N_, _

__all__ = ["fault_why"]

#: each fault class, as the clause after "seat 1 (bob) stopped: "
_WHY = {
    DISK_FULL: N_("its disk is full"),
    READ_ONLY: N_("its data folder cannot be written"),
    TOO_MANY_FILES: N_("it has too many files open"),
    DISK_ERROR: N_("its disk failed"),
    RECORD_DAMAGED: N_("its saved record of this table is damaged"),
    PROGRAM: N_("its program failed (a bug)"),
    PLUGIN: N_("a rules plugin failed on its computer (a bug of that plugin)"),
    LOCAL: N_("a fault on its own computer"),
}


def fault_why(kind: str) -> str:
    """The clause for fault class ``kind`` in this seat's language (an unknown one: generic)."""
    return _(_WHY.get(kind, _WHY[LOCAL]))
