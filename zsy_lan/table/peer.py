"""A seated peer: the asyncio shell around the replica, the mesh and the game.

Everything that decides lives elsewhere: the rules in the engine, ordering,
signatures and delivery in the sans-IO :class:`~zsy_lan.protocol.Replica`.
This module only moves bytes and time in, and carries out the replica's
events: frames out (per-peer queues, so a dead peer never blocks the loop),
``Persist`` records fsynced *before* the sends that follow them, transcript
lines to disk, notices to the UI. It also implements
:class:`~zsy_lan.table.session.TableSession`, so the terminal UI and the bots
drive a seat the same way.

:class:`TablePeer` is a small core (issue #23): it owns the replica, the mesh,
the game and the seat's files, and wires components that each take events and
the time, tell notices or act through callables given at construction, and
read the table only through a :class:`~zsy_lan.table.seat_view.SeatView`: the
narration (:mod:`.narration`), the seat holding (:mod:`.holding`), the chat and
its clock notes (:mod:`.chat_desk`, :mod:`.clock`), this seat's bot
(:mod:`.seat_bot`), the frames on their way out (:mod:`.outbox`), and the host's
spectator desk (:mod:`.spectator_desk`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import time
from collections.abc import Callable
from typing import Any, ClassVar

from zsy_lan.deal.private_game import PrivateGame
from zsy_lan.engine.errors import PluginError
from zsy_lan.engine.game import Game
from zsy_lan.engine.rules import Rules
from zsy_lan.engine.ruleset import rules_from_config, ruleset_id
from zsy_lan.engine.state import Action
from zsy_lan.net.transport import Mesh
from zsy_lan.protocol import (
    TICK,
    Applied,
    Cheat,
    Event,
    Identity,
    PeerState,
    Persist,
    Rejected,
    Replica,
    RoundSeeded,
    Send,
    Stalled,
    Timing,
    Transcribed,
)
from zsy_lan.protocol.chat import ChatRoom
from zsy_lan.protocol.events import (
    FAULT_PREFIX,
    Aside,
    Fault,
    Flooding,
    Motion,
    RecordBehind,
    Released,
    Rewound,
    Said,
)
from zsy_lan.protocol.game_iface import fault_traceback
from zsy_lan.protocol.identity import fingerprint
from zsy_lan.protocol.lobby import Roster, is_lobby_frame
from zsy_lan.protocol.local_fault import PLUGIN, PROGRAM, RECORD_DAMAGED
from zsy_lan.record.header import game_from_header, transcript_header  # noqa: F401 - also the peer's
from zsy_lan.record.store import StorageError, TableStore, quietly
from zsy_lan.table.chat_desk import BotChat, ChatDesk, mutes_path
from zsy_lan.table.clock import feed_pairs, lobby_frame_dropped
from zsy_lan.table.holding import SeatHolder
from zsy_lan.table.narration import Narrator
from zsy_lan.table.outbox import BYE_WAIT, Outbox
from zsy_lan.table.seat_bot import Decider, SeatBot
from zsy_lan.table.seat_view import SeatView
from zsy_lan.table.session import Notice, NoticeQueue, SeatInfo, SessionState
from zsy_lan.table.settle import Settle
from zsy_lan.table.spectator_desk import on_spectator_frame
from zsy_lan.table.tuning import env_seconds, env_seconds_fields
from zsy_lan.text.bot_names import shown_nick
from zsy_lan.text.engine_text import translate as engine_said
from zsy_lan.text.i18n import _, ngettext
from zsy_lan.text.sanitize import clean

log = logging.getLogger("zsy.peer")

#: finished rounds a peer keeps in memory (Replica ``retain``; docs/performance.md)
RETAIN_ROUNDS = 2

#: Seconds a finished seat lingers at least, even once every seat holds what it holds: a
#: reply to the last lines (a bot's ``gg``) has this long to come in.
LINGER_LEVEL = 0.5

__all__ = ["RETAIN_ROUNDS", "Decider", "TablePeer", "seat_game", "table_timing"]

HOLD_ENV = "ZSY_HOLD_AFTER"  # seconds; overrides Timing.hold_after (tests, impatient tables)
#: ``heartbeat=0.25,want_retry=0.1``: Timing fields in seconds. Tests through a relay that
#: drops frames set it, so each loss is asked for again in a fraction of a second, not ~1 s.
TIMING_ENV = "ZSY_TIMING"


def table_timing(timing: Timing | None) -> Timing:
    """The timing a table peer runs with: ``timing`` or the defaults, with ``$ZSY_TIMING``
    and ``$ZSY_HOLD_AFTER``."""
    from dataclasses import fields, replace

    timing = timing or Timing()
    timing = replace(timing, **env_seconds_fields(TIMING_ENV, {f.name for f in fields(Timing)}))
    return replace(timing, hold_after=env_seconds(HOLD_ENV, timing.hold_after))


def seat_game(
    rules: Rules,
    roster: Roster,
    seat: int,
    store: TableStore,
    persist: Callable[[int, bytes], None],
) -> Game:
    """The replicated game: the engine alone (open deal) or with the private deal.

    With the private deal the per-deal secrets already in the journal come
    back (a resumed seat derives the very scalars it committed to), and a new
    one is fsynced to the journal (``persist``) before anything depending on it is sent.
    """
    if roster.deal != "private":
        return Game(rules, roster.rounds)
    secrets = {
        int(key.split("/", 1)[1]): data for key, data in store.journal() if key.startswith("deal/")
    }
    return PrivateGame(
        rules, roster.rounds, table=roster.table, seat=seat, secrets=secrets, persist=persist
    )


def self_blame(store: TableStore, reason: str) -> str:
    """The sentence for a cheat this seat's own replica proves against itself."""
    return _(
        "the table holds a message this seat signed that its own record ({file}) lacks "
        "({reason}): the record was damaged or replaced. This seat stopped so it cannot "
        "contradict itself; put the original files back, or move the folder {dir} aside "
        "to leave the table."
    ).format(file=store.journal_path, reason=reason, dir=store.path)


