"""Spectators: ``zsy watch`` on one side, the host's :class:`SpectatorDesk` on the other.

Why a module of its own (issue #15): a spectator is no seat. It never enters
the roster, the replica, the votes or the quorum; it only reads the table's
record. So everything about it lives here, hooked into the lobby, the peer and
the CLI with a few lines.

How it works
------------
* The spectator makes a fresh identity (Ed25519 plus its own CURVE key pair),
  connects to the **host's** mesh (the host's peer is the one serving
  spectators; the other seats never admit a spectator's key) and sends a
  signed ``watch`` request (:data:`MAGIC`, like the lobby's frames).
* The host decides by ``zsy host --spectators ask|open|off``: ``ask`` (the
  default) waits for the host to type ``accept NICK`` or ``refuse NICK``,
  ``open`` admits everyone, ``off`` refuses everyone. An admitted spectator's
  CURVE key is admitted on the host's mesh under the peer id :class:`Watcher`,
  so its frames are told apart from every seat's and never reach the replica.
* The host sends the spectator its record: the transcript file, line by line
  from its header (catch-up), then each new line (live). Every line is a
  seat's signed frame; the spectator re-verifies them as ``zsy replay
  --verify`` does (:class:`Follower`) and tells the public view.
* Private deal: every frame of the record is public (what every seat's
  replica receives); a card passed face down is sealed to its receiver. So
  the spectator holds exactly the public facts: cards as played, counts,
  bids, the kitty when it is turned. The keys that open every card are in the
  record only from the end-of-round reveal on, when every seat learns them.
* Open deal: every hand follows from the shared seed, so the host sends a
  round's lines only once that round has ended (a delay of one round). The
  table and the spectator are told so (:data:`OPEN_DEAL_NOTE`).
* A spectator may send only ``watch``, ``ping`` and ``leave``, small and
  rate-limited. Anything else (a game frame, a vote, a lobby frame) is
  dropped and named as that spectator's misbehaviour, never a seat's.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import json
import logging
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from zsy_lan.engine.cards import cards_str
from zsy_lan.engine.game import Game
from zsy_lan.engine.rules import Rules
from zsy_lan.net.relay import RelayAddress
from zsy_lan.net.transport import Guest, LinkState, Mesh
from zsy_lan.protocol.chat import BURST as CHAT_BURST
from zsy_lan.protocol.chat import Bucket, notice_mark
from zsy_lan.protocol.chat import read as read_chat
from zsy_lan.protocol.envelope import MAGIC as GAME_MAGIC
from zsy_lan.protocol.identity import Identity, verify_curve_key
from zsy_lan.protocol.signed import open_signed, seal_signed
from zsy_lan.protocol.transcript import (
    TAMPERED,
    TranscriptChecker,
    VerifyResult,
    load_entry,
    load_header,
)
from zsy_lan.record.header import game_from_header
from zsy_lan.record.replay import reason_text
from zsy_lan.record.retell import TracingPrivateGame
from zsy_lan.record.store import StorageError, private_dir, write_private
from zsy_lan.table.clock import is_clock, note_text, read_clock
from zsy_lan.table.lobby import NAME_MAX, NICK_MAX, REASON_MAX, is_lobby_frame, seal_lobby
from zsy_lan.text.i18n import N_, _, deal_word, join_clauses, join_items, ngettext
from zsy_lan.text.present import describe, round_over_text
from zsy_lan.text.sanitize import clean, clean_or

log = logging.getLogger("zsy.spectate")

MAGIC = b"ZSYWATCH1\n"
WATCH_VERSION = 1
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

#: finished rounds a spectator keeps in memory, as a seat's replica (``peer.RETAIN_ROUNDS``)
RETAIN_ROUNDS = 2

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


# --------------------------------------------------------------------------- following


class FollowError(ValueError):
    """The record failed verification: ``line`` (1-based, the header is 1) and why.

    ``kind`` is :data:`~zsy_lan.protocol.transcript.TAMPERED` (a signature or a
    rule proven broken: ``culprit`` may name the seat) or ``DAMAGED`` (a line
    missing, repeated or out of place: it names nobody), as ``zsy replay`` says.
    """

    def __init__(
        self, line: int, reason: str, culprit: int | None = None, kind: str = TAMPERED
    ) -> None:
        super().__init__(reason)
        self.line = line
        self.reason = reason
        self.culprit = culprit
        self.kind = kind

    def verdict(self) -> str:
        """In the reader's words, exactly as ``zsy replay --verify`` says it."""
        return reason_text(self.kind, self.line, self.reason, self.culprit)


