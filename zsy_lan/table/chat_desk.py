"""Chat at a running table, the shell's part: say, mute, show, and the bots' few phrases.

:mod:`zsy_lan.protocol.chat` judges lines (sans-IO); this mixin is what a seat does
with them. It is mixed into the network seat (:class:`zsy_lan.table.peer.TablePeer`)
and the local table (:class:`zsy_lan.table.local_table.LocalTable`), which each
say how a chat body is signed and sent (:meth:`ChatSeat._sign_chat`). A line
heard is told to the player as a ``chat`` notice (``Alice: hello``), which the
terminal marks apart from the table's news (:func:`zsy_lan.protocol.chat.notice_mark`).
The UI's chat words (``say``, ``phrases``, ``mute``, ``unmute``) are answered by
:func:`chat_answer` for any session that has these methods.
"""

from __future__ import annotations

import asyncio
import json
import logging
import math
from pathlib import Path
from typing import TYPE_CHECKING, Any

from zsy_lan.protocol.chat import (
    BotChatter,
    ChatCommand,
    ChatError,
    ChatRoom,
    body_for,
    find_seat,
    phrase_lines,
)
from zsy_lan.protocol.events import Event, Rejected, Said
from zsy_lan.record.store import StorageError, TableStore, private_dir, write_private
from zsy_lan.table.clock import clock_heard, is_clock
from zsy_lan.table.session import Notice, SessionState
from zsy_lan.text.i18n import _, join_items, join_sentences
from zsy_lan.text.sanitize import clean

__all__ = ["MUTES_FILE", "ChatSeat", "PeerChat", "chat_answer", "chat_help", "mutes_path"]

log = logging.getLogger("zsy.chat")


class ChatSeat:
    """A seat's chat: mixed into a table session that defines ``_sign_chat`` and ``_chat_now``."""

    seat: int
    info: SessionState
    notices: asyncio.Queue[Notice]
    chat_room: ChatRoom

    def _sign_chat(self, body: dict[str, Any]) -> str | None:  # pragma: no cover - abstract
        """Sign and send ``body`` as this seat's chat; None, or why it could not be sent."""
        raise NotImplementedError

    def _chat_now(self) -> float:  # pragma: no cover - abstract
        """The time the rate limits count with (monotonic seconds)."""
        raise NotImplementedError

    def _chat_name(self, seat: int) -> str:
        """A seat as a chat line names it: its cleaned nickname, else ``seat N``."""
        seats = self.info.seats
        nick = clean(seats[seat].nick).strip() if 0 <= seat < len(seats) else ""
        return nick or _("seat {seat}").format(seat=seat)

    async def chat(self, text: str) -> str | None:
        """Send what the player typed after ``say``; None when sent, else why not (a sentence)."""
        try:
            body = body_for(text)
        except ChatError as exc:
            return str(exc)
        wait = self.chat_room.may_send(self._chat_now())
        if wait > 0:
            return _("not so fast: you can say something again in {s} s").format(
                s=max(1, math.ceil(wait))
            )
        refused = self._sign_chat(body)
        if refused is not None:
            log.info("chat not sent: %s", refused)
            return _("the table cannot take chat from this seat now ({reason})").format(
                reason=clean(refused)
            )
        return None

    def mute(self, arg: str) -> str:
        """``mute SEAT|NAME``: hide that seat's chat on this screen; ``mute`` alone lists."""
        room = self.chat_room
        if not arg.strip():
            if not room.muted:
                return _("Nobody is muted. Type mute and a seat number or a name.")
            names = join_items(self._chat_name(s) for s in sorted(room.muted))
            return _("Muted here: {names}. Type unmute to hear everybody again.").format(
                names=names
            )
        seat = find_seat(arg, [s.nick for s in self.info.seats])
        if seat is None or seat == self.seat:
            return self._no_seat(arg)
        room.muted.add(seat)
        return self._kept(
            _(
                "{name}'s chat is hidden on your screen now (their moves still show); "
                "type unmute to hear them again."
            ).format(name=self._chat_name(seat))
        )

    def unmute(self, arg: str) -> str:
        """``unmute SEAT|NAME``, or ``unmute`` alone for every seat."""
        room = self.chat_room
        if not arg.strip():
            room.muted.clear()
            return self._kept(_("You hear everybody's chat again."))
        seat = find_seat(arg, [s.nick for s in self.info.seats])
        if seat is None or seat == self.seat:
            return self._no_seat(arg)
        room.muted.discard(seat)
        return self._kept(_("You hear {name}'s chat again.").format(name=self._chat_name(seat)))

    def _kept(self, answer: str) -> str:
        """``answer`` to a mute or unmute, once the mutes are kept for a resume (where kept)."""
        why = self._keep_mutes()
        return answer if why is None else join_sentences([answer, why])

    def _keep_mutes(self) -> str | None:
        """Keep this seat's mutes where a resume finds them: None, or why not (a sentence).

        Nothing here: ``zsy play`` is never resumed. A network seat keeps them in
        its table folder (:class:`PeerChat`).
        """
        return None

    def _no_seat(self, arg: str) -> str:
        """A mute or unmute refused: marked ``! `` as every refusal at the table is."""
        last = len(self.info.seats) - 1
        return "! " + _(
            "no other seat is called '{typed}': type a seat number (0-{last}) or a name "
            "(who lists them)"
        ).format(typed=clean(arg, 40), last=last)

    def _hear(self, seat: int, body: Any) -> bool:
        """Show ``seat``'s chat line if it passes (:meth:`ChatRoom.hear`); True when shown."""
        if is_clock(body):  # a table clock note, not a line: told apart (zsy_lan/table/clock.py)
            return clock_heard(self, seat, body)
        heard = self.chat_room.hear(seat, body, self._chat_now())
        if heard.text is None:
            # every line dropped says why; a flood's hidden lines after the first, quietly
            hidden = heard.why is not None and "rate limit" in heard.why and not heard.flooding
            (log.debug if hidden else log.info)("%s", heard.why)
            if heard.flooding:
                self.notices.put_nowait(
                    Notice(
                        "net",
                        _("{name} is flooding the chat; their extra lines are hidden").format(
                            name=self._chat_name(seat)
                        ),
                    )
                )
            return False
        self.notices.put_nowait(
            Notice("chat", _("{name}: {text}").format(name=self._chat_name(seat), text=heard.text))
        )
        return True


