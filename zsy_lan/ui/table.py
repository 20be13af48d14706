"""The terminal table for a networked game: one seat, typed input, live notices.

It renders the session's view with :mod:`.render`, reads lines with
prompt_toolkit (notices print *above* the input line through
``patch_stdout``, so a player who is typing never loses the line) or, for
pipes and screen readers, with a plain line reader. Nothing changes the
terminal's modes except prompt_toolkit itself, which restores them on every
exit path (the ``with`` blocks below), Ctrl-C and Ctrl-D included.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from ..engine.errors import EngineError
from ..engine.match import titles
from ..engine.rules import Rules
from ..engine.state import Action, RoundState
from ..session import Notice, TableSession
from .commands import Request, describe, interpret
from .render import HELP, Style, count_text, counter_text, table_lines


class LineReader(Protocol):
    """Reads one typed line; ``None`` at end of input."""

    async def read(self, prompt: str) -> str | None: ...


class PromptReader:
    """prompt_toolkit input: history, line editing, notices above the prompt."""

    def __init__(self, session: object | None = None) -> None:
        from prompt_toolkit import PromptSession

        self._session = session if session is not None else PromptSession()

    async def read(self, prompt: str) -> str | None:
        try:
            return await self._session.prompt_async(prompt)  # type: ignore[attr-defined]
        except EOFError:
            return None


class PlainReader:
    """Line-by-line input from a pipe or a screen-reader-friendly terminal.

    A daemon thread reads stdin: a blocked ``readline`` must never keep the
    process alive after the match ends (the default executor would be joined
    at exit, waiting for a line that may never come).
    """

    def __init__(self) -> None:
        self._lines: asyncio.Queue[str | None] | None = None

    def _start(self) -> asyncio.Queue[str | None]:
        loop = asyncio.get_running_loop()
        lines: asyncio.Queue[str | None] = asyncio.Queue()

        def pump() -> None:
            while True:
                line = sys.stdin.readline()
                loop.call_soon_threadsafe(lines.put_nowait, None if line == "" else line)
                if line == "":
                    return

        threading.Thread(target=pump, daemon=True, name="zsy-stdin").start()
        return lines

    async def read(self, prompt: str) -> str | None:
        if self._lines is None:
            self._lines = self._start()
        print(prompt, end="", flush=True)
        line = await self._lines.get()
        return None if line is None else line.rstrip("\n")


def roster_lines(session: TableSession) -> list[str]:
    """Who sits where, bots labelled, connection state in words (never colour alone)."""
    out = []
    for s, info in enumerate(session.info.seats):
        tags = []
        if info.bot:
            tags.append("bot")
        if info.held_by_bot:
            run_by = "" if info.held_by is None else f", run by seat {info.held_by}"
            tags.append(f"[bot holding{run_by}] until they return")
        tags.append("connected" if info.connected else "DISCONNECTED")
        me = " (you)" if s == session.seat else ""
        out.append(f"  seat {s}: {info.nick or '?'}{me} - {', '.join(tags)}")
    return out


def render(session: TableSession, style: Style) -> list[str]:
    """The whole table for this seat, with the deal mode always stated."""
    game = session.game
    names = [
        i.nick + (" [bot]" if i.bot else "") + (" [bot holding]" if i.held_by_bot else "")
        for i in session.info.seats
    ]
    deal = (
        "private deal (mental poker)"
        if session.info.deal_mode == "private"
        else ("open deal (every peer could compute every hand)")
    )
    lines = [f"Table {session.info.table_name or '?'} - {deal}"]
    view = game.view(session.seat)
    if view is None:
        lines.append("Waiting for the first deal...")
        return lines
    prev = titles(game.match.results[-1].order) if game.match.results else None
    lines += table_lines(view, session.seat, style, names=names, titles=prev)
    for s, info in enumerate(session.info.seats):
        if not info.connected:
            lines.append(
                f"(seat {s} is disconnected{'; a bot holds the seat' if info.held_by_bot else ''})"
            )
    return lines


def score_lines(session: TableSession) -> list[str]:
    """The running score sheet."""
    m = session.game.match
    if not m.results:
        return ["No round finished yet."]
    out = [f"Score sheet after {len(m.results)} round(s) of {m.rounds}:"]
    for s in range(m.players):
        out.append(f"  seat {s}: Upstream {m.upstreams[s]} time(s), points {m.totals[s]}")
    if m.phase == "over":
        out.append("Match over. Winner: seat(s) " + " ".join(map(str, m.winners)))
    return out


@dataclass
class Assist:
    """Auto-play (托管) and the turn timer: the seat's own helpers, local to this player.

    ``auto``: the ``normal`` bot's best move is played at each turn until the
    player types ``auto`` again. ``timer``: seconds a turn may take before that
    move is played for the player (``None``: no timer, which friends often want).
    """

    auto: bool = False
    timer: float | None = None


async def play_for_me(session: TableSession, why: str, print_fn: Callable[[str], None]) -> None:
    """Play the planner's best move for this seat (auto-play or a timed-out turn)."""
    game, seat = session.game, session.seat
    view = game.view(seat)
    legal = game.legal(seat) if view is not None else []
    if view is None or not legal:
        return
    ranked = hint_list(game.rules, view, seat, legal)
    best = next((a for a in ranked if a in legal), legal[0])
    reason = await session.submit(best)
    if reason is None:
        print_fn(f"* {why}: played {describe(best)} for you")
    else:
        print_fn(f"! {why}: could not play for you ({reason})")


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
    stop = asyncio.Event()
    assist = assist or Assist()
    pending: list[asyncio.Task[None]] = []

    async def on_my_turn(key: object) -> None:
        if assist.auto:
            await asyncio.sleep(0.3)  # let the player see the table first
            if _turn_key(session) == key and assist.auto:
                await play_for_me(session, "auto-play", print_fn)
        elif assist.timer is not None:
            await asyncio.sleep(assist.timer)
            if _turn_key(session) == key and _my_turn(session):
                await play_for_me(session, f"time's up ({assist.timer:g} s)", print_fn)

    async def show_notices() -> None:
        while True:
            notice: Notice = await session.notices.get()
            print_fn(("! " if notice.kind == "error" else "* ") + notice.text)

    async def watch() -> None:
        nonlocal last_turn
        while not stop.is_set():
            await session.changed.wait()
            session.changed.clear()
            key = _turn_key(session)
            if key != last_turn:
                last_turn = key
                if _my_turn(session) or session.game.finished():
                    for line in render(session, style):
                        print_fn(line)
                if _my_turn(session) and not session.game.finished():
                    for t in pending:
                        t.cancel()
                    pending[:] = [asyncio.create_task(on_my_turn(key))]
                if session.game.finished():
                    for line in score_lines(session):
                        print_fn(line)
                    stop.set()

    notices = asyncio.create_task(show_notices())
    watcher = asyncio.create_task(watch())
    try:
        for line in render(session, style):
            print_fn(line)
        print_fn("Type help for commands.")
        while not stop.is_set():
            read = asyncio.create_task(reader.read("> "))
            done, _ = await asyncio.wait(
                {read, asyncio.create_task(stop.wait())}, return_when=asyncio.FIRST_COMPLETED
            )
            if read not in done:
                read.cancel()
                break
            text = read.result()
            if text is None:
                return "end of input"
            if text.strip().lower() in ("auto", "托管"):
                assist.auto = not assist.auto
                print_fn(
                    "Auto-play ON: the normal bot plays your turns; type auto to take over."
                    if assist.auto
                    else "Auto-play OFF: you play again."
                )
                if assist.auto and _my_turn(session):
                    await play_for_me(session, "auto-play", print_fn)
                continue
            hint_at, quit_now = await _handle(session, text, style, hint_at, print_fn)
            if quit_now:
                return "quit"
        return "match over" if session.game.finished() else (session.info.stopped or "stopped")
    finally:
        for task in (notices, watcher, *pending):
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task