class TracingGame(Game):
    """An open-deal game that notes what a spectator is told (like :class:`TracingPrivateGame`)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.trace: list[tuple[Any, ...]] = []
        super().__init__(*args, **kwargs)

    def start_round(self, seed: bytes) -> None:
        super().start_round(seed)
        self.trace.append(("deal", self.match.round))

    def apply(self, seat: int, action: Any) -> None:
        before, results = self.match.round, len(self.match.results)
        super().apply(seat, action)
        if before is not None and self.match.round is not None:
            self.trace.append(("step", before, self.log[-1], self.match.round))
        if len(self.match.results) > results:
            self.trace.append(("result", self.match))
        if self.finished():
            self.trace.append(("over", self.match))

    def void_round(self, seat: int, reason: str) -> None:
        super().void_round(seat, reason)
        self.trace.append(("void", seat, reason))


def rounds_done(game: Game) -> int:
    """Rounds the game has closed: scored or voided (a boundary of the open-deal delay)."""
    return len(game.match.results) + len(game.voids)


class Follower:
    """Re-verifies a record line by line as it arrives, like ``zsy replay --verify``.

    The checks are ``zsy replay``'s own (:class:`~zsy_lan.protocol.transcript.
    TranscriptChecker`: each signature, feed chain, commitment and action on a
    fresh game that knows no hand, and the order), one line at a time, so a live
    spectator never re-reads what it already checked and reaches the verdict
    ``zsy replay`` reaches on the same lines: a line that fails raises
    :class:`FollowError`; :meth:`end` says how the lines so far end (cut inside a
    step: unfinished; a leftover that cannot be: DAMAGED). The game is an
    observer: with the private deal it holds no key that opens a hidden card
    before the round's reveal.

    Memory does not grow with the match: the frames of rounds older than the
    last ``retain`` leave it (as a seat's replica, ``RETAIN_ROUNDS``), and the
    story the :class:`Teller` has told is dropped (:meth:`forget_told`). What
    stays of an old line is its hash and number, so verification is unchanged.
    """

    def __init__(self, header: str, retain: int | None = RETAIN_ROUNDS) -> None:
        self.header = header
        self.rules, rounds, self.meta = game_from_header(header)
        self.table, self.roster = load_header(header)
        self.private = self.meta.get("deal") == "private"
        if self.private:
            self.game: Game = TracingPrivateGame(self.rules, rounds, table=self.table, seat=None)
        else:
            self.game = TracingGame(self.rules, rounds)
        self.checker = TranscriptChecker(self.table, self.roster, self.game, retain=retain)
        self.ledger = self.checker.ledger
        self.nicks = {
            int(k): clean_or(v, f"seat {k}", NICK_MAX)
            for k, v in dict(self.meta.get("nicks") or {}).items()
        }
        #: chat lines (asides) verified and not told yet: (trace position then, seat, body),
        #: in record order; the record writes a seat's line just before its next entry
        self.chats: list[tuple[int, int, Any]] = []
        #: trace events dropped once told (positions in :attr:`chats` count them too)
        self.trace_base = 0

    @property
    def lines(self) -> int:
        """Lines checked so far, the header included."""
        return self.checker.lines

    @property
    def head(self) -> str:
        """The transcript head so far (equal to every seat's once they hold the same lines)."""
        return self.ledger.head

    def add(self, line: str) -> None:
        """Check and apply one record line; :class:`FollowError` names what is wrong."""
        bad = self.checker.add(line)
        if bad is not None:
            raise FollowError(bad.bad_line or self.lines, bad.reason, bad.culprit, bad.kind)
        env = self.checker.last
        if env is not None and self.checker.last_aside and env.type == "chat":
            # verified like the rest; judged when told (Teller)
            at = self.trace_base + len(self.game.trace)  # type: ignore[attr-defined]
            self.chats.append((at, env.seat, env.body))

    def end(self) -> VerifyResult:
        """The verdict on the lines so far if the record ends here (the host went away)."""
        return self.checker.end()

    def forget_told(self, events: int, chats: int) -> None:
        """The first ``events`` trace events and ``chats`` chat lines were told: drop them.

        Each step's event holds the round's state before and after it, so a
        trace kept whole would grow with the match.
        """
        trace = self.game.trace  # type: ignore[attr-defined]
        del trace[:events]
        self.trace_base += events
        del self.chats[:chats]


class Teller:
    """The public view in words, from a :class:`Follower`'s trace (a spectator's screen)."""

    def __init__(self, follower: Follower) -> None:
        self.f = follower
        self.kitty_told = -1  # the round whose turned-up kitty was told
        self.chats_told = 0
        # a seat's chat shown: CHAT_BURST lines at once, then one more per event of the game
        # (the record's own pace, never a clock: a catch-up shows what live would)
        self._chat_buckets: dict[int, Bucket] = {}
        self._flooding: set[int] = set()

    def who(self, seat: int | None) -> str:
        if seat is None:
            return "?"
        nick = self.f.nicks.get(seat)
        return _("seat {seat} ({nick})").format(seat=seat, nick=nick) if nick else str(seat)

    def new_lines(self) -> list[str]:
        """Lines for what the record showed since the last call.

        With the private deal also the game's own notes, the ones every seat
        gets as an observer would (the deal done, an audit's verdict, a void),
        and the Dou Dizhu kitty once it is turned up for everyone.
        """
        game = self.f.game
        trace = game.trace  # type: ignore[attr-defined]
        base = self.f.trace_base  # the events before it were told and dropped
        out: list[str] = []
        for i, event in enumerate(trace):
            out.extend(self._chat_until(base + i))
            out.extend(self._tell(event))
        out.extend(self._chat_until(base + len(trace)))
        self.f.forget_told(len(trace), self.chats_told)  # told: memory need not keep it
        self.chats_told = 0
        out.extend(clean(note) for note in game.pop_notes())  # the private deal's verdicts
        if game.hidden_hands:
            r = game.match.round
            kitty = r.get("kitty") if r is not None else None
            if kitty and self.kitty_told != r.round_no:
                self.kitty_told = r.round_no
                out.append(_("The kitty is turned up: {cards}").format(cards=cards_str(kitty)))
        return out

    def _chat_until(self, at: int) -> list[str]:
        """The chat lines of the record said before trace event ``at``, as the seats show them.

        Judged and cleaned like at a seat (:func:`zsy_lan.protocol.chat.read`: a quick
        phrase in this reader's language, free text cleaned, anything else
        dropped with its reason in the log); a table clock note is told as the
        seats read it. A seat over its share is named once as flooding.
        """
        out: list[str] = []
        chats = self.f.chats
        while self.chats_told < len(chats) and chats[self.chats_told][0] <= at:
            when, seat, body = chats[self.chats_told]
            self.chats_told += 1
            name = self.f.nicks.get(seat) or _("seat {seat}").format(seat=seat)
            if is_clock(body):
                event = read_clock(body)
                if event is not None:
                    out.append(notice_mark("net") + note_text(event, name))
                continue
            text, why = read_chat(body)
            if text is None:
                log.info("watch: chat from seat %s dropped: %s", seat, why)
                continue
            bucket = self._chat_buckets.setdefault(seat, Bucket(1.0, CHAT_BURST, when))
            if not bucket.take(when):
                if seat not in self._flooding:
                    self._flooding.add(seat)
                    out.append(
                        notice_mark("net")
                        + _("{name} is flooding the chat; their extra lines are hidden").format(
                            name=name
                        )
                    )
                continue
            self._flooding.discard(seat)
            out.append(notice_mark("chat") + _("{name}: {text}").format(name=name, text=text))
        return out

    def _tell(self, ev: tuple[Any, ...]) -> list[str]:
        rules: Rules = self.f.rules
        kind = ev[0]
        if kind == "deal":
            r = ev[1]
            counts = join_items(
                _("{who} {n}").format(who=self.who(s), n=n) for s, n in enumerate(r.counts)
            )
            out = [_("Round {n} dealt; cards: {counts}").format(n=r.round_no, counts=counts)]
            if not self.f.private:  # the open deal: shown after the round ended, hands public
                out += [
                    _("  {who} held {cards}").format(who=self.who(s), cards=cards_str(h))
                    for s, h in enumerate(r.hands)
                    if h is not None
                ]
            return out
        if kind == "step":
            _before, action, after = ev[1], ev[2], ev[3]
            who, play = self.who(action.seat), describe(action, rules=rules)
            if action.kind == "play" and 0 <= action.seat < len(after.counts):
                # one sentence, so that a language writes its own spacing between the
                # play's and the count's brackets (Chinese: none between "）（")
                return [
                    _("{who}: {play} ({n} left)").format(
                        who=who, play=play, n=after.counts[action.seat]
                    )
                ]
            return [_("{who}: {play}").format(who=who, play=play)]
        if kind == "result":
            return [round_over_text(rules, ev[1], self.who)]
        if kind == "void":
            return [
                _("The round was voided: {who} withheld its part ({why}).").format(
                    who=self.who(ev[1]), why=clean(str(ev[2]), REASON_MAX)
                )
            ]
        if kind == "opened":
            return []  # the audit's verdict is the game's own note
        if kind == "over":
            winners = join_items(self.who(s) for s in ev[1].winners)
            return [_("Match over. Winner: {winners}.").format(winners=winners)]
        return []


# --------------------------------------------------------------------------- the host's desk


@dataclass
class _Seen:
    """One spectator connection as the host knows it."""

    key: bytes  # its CURVE key (the connection)
    author: bytes = b""
    nick: str = ""
    state: str = "new"  # new, asking, watching
    since: float = 0.0
    last: float = 0.0
    offset: int = 0  # bytes of the record sent so far
    tokens: float = BUCKET
    told_misbehaving: bool = False
    reset_due: bool = False  # the record was rewound: say so before any line
    acked: int = -1  # the position its last ping reported


@dataclass
class SpectatorDesk:
    """The host's side: admits spectators by key and streams them the record.

    ``mode`` is ``ask``, ``open`` or ``off``. ``notify`` tells the host's
    player (the lobby's ``notify`` first, the table's notices once
    :meth:`attach` has a peer). Nothing a spectator sends reaches the replica:
    :meth:`on_frame` is where the peer and the lobby hand every frame of a
    connection that is not a seat.
    """

    identity: Identity
    mode: str
    mesh: Mesh
    notify: Callable[[str], None]
    deal: str = "private"
    table_name: str = "table"
    seen: dict[bytes, _Seen] = field(default_factory=dict)
    banned: set[bytes] = field(default_factory=set)
    #: (nick, what it did) for every misbehaviour, newest last (bounded)
    misbehaviour: list[tuple[str, str]] = field(default_factory=list)
    record: Path | None = None
    seats: list[int] = field(default_factory=list)
    _peer: Any = None
    _pump: asyncio.Task[None] | None = None
    _sends: set[asyncio.Task[Any]] = field(default_factory=set)
    _allowed: int = 0  # bytes of the record a spectator may have (open deal: ended rounds)
    _follow_at: int = 0  # bytes of the record the host's own follower has read
    _follower: Follower | None = None
    _ino: int | None = None
    _finished: bool = False
    _pumped: float | None = None  # when the pump last looked (a stalled host is not a silence)
    #: the table's mDNS advert, handed over once the table is full (``discovery.Advertiser``):
    #: it stays listed as full and watchable until :meth:`close` withdraws it
    advertiser: Any = None

    # --- wiring ----------------------------------------------------------------------
    def start(self) -> None:
        """Start the pump (expiry, and the record once :meth:`attach` gave a peer)."""
        if self._pump is None:
            self._pump = asyncio.create_task(self._run(), name="zsy-spectators")

    def attach(self, peer: Any) -> None:
        """The match begins: stream ``peer``'s record; tell seats through the mesh."""
        self._peer = peer
        self.record = peer.store.transcript_path
        self.seats = [s.seat for s in peer.roster.seats if s.seat != peer.seat]
        self.notify = lambda text: _tell_peer(peer, text)
        peer.spectators = self
        folder = getattr(peer.store, "path", None)
        if isinstance(folder, Path):  # a resumed host serves spectators again (reopen_desk)
            save_spectators(folder, self.mode)
            listed = getattr(self.advertiser, "interfaces", None)
            if listed:  # listed as full: a resumed host is listed again (resume_table)
                save_listing(folder, list(listed))
        for w in self.watching():
            self._news(_("{nick} is watching").format(nick=w.nick), w.nick, joined=True)

    def watching(self) -> list[_Seen]:
        return [w for w in self.seen.values() if w.state == "watching"]

    def asking(self) -> list[_Seen]:
        return [w for w in self.seen.values() if w.state == "asking"]

    # --- frames from spectators --------------------------------------------------------
    def on_frame(self, peer_id: object, frame: bytes) -> None:
        """Every frame of a connection that is not a seat (a spectator or a stranger)."""
        key = getattr(peer_id, "public_key", None)
        if not isinstance(key, bytes) or key in self.banned:
            return
        now = time.monotonic()
        w = self.seen.get(key)
        if w is None:
            if len(self.seen) >= MAX_WATCHERS + MAX_ASKING:
                self._forget_strangers()
            if len(self.seen) >= MAX_WATCHERS + MAX_ASKING:
                log.info("spectators: no room for another connection")
                return
            w = self.seen[key] = _Seen(key, since=now, last=now)
        w.tokens = min(BUCKET, w.tokens + (now - w.last) * RATE)
        w.last = now
        if w.tokens < 1.0:
            self._misbehaved(w, N_("spectator {nick} sends too many messages: ignored"))
            return
        w.tokens -= 1.0
        if len(frame) > MAX_WATCHER_FRAME:
            self._misbehaved(w, N_("spectator {nick} sent an oversized message: ignored"))
            return
        if frame.startswith(GAME_MAGIC):
            self._misbehaved(
                w,
                N_(
                    "spectator {nick} sent a game message (a spectator never plays or votes): "
                    "ignored"
                ),
            )
            return
        if is_lobby_frame(frame):
            if w.state == "watching":
                self._misbehaved(
                    w,
                    N_(
                        "spectator {nick} sent a lobby message (a spectator never sits down): "
                        "ignored"
                    ),
                )
            elif self._peer is not None:  # a late joiner: say why it cannot sit
                self._reply_lobby(key)
            return
        try:
            msg = open_watch(frame, MAX_WATCHER_FRAME)
        except WatchError as exc:
            if w.state == "watching":
                self._misbehaved(
                    w, N_("spectator {nick} sent a message that is not a spectator's: ignored")
                )
            log.info("spectators: refused a frame: %s", exc)
            return
        if msg.kind not in FROM_WATCHER:
            self._misbehaved(w, N_("spectator {nick} sent a message only the host sends: ignored"))
            return
        if w.author and msg.author != w.author:
            self._misbehaved(w, N_("spectator {nick} signed with another identity: ignored"))
            return
        if msg.kind == "watch":
            self._on_watch(w, msg)
        elif msg.kind == "leave":
            self._drop(w, _("{nick} stopped watching").format(nick=w.nick) if w.nick else "")
        elif msg.kind == "ping" and w.state == "watching":
            self._on_ping(w, msg.body.get("at"))
        elif msg.kind == "ping" and w.state == "new" and "at" in msg.body:
            # a spectator this desk let go (silent too long) still follows: tell it, or it
            # would wait for lines that never come
            self._send(w.key, "bye", {"reason": FORGOTTEN})
            self.seen.pop(w.key, None)

    def _on_ping(self, w: _Seen, at: object) -> None:
        """A spectator says how much of the record it holds; behind twice running: send again.

        libzmq may lose frames when a link drops (``docs/network.md``); a batch
        the spectator never got would leave it waiting for ever, since it
        takes only the batch that follows what it holds. Once the
        same position comes twice while the host has sent more, the host
        sends again from there (a batch that crossed a ping just arrives twice,
        and the second copy is skipped).
        """
        if not isinstance(at, int) or isinstance(at, bool) or not 0 <= at <= w.offset:
            return
        if at < w.offset and at == w.acked:
            w.offset = at
        w.acked = at

    def _on_watch(self, w: _Seen, msg: WatchMessage) -> None:
        if w.state in ("asking", "watching"):
            return  # asked already: the host decides, or it watches
        problem = check_watch(msg, w.key)
        if problem is None and self.mode == "off":
            problem = N_("this table admits no spectators (its host chose --spectators off)")
        if problem is None and msg.author in self.banned:
            problem = N_("the host did not let you watch this table")
        if problem is None and len(self.watching()) >= MAX_WATCHERS:
            problem = N_("this table has as many spectators as it allows: try later")
        if problem is None and self.mode == "ask" and len(self.asking()) >= MAX_ASKING:
            problem = N_("too many spectators are waiting for the host's answer: try later")
        if problem is not None:
            self._send(w.key, "refused", {"reason": problem})
            self.seen.pop(w.key, None)
            return
        w.author = msg.author
        w.nick = self._unique_nick(clean_or(msg.body.get("nick"), "spectator", NICK_MAX))
        if self.mode == "open":
            self._admit(w)
            return
        w.state, w.since = "asking", time.monotonic()
        self._send(w.key, "asked", {})
        self.notify(
            _("{nick} asks to watch: type accept {nick} or refuse {nick}").format(nick=w.nick)
        )

    def _unique_nick(self, nick: str) -> str:
        taken = {w.nick for w in self.seen.values()}
        if self._peer is not None:
            taken |= {s.nick for s in self._peer.roster.seats}
        n, out = 2, nick
        while out in taken:
            suffix = f"-{n}"
            out, n = nick[: NICK_MAX - len(suffix)] + suffix, n + 1
        return out

    def _admit(self, w: _Seen) -> None:
        try:
            self.mesh.admit(Watcher(w.key), w.key)
        except ValueError as exc:  # the key is a seat's: never a spectator
            self._send(w.key, "refused", {"reason": N_("a seat cannot watch its own table")})
            self.seen.pop(w.key, None)
            log.info("spectators: %s", exc)
            return
        w.state, w.offset = "watching", 0
        body = {"name": self.table_name, "deal": self.deal, "delayed": self.deal == "open"}
        self._send(w.key, "welcome", body)
        said = _("{nick} is watching").format(nick=w.nick)
        if self.deal == "open":
            said = _("{nick} is watching ({note})").format(nick=w.nick, note=_(OPEN_DEAL_NOTE))
        self._news(said, w.nick, joined=True)

    def command(self, line: str) -> str | None:
        """``accept NICK`` / ``refuse NICK`` / ``watchers``: the answer, or ``None`` (not ours).

        A name that is nobody waiting to watch returns ``None``, so the same
        words still answer a player waiting to sit down (``zsy host --approve``).
        """
        word, _sp, arg = line.strip().partition(" ")
        word, arg = word.lower(), arg.strip()
        if word == "watchers":
            names = join_items(w.nick for w in self.watching()) or _("nobody")
            asking = join_items(w.nick for w in self.asking())
            said = [_("watching: {names}").format(names=names)]
            if asking:
                said.append(_("asking to watch: {names}").format(names=asking))
            return join_clauses(said)
        if word not in ("accept", "refuse"):
            return None
        waiting = [w for w in self.asking() if not arg or w.nick == arg]
        if len(waiting) != 1:
            return None
        w = waiting[0]
        if word == "accept":
            self._admit(w)
            return _("{nick} may watch").format(nick=w.nick)
        self.banned.update({w.key, w.author})
        self._send(w.key, "refused", {"reason": N_("the host did not let you watch this table")})
        self.seen.pop(w.key, None)
        return _("refused {nick}").format(nick=w.nick)

    def _misbehaved(self, w: _Seen, sentence: str) -> None:
        """Name a spectator's bad frame (never a seat's); told to the host once per spectator.

        ``sentence`` (marked with ``N_``, a ``{nick}`` in it) is logged and kept
        in English and shown translated.
        """
        who = w.nick or "?"
        said = sentence.format(nick=who)
        log.warning("%s", said)
        self.misbehaviour.append((who, said))
        del self.misbehaviour[:-64]
        if not w.told_misbehaving and w.state == "watching":
            w.told_misbehaving = True
            self.notify(_(sentence).format(nick=who))

    def _drop(self, w: _Seen, said: str) -> None:
        self.seen.pop(w.key, None)
        if w.state == "watching":
            self.mesh.revoke(Watcher(w.key))
            if said:
                self._news(said, w.nick, joined=False)

    def _forget_strangers(self) -> None:
        """Make room: connections that never asked anything go first."""
        for key in [k for k, w in self.seen.items() if w.state == "new"]:
            del self.seen[key]

    def _reply_lobby(self, key: bytes) -> None:
        reason = N_("the match has started: this table seats nobody new (zsy watch to watch it)")
        frame = seal_lobby(self.identity, "refused", {"reason": reason})
        self._spawn(self.mesh.send(Guest(key), frame, timeout=0.5))

    # --- what the host sends ---------------------------------------------------------------
    def _peer_id(self, key: bytes) -> object:
        return Watcher(key) if self.mesh.peer_for_key(key) == Watcher(key) else Guest(key)

    def _send(self, key: bytes, kind: str, body: dict[str, Any]) -> None:
        frame = seal_watch(self.identity, kind, body)
        self._spawn(self.mesh.send(self._peer_id(key), frame, timeout=1.0))

    def _spawn(self, coro: Any) -> None:
        task = asyncio.ensure_future(coro)
        self._sends.add(task)
        task.add_done_callback(self._sent)

    def _sent(self, task: asyncio.Task[Any]) -> None:
        self._sends.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.debug("spectators: a send failed: %s", task.exception())

    def _news(self, text: str, nick: str, *, joined: bool) -> None:
        """Tell the host's player and every seat who watches (or stopped)."""
        self.notify(text)
        if self._peer is None:
            return
        frame = seal_watch(self.identity, "news", {"nick": nick, "joined": joined})
        for seat in self.seats:
            self._spawn(self.mesh.send(seat, frame, timeout=1.0))

    # --- the pump --------------------------------------------------------------------------
    async def _run(self) -> None:
        while True:
            try:
                await self.pump()
            except asyncio.CancelledError:
                raise
            except Exception:  # noqa: BLE001 - a spectator must never stop the table
                log.exception("spectators: pump failed")
            await asyncio.sleep(PUMP_EVERY)

    async def pump(self) -> None:
        """Expire the silent, then send each spectator what it may have of the record.

        Silence is counted while the host listened: if this pump ran late (the host's
        loop was busy, e.g. dealing under load), the frames that came meanwhile may
        not be read yet, so the wait is added to every connection's last word.
        """
        now = time.monotonic()
        stalled = 0.0 if self._pumped is None else now - self._pumped - PUMP_EVERY
        self._pumped = now
        if stalled > PING_EVERY:
            for w in self.seen.values():
                w.last = min(now, w.last + stalled)  # never ahead: it also refills the bucket
        for w in list(self.seen.values()):
            if w.state == "watching" and now - w.last > GONE_AFTER:
                self._drop(w, _("{nick} stopped watching").format(nick=w.nick))
            elif w.state == "asking" and now - w.since > ASK_TTL:
                self._send(w.key, "refused", {"reason": N_("the host did not answer in time")})
                self.seen.pop(w.key, None)
            elif w.state == "new" and now - w.last > GONE_AFTER:
                self.seen.pop(w.key, None)
        if self.record is None or not self.record.exists():
            return
        st = self.record.stat()
        if self._ino is not None and (st.st_ino != self._ino or st.st_size < self._follow_at):
            self._rewound()
        self._ino = st.st_ino
        self._advance(st.st_size)
        for w in self.watching():
            await self._feed(w)

    def _rewound(self) -> None:
        """The record was cut back (the table rewound): every spectator starts again."""
        self._follow_at, self._allowed, self._follower = 0, 0, None
        for w in self.watching():
            w.offset, w.reset_due, w.acked = 0, True, -1

    def _advance(self, size: int) -> None:
        """How much of the record a spectator may have now.

        Private deal: all of it. Open deal: up to the end of the last round
        that ended (the host follows its own record to find it).
        """
        if self.deal != "open":
            self._allowed = self._follow_at = size
            return
        if self._follow_at >= size or self.record is None:
            return
        with self.record.open("rb") as f:
            f.seek(self._follow_at)
            data = f.read(size - self._follow_at)
        end = data.rfind(b"\n") + 1
        pos = self._follow_at
        for raw in data[:end].split(b"\n")[:-1]:
            pos += len(raw) + 1
            line = raw.decode("utf-8")
            try:
                if self._follower is None:
                    self._follower = Follower(line)
                    continue
                before = rounds_done(self._follower.game)
                self._follower.add(line)
            except (FollowError, ValueError) as exc:
                log.warning("spectators: the host's own record does not verify: %s", exc)
                self._follow_at = size  # stop following; spectators get nothing more
                return
            game = self._follower.game
            self._follower.forget_told(len(game.trace), len(self._follower.chats))  # type: ignore[attr-defined]
            if rounds_done(game) > before or game.finished():
                self._allowed = pos
            if game.finished():
                self._finished = True
        self._follow_at = pos
        if self._finished:
            self._allowed = self._follow_at

    async def _feed(self, w: _Seen) -> None:
        if w.reset_due:  # in order: the reset, then the lines from the start
            reset = seal_watch(self.identity, "reset", {})
            try:
                if not await self.mesh.send(Watcher(w.key), reset, 1.0):
                    return
            except Exception as exc:  # noqa: BLE001 - a spectator's link must not stop the pump
                log.debug("spectators: cannot send to %s: %s", w.nick, exc)
                return
            w.reset_due = False
        if self.record is None or w.offset >= self._allowed:
            return
        with self.record.open("rb") as f:
            f.seek(w.offset)
            data = f.read(min(self._allowed - w.offset, BATCH_BYTES))
        end = data.rfind(b"\n") + 1
        if end == 0:
            if len(data) >= BATCH_BYTES:
                log.warning("spectators: a record line is larger than a batch")
            return
        lines = data[:end].decode("utf-8").split("\n")[:-1]
        frame = seal_watch(self.identity, "lines", {"at": w.offset, "lines": lines})
        try:
            ok = await self.mesh.send(Watcher(w.key), frame, timeout=1.0)
        except Exception as exc:  # noqa: BLE001 - a spectator's link must not stop the pump
            log.debug("spectators: cannot send to %s: %s", w.nick, exc)
            return
        if ok:
            w.offset += end

    async def close(self, reason: str = N_("the host left the table")) -> None:
        """Withdraw the advert, send what is left of the record, ``bye``, wait for the leaves.

        All within :data:`CLOSE_BUDGET`. A spectator let in just before the host
        closes (a bots-only match is over in seconds) may lack most of the record:
        the pump sends one batch a look, so the rest is sent here, every batch,
        before the ``bye``. The host's socket is closed at once afterwards
        (linger 0), dropping what it still holds: so the desk waits until each
        spectator says ``leave``, which it sends once it has read the ``bye`` and
        so everything before it. A spectator that cannot answer in time is left
        to find the host gone.
        """
        start = time.monotonic()
        adv, self.advertiser = self.advertiser, None
        if adv is not None:  # first: nobody new finds a table that is closing
            with contextlib.suppress(Exception):
                await asyncio.wait_for(adv.close(), 2.0)
        if self._pump is not None:
            self._pump.cancel()
            with contextlib.suppress(BaseException):
                await self._pump
            self._pump = None
        flush_until = start + CLOSE_BUDGET - BYE_BUDGET
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self._flush(), max(flush_until - time.monotonic(), 0.5))
        frame = seal_watch(self.identity, "bye", {"reason": reason})
        sends = [self.mesh.send(self._peer_id(w.key), frame, timeout=0.5) for w in self.watching()]
        sends += [self.mesh.send(Guest(w.key), frame, timeout=0.5) for w in self.asking()]
        with contextlib.suppress(BaseException):
            await asyncio.wait_for(asyncio.gather(*sends, return_exceptions=True), 1.0)
        with contextlib.suppress(Exception):
            await self._await_leaves(max(start + CLOSE_BUDGET, time.monotonic() + 0.5))
        for task in list(self._sends):
            task.cancel()

    async def _flush(self) -> None:
        """Send every spectator all of the record it may have, batch after batch."""
        await self.pump()  # the record's newest lines (and the expiry) first
        while True:
            behind = [w for w in self.watching() if w.reset_due or w.offset < self._allowed]
            if not behind:
                return
            moved = False
            for w in behind:
                before = (w.offset, w.reset_due)
                await self._feed(w)
                moved = moved or (w.offset, w.reset_due) != before
            if not moved:  # a full queue or a link down: look again shortly
                await asyncio.sleep(0.05)

    async def _await_leaves(self, until: float) -> None:
        """Until ``until``, hand the spectators' frames to :meth:`on_frame` till none watches.

        While the host's seat runs, its handler does that (``on_spectator_frame``);
        once it stopped, nobody reads the socket, so the frames are taken here.
        """
        peer = self._peer
        while self.watching():
            left = until - time.monotonic()
            if left <= 0:
                return
            if peer is not None and not peer.stopped.is_set():
                await asyncio.sleep(min(left, 0.05))
                continue
            try:
                peer_id, frame = await asyncio.wait_for(self.mesh.recv(), min(left, 0.25))
            except TimeoutError:
                continue
            if isinstance(peer_id, (Guest, Watcher)):
                self.on_frame(peer_id, frame)


#: the host's ``--spectators`` mode, kept in the table's folder for a resume
SPECTATORS_FILE = "spectators"


def save_spectators(folder: Path, mode: str) -> None:
    """Remember the desk's mode next to the record: a host that resumes serves the same way."""
    try:  # as the table's other files: 0700 folder, 0600 file, replaced atomically
        private_dir(folder)
        write_private(folder / SPECTATORS_FILE, (mode + "\n").encode())
    except StorageError as exc:  # a resumed host then serves none: say so in the log
        log.warning("cannot save the spectator setting in %s: %s", folder, exc)


#: the addresses the host's table was listed on (mDNS), kept for a resume; absent: not listed
LISTING_FILE = "listed"


def save_listing(folder: Path, interfaces: list[str]) -> None:
    """Remember the addresses the table is listed on with mDNS once full.

    A host resumed with ``zsy join`` lists the table again on the same addresses,
    as the fresh table was once full (``zsy watch NAME`` finds it); a table its
    host kept off the network (``--no-mdns``, ``--spectators off``) has no such
    file and is never listed on a resume.
    """
    try:
        private_dir(folder)
        write_private(folder / LISTING_FILE, json.dumps(interfaces).encode())
    except StorageError as exc:  # a resumed host is then not listed: the log says
        log.warning("cannot save where the table is listed in %s: %s", folder, exc)


def saved_listing(folder: Path) -> list[str] | None:
    """The IPv4 addresses the table was listed on, or ``None`` (not listed, or unreadable)."""
    try:
        data = json.loads((folder / LISTING_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, list) or not data or len(data) > 16:
        return None
    out = []
    for item in data:
        if not isinstance(item, str):
            return None
        try:
            out.append(str(ipaddress.IPv4Address(item)))
        except ValueError:
            return None
    return out


def saved_spectators(folder: Path) -> str:
    """The mode a table's host chose (``off`` when nothing readable was kept).

    A table hosted before the mode was kept, or whose file is damaged, serves
    no spectators on a resume: never more than its host chose.
    """
    try:
        mode = (folder / SPECTATORS_FILE).read_text(encoding="utf-8").strip()
    except (OSError, ValueError):
        return "off"
    return mode if mode in MODES else "off"


def reopen_desk(
    peer: Any,
    mesh: Mesh,
    identity: Identity,
    notify: Callable[[str], None],
    relay: RelayAddress | None = None,
) -> SpectatorDesk | None:
    """A resumed host (seat 0) opens its spectator desk again, with the table's setting.

    Before, a host that came back served nobody: its spectators were told it
    left, and ``zsy watch`` could not reach the table again. It prints its
    watch line again (the same endpoint and key; the relay part when the table
    uses one). Listing it on mDNS again is :func:`zsy_lan.table.hosting.resume_table`'s
    (async; the addresses are :func:`saved_listing`'s). ``None``: not the host,
    or ``--spectators off``.
    """
    mode = saved_spectators(peer.store.path)
    if peer.seat != 0 or mode == "off":
        return None
    from zsy_lan.table.hosting import join_url
    from zsy_lan.table.relay_join import relay_suffix

    roster = peer.roster
    desk = SpectatorDesk(identity, mode, mesh, notify, roster.deal, roster.name)
    mesh.set_open_admission(True)  # spectators knock with unknown keys (guests capped)
    desk.attach(peer)
    desk.start()
    url = join_url(mesh.endpoint, identity.curve_public)
    if relay is not None:
        url += relay_suffix(relay, roster.table)
    notify(watch_line(url, mode, roster.deal))
    return desk


def _tell_peer(peer: Any, text: str) -> None:
    """A line for a seat's player: a ``net`` notice, and the screen woken up."""
    from zsy_lan.table.session import Notice

    peer.notices.put_nowait(Notice("net", text))
    peer.changed.set()


def on_spectator_frame(peer: Any, peer_id: object, frame: bytes) -> bool:
    """The seated peer's hook: True when ``frame`` is a spectator's business, never the replica's.

    A frame on a connection that is not a seat (a spectator, a stranger) goes
    to the host's desk (or nowhere); a spectator frame on a seat's link is the
    host's news of who watches.
    """
    if isinstance(peer_id, (Guest, Watcher)):
        desk = getattr(peer, "spectators", None)
        if desk is not None:
            desk.on_frame(peer_id, frame)
        return True
    if is_watch_frame(frame):
        seat_news(peer, peer_id, frame)
        return True
    return False


def watcher_nicks(session: Any) -> list[str]:
    """Who watches this table, for ``who``: the host's desk knows; a seat heard the news."""
    desk = getattr(session, "spectators", None)
    if desk is not None:
        return [w.nick for w in desk.watching()]
    return list(getattr(session, "watching_nicks", None) or ())


def seat_news(peer: Any, peer_id: object, frame: bytes) -> None:
    """A seat hears who watches: a ``news`` frame signed by the host (seat 0), on its link."""
    try:
        msg = open_watch(frame)
    except WatchError as exc:
        log.info("spectator news refused: %s", exc)
        return
    host = peer.roster.seats[0].key if peer.roster.seats else b""
    if peer_id != 0 or msg.author != host or msg.kind != "news":
        log.info("spectator news not from the host: ignored")
        return
    nick = clean_or(msg.body.get("nick"), "spectator", NICK_MAX)
    nicks = getattr(peer, "watching_nicks", None)
    if nicks is None:
        nicks = peer.watching_nicks = []
    if msg.body.get("joined") is True and nick not in nicks and len(nicks) < MAX_WATCHERS:
        nicks.append(nick)
    elif msg.body.get("joined") is not True and nick in nicks:
        nicks.remove(nick)
    if msg.body.get("joined") is not True:
        text = _("{nick} stopped watching").format(nick=nick)
    elif peer.roster.deal == "open":
        text = _("{nick} is watching ({note})").format(nick=nick, note=_(OPEN_DEAL_NOTE))
    else:
        text = _("{nick} is watching").format(nick=nick)
    _tell_peer(peer, text)


# --------------------------------------------------------------------------- zsy watch


@dataclass
class WatchOutcome:
    """How a watch ended: ``why`` in words, ``ok`` False after a failed verification."""

    why: str
    ok: bool
    follower: Follower | None


class _WatchLink:
    """Remembers the last failure of the link to the host (an ``on_link`` callback)."""

    def __init__(self) -> None:
        self.failed: LinkState | None = None

    def __call__(self, ev: Any) -> None:
        if ev.state in (LinkState.AUTH_FAILED, LinkState.HANDSHAKE_FAILED):
            self.failed = ev.state
        elif ev.state is LinkState.CONNECTED:
            self.failed = None


async def watch_table(
    endpoint: str,
    host_curve: bytes,
    nick: str,
    address: str,
    *,
    show: Callable[[str], None] = print,
    record: Path | None = None,
    on_batch: Callable[[Follower, list[bytes]], None] | None = None,
    ask_timeout: float = ASK_TTL,
    identity: Identity | None = None,
    stop: asyncio.Event | None = None,
    commands: asyncio.Queue[str] | None = None,
    answer: Callable[[str, Follower | None], list[str]] | None = None,
    relay: RelayAddress | None = None,
    scope: str = "",
    keep_frames: bool = True,
    after_end: float = 0.0,
) -> WatchOutcome:
    """``zsy watch``: ask the host, then follow its record until the match ends.

    ``after_end``: seconds to read on once the record shows the match over, for the
    last words said after the last move, until the host's ``bye`` (``zsy watch``
    passes :data:`AFTER_END`). 0 stops at the last move: for a caller that closes
    the host itself once the spectator is done (the tests' in-process tables).

    ``relay`` and ``scope`` (the table id): the relay the host's watch line
    names (``zsy host --relay``). The spectator registers there in the
    table's scope before it reaches for the host, so a spectator that cannot
    reach the host's address watches through the relay (end-to-end sealed,
    as every seat's links); a direct link is used whenever it is up.

    ``commands``: lines the spectator types; ``quit`` (or ``exit``) stops
    watching, any other goes to ``answer`` (the read-only table words the
    CLI knows: ``table``, ``who``...), whose lines are shown.

    ``show`` gets every line for the screen. ``record``: the lines received
    are also written there (``zsy replay`` verifies it). ``on_batch`` (tests)
    sees the follower and every raw frame received so far after each batch;
    ``keep_frames=False`` hands it an empty list instead (``zsy watch``: a
    list of every frame would grow with the match).
    Raises :class:`~zsy_lan.table.hosting.TableError` (one sentence) when the host
    refuses or cannot be reached.
    """
    from zsy_lan.table.hosting import HOST_GONE_AFTER, _refused, reach_host, start_mesh

    identity = identity or Identity.generate()  # a spectator's own keys, never a seat's
    link = _WatchLink()
    mesh = await start_mesh(identity, address, 0, on_link=link)
    out_file = None
    try:
        if relay is not None:  # first: the host may be reachable only through it
            from zsy_lan.table.relay_join import attach as relay_attach

            why = await relay_attach(mesh, relay, scope, "join", 5.0)
            if why:
                show(why)  # the direct address may still answer
        await reach_host(
            mesh,
            endpoint,
            host_curve,
            lambda: link.failed,
            refused=_(
                "the table at {endpoint} admits no spectators: its host chose "
                "--spectators off, or the table has closed"
            ),
            wrong_key=_(
                "the table at {endpoint} does not have the key in your line: copy the "
                "whole tcp://ADDR:PORT#KEY line the host printed"
            ),
            timeout=ANSWER_TIMEOUT,
        )
        request = seal_watch(identity, "watch", watch_body(identity, nick))
        await mesh.send(0, request, timeout=ANSWER_TIMEOUT)
        welcome = await _await_welcome(mesh, identity, request, show, ask_timeout)
        if welcome.kind == "refused":
            raise _refused(welcome)  # type: ignore[arg-type]
        host_key = welcome.author
        name = clean_or(welcome.body.get("name"), "table", NAME_MAX)
        deal = "open" if welcome.body.get("deal") == "open" else "private"
        show(
            _(
                "Watching table '{name}' ({deal} deal) as a spectator: you see what every "
                "seat sees in public, never a hand. Type table to see the table, quit to stop."
            ).format(name=name, deal=deal_word(deal))
        )
        if deal == "open":
            show(_(OPEN_DEAL_NOTE))
        if record is not None:
            record.parent.mkdir(parents=True, exist_ok=True)
            out_file = record.open("w", encoding="utf-8")
        return await _follow(
            mesh,
            identity,
            host_key,
            show,
            out_file,
            on_batch,
            stop,
            HOST_GONE_AFTER,
            commands,
            answer,
            keep_frames and on_batch is not None,
            after_end,
        )
    finally:
        if out_file is not None:
            out_file.close()
        with contextlib.suppress(BaseException):
            await asyncio.wait_for(
                mesh.send(0, seal_watch(identity, "leave", {}), timeout=0.3), 0.5
            )
        await mesh.close()


async def _next(mesh: Mesh, timeout: float) -> WatchMessage | None:
    """The next verified spectator frame from the host's link, or ``None`` after ``timeout``."""
    deadline = time.monotonic() + timeout
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            return None
        try:
            peer_id, frame = await asyncio.wait_for(mesh.recv(), left)
        except TimeoutError:
            return None
        if peer_id != 0:
            continue
        if is_lobby_frame(frame):  # the host's lobby answers a stranger: say why
            from zsy_lan.table.lobby import LobbyError, open_lobby

            with contextlib.suppress(LobbyError):
                lob = open_lobby(frame)
                if lob.kind in ("refused", "bye"):
                    return WatchMessage("refused", lob.author, lob.body)
            continue
        try:
            return open_watch(frame)
        except WatchError as exc:
            log.info("watch: refused a frame from the host: %s", exc)


async def _await_welcome(
    mesh: Mesh,
    identity: Identity,
    request: bytes,
    show: Callable[[str], None],
    ask_timeout: float,
) -> WatchMessage:
    """Wait for ``welcome`` or ``refused``: the request again while unanswered, then pings."""
    from zsy_lan.table.hosting import TableError

    deadline = time.monotonic() + ANSWER_TIMEOUT
    asked = False
    last_ping = time.monotonic()
    ping = seal_watch(identity, "ping", {})
    while True:
        msg = await _next(mesh, 1.0)
        now = time.monotonic()
        if msg is not None and msg.kind in ("welcome", "refused"):
            return msg
        if msg is not None and msg.kind == "bye":
            return WatchMessage("refused", msg.author, msg.body)
        if msg is not None and msg.kind == "asked" and not asked:
            asked = True
            deadline = now + ask_timeout
            show(_("asked to watch; waiting for the host to let you in"))
        if now - last_ping >= PING_EVERY:
            last_ping = now
            with contextlib.suppress(Exception):
                await mesh.send(0, ping if asked else request, timeout=0.5)
        if now >= deadline:
            raise TableError(
                _("the host did not let you in in time; try again later")
                if asked
                else _("the host did not answer the request to watch")
            )


async def _follow(
    mesh: Mesh,
    identity: Identity,
    host_key: bytes,
    show: Callable[[str], None],
    out_file: Any,
    on_batch: Callable[[Follower, list[bytes]], None] | None,
    stop: asyncio.Event | None,
    gone_after: float,
    commands: asyncio.Queue[str] | None = None,
    answer: Callable[[str, Follower | None], list[str]] | None = None,
    keep_frames: bool = False,
    after_end: float = 0.0,
) -> WatchOutcome:
    """Receive, verify and tell the record until the match ends, the host leaves or ``stop``.

    The host is given up for lost only when both its link has been down and nothing
    came from it for ``gone_after`` seconds: a host still heard from (a link whose
    state lags, a relay) is followed on, and the time this spectator spends
    verifying a long catch-up never counts as the host's silence.

    Once the record shows the match over, the spectator reads on until the host's
    ``bye`` (at most ``after_end`` seconds, or :data:`END_GONE` without its link):
    the chat said after the last move (gg) is in the record after it, and a
    spectator that stopped at the last move never saw it. ``after_end`` 0: it stops
    at the last move.
    """
    follower: Follower | None = None
    teller: Teller | None = None
    expected = 0
    last_ping = time.monotonic()
    heard = time.monotonic()  # the welcome, just now
    gone_since: float | None = None
    ended: float | None = None  # when the record showed the match over
    frames: list[bytes] = []
    while stop is None or not stop.is_set():
        while commands is not None and not commands.empty():
            typed = commands.get_nowait().strip()
            if typed.lower() in ("quit", "exit"):
                return WatchOutcome("quit", True, follower)
            if typed and answer is not None:
                for text in answer(typed, follower):
                    show(text)
        now = time.monotonic()
        if now - last_ping >= PING_EVERY:
            last_ping = now
            ping = seal_watch(identity, "ping", {"at": expected})  # what it holds: see _on_ping
            with contextlib.suppress(Exception):
                await mesh.send(0, ping, timeout=0.5)
        if mesh.is_connected(0):
            gone_since = None
        elif gone_since is None:
            gone_since = now
        elif ended is not None and now - gone_since >= END_GONE:
            return WatchOutcome(_("match over"), True, follower)  # the host closed: no more
        elif now - gone_since >= gone_after and now - heard >= gone_after:
            return WatchOutcome(_("lost the table's host"), _record_ends(follower, show), follower)
        if ended is not None and now - ended >= after_end:
            return WatchOutcome(_("match over"), True, follower)
        msg = await _next(mesh, 0.5)
        if msg is None or msg.author != host_key:
            continue
        heard = time.monotonic()
        if msg.kind == "bye":
            why = clean_or(msg.body.get("reason"), "the host left the table", REASON_MAX)
            if follower is not None and follower.game.finished():
                return WatchOutcome(_("match over"), True, follower)
            return WatchOutcome(_(why), _record_ends(follower, show), follower)
        if msg.kind == "reset":
            follower, teller, expected = None, None, 0
            show(_("the table rewound its record; catching up again"))
            if out_file is not None:
                out_file.seek(0)
                out_file.truncate()
            continue
        if msg.kind != "lines":
            continue
        lines = msg.body.get("lines")
        if msg.body.get("at") != expected or not isinstance(lines, list):
            continue  # a batch sent again after a lost one: the host re-sends from our offset
        try:
            for line in lines:
                if not isinstance(line, str):
                    where = follower.lines + 1 if follower is not None else 1
                    raise FollowError(where, "a record line is not text")
                expected += len(line.encode("utf-8")) + 1
                if follower is None:
                    follower = _first_line(line)
                    teller = Teller(follower)
                else:
                    follower.add(line)
                    if keep_frames:
                        frames.append(load_entry(line)[1])
                if out_file is not None:
                    out_file.write(line + "\n")
        except FollowError as exc:
            show(
                "! "
                + _("the table's record does not verify: {verdict}").format(verdict=exc.verdict())
            )
            return WatchOutcome(_("the record did not verify"), False, follower)
        if out_file is not None:
            out_file.flush()
        if teller is not None:
            for text in teller.new_lines():
                show(text)
        if on_batch is not None and follower is not None:
            on_batch(follower, frames)
        if ended is None and follower is not None and follower.game.finished():
            if after_end <= 0:
                return WatchOutcome(_("match over"), True, follower)
            ended = time.monotonic()  # the last words follow until the host's bye
            show(
                _(
                    "The match is over; the table's last words follow until the host closes "
                    "it (quit stops watching)."
                )
            )
        heard = time.monotonic()  # verifying the batch took this spectator's time, not the host's
    return WatchOutcome(_("stopped watching"), True, follower)


def _first_line(line: str) -> Follower:
    """A :class:`Follower` from the record's header; a header that is none is no record."""
    try:
        return Follower(line)
    except (ValueError, TypeError, KeyError) as exc:
        raise FollowError(1, f"not a zsy game record: {exc}") from None


def _record_ends(follower: Follower | None, show: Callable[[str], None]) -> bool:
    """The host went away before the match ended: how its record ends, as ``zsy replay`` says.

    A record cut between two lines or inside a step (the first messages of the
    batch the game waits for) is unfinished, never tampered; a leftover that
    cannot be is DAMAGED, which names no seat. False only then.
    """
    if follower is None:
        return True
    ends = follower.end()
    if not ends.ok:
        verdict = reason_text(ends.kind, ends.bad_line, ends.reason, ends.culprit)
        show("! " + _("the table's record does not verify: {verdict}").format(verdict=verdict))
        return False
    show(
        _(
            "Everything received verified; the host's record ends at line {line} (the match "
            "is unfinished)."
        ).format(line=ends.ends_at)
    )
    if ends.pending:
        show(
            ngettext(
                "(The last message is genuine but waits for the rest of its step, which the "
                "record does not have: it was cut short there.)",
                "(The last {n} messages are genuine but wait for the rest of their step, which "
                "the record does not have: it was cut short there.)",
                ends.pending,
            ).format(n=ends.pending)
        )
    return True


async def resolve_watch_target(
    target: str, interfaces: list[str], timeout: float, notify: Callable[[str], None]
) -> tuple[str, bytes]:
    """``zsy watch NAME|URL`` as ``(endpoint, host CURVE key)``.

    A name is looked up with mDNS like ``zsy join NAME``, but a full table is
    found too: a host that admits spectators keeps its table listed (``watch``
    in its TXT record) once the match runs. A table whose host admits none is
    refused here with the reason, rather than after a connection.
    """
    from zsy_lan.net.discovery import browse_tables, find_tables
    from zsy_lan.table.hosting import TableError, parse_join_url

    if target.startswith("tcp://"):
        return parse_join_url(target)
    named = await find_tables(target, interfaces, timeout=timeout)
    found = [t for t in named if t.watchable]
    if not found and named:
        raise TableError(
            _(
                "table '{name}' admits no spectators (its host chose --spectators off); ask "
                "the host"
            ).format(name=named[0].name)
        )
    if not found:
        seen = [t for t in await browse_tables(interfaces, timeout=1.0) if t.watchable]
        raise TableError(
            _(
                "no table named '{target}' that admits spectators was found on the network "
                "(tables to watch: {names}). mDNS does not cross subnets: ask the host for "
                "its zsy watch tcp://ADDR:PORT#KEY line"
            ).format(
                target=clean(target, NAME_MAX), names=join_items(t.name for t in seen) or _("none")
            )
        )
    ids = {t.table_id for t in found}
    if len(ids) > 1:
        listing = "; ".join(f"{t.name} (id {t.table_id}, host {t.fingerprint})" for t in found)
        raise TableError(
            _(
                "{n} tables are named '{target}': {listing}. Watch one by its id: zsy watch ID"
            ).format(n=len(ids), target=clean(target, NAME_MAX), listing=listing)
        )
    table = found[0]
    if table.endpoint is None:
        raise TableError(_("table '{name}' advertised no address").format(name=table.name))
    notify(
        _("watching '{name}' at {endpoint} (host {host})").format(
            name=table.name, endpoint=table.endpoint, host=table.fingerprint
        )
    )
    return table.endpoint, table.curve_key


def default_nick() -> str:
    """The login name, for a spectator that did not say its nick."""
    return clean_or(os.environ.get("USER") or os.environ.get("USERNAME"), "spectator", NICK_MAX)


def split_watch_target(target: str) -> tuple[str, RelayAddress | None, str]:
    """``zsy watch`` line as ``(line without the relay part, relay, table id)``.

    A host with ``--relay`` prints ``tcp://ADDR:PORT#KEY,relay=...,table=ID``
    (:func:`zsy_lan.table.relay_join.split_target`); a name or a plain line has no
    relay. A malformed relay part is a :class:`~zsy_lan.table.hosting.TableError`.
    """
    from zsy_lan.table.hosting import TableError
    from zsy_lan.table.relay_join import split_target

    if not (target.startswith("tcp://") and "," in target):
        return target, None, ""
    try:
        base, relay, scope = split_target(target)
    except ValueError as exc:
        raise TableError(str(exc)) from None
    return base, relay, scope or ""


def spectator_mode(requested: str, invite: bool) -> str:
    """The desk's mode: an invitation-only table never lets strangers watch unasked.

    ``open`` would let anyone who finds the table on the LAN watch a table its
    host keeps private; there the host lets each spectator in (``ask``).
    """
    return "ask" if invite and requested == "open" else requested


def watch_line(url: str, mode: str, deal: str) -> str:
    """What the host prints for spectators: the command, who lets them in, the open-deal delay.

    The line never carries an invitation secret (``zsy host --invite``): a
    spectator needs only the endpoint and the table's key, and the relay part
    (``,relay=...,table=ID``) when the host uses one.
    """
    base, comma, relay_part = url.partition(",")
    endpoint, _sep, fragment = base.partition("#")
    plain = f"{endpoint}#{fragment.partition('.')[0]}" + (comma + relay_part if comma else "")
    said = (
        _("Spectators watch with:  zsy watch {url}    (you let each one in: accept NICK)")
        if mode == "ask"
        else _("Spectators watch with:  zsy watch {url}    (anyone with this line may watch)")
    ).format(url=plain)
    if deal == "open":
        said = join_clauses([said, _(OPEN_DEAL_NOTE)])
    return said
