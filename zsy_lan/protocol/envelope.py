"""Signed envelopes: the only thing replicas ever send each other.

Wire form of one frame (one ZeroMQ message part)::

    b"ZSY\\x01" | seat (1 byte) | payload (canonical JSON) | Ed25519 signature (64 bytes)

The signature covers everything before it, byte for byte. A receiver reads the
seat from the fixed header, verifies the signature with that seat's roster key
over the exact bytes received, and only then parses the payload: nothing
unauthenticated is ever parsed, and nothing is re-encoded to be verified.
The payload must also be canonical JSON, so one message has one byte form.

Payload fields: ``table`` (table id), ``seq`` (the sender's feed number),
``prev`` (digest of the sender's previous feed message), ``state`` (public
state hash the message acts on), ``type`` and ``body`` (a JSON object).

Feed messages (``commit``, ``reveal``, ``action``, for motions
``motion``, ``return``, ``proxy``, ``release``, and ``chat``) are numbered 1, 2, 3... per
sender and chained by ``prev``; they are stored and relayed. ``motion``,
``return`` and ``chat`` are transcript-neutral (see :mod:`.ledger`). A chat
body is any object here up to :data:`MAX_CHAT_BODY` bytes: :mod:`zsy_lan.protocol.chat`
judges it where it is shown, so a bad one is dropped there instead of leaving a
gap in its author's feed; only a body no honest client signs (over the cap) is
refused here, so that it is kept in nobody's record. Control
messages (``hello``, ``have``, ``want``, ``heartbeat``, ``bye``) are not part of any
feed: they carry ``seq`` 0 and ``prev`` "" and are never relayed. A ``bye`` body is
empty (the player left) or ``{"fault": KIND}`` (the seat stopped on a local fault
of that class, :mod:`zsy_lan.protocol.local_fault`).

The digest of a message is SHA-256 of its signed part (without the signature),
so a re-encoded signature can never make "another" message.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from zsy_lan.protocol.canonical import canonical, decode, sha256_hex
from zsy_lan.protocol.identity import SIGNATURE_SIZE, Identity, verify
from zsy_lan.protocol.local_fault import is_fault_word

__all__ = [
    "MAGIC",
    "MAX_CHAT_BODY",
    "MAX_FRAME",
    "MAX_WANT_SPAN",
    "FEED_TYPES",
    "CONTROL_TYPES",
    "NEUTRAL_TYPES",
    "MOTIONS",
    "Envelope",
    "FrameError",
    "WrongTable",
    "seal",
    "seal_envelope",
    "open_frame",
    "peek_seat",
]

MAGIC = b"ZSY\x01"
HEADER_SIZE = len(MAGIC) + 1
MAX_FRAME = 64 * 1024
MAX_WANT_SPAN = 256
#: Bytes of a chat body (canonical JSON) a frame may carry. An honest line is at most
#: 200 cleaned characters (``zsy_lan.protocol.chat.MAX_TEXT``), so at most 811 bytes (200 4-byte
#: UTF-8 characters in ``{"text": ...}``; a quote or a backslash takes 2). A body over
#: this was signed by a modified client; were it accepted, every seat would keep it in
#: its record (up to the 64 KiB frame cap) though no reader ever shows it.
MAX_CHAT_BODY = 2048
FEED_TYPES = frozenset(
    {"commit", "reveal", "action", "motion", "return", "proxy", "release", "chat"}
)
#: feed messages that never enter the hash-chained transcript (votes, returns, chat)
NEUTRAL_TYPES = frozenset({"motion", "return", "chat"})
#: what a motion may ask for
MOTIONS = ("hold", "void")
CONTROL_TYPES = frozenset({"hello", "have", "want", "heartbeat", "bye"})
_FIELDS = frozenset({"table", "seq", "prev", "state", "type", "body"})
_TYPES = FEED_TYPES | CONTROL_TYPES  # built once: open_frame runs per received frame
_HEX = frozenset("0123456789abcdef")


class FrameError(ValueError):
    """A frame refused before it reached the replica's state, with the reason.

    ``sender`` is the seat only when the signature proved it; a frame with a
    bad signature may have been forged, so it names the claimed seat in the
    reason and leaves ``sender`` as ``None``.
    """

    def __init__(self, reason: str, sender: int | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.sender = sender


class WrongTable(FrameError):
    """A genuinely signed frame of another table (``table``: the one its author signed).

    Live, its sender is known and the frame is refused like any other; in a
    record the table it is checked against comes from the file's header, which
    nobody signs, so the record reader tells a damaged header (or a line put in
    the wrong file) apart from a false signed line (DESIGN.md "Blame needs proof").
    """

    def __init__(self, reason: str, sender: int, table: str) -> None:
        super().__init__(reason, sender)
        self.table = table


@dataclass(frozen=True)
class Envelope:
    """A verified, parsed frame. ``frame`` keeps the exact bytes for relaying and storage."""

    table: str
    seat: int
    seq: int
    prev: str
    state: str
    type: str
    body: Mapping[str, Any]
    frame: bytes = field(repr=False)
    digest: str

    @property
    def is_feed(self) -> bool:
        """Feed messages are numbered, chained, stored and relayed."""
        return self.type in FEED_TYPES


def _is_hex(value: Any, size: int | None = 64) -> bool:
    return (
        isinstance(value, str) and (size is None or len(value) == size) and _HEX.issuperset(value)
    )


def _is_nat(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _check_body(kind: str, body: Mapping[str, Any], size: int | None = None) -> str | None:
    """Return why ``body`` is malformed for ``kind``, or None when it is well formed.

    ``size``: an upper bound of the body's canonical bytes when the caller knows
    one (the received payload's length), so a chat body that cannot be over its
    cap is not encoded again to be measured.
    """
    if kind == "commit":
        if set(body) != {"round", "commit"}:
            return "commit body must have exactly round, commit"
        if not _is_nat(body["round"]) or not _is_hex(body["commit"]):
            return "commit needs a round number and a 64-hex commitment"
    elif kind == "reveal":
        if set(body) not in ({"round", "nonce", "seed"}, {"round", "nonce", "seed", "next"}):
            return "reveal body must have exactly round, nonce, seed (and optionally next)"
        if not _is_nat(body["round"]) or not _is_hex(body["nonce"]) or not _is_hex(body["seed"]):
            return "reveal needs a round number, a 64-hex nonce and a 64-hex seed"
        if "next" in body and not _is_hex(body["next"]):
            return "reveal's next (the commitment for the next seed) must be 64 hex"
    elif kind in ("have", "heartbeat"):
        if set(body) != {"have"} or not isinstance(body["have"], dict):
            return f"{kind} body must be {{'have': {{seat: [seq, digest]}}}}"
        for key, value in body["have"].items():
            if not (key.isdigit() and key == str(int(key))):
                return f"{kind}: seat key {key!r} is not a seat number"
            if not (isinstance(value, list) and len(value) == 2 and _is_nat(value[0])):
                return f"{kind}: entry for seat {key} must be [seq, digest]"
            if not (_is_hex(value[1]) or (value[0] == 0 and value[1] == "")):
                return f"{kind}: entry for seat {key} has a bad digest"
    elif kind == "want":
        if set(body) != {"author", "from", "to"}:
            return "want body must have exactly author, from, to"
        lo, hi = body["from"], body["to"]
        if not (_is_nat(body["author"]) and _is_nat(lo) and _is_nat(hi)):
            return "want needs natural numbers"
        if not 1 <= lo <= hi < lo + MAX_WANT_SPAN:
            return f"want range {lo}..{hi} is empty or wider than {MAX_WANT_SPAN}"
    elif kind == "motion":
        if set(body) != {"motion", "seat", "at", "cut"}:
            return "motion body must have exactly motion, seat, at, cut"
        if body["motion"] not in MOTIONS:
            return f"motion must be one of {', '.join(MOTIONS)}"
        if not (_is_nat(body["seat"]) and _is_nat(body["cut"]) and _is_hex(body["at"])):
            return "motion needs a seat, a 64-hex position (at) and a cut"
    elif kind == "return":
        if set(body) != {"at"} or not _is_hex(body["at"]):
            return "return body must be exactly {'at': 64-hex position}"
    elif kind == "proxy":
        if set(body) != {"seat", "action"}:
            return "proxy body must have exactly seat, action"
        if not _is_nat(body["seat"]) or not isinstance(body["action"], dict):
            return "proxy needs a seat and an action object"
    elif kind == "release" and (set(body) != {"seat"} or not _is_nat(body["seat"])):
        return "release body must be exactly {'seat': n}"
    elif kind == "bye" and body and (set(body) != {"fault"} or not is_fault_word(body["fault"])):
        return "bye body must be empty or exactly {'fault': a short lower-case word}"
    elif kind == "chat" and (size is None or size > MAX_CHAT_BODY):
        size = len(canonical(body))
        if size > MAX_CHAT_BODY:
            return f"a chat body of {size} bytes, over the limit of {MAX_CHAT_BODY}"
    # "action" and "hello" bodies are free-form objects: the game judges actions.
    return None


def _payload(
    table: str, seq: int, prev: str, state: str, kind: str, body: Mapping[str, Any]
) -> dict[str, Any]:
    return {
        "table": table,
        "seq": seq,
        "prev": prev,
        "state": state,
        "type": kind,
        "body": dict(body),
    }


def seal(
    identity: Identity,
    *,
    table: str,
    seat: int,
    seq: int,
    prev: str,
    state: str,
    type: str,
    body: Mapping[str, Any],
) -> bytes:
    """Encode and sign one frame. Raises ``ValueError``/``TypeError`` on a malformed message.

    It refuses what a receiver would refuse, so a bug shows at the author, not
    as a mysterious rejection on every other peer.
    """
    if not 0 <= seat <= 255:
        raise ValueError("seat must fit in one byte")
    if type not in _TYPES:
        raise ValueError(f"unknown message type {type!r}")
    problem = _check_body(type, body)
    if problem:
        raise ValueError(problem)
    head = MAGIC + bytes([seat]) + canonical(_payload(table, seq, prev, state, type, body))
    frame = head + identity.sign(head)
    if len(frame) > MAX_FRAME:
        raise ValueError(f"frame of {len(frame)} bytes exceeds {MAX_FRAME}")
    return frame


def seal_envelope(
    identity: Identity,
    *,
    table: str,
    seat: int,
    seq: int,
    prev: str,
    state: str,
    type: str,
    body: Mapping[str, Any],
) -> Envelope:
    """:func:`seal` one feed message, returned as the :class:`Envelope` receivers decode.

    Canonical and signed by construction: no verify, no strict re-parse (a deal
    step's frame is several kB). The body is taken back from the bytes so it
    is exactly what every receiver decodes (lists, not tuples).
    """
    frame = seal(
        identity, table=table, seat=seat, seq=seq, prev=prev, state=state, type=type, body=body
    )
    signed = frame[:-SIGNATURE_SIZE]
    return Envelope(
        table=table,
        seat=seat,
        seq=seq,
        prev=prev,
        state=state,
        type=type,
        body=decode(signed[HEADER_SIZE:])["body"],
        frame=frame,
        digest=sha256_hex(signed),
    )


def peek_seat(frame: bytes) -> int | None:
    """The seat a frame claims, unauthenticated: for logs and dedup only."""
    if len(frame) > HEADER_SIZE and frame.startswith(MAGIC):
        return frame[len(MAGIC)]
    return None


def open_frame(frame: bytes, roster: Mapping[int, bytes], table: str) -> Envelope:
    """Verify, then parse, one frame; raises :class:`FrameError` saying why it is refused."""
    if not isinstance(frame, (bytes, bytearray, memoryview)):
        raise FrameError(f"frame must be bytes, got {type(frame).__name__}")
    if type(frame) is not bytes:
        frame = bytes(frame)
    if len(frame) > MAX_FRAME:
        raise FrameError(f"oversized frame: {len(frame)} bytes > {MAX_FRAME}")
    if len(frame) < HEADER_SIZE + 2 + SIGNATURE_SIZE or not frame.startswith(MAGIC):
        raise FrameError("garbage: not a zsy-lan frame (bad magic or too short)")
    seat = frame[len(MAGIC)]
    key = roster.get(seat)
    if key is None:
        raise FrameError(f"unknown sender: seat {seat} is not in the roster")
    signed, signature = frame[:-SIGNATURE_SIZE], frame[-SIGNATURE_SIZE:]
    if not verify(key, signature, signed):
        raise FrameError(f"bad signature on a frame claiming seat {seat}")
    # Authenticated from here on: errors name the sender.
    try:
        payload = decode(signed[HEADER_SIZE:])
    except ValueError as exc:
        raise FrameError(f"malformed payload from seat {seat}: {exc}", seat) from None
    if not isinstance(payload, dict) or payload.keys() != _FIELDS:
        raise FrameError(f"malformed envelope from seat {seat}: wrong fields", seat)
    if payload["table"] != table:
        raise WrongTable(
            f"wrong table from seat {seat}: {payload['table']!r} is not {table!r}",
            seat,
            str(payload["table"]),
        )
    kind = payload["type"]
    if not isinstance(kind, str) or kind not in _TYPES:
        raise FrameError(f"unknown message type {kind!r} from seat {seat}", seat)
    seq, prev, state, body = payload["seq"], payload["prev"], payload["state"], payload["body"]
    if not isinstance(body, dict):
        raise FrameError(f"malformed {kind} from seat {seat}: body is not an object", seat)
    if not (state == "" or _is_hex(state)):
        raise FrameError(f"malformed {kind} from seat {seat}: bad state hash", seat)
    if kind in FEED_TYPES:
        if not _is_nat(seq) or seq < 1:
            raise FrameError(f"malformed {kind} from seat {seat}: seq must be >= 1", seat)
        if not (prev == "" if seq == 1 else _is_hex(prev)):
            raise FrameError(f"malformed {kind} from seat {seat}: bad prev for seq {seq}", seat)
    elif seq != 0 or prev != "":
        raise FrameError(f"malformed {kind} from seat {seat}: control needs seq 0, prev ''", seat)
    problem = _check_body(kind, body, len(signed) - HEADER_SIZE)
    if problem:
        raise FrameError(f"malformed {kind} from seat {seat}: {problem}", seat)
    return Envelope(
        table=payload["table"],
        seat=seat,
        seq=seq,
        prev=prev,
        state=state,
        type=kind,
        body=body,
        frame=frame,
        digest=sha256_hex(signed),
    )
