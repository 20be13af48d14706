"""The spectator's full screen (``zsy watch`` on a terminal): the seats, the trick, the log.

Why a module of its own: the player's screen (:mod:`.screen`) is built around
a hand to play. A spectator has none, plays nothing and types nothing but a
few keys, so this screen is read-only: every seat along the top (nobody is
"you"), the middle of the table drawn for nobody's seat
(:func:`.render.table_lines` with no seat, as the line mode's ``table``), the
log of what the record told (plays, results, the chat), and where the hand
would be a line saying the screen is watching. It reads a
:class:`WatchSession`, the same :class:`~zsy_lan.table.session.TableSession` seam
with seat ``-1`` (the engine's spectator view: no hand), fed by
:func:`zsy_lan.table.watch.watch_table` through its ``on_batch`` and ``show``
hooks. Keys: ``q`` (Ctrl-Q, Ctrl-C) stops watching, ``w`` (F5) lists the
seats, F1 help.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import RichLog, Static

from zsy_lan.engine.choices import to_act
from zsy_lan.engine.game import Game
from zsy_lan.protocol.lobby import NAME_MAX
from zsy_lan.table.session import Notice, NoticeQueue, SeatInfo, SessionState
from zsy_lan.text.i18n import _, exit_reason
from zsy_lan.text.sanitize import clean, clean_or
from zsy_lan.ui.labels import (
    deal_level_label,
    fit_label,
    label_room,
    level_forms,
    round_titles,
    seat_titles,
    team_level,
)
from zsy_lan.ui.line_mode import _names
from zsy_lan.ui.render import Style, table_lines, team_lines
from zsy_lan.ui.screen import (
    TableApp,
    TableScreenBase,
    TextOverlay,
    fit_rows,
    glue_tags,
    panel_text,
    seat_lines,
)

__all__ = ["WatchApp", "WatchSession", "run_watch_screen"]

#: the seat a spectator's session is: the engine's spectator view (no hand)
NO_SEAT = -1


@dataclass
class WatchSession:
    """A spectator's :class:`~zsy_lan.table.session.TableSession`: seat -1, no hand, no moves.

    ``game`` is the spectator's verified game (:class:`zsy_lan.table.follower.Follower`'s),
    replaced when the table rewinds its record; :meth:`follow` is the
    ``on_batch`` hook of :func:`zsy_lan.table.watch.watch_table`.
    """

    game: Game | None = None
    info: SessionState = field(default_factory=SessionState)
    seat: int = NO_SEAT
    notices: asyncio.Queue[Notice] = field(default_factory=NoticeQueue)
    changed: asyncio.Event = field(default_factory=asyncio.Event)
    follower: Any = None
    ended: str | None = None  # why the watch ended (the screen stays until q)

    def follow(self, follower: Any, _frames: object = None) -> None:
        """A batch of the record was verified: show the follower's game."""
        if follower is not self.follower:
            self.follower = follower
            bots = set(follower.meta.get("bots") or ())
            nicks = [follower.nicks.get(s, str(s)) for s in range(follower.rules.players)]
            self.info.seats = [SeatInfo(nick=n, bot=s in bots) for s, n in enumerate(nicks)]
            self.info.table_name = clean_or(follower.meta.get("name"), "table", NAME_MAX)
            self.info.deal_mode = "private" if follower.private else "open"
        self.game = follower.game
        self.changed.set()

    def show(self, text: str) -> None:
        """A line for the log (``watch_table``'s ``show``)."""
        self.notices.put_nowait(Notice("watch", text))

    async def submit(self, action: object) -> str | None:
        """A spectator never plays."""
        return _("A spectator does not play: type table, who or q (stops watching).")

    async def close(self) -> None:
        """Nothing to leave: the watch itself ends when the screen does."""


