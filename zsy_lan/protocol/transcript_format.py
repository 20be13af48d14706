"""The transcript file's lines: one feed message per line, and the header line.

Why apart from :mod:`.transcript`: the replica's events (a ``Record`` or an
``Aside`` turns itself into the line the shell appends) need only this format,
while the transcript's verifier needs the ledger, which needs the events; with
the format here the events import it and nothing loops back. The format itself
is described in :mod:`.transcript`.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Mapping

from zsy_lan.protocol.canonical import canonical, decode

FORMAT_VERSION = 1


def dump_line(seat: int, frame: bytes, *, aside: bool = False) -> str:
    """One transcript line (no trailing newline) for a message by ``seat``.

    ``aside=True`` marks a transcript-neutral message kept for the record (a
    vote, a return, a message a motion voided): outside the hash chain.
    """
    obj: dict[str, object] = {"seat": seat, "frame": base64.b64encode(frame).decode("ascii")}
    if aside:
        obj["aside"] = True
    return canonical(obj).decode()


def load_entry(line: str) -> tuple[int, bytes, bool]:
    """Inverse of :func:`dump_line`: (seat, frame, aside); ``ValueError`` on anything else."""
    obj = decode(line.strip().encode())
    if not isinstance(obj, dict) or set(obj) - {"aside"} != {"seat", "frame"}:
        raise ValueError("a transcript line has exactly seat and frame (and maybe aside)")
    aside = obj.get("aside", False)
    if aside is not True and "aside" in obj:
        raise ValueError("aside, when present, is true")
    seat, frame = obj["seat"], obj["frame"]
    if not isinstance(seat, int) or isinstance(seat, bool) or not isinstance(frame, str):
        raise ValueError("seat must be an int and frame a base64 string")
    try:
        return seat, base64.b64decode(frame, validate=True), bool(aside)
    except binascii.Error as exc:
        raise ValueError(f"bad base64: {exc}") from None


def load_line(line: str) -> tuple[int, bytes]:
    """(seat, frame) of a transcript line, chain or aside alike (see :func:`load_entry`)."""
    seat, frame, _ = load_entry(line)
    return seat, frame


def header_line(table: str, roster: Mapping[int, bytes]) -> str:
    """The first line of a transcript file: table id and roster, so the file is self-contained."""
    return canonical(
        {
            "zsy_transcript": FORMAT_VERSION,
            "table": table,
            "roster": {str(s): k.hex() for s, k in sorted(roster.items())},
        }
    ).decode()


def load_header(line: str) -> tuple[str, dict[int, bytes]]:
    """Parse a header line into (table, roster)."""
    obj = decode(line.strip().encode())
    if not isinstance(obj, dict) or obj.get("zsy_transcript") != FORMAT_VERSION:
        raise ValueError("not a zsy transcript header (version 1)")
    table, roster = obj.get("table"), obj.get("roster")
    if not isinstance(table, str) or not isinstance(roster, dict):
        raise ValueError("header needs a table id and a roster")
    try:
        return table, {int(s): bytes.fromhex(k) for s, k in roster.items()}
    except (ValueError, TypeError) as exc:
        raise ValueError(f"bad roster in header: {exc}") from None
