"""The host's side of the lobby: who waits for a seat, and what the host should know of them.

:mod:`.lobby` is the wire (signed frames, the join's checks, the roster); this is
the host's state between the first ``join`` and the roster: joins waiting for their
``sit``, guests waiting for the host's ``accept`` (``zsy host --approve``), the
bounds that keep strangers from locking that list (per address, in all, in time),
and the marks a guest carries: a name that looks like another's (UTS #39, through
:mod:`zsy_lan.text.lookalike`), a removed player back with a new key, a key the
host's history knows. Sans-IO: the host's shell (``zsy_lan.table.hosting``) sends
what it returns.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from zsy_lan.protocol.identity import Identity, fingerprint
from zsy_lan.protocol.lobby import (
    NICK_MAX,
    RULES_DIFFER,
    LobbyMessage,
    Roster,
    Seat,
    check_join,
    clean_join,
    invite_matches,
    seal_lobby,
)
from zsy_lan.protocol.source import address_group
from zsy_lan.protocol.table_settings import INVITE_REFUSAL
from zsy_lan.text.i18n import N_
from zsy_lan.text.lookalike import looks_alike, unusual_letters

#: Joins answered with a welcome but not yet followed by a sit, kept at most.
MAX_PENDING = 8
#: Seconds a pending join is kept before it must be sent again.
PENDING_TTL = 30.0
#: Seconds a guest waits for the host's ``accept`` before it is told to join again.
APPROVAL_TTL = 600.0
#: Pending joins one source address may hold at once (a few players may share a machine
#: or a NAT; a stranger's many fresh keys may not take every place).
MAX_PENDING_PER_ADDRESS = 3
#: Players the host removed or refused, remembered for the marks of the waiting list.
REMOVED_KEPT = 32
#: Why a waiting guest was let go: the host did not answer in time.
APPROVAL_EXPIRED = N_(
    "the host did not answer your request to sit in time: join again if you still want to play"
)
#: The refusal of a name that reads like a seated player's (a look-alike, UTS #39).
LOOKALIKE_NAME = N_(
    "the name '{nick}' looks like the name of seat {seat} ('{other}'): join again with "
    "another name (zsy join --nick NAME)"
)
#: What :data:`LOOKALIKE_NAME` adds when the name has characters beyond ASCII.
LOOKALIKE_LETTERS = N_(" (its letters beyond ASCII: {letters})")
#: Why a marked guest is not picked by its name (or by a bare ``accept``).
MARKED = N_("that player is marked (who says why): type their number or key if you are sure")
#: What marks a waiting (or newly seated) guest in the host's lists.
MARK_SAME_WAITING = N_("another waiting player's name looks the same")
MARK_LIKE_SEAT = N_("looks like seat {seat}'s name '{nick}'")
MARK_LIKE_REMOVED = N_("looks like '{nick}', whom you removed, with a new key")
MARK_ADDRESS_REMOVED = N_("same address as '{nick}', whom you removed")
MARK_NOT_KNOWN_KEY = N_("not the key of the '{nick}' in your history")
MARK_KNOWN = N_("known from your history as '{nick}'")
#: The fields of a join the host keeps (anything else a guest sends is dropped).


@dataclass
class Pending:
    """A join answered with a welcome, waiting for its sit (or for the host's approval)."""

    author: bytes
    body: dict[str, Any]
    since: float
    waiting_approval: bool = False
    #: Source IP address of the connection (``Mesh.guest_address``); ``""``: unknown.
    address: str = ""
    #: The number the host accepts or refuses it by, given when it starts waiting (1, 2, ...).
    number: int = 0

    @property
    def nick(self) -> str:
        return str(self.body["nick"])

    @property
    def fingerprint(self) -> str:
        """The short form of its identity key, as the host's list shows it."""
        return fingerprint(self.author)


@dataclass(frozen=True)
class Mark:
    """Something the host should know about a guest's name or key.

    ``text`` is a message id (``N_``) formatted with ``params`` in the host's
    language; ``warn``: a reason to look twice (accepting by name then needs the
    number or fingerprint), else a plain note (a key known from the history).
    """

    text: str
    params: tuple[tuple[str, object], ...] = ()
    warn: bool = True


@dataclass(frozen=True)
class Removed:
    """A player the host removed or refused: its name and address mark look-alikes later."""

    nick: str
    key: bytes
    address: str


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

    With ``approve`` a guest waits at most :data:`APPROVAL_TTL` seconds, and one
    address (:func:`~zsy_lan.protocol.source.address_group`) holds at most
    :data:`MAX_PENDING_PER_ADDRESS` waiting places, so strangers cannot lock the list.
    The host picks a waiting guest by number or key fingerprint (:meth:`pick_waiting`), and
    :meth:`marks` says what it should know first: a name that looks like
    another's (UTS #39, :mod:`zsy_lan.text.lookalike`), a removed player's name
    on a new key, a key known from the host's history or a known name on
    another key. A name that looks like a seated player's but is not the same
    text is refused outright.
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
    #: Identity keys the host has played with (``zsy history``) → the nick they last had.
    known: dict[bytes, str] = field(default_factory=dict)
    #: Players removed or refused, newest last (at most :data:`REMOVED_KEPT`).
    removed: list[Removed] = field(default_factory=list)
    #: Source address of each seated guest's identity key (for :attr:`removed`).
    addresses: dict[bytes, str] = field(default_factory=dict)
    #: Waiting guests :meth:`expire` let go, for the caller to tell (and empty).
    expired: list[Pending] = field(default_factory=list)
    #: The last waiting number given.
    last_number: int = 0

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

        A guest waiting for the host's ``accept`` is kept longer, as the host is
        the one taking time (and sees and can refuse each of them), but not for
        ever: after :data:`APPROVAL_TTL` it goes to :attr:`expired`, for the
        caller to tell it and the host, and its place is free again.
        """
        for key, p in list(self.pending.items()):
            ttl = APPROVAL_TTL if p.waiting_approval else PENDING_TTL
            if now - p.since > ttl:
                del self.pending[key]
                if p.waiting_approval:
                    self.expired.append(p)

    def on_join(
        self, msg: LobbyMessage, now: float = 0.0, address: str = ""
    ) -> tuple[bytes, str | None]:
        """Answer a join: ``(reply frame, refusal reason or None)``.

        ``address``: the connection's source address (``Mesh.guest_address``);
        one address holds at most :data:`MAX_PENDING_PER_ADDRESS` pending joins
        (``""``, unknown, is bounded only by :data:`MAX_PENDING`).
        """
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
        if problem is None and existing is None:
            problem = self._lookalike_problem(clean_join(msg.body)["nick"], msg.author)
        if problem is not None:
            return self.refusal(problem), problem
        if existing is None:
            self.expire(now)
            curve = _curve_of(msg)
            old = self.pending.pop(curve, None)  # one per connection: a new join replaces it
            problem = None if msg.author in self.hosted else self._address_full(address, curve)
            if problem is not None:
                if old is not None:
                    self.pending[curve] = old
                return self.refusal(problem), problem
            while len(self.pending) >= MAX_PENDING:
                # the oldest that is not waiting for the host's answer goes
                key = next((k for k, p in self.pending.items() if not p.waiting_approval), None)
                if key is None:
                    if old is not None:
                        self.pending[curve] = old
                    problem = N_("too many players are waiting for the host's answer: try later")
                    return self.refusal(problem), problem
                del self.pending[key]
            self.pending[curve] = Pending(msg.author, clean_join(msg.body), now, address=address)
        return self.welcome(), None

    def _address_full(self, address: str, curve: bytes) -> str | None:
        """The refusal when ``address`` already holds :data:`MAX_PENDING_PER_ADDRESS` guests
        waiting for the host's answer (``None``: it has room, or the address is unknown).

        Only waiting places count: a join that has not asked to sit yet is kept a
        few seconds at most, and the host's own bots (all from its own address)
        never wait.
        """
        if not address or not self.approve_each:
            return None
        bucket = address_group(address)
        held = sum(
            1
            for k, p in self.pending.items()
            if k != curve and p.waiting_approval and address_group(p.address) == bucket
        )
        if held < MAX_PENDING_PER_ADDRESS:
            return None
        return N_("too many players from your address are waiting for the host's answer: try later")

    def _lookalike_problem(self, nick: str, author: bytes) -> str | None:
        """The refusal of a name that reads like a seated player's but is not the same text.

        The same text is no impostor's trick (the seat is named ``nick-2``); a
        look-alike (``hоst`` with a Cyrillic о beside ``host``) would read the
        same on every screen, so it is refused, saying whose name it looks like.
        The host's own bots are never refused.
        """
        if author in self.hosted:
            return None
        for s in self.roster.seats:
            if s.key != author and s.nick != nick and looks_alike(s.nick, nick):
                letters = unusual_letters(nick)
                return LOOKALIKE_NAME.format(nick=nick, seat=s.seat, other=s.nick) + (
                    LOOKALIKE_LETTERS.format(letters=letters) if letters else ""
                )
        return None

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
        elif (lookalike := self._lookalike_problem(pending.nick, pending.author)) is not None:
            reason = lookalike  # a seat sat down since the join
        elif pending.author not in self.hosted and (
            full := self._address_full(pending.address, bytes.fromhex(pending.body["curve"]))
        ):
            reason = full  # this address holds its waiting places already
        elif self.approve_each and pending.author not in self.hosted:
            pending.waiting_approval = True
            pending.since = now
            self.last_number += 1
            pending.number = self.last_number
            return None, None, None
        else:
            return None, self._seat(pending), None
        return self.refusal(reason), None, reason

    def awaiting(self) -> list[Pending]:
        """Guests that asked to sit and wait for the host's ``accept``, by their number."""
        return sorted(
            (p for p in self.pending.values() if p.waiting_approval), key=lambda p: p.number
        )

    def pick_waiting(self, who: str, *, careful: bool = True) -> tuple[Pending | None, str | None]:
        """The waiting guest ``who`` names, or the problem (a message id, ``N_``).

        ``who`` is a waiting number (``3`` or ``#3``), the start of a key
        fingerprint (``1a2b`` or ``1a2b:3c4d``), or a name. A name picks only a
        guest it names alone whose name bears no warning (:meth:`marks`): eight
        "alice"s, or an "аlice" beside a friend's "alice", are told apart by number
        or fingerprint. Any guest that ``who`` could mean counts, so a nick
        spelled like another guest's number or fingerprint makes it ambiguous,
        never the wrong one. Empty: the only guest waiting, if it bears no warning.
        ``careful=False`` (to refuse, which harms nobody it was not meant for) lets a
        warning pass: one "alice" alone is refused by name even when marked.
        """
        waiting = self.awaiting()
        if not waiting:
            return None, N_("nobody of that name is waiting to sit down")
        if not who:
            if len(waiting) > 1:
                return None, N_(
                    "several players are waiting: type the number or the key of the one you "
                    "mean (who lists them)"
                )
            if careful and self._warned(waiting[0]):
                return None, MARKED
            return waiting[0], None
        number = who[1:] if who.startswith("#") else who
        by_number = [p for p in waiting if number.isdigit() and int(number) == p.number]
        hexes = who.lower().replace(":", "")
        by_key = [
            p
            for p in waiting
            if len(hexes) >= 4
            and all(c in "0123456789abcdef" for c in hexes)
            and p.fingerprint.replace(":", "").startswith(hexes)
        ]
        by_name = [p for p in waiting if looks_alike(p.nick, who)]
        meant = list({id(p): p for p in by_number + by_key + by_name}.values())
        if not meant:
            return None, N_("nobody of that name is waiting to sit down")
        if len(meant) > 1:
            return None, N_(
                "several waiting players could be meant: type the number or the key of one "
                "(who lists them)"
            )
        p = meant[0]
        if careful and p not in by_number and p not in by_key and self._warned(p):
            return None, MARKED
        return p, None

    def approve(self, who: str) -> tuple[Seat | None, str | None]:
        """Seat the waiting guest ``who`` names (:meth:`pick_waiting`).

        The problem, when there is one, is a message id (``N_``): the caller words
        it in the host's language with ``_()``, so a German host reads German.
        """
        p, problem = self.pick_waiting(who)
        if p is None:
            return None, problem
        if self.free <= 0:
            return None, N_("the table is full")
        lookalike = self._lookalike_problem(p.nick, p.author)
        if lookalike is not None:  # a seat sat down since it asked: it reads like that one
            return None, N_(
                "their name looks like a seated player's: refuse them (they may join again "
                "under another name)"
            )
        return self._seat(p), None

    def refuse(self, who: str) -> tuple[Pending | None, str | None]:
        """Turn away the waiting guest ``who`` names (:meth:`pick_waiting`); its keys stay out."""
        p, problem = self.pick_waiting(who, careful=False)
        if p is None:
            return None, problem
        self.pending.pop(bytes.fromhex(p.body["curve"]), None)
        self.banned.update({p.author, bytes.fromhex(p.body["curve"])})
        self._remember_removed(Removed(p.nick, p.author, p.address))
        return p, None

    def marks(self, nick: str, key: bytes, address: str = "") -> list[Mark]:
        """What the host should know about a guest called ``nick`` with identity ``key``.

        Its name against the other waiting guests, the seats, the players the
        host removed or refused, and the players of the host's history (the
        same name with another key is a warning; the same key a note).
        """
        out: list[Mark] = []
        if any(p.author != key and looks_alike(p.nick, nick) for p in self.awaiting()):
            out.append(Mark(MARK_SAME_WAITING))
        for s in self.roster.seats:
            if s.key != key and looks_alike(s.nick, nick):
                out.append(Mark(MARK_LIKE_SEAT, (("seat", s.seat), ("nick", s.nick))))
        others = [r for r in reversed(self.removed) if r.key != key]  # newest first
        like = next((r for r in others if looks_alike(r.nick, nick)), None)
        if like is not None:  # the name says more than the address
            out.append(Mark(MARK_LIKE_REMOVED, (("nick", like.nick),)))
        elif address:
            bucket = address_group(address)
            same = next((r for r in others if address_group(r.address) == bucket), None)
            if same is not None:  # a shared machine or NAT: only a note
                out.append(Mark(MARK_ADDRESS_REMOVED, (("nick", same.nick),), warn=False))
        if key in self.known:
            out.append(Mark(MARK_KNOWN, (("nick", self.known[key]),), warn=False))
        else:
            other = next((n for k, n in self.known.items() if looks_alike(n, nick)), None)
            if other is not None:
                out.append(Mark(MARK_NOT_KNOWN_KEY, (("nick", other),)))
        return out

    def _warned(self, p: Pending) -> bool:
        return any(m.warn for m in self.marks(p.nick, p.author, p.address))

    def _remember_removed(self, removed: Removed) -> None:
        self.removed.append(removed)
        del self.removed[:-REMOVED_KEPT]

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
        self.addresses[seat.key] = pending.address
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
        address = self.addresses.pop(seat.key, "")
        if ban:
            self.banned.update({seat.key, seat.curve})
            self._remember_removed(Removed(seat.nick, seat.key, address))
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
        taken = [s.nick for s in self.roster.seats]
        if nick not in taken:
            return nick
        n = 2
        while True:
            suffix = f"-{n}"
            candidate = nick[: NICK_MAX - len(suffix)] + suffix
            if not any(looks_alike(candidate, t) for t in taken):
                return candidate
            n += 1

    def roster_frame(self) -> bytes:
        """The signed roster, sent to every seat when the table is full."""
        return seal_lobby(self.identity, "roster", self.roster.to_json())


def _curve_of(msg: LobbyMessage) -> bytes:
    """The CURVE key a checked join carries (the connection it came on)."""
    return bytes.fromhex(msg.body["curve"])
