"""A tribute shown before it is given is told as shown (Guandan under the private deal, GD-6).

Each giver shows its tribute in turn and the cards move only once every giver
has shown; a show of both red jokers resists (抗贡). Before, the narration
said "seat 1: give RJ", a move nobody made.
"""

from __future__ import annotations

from types import SimpleNamespace

from zsy_lan.engine.match import MatchState
from zsy_lan.engine.ruleset import build_rules
from zsy_lan.engine.state import Action, with_extra
from zsy_lan.protocol import Applied
from zsy_lan.table.narration import Narrator
from zsy_lan.testing import Table, cards

RULES = build_rules(4, ["guandan"], {})


def told(round_state, action: Action) -> list[str]:
    game = SimpleNamespace(
        round=round_state,
        match=MatchState(players=4, rounds=2, totals=(0,) * 4, upstreams=(0,) * 4),
        engine_action=lambda seat, a: action,
    )
    seats = [SimpleNamespace(nick=f"p{s}") for s in range(4)]
    view = SimpleNamespace(seat=0, seats=seats, game=game)
    out: list[str] = []
    Narrator(view, RULES, lambda notice: out.append(notice.text)).play(  # type: ignore[arg-type]
        Applied(1, 1, action.to_json())
    )
    return out


def a_round():
    t = Table(["guandan"])
    t.deal(1)
    return t.state


def test_a_shown_tribute_is_told_as_shown():
    show = Action("give", 1, cards("AS"))
    assert told(a_round(), show) == ["seat 1 (p1) shows A♠ for the tribute"]


def test_a_resisting_show_says_there_is_no_tribute():
    show = Action("give", 1, cards("RJ RJ"))
    resisted = with_extra(a_round(), tribute_paid="resisted")
    (text,) = told(resisted, show)
    assert text.startswith("seat 1 (p1) shows RJ RJ for the tribute")
    assert "No tribute this deal: it was resisted" in text
