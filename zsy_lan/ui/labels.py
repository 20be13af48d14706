"""The titles on the table's frames, in a form that fits (issue #26).

Textual cuts a border title or subtitle wider than its frame with ``…``
(``asien…``, ``Tu mano (¡QUEDAN 2 cartas!, Segundo Corrie…``). Each label here
comes in forms, longest first, and the frame shows the first that fits: a short
form says the same in fewer columns (``n.º 5`` for ``asiento 5``, ``-12 pts`` for
``-12 puntos``), so nothing is cut and nothing is hidden without a sign.
"""

from __future__ import annotations

from collections.abc import Sequence

from textual.widget import Widget

from zsy_lan.text.i18n import _, ngettext, pgettext
from zsy_lan.ui.render import text_width

#: columns a frame's corners and the blanks around its label take (textual/_border.py)
LABEL_FRAME = 6


def label_room(widget: Widget, share: int) -> int:
    """Columns a border label of ``widget`` may take; ``share`` is its expected width
    before the first layout has measured it."""
    width = widget.outer_size.width or share
    return max(1, width - LABEL_FRAME)


def fit_label(forms: Sequence[str], room: int) -> str:
    """The first of ``forms`` (longest first) no wider than ``room`` columns; else the
    last, the shortest there is (Textual cuts it: a frame narrower than any form)."""
    return next((f for f in forms if text_width(f) <= room), forms[-1])


def seat_titles(seat: int) -> list[str]:
    """A seat's frame title: ``seat 5``, or its short form ``#5``."""
    # TRANSLATORS: the short title of a seat's frame when "seat {seat}" does not fit
    short = pgettext("seat, short", "#{seat}")
    return [_("seat {seat}").format(seat=seat), short.format(seat=seat)]


def points_forms(n: int) -> list[str]:
    """A running score: ``-12 points``, ``-12 pts``."""
    return [
        ngettext("{n} point", "{n} points", n).format(n=n),
        # TRANSLATORS: the short form of "{n} points" in a narrow frame's foot
        pgettext("points, short", "{n} pts").format(n=n),
    ]
