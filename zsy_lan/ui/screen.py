"""The full-screen table (issue #14): one seat's table in a Textual app.

Why a second rendering next to :mod:`.line_mode`'s line mode: a transcript that
reprints the table after every play makes a player scroll to find who played
what, and choose cards only by typing. Here the other seats sit along the
top, the trick and whose turn it is in the middle with a log of plays beside
it, and the hand along the bottom, where the arrow keys, space and the mouse
choose cards. The typed line stays, read by the very code the line mode uses
(:func:`.line_mode._handle`, :func:`.commands.interpret`), so every command works
the same in both.

The screen talks only to the :class:`~zsy_lan.table.session.TableSession` protocol,
as :func:`.line_mode.run_table` does, and builds its words from the same pure
helpers (:func:`.render.table_lines`, :func:`.line_mode.score_lines`...); it adds
no game logic. ``--plain`` keeps the line mode for screen readers and pipes.

Keys never play by accident: only Enter plays (what is selected) or passes
(``p`` then Enter: a ``p`` opens the typed line like any letter, so "phrases"
or "play 3 3" typed on the hand is never a pass), and leaving asks first
(``quit`` typed, or Ctrl-Q). Letters typed on the hand go to the input line,
where a single rank letter is always a card.
"""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import dataclasses
import functools
import logging
import os
import re
import shutil
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass

from rich.text import Text
from textual import events
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.filter import LineFilter, Monochrome, NoColor
from textual.screen import ModalScreen, Screen
from textual.widget import Widget
from textual.widgets import Input, RichLog, Static

from zsy_lan.engine.cards import card_str, rank_of, sort_cards, suit_of
from zsy_lan.engine.choices import over, to_act
from zsy_lan.engine.rules import Rules
from zsy_lan.engine.state import Action, RoundState
from zsy_lan.protocol.chat import continued, notice_mark
from zsy_lan.table.clock import TurnClock, acting_human, back_owed
from zsy_lan.table.relay_join import relay_marks
from zsy_lan.table.session import Notice, TableSession
from zsy_lan.text.i18n import N_, _, breaks_anywhere, join_phrases, ngettext
from zsy_lan.text.play_order import hand_shown
from zsy_lan.text.sanitize import clean
from zsy_lan.text.words import play_name
from zsy_lan.ui.commands import describe
from zsy_lan.ui.labels import (
    deal_level_label,
    fit_label,
    label_room,
    level_forms,
    points_forms,
    round_titles,
    seat_titles,
    team_level,
)
from zsy_lan.ui.line_mode import (
    Assist,
    _announce,
    _handle,
    _my_turn,
    _names,
    _turn_key,
    clock_ran_out,
    counter_off_text,
    hint_list,
    hints_off_text,
    link_word,
    only_pass_hint,
    played_for_you,
    player_is_back,
    refusal,
    render,
    score_lines,
    shows_settings,
)
from zsy_lan.ui.render import (
    Style,
    count_text,
    doudizhu_lines,
    is_doudizhu,
    place_titles,
    play_text,
    role_titles,
    seat_stakes,
    stake_parts,
    stake_short,
    table_lines,
    team_label,
    team_lines,
    text_width,
    wrap,
)

log = logging.getLogger("zsy.screen")

MIN_COLUMNS = 60  # below this the seats and the hand no longer fit: the screen says so
MIN_ROWS = 20
LEGAL_SHOWN = 9  # number keys 1-9 pick from the legal list

# card colours: the classic deck (red hearts, diamonds and red joker) and the four-colour one
_RED = "red"
_FOUR = {0: "blue", 1: "green", 2: "red", 3: ""}  # diamonds, clubs, hearts, spades
_ASCII_SUITS = str.maketrans({"♦": "D", "♣": "C", "♥": "H", "♠": "S"})  # as card_str's ASCII


@dataclass
class ScreenOptions:
    """What the screen needs besides the session: deck colours, a clock tests can freeze.

    ``clock`` (monotonic seconds) only drives the countdown shown; snapshot tests
    pass a constant so the picture never depends on the time. ``on_shown`` is
    called after the screen has drawn a change of the game (the benchmark's
    stopwatch).
    """

    four_color: bool = False
    clock: Callable[[], float] = time.monotonic
    on_shown: Callable[[], None] | None = None


def fits(columns: int, rows: int) -> bool:
    """Whether a terminal of this size can show the table (else the line mode is used)."""
    return columns >= MIN_COLUMNS and rows >= MIN_ROWS


def too_small_text(columns: int, rows: int) -> str:
    """The one sentence shown instead of the table when the window is too small."""
    return _(
        "This window is {w}x{h}; the table needs at least {mw}x{mh}. Enlarge it, or leave "
        "with Ctrl-Q and start again with --plain."
    ).format(w=columns, h=rows, mw=MIN_COLUMNS, mh=MIN_ROWS)


def screen_wanted(plain: bool) -> bool:
    """The full screen is used when both ends are a terminal, large enough, and not ``--plain``."""
    if plain or not (sys.stdin.isatty() and sys.stdout.isatty()):
        return False
    if os.environ.get("TERM", "") in ("", "dumb"):
        return False
    size = shutil.get_terminal_size((0, 0))
    if not fits(size.columns, size.lines):
        said = _(
            "The terminal is {w}x{h}; the full-screen table needs {mw}x{mh}: using "
            "the line mode."
        ).format(w=size.columns, h=size.lines, mw=MIN_COLUMNS, mh=MIN_ROWS)
        for line in wrap(said, max(20, size.columns)):  # a small terminal cut its words
            print(line)
        return False
    return True


# --- the words on the screen (pure: a session in, lines out) ---------------------------


def seat_lines(
    session: TableSession,
    seat: int,
    style: Style,
    left: int | None = None,
    width: int | None = None,
) -> list[str]:
    """One seat's panel, four short lines under its frame's title (``seat 2``): name
    with the bot labels; count with role, title or team; last play; connection state
    (and whether the table waits on it, with ``left`` seconds of the table clock).

    Short lines, because six players' panels share 80 columns; every fact is a
    word, never a colour alone. With ``width`` (the panel's columns) a last play
    whose cards do not fit on one line is named instead (``last: straight 3 to 9``):
    the screen wraps the lines at spaces and never cuts a word (issue #26).
    """
    game = session.game
    rules = game.rules
    view = game.view(session.seat)
    info = session.info.seats[seat] if seat < len(session.info.seats) else None
    names = _names(session)  # the nick, cleaned, with [bot] / [bot holding] as the line mode
    out = [(names[seat] if seat < len(names) else "") or "?"]
    facts = []
    if view is not None:
        count = count_text(view.counts[seat], warn=not over(view))
        if seat in view.finished and not over(view):
            count = _("finished #{n}").format(n=view.finished.index(seat) + 1)
        facts.append(count)
        if is_doudizhu(rules):
            title = role_titles(rules, view).get(seat)
        elif game.match.results:
            title = place_titles(rules, game.match.results[-1].order).get(seat)
        else:
            title = None
        if title:
            facts.append(title)
    team = team_label(rules, seat)
    if team:
        facts.append(team)
    out.append(join_phrases(facts))
    last = view.seat_last[seat] if view is not None and view.seat_last else None
    said = _("last: {cards}").format(cards=play_text(last, style, rules)) if view else ""
    if width is not None and last and text_width(said, style.wide_ambiguous) > width:
        name = play_name(rules, last)
        if name is not None:
            said = _("last: {cards}").format(cards=name)
    out.append(said)
    link = link_word(session, info)
    state = [link] if link is not None else []
    if view is not None and to_act(view, seat):
        state.append(_("to act"))
    if left is not None:
        state.append(_("{s} s left").format(s=left))
    relay = relay_marks(session, style.ascii_suits).get(seat)
    if relay:  # reached through the relay: said without asking (table/relay_join.py)
        state.append(relay)
    out.append(join_phrases(state))
    return out


