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
key, endpoint, nickname and whether it is a bot.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .engine.errors import ConfigError
from .engine.rules import Rules
from .engine.ruleset import build_rules
from .protocol.canonical import canonical, decode
from .protocol.identity import Identity, verify, verify_curve_key

MAGIC = b"ZSYLOBBY1\n"
LOBBY_VERSION = 1
MAX_LOBBY_FRAME = 32 * 1024
KINDS = ("join", "welcome", "sit", "refused", "roster", "bye")


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
    head = MAGIC + canonical(
        {"kind": kind, "author": identity.public_key.hex(), "body": dict(body)}
    )
    return head + identity.sign(head)


def is_lobby_frame(frame: bytes) -> bool:
    """True for frames of this module (the replication protocol has its own magic)."""
    return frame.startswith(MAGIC)


def open_lobby(frame: bytes) -> LobbyMessage:
    """Verify, then parse; raises :class:`LobbyError` with the reason."""
    if len(frame) > MAX_LOBBY_FRAME:
        raise LobbyError(f"oversized lobby frame ({len(frame)} bytes)")
    if not frame.startswith(MAGIC) or len(frame) < len(MAGIC) + 66:
        raise LobbyError("not a lobby frame")
    head, sig = frame[:-64], frame[-64:]
    try:
        data = decode(head[len(MAGIC) :])
        author = bytes.fromhex(data["author"])
        kind, body = data["kind"], data["body"]
    except (ValueError, KeyError, TypeError) as exc:
        raise LobbyError(f"malformed lobby frame: {exc}") from None
    if len(author) != 32 or not verify(author, sig, head):
        raise LobbyError("bad signature on a lobby frame")
    if kind not in KINDS or not isinstance(body, dict):
        raise LobbyError(f"unknown lobby message {kind!r}")
    return LobbyMessage(kind, author, body)


def join_body(identity: Identity, nick: str, endpoint: str, bot: bool = False) -> dict[str, Any]:
    """What a joiner sends: who it is, its CURVE key (vouched for), where it listens."""
    return {
        "version": LOBBY_VERSION,
        "nick": nick,
        "curve": identity.curve_public.hex(),
        "curve_sig": identity.sign_curve_key().hex(),
        "endpoint": endpoint,
        "bot": bot,
    }


def check_join(msg: LobbyMessage) -> str | None:
    """Why a join cannot be accepted (``None``: it can)."""
    b = msg.body
    if b.get("version") != LOBBY_VERSION:
        return (
            f"lobby version {b.get('version')!r}; this table speaks {LOBBY_VERSION}: update zsy-lan"
        )
    nick = b.get("nick")
    if not isinstance(nick, str) or not 1 <= len(nick) <= 24 or not nick.isprintable():
        return "a nickname is 1-24 printable characters"
    try:
        curve = bytes.fromhex(b["curve"])
        sig = bytes.fromhex(b["curve_sig"])
    except (KeyError, ValueError, TypeError):
        return "malformed CURVE key"
    if not verify_curve_key(msg.author, curve, sig):
        return "the CURVE key is not signed by the joiner's identity"
    ep = b.get("endpoint")
    if not isinstance(ep, str) or not ep.startswith("tcp://"):
        return "the joiner's endpoint must be tcp://ADDR:PORT"
    return None


def rules_from_config(config: Mapping[str, Any]) -> Rules:
    """Rebuild a table's rules from its canonical config with the plugins installed here."""
    try:
        names = [n for n, _ in config["plugins"]]
        options = {
            f"{p}.{k}": v for p, opts in config.get("options", {}).items() for k, v in opts.items()
        }
        return build_rules(int(config["players"]), names, options)
    except (KeyError, TypeError, ValueError) as exc:
        if isinstance(exc, ConfigError):
            raise
        raise ConfigError(f"malformed table config: {exc}") from None


