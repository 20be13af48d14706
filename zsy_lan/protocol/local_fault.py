"""The classes of local fault a seat may name when it stops on its own (issue #25).

Why a module of its own: a seat whose disk fills, whose data folder turns
read-only or whose journal is damaged stops with a sentence of its own; the
other seats used to see only silence and, after the stall timeout, read that
seat "is withholding a move". The stopping seat now says why in its signed
``bye`` (``{"fault": KIND}``, docs/protocol.md, "Frames"), and only one of a
few short words travels: never the OS's text, a path or anything the
receiver would have to print. The receiver says it in its own language
(:mod:`zsy_lan.table.narration`); a word it does not know (a newer version's)
reads as :data:`LOCAL`, so a new class never makes an older seat refuse the
notice. Which class a storage failure is, is decided where the OS error is
(:func:`zsy_lan.record.store.storage_error`).

A notice proves nothing but the seat's own word: the signature says *that*
seat said it stopped. So it only lets the others treat that seat like one
that left, sooner (:meth:`zsy_lan.protocol.motions.Mover.wait`); it changes
no verdict about anything the seat signed.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = [
    "DISK_ERROR",
    "DISK_FULL",
    "KINDS",
    "LOCAL",
    "PLUGIN",
    "PROGRAM",
    "READ_ONLY",
    "RECORD_DAMAGED",
    "TOO_MANY_FILES",
    "fault_kind",
    "is_fault_word",
]

DISK_FULL = "disk-full"  # ENOSPC, EDQUOT
READ_ONLY = "read-only"  # EROFS, EACCES, EPERM: the data folder cannot be written
TOO_MANY_FILES = "too-many-files"  # EMFILE, ENFILE
DISK_ERROR = "disk-error"  # any other OS error (EIO...)
RECORD_DAMAGED = "record-damaged"  # the journal or transcript does not match the seat
PROGRAM = "program"  # a bug of this seat's program (the game failed)
PLUGIN = "plugin"  # a bug of a rules plugin on this seat (engine.errors.PluginError)
LOCAL = "local"  # a fault of its own this version cannot name (a newer version's word)

#: the words this version says; a receiver reads any other well-formed word as ``LOCAL``
KINDS = frozenset(
    {DISK_FULL, READ_ONLY, TOO_MANY_FILES, DISK_ERROR, RECORD_DAMAGED, PROGRAM, PLUGIN, LOCAL}
)

#: what a fault word may look like on the wire: short, lower-case, nothing to sanitise
_WORD = re.compile(r"[a-z][a-z-]{0,31}")


def is_fault_word(value: Any) -> bool:
    """True when ``value`` may stand in a ``bye``'s ``fault`` (a short lower-case word)."""
    return isinstance(value, str) and _WORD.fullmatch(value) is not None


def fault_kind(value: Any) -> str:
    """The class a received ``fault`` word names here: itself when known, else :data:`LOCAL`."""
    return value if value in KINDS else LOCAL
