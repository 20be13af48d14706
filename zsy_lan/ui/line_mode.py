"""The terminal table for a networked game: one seat, typed input, live notices.

It renders the session's view with :mod:`.render`, reads lines with
prompt_toolkit (notices print *above* the input line through
``patch_stdout``, so a player who is typing never loses the line) or, for
pipes and screen readers, with a plain line reader (a notice that arrives
while its prompt is shown starts on a line of its own, and the prompt is
shown again after it). Nothing changes the terminal's modes except
prompt_toolkit itself, which restores them on every exit path (the ``with``
blocks below), Ctrl-C and Ctrl-D included.

Every line is wrapped to the terminal's width (:func:`.render.wrap`). An idle
table stays quiet: when it is this player's turn the prompt says so (with the
turn timer's countdown), and one reminder comes if the turn drags on.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
import threading
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import IO, Protocol

from zsy_lan.engine.errors import EngineError, ParseError
from zsy_lan.engine.phases import MatchPhase
from zsy_lan.engine.round import PASS, PLAY
from zsy_lan.engine.rules import Rules
from zsy_lan.engine.state import Action
from zsy_lan.protocol.chat import chat_command, notice_mark
from zsy_lan.protocol.table_settings import settings_line
from zsy_lan.table.chat_desk import chat_answer, chat_help
from zsy_lan.table.clock import (
    TIMEOUTS_TO_AUTO,
    TurnClock,
    acting_human,
    announce,
    back_owed,
    clock_streak,
    tell_back,
)
from zsy_lan.table.relay_join import relay_marks, session_links
from zsy_lan.table.session import Notice, SeatInfo, TableSession, hint_list
from zsy_lan.table.spectator_desk import watcher_nicks
from zsy_lan.table.tuning import env_seconds
from zsy_lan.text import rules_text
from zsy_lan.text.engine_text import translate as engine_said
from zsy_lan.text.i18n import _, join_items, join_phrases, join_sentences, ngettext
from zsy_lan.text.lookalike import alike_positions
from zsy_lan.text.present import round_or_hand
from zsy_lan.text.sanitize import clean
from zsy_lan.text.words import place_title
from zsy_lan.ui.commands import Request, describe, interpret, is_card_text
from zsy_lan.ui.render import (
    Style,
    count_text,
    counter_text,
    help_text,
    is_doudizhu,
    landlord_of_result,
    line_printer,
    place_titles,
    seat_label,
    table_lines,
    team_label,
    unseen_text,
)

Prompt = str | Callable[[], str]


class LineReader(Protocol):
    """Reads one typed line; ``None`` at end of input."""

    async def read(self, prompt: Prompt) -> str | None: ...


class PromptReader:
    """prompt_toolkit input: history, line editing, notices above the prompt.

    A callable prompt is redrawn every second (the turn timer's countdown).
    """

    def __init__(self, session: object | None = None) -> None:
        from prompt_toolkit import PromptSession

        self._session = session if session is not None else PromptSession()

    async def read(self, prompt: Prompt) -> str | None:
        try:
            return await self._session.prompt_async(  # type: ignore[attr-defined]
                prompt, refresh_interval=1.0 if callable(prompt) else 0
            )
        except EOFError:
            return None


class PlainReader:
    """Line-by-line input from a pipe or a screen-reader-friendly terminal.

    A daemon thread reads stdin: a blocked ``readline`` must never keep the
    process alive after the match ends (the default executor would be joined
    at exit, waiting for a line that may never come). Output goes through
    :meth:`show`, which never glues a line to the prompt: a notice arriving
    while the prompt waits starts on its own line and the prompt follows it.
    """

    def __init__(self, stdin: IO[str] | None = None, stdout: IO[str] | None = None) -> None:
        self._lines: asyncio.Queue[str | None] | None = None
        self._stdin = stdin
        self._stdout = stdout
        self._prompt: Prompt | None = None  # the prompt waiting for a line (text, or made anew)
        self._at_prompt = False  # the last thing written is that prompt
        self._reprompt_due = False
        self._finished = False  # the table is ending: no prompt again (finish)

    def finish(self) -> None:
        """The table is ending: show no prompt again.

        The last lines (the score sheet) would otherwise be followed by a fresh
        prompt that nobody answers, left on screen as an empty ``>`` line above
        ``Bye``.
        """
        self._finished = True

    def _out(self) -> IO[str]:
        return self._stdout if self._stdout is not None else sys.stdout

    def _start(self) -> asyncio.Queue[str | None]:
        loop = asyncio.get_running_loop()
        lines: asyncio.Queue[str | None] = asyncio.Queue()
        stream = self._stdin if self._stdin is not None else sys.stdin

        def pump() -> None:
            while True:
                try:
                    line = stream.readline()
                except (OSError, ValueError):  # the stream went away: that is end of input
                    line = ""
                try:
                    loop.call_soon_threadsafe(lines.put_nowait, None if line == "" else line)
                except RuntimeError:  # the table is gone (its loop closed): nobody reads on
                    return
                if line == "":
                    return

        threading.Thread(target=pump, daemon=True, name="zsy-stdin").start()
        return lines

    def show(self, text: str) -> None:
        """Print a line; with the prompt on screen, on a fresh line, the prompt again after.

        A burst of lines (the table, a notice) is printed together and the prompt
        follows it once, not after every line.
        """
        out = self._out()
        if self._prompt is not None and self._at_prompt:
            out.write("\n")
        out.write(text + "\n")
        out.flush()
        self._at_prompt = False
        if self._prompt is not None and not self._reprompt_due:
            self._reprompt_due = True
            try:
                asyncio.get_running_loop().call_soon(self._reprompt)
            except RuntimeError:  # no loop (called from outside the table): show it now
                self._reprompt()

    def _reprompt(self) -> None:
        self._reprompt_due = False
        if self._prompt is not None and not self._at_prompt and not self._finished:
            # made anew: the turn or its seconds left may have changed since the line was asked
            prompt = self._prompt
            out = self._out()
            out.write(prompt() if callable(prompt) else prompt)
            out.flush()
            self._at_prompt = True

    async def read(self, prompt: Prompt) -> str | None:
        if self._lines is None:
            self._lines = self._start()
        text = prompt() if callable(prompt) else prompt
        out = self._out()
        out.write(text)
        out.flush()
        self._prompt, self._at_prompt = prompt, True
        try:
            line = await self._lines.get()
        except asyncio.CancelledError:
            # the table stopped (the match is over): what follows ("Bye...") gets its own
            # line, not the prompt's (a typed line ends the prompt's line with its Enter)
            if self._at_prompt:
                out.write("\n")
                out.flush()
            raise
        finally:
            self._prompt, self._at_prompt = None, False
        return None if line is None else line.rstrip("\n")


def _names(session: TableSession) -> list[str]:
    """Each seat's nick as the table shows it, bots and held seats marked.

    Two seats whose names look alike (UTS #39: "hоst" with a Cyrillic о beside
    "host") carry the first two groups of their key fingerprint, so no screen shows them
    the same.
    """
    out = []
    alike = alike_positions([i.nick for i in session.info.seats])
    for s, i in enumerate(session.info.seats):
        name = clean(i.nick)
        if s in alike and i.fingerprint:
            name += " [" + _("key {key}").format(key=i.fingerprint[:9]) + "]"
        if i.bot:
            name += " [" + _("bot") + "]"
        if i.held_by_bot:
            name += " [" + _("bot holding") + "]"
        elif i.auto_play:  # 托管: a bot plays this seat's turns until its player is back
            name += " [" + _("auto-play") + "]"
        out.append(name)
    return out


def link_word(session: TableSession, info: SeatInfo | None) -> str | None:
    """A seat's connection in a word (``connected`` / ``DISCONNECTED``), or ``None`` at a
    local table (``zsy play``): nothing there goes over a network, so its bots are not
    "connected" (their ``[bot]`` label says what they are)."""
    if info is not None and not info.connected:
        return _("DISCONNECTED")
    local = getattr(session.info, "deal_mode", "open") == "local"  # (a stand-in may lack it)
    return None if local else _("connected")


def roster_lines(session: TableSession) -> list[str]:
    """Who sits where, bots labelled, connection state in words (never colour alone)."""
    out = []
    rules = session.game.rules
    alike = alike_positions([i.nick for i in session.info.seats])
    for s, info in enumerate(session.info.seats):
        tags = []
        if info.bot and info.run_by is not None:
            tags.append(_("bot run by seat {seat}").format(seat=info.run_by))
        elif info.bot:
            tags.append(_("bot"))
        team = team_label(rules, s)
        if team:
            tags.append(team)
        if info.held_by_bot:
            if info.held_by is None:
                tags.append(_("[bot holding] until they return"))
            else:
                tags.append(
                    _("[bot holding, run by seat {seat}] until they return").format(
                        seat=info.held_by
                    )
                )
        link = link_word(session, info)
        if link is not None:
            tags.append(link)
        if s in alike and info.fingerprint:  # names that read the same: the keys tell them apart
            tags.append(_("key {key}").format(key=info.fingerprint))
        nick = clean(info.nick) or "?"
        if not tags:  # your own seat at zsy play: nothing to add (no network, no bot)
            line = (
                _("  seat {seat}: {nick} (you)")
                if s == session.seat
                else _("  seat {seat}: {nick}")
            )
        else:
            line = (
                _("  seat {seat}: {nick} (you) - {tags}")
                if s == session.seat
                else _("  seat {seat}: {nick} - {tags}")
            )
        out.append(line.format(seat=s, nick=nick, tags=join_phrases(tags)))
    watching = watcher_nicks(session)  # spectators: never a seat (zsy_lan/table/spectator_desk.py)
    if watching:
        out.append(_("  watching: {names}").format(names=join_items(clean(n) for n in watching)))
    return out


def shows_settings(session: TableSession) -> bool:
    """Whether the header states the host's settings: at a network table whose host set a
    clock, turned an assist off or invites (a table of defaults stays as quiet as before)."""
    return session.info.deal_mode != "local" and not session.info.settings.is_default


def render(session: TableSession, style: Style) -> list[str]:
    """The whole table for this seat, with the deal mode always stated."""
    game = session.game
    names = _names(session)
    deal = {
        "private": _("private deal (mental poker)"),
        "local": _("local match against bots (dealt on this machine)"),
    }.get(session.info.deal_mode) or _("open deal (every peer could compute every hand)")
    lines = [
        _("Table {name} - {deal}").format(name=clean(session.info.table_name) or "?", deal=deal)
    ]
    if shows_settings(session):  # the host's clock and assists, alike for every seat
        lines.append(settings_line(session.info.settings))
    hosted = [s for s, i in enumerate(session.info.seats) if i.bot and i.run_by is not None]
    if hosted:  # their secrets sit in that player's data dir
        host = session.info.seats[hosted[0]].run_by
        if host == session.seat:  # the host reads it too: "that player" was themselves
            said = ngettext(
                "The bot at seat {seats} runs in seat {host}'s process (yours): you could see "
                "its cards.",
                "The bots at seats {seats} run in seat {host}'s process (yours): you could "
                "see their cards.",
                len(hosted),
            )
        else:
            said = ngettext(
                "The bot at seat {seats} runs in seat {host}'s process: that player could "
                "see its cards.",
                "The bots at seats {seats} run in seat {host}'s process: that player could "
                "see their cards.",
                len(hosted),
            )
        lines.append(said.format(seats=join_items(map(str, hosted)), host=host))
    view = game.view(session.seat)
    if view is None:
        lines.append(_("Waiting for the first deal..."))
        return lines
    prev = place_titles(game.rules, game.match.results[-1].order) if game.match.results else None
    marks = relay_marks(session, style.ascii_suits)  # seats reached through the relay
    lines += table_lines(
        view, session.seat, style, names=names, titles=prev, rules=game.rules, marks=marks
    )
    lines += _word_choices(session, style)
    for s, info in enumerate(session.info.seats):
        if not info.connected:
            lines.append(
                _("(seat {seat} is disconnected; a bot holds the seat)").format(seat=s)
                if info.held_by_bot
                else _("(seat {seat} is disconnected)").format(seat=s)
            )
    return lines


def score_lines(session: TableSession) -> list[str]:
    """The running score sheet, in the variant's words (Dou Dizhu: stakes won and lost)."""
    m = session.game.match
    rules = session.game.rules
    names = _names(session)
    me = session.seat
    if not m.results:
        return [_("No hand finished yet.") if is_doudizhu(rules) else _("No round finished yet.")]
    done = len(m.results)
    out = []
    if is_doudizhu(rules):
        out.append(
            ngettext(
                "Score sheet after {n} hand of {total}:",
                "Score sheet after {n} hands of {total}:",
                done,
            ).format(n=done, total=m.rounds)
        )
        for s in range(m.players):
            won = sum(r.points[s] for r in m.results if r.points[s] > 0)
            lost = -sum(r.points[s] for r in m.results if r.points[s] < 0)
            out.append(
                _("  {seat}: stakes won {won}, lost {lost}; total {total:+d}").format(
                    seat=seat_label(s, names, me), won=won, lost=lost, total=m.totals[s]
                )
            )
        for r in m.results:
            if not any(r.points):  # nothing was at stake (a hand that counted nothing)
                out.append("  " + _("hand {n}: no stakes").format(n=r.round_no))
                continue
            lord = landlord_of_result(r.points)
            result = (
                _("hand {n}: landlord {seat} won {stake}")
                if r.points[lord] > 0
                else _("hand {n}: landlord {seat} lost {stake}")
            )
            out.append(
                "  "
                + result.format(
                    n=r.round_no, seat=seat_label(lord, names, me), stake=abs(r.points[lord])
                )
            )
    elif rules.match_over is not None:  # a plugin ends the match (zsy_match_over): no "of m"
        out.append(
            ngettext("Score sheet after {n} round:", "Score sheet after {n} rounds:", done).format(
                n=done
            )
        )
    elif done > m.rounds:  # a tie played on (ZSY-8.5): "3 rounds of 2" read as a mistake
        extra = done - m.rounds
        out.append(
            ngettext(
                "Score sheet after {n} rounds: the {total} agreed and {extra} deciding round "
                "(ZSY-8.5):",
                "Score sheet after {n} rounds: the {total} agreed and {extra} deciding rounds "
                "(ZSY-8.5):",
                extra,
            ).format(n=done, total=m.rounds, extra=extra)
        )
    else:
        out.append(
            ngettext(
                "Score sheet after {n} round of {total}:",
                "Score sheet after {n} rounds of {total}:",
                done,
            ).format(n=done, total=m.rounds)
        )
    if not is_doudizhu(rules):
        first = place_title(rules, 1)  # None: a game without titles (its vocabulary says so)
        for s in range(m.players):
            team = team_label(rules, s)
            line = (
                ngettext(
                    "  {seat}: {title} {ups} time, points {points}",
                    "  {seat}: {title} {ups} times, points {points}",
                    m.upstreams[s],
                )
                if first is not None
                else ngettext(
                    "  {seat}: out first {ups} time, points {points}",
                    "  {seat}: out first {ups} times, points {points}",
                    m.upstreams[s],
                )
            ).format(
                seat=seat_label(s, names, me), title=first, ups=m.upstreams[s], points=m.totals[s]
            )
            out.append(line + (f" [{team}]" if team else ""))
        if rules.teams is not None and rules.match_score is not None:
            standing = list(rules.match_score(rules, m))
            for team in rules.teams:
                out.append(
                    _("  {team} - {seats}: {score}").format(
                        team=team_label(rules, team[0]),
                        seats=join_items(seat_label(s, names, me) for s in team),
                        score=standing[team[0]],
                    )
                )
    if m.phase == MatchPhase.OVER:
        if rules.teams is not None:
            teams = sorted({team_label(rules, s) for s in m.winners})
            out.append(_("Match over. Winner: {who}").format(who=join_items(teams)))
        else:
            out.append(
                _("Match over. Winner: {who}").format(
                    who=join_items(seat_label(s, names, me) for s in m.winners)
                )
            )
    return out


def rules_lines(rules: Rules) -> list[str]:
    """The rules in effect, as a player reads them (the ``rules`` command)."""
    return [clean(line) for line in rules_text.rules_lines(rules)]


#: Seconds auto-play waits at each turn by default; ``$ZSY_AUTO_PAUSE`` overrides it (tests
#: of real processes whose players go on auto-play only to end the match).
AUTO_PAUSE = 0.3
AUTO_PAUSE_ENV = "ZSY_AUTO_PAUSE"


def _auto_pause() -> float:
    """:data:`AUTO_PAUSE`, or ``$ZSY_AUTO_PAUSE`` when it is a number of seconds."""
    return env_seconds(AUTO_PAUSE_ENV, AUTO_PAUSE)


@dataclass
class Assist:
    """Auto-play (托管), the turn timer and the reminder: the seat's own helpers.

    ``auto``: the ``normal`` bot's best move is played at each turn until the
    player types ``auto`` again. ``timer``: seconds a turn may take before that
    move is played for the player (``None``: no timer, which friends often want).
    ``remind``: seconds into a turn before the one reminder that it is still
    the player's turn (``None``: never). ``auto_pause``: seconds auto-play waits
    at each turn before it moves, so the player sees the table first (a test
    that only needs the match to end passes 0).
    """

    auto: bool = False
    timer: float | None = None
    remind: float | None = 10.0
    auto_pause: float = field(default_factory=_auto_pause)
    #: Timeouts in a row (:data:`TIMEOUTS_TO_AUTO` start auto-play); a seat with a signed
    #: feed reads it from there (:func:`zsy_lan.table.clock.clock_streak`: survives a resume).
    timeouts: int = 0
    #: Auto-play was started by the clock: any typed line or key press ends it.
    auto_by_clock: bool = False


async def _announce(session: TableSession, event: str) -> None:
    """Tell the table what this seat's clock did: a note signed into the seat's feed, so
    the record keeps it (:func:`zsy_lan.table.clock.announce`; a no-op without a table)."""
    await announce(session, event)


async def clock_ran_out(
    session: TableSession,
    assist: Assist,
    print_fn: Callable[[str], None],
    play: Callable[[str], Awaitable[bool]],
) -> None:
    """The table clock ran out on this seat's turn: play the hint, tell the table, and
    after :data:`TIMEOUTS_TO_AUTO` timeouts in a row switch to auto-play until the player
    is back (the run is read from the seat's signed feed where it has one, so it survives
    a resume; docs/table-settings.md).

    ``play(why)`` plays the hint for the player (the line mode's or the screen's way)
    and says whether it did. This is the clock's move, not an assist: it is played
    with hints turned off too.
    """
    assert assist.timer is not None
    if not await play(_("time's up ({s:g} s)").format(s=assist.timer)):
        return
    assist.timeouts += 1
    streak = clock_streak(session, this_timeout=True)  # the hint just played counts
    if streak is not None:
        assist.timeouts = streak
    # on before the table is told: telling it takes up to a second or so, and the turn
    # may come back meanwhile (fast bots), which must find auto-play on, not a third clock
    # (and the player told at once: a key pressed meanwhile answers "auto-play off")
    to_auto = assist.timeouts >= TIMEOUTS_TO_AUTO and not assist.auto
    if to_auto:
        assist.auto = assist.auto_by_clock = True
        print_fn(
            "* "
            + _(
                "Your time ran out again: auto-play (托管) is on. Type anything or press a key "
                "to take over."
            )
        )
    await _announce(session, "timeout")
    if to_auto and assist.auto_by_clock:  # the table is told "back" instead if they came back
        await _announce(session, "auto")


async def player_is_back(
    session: TableSession, assist: Assist, print_fn: Callable[[str], None]
) -> bool:
    """The player typed or pressed a key: auto-play the clock started ends (``True`` if it did).

    A seat resumed while on auto-play is not on it here, but the table was last told
    it is: the player's first act tells the table they are back (``False``: nothing
    to restart, the clock already counts this seat's turns).
    """
    if not assist.auto_by_clock:
        if back_owed(session, assist.auto):
            await tell_back(session)
        return False
    assist.auto = assist.auto_by_clock = False
    assist.timeouts = 0  # back: a new run of timeouts
    print_fn(_("Auto-play OFF: you play again."))
    await _announce(session, "back")
    return True


async def play_for_me(session: TableSession, why: str, print_fn: Callable[[str], None]) -> bool:
    """Play the planner's best move for this seat (auto-play or a timed-out turn): the
    hint command's first suggestion (a pass where passing is legal and nothing is hinted).
    ``True`` when it was played."""
    game, seat = session.game, session.seat
    view = game.view(seat)
    legal = list(game.may(seat).legal)  # what this seat may do now (none: not its turn)
    if view is None or not legal:
        return False
    ranked = hint_list(game.rules, view, seat, legal)
    best = next((a for a in ranked if a in legal), legal[0])
    reason = await session.submit(best)
    if reason is None:
        print_fn(
            "* "
            + played_for_you(why, best, game.rules)
        )
        return True
    else:
        print_fn(
            "! "
            + _("{why}: could not play for you ({reason})").format(
                why=why, reason=refusal(reason)
            )
        )


def _clock(at: float) -> str:
    return time.strftime("%H:%M:%S", time.localtime(at))


async def run_table(
    session: TableSession,
    style: Style,
    reader: LineReader,
    print_fn: Callable[[str], None] = print,
    assist: Assist | None = None,
) -> str:
    """Drive one seat until the match ends or the player quits; returns why it stopped."""
    hint_at = 0
    last_turn: object = None
    shown: list[object] = [None]  # the turn the table was last printed for: once each
    stop = asyncio.Event()
    assist = assist or Assist()
    pending: list[asyncio.Task[None]] = []
    turn: dict[str, float] = {}  # "wall"/"mono": when this player's turn began
    clock = TurnClock(assist.timer)  # whoever acts: the countdown the prompt shows
    show = getattr(reader, "show", None) if print_fn is print else None
    emit: Callable[[str], None] = show if show is not None else print_fn

    say = line_printer(style, emit)

    def prompt() -> str:
        if not _my_turn(session) or session.game.finished() or "mono" not in turn:
            others = clock.others_text(session, _names(session)) if not assist.auto else None
            return f"[{others}] > " if others else "> "
        if assist.timer is not None and not assist.auto:
            left = max(0, int(assist.timer - (time.monotonic() - turn["mono"]) + 0.999))
            return _("[your turn, {s} s left] > ").format(s=left)
        return _("[your turn] > ")

    async def on_my_turn(key: object) -> None:
        if assist.auto:
            await asyncio.sleep(assist.auto_pause)  # let the player see the table first
            if _turn_key(session) == key and assist.auto:
                await play_for_me(session, _("auto-play"), say)
            return
        waited = 0.0
        if assist.remind is not None and (assist.timer is None or assist.remind < assist.timer):
            await asyncio.sleep(assist.remind)
            waited = assist.remind
            if _turn_key(session) != key or not _my_turn(session):
                return
            text = _("Still your turn (since {at}).").format(at=_clock(turn["wall"]))
            if assist.timer is not None:
                left = max(0, round(assist.timer - waited))
                text = join_sentences([text, ngettext(
                    "The table clock plays the hint for you in {s} second.",
                    "The table clock plays the hint for you in {s} seconds.",
                    left,
                ).format(s=left)])
            say("* " + text)
        if assist.timer is not None:
            await asyncio.sleep(max(0.0, assist.timer - waited))
            if _turn_key(session) == key and _my_turn(session):
                await clock_ran_out(
                    session, assist, say, lambda why: play_for_me(session, why, say)
                )

    async def show_notices() -> None:
        while True:
            notice: Notice = await session.notices.get()
            say(notice_mark(notice.kind) + notice.text)  # chat lines set apart ("» ")

    async def watch() -> None:
        nonlocal last_turn
        while not stop.is_set():
            await session.changed.wait()
            session.changed.clear()
            key = _turn_key(session)
            clock.turn(key)
            if key != last_turn:
                last_turn = key
                if (_my_turn(session) or session.game.finished()) and key != shown[0]:
                    shown[0] = key
                    for line in render(session, style):
                        say(line)
                if _my_turn(session) and not session.game.finished():
                    turn["wall"], turn["mono"] = time.time(), time.monotonic()
                    for t in pending:
                        t.cancel()
                    pending[:] = [asyncio.create_task(on_my_turn(key))]
                else:
                    turn.clear()
                if session.game.finished():
                    ending = getattr(reader, "finish", None)
                    if ending is not None:  # no empty prompt left above "Bye" (PlainReader)
                        ending()
                    for line in score_lines(session):
                        say(line)
                    stop.set()

    async def read_line(text: Prompt) -> str | None | bool:
        """A typed line, ``None`` at end of input, ``False`` when the table stopped first."""
        read = asyncio.create_task(reader.read(text))
        stopper = asyncio.create_task(stop.wait())
        try:
            done, _pending = await asyncio.wait(
                {read, stopper}, return_when=asyncio.FIRST_COMPLETED
            )
        finally:
            stopper.cancel()
        if read not in done:
            read.cancel()
            return False
        return read.result()

    notices = asyncio.create_task(show_notices())
    watcher = asyncio.create_task(watch())
    try:
        shown[0] = _turn_key(session)  # the watcher does not print this table again
        for line in render(session, style):
            say(line)
        say(_("Type help for commands."))
        while not stop.is_set():
            text = await read_line(prompt)
            if text is False:
                break
            if text is None:
                return "end of input"
            assert isinstance(text, str)
            if await player_is_back(session, assist, say):  # auto-play the clock started ends
                if _my_turn(session) and not session.game.finished():  # the clock again
                    key = _turn_key(session)
                    turn["wall"], turn["mono"] = time.time(), time.monotonic()
                    pending.append(asyncio.create_task(on_my_turn(key)))
                if text.strip().lower() in ("auto", "托管", ""):
                    continue
            if text.strip().lower() in ("auto", "托管"):
                assist.auto = not assist.auto
                say(
                    _("Auto-play ON: the normal bot plays your turns; type auto to take over.")
                    if assist.auto
                    else _("Auto-play OFF: you play again.")
                )
                await _announce(session, "auto" if assist.auto else "back")
                if assist.auto and _my_turn(session):
                    await play_for_me(session, _("auto-play"), say)
                continue
            hint_at, quit_now = await _handle(session, text, style, hint_at, say, clock)
            if quit_now and not session.game.finished():
                say(
                    _(
                        "Leave the table while the match is on? The others see your seat "
                        "drop. Type yes to leave, anything else to stay."
                    )
                )
                answer = await read_line(_("Leave? (yes/no) > "))
                if answer is False:
                    break
                if answer is not None and str(answer).strip().lower() not in (
                    "y",
                    "yes",
                    _("yes"),
                ):
                    say(_("You stay at the table."))
                    continue
            if quit_now:
                return "quit"
        return "match over" if session.game.finished() else (session.info.stopped or "stopped")
    finally:
        for task in (notices, watcher, *pending):
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task


def played_for_you(why: str, action: Action, rules: Rules) -> str:
    """What the clock or auto-play did in the player's place: "played 3♥", "passed", or a
    bid, double or tribute named as it is ("played give 2♣", "played pass" read oddly)."""
    if action.kind == PASS:
        return _("{why}: passed for you").format(why=why)
    move = describe(action, rules=rules)
    if action.kind == PLAY:
        return _("{why}: played {move} for you").format(why=why, move=move)
    return _("{why}: for you: {move}").format(why=why, move=move)


def refusal(reason: str) -> str:
    """Why the table refused this seat's action, in the player's language.

    The seat's replica says ``illegal: <the engine's sentence>``; that English prefix
    kept :func:`engine_said` from knowing the sentence ("illegal: the leader must play:
    ..." stayed English at a German table) or went into its cards ("illegal: Karo 3").
    The "- try again" around it already says it was refused.
    """
    if reason.startswith("illegal: "):
        reason = reason[len("illegal: ") :]
    return engine_said(reason)


def _a_word(word: str) -> bool:
    """A word of letters that is no card (``hello``, ``你好``; not ``QQ``, ``BJ``, ``10s``).

    Typed alone at the table it is chat or a mistyped command; the card parser's answer
    ("'hello' is not a card (ranks: 3-10 J Q K A...)") only listed ranks.
    """
    return len(word) > 1 and word.isalpha() and not is_card_text(word)


def _word_choices(session: TableSession, style: Style) -> list[str]:
    """A turn that is no play (Dou Dizhu's bid, double, redouble): its few choices, numbered.

    The line mode said only "Your turn." at the bidding: nothing said to type ``bid 2``.
    A play's choices are cards, listed on ``?``; these are words, and few.
    """
    game = session.game
    may = game.may(session.seat)
    if not may.words or not may.turn:
        return []
    legal = may.legal
    if not legal or len(legal) > 9 or any(a.cards or a.hidden for a in legal):
        return []
    shown = [
        f"#{i} {describe(a, style.ascii_suits, game.rules)}" for i, a in enumerate(legal, 1)
    ]
    return [_("Moves: {moves}").format(moves="   ".join(shown))]


def _my_turn(session: TableSession) -> bool:
    # with the private deal the game also waits on deal steps, which the peer signs
    # by itself: only a choice of move is the player's turn
    return session.seat in session.game.decision_seats()


def _turn_key(session: TableSession) -> object:
    """What changes when a turn begins. With the private deal a deal step (the kitty
    turned up) can make a choice ours without a move or a new turn: that counts too."""
    g = session.game
    r = g.round
    return (len(g.log), g.match.phase, None if r is None else r.turn, _my_turn(session))


async def _handle(
    session: TableSession,
    text: str,
    style: Style,
    hint_at: int,
    print_fn: Callable[[str], None],
    clock: TurnClock | None = None,
) -> tuple[int, bool]:
    """One typed line. ``clock``: the table clock's count of the current turn, for the
    seconds the acting player has left in the "not your turn" answer."""
    game = session.game
    seat = session.seat
    low = text.strip().lower()
    chat = chat_command(text)  # say/chat, :phrase, phrases, mute, unmute (never cards)
    if chat is not None:
        for line in await chat_answer(session, chat):
            print_fn(line)
        return hint_at, False
    desk = getattr(session, "spectators", None)  # the host's spectator desk (spectate.py)
    said = desk.command(text) if desk is not None and not is_card_text(low) else None
    if said is not None:  # accept NICK / refuse NICK / watchers
        print_fn("* " + said)
        return hint_at, False
    extra = None if is_card_text(low) else TABLE_WORDS.get(low)
    names = _names(session)
    if extra == "table":
        for line in render(session, style):
            print_fn(line)
        return hint_at, False
    if extra == "who":
        for line in roster_lines(session):
            print_fn(line)
        return hint_at, False
    if extra == "links":  # direct or through the relay, and round-trip times (table/relay_join.py)
        for line in session_links(session):
            print_fn(line)
        return hint_at, False
    if extra == "score":
        for line in score_lines(session):
            print_fn(line)
        return hint_at, False
    if extra == "rules":
        for line in rules_lines(game.rules):
            print_fn(line)
        return hint_at, False
    if extra == "void":
        vote = getattr(session, "vote", None)  # network tables only (VotingSession)
        print_fn(("* " + await vote("void")) if vote else "! " + _("Only a network table votes."))
        return hint_at, False
    view = game.view(seat)
    legal = list(game.may(seat).legal)  # what this seat may do now (none: not its turn)
    if view is None:
        if low in ("quit", "exit"):
            return hint_at, True
        print_fn(_("The round has not been dealt yet."))
        return hint_at, False
    waiting = join_items(seat_label(s, names, seat) for s in game.actors()) or _("the next deal")
    not_yet = "! " + _("Not your turn: waiting for {who}. (help, who, score work any time)").format(
        who=waiting
    )
    left = clock.left() if clock is not None and acting_human(session) else None
    if left is not None:  # the table clock: how long the acting player still has
        not_yet = "! " + _(
            "Not your turn: waiting for {who}, {s} s left. (help, who, score work any time)"
        ).format(who=waiting, s=left)
    queen = _("(Q is a queen; to leave the table, type quit.)") if low == "q" else ""
    not_yet = join_sentences([not_yet, queen])
    typed = text.strip()
    if not _my_turn(session) and (typed.isdigit() or typed.startswith("#")):
        print_fn(not_yet)  # a card or a move number (#N) only means something on your turn
        return hint_at, False
    try:
        got = interpret(text, game.rules, view, seat, legal)
    except EngineError as exc:
        word = typed.split()[0] if typed.split() else ""
        rest = typed[len(word) :].strip()
        if isinstance(exc, ParseError) and word.lower() == "play" and is_card_text(rest):
            print_fn("! " + _("Type only the cards: {cards}").format(cards=clean(rest, 60)))
            return hint_at, False
        if isinstance(exc, ParseError) and _a_word(word):  # "hello": no card at all
            print_fn(
                "! "
                + _(
                    "'{word}' is not a card, nor a command: type help for the commands, "
                    "or say {text} to chat."
                ).format(word=clean(word, 20), text=clean(typed, 60))
            )
            return hint_at, False
        print_fn("! " + join_sentences([engine_said(str(exc)), queen]))
        return hint_at, False
    if isinstance(got, Request):
        if got.name == "quit":
            return hint_at, True
        if got.name == "list":
            if not legal:
                print_fn(_("Not your turn.") if not _my_turn(session) else _("No legal move."))
            for i, a in enumerate(legal, 1):
                print_fn(f"  #{i}  {describe(a, style.ascii_suits, game.rules)}")
        elif got.name == "hint" and not session.info.settings.hints:
            print_fn("! " + hints_off_text())
        elif got.name == "counter" and not session.info.settings.counter:
            print_fn("! " + counter_off_text())
        elif got.name == "hint":
            only_pass = only_pass_hint(legal)  # said as such, without asking the planner
            plays = [] if only_pass else hint_list(game.rules, view, seat, legal)
            if only_pass:
                print_fn(only_pass)
            elif not plays:
                print_fn(_("No hint: it is not your turn."))
            else:
                a = plays[hint_at % len(plays)]
                print_fn(
                    _("Hint ({i}/{n}): {move}").format(
                        i=hint_at % len(plays) + 1,
                        n=len(plays),
                        move=describe(a, style.ascii_suits, game.rules),
                    )
                )
                hint_at += 1
        elif got.name == "counter":
            print_fn(
                _("Played this round: {ranks}").format(ranks=counter_text(view) or _("nothing"))
            )
            unseen = unseen_text(view, seat, game.rules.deck)
            print_fn(
                _("Not seen yet (in the others' hands): {ranks}").format(
                    ranks=unseen or _("nothing")
                )
            )
            print_fn(
                _("Cards left: {counts}").format(
                    counts=join_items(
                        _("{seat} {count}").format(
                            seat=seat_label(s, names, seat), count=count_text(n)
                        )
                        for s, n in enumerate(view.counts)
                    )
                )
            )
        elif got.name == "sort":
            style.by_suit = not style.by_suit
            for line in render(session, style):
                print_fn(line)
        elif got.name in ("help", "legend"):
            print_fn(help_text())
            print_fn(chat_help())
            if session.info.deal_mode == "local":  # no peers: links and void mean nothing
                print_fn(
                    _(
                        "At a table also: table (show it again), who (the seats), "
                        "score (the score sheet), rules (the rules in effect), auto (托管: a bot "
                        "plays your turns until you type auto again)."
                    )
                )
                return hint_at, False
            print_fn(
                round_or_hand(
                    session.game.rules,
                    _(
                        "At a table also: table (show it again), who (seats and connections), "
                        "score (the score sheet), rules (the rules in effect), auto (托管: a bot "
                        "plays your turns until you type auto again), void (vote to void the "
                        "round while a seat withholds its part of a private deal)."
                    ),
                    _(
                        "At a table also: table (show it again), who (seats and connections), "
                        "score (the score sheet), rules (the rules in effect), auto (托管: a bot "
                        "plays your turns until you type auto again), void (vote to void the "
                        "hand while a seat withholds its part of a private deal)."
                    ),
                )
            )
            print_fn(
                _("links: how this seat reaches each other seat (direct or through the relay) "
                  "and the round-trip times.")
            )
        return hint_at, False
    if not _my_turn(session):
        print_fn(not_yet)
        return hint_at, False
    reason = await session.submit(got)
    if reason is not None:
        print_fn(
            "! "
            + join_sentences([
                _("{reason} - try again (? lists your legal moves)").format(
                    reason=refusal(reason)
                ),
                queen,
            ])
        )
        return hint_at, False
    return 0, False


def hints_off_text() -> str:
    """The one sentence a player gets for the hint key at a table whose host turned hints off."""
    return _(
        "The host turned hints off at this table, for every seat alike (the clock still "
        "plays the hint when a player's time runs out)."
    )


def only_pass_hint(legal: Sequence[Action]) -> str | None:
    """The hint key's answer when passing is the only legal move (nothing beats the last
    play), said as such instead of ``Hint (1/1): pass``; ``None`` when there is a choice."""
    if legal and all(a.kind == PASS for a in legal):
        return _("Hint: nothing you hold beats the last play; passing is your only move.")
    return None


def counter_off_text() -> str:
    """The one sentence for the card counter at a table whose host turned it off."""
    return _("The host turned the card counter off at this table, for every seat alike.")


# Table-only words, checked before card parsing; none of them reads as cards ("t" alone
# is a ten, "q" a queen: no one-letter forms but "w"), which tests/ui/test_card_words.py holds.
TABLE_WORDS = {
    "table": "table",
    "who": "who",
    "w": "who",
    "score": "score",
    "scores": "score",
    "rules": "rules",
    "void": "void",
    "links": "links",
}

__all__ = [
    "Assist",
    "LineReader",
    "PlainReader",
    "PromptReader",
    "render",
    "roster_lines",
    "rules_lines",
    "run_table",
    "score_lines",
]