def record_behind(store: TableStore, ev: RecordBehind) -> str:
    """Why a seat whose journal lacks messages the table holds cannot resume (nothing signed)."""
    return _(
        "this seat's journal at {file} is missing messages the table has "
        "(the table holds {table_has} of this seat's messages, the journal "
        "{kept}): it cannot resume safely, its secrets for them are lost. "
        "Put the original journal back and run zsy join again, or move the "
        "folder {dir} aside to leave the table."
    ).format(file=store.journal_path, table_has=ev.table_has, kept=ev.kept, dir=store.path)


class TablePeer:
    """One seat at a table, on the network. Implements TableSession.

    What it tells the player is its :attr:`narration`'s, how it holds a dropped
    seat its :attr:`holding`'s, its chat its :attr:`chat_desk`'s; each replica
    event is carried out by its own method (:attr:`_ON_EVENT`).
    """

    #: the host's :class:`~zsy_lan.table.spectator_desk.SpectatorDesk` (``None``: none served)
    spectators: Any = None

    def __init__(
        self,
        identity: Identity,
        roster: Roster,
        seat: int,
        mesh: Mesh,
        store: TableStore,
        *,
        decider: Decider | None = None,
        timing: Timing | None = None,
        rules: Rules | None = None,
        linger: float = 3.0,
        bot_chat: bool = True,
    ) -> None:
        self.identity = identity
        self.roster = roster
        self.seat = seat
        self.mesh = mesh
        self.store = store
        self.decider = decider
        self.linger = linger
        self.rules = rules if rules is not None else rules_from_config(roster.config)
        self.game: Game = self._make_game(roster, seat, store)
        self.timing = table_timing(timing)
        self.replica = Replica(
            roster.table,
            seat,
            identity,
            roster.keys,
            self.game,
            entropy=os.urandom,
            timing=self.timing,
            relay=False,
            # a rebuild after a motion replays every feed into a fresh game
            game_factory=lambda: self._make_game(roster, seat, store),
            # a bot can hold a seat only where the cards are open; a private deal
            # can only be voted void (once the game supports it)
            motions=("void",) if roster.deal == "private" else ("hold",),
            # memory stays flat over long matches: older rounds live on disk only
            retain=RETAIN_ROUNDS,
            record=store.transcript_lines,  # what left memory, for a rebuild
        )
        self.info = SessionState(
            seats=[
                SeatInfo(
                    shown_nick(s.nick, s.bot),  # a hosted bot's nick in this player's language
                    s.bot,
                    run_by=s.hosted_by,
                    fingerprint=fingerprint(s.key),
                )
                for s in roster.seats
            ],
            deal_mode=roster.deal,
            table_name=roster.name,
            ruleset=ruleset_id(self.rules),
            settings=roster.settings,
        )
        self.notices: asyncio.Queue[Notice] = NoticeQueue()
        self.changed = asyncio.Event()
        self.stopped = asyncio.Event()
        self._tasks: list[asyncio.Task[Any]] = []
        self.fault: str | None = None  # this seat's own storage failed: it sends nothing more
        self._storage_failed: StorageError | None = None  # a secret's write failed in the game
        self._header = transcript_header(roster)
        self._t0 = time.monotonic()
        self._done_at: float | None = None  # when the match was seen finished
        self._over = asyncio.Event()  # the match is over and the linger has passed
        #: The host at a relayed table: answers a seated player's repeated sit with the roster.
        self.roster_echo: Callable[[int, bytes], None] | None = None
        self.watching_nicks: list[str] = []  # who watches, as the host's news told (spectators)
        self._wire(roster.table, bot_chat)

    def _wire(self, table: str, bot_chat: bool) -> None:
        """Build the components; each gets what it needs, none reads another's attributes."""
        tell = self.notices.put_nowait
        live = lambda: not self.stopped.is_set()  # noqa: E731 - the parts stop with the seat
        self.view = SeatView(self.seat, self.info.seats, lambda: self.game, lambda: self.replica)
        self.outbox = Outbox(self.mesh, blocked=lambda: self.fault is not None)
        self.narration = Narrator(self.view, self.rules, tell)
        self.settle = Settle(  # plays received are told SETTLE later, in order
            self.narration.play, self.changed.set, lambda: self.game.public_hash(), live
        )
        self.holding = SeatHolder(
            self.view,
            self.rules,
            self.identity.public_key,
            who=self.narration.who,
            tell=tell,
            move=self._move,
            hold=self._hold_silent,
            now=self._now,
            act_for=self._act_for,
            look_again=lambda: self._handle([]),
            live=live,
            plugin_failed=self._plugin_failed,
        )
        self.bot = SeatBot(
            self.view,
            self.rules,
            decider=lambda: self.decider,
            can_act=lambda: self.replica.can_act(),
            payload=self._payload,
            act=lambda payload: self._act(payload),  # late-bound: bench_table wraps _act
            look_again=lambda: self._handle([]),
            live=live,
            plugin_failed=self._plugin_failed,
        )
        # protocol/chat.py: this seat's lines and mutes; a bot seat may say a few phrases
        self.chat_desk = ChatDesk(
            self.seat,
            self.info.seats,
            tell,
            self._sign_chat,
            mutes=mutes_path(self.store),
            clock=self.info.settings.clock,  # another seat's timeout is judged by it
            game=lambda: self.game,
        )
        self.bot_chat = BotChat(
            table,
            self.seat,
            self.rules,
            game=lambda: self.game,
            has_bot=lambda: self.decider is not None,
            say=self._say_phrase,
            enabled=bot_chat,
        )

    def _make_game(self, roster: Roster, seat: int, store: TableStore) -> Game:
        """This seat's replicated game (:func:`seat_game`), its deal secrets journaled here."""
        return seat_game(
            self.rules,
            roster,
            seat,
            store,
            lambda deal_no, secret: self._persist_secret(store, deal_no, secret),
        )

    def _persist_secret(self, store: TableStore, deal_no: int, secret: bytes) -> None:
        """Journal a deal secret (fsynced) before the game uses it.

        Called from inside the game, whose caller (the ledger) takes any error
        there for a bug in the game code; a failed write is remembered here so
        the seat stops as a storage fault, saying which file and what to do.
        """
        try:
            store.persist(f"deal/{deal_no}", secret)
        except StorageError as exc:
            self._storage_failed = exc
            raise

    def _payload(self, action: Action) -> dict[str, Any]:
        """The feed action for a move: with the private deal, plus its keys or sealed pass."""
        return self.game.prepare(action.to_json())

    # --- TableSession --------------------------------------------------------

    async def submit(self, action: Action) -> str | None:
        """Sign and send an action for this seat; the reason if the replica refuses it."""
        try:
            payload = self._payload(action)
        except ValueError as exc:
            return str(exc)
        events = self._act(payload)
        return next(
            (e.reason for e in events if isinstance(e, Rejected) and e.sender == self.seat), None
        )

    async def vote(self, motion: str) -> str:
        """Vote ``motion`` ("void") about the seat(s) the table waits on; what happened, in words.

        The other seats' peers join the motion by themselves once one seat voted
        (:meth:`~zsy_lan.table.holding.SeatHolder.vote`).
        """
        return self.holding.vote(motion)

    @property
    def chat_room(self) -> ChatRoom:
        """This seat's chat room (its mutes), kept by its :attr:`chat_desk`."""
        return self.chat_desk.room

    async def chat(self, text: str) -> str | None:
        """Send what the player typed after ``say``; None when sent, else why not (a sentence)."""
        return self.chat_desk.chat(text, self._now())

    def mute(self, arg: str) -> str:
        """``mute SEAT|NAME``: hide that seat's chat here (kept for a resume)."""
        return self.chat_desk.mute(arg)

    def unmute(self, arg: str) -> str:
        """``unmute SEAT|NAME``, or ``unmute`` alone for every seat."""
        return self.chat_desk.unmute(arg)

    async def announce(self, event: str) -> bool:
        """Tell every other seat what this seat's clock did (signed into this seat's feed).

        ``False`` when the note could not be signed (a halted table, or a
        resumed seat still learning its own feed): the log says why.
        """
        return self.chat_desk.announce(event)

    def own_feed(self) -> list[tuple[str, Any]] | None:
        """This seat's own feed messages in memory, as ``(type, body)`` (the clock reads them)."""
        return feed_pairs(self.replica.ledger.feeds, self.seat)

    async def close(self) -> None:
        """Stop the loops and the socket tasks (the mesh is closed by its owner).

        Leaving a match under way on purpose (quit, Ctrl-C, end of input) says
        ``bye`` to every other seat first (bounded), so their screens tell at
        once that this seat left and what happens next; a seat stopped by a
        fault of its own already said so (:meth:`_tell_the_table`, awaited here)
        and sends nothing more, nor does a table a cheat halted.
        Leaving is the only other way to stop: ``zsy join``/``host`` set
        :attr:`stopped` when the player quits, and ``run`` then closes.
        """
        if self._tasks and not self.outbox.said_bye and self.info.stopped is None:
            self.outbox.said_bye = True
            await self._say_bye()
        await self.outbox.farewell_sent()  # a fault's bye leaves before the mesh closes
        self.stopped.set()
        self.mesh.set_handler(None)
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        self._tasks.clear()
        if self.fault is not None:
            quietly(self.store.close)  # already said once
            return
        try:
            self.store.close()
        except StorageError as exc:
            self._storage_fault(exc)

    def _tell_the_table(self, kind: str) -> None:
        """This seat stopped on a local fault of class ``kind``: a signed ``bye`` says so.

        Without it the others saw silence, then "seat N is withholding a move" until
        the timeout; with it they say at once that this seat stopped and why (one
        word of :mod:`~zsy_lan.protocol.local_fault`, never the OS's text), and may
        hold the seat or void the round at once. The ``bye`` is a control frame:
        nothing of this seat's feed is signed or sent (its journal may be what
        failed), so "durable before sent" still holds. Once, and not after the match
        ended; bounded like any bye (:meth:`close` waits for it).
        """
        if self.outbox.said_bye or not self._tasks or self.game.finished():
            return
        self.outbox.farewell([ev.frame for ev in self.replica.bye(kind) if isinstance(ev, Send)])

    def _cannot_resume(self, exc: StorageError) -> None:
        """This seat's record was refused on resume: the others, who wait for it, learn why.

        Nothing is signed into the feed and no file is touched: only the ``bye`` of
        :meth:`_tell_the_table` goes out, on links opened for it, while :meth:`close` waits.
        """
        self.fault = str(exc)
        others = [s for s in self.roster.seats if s.seat != self.seat]
        for s in others:
            self.mesh.connect_peer(s.seat, s.endpoint, s.curve)
        frames = [ev.frame for ev in self.replica.bye(exc.kind) if isinstance(ev, Send)]
        self.outbox.farewell(frames, [s.seat for s in others])

    async def _say_bye(self) -> None:
        """Send a signed ``bye`` to every other seat, waiting at most ``BYE_WAIT``."""
        if self.fault is not None or self.game.finished():
            return
        frames = [ev.frame for ev in self.replica.bye() if isinstance(ev, Send)]
        await self.outbox.last_words(frames)

    def _sign_chat(self, body: dict[str, Any]) -> str | None:
        """The chat desk's ``sign``: a chat body into this seat's feed; None, or why not."""
        if self.fault is not None:
            return self.fault
        events = self.replica.chat(body, self._now())
        self._handle(events)
        return next(
            (e.reason for e in events if isinstance(e, Rejected) and e.sender == self.seat), None
        )

    def _say_phrase(self, phrase: str) -> None:
        """The bot chat's ``say``: a quick phrase into this seat's feed (never after a fault)."""
        if self.fault is None:
            self._handle(self.replica.chat({"phrase": phrase}, self._now()))

    def _move(self, motion: str, seat: int, now: float) -> list[Event]:
        """The seat holding's ``move``: this seat moves (or joins) a motion about ``seat``."""
        events = self.replica.move(motion, seat, now)
        self._handle(events)
        return events

    def _hold_silent(self, now: float) -> list[Event]:
        """The seat holding's ``hold``: move hold about each seat gone past the timeout."""
        events = self.replica.hold_silent(now)
        self._handle(events)
        return events

    def _act_for(self, held: int, action: Action) -> list[Event]:
        """The seat holding's ``act_for``: a held seat's move, signed, sent, then applied here."""
        events = self.replica.act_for(held, action.to_json(), self._now(), apply=False)
        self._handle(events)
        if any(isinstance(e, Send) for e in events):
            self._handle(self.replica.progress(self._now()))
        return events

    def _act(self, payload: dict[str, Any]) -> list[Event]:
        """Sign an own action, put it on the wire, then apply it here; returns the events.

        The frame leaves before this replica applies it (``apply=False``): the
        other peers start their share of the work while we do ours.
        """
        if self.fault is not None:
            return []
        try:
            events = self.replica.act(payload, self._now(), apply=False)
            self._handle(events)
            if any(isinstance(e, Send) for e in events):
                more = self.replica.progress(self._now())
                self._handle_applied(more)
                events = events + more
        except StorageError as exc:  # a deal secret could not be journaled
            self._storage_fault(exc)
            return []
        return events

    # --- running ---------------------------------------------------------------

    def _now(self) -> float:
        return time.monotonic() - self._t0

    def start(self, *, resume: bool = False) -> None:
        """Wire the mesh to every other seat and start the loops.

        ``resume``: first repair a torn last line of the journal and transcript,
        and refuse (``StorageError``, before anything is wired or signed) a record
        that does not match this seat (:meth:`TableStore.check_resume`); the table,
        waiting for this seat to come back, is told why it cannot (a signed
        ``bye``, sent while the caller awaits :meth:`close`).
        """
        if resume:
            try:
                self.store.repair()
                self.store.check_resume(self.roster.table, self.roster.keys, self.seat)
            except StorageError as exc:
                self._cannot_resume(exc)
                raise
        for s in self.roster.seats:
            if s.seat == self.seat:
                continue
            self.mesh.connect_peer(s.seat, s.endpoint, s.curve)
            self._tasks.append(self.outbox.open(s.seat))
        self.store.save_roster(self.roster.to_json(), self.seat)
        if resume:
            events = self.replica.restore(
                list(self.store.journal()), self.store.transcript_lines(), self._now()
            )
            self._handle(events)
            n = len(self.replica.transcript())
            self.notices.put_nowait(
                Notice(
                    "net",
                    ngettext(
                        "resumed from disk: {n} message", "resumed from disk: {n} messages", n
                    ).format(n=n),
                )
            )
        self.mesh.set_handler(self._on_frame)  # new frames straight to the replica
        self._tasks.append(asyncio.create_task(self._receiver()))  # any already queued
        self._tasks.append(asyncio.create_task(self._ticker()))

    async def run(self) -> None:
        """Run until the match is over (plus a linger so slower peers can catch up) or stopped.

        It sleeps until either happens: the ticker notices the end (see
        :meth:`_watch_the_end`), so an idle table wakes for its timers only.
        Cancelled (a host quitting takes the bots it runs along), it closes
        first, so the seat says ``bye`` like any seat whose player quit.
        """
        if not self._tasks:
            self.start()
        waits = [
            asyncio.ensure_future(self.stopped.wait()),
            asyncio.ensure_future(self._over.wait()),
        ]
        try:
            await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
        except asyncio.CancelledError:
            with contextlib.suppress(Exception, asyncio.CancelledError):
                await asyncio.wait_for(self.close(), BYE_WAIT + 1.0)
            raise
        finally:
            for w in waits:
                w.cancel()
        await self.close()

    def _watch_the_end(self) -> None:
        """Mark the record done when the match ends; end :meth:`run` after ``linger``.

        Sooner (but not before :data:`LINGER_LEVEL`) once every other seat's summary
        shows the very feeds this seat holds: no slower peer needs it to catch up then.
        """
        if not self.game.finished():
            return
        now = self._now()
        if self._done_at is None:
            self.store.mark_done()  # first: a failure stops the seat instead of skipping it
            self._done_at = now
        elif now - self._done_at >= self.linger or (
            now - self._done_at >= min(self.linger, LINGER_LEVEL)
            and self.replica.all_peers_level()
        ):
            self._over.set()  # the full linger, or sooner once every seat holds what we hold
        self._handle(self.replica.finish_record())  # chat after the last move (docs/chat.md)

    async def _receiver(self) -> None:
        async for peer_id, frame in self.mesh:
            self._on_frame(peer_id, frame)

    def _on_frame(self, peer_id: object, frame: bytes) -> None:
        if self.stopped.is_set():
            return
        if on_spectator_frame(self, peer_id, frame):
            return  # a spectator's (or the host's news of them): never the replica's (spectate.py)
        if is_lobby_frame(frame):
            if self.roster_echo is not None and type(peer_id) is int:
                self.roster_echo(peer_id, frame)  # a seat that missed the roster (relay_join.py)
            lobby_frame_dropped(peer_id)  # late lobby frames (an old client's clock note)
            return
        try:
            # the link's seat (CURVE-authenticated) is charged for the frame's control traffic
            via = peer_id if type(peer_id) is int else None
            events = self.replica.receive(frame, self._now(), via=via)
        except StorageError as exc:  # a deal secret could not be journaled
            self._storage_fault(exc)
            return
        self._handle_applied(events, via=peer_id)

    def _handle_applied(self, events: list[Event], via: object = None) -> None:
        """:meth:`_handle`, with the common case kept short: engine plays applied.

        Those are recorded at once and told to the user ``SETTLE`` later (see
        :class:`~zsy_lan.table.settle.Settle`); a bot's turn starts at once. Anything else goes
        through :meth:`_handle` now.
        """
        plain = bool(events) and not self.game.hidden_hands
        plain = plain and all(type(ev) is Applied or type(ev) is Transcribed for ev in events)
        if not plain:
            self._handle(events, via=via)
            return
        if self._storage_failed is not None:
            self._storage_fault(self._storage_failed)
        if self.fault is not None:
            return
        for ev in events:
            if isinstance(ev, Applied):
                self.settle.later(ev)
            else:
                try:
                    self.store.append_transcript(ev.line, header=self._header)  # type: ignore[attr-defined]
                except StorageError as exc:
                    self._storage_fault(exc)
                    return
        self._follow_up()

    async def _ticker(self) -> None:
        while self.info.stopped is not None or not self.outbox.said_bye:  # none after a quit's bye
            try:
                self._handle(self.replica.tick(self._now()))
                self.holding.hold_the_silent(self._now())
                self._watch_the_end()
            except StorageError as exc:
                self._storage_fault(exc)
            except Exception:  # a bug here must not stop heartbeats, nor run()'s end
                log.exception("tick failed")
            if self.store.unsynced and self.fault is None:
                try:
                    await asyncio.to_thread(self.store.sync)  # off the loop: a flush takes ms
                except StorageError as exc:
                    self._storage_fault(exc)
            await asyncio.sleep(TICK)

    def _queue(self, to: int | None, frame: bytes) -> None:
        """A frame for seat ``to`` (None: every other seat) through the :attr:`outbox`."""
        self.outbox.put(to, frame)

    def _storage_fault(self, exc: StorageError) -> None:
        """This seat's own files failed: stop it at once, send nothing more, say it once.

        Every frame already handed to the wire was in the journal first, and
        nothing after the failed write leaves (queued frames are dropped). The
        table sees a dropped seat (silence), never a cheat; once the disk is
        fixed, ``zsy join`` resumes from the record, its torn tail repaired.
        """
        if self.fault is not None:
            return
        self.fault = str(exc)
        self.outbox.drop_all()
        log.error("local storage fault (%s): %s", exc.kind, self.fault)
        self.info.stopped = _("this seat stopped: {reason}").format(reason=self.fault)
        self.notices.put_nowait(Notice("error", self.info.stopped))
        self._tell_the_table(exc.kind)  # the others read why, not "withholding"
        self.stopped.set()
        self.changed.set()

    # --- the replica's events ----------------------------------------------------

    def _handle(self, events: list[Event], via: object = None) -> None:
        """Carry out the replica's events; ``via`` is the link a received frame came on.

        A storage error stops the seat before any later event (a ``Send``
        above all) is carried out. A cheat proven against *this* seat means
        its own record is incomplete (the others hold frames it signed that
        its journal lost): a local fault, so this seat stops instead. The
        proof frames of anyone else's cheat are kept beside the transcript.
        """
        if self._storage_failed is not None:
            self._storage_fault(self._storage_failed)  # nothing of this list is carried out
        if self.fault is not None:
            return
        for i, ev in enumerate(events):
            if isinstance(ev, Cheat) and ev.culprit == self.seat:
                self._handle(events[:i], via)
                said = self_blame(self.store, ev.reason)
                self._storage_fault(StorageError(said, self.store.journal_path, RECORD_DAMAGED))
                return
        try:
            for ev in events:
                if isinstance(ev, Cheat):
                    self.store.save_evidence(ev.culprit, ev.reason, ev.evidence)
            self._carry_out(events, via)
        except StorageError as exc:
            self._storage_fault(exc)

    def _carry_out(self, events: list[Event], via: object = None) -> None:
        """:meth:`_handle`'s work: the events in order (``StorageError`` stops it)."""
        if events:
            self.settle.tell_pending()  # plays received earlier are told first
        changed = False
        for ev in events:
            on = self._ON_EVENT.get(type(ev))
            if on is not None and on(self, ev, via):
                changed = True
        if self.store.urgent_pending:
            self.store.sync()  # a secret with no Send after it is made durable all the same
        if self.game.hidden_hands:  # the private deal: its notes, and the steps it owes
            for note in self.game.pop_notes():
                self.notices.put_nowait(Notice("round", note))
            self.narration.round_over()  # a private hand ends with its audit, after the last play
            if self.bot.author_owed():
                changed = True
        if changed:
            self.changed.set()
        self._follow_up()

    def _on_send(self, ev: Send, via: object) -> bool:
        if self.store.urgent_pending:
            self.store.sync()  # a secret is on disk before anything that depends on it
        self._queue(ev.to, ev.frame)
        return False

    def _on_persist(self, ev: Persist, via: object) -> bool:
        # our own signed frames are in the OS at once (a killed peer loses
        # nothing) and fsynced by the ticker; secrets are fsynced before sending
        self.store.persist(ev.key, ev.data, sync=False, urgent=not ev.key.startswith("frame/"))
        return False

    def _on_transcribed(self, ev: Transcribed | Aside, via: object) -> bool:
        self.store.append_transcript(ev.line, header=self._header)
        return False

    def _on_rewound(self, ev: Rewound, via: object) -> bool:
        """The table replaced what we had applied: cut the record back, take the rebuilt game."""
        self.store.rewrite_transcript(ev.keep)  # the files reopen on the next write
        self.game = self.replica.game  # type: ignore[assignment]
        for s in range(len(self.info.seats)):
            self.holding.set_held(s, self.replica.held().get(s))
        self.narration.rewound(ev)
        return True

    def _on_applied(self, ev: Applied, via: object) -> bool:
        self.narration.play(ev)
        self.settle.later()
        return True

    def _on_motion(self, ev: Motion, via: object) -> bool:
        self.holding.motion(ev)
        return True

    def _on_released(self, ev: Released, via: object) -> bool:
        self.holding.released(ev)
        return True

    def _on_round_seeded(self, ev: RoundSeeded, via: object) -> bool:
        self.narration.dealt(ev)
        return True

    def _on_peer_state(self, ev: PeerState, via: object) -> bool:
        if 0 <= ev.seat < len(self.info.seats):
            self.info.seats[ev.seat].connected = ev.connected
        self.narration.peer_state(ev)
        return True

    def _on_stalled(self, ev: Stalled, via: object) -> bool:
        self.narration.stalled(ev)
        return False

    def _on_flooding(self, ev: Flooding, via: object) -> bool:
        self.narration.flooding(ev)
        return False

    def _on_said(self, ev: Said, via: object) -> bool:
        self.chat_desk.hear(ev.seat, ev.body, self._now())
        self.bot_chat.heard(ev.seat, ev.body, self.info.seats)
        return False

    def _on_record_behind(self, ev: RecordBehind, via: object) -> bool:
        # nothing was signed: the replica waited to learn this from the table
        raise StorageError(record_behind(self.store, ev), self.store.journal_path, RECORD_DAMAGED)

    def _on_fault(self, ev: Fault, via: object) -> bool:
        # a bug of this seat (game, rules plugin): stop it; the table sees it drop
        # (an exception's text may quote what a peer sent: cleaned like it)
        detail = "\n".join(clean(line) for line in ev.detail.splitlines())
        log.error("local fault: %s\n%s", clean(ev.reason), detail)
        self.info.stopped = _(
            "this seat stopped on a fault of its own, not a cheat: {reason}"
        ).format(reason=clean(ev.sentence()))  # the opening is said once
        self.notices.put_nowait(Notice("error", self.info.stopped))
        # the others read a fault of ours (a rules plugin's, or the program's), not a
        # withheld move
        self._tell_the_table(PLUGIN if ev.kind == PLUGIN else PROGRAM)
        self.stopped.set()
        return True

    def _plugin_failed(self, exc: PluginError) -> None:
        """A rules plugin raised outside the replica (this seat's bot weighing its moves):
        the same local fault the replica reports, told to the table as a plugin's."""
        reason = f"{FAULT_PREFIX}{exc}; this seat stops (the table sees it drop)."
        self._on_fault(Fault(reason, fault_traceback(exc), PLUGIN), None)

    def _on_cheat(self, ev: Cheat, via: object) -> bool:
        log.warning("seat %s cheated: %s", ev.culprit, ev.reason)
        self.info.stopped = _("seat {seat} cheated: {reason}").format(
            seat=ev.culprit, reason=engine_said(clean(ev.reason))
        )
        self.notices.put_nowait(
            Notice("error", _("table stopped: {why}").format(why=self.info.stopped))
        )
        return True

    def _on_rejected(self, ev: Rejected, via: object) -> bool:
        # The signature names the sender when it is valid; otherwise the
        # connection it came on (CURVE-authenticated) is the best witness.
        who = "unproven sender" if ev.sender is None else f"seat {ev.sender}"
        if via is not None:
            who += f", on seat {via}'s connection"
        log.info("rejected from %s: %s", who, ev.reason)
        self.narration.refused(ev)  # told when the table comes to wait on that seat
        return False

    #: the method that carries out each replica event (:meth:`_carry_out`), by its type;
    #: it returns whether the table's view changed. Other events (``Hello``) need nothing.
    _ON_EVENT: ClassVar[dict[type, Callable[[TablePeer, Any, object], bool]]] = {
        Send: _on_send,
        Persist: _on_persist,
        Transcribed: _on_transcribed,
        Aside: _on_transcribed,
        Rewound: _on_rewound,
        Motion: _on_motion,
        Released: _on_released,
        Applied: _on_applied,
        RoundSeeded: _on_round_seeded,
        PeerState: _on_peer_state,
        Stalled: _on_stalled,
        Flooding: _on_flooding,
        RecordBehind: _on_record_behind,
        Fault: _on_fault,
        Cheat: _on_cheat,
        Rejected: _on_rejected,
        Said: _on_said,
    }

    def _follow_up(self) -> None:
        """This seat's duties after the replica moved: a bot's turn, a held seat's move."""
        self.chat_desk.saw(self._now())  # a turn that began here is timed from now (clock.py)
        self.bot.follow_up()
        self.holding.follow_up()
        self.bot_chat.after_moves()  # a bot's few quick phrases (zsy_lan/table/chat_desk.py)