def centre_text(session: WatchSession, style: Style) -> tuple[str, list[str]]:
    """The middle of the table for nobody's seat: (its heading, its lines).

    The seat panels show each seat's count and last play, so the per-seat
    lines of :func:`table_lines` are left out here, as on the player's screen.
    """
    game = session.game
    view = game.view(NO_SEAT) if game is not None else None
    if view is None:
        return _("Watching"), [_("Waiting for the first deal...")]
    names = _names(session)  # type: ignore[arg-type]
    lines = table_lines(view, NO_SEAT, style, names=names, rules=game.rules)  # type: ignore[union-attr]
    teams = team_lines(game.rules, names, NO_SEAT, view)  # type: ignore[union-attr]
    rest = lines[1 + len(teams) + view.players :]
    return lines[0], rest + teams


class WatchApp(TableScreenBase):
    """The spectator's full-screen table; ``run_async()`` returns why it stopped."""

    ENABLE_COMMAND_PALETTE = False
    CSS = (
        TableApp.CSS
        + """
    #watching { height: auto; max-height: 4; border: round $primary; padding: 0 1; }
    Screen.ascii #watching { border: ascii; }
    """
    )
    BINDINGS = [
        Binding("ctrl+q", "leave", show=False, priority=True),
        Binding("ctrl+c", "leave", show=False, priority=True),
        Binding("q", "leave", show=False),
        Binding("f1", "overlay('help')", show=False, priority=True),
        Binding("f5", "overlay('who')", show=False, priority=True),
        Binding("w", "overlay('who')", show=False),
        Binding("question_mark", "overlay('help')", show=False),
    ]

    def __init__(
        self,
        session: WatchSession,
        style: Style,
        answer: Callable[[str], list[str]] | None = None,
    ) -> None:
        super().__init__()
        self.session = session
        self.style = style
        self.answer = answer or (lambda _word: [])
        self._tasks: list[asyncio.Task[None]] = []
        self._players = 0

    def compose(self) -> ComposeResult:
        with Vertical(id="table"):
            yield Horizontal(id="seats")
            with Horizontal(id="middle"):
                yield Static(id="centre")
                yield RichLog(id="log", wrap=True, markup=False, highlight=False, min_width=10)
            yield Static(id="status")
            yield Static(id="watching")
            yield Static(id="keys")
        yield Static(id="small")

    def on_mount(self) -> None:
        if self.style.ascii_suits:
            self.screen.add_class("ascii")
        self.query_one("#log", RichLog).border_title = _("Log")
        box = self.query_one("#watching", Static)
        box.border_title = _("Watching")
        box.update(Text(_("A spectator: no hand, no moves; what every seat sees in public.")))
        self.query_one("#keys", Static).update(
            Text(_("q stops watching, w lists the seats, F1 help"),
                 no_wrap=True, overflow="ellipsis")
        )
        self._tasks = [
            asyncio.create_task(self._read_notices()),
            asyncio.create_task(self._watch()),
        ]
        self._check_size()
        self.show_table()

    def show_table(self) -> None:
        """Redraw from the session: a panel per seat, the middle of the table."""
        session = self.session
        game = session.game
        players = game.rules.players if game is not None else 0
        seats = self.query_one("#seats", Horizontal)
        if players != self._players:  # the first batch says how many seats there are
            self._players = players
            seats.remove_children()
            seats.mount_all(Static(id=f"seat{s}", classes="seat") for s in range(players))
            self.call_after_refresh(self.show_table)
            return
        view = game.view(NO_SEAT) if game is not None else None
        plain = Style(ascii_suits=self.style.ascii_suits)
        share = self.size.width // max(1, players)
        texts = {}
        for s in range(players):
            panel = self.query_one(f"#seat{s}", Static)
            room = label_room(panel, share)
            panel.border_title = fit_label(seat_titles(s), room)
            level = team_level(game.rules, view, s)  # Guandan: the seat's team's level
            panel.border_subtitle = fit_label(level_forms(level), room) if level else ""
            width = max(8, panel.content_region.width or share - 3)  # frame and padding
            texts[s] = panel_text(seat_lines(session, s, plain, width=width), width)  # type: ignore[arg-type]
            panel.set_class(view is not None and to_act(view, s), "turn")
        rows = max((len(t.plain.split("\n")) for t in texts.values()), default=4)
        for s, text in texts.items():  # every panel as tall as the tallest (the players' too)
            panel = self.query_one(f"#seat{s}", Static)
            panel.update(text)
            panel.styles.height = max(4, rows) + 2
        head, lines = centre_text(session, dataclasses.replace(self.style, color=False))
        table = clean(session.info.table_name)
        centre = self.query_one("#centre", Static)
        # before the first batch (still asking the host) a line names no table: just "Watching"
        deal = deal_level_label(game.rules, view, self.style.ascii_suits) if game else None
        titles = round_titles(table, head, deal, view.round_no if view is not None else 0)
        room = label_room(centre, self.size.width * 3 // 5)
        centre.border_title = fit_label(titles, room)
        if session.ended:
            lines = ["* " + session.ended, *lines]
        width = max(10, centre.content_region.width or self.size.width * 3 // 5 - 4)
        rows = [r for line in lines for r in fit_rows(glue_tags(line, to_name=True), width, "  ")]
        centre.update(Text("\n".join(rows), no_wrap=True, overflow="ellipsis"))

    async def _read_notices(self) -> None:
        while True:
            notice: Notice = await self.session.notices.get()
            self.say(clean(notice.text))

    async def _watch(self) -> None:
        while True:
            await self.session.changed.wait()
            self.session.changed.clear()
            try:
                self.show_table()
            except Exception as exc:  # noqa: BLE001 - a drawing bug must not stop the watch
                self.say(
                    "! "
                    + _("The screen could not draw a change ({error}); the game goes on.").format(
                        error=clean(exc)
                    )
                )

    async def action_overlay(self, word: str) -> None:
        if isinstance(self.screen, ModalScreen):
            return
        if word == "help":
            lines = [
                _(
                    "You are watching: the seats along the top, the trick in the middle, "
                    "what happens in the log. q (or Ctrl-Q) stops watching, w (or F5) lists "
                    "the seats, Escape closes this."
                )
            ]
            title = _("Help")
        else:
            lines, title = self.answer("who"), _("Seats")
        self.push_screen(TextOverlay(title, lines, self.style.ascii_suits))

    def action_leave(self) -> None:
        """q / Ctrl-Q: stop watching at once (a spectator leaves nothing behind)."""
        self.exit("quit")


async def run_watch_screen(
    watch: Callable[[WatchSession, asyncio.Event], Awaitable[Any]],
    style: Style,
    answer: Callable[[str, Any], list[str]],
    *,
    run: Callable[[WatchApp], Awaitable[Any]] | None = None,
    table_name: str = "",
) -> Any:
    """Run ``watch(session, stop)`` (the watch, fed into ``session``) under the full screen.

    Returns what ``watch`` returned (``None`` if it had to be cancelled); an
    error it raised (a refusal, a host out of reach) ends the screen and is
    raised again here, for the CLI to say in one sentence. When the watch ends
    by itself (the match is over, the host left) the screen says so and stays
    until ``q``; ``q`` sets ``stop``. ``run`` runs the app (tests: headless).
    ``table_name``: the NAME the spectator typed (``zsy watch NAME``), the screen's
    title while the host has not let it in yet; the record's own name replaces it.
    """
    session = WatchSession()
    session.info.table_name = clean_or(table_name, "", NAME_MAX)
    stop = asyncio.Event()
    app = WatchApp(session, style, lambda word: answer(word, session.follower))
    task = asyncio.ensure_future(watch(session, stop))

    def ended(t: asyncio.Future[Any]) -> None:
        if t.cancelled():
            return
        if t.exception() is not None:
            app.exit("error")
            return
        why = exit_reason(str(getattr(t.result(), "why", "")))
        session.ended = _("Stopped watching ({why}). Press q to leave.").format(why=why)
        session.show("* " + session.ended)
        session.changed.set()

    task.add_done_callback(ended)
    try:
        await (run or WatchApp.run_async)(app)
    finally:
        stop.set()  # the watch says goodbye to the host (it looks every half second)
        await asyncio.wait({task}, timeout=2)
        if not task.done():  # still asking the host: nothing to finish
            task.cancel()
            await asyncio.wait({task}, timeout=5)
    if task.cancelled() or not task.done():
        return None
    return task.result()  # raises what the watch raised
