"""A word typed at the table that is no card says what it could be (chat, a command).

Played at ``zsy play --plain`` (session 7, helper U2): "hello" and "play 3" were answered
"'hello' is not a card (ranks: 3-10 J Q K A 2 BJ RJ; ten also T or 0; optional suit D C H
S or ♦ ♣ ♥ ♠)": a list of ranks for someone who meant to chat or to play a three.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "ui"))
from test_table_screen import FakeSession, handle  # noqa: E402

from zsy_lan.engine.ruleset import build_rules  # noqa: E402
from zsy_lan.text.i18n import set_language  # noqa: E402


def _session() -> FakeSession:
    set_language("en")
    s = FakeSession(build_rules(4))
    s.seat = s.game.actors()[0]
    return s


def test_a_word_is_pointed_to_chat_and_help() -> None:
    out = handle(_session(), "hello")
    assert out == [
        "! 'hello' is not a card, nor a command: type help for the commands, "
        "or say hello to chat."
    ]


def test_play_then_cards_is_told_to_type_the_cards() -> None:
    assert handle(_session(), "play 10 J Q K A") == ["! Type only the cards: 10 J Q K A"]


def test_card_letters_and_bad_cards_keep_the_card_answer() -> None:  # ZSY-5.1
    s = _session()
    for typed in ("QQQQQ", "3 3 3 3 3", "3x"):
        (line,) = handle(s, typed)
        assert "nor a command" not in line
        assert not s.submitted  # nothing was played
