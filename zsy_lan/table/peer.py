"""A seated peer: the asyncio shell around the replica, the mesh and the game.

Everything that decides lives elsewhere: the rules in the engine, ordering,
signatures and delivery in the sans-IO :class:`~zsy_lan.protocol.Replica`.
This module only moves bytes and time in, and carries out the replica's
events: frames out (per-peer queues, so a dead peer never blocks the loop),
``Persist`` records fsynced *before* the sends that follow them, transcript
lines to disk, notices to the UI. It also implements
:class:`~zsy_lan.table.session.TableSession`, so the terminal UI and the bots
drive a seat the same way.
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
from zsy_lan.engine.game import Game
from zsy_lan.engine.rules import Rules
from zsy_lan.engine.ruleset import ruleset_id
from zsy_lan.engine.state import Action, RoundState
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
from zsy_lan.protocol.events import (
    Aside,
    Fault,
    Flooding,
    Motion,
    RecordBehind,
    Released,
    Rewound,
    Said,
)
from zsy_lan.record.header import game_from_header, transcript_header  # noqa: F401 - also the peer's
from zsy_lan.record.store import StorageError, TableStore, quietly
from zsy_lan.table.chat_desk import PeerChat
from zsy_lan.table.clock import ClockNotes
from zsy_lan.table.holding import SeatHolding
from zsy_lan.table.lobby import Roster, is_lobby_frame, rules_from_config
from zsy_lan.table.narration import Narration, Refused
from zsy_lan.table.session import Notice, NoticeQueue, SeatInfo, SessionState
from zsy_lan.table.spectators import on_spectator_frame
from zsy_lan.text.engine_text import translate as engine_said
from zsy_lan.text.i18n import _, join_clauses, join_items, ngettext
from zsy_lan.text.sanitize import clean

log = logging.getLogger("zsy.peer")

#: finished rounds a peer keeps in memory (Replica ``retain``; docs/performance.md)
RETAIN_ROUNDS = 2

OUTBOX_LIMIT = 2000  # frames queued for one peer; beyond this the oldest go (wants recover them)
SEND_TIMEOUT = 1.0
BYE_WAIT = 0.5  # at most this long to say bye when leaving (a gone peer must not delay quitting)
#: Seconds a finished seat lingers at least, even once every seat holds what it holds: a
#: reply to the last lines (a bot's ``gg``) has this long to come in.
LINGER_LEVEL = 0.5
# Seconds after applying a play before the new state hash is computed and the
# play is told to this seat's user (see TablePeer._settle_later).
SETTLE = 0.01

# A bot's decision: (rules, the seat's view, seat) -> action. Runs in a worker thread.
Decider = Callable[[Rules, RoundState, int], Action]

HOLD_ENV = "ZSY_HOLD_AFTER"  # seconds; overrides Timing.hold_after (tests, impatient tables)


def table_timing(timing: Timing | None) -> Timing:
    """The timing a table peer runs with: ``timing`` or the defaults, with ``$ZSY_HOLD_AFTER``."""
    from dataclasses import replace

    timing = timing or Timing()
    raw = os.environ.get(HOLD_ENV)
    if raw:
        try:
            timing = replace(timing, hold_after=max(0.0, float(raw)))
        except ValueError:
            log.warning("ignoring %s=%r: not a number of seconds", HOLD_ENV, raw)
    return timing


class TablePeer(Narration, SeatHolding, ClockNotes, PeerChat):
    """One seat at a table, on the network. Implements TableSession.

    What it tells the player is :class:`~zsy_lan.table.narration.Narration`'s, how it
    holds a dropped seat :class:`~zsy_lan.table.holding.SeatHolding`'s; each replica
    event is carried out by its own method (:attr:`_ON_EVENT`).
    """

    #: the host's :class:`~zsy_lan.table.spectators.SpectatorDesk` (``None``: serves no spectator)
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
            seats=[SeatInfo(nick=s.nick, bot=s.bot, run_by=s.hosted_by) for s in roster.seats],
            deal_mode=roster.deal,
            table_name=roster.name,
            ruleset=ruleset_id(self.rules),
            settings=roster.settings,
        )
        self._rounds_told = 0
        self._heard: set[int] = set()
        self._thinking: asyncio.Future[Action] | None = None
        self._holding: asyncio.Future[Action] | None = None  # the bot thinking for a held seat
        self._authoring = False
        self.notices: asyncio.Queue[Notice] = NoticeQueue()
        self.changed = asyncio.Event()
        self.stopped = asyncio.Event()
        self._outboxes: dict[int, asyncio.Queue[bytes]] = {}
        self._sending: set[int] = set()  # seats whose sender task holds a frame right now
        self._tasks: list[asyncio.Task[Any]] = []
        self.fault: str | None = None  # this seat's own storage failed: it sends nothing more
        self._storage_failed: StorageError | None = None  # a secret's write failed in the game
        self._header = transcript_header(roster)
        self._t0 = time.monotonic()
        self._settle_due = False  # a _settle_now call is scheduled
        self._done_at: float | None = None  # when the match was seen finished
        self._over = asyncio.Event()  # the match is over and the linger has passed
        self._unsettled: list[Applied] = []  # received plays not told to the user yet
        self._stall_told: set[tuple[object, int, bool]] = set()  # (position, seat, gone) told
        self._refused: dict[int, Refused] = {}  # seat -> its refused frame (narration.py)
        #: The host at a relayed table: answers a seated player's repeated sit with the roster.
        self.roster_echo: Callable[[int, bytes], None] | None = None
        self._bye_said = False  # a bye goes out once, when the player leaves a match under way
        self._chat_setup(roster.table, bot=bot_chat)  # protocol/chat.py; a bot seat may chat

    def _make_game(self, roster: Roster, seat: int, store: TableStore) -> Game:
        """The replicated game: the engine alone (open deal) or with the private deal.

        With the private deal the per-deal secrets already in the journal come
        back (a resumed seat derives the very scalars it committed to), and a
        new one is fsynced to the journal before anything depending on it is sent.
        """
        if roster.deal != "private":
            return Game(self.rules, roster.rounds)
        secrets = {
            int(key.split("/", 1)[1]): data
            for key, data in store.journal()
            if key.startswith("deal/")
        }
        return PrivateGame(
            self.rules,
            roster.rounds,
            table=roster.table,
            seat=seat,
            secrets=secrets,
            persist=lambda deal_no, secret: self._persist_secret(store, deal_no, secret),
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

        The other seats' peers join the motion by themselves once one seat voted.
        """
        if motion == "void" and not self.replica.can_void():
            if self.roster.deal != "private":
                return _(
                    "this table does not vote rounds void (a bot holds a dropped seat instead)"
                )
            return _("the table cannot void this round now (no deal is under way)")
        others = [p for p in self.replica.awaited() if p != self.seat]
        if not others:
            return _("the table is not waiting on another seat")
        now, patience = self._now(), self.replica.timing.stall
        wait = min(self.replica.motion_wait(motion, p, now) for p in others)
        if motion == "void" and wait > 0:
            # A seat that is thinking is not withholding: the replica (ours and every
            # other one) backs a void only past the stall timeout on its own clock.
            return _(
                "{seats} kept the table waiting for {waited} s; a round can be voted void "
                "once a seat withholds its part for {secs} s"
            ).format(
                seats=join_items(self._who(p) for p in others),
                waited=f"{max(0.0, patience - wait):.0f}",
                secs=f"{patience:.0f}",
            )
        said = []
        for p in others:
            events = self.replica.move(motion, p, self._now())
            self._handle(events)
            refused = [
                e.reason for e in events if isinstance(e, Rejected) and e.sender == self.seat
            ]
            said.append(
                refused[0]
                if refused
                else _(
                    "you voted to void the round ({seat} withholds its part); each other seat "
                    "joins once it has waited as long on that seat itself"
                ).format(seat=self._who(p))
            )
        return join_clauses(said)

    async def close(self) -> None:
        """Stop the loops and the socket tasks (the mesh is closed by its owner).

        Leaving a match under way on purpose (quit, Ctrl-C, end of input) says
        ``bye`` to every other seat first (bounded), so their screens tell at
        once that this seat left and what happens next; a seat stopped by a
        fault of its own sends nothing more, nor does a table a cheat halted.
        Leaving is the only other way to stop: ``zsy join``/``host`` set
        :attr:`stopped` when the player quits, and ``run`` then closes.
        """
        if self._tasks and not self._bye_said and self.info.stopped is None:
            self._bye_said = True
            await self._say_bye()
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

    async def _say_bye(self) -> None:
        """Send a signed ``bye`` to every other seat, waiting at most ``BYE_WAIT``."""
        if self.fault is not None or self.game.finished():
            return
        frames = [ev.frame for ev in self.replica.bye() if isinstance(ev, Send)]
        sends = [
            self.mesh.send(seat, frame, timeout=BYE_WAIT)
            for seat in self._outboxes
            for frame in frames
        ]
        with contextlib.suppress(Exception):
            await asyncio.wait_for(asyncio.gather(*sends, return_exceptions=True), BYE_WAIT + 0.5)

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

    def _settle_later(self, played: Applied | None = None) -> None:
        """Hash the new state, and tell ``played`` to the user, once this burst is over.

        Neither is needed to apply the next frame sooner: a frame that comes
        first computes the hash itself (the game caches it either way), and a
        play told 10 ms later looks no different in a terminal. On a shared CPU
        (bots, or a whole table on one machine) the other peers are applying
        the same frame right then, and the table's latency is the last of them:
        waiting ``SETTLE`` lets them go first.
        """
        if played is not None:
            self._unsettled.append(played)
        if self._settle_due:
            return
        self._settle_due = True
        asyncio.get_running_loop().call_later(SETTLE, self._settle_now)

    def _settle_now(self) -> None:
        """Tell the plays applied meanwhile, in order, then compute the hash."""
        self._settle_due = False
        if self.stopped.is_set():
            return
        self._tell_unsettled()
        self.game.public_hash()  # cached by the game until its state changes

    def _tell_unsettled(self) -> None:
        if not self._unsettled:
            return
        played, self._unsettled = self._unsettled, []
        for ev in played:
            self._narrate(ev)
        self.changed.set()

    # --- running ---------------------------------------------------------------

    def _now(self) -> float:
        return time.monotonic() - self._t0

    def start(self, *, resume: bool = False) -> None:
        """Wire the mesh to every other seat and start the loops.

        ``resume``: first repair a torn last line of the journal and transcript,
        and refuse (``StorageError``, before anything is wired or sent) a record
        that does not match this seat (:meth:`TableStore.check_resume`).
        """
        if resume:
            self.store.repair()
            self.store.check_resume(self.roster.table, self.roster.keys, self.seat)
        for s in self.roster.seats:
            if s.seat == self.seat:
                continue
            self.mesh.connect_peer(s.seat, s.endpoint, s.curve)
            self._outboxes[s.seat] = asyncio.Queue()
            self._tasks.append(asyncio.create_task(self._sender(s.seat)))
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
                self.roster_echo(peer_id, frame)  # a seat that missed the roster (relay_table.py)
            self._on_note(frame, peer_id)  # late lobby frames (an old client's clock note): dropped
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
        :meth:`_settle_later`); a bot's turn starts at once. Anything else goes
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
                self._settle_later(ev)
            else:
                try:
                    self.store.append_transcript(ev.line, header=self._header)  # type: ignore[attr-defined]
                except StorageError as exc:
                    self._storage_fault(exc)
                    return
        self._follow_up()

    async def _ticker(self) -> None:
        while True:
            try:
                self._handle(self.replica.tick(self._now()))
                self._hold_the_silent()
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

    async def _sender(self, seat: int) -> None:
        queue = self._outboxes[seat]
        while True:
            frame = await queue.get()
            if self.fault is not None:
                continue
            self._sending.add(seat)
            try:
                await self.mesh.send(seat, frame, timeout=SEND_TIMEOUT)
            except Exception as exc:  # noqa: BLE001 - a send failure is recovered by wants
                log.debug("send to seat %s failed: %s", seat, exc)
            finally:
                self._sending.discard(seat)

    def _queue(self, to: int | None, frame: bytes) -> None:
        """Send at once when the link takes it; otherwise queue it for the seat's sender task.

        Nothing leaves once this seat's storage failed (:meth:`_storage_fault`).
        """
        if self.fault is not None:
            return
        targets = list(self._outboxes) if to is None else [to]
        for seat in targets:
            q = self._outboxes.get(seat)
            if q is None:
                continue
            if q.empty() and seat not in self._sending and self.mesh.send_now(seat, frame):
                continue  # on the wire now, in order: nothing queued or in flight before it
            if q.qsize() >= OUTBOX_LIMIT:
                q.get_nowait()  # the oldest goes: the protocol re-requests what is missing
            q.put_nowait(frame)

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
        for q in self._outboxes.values():
            while not q.empty():
                q.get_nowait()
        log.error("local storage fault: %s", self.fault)
        self.info.stopped = _("this seat stopped: {reason}").format(reason=self.fault)
        self.notices.put_nowait(Notice("error", self.info.stopped))
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
                self._storage_fault(StorageError(self._self_blame(ev)))
                return
        try:
            for ev in events:
                if isinstance(ev, Cheat):
                    self.store.save_evidence(ev.culprit, ev.reason, ev.evidence)
            self._carry_out(events, via)
        except StorageError as exc:
            self._storage_fault(exc)

    def _self_blame(self, ev: Cheat) -> str:
        """The sentence for a cheat this seat's own replica proves against itself."""
        return _(
            "the table holds a message this seat signed that its own record ({file}) lacks "
            "({reason}): the record was damaged or replaced. This seat stopped so it cannot "
            "contradict itself; put the original files back, or move the folder {dir} aside "
            "to leave the table."
        ).format(file=self.store.journal_path, reason=ev.reason, dir=self.store.path)

    #: the method that carries out each replica event (:meth:`_carry_out`), by its type;
    #: it returns whether the table's view changed. Other events (``Hello``) need nothing.
    _ON_EVENT: ClassVar[dict[type, str]] = {
        Send: "_on_send",
        Persist: "_on_persist",
        Transcribed: "_on_transcribed",
        Aside: "_on_transcribed",
        Rewound: "_on_rewound",
        Motion: "_on_motion",
        Released: "_on_released",
        Applied: "_on_applied",
        RoundSeeded: "_on_round_seeded",
        PeerState: "_on_peer_state",
        Stalled: "_on_stalled",
        Flooding: "_on_flooding",
        RecordBehind: "_on_record_behind",
        Fault: "_on_fault",
        Cheat: "_on_cheat",
        Rejected: "_on_rejected",
        Said: "_on_said",
    }

    def _carry_out(self, events: list[Event], via: object = None) -> None:
        """:meth:`_handle`'s work: the events in order (``StorageError`` stops it)."""
        if events:
            self._tell_unsettled()  # plays received earlier are told first
        changed = False
        for ev in events:
            on = self._ON_EVENT.get(type(ev))
            if on is not None and getattr(self, on)(ev, via):
                changed = True
        if self.store.urgent_pending:
            self.store.sync()  # a secret with no Send after it is made durable all the same
        if self.game.hidden_hands:  # the private deal: its notes, and the steps it owes
            for note in self.game.pop_notes():
                self.notices.put_nowait(Notice("round", note))
            self._tell_round_over()  # a private hand ends with its audit, after the last play
            if self._author_owed():
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
        self._rewind(ev)
        return True

    def _on_applied(self, ev: Applied, via: object) -> bool:
        self._narrate(ev)
        self._settle_later()
        return True

    def _on_record_behind(self, ev: RecordBehind, via: object) -> bool:
        # nothing was signed: the replica waited to learn this from the table
        raise StorageError(
            _(
                "this seat's journal at {file} is missing messages the table has "
                "(the table holds {table_has} of this seat's messages, the journal "
                "{kept}): it cannot resume safely, its secrets for them are lost. "
                "Put the original journal back and run zsy join again, or move the "
                "folder {dir} aside to leave the table."
            ).format(
                file=self.store.journal_path,
                table_has=ev.table_has,
                kept=ev.kept,
                dir=self.store.path,
            )
        )
        return False

    def _on_fault(self, ev: Fault, via: object) -> bool:
        # a bug of this seat (game, rules plugin): stop it; the table sees it drop
        # (an exception's text may quote what a peer sent: cleaned like it)
        detail = "\n".join(clean(line) for line in ev.detail.splitlines())
        log.error("local fault: %s\n%s", clean(ev.reason), detail)
        self.info.stopped = _(
            "this seat stopped on a fault of its own, not a cheat: {reason}"
        ).format(reason=clean(ev.sentence()))  # the opening is said once
        self.notices.put_nowait(Notice("error", self.info.stopped))
        self.stopped.set()
        return True

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
        self._note_refused(ev)  # told when the table comes to wait on that seat
        return False

    def _follow_up(self) -> None:
        """This seat's duties after the replica moved: a bot's turn, a held seat's move."""
        game = self.game
        mine = self.decider is not None and self.replica.can_act() and not game.finished()
        if mine and game.wants_decision():  # not a step the private deal signs by itself
            self._decide()
        if self.replica.ledger.held and self._holding is None and self.replica.proxy_due():
            self._play_held()
        if self._chatter is not None:
            self._bot_chat()  # a bot's few quick phrases (zsy_lan/table/chat_desk.py)

    # --- rewinds, the private deal's own steps, this seat's bot -----------------

    def _rewind(self, ev: Rewound) -> None:
        """The table replaced what we had applied: cut the record back, take the rebuilt game."""
        self.store.rewrite_transcript(ev.keep)  # the files reopen on the next write
        self.game = self.replica.game  # type: ignore[assignment]
        self._rounds_told = len(self.game.match.results)
        for s in range(len(self.info.seats)):
            self._set_held(s, self.replica.held().get(s))
        self.notices.put_nowait(
            Notice(
                "net",
                f"the table went on while you were cut off ({ev.reason}); your record is "
                f"rewritten from line {ev.keep + 2}",
            )
        )

    def _connected(self, seat: int) -> bool:
        return not (0 <= seat < len(self.info.seats)) or self.info.seats[seat].connected

    def _author_owed(self) -> bool:
        """Private deal: sign the deal messages this seat owes, at once (they are no choice).

        Their secrets come from the per-deal secret fsynced to the journal when
        the deal started, so this never sends anything a restart could contradict.
        """
        game = self.game
        if self._authoring:
            return False
        self._authoring = True
        acted = False
        try:
            while self.replica.can_act() and not game.finished():
                action = game.local_action()
                if action is None:
                    break
                events = self._act(action)
                acted = True
                refused = [e for e in events if isinstance(e, Rejected) and e.sender == self.seat]
                if refused:
                    log.warning("private deal step refused: %s", refused[0].reason)
                    break
        finally:
            self._authoring = False
        return acted

    def _decide(self) -> None:
        """A bot seat acts as soon as the game waits on it.

        The bot thinks in a worker thread on a snapshot of its view (states are
        immutable), so a slow bot (``hard``, an external program) never stalls
        heartbeats or relaying; its answer is used only if nothing moved meanwhile.
        """
        assert self.decider is not None
        if self._thinking is not None:
            return
        view = self.game.view(self.seat)
        if view is None:
            return
        key = (len(self.game.log), len(self.game.seeds))
        loop = asyncio.get_running_loop()
        fut = loop.run_in_executor(None, self.decider, self.rules, view, self.seat)
        self._thinking = fut
        fut.add_done_callback(lambda f: self._decided(f, key))

    def _decided(self, fut: asyncio.Future[Action], key: tuple[int, int]) -> None:
        self._thinking = None
        if self.stopped.is_set() or fut.cancelled():
            return
        try:
            action = fut.result()
        except Exception as exc:  # noqa: BLE001 - a broken bot must not kill the peer
            log.warning("bot at seat %s failed: %s", self.seat, exc)
            return
        if key != (len(self.game.log), len(self.game.seeds)) or not self.replica.can_act():
            self._handle([])  # the game moved on while the bot thought: think again
            return
        try:
            payload = self._payload(action)
        except ValueError as exc:  # e.g. returning face down a card everybody saw
            payload = self._fallback_payload(exc)
            if payload is None:
                return
        for e in self._act(payload):
            if isinstance(e, Rejected) and e.sender == self.seat:
                log.warning("bot at seat %s refused: %s", self.seat, e.reason)

    def _fallback_payload(self, exc: Exception) -> dict[str, Any] | None:
        """The first legal move that can be made, when the bot's choice cannot."""
        log.info("bot at seat %s: %s; trying another legal move", self.seat, exc)
        for alt in self.game.legal(self.seat):
            try:
                return self._payload(alt)
            except ValueError:
                continue
        return None
