"""``zsy play``'s table: every seat in this process, signed and recorded like a network table.

Why not just drive a :class:`~zsy_lan.engine.game.Game`: a local match should
be the same table as a networked one (the same screen, commands, bot levels)
and leave the same record, one that ``zsy replay --verify`` checks. So each
seat gets its own identity and its own sans-IO
:class:`~zsy_lan.protocol.Replica`, exactly as a peer would, and the frames
go from replica to replica over the lossless in-memory mesh
(:class:`~zsy_lan.protocol.memory_mesh.MemoryMesh`, the tests' too), at once
and in order (no sockets, no timers: nothing is lost, so no heartbeat or
resend is ever needed). The deal
is the open deal's commit-reveal, with every seat's secret drawn from the
match seed, so ``--seed`` still fixes the deals. The human's seat is the
:class:`~zsy_lan.table.session.TableSession` the terminal table
(:func:`zsy_lan.ui.line_mode.run_table`) drives; the other seats are bots that
think in a worker thread (a ``hard`` bot never freezes the screen).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import os
import secrets
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

from zsy_lan.engine.cards import cards_str
from zsy_lan.engine.errors import PluginError
from zsy_lan.engine.game import Game
from zsy_lan.engine.rules import Rules
from zsy_lan.engine.ruleset import ruleset_id
from zsy_lan.engine.state import Action, RoundState
from zsy_lan.protocol import (
    Applied,
    Cheat,
    Event,
    Identity,
    Rejected,
    Replica,
    RoundSeeded,
    Send,
    Transcribed,
)
from zsy_lan.protocol.chat import BotChatter, ChatRoom
from zsy_lan.protocol.events import Aside, Fault, Said
from zsy_lan.protocol.lobby import Roster, Seat, table_id_for
from zsy_lan.protocol.memory_mesh import MemoryMesh
from zsy_lan.protocol.table_settings import TableSettings, clock_problem
from zsy_lan.record.header import transcript_header
from zsy_lan.table.chat_desk import ChatDesk
from zsy_lan.table.clock import feed_pairs
from zsy_lan.table.peer import RETAIN_ROUNDS
from zsy_lan.table.session import Notice, NoticeQueue, SeatInfo, SessionState, hint_list
from zsy_lan.text.bot_names import local_bot_nick
from zsy_lan.text.engine_text import plugin_failed
from zsy_lan.text.i18n import _
from zsy_lan.text.present import dealt_text, describe, redeal_text, round_over_text, tribute_text
from zsy_lan.text.sanitize import clean

log = logging.getLogger("zsy.local")

# A bot's decision: (rules, the seat's view, seat) -> action.
Decider = Callable[[Rules, RoundState, int], Action]

BOT_LEVELS = ("easy", "normal", "hard")


def seed_entropy(seed: str, seat: int) -> Callable[[int], bytes]:
    """A seat's commit-reveal entropy drawn from the match seed (the same seed, the same deals).

    SHAKE-256 over (seed, seat, draw number): never ``random``, stable on every
    machine and Python version.
    """
    count = [0]

    def draw(n: int) -> bytes:
        count[0] += 1
        key = f"zsy-play\x00{seed}\x00{seat}\x00{count[0]}".encode()
        return hashlib.shake_256(key).digest(n)

    return draw


class LocalTable:
    """A whole table in this process; the human's seat as a :class:`TableSession`.

    ``deciders`` maps every other seat to its bot. ``record`` is the transcript
    file written as the match goes (header first, one line per message, flushed
    at once, so quitting or Ctrl-C at any point leaves a record that verifies).
    ``pace`` is the pause in seconds before each bot move, so a player can follow.
    The player may chat (``say``: its :attr:`chat_desk`, the network seat's own
    component); with ``bot_chat`` the bots answer now and then with a quick phrase,
    decided by the match seed.
    """

    def __init__(
        self,
        rules: Rules,
        rounds: int,
        seat: int,
        deciders: dict[int, Decider],
        record: Path,
        *,
        seed: str | None = None,
        nicks: dict[int, str] | None = None,
        name: str = "local",
        pace: float = 0.0,
        bot_chat: bool = True,
        clock: int | None = None,
    ) -> None:
        n = rules.players
        if not 0 <= seat < n:
            raise ValueError(f"seat must be 0..{n - 1}")
        if set(deciders) != set(range(n)) - {seat}:
            raise ValueError("every seat but the player's needs a bot")
        self.rules = rules
        self.seat = seat
        self.seed = seed if seed is not None else secrets.token_hex(8)
        self.pace = pace
        self.deciders = deciders
        self.record = record
        nicks = nicks or {}
        self.identities = [Identity.generate() for _s in range(n)]
        table = table_id_for(self.identities[seat].public_key, name, secrets.token_bytes(8))
        self.roster = Roster(
            table,
            name,
            rounds,
            rules.config,
            [
                Seat(s, ident.public_key, b"", "local", nicks.get(s, f"seat {s}"), s != seat)
                for s, ident in enumerate(self.identities)
            ],
            deal="open",
            # the turn timer is this table's clock: its record says so, so that its
            # readers tell the player's timeouts (protocol/clock_notes.py, RecordNotes)
            settings=TableSettings(clock=clock),
        )
        keys = self.roster.keys
        self.replicas = [
            Replica(
                table,
                s,
                self.identities[s],
                keys,
                Game(rules, rounds),
                entropy=seed_entropy(self.seed, s),
                relay=False,
                motions=(),
                retain=RETAIN_ROUNDS,  # memory does not grow with the match; the record has it
            )
            for s in range(n)
        ]
        self.game: Game = self.replicas[seat].game  # type: ignore[assignment]
        self.info = SessionState(
            seats=[SeatInfo(nick=s.nick, bot=s.bot) for s in self.roster.seats],
            deal_mode="local",
            table_name=name,
            ruleset=ruleset_id(rules),
            settings=self.roster.settings,
        )
        self.notices: asyncio.Queue[Notice] = NoticeQueue()
        self.changed = asyncio.Event()
        self.moved = asyncio.Event()  # wakes the bots' loop
        self._header = transcript_header(self.roster)
        self._file: TextIO | None = None
        self._rounds_told = 0
        self._bots: asyncio.Task[None] | None = None
        self._closed = False
        # chat: the player's room; each bot's chatter (protocol/chat.py), seeded by the match
        self.chat_desk = ChatDesk(seat, self.info.seats, self.notices.put_nowait, self._sign_chat)
        self.chatters = (
            {s: BotChatter(self.seed, s, rules) for s in sorted(deciders)} if bot_chat else {}
        )
        self._chat_seen = 0  # game log entries the chatters have looked at
        self._gg_said = False
        self._bot_lines: list[tuple[int, str]] = []  # (bot seat, phrase) to say next
        self._chatting = False

    # --- TableSession ----------------------------------------------------------

    async def submit(self, action: Action) -> str | None:
        """Sign the player's action and pass it round; ``None``, or why it was refused."""
        return self._act(self.seat, action)

    async def close(self) -> None:
        """Stop the bots and close the record (what was played stays in it)."""
        if not self._closed and self._file is not None:  # the chat since each last move too
            cut = self.replicas[self.seat].finish_record(cut=True)
            self._handle(self.seat, cut, MemoryMesh(()))  # nothing is delivered any more
        self._closed = True
        if self._bots is not None:
            self._bots.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._bots
            self._bots = None
        if self._file is not None:
            with contextlib.suppress(OSError):
                self._file.close()
            self._file = None

    # --- running -----------------------------------------------------------------

    def start(self) -> None:
        """Deal the first round (every seat commits and reveals) and start the bots' loop."""
        self.record.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        # the record holds every hand of a match still being played: the player's own (0600)
        fd = os.open(self.record, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        self._file = os.fdopen(fd, "w", encoding="utf-8")
        self._file.write(self._header + "\n")
        self._file.flush()
        self._pump([(s, r.progress(0.0)) for s, r in enumerate(self.replicas)])
        self._bots = asyncio.create_task(self._bot_loop())

    async def run_bots_only(self) -> None:
        """Play the match with no human input (tests, ``auto`` from the first move): until over."""
        while not self.game.finished() and not self._closed:
            self.moved.clear()
            if self.seat in self.game.actors():
                view = self.game.view(self.seat)
                legal = self.game.legal(self.seat)
                if view is not None and legal:
                    ranked = hint_list(self.rules, view, self.seat, legal)
                    self._act(self.seat, next((a for a in ranked if a in legal), legal[0]))
                    continue
            await self.moved.wait()

    async def _bot_loop(self) -> None:
        """Whenever the game waits on a bot seat, that bot thinks (in a thread) and plays.

        A rules plugin that raises (while a bot weighs its moves, or while the
        game lists them) stops the table with one sentence naming the plugin: the
        loop would otherwise die silently and leave the table waiting forever.
        """
        try:
            await self._bots_play()
        except PluginError as exc:
            log.error("%s", exc, exc_info=exc.cause)
            self._stop(plugin_failed(exc))

    def _stop(self, why: str) -> None:
        """The table cannot go on (a local fault): say ``why`` once; the player leaves."""
        if self.info.stopped:
            return
        self.info.stopped = why
        self.notices.put_nowait(Notice("error", why))
        self.changed.set()

    async def _bots_play(self) -> None:
        while not self._closed:
            self.moved.clear()
            due = [
                s
                for s in self.deciders
                if self.replicas[s].can_act() and not self.replicas[s].game.finished()
            ]
            if not due:
                await self.moved.wait()
                continue
            s = due[0]
            game = self.replicas[s].game
            view = game.view(s)
            if view is None:
                await self.moved.wait()
                continue
            if self.pace:
                await asyncio.sleep(self.pace)
            key = (len(game.log), len(game.seeds))
            try:
                action = await asyncio.to_thread(self.deciders[s], self.rules, view, s)
            except PluginError:
                raise  # the rules failed, not the bot: the table stops (_bot_loop)
            except Exception as exc:  # noqa: BLE001 - a broken bot must not end the match
                log.warning("bot at seat %s failed: %s", s, exc)
                action = None
            if self._closed or key != (len(game.log), len(game.seeds)):
                continue
            legal = game.legal(s)
            if action is None or action not in legal:
                if not legal:
                    continue
                action = legal[0]
            reason = self._act(s, action)
            if reason is not None:
                log.warning("bot at seat %s refused: %s", s, reason)

    def _act(self, seat: int, action: Action) -> str | None:
        """Author ``action`` at ``seat``'s replica and deliver everything that follows."""
        if self._closed:
            return _("the table is closed")
        events = self.replicas[seat].act(action.to_json(), 0.0)
        refused = next(
            (e.reason for e in events if isinstance(e, Rejected) and e.sender == seat), None
        )
        self._pump([(seat, events)])
        return refused

    def _pump(self, first: list[tuple[int, list[Event]]]) -> None:
        """Deliver every frame to every other replica, in order, until nothing moves."""
        net = MemoryMesh(range(len(self.replicas)))  # lossless, in order
        for seat, events in first:
            self._handle(seat, events, net)
        while (due := net.pop()) is not None:
            for t in due.dsts:
                self._handle(t, self.replicas[t].receive(due.frame, 0.0), net)
        if self.game.finished():  # chat said after the last move: to the record's end
            self._handle(self.seat, self.replicas[self.seat].finish_record(), net)
        self.moved.set()
        self.changed.set()
        if self.chatters and not self._chatting:
            self._bots_chat()

    # --- chat (zsy_lan/table/chat_desk.py) ------------------------------------------------

    @property
    def chat_room(self) -> ChatRoom:
        """The player's chat room (its mutes), kept by the :attr:`chat_desk`."""
        return self.chat_desk.room

    async def chat(self, text: str) -> str | None:
        """Send what the player typed after ``say``; None when sent, else why not (a sentence)."""
        return self.chat_desk.chat(text, time.monotonic())

    def mute(self, arg: str) -> str:
        """``mute SEAT|NAME``: hide that seat's chat on this screen."""
        return self.chat_desk.mute(arg)

    def unmute(self, arg: str) -> str:
        """``unmute SEAT|NAME``, or ``unmute`` alone for every seat."""
        return self.chat_desk.unmute(arg)

    async def announce(self, event: str) -> bool:
        """Sign the player's clock note into their feed, passed round like a line."""
        return self.chat_desk.announce(event)

    def own_feed(self) -> list[tuple[str, Any]] | None:
        """The player's own feed messages in memory, as ``(type, body)`` (the clock reads them)."""
        return feed_pairs(self.replicas[self.seat].ledger.feeds, self.seat)

    def _sign_chat(self, body: dict[str, Any]) -> str | None:
        """The player's line: signed by their replica, passed round like a move."""
        if self._closed:
            return _("the table is closed")
        events = self.replicas[self.seat].chat(body, 0.0)
        refused = next(
            (e.reason for e in events if isinstance(e, Rejected) and e.sender == self.seat), None
        )
        if refused is None:
            self._pump([(self.seat, events)])
        return refused

    def _bots_chat(self) -> None:
        """The bots' quick phrases after what just happened (sparingly; see BotChatter)."""
        self._chatting = True
        try:
            game = self.game
            new = game.log[self._chat_seen :] if len(game.log) >= self._chat_seen else []
            self._chat_seen = len(game.log)
            r = game.round
            for action in new:
                for s, chatter in self.chatters.items():
                    said = chatter.after_play(action, r) if r is not None else None
                    if said is not None:
                        self._bot_lines.append((s, said))
            if game.finished() and not self._gg_said:
                self._gg_said = True
                self._bot_lines += [
                    (s, p) for s, c in self.chatters.items() if (p := c.at_match_end())
                ]
            while self._bot_lines and not self._closed:
                s, phrase = self._bot_lines.pop(0)
                self._pump([(s, self.replicas[s].chat({"phrase": phrase}, 0.0))])
        finally:
            self._chatting = False

    def _handle(self, seat: int, events: list[Event], net: MemoryMesh) -> None:
        for ev in events:
            if isinstance(ev, Send):
                net.post(seat, ev.to, ev.frame)
            elif isinstance(ev, Fault):  # the game or a rules plugin failed (any seat's replica)
                detail = "\n".join(clean(line) for line in ev.detail.splitlines())
                log.error("local fault at seat %s: %s\n%s", seat, clean(ev.reason), detail)
                self._stop(_("the table stopped: {reason}").format(reason=clean(ev.sentence())))
            elif seat != self.seat:
                if isinstance(ev, Cheat):  # cannot happen between honest replicas: a bug
                    log.error("seat %s's replica halted: %s", seat, ev.reason)
                continue
            elif isinstance(ev, (Transcribed, Aside)):  # an aside: a chat line, for the record
                self._write(ev.line)
            elif isinstance(ev, Said):
                self.chat_desk.hear(ev.seat, ev.body, time.monotonic())
                for s, chatter in self.chatters.items():  # one bot may answer the player
                    answer = chatter.heard(ev.seat, ev.body) if ev.seat == self.seat else None
                    if answer is not None and not self._bot_lines:
                        self._bot_lines.append((s, answer))
            elif isinstance(ev, Applied):
                self._narrate(ev)
            elif isinstance(ev, RoundSeeded):
                r = self.game.round
                if r is not None:
                    told = dealt_text(self.rules, r, self.who, open_deal=False, me=self.seat)
                    self.notices.put_nowait(Notice("round", told))
            elif isinstance(ev, Cheat):
                log.error("the local table halted: %s", ev.reason)
                self.info.stopped = _("the table stopped: {reason}").format(
                    reason=clean(ev.reason)
                )
                self.notices.put_nowait(Notice("error", self.info.stopped))

    def _write(self, line: str) -> None:
        """One record line, flushed; a storage error is told once and the match goes on."""
        if self._file is None:
            return
        try:
            self._file.write(line + "\n")
            self._file.flush()
        except OSError as exc:
            with contextlib.suppress(OSError):
                self._file.close()
            self._file = None
            self.notices.put_nowait(
                Notice(
                    "error",
                    _(
                        "cannot write the game record {path} ({error}): it stops here and "
                        "the match goes on; free some space or choose --data-dir next time"
                    ).format(path=self.record, error=exc.strerror or exc),
                )
            )

    def who(self, seat: int) -> str:
        """A seat as the narration names it: "you", or the seat with its nickname."""
        if seat == self.seat:
            return _("you")
        nick = clean(self.info.seats[seat].nick)
        return _("seat {seat} ({nick})").format(seat=seat, nick=nick)

    def _narrate(self, ev: Applied) -> None:
        """A move in the network table's words (the same helpers as the peer's narration)."""
        try:
            action = Action.from_json(ev.action)
        except ValueError:
            return
        text = None
        if action.kind in ("give", "return"):
            r = self.game.round
            log_ = r.tribute_log if r is not None else ()
            receiver = next((rec for g, rec, _c, _n in reversed(log_) if g == ev.seat), -1)
            if receiver >= 0:
                n = action.value if action.hidden else len(action.cards)
                shown = action.kind == "give" or self.seat in (ev.seat, receiver)
                cards = cards_str(action.cards) if action.cards and shown else ""
                text = tribute_text(action.kind, ev.seat, receiver, self.seat, self.who, cards, n)
        if text is None:
            text = _("{who}: {play}").format(
                who=self.who(ev.seat), play=describe(action, rules=self.rules)
            )
        self.notices.put_nowait(Notice("play", text))
        redeal = redeal_text(self.rules, self.game.round, action)
        if redeal is not None:
            self.notices.put_nowait(Notice("round", redeal))
        m = self.game.match
        if len(m.results) > self._rounds_told:
            self._rounds_told = len(m.results)
            self.notices.put_nowait(Notice("round", round_over_text(self.rules, m, self.who)))


def local_nicks(players: int, seat: int, level: str, me: str) -> dict[int, str]:
    """Nicknames: the player's own, and each bot named by its level (``hard-2``)."""
    return {s: (me if s == seat else local_bot_nick(level, s)) for s in range(players)}


def make_local_table(
    rules: Rules,
    rounds: int,
    seat: int,
    level: str,
    record: Path,
    *,
    seed: str | None = None,
    me: str = "you",
    pace: float = 0.0,
    budget: int | None = None,
    bot_chat: bool = True,
    clock: int | None = None,
) -> LocalTable:
    """A local table with bots of ``level`` (easy, normal, hard) in every other seat.

    ``budget``: worlds a ``hard`` bot samples per move (its wall clock still caps it).
    ``bot_chat``: the bots may say a quick phrase now and then (``zsy play --quiet-bots``).
    ``clock``: ``zsy play --turn-timer``'s seconds, kept in the record's header.
    """
    if level not in BOT_LEVELS:
        raise ValueError(f"unknown bot level {level!r}: choose easy, normal or hard")
    from zsy_lan.bots.registry import make_bot

    seed_text = seed if seed is not None else secrets.token_hex(8)
    opts = {"budget": budget} if budget is not None and level == "hard" else {}
    deciders: dict[int, Decider] = {
        s: make_bot(level, f"{seed_text}:{s}", **opts).act for s in range(rules.players)
        if s != seat
    }
    return LocalTable(
        rules,
        rounds,
        seat,
        deciders,
        record,
        seed=seed_text,
        nicks=local_nicks(rules.players, seat, level, me),
        pace=pace,
        bot_chat=bot_chat,
        clock=clock,
    )


def table_clock(timer: float | None) -> int | None:
    """``zsy play --turn-timer``'s seconds as the table clock its record keeps, or ``None``
    (no timer, or one no table clock could be: a test's hundredths of a second)."""
    if timer is None:
        return None
    seconds = round(timer)
    return seconds if clock_problem(seconds) is None else None


def record_path(root: Path, table: str = "") -> Path:
    """Where a local match's record goes: ``ROOT/local/play-<time>-<id>.jsonl``."""
    import time

    stamp = time.strftime("%Y%m%d-%H%M%S")
    return root / "local" / f"play-{stamp}-{table or secrets.token_hex(3)}.jsonl"


__all__ = ["BOT_LEVELS", "LocalTable", "make_local_table", "record_path", "seed_entropy"]
