"""``zsy replay`` retells Guandan's private-deal tribute as it went (GD-6): shown, then given.

Under the private deal each giver shows its tribute in turn and the cards
move once every giver has shown (``tribute_log``); both red jokers shown
resist. The retelling said "gives RJ RJ to seat 2" for a resist, and named
the first shower's provisional receiver.
"""

from __future__ import annotations

from zsy_lan.engine.ruleset import build_rules
from zsy_lan.engine.state import Action, evolve, with_extra
from zsy_lan.plugins import guandan_tribute as tribute
from zsy_lan.plugins.guandan_combos import DEAL_LEVEL
from zsy_lan.record.retell import _Teller
from zsy_lan.testing import Table, cards

RULES = build_rules(4, ["guandan"], {})


def told(*shows: tuple[int, str]) -> list[str]:
    t = Table(["guandan"])
    t.deal(1)
    state = with_extra(evolve(t.state, hands=(None,) * 4), **{DEAL_LEVEL: 2})
    state = tribute.start(RULES, state, (0, 2, 1, 3))  # 双下: seats 1 then 3 show
    teller = _Teller(RULES, {})
    teller.deal(state)
    used: set[int] = set()
    for seat, text in shows:
        action = Action("give", seat, cards(text, used=used))
        after = tribute.TributePhase().apply(RULES, state, action)
        teller.step(state, action, after)
        state = after
    return [line for line in teller.rounds[-1].lines if "ribut" in line]


def test_each_show_is_told_then_the_gives_once_all_have_shown():
    assert told((1, "QS"), (3, "KS")) == [
        "  Tribute: seat 1 shows Q♠.",
        "  Tribute: seat 3 gives K♠ to seat 0.",
        "  Tribute: seat 1 gives Q♠ to seat 2.",
    ]


def test_a_resisting_show_is_told_as_no_tribute():
    assert told((1, "RJ RJ")) == [
        "  Tribute: seat 1 shows RJ RJ.",
        "  No tribute this deal: it was resisted (GD-6.3).",
    ]