def ruleset_difference(table: Mapping[str, Any]) -> str | None:
    """Exactly what differs between the table's rules and what this machine builds.

    ``None`` when the same ruleset id results. Names a missing plugin, another
    plugin version, or options that come out different.
    """
    try:
        mine = rules_from_config(table)
    except ConfigError as exc:
        return f"cannot build this table's rules here: {exc}"
    if mine.config == dict(table):
        return None
    theirs = {n: v for n, v in table.get("plugins", [])}
    here = {n: v for n, v in mine.config.get("plugins", [])}
    diffs = []
    for name in sorted(set(theirs) | set(here)):
        if theirs.get(name) != here.get(name):
            diffs.append(
                f"plugin '{name}': table has {theirs.get(name) or 'none'}, "
                f"this machine has {here.get(name) or 'none'}"
            )
    for plugin, opts in table.get("options", {}).items():
        for key, value in opts.items():
            got = mine.config.get("options", {}).get(plugin, {}).get(key)
            if got != value:
                diffs.append(f"option {plugin}.{key}: table has {value!r}, here {got!r}")
    return "; ".join(diffs) or "the rules differ (ruleset ids do not match)"


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

    def to_json(self) -> dict[str, Any]:
        return {
            "seat": self.seat,
            "key": self.key.hex(),
            "curve": self.curve.hex(),
            "endpoint": self.endpoint,
            "nick": self.nick,
            "bot": self.bot,
        }

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> Seat:
        return cls(
            int(d["seat"]),
            bytes.fromhex(d["key"]),
            bytes.fromhex(d["curve"]),
            str(d["endpoint"]),
            str(d["nick"]),
            bool(d.get("bot", False)),
        )


@dataclass
class Roster:
    """The table as the lobby closed it: everything a peer needs to play and to resume."""

    table: str
    name: str
    rounds: int
    config: dict[str, Any]
    seats: list[Seat]
    deal: str = "open"

    def to_json(self) -> dict[str, Any]:
        return {
            "table": self.table,
            "name": self.name,
            "rounds": self.rounds,
            "config": self.config,
            "seats": [s.to_json() for s in self.seats],
            "deal": self.deal,
        }

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> Roster:
        try:
            roster = cls(
                str(d["table"]),
                str(d["name"]),
                int(d["rounds"]),
                dict(d["config"]),
                [Seat.from_json(s) for s in d["seats"]],
                str(d.get("deal", "open")),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise LobbyError(f"malformed roster: {exc}") from None
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


class HostLobby:
    """The host's side: seats joiners in arrival order until the table is full."""

    def __init__(self, identity: Identity, roster: Roster, players: int, ruleset: str) -> None:
        self.identity = identity
        self.roster = roster
        self.players = players
        self.ruleset = ruleset
        self.pending: dict[bytes, dict[str, Any]] = {}

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
            },
        )

    def on_join(self, msg: LobbyMessage) -> tuple[bytes, str | None]:
        """Answer a join: ``(reply frame, refusal reason or None)``."""
        problem = check_join(msg)
        existing = self.roster.seat_of(msg.author)
        if problem is None and existing is None and self.free <= 0:
            problem = "the table is full"
        if problem is not None:
            return seal_lobby(self.identity, "refused", {"reason": problem}), problem
        self.pending[msg.author] = msg.body
        return self.welcome(), None

    def on_sit(self, msg: LobbyMessage) -> tuple[bytes | None, Seat | None, str | None]:
        """Seat a joiner that accepted the rules: ``(reply, new seat, refusal)``."""
        body = self.pending.get(msg.author)
        existing = self.roster.seat_of(msg.author)
        if existing is not None:
            return None, self.roster.seats[existing], None
        if body is None:
            reason = "send join before sit"
        elif msg.body.get("ruleset") != self.ruleset:
            reason = (
                f"your ruleset {msg.body.get('ruleset')!r} differs from the table's "
                f"{self.ruleset}: {msg.body.get('difference') or 'rules differ'}"
            )
        elif self.free <= 0:
            reason = "the table is full"
        else:
            seat = Seat(
                len(self.roster.seats),
                msg.author,
                bytes.fromhex(body["curve"]),
                body["endpoint"],
                self._unique_nick(body["nick"]),
                bool(body.get("bot", False)),
            )
            self.roster.seats.append(seat)
            del self.pending[msg.author]
            return None, seat, None
        return seal_lobby(self.identity, "refused", {"reason": reason}), None, reason

    def _unique_nick(self, nick: str) -> str:
        taken = {s.nick for s in self.roster.seats}
        if nick not in taken:
            return nick
        n = 2
        while f"{nick}-{n}" in taken:
            n += 1
        return f"{nick}-{n}"

    def roster_frame(self) -> bytes:
        """The signed roster, sent to every seat when the table is full."""
        return seal_lobby(self.identity, "roster", self.roster.to_json())
