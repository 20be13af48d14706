"""The private deal finds the lead of every deal by a plugin's card (zsy_deal_lead, issue #27).

Nobody sees another hand, so after each deal the seats from the dealer's
left say in turn whether they hold the card; the holder shows it and leads
with it. A seat that says no while holding it is named by the end-of-deal
audit, citing the plugin's own rule id. The plugin is
``tests/plugins/diamond_lead.py``: 3♦ leads every deal, no tribute.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).parents[1] / "plugins"))

import diamond_lead  # noqa: E402
from private_support import PrivateTable, assert_named, install, run_until_named  # noqa: E402

from zsy_lan.engine.round import DECK  # noqa: E402
from zsy_lan.engine.ruleset import build_rules  # noqa: E402
from zsy_lan.engine.state import PLAY  # noqa: E402

pytestmark = pytest.mark.slow  # whole private tables over the in-memory mesh, seconds each

RULES = build_rules(None, ["diamond-lead"], plugins={"diamond-lead": diamond_lead})
THREE_D = diamond_lead.THREE_OF_DIAMONDS


def test_the_holder_shows_the_card_and_leads_every_deal():
    t = PrivateTable(RULES, 2)
    firsts: dict[int, list] = {s: [] for s in range(4)}

    def watch(node, action):
        r = node.game.match.round
        if action.get("kind") == PLAY and r is not None and not r.played and not r.log:
            firsts[node.seat].append((len(node.game.match.results), action["cards"]))
        return action

    install(t, watch)
    t.run(max_time=120)
    assert len(t.heads()) == 1, "replicas disagree"
    node = t.nodes[0]
    deals = len(node.game.match.results)  # 2, or 3 with a deciding round (a tie)
    assert node.game.finished() and deals >= 2 and not node.game.voids
    leads = sorted(x for entries in firsts.values() for x in entries)
    assert [deal for deal, _ in leads] == list(range(deals))  # one first lead per deal...
    assert all(any(c % DECK == THREE_D for c in cards) for _, cards in leads)  # ...with 3♦


def test_a_seat_that_hides_the_card_is_named_by_the_audit():
    state = {"seat": None}

    def hide(node, action):
        second_deal = len(node.game.match.results) == 1
        if action.get("kind") == "deal.lead" and "deal" in action and second_deal:
            state["seat"] = node.seat
            return {"kind": "deal.lead", "seat": node.seat}  # "I do not hold 3♦"
        return action

    t = PrivateTable(RULES, 2)
    install(t, hide)
    run_until_named(t, at_once=False, max_time=120)
    assert state["seat"] is not None
    assert_named(t, state["seat"], at_once=False)
    void = t.nodes[(state["seat"] + 1) % 4].game.voids[0]
    assert void.step == "lead" and void.round == 2 and "(DL-2.1)" in void.reason


def test_match_state_and_the_match_end_replicate_under_the_private_deal():
    """zsy_deal_over's state is in every replica's hash; zsy_match_over plays past the
    agreed single round and ends the match on every replica at once."""
    from plugin_helpers import make_plugin

    counter = make_plugin(
        "counter",
        zsy_deal_over=lambda match: {"counter.deals": match.get("counter.deals", 0) + 1},
        zsy_match_over=lambda match: (0, 2) if match.get("counter.deals") == 2 else (),
    )
    rules = build_rules(4, ["counter", "no-tribute"], plugins={"counter": counter})
    t = PrivateTable(rules, 1)
    t.run(max_time=120)
    assert len(t.heads()) == 1, "replicas disagree"
    for node in t.nodes.values():
        m = node.game.match
        assert node.game.finished() and m.winners == (0, 2) and len(m.results) == 2
        assert node.game.public_json()["extra"] == {"counter.deals": 2}
