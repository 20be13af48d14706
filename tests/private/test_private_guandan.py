"""Guandan's tribute under the private deal (GD-6), whole tables over the in-memory mesh.

Each giver shows its own tribute face up (its highest card, or both red
jokers: 抗贡); once every giver has shown, the cards go to their receivers,
who return one card face down; the audit at the end of the deal checks every
claim a seat made about its hidden hand and names a liar, citing GD's ids.
The rules in detail: tests/plugins/test_guandan_private_tribute.py.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from private_support import PrivateTable, assert_named, install  # noqa: E402

from zsy_lan.deal.private_game import PrivateGame  # noqa: E402
from zsy_lan.engine.match import RoundResult  # noqa: E402
from zsy_lan.engine.ruleset import build_rules  # noqa: E402
from zsy_lan.engine.state import GIVE, RETURN, Action, evolve  # noqa: E402
from zsy_lan.plugins.guandan_combos import DEAL_LEVEL, card_value, wild_cards  # noqa: E402
from zsy_lan.plugins.guandan_tribute import TRIBUTE, returnable  # noqa: E402

pytestmark = pytest.mark.slow  # whole private tables over the in-memory mesh, seconds each

RULES = build_rules(4, ["guandan"], {})


class AfterAFirstDeal(PrivateGame):
    """A match whose first deal finished 0, 2, 1, 3 (双下: a double tribute), so the
    table's first deal is the second, with tribute: one 108-card private deal per test
    instead of two."""

    def __init__(self, *args, **kw) -> None:
        super().__init__(*args, **kw)
        self.match = evolve(self.match, results=(RoundResult(1, (0, 2, 1, 3), (0,) * 4),))


def second_deal(t: PrivateTable) -> None:
    """Run until every node audited the deal with tribute, or voided it."""
    t.run(
        until=lambda: all(
            len(n.game.match.results) >= 2 or n.game.voids for n in t.nodes.values()
        ),
        max_time=120,
    )


def test_the_tribute_is_shown_given_and_returned_and_the_audit_passes():
    t = PrivateTable(RULES, 2, game_cls=AfterAFirstDeal)
    steps: list[tuple[int, str]] = []

    def watch(node, action):
        if action.get("kind") in (GIVE, RETURN):
            steps.append((node.seat, action["kind"]))
            if action["kind"] == RETURN:
                assert "cards" not in action or not action["cards"]  # face down
        return action

    install(t, watch)
    second_deal(t)
    assert len({n.replica.transcript_head() for n in t.nodes.values()}) == 1
    for node in t.nodes.values():
        assert not node.game.voids and node.replica.halted is None
        assert len(node.game.match.results) == 2 and node.game.audits[0].ok
    gives = [s for s, kind in steps if kind == GIVE]
    assert gives and set(gives) <= {1, 3}, steps  # 双下: the losers 1 and 3 show
    paid = {node.game.match.round.get(TRIBUTE) for node in t.nodes.values()}
    assert len(paid) == 1  # public: every replica records the same gives
    (record,) = paid
    if record != "resisted":
        assert sorted((g, r) for g, r, _ in record) == [(1, 2), (3, 0)] or sorted(
            (g, r) for g, r, _ in record
        ) == [(1, 0), (3, 2)]
        assert [s for s, kind in steps if kind == RETURN] == [0, 2]  # then the returns


class LaxGiver(AfterAFirstDeal):
    """A peer whose software skips its own GD-6.1 check (so it can give a low card)."""

    def round_step(self, state, act):
        if act.kind == GIVE and act.seat == self.seat:
            mine = state.hands[self.seat]
            new = super().round_step(evolve(state, hands=(None,) * self.n), act)
            for giver, _r, face_up, _n in new.tribute_log[len(state.tribute_log):]:
                if giver == self.seat:
                    mine = tuple(c for c in mine if c not in (face_up or ()))
            hands = list(new.hands)
            hands[self.seat] = mine
            return evolve(new, hands=tuple(hands))
        return super().round_step(state, act)


def test_a_giver_that_holds_back_its_highest_card_is_named_by_the_audit():
    state: dict = {"seat": None}

    def low_give(node, action):
        if action.get("kind") != GIVE or state["seat"] is not None or len(action["cards"]) != 1:
            return action
        d, r = node.game.deal, node.game.match.round
        level = int(r.get(DEAL_LEVEL, 2))
        hand = {i: c for i, c in d.hand().items() if c not in wild_cards(level)}
        low = min(hand, key=lambda i: card_value(hand[i], level))
        if card_value(hand[low], level) == card_value(action["cards"][0], level):
            return action  # nothing lower to give
        state["seat"] = node.seat
        body = d.open_message([low], "show").to_body()
        return {"kind": GIVE, "seat": node.seat, "cards": [hand[low]], "deal": body}

    t = PrivateTable(RULES, 2, game_cls=LaxGiver)
    install(t, low_give)
    second_deal(t)
    assert state["seat"] is not None
    assert_named(t, state["seat"], at_once=False)
    void = t.nodes[(state["seat"] + 1) % 4].game.voids[0]
    assert void.step == "tribute" and void.round == 2 and "(GD-6.1)" in void.reason


class LaxReturner(AfterAFirstDeal):
    """A peer whose software skips its own GD-6.2 check (so it can return a high card)."""

    def round_step(self, state, act):
        if act.kind == RETURN and act.seat == self.seat and act.cards:
            mine = tuple(c for c in state.hands[self.seat] if c not in act.cards)
            hands = list(state.hands)
            hands[self.seat] = None
            new = super().round_step(evolve(state, hands=tuple(hands)), act)
            hands = list(new.hands)
            hands[self.seat] = mine
            return evolve(new, hands=tuple(hands))
        return super().round_step(state, act)


def test_a_return_above_ten_while_holding_a_lower_card_is_named_by_the_audit():
    state: dict = {"seat": None}

    def high_return(node, action):
        if action.get("kind") != RETURN or state["seat"] is not None:
            return action
        d, r = node.game.deal, node.game.match.round
        level = int(r.get(DEAL_LEVEL, 2))
        hand = d.hand()
        high = [i for i, c in hand.items() if not returnable(c) and not d.slots[i].public]
        if not high or not any(returnable(c) for c in hand.values()):
            return action
        slot = max(high, key=lambda i: card_value(hand[i], level))
        state["seat"] = node.seat
        msg = d.pass_message([slot], r.duties[0].receiver)
        body = Action(RETURN, node.seat, (), 1, True).to_json()
        return {**body, "deal": msg.to_body()}

    t = PrivateTable(RULES, 2, game_cls=LaxReturner)
    install(t, high_return)
    second_deal(t)
    assert state["seat"] is not None
    assert_named(t, state["seat"], at_once=False)
    void = t.nodes[(state["seat"] + 1) % 4].game.voids[0]
    assert void.step == "tribute" and void.round == 2 and "(GD-6.2)" in void.reason
