"""Chat at a running table, the shell's part: say, mute, show, and the bots' few phrases.

:mod:`zsy_lan.protocol.chat` judges lines (sans-IO); a :class:`ChatDesk` is what a
seat does with them. The network seat (:class:`zsy_lan.table.peer.TablePeer`) and
the local table (:class:`zsy_lan.table.local_table.LocalTable`) each own one and
give it the way a chat body is signed and sent (``sign``) and the way a notice
reaches the player (``tell``): it reads no attribute of theirs. A line heard is
told as a ``chat`` notice (``Alice: hello``), which the terminal marks apart
from the table's news (:func:`zsy_lan.protocol.chat.notice_mark`); a clock note
goes to the desk's :class:`~zsy_lan.table.clock.ClockNotes`. The UI's chat words
(``say``, ``phrases``, ``mute``, ``unmute``) are answered by :func:`chat_answer`
for any :class:`~zsy_lan.table.session.ChatSession`. A network bot seat's quick
phrases are :class:`BotChat`'s.
"""

from __future__ import annotations

import json
import logging
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

from zsy_lan.engine.game import Game
from zsy_lan.engine.rules import Rules
from zsy_lan.protocol.chat import (
    BotChatter,
    ChatCommand,
    ChatError,
    ChatRoom,
    body_for,
    find_seat,
    phrase_lines,
)
from zsy_lan.protocol.clock_notes import clock_body, is_clock
from zsy_lan.record.store import StorageError, TableStore, private_dir, write_private
from zsy_lan.table.clock import ClockNotes
from zsy_lan.table.session import ChatSession, Notice, SeatInfo
from zsy_lan.text.i18n import _, join_items, join_sentences
from zsy_lan.text.sanitize import clean, clean_words

__all__ = [
    "MUTES_FILE",
    "BotChat",
    "ChatDesk",
    "chat_answer",
    "chat_help",
    "mutes_path",
]

log = logging.getLogger("zsy.chat")

#: Signs and sends a chat body as this seat's: ``None``, or why it could not be sent.
Sign = Callable[[dict[str, Any]], "str | None"]


