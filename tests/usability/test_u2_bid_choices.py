"""The line mode names the words a Dou Dizhu bid takes (DDZ-2.1).

Played with ``--plain`` (session 7, helper U2): at the bidding the table said only "Your
turn."; nothing said to type ``bid 2`` or ``pass`` (the full screen lists "Moves:").
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "ui"))
from test_table_screen import FakeSession  # noqa: E402

from zsy_lan.engine.ruleset import build_rules  # noqa: E402
from zsy_lan.text.i18n import set_language  # noqa: E402
from zsy_lan.ui.commands import interpret  # noqa: E402
from zsy_lan.ui.line_mode import render  # noqa: E402
from zsy_lan.ui.render import Style  # noqa: E402


def _bidder() -> FakeSession:
    session = FakeSession(build_rules(3, ["doudizhu"]))
    session.seat = session.game.actors()[0]
    return session


def test_the_bidder_is_told_the_bids_and_each_one_can_be_typed() -> None:  # DDZ-2.1
    set_language("en")
    session = _bidder()
    lines = render(session, Style(width=200))
    moves = [line for line in lines if line.startswith("Moves:")]
    assert moves == ["Moves: #1 bid 1   #2 bid 2   #3 bid 3   #4 pass"]
    game, seat = session.game, session.seat
    legal = game.legal(seat)
    assert interpret("bid 2", game.rules, game.view(seat), seat, legal) == legal[1]
    assert interpret("#4", game.rules, game.view(seat), seat, legal) == legal[3]


def test_the_other_seats_and_a_play_turn_get_no_list() -> None:
    session = _bidder()
    session.seat = (session.seat + 1) % 3  # not this seat's bid
    assert not [line for line in render(session, Style()) if line.startswith("Moves:")]
    zsy = FakeSession(build_rules(4))
    zsy.seat = zsy.game.actors()[0]  # a play: the cards are listed on ?
    assert not [line for line in render(zsy, Style()) if line.startswith("Moves:")]
