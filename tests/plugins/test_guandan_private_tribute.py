"""Guandan's tribute as the private deal plays it (GD-6): shown in turn, checked at the audit.

With the private deal no peer sees another hand (the round holds ``None``
for them), so each giver shows its own tribute, or both red jokers (抗贡);
once every giver has shown the same rules decide; what a seat claimed about
its hidden hand is checked by ``TributePhase.audit`` once the deal's cards
are opened. Whole private tables: tests/private/test_private_guandan.py.
"""

from __future__ import annotations

import pytest

from zsy_lan.engine.errors import RuleError
from zsy_lan.engine.phases import Phase
from zsy_lan.engine.state import Action, evolve, with_extra
from zsy_lan.plugins import guandan_tribute as tribute
from zsy_lan.plugins.guandan_combos import DEAL_LEVEL
from zsy_lan.testing import cards

PHASE = tribute.TributePhase()


def hidden_deal(zsy_table, order, level=2):
    """A later deal as every private-deal peer sees it: no hand known, 27 cards each."""
    t = zsy_table(variants=["guandan"])
    t.deal(1)
    st = with_extra(t.state, **{DEAL_LEVEL: level})
    st = evolve(st, hands=(None,) * 4)
    st = tribute.start(t.rules, st, order)
    return t.rules, st


def one(text: str) -> int:
    (card,) = cards(text)
    return card


def test_gd_6_1_private_the_givers_show_in_turn_then_the_higher_goes_to_the_first(zsy_table):
    rules, st = hidden_deal(zsy_table, order=(0, 2, 1, 3))  # 双下: 1 and 3 give
    assert st.phase == Phase.TRIBUTE and [d.giver for d in st.duties] == [1, 3]
    assert st.turn == 1 and st.get(tribute.TRIBUTE) is None  # nothing given yet
    qs, ks = one("QS"), one("KS")
    st = PHASE.apply(rules, st, Action("give", 1, (qs,)))
    assert st.turn == 3 and st.counts == (27, 27, 27, 27)  # shown, still held
    st = PHASE.apply(rules, st, Action("give", 3, (ks,)))
    assert st.get(tribute.TRIBUTE) == ((3, 0, ks), (1, 2, qs))  # the higher to the 1st
    assert st.tribute_log == ((3, 0, (ks,), 1), (1, 2, (qs,), 1))  # moves the slots
    assert st.leader == 3 and st.counts == (28, 26, 28, 26)  # GD-4.1: the higher's giver
    assert [(d.kind, d.giver, d.receiver) for d in st.duties] == [
        ("return", 0, 3), ("return", 2, 1)
    ]
    # the returns come face down: nobody else sees the card, only counts move
    st = PHASE.apply(rules, st, Action("return", 0, (), 1, True))
    st = PHASE.apply(rules, st, Action("return", 2, (), 1, True))
    assert st.phase == Phase.PLAY and st.turn == 3 and st.counts == (27,) * 4


@pytest.mark.parametrize("shows", [[("RJ",), ("RJ",)], [("RJ RJ",)]], ids=["one-each", "both"])
def test_gd_6_3_private_red_jokers_shown_resist(zsy_table, shows):
    rules, st = hidden_deal(zsy_table, order=(0, 2, 1, 3))
    used: set[int] = set()
    for (text,), seat in zip(shows, (1, 3), strict=False):
        st = PHASE.apply(rules, st, Action("give", seat, cards(text, used=used)))
    assert st.get(tribute.TRIBUTE) == "resisted" and st.tribute_log == ()
    assert st.phase == Phase.PLAY and st.turn == 0 and not st.duties


def test_gd_6_1_private_a_show_is_one_card_or_both_red_jokers(zsy_table):
    rules, st = hidden_deal(zsy_table, order=(0, 1, 2, 3))  # 单落: 3 gives
    for text in ("KS KD", "RJ BJ"):
        with pytest.raises(RuleError, match="GD-6.1"):
            PHASE.apply(rules, st, Action("give", 3, cards(text)))


def test_the_giver_is_offered_its_highest_card_or_both_red_jokers(zsy_table):
    rules, st = hidden_deal(zsy_table, order=(0, 1, 2, 3))
    mine = evolve(st, hands=(None, None, None, cards("AS 2H 5D 9C")))  # 2♥ wild at level 2
    assert PHASE.legal(rules, mine, 3) == [Action("give", 3, (one("AS"),))]
    jokers = cards("RJ RJ")
    mine = evolve(st, hands=(None, None, None, (*jokers, *cards("AS"))))
    assert PHASE.legal(rules, mine, 3) == [Action("give", 3, jokers)]


# --- the audit: every hand known --------------------------------------------------------


def test_gd_6_1_audit_names_a_give_below_the_highest(zsy_table):
    rules, st = hidden_deal(zsy_table, order=(0, 1, 2, 3))
    hand = cards("AS 2H 9S")  # level 2: 2♥ is wild, so A♠ is the highest
    PHASE.audit(rules, st, Action("give", 3, (one("AS"),)), hand)
    for low in (one("2H"), one("9S")):
        with pytest.raises(RuleError, match="GD-6.1"):
            PHASE.audit(rules, st, Action("give", 3, (low,)), hand)


def test_gd_6_3_audit_names_a_giver_that_hid_both_red_jokers(zsy_table):
    rules, st = hidden_deal(zsy_table, order=(0, 1, 2, 3))
    jokers = cards("RJ RJ")
    hand = (*jokers, one("AS"))
    with pytest.raises(RuleError, match="GD-6.3"):
        PHASE.audit(rules, st, Action("give", 3, jokers[:1]), hand)
    PHASE.audit(rules, st, Action("give", 3, jokers), hand)  # shown: 抗贡, nothing hidden


def test_gd_6_2_audit_names_a_return_above_ten_when_a_lower_card_was_held(zsy_table):
    rules, st = hidden_deal(zsy_table, order=(0, 1, 2, 3))
    st = PHASE.apply(rules, st, Action("give", 3, cards("KS")))
    with pytest.raises(RuleError, match="GD-6.2"):
        PHASE.audit(rules, st, Action("return", 0, cards("JS")), cards("JS 9S"))
    PHASE.audit(rules, st, Action("return", 0, cards("JS")), cards("JS QS"))  # none lower


@pytest.mark.parametrize("lang", ["en", "zh", "de", "es"])
def test_the_tribute_prompt_is_guandans_not_the_base_games(lang):
    """pd's report: a Guandan giver read ZSY-7's "(no jokers)" and "a card of your choice";
    GD-6 counts jokers and returns a 10 or lower. The variant's words say its own rule."""
    from types import SimpleNamespace

    from zsy_lan.engine.ruleset import build_rules
    from zsy_lan.text.i18n import set_language
    from zsy_lan.ui.render import tribute_line

    set_language(lang)
    gd, zsy = build_rules(4, ["guandan"]), build_rules(4)
    give = SimpleNamespace(kind="give", giver=0, receiver=1, n=1)
    back = SimpleNamespace(kind="return", giver=1, receiver=0, n=1)
    for me in (0, 1, 2):
        assert "GD-6.1" in tribute_line(give, None, me, gd)
        assert "GD-6.2" in tribute_line(back, None, me, gd)
        assert "ZSY-7" in tribute_line(give, None, me, zsy)
    assert "10" in tribute_line(back, None, 1, gd)
