"""The titles on the table's frames, in a form that fits (issue #26).

Textual cuts a border title or subtitle wider than its frame with ``…``
(``asien…``, ``Tu mano (¡QUEDAN 2 cartas!, Segundo Corrie…``). Each label here
comes in forms, longest first, and the frame shows the first that fits: a short
form says the same in fewer columns (``n.º 5`` for ``asiento 5``, ``-12 pts`` for
``-12 puntos``), so nothing is cut and nothing is hidden without a sign.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from textual.widget import Widget

from zsy_lan.text import words
from zsy_lan.text.i18n import _, ngettext, pgettext
from zsy_lan.text.present import level_name
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


def team_level(rules: Any, state: Any, seat: int) -> int | None:
    """The level of ``seat``'s team when the round keeps team levels (a public
    ``team_levels`` field, one per team of ``Rules.teams``: Guandan); else None."""
    if rules is None or rules.teams is None or state is None:
        return None
    levels = state.get("team_levels")
    if not isinstance(levels, tuple):
        return None
    return next(
        (levels[i] for i, team in enumerate(rules.teams) if seat in team and i < len(levels)),
        None,
    )


def level_forms(level: Any) -> list[str]:
    """A team's level at the foot of a seat's frame, where other games show points
    (Guandan counts levels, not points): ``level 7``, ``lv 7``."""
    rank = level_name(level)
    return [
        _("level {rank}").format(rank=rank),
        # TRANSLATORS: the short form of "level {rank}" (a team's level) in a narrow frame
        pgettext("level, short", "lv {rank}").format(rank=rank),
    ]


def deal_level_label(rules: Any, state: Any, ascii_only: bool = False) -> str | None:
    """The level the deal is played at, for the middle's title (a public ``deal_level``
    field), in the plugin's short words (``term:deal_level_short``: Guandan's
    ``level 2, 2♥ wild``), else ``level 2``; None when the round has no deal level."""
    deal = state.get("deal_level") if state is not None else None
    if deal is None:
        return None
    rank = level_name(deal)
    said = words.term(rules, "term:deal_level_short", rank=rank)
    said = said or _("level {rank}").format(rank=rank)
    return said.replace("♥", "H") if ascii_only else said


def round_titles(table: str | None, head: str, deal: str | None, round_no: int = 0) -> list[str]:
    """The middle's title forms, longest first: the table's name, the round (``head``),
    and the deal's level when there is one (``friday: Round 2 - dealer seat 1, level 7,
    7♥ wild``). The table's name goes first (its last line names it), then the dealer,
    and the deal's level is left last: it is what a player needs at a glance."""
    if deal is None:
        forms = [head]
    else:
        short = _("Round {n}").format(n=round_no)
        forms = [_("{round}, {level}").format(round=r, level=deal) for r in (head, short)]
        forms.append(deal)
    out = []
    for form in forms:
        if table:
            out.append(_("{table}: {round}").format(table=table, round=form))
        out.append(form)
    return out