def seat_score(session: TableSession, seat: int, ascii_only: bool = False) -> list[str]:
    """What a seat plays for and has won so far, for the foot of its frame (issue #26),
    longest form first (:func:`.labels.fit_label`).

    Dou Dizhu: the seat's own stake as it will be paid (``stake 24 (×4)`` for a farmer
    who doubled against a redouble) and the running total of stakes won and lost; the
    base game: the running points; a game with team levels (Guandan): the level of the
    seat's team. Seen without opening the score sheet (F2).
    """
    game = session.game
    view = game.view(session.seat)
    stake = []
    if view is not None:
        own = seat_stakes(game.rules, view).get(seat)
        if own is not None:
            stake.append(stake_short(*own, ascii_only=ascii_only))
    level = team_level(game.rules, view, seat)
    if level is not None:  # Guandan counts levels, not points: the seat's team's level
        return level_forms(level)
    totals = game.match.totals
    n = totals[seat] if seat < len(totals) else 0
    if is_doudizhu(game.rules):
        total = f"{n:+d}" if n else "0"
        forms = [_("total {n}").format(n=total), total]
    else:
        forms = points_forms(n)
    return [join_phrases([*stake, form]) for form in forms]


def centre_parts(session: TableSession, style: Style) -> tuple[str, list[str], list[str]]:
    """The middle of the table: (its heading, what the turn needs, the rest).

    Built from :func:`.line_mode.render` without the per-seat lines (the panels
    show them) and the hand (the hand row shows it). What the turn needs
    (tribute, the trick to beat or who leads, whose turn) comes first, so a
    small window never hides it; bids, stake, kitty, teams, the table's deal
    mode and any bot run in a player's process follow.
    """
    game = session.game
    view = game.view(session.seat)
    whole = render(session, style)
    if view is None:
        return whole[0], whole[1:], []
    hosted = any(i.bot and i.run_by is not None for i in session.info.seats)
    settings = shows_settings(session)  # the host's clock and assists line
    # "Table NAME - private deal", the host's settings, who could see bots
    intro = whole[: 1 + settings + hosted]
    names = _names(session)
    me = session.seat
    prev = place_titles(game.rules, game.match.results[-1].order) if game.match.results else None
    lines = table_lines(view, me, style, names=names, titles=prev, rules=game.rules)
    teams = team_lines(game.rules, names, me, view)
    head = lines[0]
    rest = lines[1 + len(teams) + view.players :]
    hand = view.hands[me] if 0 <= me < len(view.hands) else None
    if hand is not None:
        status = over(view) or view.turn >= 0
        del rest[-2 if status else -1]
    variant = len(doudizhu_lines(game.rules, view, style, names, me))
    return head, rest[variant:], teams + rest[:variant] + intro


NBSP = "\u00a0"  # glues what must share a row; drawn as a plain space
_TAG = re.compile(r"\[[^\]]*\]")


def glue_tags(line: str, to_name: bool = False) -> str:
    """Each ``[bot holding]`` tag one unit for :func:`fit_rows`; ``to_name``: also tied to
    the word before it (``bot-5 [bot]`` in a sentence, never ``[bot])`` alone on a row)."""
    line = _TAG.sub(lambda m: m.group().replace(" ", NBSP), line)
    return line.replace(" [", NBSP + "[") if to_name else line


def glue_phrases(line: str) -> str:
    """Each short phrase of a panel line one unit (``team B``, ``13 cards``): rows break
    between the phrases, never inside one (``team`` / ``A``)."""
    sep = join_phrases(["", ""])
    return sep.join(part.replace(" ", NBSP) for part in line.split(sep))


def fit_rows(line: str, width: int, indent: str = "") -> list[str]:
    """``line`` in rows of at most ``width`` columns, broken only at plain spaces.

    Textual's own wrapping breaks at no-break spaces too (``5)`` ended a row, its move
    began the next) and a frame that is too narrow cuts with ``…``; here a unit glued
    with no-break spaces stays whole, continuation rows start with ``indent``. A glued
    unit wider than a whole row (``[un bot ocupa el asiento]`` in a six-seat panel) is
    broken at its own spaces after all, and only a single word wider than a row (a very
    long nick) is cut, by :func:`.render.wrap`.
    """
    rows: list[str] = []
    cur = ""
    units = line.split(" ")
    units.reverse()
    while units:
        unit = units.pop()
        w = text_width(unit)
        if NBSP in unit and w > width - len(indent):
            units.extend(reversed(unit.split(NBSP)))  # too wide even alone: its words
            continue
        if cur.strip() and text_width(cur) + 1 + w <= width:
            cur += " " + unit
            continue
        if cur.strip():
            rows.append(cur)
            cur = indent
        if text_width(cur) + w > width:
            pieces = wrap(cur + unit, width)
            rows.extend(pieces[:-1])
            cur = pieces[-1]
        else:
            cur += unit
    rows.append(cur)
    return [row.rstrip(" ").replace(NBSP, " ") for row in rows]


def panel_text(lines: list[str], width: int) -> Text:
    """A seat panel's :func:`seat_lines` in rows of ``width`` columns, broken between
    phrases and tags, never inside a word (the players' and the spectators' screens)."""
    out = Text(no_wrap=True, overflow="ellipsis")
    first = True
    for i, line in enumerate(lines):
        warn = i == 1 and "!" in line  # the one/two-card warning
        if i in (1, 3):  # count, title, team; connection, turn, clock: phrases
            line = glue_phrases(line)
        for piece in fit_rows(glue_tags(line), width):
            if not first:
                out.append("\n")
            first = False
            out.append(piece, style="bold" if warn else None)
    return out


def centre_lines(session: TableSession, style: Style) -> list[str]:
    """The middle of the table as plain lines (heading, the turn's lines, the rest)."""
    head, turn, rest = centre_parts(session, style)
    return [head, *turn, *rest]


def hand_order(
    hand: tuple[int, ...],
    by_suit: bool,
    rules: Rules | None = None,
    state: RoundState | None = None,
) -> list[int]:
    """The hand as drawn: by rank as the game sorts it, or by suit (the ``s`` key), as in
    the line mode."""
    ordered = list(hand_shown(rules, state, hand))
    if by_suit:
        ordered.sort(key=lambda c: (suit_of(c) is None, suit_of(c) or 0))
    return ordered


def card_colour(card: int, four_color: bool) -> str:
    """The colour a card is drawn in ("" for the terminal's own); never the only clue."""
    suit = suit_of(card)
    if suit is None:
        return _RED if rank_of(card) == 14 else ""
    if four_color:
        return _FOUR[suit]
    return _RED if suit in (0, 2) else ""


