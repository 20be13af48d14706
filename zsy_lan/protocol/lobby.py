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
from zsy_lan.protocol.table_settings import INVITE_REFUSAL, TableSettings
from zsy_lan.text.i18n import N_
from zsy_lan.text.sanitize import clean, clean_or

MAGIC = b"ZSYLOBBY1\n"
LOBBY_VERSION = 1
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
#: Joins answered with a welcome but not yet followed by a sit, kept at most.
MAX_PENDING = 8
#: Seconds a pending join is kept before it must be sent again.
PENDING_TTL = 30.0
#: The fields of a join the host keeps (anything else a guest sends is dropped).
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


@dataclass
class Pending:
    """A join answered with a welcome, waiting for its sit (or for the host's approval)."""

    author: bytes
    body: dict[str, Any]
    since: float
    waiting_approval: bool = False


@dataclass
class HostLobby:
    """The host's side: seats joiners in arrival order until the table is full.

    What a guest can make the host keep is bounded: one pending join per
    connection (its CURVE key), at most :data:`MAX_PENDING` in all (the
    oldest goes first), each forgotten after :data:`PENDING_TTL` seconds,
    with only the fields of :data:`JOIN_FIELDS`. The host can remove a seated
    guest (:meth:`remove`) or, with ``approve``, accept each one
    (:meth:`approve`) before the roster closes; a removed player's keys are
    refused from then on.
    """

    identity: Identity
    roster: Roster
    players: int
    ruleset: str
    approve_each: bool = False
    #: The secret a join must carry (``zsy host --invite``); ``None``: anyone may join.
    invite: str | None = None
    #: Pending joins by the CURVE key of the connection they came on.
    pending: dict[bytes, Pending] = field(default_factory=dict)
    #: Identity and CURVE keys the host refused or removed.
    banned: set[bytes] = field(default_factory=set)
    #: Identity keys of the bots the host's own process runs (seated without
    #: approval, marked ``hosted_by`` seat 0 in the roster).
    hosted: set[bytes] = field(default_factory=set)
    #: The host's spectator desk (:class:`zsy_lan.table.spectator_desk.SpectatorDesk`), if any.
    spectators: Any = None
    #: ``zsy host --relay``: the relay URL the welcome names, so that a joiner who found
    #: the table by name (or by a line without it) reaches far seats too (table/relay_join.py).
    relay: str | None = None

    @property
    def free(self) -> int:
        """Seats still open."""
        return self.players - len(self.roster.seats)

    def welcome(self) -> bytes:
        """The table description a joiner checks before sitting down."""
        return seal_lobby(
            self.identity,
            "welcome",
            {
                "table": self.roster.table,
                "name": self.roster.name,
                "rounds": self.roster.rounds,
                "config": self.roster.config,
                "ruleset": self.ruleset,
                "deal": self.roster.deal,
                "free": self.free,
                "approve": self.approve_each,
                "settings": self.roster.settings.to_json(),
                **({"relay": self.relay} if self.relay else {}),
            },
        )

    def refusal(self, reason: str) -> bytes:
        """A signed ``refused`` frame carrying ``reason``."""
        return seal_lobby(self.identity, "refused", {"reason": reason})

    def expire(self, now: float) -> None:
        """Forget pending joins older than :data:`PENDING_TTL`.

        A guest waiting for the host's ``accept`` is kept: the host is the one
        taking time, and it sees (and can refuse) each of them.
        """
        old = [
            k
            for k, p in self.pending.items()
            if now - p.since > PENDING_TTL and not p.waiting_approval
        ]
        for key in old:
            del self.pending[key]

    def on_join(self, msg: LobbyMessage, now: float = 0.0) -> tuple[bytes, str | None]:
        """Answer a join: ``(reply frame, refusal reason or None)``."""
        problem = check_join(msg)
        existing = self.roster.seat_of(msg.author)
        if problem is None and (msg.author in self.banned or _curve_of(msg) in self.banned):
            problem = N_("the host removed you from this table")
        if (
            problem is None
            and msg.author not in self.hosted
            and not invite_matches(self.invite, msg.body.get("invite"))
        ):
            problem = INVITE_REFUSAL
        if problem is None and existing is None and self.free <= 0:
            problem = N_("the table is full")
        if problem is not None:
            return self.refusal(problem), problem
        if existing is None:
            self.expire(now)
            curve = _curve_of(msg)
            old = self.pending.pop(curve, None)  # one per connection: a new join replaces it
            while len(self.pending) >= MAX_PENDING:
                # the oldest that is not waiting for the host's answer goes
                key = next((k for k, p in self.pending.items() if not p.waiting_approval), None)
                if key is None:
                    if old is not None:
                        self.pending[curve] = old
                    problem = N_("too many players are waiting for the host's answer: try later")
                    return self.refusal(problem), problem
                del self.pending[key]
            self.pending[curve] = Pending(msg.author, clean_join(msg.body), now)
        return self.welcome(), None

    def on_sit(
        self, msg: LobbyMessage, now: float = 0.0
    ) -> tuple[bytes | None, Seat | None, str | None]:
        """Seat a joiner that accepted the rules: ``(reply, new seat, refusal)``.

        With ``approve_each`` a good sit is not seated yet: it waits in
        :attr:`pending` (``waiting_approval``) until :meth:`approve`, and all
        three results are ``None``.
        """
        self.expire(now)
        existing = self.roster.seat_of(msg.author)
        if existing is not None:
            return None, self.roster.seats[existing], None
        pending = next((p for p in self.pending.values() if p.author == msg.author), None)
        if pending is None:
            reason = N_("send join before sit (or your join expired: join again)")
        elif msg.body.get("ruleset") != self.ruleset:
            # a message id for both readers (the joiner; the host, who reads HOST_RULES_DIFFER):
            # what differs is the joiner's to say, and its text stays in the host's log
            reason = RULES_DIFFER
        elif self.free <= 0:
            reason = N_("the table is full")
        elif self.approve_each and pending.author not in self.hosted:
            pending.waiting_approval = True
            pending.since = now
            return None, None, None
        else:
            return None, self._seat(pending), None
        return self.refusal(reason), None, reason

    def awaiting(self) -> list[Pending]:
        """Guests that asked to sit and wait for the host's ``accept``."""
        return [p for p in self.pending.values() if p.waiting_approval]

    def approve(self, who: str) -> tuple[Seat | None, str | None]:
        """Seat the waiting guest named ``who`` (nick; empty: the only one waiting).

        The problem, when there is one, is a message id (``N_``): the caller words
        it in the host's language with ``_()``, so a German host reads German.
        """
        waiting = self.awaiting()
        if who:
            waiting = [p for p in waiting if p.body["nick"] == who]
        if not waiting:
            return None, N_("nobody of that name is waiting to sit down")
        if len(waiting) > 1:
            return None, N_("several players are waiting: name the one to accept")
        if self.free <= 0:
            return None, N_("the table is full")
        return self._seat(waiting[0]), None

    def refuse(self, who: str) -> Pending | None:
        """Turn away the waiting guest named ``who`` (empty: the only one); its keys stay out."""
        waiting = self.awaiting()
        if who:
            waiting = [p for p in waiting if p.body["nick"] == who]
        if len(waiting) != 1:
            return None
        p = waiting[0]
        self.pending.pop(bytes.fromhex(p.body["curve"]), None)
        self.banned.update({p.author, bytes.fromhex(p.body["curve"])})
        return p

    def _seat(self, pending: Pending) -> Seat:
        body = pending.body
        seat = Seat(
            len(self.roster.seats),
            pending.author,
            bytes.fromhex(body["curve"]),
            body["endpoint"],
            self._unique_nick(body["nick"]),
            bool(body.get("bot", False)),
            0 if pending.author in self.hosted else None,
        )
        self.roster.seats.append(seat)
        self.pending.pop(seat.curve, None)
        return seat

    def find_seat(self, who: str) -> Seat | None:
        """A guest's seat by number or nickname (never seat 0, the host)."""
        for s in self.roster.seats[1:]:
            if who == str(s.seat) or who == s.nick:
                return s
        return None

    def remove(self, seat: Seat, *, ban: bool = True) -> list[tuple[int, Seat]]:
        """Take ``seat`` off the roster; the seats after it move up by one.

        Returns ``(old number, seat)`` for every seat that moved, so the
        caller can relabel its links. ``ban`` keeps the removed keys out.
        """
        self.roster.seats.remove(seat)
        if ban:
            self.banned.update({seat.key, seat.curve})
        moved = []
        for n, s in enumerate(self.roster.seats):
            if s.seat != n:
                moved.append((s.seat, s))
                s.seat = n
        return moved

    def _unique_nick(self, nick: str) -> str:
        """``nick``, or ``nick-2``, ``nick-3``... cut to fit :data:`NICK_MAX`.

        The result must survive :meth:`Seat.from_json` unchanged on every
        seat (the roster's nicks are in the transcript header every replica
        hashes), so it is never longer than the limit that cleaning applies.
        """
        taken = {s.nick for s in self.roster.seats}
        if nick not in taken:
            return nick
        n = 2
        while True:
            suffix = f"-{n}"
            candidate = nick[: NICK_MAX - len(suffix)] + suffix
            if candidate not in taken:
                return candidate
            n += 1

    def roster_frame(self) -> bytes:
        """The signed roster, sent to every seat when the table is full."""
        return seal_lobby(self.identity, "roster", self.roster.to_json())


def _curve_of(msg: LobbyMessage) -> bytes:
    """The CURVE key a checked join carries (the connection it came on)."""
    return bytes.fromhex(msg.body["curve"])