def _my_turn(session: TableSession) -> bool:
    # with the private deal the game also waits on deal steps, which the peer signs
    # by itself: only a choice of move is the player's turn
    seats = getattr(session.game, "decision_seats", session.game.actors)()
    return session.seat in seats


def _turn_key(session: TableSession) -> object:
    g = session.game
    r = g.round
    return (len(g.log), g.match.phase, None if r is None else r.turn)


async def _handle(
    session: TableSession, text: str, style: Style, hint_at: int, print_fn: Callable[[str], None]
) -> tuple[int, bool]:
    game = session.game
    seat = session.seat
    extra = TABLE_WORDS.get(text.strip().lower())
    if extra == "table":
        for line in render(session, style):
            print_fn(line)
        return hint_at, False
    if extra == "who":
        for line in roster_lines(session):
            print_fn(line)
        return hint_at, False
    if extra == "score":
        for line in score_lines(session):
            print_fn(line)
        return hint_at, False
    if extra == "void":
        vote = getattr(session, "vote", None)  # network tables only (VotingSession)
        print_fn(("* " + await vote("void")) if vote else "! Only a network table votes.")
        return hint_at, False
    view = game.view(seat)
    legal = game.legal(seat) if view is not None else []
    if view is None:
        if text.strip().lower() in ("q", "quit", "exit"):
            return hint_at, True
        print_fn("The round has not been dealt yet.")
        return hint_at, False
    waiting = ", ".join(f"seat {s}" for s in game.actors()) or "the next deal"
    not_yet = f"! Not your turn: waiting for {waiting}. (help, who, score work any time)"
    typed = text.strip()
    if not _my_turn(session) and (typed.isdigit() or typed.startswith("#")):
        print_fn(not_yet)  # a card or a move number (#N) only means something on your turn
        return hint_at, False
    try:
        got = interpret(text, game.rules, view, seat, legal)
    except EngineError as exc:
        print_fn(f"! {exc}")
        return hint_at, False
    if isinstance(got, Request):
        if got.name == "quit":
            return hint_at, True
        if got.name == "list":
            if not legal:
                print_fn("Not your turn." if not _my_turn(session) else "No legal move.")
            for i, a in enumerate(legal, 1):
                print_fn(f"  #{i}  {describe(a, style.ascii_suits)}")
        elif got.name == "hint":
            plays = hint_list(game.rules, view, seat, legal)
            if not plays:
                print_fn("No hint: it is not your turn.")
            else:
                a = plays[hint_at % len(plays)]
                print_fn(
                    f"Hint ({hint_at % len(plays) + 1}/{len(plays)}): "
                    f"{describe(a, style.ascii_suits)}"
                )
                hint_at += 1
        elif got.name == "counter":
            print_fn("Played this round: " + (counter_text(view) or "nothing"))
            print_fn(
                "Cards left: "
                + ", ".join(f"seat {s} {count_text(n)}" for s, n in enumerate(view.counts))
            )
        elif got.name == "sort":
            style.by_suit = not style.by_suit
            for line in render(session, style):
                print_fn(line)
        elif got.name in ("help", "legend"):
            print_fn(HELP)
            print_fn(
                "At a table also: table (show it again), who (seats and connections), "
                "score (the score sheet), auto (托管: a bot plays your turns until you type "
                "auto again), void (vote to void the round while a seat withholds its part "
                "of a private deal)."
            )
        return hint_at, False
    if not _my_turn(session):
        print_fn(not_yet)
        return hint_at, False
    reason = await session.submit(got)
    if reason is not None:
        print_fn(f"! {reason} - try again (? lists your legal moves)")
        return hint_at, False
    return 0, False


def hint_list(rules: Rules, view: RoundState, seat: int, legal: list[Action]) -> list[Action]:
    """Legal moves best-first, from the ``normal`` bot's planner (the hint key cycles them)."""
    if not legal:
        return []
    try:
        from ..bots import hints

        ranked = hints(rules, view, seat)
    except Exception:  # noqa: BLE001 - a hint must never break the game: fall back
        ranked = []
    return ranked or ([a for a in legal if a.kind != "pass"] or legal)


# Table-only words, checked before card parsing ("t" alone is a ten, so no one-letter forms).
TABLE_WORDS = {
    "table": "table",
    "who": "who",
    "w": "who",
    "score": "score",
    "scores": "score",
    "void": "void",
}