#: The key footer, most needed first: whatever does not fit in two rows is left out
#: whole (F1 lists every key). Each a few words, so the footer fits 80 columns in two
#: rows and never ends in a cut word (issue #26).
KEY_HINTS = (
    N_("F1 help"),
    N_("Space select"),
    N_("Enter play"),
    N_("p Enter pass"),
    N_("h hint"),
    N_("1-9 pick"),
    N_("Left/Right move"),
    N_("Tab type"),
    N_("F2 score"),
    N_("F3 counter"),
    N_("F4 rules"),
    N_("F5 seats"),
    N_("Ctrl-Q leave"),
)


def key_rows(width: int, rows: int = 2) -> list[str]:
    """The key footer in at most ``rows`` rows of ``width`` columns, hints whole.

    Hints that do not fit are left out, except ``Ctrl-Q leave`` (the way out is
    always shown: it takes the place of the last hint that fits).
    """
    hints = [_(h) for h in KEY_HINTS]
    leave = hints.pop()
    gap = "  "

    def lay(items: list[str]) -> list[str] | None:
        out = [""]
        for item in items:
            if text_width(item) > width:
                return None
            if not out[-1]:
                out[-1] = item
            elif text_width(out[-1] + gap + item) <= width:
                out[-1] += gap + item
            else:
                out.append(item)
        return out if len(out) <= rows else None

    for keep in range(len(hints), -1, -1):
        laid = lay([*hints[:keep], leave])
        if laid is not None:
            return laid
    return [leave[:width]]


# --- widgets ------------------------------------------------------------------------------


#: hand keys that are also letters of a word of the typed line: ``s`` sorts, ``h`` hints,
#: and only the next letter opens the line. "say hi" typed on the hand left "ay hi"; the
#: line is read as the word the keys began. ``p`` is no hand key: it opens the typed line
#: (Enter then passes), so a word starting with p is typed whole and never passes.
_HAND_LETTERS = "sh"
_KEY_WORDS = ("say", "score", "scores", "sort", "help", "hint", "phrases")


def key_then_line(keys: str | None, text: str) -> str | None:
    """The line meant when the hand keys ``keys`` came right before the letter that opened it.

    ``s`` then "ay hi" means "say hi", ``ph`` then "rases" "phrases"; None when the keys
    begin none of the words there (``s`` then "who" is a sort, then the word who). No
    remainder is a word or a card of its own ("ay", "core", "elp", "rases"), so nothing
    typed whole is ever changed.
    """
    line = text.strip()
    first = line.split(" ", 1)[0].lower()
    if not keys or not first:
        return None
    for i in range(len(keys)):  # the longest run of keys first: "ph" + "rases"
        if keys[i:] + first in _KEY_WORDS:
            return keys[i:] + line
    return None


