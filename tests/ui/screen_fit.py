"""What the full-screen table would cut, read from its boxes without drawing the screen.

Textual cuts a border title or subtitle that is wider than its frame with ``…``, and a
row of a ``no_wrap``/``ellipsis`` text wider than its box the same way. Drawing the whole
screen to find out costs a layout and a render (tens of ms); reading the boxes after
``show_table()`` costs almost nothing, so a test can look at every turn of a round and
draw the screen only at a few of them (tests/ui/test_screen_snapshots.py).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from rich.cells import cell_len
from rich.text import Text
from textual.widget import Widget
from textual.widgets import Static

from zsy_lan.text.i18n import set_language

LANGUAGES = ("en", "zh", "de", "es")

#: cells a frame's corners and the blanks around a label take (textual/_border.py:
#: the label gets the width less 2, less 2 per corner)
LABEL_FRAME = 6


def label_room(widget: Widget) -> int:
    """Columns a border title or subtitle of ``widget`` may take before Textual cuts it."""
    return widget.outer_size.width - LABEL_FRAME


def cut_labels(app: Any) -> list[str]:
    """Every border title and subtitle on the table that Textual would end in ``…``."""
    out = []
    for widget in app.query("#table *"):
        for label in (widget.border_title, widget.border_subtitle):
            if label and cell_len(str(label)) > label_room(widget):
                out.append(f"{widget.id}: {label!r} > {label_room(widget)} columns")
    return out


def cut_rows(app: Any) -> list[str]:
    """Every row of the seat panels and the middle box wider than its box (it would end in
    ``…``): the screen's own wrapping must have broken it between words."""
    out = []
    for widget in app.query("#table Static"):
        assert isinstance(widget, Static)
        content = widget.content
        if not isinstance(content, Text) or widget.id in ("keys", "status"):
            continue
        room = widget.content_region.width
        for row in content.plain.split("\n"):
            if cell_len(row) > room:
                out.append(f"{widget.id}: {row!r} > {room} columns")
    return out


def cut_anything(app: Any) -> list[str]:
    """:func:`cut_labels` and :func:`cut_rows` of the table as the app shows it now (its
    boxes redrawn from the session; the layout's widths are the last layout's)."""
    app.show_table()
    return cut_labels(app) + cut_rows(app)


def labels_cut_in_every_language(app: Any, table: Any) -> list[str]:
    """The frames' labels as the table shows them now, in each language, that Textual
    would cut: with auto-play on (the longest foot of the hand's frame: each of its forms
    is one without auto-play and a phrase more, so where it fits, the one without fits
    too) and every total at three digits (the widest a long match reaches)."""
    game = table.game
    real = game.match
    wrong = []
    try:
        game.match = dataclasses.replace(real, totals=tuple(-188 for _t in real.totals))
        app.assist.auto = True
        for lang in LANGUAGES:
            set_language(lang)
            app.show_table()
            wrong += [f"{lang}: {cut}" for cut in cut_labels(app)]
    finally:
        game.match = real
        app.assist.auto = False
        set_language("en")
        app.show_table()
    return wrong


async def cut_at_sizes_in_every_language(
    pilot: Any, app: Any, sizes: tuple[tuple[int, int], ...] = ((80, 24), (120, 40))
) -> list[str]:
    """What the table would cut (:func:`cut_anything`) at each terminal size, in each
    language, as ``"lang WxH: cut"``; the app is left in English at the last size."""
    wrong = []
    try:
        for size in sizes:
            await pilot.resize_terminal(*size)
            await pilot.pause()
            for lang in LANGUAGES:
                set_language(lang)
                wrong += [f"{lang} {size[0]}x{size[1]}: {cut}" for cut in cut_anything(app)]
    finally:
        set_language("en")
    return wrong


Decide = Callable[[Any, Any, int], Any]


def bots_until_seat0(
    table: Any, decide: Decide, after_each: Callable[[], list[str]] | None = None
) -> None:
    """Let a :class:`LocalTable`'s other seats play, here and now (no bots' loop, no
    waiting), until seat 0 must act or the match is over; ``after_each`` move, what it
    finds wrong (:func:`cut_anything`) fails the test."""
    game = table.game
    while not game.finished() and 0 not in game.actors():
        seat = next(s for s in table.deciders if table.replicas[s].can_act())
        mine = table.replicas[seat].game
        assert table._act(seat, decide(table.rules, mine.view(seat), seat)) is None
        if after_each is not None:
            wrong = after_each()
            assert not wrong, wrong


def spectator_of(lines: list[str]) -> Any:
    """A ``zsy watch`` session that has followed and told ``lines`` of a record (the first is
    its header), as the spectator's screen starts from."""
    from local_support import followed

    from zsy_lan.table.follower import Teller
    from zsy_lan.ui.watch_screen import WatchSession

    session = WatchSession()
    follower = followed(lines)
    for text in Teller(follower).new_lines():
        session.show(text)
    session.follow(follower)
    return session


async def until_shown(pilot: Any, app: Any, selector: str) -> None:
    """Let ``app`` draw until ``selector`` (the last seat's frame) is on the screen (1 s)."""
    for _i in range(50):
        await pilot.pause(0.02)
        if app.query(selector):
            return
