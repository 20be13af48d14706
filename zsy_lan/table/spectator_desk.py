"""The host's spectator desk: it admits spectators by key and streams them the table's record.

Why a module of its own (issue #15): a spectator is no seat. It never enters
the roster, the replica, the votes or the quorum; it only reads the table's
record. So the host's side of it lives here, hooked into the lobby and the peer
with a few lines; the spectator's side is :mod:`.watch`, the frames both speak
:mod:`.watch_frames` and the record followed line by line :mod:`.follower`.

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
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from zsy_lan.net.broker import BrokerAddress
from zsy_lan.net.transport import RELAYED, Guest, Mesh
from zsy_lan.protocol.bucket import Bucket
from zsy_lan.protocol.envelope import MAGIC as GAME_MAGIC
from zsy_lan.protocol.identity import Identity
from zsy_lan.protocol.lobby import NICK_MAX, is_lobby_frame, seal_lobby
from zsy_lan.protocol.source import address_group
from zsy_lan.record.store import StorageError, private_dir, write_private
from zsy_lan.table.follower import Follower, FollowError, rounds_done
from zsy_lan.table.reach import join_url
from zsy_lan.table.relay_join import relay_suffix
from zsy_lan.table.session import Notice
from zsy_lan.table.watch_frames import (
    ASK_TTL,
    BATCH_BYTES,
    BUCKET,
    BYE_BUDGET,
    CLOSE_BUDGET,
    FORGOTTEN,
    FROM_WATCHER,
    GONE_AFTER,
    MAX_ASKING,
    MAX_WATCHER_FRAME,
    MAX_WATCHERS,
    MODES,
    OPEN_DEAL_NOTE,
    PER_ADDRESS,
    PING_EVERY,
    PUMP_EVERY,
    RATE,
    REWIND_BURST,
    REWIND_EVERY,
    REWIND_RATE,
    START_EVERY,
    STARTS_PER_ADDRESS,
    Watcher,
    WatchError,
    WatchMessage,
    check_watch,
    is_watch_frame,
    open_watch,
    seal_watch,
)
from zsy_lan.text.i18n import N_, _, join_clauses, join_items
from zsy_lan.text.sanitize import clean_or

log = logging.getLogger("zsy.spectate")


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
    frames: Bucket = field(default_factory=lambda: Bucket(RATE, BUCKET, 0.0))  # from ``last``
    told_misbehaving: bool = False
    reset_due: bool = False  # the record was rewound: say so before any line
    acked: int = -1  # the position its last ping reported
    address: str = ""  # its source address group (protocol.source): places are bounded per address
    rewound: float = float("-inf")  # when the host last sent again from an earlier position


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
    #: the desk's clock (tests inject one)
    clock: Callable[[], float] = time.monotonic
    #: bytes all spectators' rewinds may still cost (see ``_on_ping``); made on first use
    _rewinds: Bucket | None = None
    #: per source address: the watch requests it may still make (see ``_start_allowed``)
    _starts: dict[str, Bucket] = field(default_factory=dict)
    #: rewinds served and put off, and the bytes they resent (for the log and the bench)
    rewind_stats: dict[str, int] = field(
        default_factory=lambda: {"served": 0, "deferred": 0, "bytes": 0}
    )

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
        now = self.clock()
        w = self.seen.get(key)
        if w is None:
            if len(self.seen) >= MAX_WATCHERS + MAX_ASKING:
                self._forget_strangers()
            if len(self.seen) >= MAX_WATCHERS + MAX_ASKING:
                log.info("spectators: no room for another connection")
                return
            address = self.mesh.guest_address(key)
            address = "" if address == RELAYED else address_group(address)
            w = self.seen[key] = _Seen(
                key, since=now, last=now, frames=Bucket(RATE, BUCKET, now), address=address
            )
        w.last = now
        if not w.frames.take(now):
            self._misbehaved(w, N_("spectator {nick} sends too many messages: ignored"))
            return
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

        Such a rewind costs the host its upload again, and a hostile spectator
        could ask for one every few seconds from position 0 (issue #25: sixteen
        of them tripled what sixteen honest ones cost). So a rewind is served at
        most once per :data:`REWIND_EVERY` per spectator, and only while the
        desk's shared budget of resent bytes lasts; one put off is served at a
        later ping that still reports the same position. An honest loss is rare
        and small, so it is served at once.
        """
        if not isinstance(at, int) or isinstance(at, bool) or not 0 <= at <= w.offset:
            return
        if at < w.offset and at == w.acked:
            self._rewind(w, at)
        w.acked = at

    def _rewind(self, w: _Seen, at: int) -> None:
        """Send again from ``at`` if this spectator's interval and the shared budget allow."""
        now = self.clock()
        if self._rewinds is None:
            self._rewinds = Bucket(REWIND_RATE, REWIND_BURST, now)
        cost = w.offset - at
        if now - w.rewound < REWIND_EVERY or not self._rewinds.take(now, min(cost, REWIND_BURST)):
            self.rewind_stats["deferred"] += 1
            log.debug("spectators: %s asks again from %d: put off", w.nick, at)
            return
        w.offset, w.rewound = at, now
        self.rewind_stats["served"] += 1
        self.rewind_stats["bytes"] += cost
        log.info("spectators: %s lost part of the record: sending again from %d", w.nick, at)

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
        if problem is None and self._places_of(w.address) >= PER_ADDRESS:
            problem = N_(
                "your network address already holds as many spectator places at this table as "
                "one address may: stop another zsy watch there, or try later"
            )
        if problem is None and self.mode == "ask" and len(self.asking()) >= MAX_ASKING:
            problem = N_("too many spectators are waiting for the host's answer: try later")
        if problem is None and not self._start_allowed(w.address):
            problem = N_(
                "your network address asked to watch this table too often: wait a minute, "
                "then watch again"
            )
        if problem is not None:
            self._send(w.key, "refused", {"reason": problem})
            self.seen.pop(w.key, None)
            return
        w.author = msg.author
        w.nick = self._unique_nick(clean_or(msg.body.get("nick"), "spectator", NICK_MAX))
        if self.mode == "open":
            self._admit(w)
            return
        w.state, w.since = "asking", self.clock()
        self._send(w.key, "asked", {})
        self.notify(
            _("{nick} asks to watch: type accept {nick} or refuse {nick}").format(nick=w.nick)
        )

    def _places_of(self, address: str) -> int:
        """Places (watching or waiting) held from ``address`` (unknown addresses: not bounded).

        A spectator through a relay has no address the host can see; the relay
        bounds what one address may register there.
        """
        if not address:
            return 0
        return sum(1 for w in self.seen.values() if w.address == address and w.state != "new")

    def _start_allowed(self, address: str) -> bool:
        """One more watch request from ``address`` (a new spectator is a whole catch-up)."""
        if not address:
            return True
        now = self.clock()
        if len(self._starts) >= 256:  # bounded: addresses whose allowance is whole again go
            for old in [a for a, b in self._starts.items() if b.refill(now) >= b.burst]:
                del self._starts[old]
        bucket = self._starts.get(address)
        if bucket is None:
            bucket = self._starts[address] = Bucket(
                1.0 / START_EVERY, STARTS_PER_ADDRESS, now
            )
        return bucket.take(now)

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
        now = self.clock()
        stalled = 0.0 if self._pumped is None else now - self._pumped - PUMP_EVERY
        self._pumped = now
        if stalled > PING_EVERY:
            for w in self.seen.values():
                w.last = min(now, w.last + stalled)  # never ahead of now
                w.frames.pause(stalled, now)  # the same shift: the stall earns no tokens
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
    relay: BrokerAddress | None = None,
) -> SpectatorDesk | None:
    """A resumed host (seat 0) opens its spectator desk again, with the table's setting.

    Before, a host that came back served nobody: its spectators were told it
    left, and ``zsy watch`` could not reach the table again. It prints its
    watch line again (the same endpoint and key; the relay part when the table
    uses one). Listing it on mDNS again is :func:`zsy_lan.table.resuming.resume_table`'s
    (async; the addresses are :func:`saved_listing`'s). ``None``: not the host,
    or ``--spectators off``.
    """
    mode = saved_spectators(peer.store.path)
    if peer.seat != 0 or mode == "off":
        return None

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