def chat_help() -> str:
    """The chat commands, as ``help`` at a table lists them."""
    return _(
        "Chat: say TEXT (or chat TEXT) sends a line to the table; say :gg (or just :gg) "
        "sends a quick phrase, which each player reads in their own language; phrases "
        "lists them; mute SEAT or NAME hides a seat's chat on your screen, unmute shows "
        "it again."
    )


async def chat_answer(session: object, cmd: ChatCommand) -> list[str]:
    """The lines answering a chat command typed at ``session`` (empty when a line was sent)."""
    if cmd.name == "phrases":
        return phrase_lines()
    if not isinstance(session, ChatSeat):
        return ["! " + _("There is no chat at this table.")]
    if cmd.name == "say":
        refused = await session.chat(cmd.arg)
        return [] if refused is None else ["! " + refused]
    if cmd.name == "mute":
        return [session.mute(cmd.arg)]
    return [session.unmute(cmd.arg)]


#: The file in a seat's table folder that keeps its mutes for a resume.
MUTES_FILE = "mutes.json"


def mutes_path(store: TableStore) -> Path:
    """Where a network seat keeps its mutes: its table folder (:mod:`zsy_lan.record.store`)."""
    return store.path / MUTES_FILE


class PeerChat(ChatSeat):
    """Chat for a network seat, mixed into :class:`zsy_lan.table.peer.TablePeer`.

    A line goes out through the replica (:meth:`Replica.chat`: signed, journaled,
    in this seat's feed, outside the game) and comes back as a ``Said`` event,
    which :meth:`_on_said` shows. A bot seat (one with a decider) may say a few
    quick phrases (:class:`zsy_lan.protocol.chat.BotChatter`), seeded by the table id.
    """

    replica: Any
    game: Any
    rules: Any
    decider: Any
    fault: str | None
    store: TableStore
    _chat_table: str  # the bot's chatter is seeded by the table id (and its seat)
    _chat_bots: bool  # bots may chat at all (TablePeer(bot_chat=False): never)
    _chat_bot: BotChatter | None
    _chat_seen: int  # game log entries the bot's chatter has looked at
    _gg_said: bool

    if TYPE_CHECKING:

        def _now(self) -> float: ...

        def _handle(self, events: list[Event], via: object = None) -> None: ...

    def _chat_setup(self, table: str, bot: bool) -> None:
        """Call once in ``__init__``: the chat room; ``bot``: a bot seat may chat.

        The mutes this seat kept in its table folder come back (a resumed seat:
        ``zsy join``); a fresh table has none.
        """
        self.chat_room = ChatRoom(self.seat, muted=self._saved_mutes())
        self._chat_table, self._chat_bots, self._chat_bot = table, bot, None
        self._chat_seen = 0
        self._gg_said = False

    def _saved_mutes(self) -> set[int]:
        """The seats muted here before this seat left, read from its table folder.

        A missing file is no mutes (nothing was muted, or a fresh table). A file
        that cannot be read or is not what :meth:`_keep_mutes` writes is said in
        one local sentence and ignored: nobody is muted, which the player can
        undo by muting again. Never raises. A seat without a table folder (a
        test's stand-in) keeps none.
        """
        store: TableStore | None = getattr(self, "store", None)
        if store is None:
            return set()
        path = mutes_path(store)
        try:
            data = json.loads(path.read_bytes().decode("utf-8"))
        except FileNotFoundError:
            return set()
        except (OSError, ValueError) as exc:
            why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            return self._mutes_lost(path, clean(why, 80))
        seats = range(len(self.info.seats))
        muted = data.get("muted") if isinstance(data, dict) else None
        if not isinstance(muted, list) or not all(
            type(s) is int and s in seats and s != self.seat for s in muted
        ):
            return self._mutes_lost(path, _("it is not a list of this table's seats"))
        if muted:
            names = join_items(self._chat_name(s) for s in sorted(set(muted)))
            self.notices.put_nowait(
                Notice(
                    "net",
                    _("Still muted here, as before you left: {names}. Type unmute to hear "
                      "them again.").format(names=names),
                )
            )
        return set(muted)

    def _mutes_lost(self, path: Path, why: str) -> set[int]:
        log.warning("mutes not restored from %s: %s", path, why)
        self.notices.put_nowait(
            Notice(
                "error",
                _(
                    "the mutes kept for this table ({file}) could not be read ({why}), so "
                    "nobody is muted now; type mute and a seat to hide its chat again."
                ).format(file=path, why=why),
            )
        )
        return set()

    def _keep_mutes(self) -> str | None:
        """Write this seat's mutes to its table folder, atomically (a resume reads them).

        A failure is a local fault of this seat's disk, said in one sentence;
        the mute itself still holds until the player leaves.
        """
        store: TableStore | None = getattr(self, "store", None)
        if store is None:
            return None
        path = mutes_path(store)
        data = json.dumps({"muted": sorted(self.chat_room.muted)}).encode()
        try:
            private_dir(path.parent)
            write_private(path, data)
        except StorageError as exc:  # its sentence is about resuming the table: not this
            log.warning("mutes not kept: %s", exc)
            return _(
                "(It is not kept if you resume this table: {file} could not be written; "
                "the log says why.)"
            ).format(file=path)
        return None

    @property
    def _chatter(self) -> BotChatter | None:
        """The bot's chatter, once this seat has a bot (its decider is often set later).

        It starts from the game as it is then: a bot resumed mid-match does not
        comment on the plays it replayed.
        """
        if self._chat_bot is None and self._chat_bots and self.decider is not None:
            self._chat_bot = BotChatter(self._chat_table, self.seat, self.rules)
            self._chat_seen = len(self.game.log)
            self._gg_said = self.game.finished()
        return self._chat_bot

    def _chat_now(self) -> float:
        return self._now()

    def _sign_chat(self, body: dict[str, Any]) -> str | None:
        if self.fault is not None:
            return self.fault
        events = self.replica.chat(body, self._now())
        self._handle(events)
        return next(
            (e.reason for e in events if isinstance(e, Rejected) and e.sender == self.seat), None
        )

    def _on_said(self, ev: Said, via: object) -> bool:
        self._hear(ev.seat, ev.body)
        seats = self.info.seats
        human = 0 <= ev.seat < len(seats) and not seats[ev.seat].bot  # bots never chat on
        bots = [s for s, info in enumerate(seats) if info.bot]
        first = bool(bots) and bots[0] == self.seat  # one bot answers, as at zsy play
        if self._chatter is not None and human and first:
            self._bot_say(self._chatter.heard(ev.seat, ev.body))
        return False

    def _bot_say(self, phrase: str | None) -> None:
        if phrase is not None and self.fault is None:
            self._handle(self.replica.chat({"phrase": phrase}, self._now()))

    def _bot_chat(self) -> None:
        """A bot seat's phrases after the plays applied since it last looked (sparingly)."""
        chatter = self._chatter
        if chatter is None:
            return
        log_ = self.game.log
        if len(log_) < self._chat_seen:  # a rebuild replaced the game
            self._chat_seen = len(log_)
        new, self._chat_seen = log_[self._chat_seen :], len(log_)
        r = self.game.round
        for action in new:
            if r is not None:
                self._bot_say(chatter.after_play(action, r))
        if self.game.finished() and not self._gg_said:
            self._gg_said = True
            self._bot_say(chatter.at_match_end())
