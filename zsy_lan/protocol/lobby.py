"""The lobby: how a joiner asks for a seat and how the host publishes the roster.

Sans-IO like the replication protocol: signed messages in, decisions out.
Lobby frames travel on the same CURVE-encrypted mesh before the roster
exists; each is ``MAGIC + canonical JSON + Ed25519 signature`` by its author,
whose public key is inside the JSON (the CURVE key it also carries is vouched
for by that identity, so the transport's key and the player's identity are
bound together).

Flow: joiner ``join`` → host ``welcome`` (the table's exact rules config) →
joiner checks it can build the same rules (same plugins, versions, options:
the ruleset id) → ``sit`` → host seats it (or ``refused`` with the reason)
→ when every seat is taken, host ``roster`` to everyone. The roster is the
table: id, name, rounds, rules config, and per seat the identity key, CURVE
key, endpoint, nickname and whether it is a bot, and the host's table
settings (:mod:`.table_settings`: clock, assists, the invitation flag; the
welcome carries them too). A join to a table by invitation carries the
secret of the host's join URL. (The table clock's notes, once sent in this
format, travel in each seat's feed now: :mod:`zsy_lan.table.clock`.)
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from zsy_lan.protocol.identity import Identity, verify_curve_key
from zsy_lan.protocol.signed import open_signed, seal_signed
from zsy_lan.protocol.table_settings import TableSettings
from zsy_lan.text.i18n import N_
from zsy_lan.text.sanitize import clean, clean_or

MAGIC = b"ZSYLOBBY1\n"
#: 2: each seat's first message binds the roster (docs/protocol.md "The roster binding"),
#: which a seat of version 1 refuses as malformed: it is told to update at the join
#: instead of stalling the first deal.
LOBBY_VERSION = 2
MAX_LOBBY_FRAME = 32 * 1024
KINDS = ("join", "welcome", "sit", "refused", "roster", "bye", "clock")
NICK_MAX = 24
NAME_MAX = 64
REASON_MAX = 400
#: The refusal of a joiner whose machine builds other rules than the table's (``on_sit``).
RULES_DIFFER = N_(
    "the rules on your machine differ from the table's (zsy version, plugins or options)"
)
#: The same refusal as the host reads it.
HOST_RULES_DIFFER = N_(
    "the rules on their machine differ from the table's (zsy version, plugins or options)"
)
JOIN_FIELDS = ("version", "nick", "curve", "curve_sig", "endpoint", "bot")
_TABLE_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")


class LobbyError(ValueError):
    """A lobby frame that cannot be accepted; the message says why."""


@dataclass(frozen=True)
class LobbyMessage:
    """A verified lobby message: ``kind``, the author's identity key, ``body``."""

    kind: str
    author: bytes
    body: dict[str, Any]


def seal_lobby(identity: Identity, kind: str, body: Mapping[str, Any]) -> bytes:
    """Encode and sign one lobby message."""
    if kind not in KINDS:
        raise ValueError(f"unknown lobby message {kind!r}")
    return seal_signed(MAGIC, identity, kind, body)


def is_lobby_frame(frame: bytes) -> bool:
    """True for frames of this module (the replication protocol has its own magic)."""
    return frame.startswith(MAGIC)


def open_lobby(frame: bytes) -> LobbyMessage:
    """Verify, then parse; raises :class:`LobbyError` with the reason."""
    try:
        kind, author, body = open_signed(frame, MAGIC, KINDS, MAX_LOBBY_FRAME, "lobby frame")
    except ValueError as exc:
        raise LobbyError(str(exc)) from None
    return LobbyMessage(kind, author, body)


def join_body(
    identity: Identity, nick: str, endpoint: str, bot: bool = False, invite: str | None = None
) -> dict[str, Any]:
    """What a joiner sends: who it is, its CURVE key (vouched for), where it listens.

    ``invite``: the secret of a table by invitation (from the join URL); it
    goes only to the host, over the encrypted link, and the host keeps none of it.
    """
    body: dict[str, Any] = {
        "version": LOBBY_VERSION,
        "nick": nick,
        "curve": identity.curve_public.hex(),
        "curve_sig": identity.sign_curve_key().hex(),
        "endpoint": endpoint,
        "bot": bot,
    }
    if invite is not None:
        body["invite"] = invite
    return body


def invite_matches(expected: str | None, given: object) -> bool:
    """True when no invitation is needed or ``given`` is the secret (constant time)."""
    if expected is None:
        return True
    if not isinstance(given, str) or not given.isascii():
        return False
    return hmac.compare_digest(expected.encode(), given.encode())


def endpoint_problem(endpoint: object) -> str | None:
    """Why ``endpoint`` is not a peer address the host may connect to (``None``: it is).

    Only ``tcp://`` with a literal IPv4 address (or a bracketed IPv6 one) and a
    port 1-65535: no host names (a DNS lookup the guest chose), no wildcard,
    multicast or broadcast address. A guest's endpoint reaches libzmq only
    after this check, so a malformed one is a refusal, never an exception.
    """
    if not isinstance(endpoint, str) or len(endpoint) > 64:
        return N_("the joiner's endpoint must be tcp://ADDR:PORT")
    if not endpoint.startswith("tcp://"):
        return N_("the joiner's endpoint must be tcp://ADDR:PORT")
    host, sep, port = endpoint[len("tcp://") :].rpartition(":")
    if not sep or not host or not port.isdigit() or not 1 <= int(port) <= 65535:
        return N_("the joiner's endpoint must be tcp://ADDR:PORT with a port from 1 to 65535")
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    elif ":" in host:
        return N_("the joiner's endpoint must be tcp://ADDR:PORT (an IPv6 address goes in [ ])")
    try:
        addr = ipaddress.ip_address(host)
    except ValueError:
        return N_("the joiner's endpoint must name an IP address, not a host name")
    if addr.is_unspecified or addr.is_multicast or str(addr) == "255.255.255.255":
        return N_("the joiner's endpoint must be an address a peer can connect to")
    return None