class ChatDesk:
    """A seat's chat: its room (mutes, rate limits), its clock notes heard, its kept mutes.

    ``seats`` is the session's seat list (read for names only), ``tell`` puts a
    notice before the player, ``sign`` signs and sends a body as this seat's.
    ``mutes``: the file that keeps this seat's mutes for a resume (a network
    seat's table folder); ``None`` keeps none (``zsy play`` is never resumed).
    ``clock`` (the table clock's seconds, ``None``: no clock) and ``game`` (the
    seat's game as it is now) are what its :class:`~zsy_lan.table.clock.ClockNotes`
    judge another seat's ``timeout`` note by.
    """

    def __init__(
        self,
        seat: int,
        seats: list[SeatInfo],
        tell: Callable[[Notice], None],
        sign: Sign,
        *,
        mutes: Path | None = None,
        clock: float | None = None,
        game: Callable[[], Any] | None = None,
    ) -> None:
        self.seat = seat
        self._seats = seats
        self._tell = tell
        self._sign = sign
        self._mutes = mutes
        self.notes = ClockNotes(seat, seats, tell, clock=clock, game=game)
        self.room = ChatRoom(seat) if mutes is None else ChatRoom(seat, muted=self._saved())

    def saw(self, now: float) -> None:
        """The seat's game may have moved: its clock notes time the turns from here."""
        self.notes.saw(now)

    def name(self, seat: int) -> str:
        """A seat as a chat line names it: its cleaned nickname (one space between its
        words: no layout), else ``seat N``."""
        seats = self._seats
        nick = clean_words(seats[seat].nick) if 0 <= seat < len(seats) else ""
        return nick or _("seat {seat}").format(seat=seat)

    def chat(self, text: str, now: float) -> str | None:
        """Send what the player typed after ``say``; None when sent, else why not (a sentence)."""
        try:
            body = body_for(text)
        except ChatError as exc:
            return str(exc)
        wait = self.room.may_send(now)
        if wait > 0:
            return _("not so fast: you can say something again in {s} s").format(
                s=max(1, math.ceil(wait))
            )
        refused = self._sign(body)
        if refused is not None:
            log.info("chat not sent: %s", refused)
            return _("the table cannot take chat from this seat now ({reason})").format(
                reason=clean(refused)
            )
        return None

    def announce(self, event: str) -> bool:
        """Sign the clock note ``event`` into this seat's feed; ``False`` (logged) when refused."""
        refused = self._sign(clock_body(event))
        if refused is not None:
            log.info("clock note %r not sent: %s", event, refused)
        return refused is None

    def mute(self, arg: str) -> str:
        """``mute SEAT|NAME``: hide that seat's chat on this screen; ``mute`` alone lists."""
        room = self.room
        if not arg.strip():
            if not room.muted:
                return _("Nobody is muted. Type mute and a seat number or a name.")
            names = join_items(self.name(s) for s in sorted(room.muted))
            return _("Muted here: {names}. Type unmute to hear everybody again.").format(
                names=names
            )
        seat = find_seat(arg, [s.nick for s in self._seats])
        if seat is None or seat == self.seat:
            return self._no_seat(arg)
        room.muted.add(seat)
        return self._kept(
            _(
                "{name}'s chat is hidden on your screen now (their moves still show); "
                "type unmute to hear them again."
            ).format(name=self.name(seat))
        )

    def unmute(self, arg: str) -> str:
        """``unmute SEAT|NAME``, or ``unmute`` alone for every seat."""
        room = self.room
        if not arg.strip():
            room.muted.clear()
            return self._kept(_("You hear everybody's chat again."))
        seat = find_seat(arg, [s.nick for s in self._seats])
        if seat is None or seat == self.seat:
            return self._no_seat(arg)
        room.muted.discard(seat)
        return self._kept(_("You hear {name}'s chat again.").format(name=self.name(seat)))

    def _kept(self, answer: str) -> str:
        """``answer`` to a mute or unmute, once the mutes are kept for a resume (where kept)."""
        why = self._keep_mutes()
        return answer if why is None else join_sentences([answer, why])

    def _no_seat(self, arg: str) -> str:
        """A mute or unmute refused: marked ``! `` as every refusal at the table is."""
        last = len(self._seats) - 1
        return "! " + _(
            "no other seat is called '{typed}': type a seat number (0-{last}) or a name "
            "(who lists them)"
        ).format(typed=clean(arg, 40), last=last)

    def hear(self, seat: int, body: Any, now: float) -> bool:
        """Show ``seat``'s chat line if it passes (:meth:`ChatRoom.hear`); True when shown."""
        if is_clock(body):  # a table clock note, not a line: told apart (zsy_lan/table/clock.py)
            return self.notes.heard(seat, body, now)
        heard = self.room.hear(seat, body, now)
        if heard.text is None:
            # every line dropped says why; a flood's hidden lines after the first, quietly
            hidden = heard.why is not None and "rate limit" in heard.why and not heard.flooding
            (log.debug if hidden else log.info)("%s", heard.why)
            if heard.flooding:
                self._tell(
                    Notice(
                        "net",
                        _("{name} is flooding the chat; their extra lines are hidden").format(
                            name=self.name(seat)
                        ),
                    )
                )
            return False
        self._tell(
            Notice("chat", _("{name}: {text}").format(name=self.name(seat), text=heard.text))
        )
        return True

    def _saved(self) -> set[int]:
        """The seats muted here before this seat left, read from its mutes file.

        A missing file is no mutes (nothing was muted, or a fresh table). A file
        that cannot be read or is not what :meth:`_keep_mutes` writes is said in
        one local sentence and ignored: nobody is muted, which the player can
        undo by muting again. Never raises.
        """
        path = self._mutes
        assert path is not None
        try:
            data = json.loads(path.read_bytes().decode("utf-8"))
        except FileNotFoundError:
            return set()
        except (OSError, ValueError) as exc:
            why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            return self._mutes_lost(path, clean(why, 80))
        seats = range(len(self._seats))
        muted = data.get("muted") if isinstance(data, dict) else None
        if not isinstance(muted, list) or not all(
            type(s) is int and s in seats and s != self.seat for s in muted
        ):
            return self._mutes_lost(path, _("it is not a list of this table's seats"))
        if muted:
            names = join_items(self.name(s) for s in sorted(set(muted)))
            self._tell(
                Notice(
                    "net",
                    _("Still muted here, as before you left: {names}. Type unmute to hear "
                      "them again.").format(names=names),
                )
            )
        return set(muted)

    def _mutes_lost(self, path: Path, why: str) -> set[int]:
        log.warning("mutes not restored from %s: %s", path, why)
        self._tell(
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
        """Write this seat's mutes to its file, atomically (a resume reads them).

        Nothing where no file keeps them (``zsy play``). A failure is a local
        fault of this seat's disk, said in one sentence; the mute itself still
        holds until the player leaves.
        """
        path = self._mutes
        if path is None:
            return None
        data = json.dumps({"muted": sorted(self.room.muted)}).encode()
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
    if not isinstance(session, ChatSession):
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


class BotChat:
    """A network bot seat's few quick phrases (:class:`zsy_lan.protocol.chat.BotChatter`).

    Seeded by the table id and the seat. ``game`` reads the seat's game as it is
    now (a rebuild replaces it), ``has_bot`` whether the seat has a bot yet (``zsy
    join --bot`` sets its decider after the peer is made), ``say`` signs and sends
    a phrase. ``enabled`` False (``TablePeer(bot_chat=False)``): never a word.
    """

    def __init__(
        self,
        table: str,
        seat: int,
        rules: Rules,
        *,
        game: Callable[[], Game],
        has_bot: Callable[[], bool],
        say: Callable[[str], None],
        enabled: bool = True,
    ) -> None:
        self._table, self.seat, self._rules = table, seat, rules
        self._game, self._has_bot, self._say = game, has_bot, say
        self.enabled = enabled
        self._bot: BotChatter | None = None
        self._seen = 0  # game log entries the chatter has looked at
        self._gg_said = False

    @property
    def chatter(self) -> BotChatter | None:
        """The bot's chatter, once this seat has a bot (its decider is often set later).

        It starts from the game as it is then: a bot resumed mid-match does not
        comment on the plays it replayed.
        """
        if self._bot is None and self.enabled and self._has_bot():
            game = self._game()
            self._bot = BotChatter(self._table, self.seat, self._rules)
            self._seen = len(game.log)
            self._gg_said = game.finished()
        return self._bot

    def heard(self, seat: int, body: Any, seats: list[SeatInfo]) -> None:
        """A line was said: the table's first bot seat may answer a human's line."""
        human = 0 <= seat < len(seats) and not seats[seat].bot  # bots never chat on
        bots = [s for s, info in enumerate(seats) if info.bot]
        first = bool(bots) and bots[0] == self.seat  # one bot answers, as at zsy play
        chatter = self.chatter
        if chatter is not None and human and first:
            self._phrase(chatter.heard(seat, body))

    def after_moves(self) -> None:
        """The phrases after the plays applied since it last looked (sparingly)."""
        chatter = self.chatter
        if chatter is None:
            return
        game = self._game()
        log_ = game.log
        if len(log_) < self._seen:  # a rebuild replaced the game
            self._seen = len(log_)
        new, self._seen = log_[self._seen :], len(log_)
        r = game.round
        for action in new:
            if r is not None:
                self._phrase(chatter.after_play(action, r))
        if game.finished() and not self._gg_said:
            self._gg_said = True
            self._phrase(chatter.at_match_end())

    def _phrase(self, phrase: str | None) -> None:
        if phrase is not None:
            self._say(phrase)
