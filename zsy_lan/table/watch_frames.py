"""What a spectator and the host's desk say to each other: the frames, their limits, the timing.

Why a module of its own: both sides speak it, the host's
:class:`~zsy_lan.table.spectator_desk.SpectatorDesk` and ``zsy watch``
(:mod:`.watch`); neither side imports the other. A spectator frame is
``MAGIC + canonical JSON + signature`` (like the lobby's), signed by the
spectator's own identity, never a seat's; see :mod:`.spectator_desk` for how a
table serves spectators.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from zsy_lan.protocol.identity import Identity, verify_curve_key
from zsy_lan.protocol.lobby import NICK_MAX
from zsy_lan.protocol.signed import open_signed, seal_signed
from zsy_lan.text.i18n import N_
from zsy_lan.text.sanitize import clean

MAGIC = b"ZSYWATCH1\n"
#: 2: the record's first messages bind the roster and a spectator may be refused per
#: address; a version-1 spectator could not follow such a record, so it is told to update.
WATCH_VERSION = 2
#: what a spectator sends, and what the host answers
FROM_WATCHER = ("watch", "ping", "leave")
FROM_HOST = ("asked", "welcome", "refused", "lines", "reset", "bye", "news")
KINDS = FROM_WATCHER + FROM_HOST
MODES = ("ask", "open", "off")
#: the largest frame a spectator may send (a watch request is a few hundred bytes)
MAX_WATCHER_FRAME = 2048
#: the largest batch of record lines the host puts in one frame (the mesh allows 256 KiB)
BATCH_BYTES = 128 * 1024
MAX_FRAME = 256 * 1024
#: spectators a table serves at once, and requests it keeps waiting for the host
MAX_WATCHERS = 16
MAX_ASKING = 8
#: places (watching or waiting for the host) one source address may hold: a key costs
#: nothing, an address does, so sixteen identities from one machine cannot take them all
PER_ADDRESS = 3
#: a rewind (a ping asking again from an earlier position) is served at most once per
#: REWIND_EVERY seconds per spectator, and all spectators' rewinds together from one budget
#: of resent bytes (REWIND_RATE a second, at most REWIND_BURST at once): a spectator that
#: keeps reporting position 0 cannot multiply the host's upload
REWIND_EVERY = 30.0
#: a new spectator costs the host the whole record (its catch-up): one address may start
#: watching STARTS_PER_ADDRESS times at once, then once per START_EVERY seconds, so three
#: places taken and left again and again with fresh keys cannot resend the record endlessly
STARTS_PER_ADDRESS = 6.0
START_EVERY = 60.0
REWIND_RATE = 4 * 1024
REWIND_BURST = 2 * 1024 * 1024
#: a spectator pings this often; silent for GONE_AFTER seconds it is gone
PING_EVERY = 2.0
GONE_AFTER = 10.0
#: seconds a request waits for the host's accept before it is dropped
ASK_TTL = 300.0
#: per connection: at most BUCKET frames at once, refilled by RATE per second
BUCKET = 8.0
RATE = 1.0
#: seconds between the host's looks at its record
PUMP_EVERY = 0.2
#: seconds the spectator waits for a first answer to its request
ANSWER_TIMEOUT = 15.0
#: seconds a spectator goes on reading after the record shows the match over: the seats'
#: last words (gg) come after the last move, until the host's ``bye`` (bounded: a host
#: that never closes, a player who stays on the final screen)
AFTER_END = 30.0
#: seconds without the host's link after the match's end before the spectator stops
END_GONE = 2.0
#: seconds a closing desk may spend on its spectators: the rest of the record, ``bye``, and
#: each one's ``leave`` (it has read all of it); within ``zsy host``'s 6 s for the desk
CLOSE_BUDGET = 5.0
#: of that, what is kept for the ``bye`` and the spectators' answer to it
BYE_BUDGET = 1.5
OPEN_DEAL_NOTE = N_("open deal: spectators see each round after it ends")
#: the ``bye`` to a spectator the desk let go while it still follows (see ``on_frame``)
FORGOTTEN = N_(
    "the host stopped sending you the table (it heard nothing from you for ten seconds): "
    "watch again"
)


class WatchError(ValueError):
    """A spectator frame that cannot be accepted; the message says why."""


@dataclass(frozen=True)
class WatchMessage:
    """A verified spectator frame: ``kind``, the author's identity key, ``body``."""

    kind: str
    author: bytes
    body: dict[str, Any]


@dataclass(frozen=True)
class Watcher:
    """Peer id of an admitted spectator's connection (its CURVE key); never a seat."""

    public_key: bytes


def seal_watch(identity: Identity, kind: str, body: dict[str, Any]) -> bytes:
    """Encode and sign one spectator frame (``MAGIC + canonical JSON + signature``)."""
    if kind not in KINDS:
        raise ValueError(f"unknown spectator message {kind!r}")
    return seal_signed(MAGIC, identity, kind, body)


def is_watch_frame(frame: bytes) -> bool:
    """True for frames of this module (the lobby and the replica have their own magic)."""
    return frame.startswith(MAGIC)


def open_watch(frame: bytes, max_size: int = MAX_FRAME) -> WatchMessage:
    """Verify, then parse; :class:`WatchError` with the reason."""
    try:
        kind, author, body = open_signed(frame, MAGIC, KINDS, max_size, "spectator frame")
    except ValueError as exc:
        raise WatchError(str(exc)) from None
    return WatchMessage(kind, author, body)


def watch_body(identity: Identity, nick: str) -> dict[str, Any]:
    """A spectator's request: who it is and its own CURVE key, vouched for by its identity."""
    return {
        "version": WATCH_VERSION,
        "nick": nick,
        "curve": identity.curve_public.hex(),
        "curve_sig": identity.sign_curve_key().hex(),
    }


def check_watch(msg: WatchMessage, connection_key: bytes) -> str | None:
    """Why a watch request cannot be accepted (``None``: it can)."""
    b = msg.body
    if b.get("version") != WATCH_VERSION:
        return N_("this table speaks another spectator protocol: update zsy-lan")
    nick = b.get("nick")
    if not isinstance(nick, str) or not clean(nick).strip() or len(nick) > 4 * NICK_MAX:
        return N_("a nickname is 1-24 printable characters")
    try:
        curve = bytes.fromhex(b["curve"])
        sig = bytes.fromhex(b["curve_sig"])
    except (KeyError, ValueError, TypeError):
        return N_("malformed CURVE key")
    if curve != connection_key:
        return N_("the CURVE key of this connection is not the one in the request")
    if not verify_curve_key(msg.author, curve, sig):
        return N_("the CURVE key is not signed by the spectator's identity")
    return None
