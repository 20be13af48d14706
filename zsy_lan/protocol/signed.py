"""Signed frames outside the game feeds: ``MAGIC + canonical JSON + Ed25519 signature``.

The lobby (joins, the roster) and the spectators' desk (watch requests) each
speak a few such messages under their own magic. They share one encoding and
one check, verify first and parse after, so a fix to either reaches both.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

from zsy_lan.protocol.canonical import canonical, decode
from zsy_lan.protocol.identity import Identity, verify
from zsy_lan.text.sanitize import clean

SIGNATURE_SIZE = 64


def seal_signed(magic: bytes, identity: Identity, kind: str, body: Mapping[str, Any]) -> bytes:
    """Encode ``{kind, author, body}`` after ``magic`` and sign the exact bytes."""
    payload = {"kind": kind, "author": identity.public_key.hex(), "body": dict(body)}
    head = magic + canonical(payload)
    return head + identity.sign(head)


def open_signed(
    frame: bytes, magic: bytes, kinds: Collection[str], max_size: int, what: str
) -> tuple[str, bytes, dict[str, Any]]:
    """Check size, magic and signature, then parse: ``(kind, author key, body)``.

    Raises ``ValueError`` with one sentence naming ``what`` (e.g. "lobby
    frame"); anything taken from the frame in that sentence is cleaned.
    """
    if len(frame) > max_size:
        raise ValueError(f"oversized {what} ({len(frame)} bytes)")
    if not frame.startswith(magic) or len(frame) < len(magic) + 2 + SIGNATURE_SIZE:
        raise ValueError(f"not a {what}")
    head, sig = frame[:-SIGNATURE_SIZE], frame[-SIGNATURE_SIZE:]
    try:
        data = decode(head[len(magic) :])
        author = bytes.fromhex(data["author"])
        kind, body = data["kind"], data["body"]
    except (ValueError, KeyError, TypeError) as exc:
        raise ValueError(f"malformed {what}: {exc}") from None
    if len(author) != 32 or not verify(author, sig, head):
        raise ValueError(f"bad signature on a {what}")
    if not isinstance(kind, str) or kind not in kinds or not isinstance(body, dict):
        raise ValueError(f"unknown {what.replace(' frame', '')} message {clean(str(kind), 16)!r}")
    return kind, author, body