class HandView(Widget, can_focus=True):
    """The player's hand: sorted cards, the selected ones raised a row, a cursor to move.

    Left/Right move, Space selects, Enter plays, h cycles hints into the
    selection, 1-9 pick a move from the legal list; a click selects a card.
    Any other printable key starts the typed line with that key: ``p`` too, so
    passing is ``p`` then Enter and a word that starts with p never passes.
    """

    DEFAULT_CSS = """
    HandView { height: auto; min-height: 2; padding: 0 1; }
    """

    def __init__(self, table: TableApp) -> None:
        super().__init__(id="hand")
        self.table = table
        self.cards: list[int] = []
        self.cursor = 0
        self.selected: set[int] = set()  # indexes into ``cards`` (two decks repeat card faces)
        # a letter opened the typed line: the keys already on their way here (a paste, a
        # fast typist) follow it there until the hand has the keys again
        self.typing = False
        self.keys_before = ""  # the hand letters (s, h) typed just before a line opened

    def faces(self) -> list[tuple[str, int]]:
        """Each card as drawn and its width in columns (wcwidth; ♠♥♣ two in CJK terminals)."""
        style = self.table.style
        out = []
        for c in self.cards:
            face = card_str(c, ascii_suits=style.ascii_suits)
            out.append((face, text_width(face, style.wide_ambiguous)))
        return out

    def rows(self, width: int | None = None) -> list[list[tuple[int, int, int]]]:
        """The hand laid out in rows of (card index, column, width), a space between cards;
        a hand wider than the window wraps onto more rows."""
        if width is None:
            width = self.content_region.width or max(1, self.table.size.width - 4)
        rows: list[list[tuple[int, int, int]]] = [[]]
        x = 0
        for i, (_face, w) in enumerate(self.faces()):
            if rows[-1] and x + w > width:
                rows.append([])
                x = 0
            rows[-1].append((i, x, w))
            x += w + 1
        return rows

    def set_cards(self, cards: list[int]) -> None:
        """A new hand (or sort order): the selection survives only where the same cards stay."""
        if cards == self.cards:
            self.refresh()
            return
        rows = len(self.rows())
        kept = {self.cards[i] for i in self.selected if i < len(self.cards)}
        self.cards = cards
        self.selected = {i for i, c in enumerate(cards) if c in kept}
        self.cursor = min(self.cursor, max(0, len(cards) - 1))
        self.refresh(layout=len(self.rows()) != rows)  # a new layout only for a new height

    def selected_cards(self) -> list[int]:
        """The selected cards, in hand order."""
        return [self.cards[i] for i in sorted(self.selected) if i < len(self.cards)]

    def select_exactly(self, cards: tuple[int, ...]) -> None:
        """Select these cards (a hint, a picked move): each card once, lowest copies first."""
        want = list(cards)
        chosen = set()
        for i, c in enumerate(self.cards):
            if c in want:
                want.remove(c)
                chosen.add(i)
        self.selected = chosen
        if chosen:
            self.cursor = min(chosen)
        self.refresh()

    def render(self) -> Text:
        if not self.cards:
            return Text(_("(no cards in your hand)"))
        faces = self.faces()
        out = Text(no_wrap=True)
        for r, row in enumerate(self.rows()):
            for raised in (True, False):
                if r or not raised:
                    out.append("\n")
                x = 0
                for i, at, w in row:
                    out.append(" " * (at - x))
                    x = at + w
                    if (i in self.selected) != raised:
                        out.append(" " * w)
                        continue
                    look = ""
                    if self.table.style.color:
                        look = card_colour(self.cards[i], self.table.options.four_color)
                    if i == self.cursor:
                        look = (look + (" reverse" if self.has_focus else " underline")).strip()
                    out.append(faces[i][0], style=look or None)
        return out

    def get_content_height(self, container: object, viewport: object, width: int) -> int:
        return 2 * len(self.rows(width))

    def card_at(self, x: int, y: int) -> int | None:
        """The index of the card drawn at content offset (x, y), if any."""
        rows = self.rows()
        if not 0 <= y // 2 < len(rows):
            return None
        for i, at, w in rows[y // 2]:
            if at <= x < at + w + 1:
                return i
        return None

    def on_focus(self) -> None:
        self.typing = False
        self.refresh()  # the cursor is drawn reversed while the hand has the keys

    def on_blur(self) -> None:
        self.refresh()

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None:
            return
        i = self.card_at(offset.x, offset.y)
        if i is not None:
            self.cursor = i
            self.selected ^= {i}
            self.table.chosen = None
            self.refresh()

    async def _to_line(self, event: events.Key) -> None:
        """A key that reached the hand after a letter opened the typed line: the line's."""
        line = self.table.query_one("#cmd", Input)
        if event.key == "enter":
            self.typing = False
            await line.action_submit()
        elif event.key == "escape":
            self.typing = False
            self.table.leave_line()
        elif event.key == "backspace":
            line.action_delete_left()
        elif event.is_printable and event.character:
            line.insert_text_at_cursor(event.character)
        else:
            return
        event.stop()
        event.prevent_default()

    async def on_key(self, event: events.Key) -> None:
        key = event.key
        if self.typing:
            await self._to_line(event)
            return
        assist = self.table.assist
        if assist.auto_by_clock or back_owed(self.table.session, assist.auto):
            await self.table.woke()  # any key: the player is back from auto-play
        before = self.keys_before
        self.keys_before = before + key if key in _HAND_LETTERS else ""
        if key in ("left", "right", "home", "end"):
            if self.cards:
                step = {"left": -1, "right": 1}.get(key, 0)
                if key == "home":
                    self.cursor = 0
                elif key == "end":
                    self.cursor = len(self.cards) - 1
                else:
                    self.cursor = (self.cursor + step) % len(self.cards)
                self.refresh()
        elif key == "space":
            if self.cards:
                self.selected ^= {self.cursor}
                self.table.chosen = None
                self.refresh()
        elif key == "escape":
            self.selected = set()
            self.table.chosen = None
            self.refresh()
        elif key == "enter":
            await self.table.play_selection()
        elif key == "h":
            self.table.next_hint()
        elif key == "s":
            self.table.toggle_sort()
        elif key == "c":
            await self.table.overlay("c")
        elif key == "question_mark":
            await self.table.overlay("?")
        elif key.isdigit() and key != "0":
            self.table.pick(int(key))
        elif key == "tab":  # here, not by the app's focus_next: keys behind it follow it
            self.table.line_keys = ""
            self.typing = True
            self.screen.set_focus(self.table.query_one("#cmd", Input))
        elif event.is_printable and event.character:
            line = self.table.query_one("#cmd", Input)
            self.table.line_keys = before
            self.typing = True
            self.screen.set_focus(line)
            line.insert_text_at_cursor(event.character)
            if event.character == "p" and _my_turn(self.table.session):
                self.table.hint_pass()
        else:
            return
        event.stop()
        event.prevent_default()


class CentreBox(Static):
    """The middle of the table; laid out again when its height changes (the seat panels
    grew, the window was resized), so that what does not fit is counted, not cut."""

    def on_resize(self, event: events.Resize) -> None:
        app = self.app
        if isinstance(app, TableApp):
            self.update(app._centre_text())


class TextOverlay(ModalScreen[None]):
    """The score sheet, the card counter, the rules or help, over the table: Escape closes."""

    BINDINGS = [Binding("escape", "close", show=False), Binding("enter", "close", show=False)]
    DEFAULT_CSS = """
    TextOverlay { align: center middle; }
    TextOverlay > VerticalScroll {
        width: 90%; height: 90%; border: round $accent; background: $surface; padding: 0 1;
    }
    TextOverlay.ascii > VerticalScroll { border: ascii; }
    """

    def __init__(self, title: str, lines: list[str], ascii_frame: bool) -> None:
        super().__init__(classes="ascii" if ascii_frame else "")
        self.title_text = title
        self.lines = lines

    def compose(self) -> ComposeResult:
        box = VerticalScroll()
        box.border_title = self.title_text
        box.border_subtitle = _("Escape closes")
        with box:
            yield Static(Text("\n".join(self.lines)))

    def action_close(self) -> None:
        self.dismiss(None)


class Confirm(ModalScreen[bool]):
    """A yes/no question (leaving the table): y leaves, anything else stays."""

    DEFAULT_CSS = """
    Confirm { align: center middle; }
    Confirm > Static { width: 70%; height: auto; border: heavy $warning; padding: 1 2;
                       background: $surface; }
    Confirm.ascii > Static { border: ascii; }
    """

    def __init__(self, question: str, ascii_frame: bool) -> None:
        super().__init__(classes="ascii" if ascii_frame else "")
        self.question = question

    def compose(self) -> ComposeResult:
        yield Static(Text(self.question))

    def on_key(self, event: events.Key) -> None:
        event.stop()
        self.dismiss(event.key in ("y", "Y"))


# --- the app ------------------------------------------------------------------------------


def lenient_terminal_input() -> None:
    """Read the terminal's bytes as UTF-8 with a stand-in for any that are not.

    Textual's input thread decodes strictly: one byte that is no UTF-8 (a terminal set to
    Latin-1 sending é as 0xE9, line noise, a bad paste) raised UnicodeDecodeError there
    and ended the whole table with a traceback. A character it cannot read is one the
    player did not mean for the table anyway; ``�`` in the typed line says so.
    """
    try:
        from textual.drivers import linux_driver
    except ImportError:  # Windows: another driver, never tested here
        return
    if getattr(linux_driver.getincrementaldecoder, "_zsy_lenient", False):
        return
    strict = codecs.getincrementaldecoder

    def lenient(encoding: str) -> Callable[[], codecs.IncrementalDecoder]:
        return functools.partial(strict(encoding), errors="replace")

    lenient._zsy_lenient = True  # type: ignore[attr-defined]
    linux_driver.getincrementaldecoder = lenient  # type: ignore[assignment]


_NO_COLOUR = NoColor()


class TableScreenBase(App[str]):
    """What the players' and the spectators' screens share: the log, the size check, teardown."""

    style: Style
    _tasks: list[asyncio.Task[None]]

    def __init__(self) -> None:
        lenient_terminal_input()
        super().__init__()
        self._focus_before: Widget | None = None  # what had the keys when the table hid
        self._early: list[str] | None = []  # log lines said before the first layout

    def get_line_filters(self) -> list[LineFilter]:  # type: ignore[override]
        """Colour as the line mode decides it (:meth:`.render.Style.detect`): ``--color
        never`` or ``NO_COLOR`` draw the whole screen without any colour, ``--color always``
        in colour even where ``NO_COLOR`` is set (Textual alone would follow only
        ``NO_COLOR``).

        Without colour every segment takes the terminal's own foreground and background
        (:class:`textual.filter.NoColor`): the grey filter Textual uses on terminals
        without ANSI colours left 256-colour greys and a dark background behind (issue
        #26). Bold, reverse and underline stay: the cursor and the warnings never rely
        on colour.
        """
        filters = [f for f in super().get_line_filters() if not isinstance(f, Monochrome | NoColor)]
        if not self.style.color:
            filters.append(_NO_COLOUR)
        return filters

    def _own_tasks(self) -> list[asyncio.Task[None]]:
        """The screen's own tasks, cancelled when it closes."""
        return list(self._tasks)

    async def on_unmount(self) -> None:
        for task in self._own_tasks():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task

    def on_resize(self, event: events.Resize) -> None:
        self._check_size(event.size.width, event.size.height)
        self.call_after_refresh(self.redraw)

    def redraw(self) -> None:
        """After a resize: lines laid out to the old width are laid out again."""

    def _check_size(self, w: int | None = None, h: int | None = None) -> None:
        if w is None or h is None:
            w, h = self.size
        small = not fits(w, h)
        # the table's own screen, also under an overlay (help, score sheet): marking the
        # overlay left the table hidden behind "too small" once the window grew again
        base = self.screen_stack[0]
        was_small = base.has_class("small")
        if small and not was_small:
            # hiding the table takes the focus from the hand (Textual blurs what it hides);
            # remembered here, or the keys went nowhere once the window grew (issue #26)
            self._focus_before = base.focused
        base.set_class(small, "small")
        if small:
            base.query_one("#small", Static).update(Text(too_small_text(w, h)))
        elif was_small:
            self.call_after_refresh(self._refocus, base)

    def _refocus(self, base: Screen[object]) -> None:
        """The table is shown again: the keys go back where they were (or to the home widget)."""
        if base.focused is not None or base.has_class("small"):
            return
        widget = self._focus_before
        if widget is None or not widget.is_attached or not widget.focusable:
            widget = self.home_widget()
        if widget is not None:
            base.set_focus(widget)

    def home_widget(self) -> Widget | None:
        """The widget that has the keys when nothing else asks for them (the players' hand)."""
        return None

    def say(self, text: str) -> None:
        """A line in the log (a play, a notice, a command's answer).

        Lines said before the first layout wait for it: the log's width was not known
        yet, and Rich wrapped a Chinese line mid-name (``（norma`` / ``l-5）``).
        """
        if self.style.ascii_suits:  # narration from the table names suits by symbol
            text = text.translate(_ASCII_SUITS)
        if self._early is not None:
            if not self._early:
                self.call_after_refresh(self._said_early)
            self._early.append(text)
            return
        self._write(text)

    def _said_early(self) -> None:
        early, self._early = self._early or [], None
        for text in early:
            self._write(text)

    def _write(self, text: str) -> None:
        log = self.query_one("#log", RichLog)
        width = log.scrollable_content_region.width
        for line in text.split("\n"):
            if width > 4 and text_width(line) > width and (
                breaks_anywhere(line) or continued(line) is not None
            ):
                # Rich breaks only at spaces: "* " stood alone above a Chinese sentence;
                # and it marks no row, so a chat line's rows are marked here (chat.py)
                for piece in wrap(line, width):
                    log.write(Text(piece))
            else:
                log.write(Text(line))


class TableApp(TableScreenBase):
    """One seat's full-screen table; ``run_async()`` returns why the player left."""

    ENABLE_COMMAND_PALETTE = False  # Textual's own palette speaks only English: not here

    CSS = """
    Screen { layout: vertical; }
    #seats { height: auto; }
    .seat { width: 1fr; height: 6; border: round $primary; padding: 0 0 0 1;
            text-wrap: nowrap; text-overflow: ellipsis; }
    .seat.turn { border: heavy $accent; }
    #middle { height: 1fr; }
    #centre { width: 3fr; height: 100%; border: round $primary; padding: 0 1; }
    #log { width: 2fr; height: 100%; border: round $primary; }
    #status { height: auto; max-height: 2; padding: 0 1; }
    #handbox { height: auto; border: round $primary; }
    #handbox.turn { border: heavy $accent; }
    #cmd { height: 1; border: none; padding: 0 1; }
    #keys { height: auto; max-height: 2; padding: 0 1; }
    #small { display: none; padding: 1 2; }
    Screen.small #table { display: none; }
    Screen.small #small { display: block; }
    Screen.ascii .seat, Screen.ascii #centre, Screen.ascii #log,
    Screen.ascii #handbox { border: ascii; }
    """

    BINDINGS = [
        Binding("ctrl+q", "leave", show=False, priority=True),
        Binding("ctrl+c", "leave", show=False, priority=True),
        Binding("f1", "overlay('help')", show=False, priority=True),
        Binding("f2", "overlay('score')", show=False, priority=True),
        Binding("f3", "overlay('c')", show=False, priority=True),
        Binding("f4", "overlay('rules')", show=False, priority=True),
        Binding("f5", "overlay('who')", show=False, priority=True),
    ]

    def __init__(
        self,
        session: TableSession,
        style: Style,
        assist: Assist | None = None,
        options: ScreenOptions | None = None,
    ) -> None:
        super().__init__()
        self.session = session
        if style.wide_ambiguous and not style.ascii_suits:
            # Textual lays out ♠ ♥ ♣ as one column; a CJK terminal draws them as two and
            # every frame would break: letters instead (ZSY_WIDE_SUITS=0 keeps symbols)
            style = dataclasses.replace(style, ascii_suits=True)
        self.style = style
        self.assist = assist or Assist()
        self.options = options or ScreenOptions()
        self.chosen: Action | None = None  # a move picked by number or hint
        self.line_keys = ""  # the hand letters (s, h) just before the typed line opened
        self.pass_hinted = False  # the status says "p: Enter passes" while the line holds p
        self.hint_at = 0
        self.turn_began: float | None = None
        #: the "⇄ relay 12 ms" marks the seat panels show: redrawn when they change, even
        #: while nothing happens at the table (a waiting seat still sees its links' times)
        self._marks_drawn: dict[int, str] = {}
        self.clock = TurnClock(self.assist.timer, self.options.clock)  # whoever acts
        self.last_turn: object = None
        self._tasks: list[asyncio.Task[None]] = []
        self._pending: list[asyncio.Task[None]] = []
        self._over_shown = False
        n = session.game.rules.players
        self.others = [(session.seat + k) % n for k in range(1, n)]

    def compose(self) -> ComposeResult:
        with Vertical(id="table"):
            with Horizontal(id="seats"):
                for s in self.others:
                    yield Static(id=f"seat{s}", classes="seat")
            with Horizontal(id="middle"):
                yield CentreBox(id="centre")
                yield RichLog(id="log", wrap=True, markup=False, highlight=False, min_width=10)
            yield Static(id="status")
            with Vertical(id="handbox"):
                yield HandView(self)
            # select_on_focus off: a key on the hand opens the line with its character, and
            # the next key must follow it, not replace it (":gg" read "gg", "KK" read "K")
            yield Input(
                id="cmd",
                placeholder=_("type cards (10 J Q K A), p, ?, help, quit"),
                select_on_focus=False,
            )
            yield Static(id="keys")
        yield Static(id="small")

    def on_mount(self) -> None:
        if self.style.ascii_suits:
            self.screen.add_class("ascii")
        self.query_one("#log", RichLog).border_title = _("Log")
        self._draw_keys()
        self.query_one(HandView).focus()
        self._tasks = [
            asyncio.create_task(self._read_notices()),
            asyncio.create_task(self._watch()),
        ]
        self.set_interval(1.0, self._tick)
        self._check_size()
        self.show_table()
        self.say(_("Type help for commands."))

    def _own_tasks(self) -> list[asyncio.Task[None]]:
        return [*self._tasks, *self._pending]

    def home_widget(self) -> Widget | None:
        return self.query_one(HandView)

    def redraw(self) -> None:
        if self.query("#centre"):
            self._draw_keys()
            self.show_table()

    def _draw_keys(self) -> None:
        """The key footer, laid out to the window's width (one or two rows)."""
        width = max(20, self.size.width - 2)  # its padding
        self.query_one("#keys", Static).update(Text("\n".join(key_rows(width)), no_wrap=True))

    # --- showing ------------------------------------------------------------------------

    def status(self, text: str) -> None:
        """The one-line answer under the table (a refused play, a hint); also logged."""
        if self.style.ascii_suits:
            text = text.translate(_ASCII_SUITS)
        self.query_one("#status", Static).update(Text(text))
        self.say(text)

    def show_table(self) -> None:
        """Redraw everything from the session (the screen holds no game state of its own)."""
        session = self.session
        game = session.game
        view = game.view(session.seat)
        share = self.size.width // max(1, len(self.others))
        for s in self.others:
            panel = self.query_one(f"#seat{s}", Static)
            room = label_room(panel, share)
            panel.border_title = fit_label(seat_titles(s), room)
            panel.border_subtitle = fit_label(seat_score(session, s, self.style.ascii_suits), room)
            panel.set_class(view is not None and to_act(view, s), "turn")
        self._draw_seats()
        self.query_one("#centre", Static).update(self._centre_text())
        hand = view.hands[session.seat] if view is not None else None
        hv = self.query_one(HandView)
        hv.set_cards(hand_order(hand or (), self.style.by_suit, game.rules, view))
        box = self.query_one("#handbox")
        mine = _my_turn(session) and not game.finished()
        box.set_class(mine, "turn")
        room = label_room(box, self.size.width)
        if view is not None and hand is not None:
            # count, and the seat's own role, title or team: what the others' panels show;
            # its score and 托管 at the foot, as the others' frames show theirs
            facts = seat_lines(session, session.seat, self.style)[1]
            box.border_title = fit_label(
                [_("Your hand ({count})").format(count=facts), facts], room
            )
            scores = seat_score(session, session.seat, self.style.ascii_suits)
            if self.assist.auto:
                scores = [join_phrases([score, _("auto-play")]) for score in scores]
            box.border_subtitle = fit_label(scores, room)
        else:
            box.border_title = _("Your hand")
            box.border_subtitle = ""
        if self.options.on_shown is not None:
            self.call_after_refresh(self.options.on_shown)

    def _draw_seats(self) -> None:
        """Every other seat's panel, its lines wrapped at spaces to the panel's width, all
        panels as tall as the tallest: a word is never cut to fit (``Second-…``, issue #26)."""
        self._marks_drawn = relay_marks(self.session, self.style.ascii_suits)
        texts = {s: self._seat_text(s) for s in self.others}
        rows = max((len(t.plain.split("\n")) for t in texts.values()), default=4)
        for s, text in texts.items():
            panel = self.query_one(f"#seat{s}", Static)
            panel.update(text)
            panel.styles.height = max(4, rows) + 2  # the frame's two rows

    def _panel_width(self, seat: int) -> int:
        """Columns inside a seat's panel (before the first layout: the share of the width)."""
        width = self.query_one(f"#seat{seat}", Static).content_region.width
        if width <= 0:
            width = self.size.width // max(1, len(self.others)) - 3  # frame and padding
        return max(8, width)

    def _seat_text(self, seat: int) -> Text:
        left = self.clock.left() if seat in acting_human(self.session) else None
        width = self._panel_width(seat)
        style = Style(ascii_suits=self.style.ascii_suits)
        return panel_text(seat_lines(self.session, seat, style, left, width), width)

    def _centre_text(self) -> Text:
        """The middle's rows that fit its height; how many did not, at its frame's foot."""
        rows = self.centre_rows()
        centre = self.query_one("#centre")
        height = centre.content_region.height
        hidden = len(rows) - height if height > 0 else 0
        # what does not fit is counted at the frame's foot, never hidden silently; the
        # foot takes no row from what the turn needs
        centre.border_subtitle = (
            ngettext("+{n} more line: type table", "+{n} more lines: type table", hidden).format(
                n=hidden
            )
            if hidden > 0
            else ""
        )
        text = Text(no_wrap=True, overflow="ellipsis")
        for i, (row, strong) in enumerate(rows[:height] if hidden > 0 else rows):
            if i:
                text.append("\n")
            text.append(row, style="bold" if strong else None)
        return text

    def centre_rows(self) -> list[tuple[str, bool]]:
        """Every row of the middle broken to its width, and whether it is bold (what the
        turn needs, first); its title set on the way."""
        plain = dataclasses.replace(self.style, color=False)  # colour is the screen's to add
        head, lines, rest = centre_parts(self.session, plain)
        table = clean(self.session.info.table_name) or "?"
        view = self.session.game.view(self.session.seat)
        lord = int(view.get("landlord", -1)) if view is not None else -1
        if lord >= 0:  # Dou Dizhu: the stake stays in sight however small the window
            stake = stake_parts(self.session.game.rules, view)["stake"]
            titles = [
                _("{table}: {round}, stake {stake}").format(table=table, round=head, stake=stake),
                _("{round}, stake {stake}").format(round=head, stake=stake),
            ]
        else:  # the table's name is also on the middle's last line
            deal = deal_level_label(self.session.game.rules, view, self.style.ascii_suits)
            titles = round_titles(table, head, deal, view.round_no if view is not None else 0)
        centre = self.query_one("#centre")
        centre.border_title = fit_label(titles, label_room(centre, self.size.width * 3 // 5))
        lines = list(lines)
        game = self.session.game
        if self.session.info.stopped:
            lines.insert(0, "! " + clean(self.session.info.stopped))
        if _my_turn(self.session) and not game.finished():
            if self.assist.auto:
                lines.append(
                    _("Auto-play ON: the normal bot plays your turns; type auto to take over.")
                )
            elif self.assist.timer is not None and self.turn_began is not None:
                left = max(
                    0,
                    int(self.assist.timer - (self.options.clock() - self.turn_began) + 0.999),
                )
                lines.append(
                    ngettext(
                        "The table clock plays the hint for you in {s} second.",
                        "The table clock plays the hint for you in {s} seconds.",
                        left,
                    ).format(s=left)
                )
            legal = self._legal()
            if legal:
                # a no-break space ties each number to its move: "5)" never ends a row
                shown = [
                    f"{i})\u00a0{describe(a, self.style.ascii_suits, game.rules)}"
                    for i, a in enumerate(legal[:LEGAL_SHOWN], 1)
                ]
                lines.append(_("Moves: {moves}").format(moves="   ".join(shown)))
                if len(legal) > LEGAL_SHOWN:
                    lines.append(
                        _("({n} more: type ? to list them all, #N to play one)").format(
                            n=len(legal) - LEGAL_SHOWN
                        )
                    )
        bold = len(lines)
        width = self.query_one("#centre").content_region.width
        if width <= 0:  # before the first layout: its share of the window
            width = self.size.width * 3 // 5 - 4
        return [
            (row, i < bold)
            for i, line in enumerate(lines + rest)
            for row in fit_rows(glue_tags(line, to_name=True), max(10, width), "  ")
        ]

    def _tick(self) -> None:
        """Once a second: the countdowns, and the relay's round trips in the seat panels
        when they changed (measured all the time, also while nobody acts). The timer can
        still fire while the app closes, after its widgets are gone (on a busy machine the
        teardown takes longer than a second): then there is nothing left to count down on."""
        if not self.query("#centre"):
            return
        if self.assist.timer is not None and self.turn_began is not None:
            self.query_one("#centre", Static).update(self._centre_text())
        others = any(s in self.others for s in acting_human(self.session))
        countdown = self.assist.timer is not None and others  # the acting seat's, by it
        if countdown or relay_marks(self.session, self.style.ascii_suits) != self._marks_drawn:
            self._draw_seats()

    # --- the session's side ---------------------------------------------------------------

    async def _read_notices(self) -> None:
        """Notices into the log; the table redrawn once for all that came together (a
        resumed seat catching up reads dozens at once, each redraw costs milliseconds)."""
        notices = self.session.notices
        while True:
            came: list[Notice] = [await notices.get()]
            while not notices.empty():
                came.append(notices.get_nowait())
            for notice in came:
                self.say(notice_mark(notice.kind) + clean(notice.text))  # chat: "» Alice: hi"
            if any(n.kind == "play" for n in came):  # auto-play on or back: the box says so
                self.show_table()

    async def _watch(self) -> None:
        while True:
            await self.session.changed.wait()
            self.session.changed.clear()
            try:
                self._changed()
            except Exception as exc:  # noqa: BLE001 - a drawing bug must not stop the seat
                log.exception("the screen could not draw a change")
                self.say(
                    "! "
                    + _("The screen could not draw a change ({error}); the game goes on.").format(
                        error=clean(exc)
                    )
                )

    def _changed(self) -> None:
        session = self.session
        key = _turn_key(session)
        self.clock.turn(key)
        if key != self.last_turn:
            self.last_turn = key
            self.chosen = None
            self.hint_at = 0
            self.query_one(HandView).selected = set()
            for t in self._pending:
                t.cancel()
            self._pending = []
            if _my_turn(session) and not session.game.finished():
                self.turn_began = self.options.clock()
                self._pending = [asyncio.create_task(self._on_my_turn(key))]
            else:
                self.turn_began = None
        self.show_table()
        if session.game.finished() and not self._over_shown:
            self._over_shown = True
            lines = score_lines(session)
            for line in lines:
                self.say(line)
            self.push_screen(
                TextOverlay(
                    _("Match over. Press Enter to leave the table."),
                    lines,
                    self.style.ascii_suits,
                ),
                lambda _result: self.exit("match over"),
            )

    async def _on_my_turn(self, key: object) -> None:
        """Auto-play, the one reminder and the turn timer, as in the line mode
        (:class:`.line_mode.Assist`): the reminder goes to the log, the countdown is on screen."""
        if self.assist.auto:
            await asyncio.sleep(self.assist.auto_pause)
            if _turn_key(self.session) == key and self.assist.auto:
                await self._play_for_me(_("auto-play"))
            return
        waited = 0.0
        remind = self.assist.remind
        if remind is not None and (self.assist.timer is None or remind < self.assist.timer):
            began = time.time()
            await asyncio.sleep(remind)
            waited = remind
            if _turn_key(self.session) != key or not _my_turn(self.session):
                return
            at = time.strftime("%H:%M:%S", time.localtime(began))
            self.say("* " + _("Still your turn (since {at}).").format(at=at))
        if self.assist.timer is not None:
            await asyncio.sleep(max(0.0, self.assist.timer - waited))
            if _turn_key(self.session) == key and _my_turn(self.session):
                await clock_ran_out(self.session, self.assist, self.say, self._play_for_me)
                self.show_table()

    async def woke(self) -> None:
        """A key or a typed line: the player is back from the auto-play the clock started."""
        if await player_is_back(self.session, self.assist, self.status):
            if _my_turn(self.session) and not self.session.game.finished():
                self.turn_began = self.options.clock()
                self._pending.append(
                    asyncio.create_task(self._on_my_turn(_turn_key(self.session)))
                )
            self.show_table()

    async def _play_for_me(self, why: str) -> bool:
        """Auto-play or the timer, as :func:`.line_mode.play_for_me` (its words), but the planner
        thinks in a worker thread, so the screen keeps answering meanwhile."""
        game, seat = self.session.game, self.session.seat
        view = game.view(seat)
        legal = list(game.may(seat).legal)  # what this seat may do now (none: not its turn)
        if view is None or not legal:
            return False
        key = _turn_key(self.session)
        ranked = await asyncio.to_thread(hint_list, game.rules, view, seat, legal)
        if _turn_key(self.session) != key:
            return False  # the turn moved on while the planner thought
        best = next((a for a in ranked if a in legal), legal[0])

        reason = await self.session.submit(best)
        if reason is None:
            self.say(
                "* "
                + played_for_you(why, best, game.rules)
            )
            return True
        self.say(
            "! "
            + _("{why}: could not play for you ({reason})").format(
                why=why, reason=refusal(reason)
            )
        )
        return False

    # --- what the player does ---------------------------------------------------------------

    def _legal(self) -> list[Action]:
        return list(self.session.game.may(self.session.seat).legal)

    def pick(self, number: int) -> None:
        """Number key N: move N of the legal list into the selection (Enter plays it)."""
        legal = self._legal()
        if not legal:
            self.status(_("Not your turn."))
            return
        if number > min(len(legal), LEGAL_SHOWN):
            self.status(_("There is no move {n} now.").format(n=number))
            return
        self._choose(legal[number - 1])

    def _choose(self, action: Action, said: str | None = None, then: str | None = None) -> None:
        """Put a move in the selection and say so (``said``: the hint's own words, followed
        by ``then``, a ``{hint}`` template saying what Enter does)."""
        self.chosen = action
        self.query_one(HandView).select_exactly(action.cards)
        move = describe(action, self.style.ascii_suits, self.session.game.rules)
        if said is None:
            said = _("Chosen: {move}. Enter plays it.").format(move=move)
        else:
            said = (then or _("{hint} Enter plays it.")).format(hint=said)
        self.query_one("#status", Static).update(Text(said))

    def next_hint(self) -> None:
        """``h``: the next of the planner's hints, into the selection (nothing is played)."""
        if not self.session.info.settings.hints:
            self.status("! " + hints_off_text())
            return
        game, seat = self.session.game, self.session.seat
        view = game.view(seat)
        legal = self._legal()
        only_pass = only_pass_hint(legal)
        if only_pass is not None:  # said as such (no planner asked); Enter passes
            self._choose(legal[0], only_pass, _("{hint} Enter passes."))
            return
        plays = hint_list(game.rules, view, seat, legal) if view is not None else []
        if not plays:
            self.status(_("No hint: it is not your turn."))
            return
        a = plays[self.hint_at % len(plays)]
        said = _("Hint ({i}/{n}): {move}").format(
            i=self.hint_at % len(plays) + 1,
            n=len(plays),
            move=describe(a, self.style.ascii_suits, game.rules),
        )
        self.hint_at += 1
        self._choose(a, said)

    def selection_action(self) -> Action | None:
        """What Enter would play: the picked move, or the selected cards as a play."""
        hv = self.query_one(HandView)
        cards = hv.selected_cards()
        if self.chosen is not None and sorted(self.chosen.cards) == sorted(cards):
            return self.chosen
        if not cards:
            return None
        legal = self._legal()
        same = next((a for a in legal if a.cards and sorted(a.cards) == sorted(cards)), None)
        if same is not None:
            return same
        kind = self.session.game.may(self.session.seat).cards_make
        return Action(kind, self.session.seat, sort_cards(cards))

    async def play_selection(self) -> None:
        """Enter: play what is selected; with nothing selected, say what to do (never a guess)."""
        if not _my_turn(self.session):
            self.status(_("Not your turn."))
            return
        action = self.selection_action()
        if action is None:
            self.status(
                _(
                    "Select cards with Space (or a number, or h for a hint), then Enter; "
                    "p then Enter passes."
                )
            )
            return
        reason = await self.session.submit(action)
        if reason is not None:
            self.status(
                "! "
                + _("{reason} - try again (? lists your legal moves)").format(
                    reason=refusal(reason)
                )
            )
            return
        self.query_one("#status", Static).update("")
        self.chosen = None
        self.query_one(HandView).selected = set()

    async def typed(self, text: str) -> None:
        """A typed line (or a key standing for one): exactly what the line mode does with it."""
        low = text.strip().lower()
        if self.assist.auto_by_clock:
            await self.woke()
            if low in ("auto", "托管"):
                return
        elif back_owed(self.session, self.assist.auto):
            await self.woke()  # resumed while on auto-play: the table is told they are back
        if low in ("auto", "托管"):
            self.assist.auto = not self.assist.auto
            self.status(
                _("Auto-play ON: the normal bot plays your turns; type auto to take over.")
                if self.assist.auto
                else _("Auto-play OFF: you play again.")
            )
            await _announce(self.session, "auto" if self.assist.auto else "back")
            if self.assist.auto and _my_turn(self.session):  # the keys answer meanwhile
                self._pending.append(asyncio.create_task(self._play_for_me(_("auto-play"))))
            self.show_table()
            return
        if low in ("s", "sort"):  # the line mode reprints the table; here it is on screen
            self.toggle_sort()
            return
        if low in ("help", "score", "scores", "rules", "who", "w", "c", "count", "?", "??",
                   "links"):
            await self.overlay(low)
            return
        said: list[str] = []
        self.hint_at, quit_now = await _handle(
            self.session, text, self.style, self.hint_at, said.append, self.clock
        )
        for line in said:
            self.say(line)
        if said:  # the first line: a list's heading (phrases), not its last item
            first = said[0].translate(_ASCII_SUITS) if self.style.ascii_suits else said[0]
            self.query_one("#status", Static).update(Text(first))
        if quit_now:
            self.action_leave()
        else:
            self.show_table()

    def toggle_sort(self) -> None:
        """``s``: the hand by suit, or by rank again (the selection stays on its cards)."""
        self.style.by_suit = not self.style.by_suit
        self.show_table()

    async def on_input_submitted(self, event: Input.Submitted) -> None:
        text = event.value
        event.input.value = ""
        self._unhint_pass()  # what the line does is said next (a pass, a refusal)
        hand = self.query_one(HandView)
        hand.typing = False
        self.screen.set_focus(hand)  # the hand is home: no Escape needed to get back
        meant = key_then_line(self.line_keys, text)
        self.line_keys = ""
        if meant is not None:  # "say hi" typed on the hand: the s was no sort, the h no hint
            keys = meant[: len(meant) - len(text.strip())]
            if keys.count("s") % 2:
                self.toggle_sort()
            if "h" in keys:
                hand.selected = set()
                self.chosen = None
                hand.refresh()
            text = meant
        if text.strip():
            await self.typed(text)

    def hint_pass(self) -> None:
        """``p`` opened the typed line on the player's turn: say that Enter passes.

        A ``p`` on the hand used to pass at once, so "phrases" or "play 3 3" typed
        on the hand passed by accident; now the pass waits for Enter, and the
        status line says so until the line holds more than the ``p``.
        """
        self.pass_hinted = True
        self.query_one("#status", Static).update(
            Text(_("p: Enter passes; Escape takes it back (or type on: phrases...)"))
        )

    def _unhint_pass(self) -> None:
        if self.pass_hinted:
            self.pass_hinted = False
            self.query_one("#status", Static).update("")

    def on_input_changed(self, event: Input.Changed) -> None:
        """A word begun with p (``phrases``): the pass hint no longer holds."""
        if event.value and event.value != "p":
            self._unhint_pass()

    def leave_line(self) -> None:
        """Escape in the typed line: it is emptied (a letter typed later starts afresh)."""
        self._unhint_pass()
        self.query_one("#cmd", Input).value = ""
        self.line_keys = ""
        hand = self.query_one(HandView)
        hand.typing = False
        self.screen.set_focus(hand)

    def on_key(self, event: events.Key) -> None:
        if event.key == "escape" and self.focused is self.query_one("#cmd", Input):
            self.leave_line()
            event.stop()

    async def action_overlay(self, word: str) -> None:
        await self.overlay(word)

    async def overlay(self, word: str) -> None:
        """Score sheet, card counter, rules, seats, legal list or help over the table."""
        if isinstance(self.screen, ModalScreen):  # one at a time: Escape closes it first
            return
        if word in ("c", "count") and not self.session.info.settings.counter:
            self.status("! " + counter_off_text())  # no panel: the host turned it off
            return
        titles = {
            "help": _("Help"),
            "score": _("Score sheet"),
            "scores": _("Score sheet"),
            "rules": _("Rules"),
            "who": _("Seats"),
            "w": _("Seats"),
            "c": _("Card counter"),
            "count": _("Card counter"),
            "?": _("Your legal moves"),
            "??": _("Your legal moves"),
            "links": _("Links"),
        }
        said: list[str] = []
        await _handle(self.session, word, self.style, self.hint_at, said.append)
        if word == "help":  # the keys first: the typed commands follow
            said.insert(
                0,
                _(
                    "On the hand: Left/Right move, Space selects (the selected cards are "
                    "raised), Enter plays them, p then Enter passes, h puts the next hint in "
                    "the selection, 1-9 pick a move from the list, s sorts, c the card "
                    "counter, Escape clears the selection. Typing any other key starts the "
                    "command line (Tab goes there too; p as well, so a word that starts with "
                    "p never passes); Enter sends it and Escape leaves it. F1 help, "
                    "F2 score sheet, F3 card counter, F4 rules, F5 seats. Ctrl-Q leaves (it "
                    "asks first)."
                )
                + "\n",
            )
        self.push_screen(TextOverlay(titles.get(word, word), said, self.style.ascii_suits))

    def action_leave(self) -> None:
        """Ctrl-Q / ``quit``: leave after a yes (at once when the match is over or stopped)."""
        if self.session.game.finished() or self.session.info.stopped:
            self.exit("quit")
            return
        if isinstance(self.screen, Confirm):  # already asking
            return

        def answered(yes: bool | None) -> None:
            if yes:
                self.exit("quit")
            else:
                self.status(_("You stay at the table."))

        self.push_screen(
            Confirm(
                _(
                    "Leave the table while the match is on? The others see your seat drop. "
                    "Press y to leave, any other key to stay."
                ),
                self.style.ascii_suits,
            ),
            answered,
        )


async def run_screen(
    session: TableSession,
    style: Style,
    assist: Assist | None = None,
    options: ScreenOptions | None = None,
) -> str:
    """Run the full-screen table until the match ends or the player leaves; why it stopped.

    Textual restores the terminal on every way out (a crash included); the
    session itself is the caller's to close.
    """
    app = TableApp(session, style, assist, options)
    why = await app.run_async()
    if why is None:
        return session.info.stopped or "stopped"
    return why


__all__ = [
    "MIN_COLUMNS",
    "MIN_ROWS",
    "HandView",
    "ScreenOptions",
    "TableApp",
    "centre_lines",
    "fits",
    "run_screen",
    "screen_wanted",
    "seat_lines",
]