def check_join(msg: LobbyMessage) -> str | None:
    """Why a join cannot be accepted (``None``: it can)."""
    b = msg.body
    if b.get("version") != LOBBY_VERSION:
        return (
            f"lobby version {clean(b.get('version'), 16)!r}; this table speaks "
            f"{LOBBY_VERSION}: update zsy-lan"
        )
    nick = b.get("nick")
    if not isinstance(nick, str) or not clean(nick).strip() or len(nick) > 4 * NICK_MAX:
        return N_("a nickname is 1-24 printable characters")
    try:
        curve = bytes.fromhex(b["curve"])
        sig = bytes.fromhex(b["curve_sig"])
    except (KeyError, ValueError, TypeError):
        return N_("malformed CURVE key")
    if not verify_curve_key(msg.author, curve, sig):
        return N_("the CURVE key is not signed by the joiner's identity")
    if len(curve) != 32:
        return N_("malformed CURVE key")
    return endpoint_problem(b.get("endpoint"))


def clean_join(body: Mapping[str, Any]) -> dict[str, Any]:
    """The fields of a checked join the host keeps, with the nickname made safe to show."""
    kept = {k: body[k] for k in JOIN_FIELDS if k in body}
    kept["nick"] = clean_or(body.get("nick"), "player", NICK_MAX)
    kept["bot"] = body.get("bot") is True
    return kept


def table_id_for(host_key: bytes, name: str, nonce: bytes) -> str:
    """A fresh table id: unique per hosting, readable prefix of the name."""
    digest = hashlib.sha256(host_key + name.encode() + nonce).hexdigest()[:12]
    return digest


@dataclass
class Seat:
    """One seat of the roster."""

    seat: int
    key: bytes
    curve: bytes
    endpoint: str
    nick: str
    bot: bool = False
    #: The seat whose process runs this bot (``zsy host --bots``): that player's
    #: data dir holds the bot's secrets, so it could see the bot's cards.
    hosted_by: int | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "seat": self.seat,
            "key": self.key.hex(),
            "curve": self.curve.hex(),
            "endpoint": self.endpoint,
            "nick": self.nick,
            "bot": self.bot,
        }
        if self.hosted_by is not None:
            out["hosted_by"] = self.hosted_by
        return out

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> Seat:
        """Parse a roster seat; the nickname is cleaned (it came from the network)."""
        return cls(
            int(d["seat"]),
            bytes.fromhex(d["key"]),
            bytes.fromhex(d["curve"]),
            str(d["endpoint"]),
            clean_or(d["nick"], f"seat {int(d['seat'])}", NICK_MAX),
            bool(d.get("bot", False)),
            _hosted_by(d.get("hosted_by")),
        )


def _hosted_by(value: object) -> int | None:
    """A roster's ``hosted_by``: a seat number, or ``None`` when absent or not a number."""
    return value if isinstance(value, int) and not isinstance(value, bool) else None


@dataclass
class Roster:
    """The table as the lobby closed it: everything a peer needs to play and to resume."""

    table: str
    name: str
    rounds: int
    config: dict[str, Any]
    seats: list[Seat]
    deal: str = "open"
    #: What the host set for every seat (clock, assists, invitation flag; never the secret).
    settings: TableSettings = field(default_factory=TableSettings)

    def to_json(self) -> dict[str, Any]:
        out = {
            "table": self.table,
            "name": self.name,
            "rounds": self.rounds,
            "config": self.config,
            "seats": [s.to_json() for s in self.seats],
            "deal": self.deal,
        }
        if not self.settings.is_default:  # a default table's roster reads as before
            out["settings"] = self.settings.to_json()
        return out

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> Roster:
        try:
            roster = cls(
                str(d["table"]),
                clean_or(d["name"], "table", NAME_MAX),
                int(d["rounds"]),
                dict(d["config"]),
                [Seat.from_json(s) for s in d["seats"]],
                str(d.get("deal", "open")),
                TableSettings.from_json(d.get("settings")),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise LobbyError(f"malformed roster: {exc}") from None
        for seat in roster.seats:
            if endpoint_problem(seat.endpoint) is not None:
                # every peer connects to every seat: only addresses a guest could join from
                raise LobbyError(f"malformed roster: seat {seat.seat} has no valid tcp:// endpoint")
        if not _TABLE_ID.fullmatch(roster.table):
            # the id names a folder on every seat's disk: no path, no escape
            raise LobbyError("malformed roster: the table id must be letters, digits, - or _")
        if roster.deal not in ("open", "private"):
            raise LobbyError(f"unknown deal {roster.deal!r} in the roster (open or private)")
        return roster

    @property
    def keys(self) -> dict[int, bytes]:
        """Seat → identity key, as the replica wants it."""
        return {s.seat: s.key for s in self.seats}

    def seat_of(self, key: bytes) -> int | None:
        """The seat held by identity ``key``."""
        for s in self.seats:
            if s.key == key:
                return s.seat
        return None
