"""The host reads who could see the bots' cards as itself, not as "that player".

Played in session 7 (helper U2): the host's own table said "The bots at seats 1, 2, 3 run in
seat 0's process: that player could see their cards." to seat 0, the host.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "ui"))
from test_table_screen import FakeSession  # noqa: E402

from zsy_lan.engine.ruleset import build_rules  # noqa: E402
from zsy_lan.text.i18n import set_language  # noqa: E402
from zsy_lan.ui.line_mode import render  # noqa: E402
from zsy_lan.ui.render import Style  # noqa: E402


def _table(seat: int) -> FakeSession:
    set_language("en")
    s = FakeSession(build_rules(4), seat=seat)
    for b in (1, 2):
        s.info.seats[b].bot = True
        s.info.seats[b].run_by = 0
    return s


def test_the_host_is_told_it_could_see_the_bots_cards() -> None:
    lines = render(_table(0), Style(width=200))
    assert (
        "The bots at seats 1, 2 run in seat 0's process (yours): you could see their cards."
        in lines
    )


def test_another_seat_is_told_the_host_could() -> None:
    lines = render(_table(3), Style(width=200))
    assert (
        "The bots at seats 1, 2 run in seat 0's process: that player could see their cards."
        in lines
    )
