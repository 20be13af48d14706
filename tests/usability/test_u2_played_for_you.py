"""What the clock or auto-play did for a player reads as what it was.

Played in session 7 (helper U2): "* auto-play: played give 2 of clubs for you" (a tribute),
"* time's up (15 s): played pass for you"; a Dou Dizhu bid read "played bid 1 for you".
"""

from __future__ import annotations

from zsy_lan.engine.cards import parse_cards_exact
from zsy_lan.engine.round import PASS, PLAY
from zsy_lan.engine.ruleset import build_rules
from zsy_lan.engine.state import Action
from zsy_lan.text.i18n import set_language
from zsy_lan.ui.line_mode import played_for_you

WHY = "time's up (15 s)"


def test_a_play_a_pass_and_a_bid_each_read_as_what_they_were() -> None:  # ZSY-5.1, DDZ-2.1
    set_language("en")
    rules = build_rules(4)
    card = parse_cards_exact("3h", 1)[0]
    assert played_for_you(WHY, Action(PLAY, 0, (card,)), rules) == (
        "time's up (15 s): played 3♥ for you"
    )
    assert played_for_you(WHY, Action(PASS, 0), rules) == "time's up (15 s): passed for you"
    ddz = build_rules(3, ["doudizhu"])
    said = played_for_you("auto-play", Action("bid", 0, value=1), ddz)
    assert said == "auto-play: for you: bid 1"
    assert "played" not in said
