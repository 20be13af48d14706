"""Three-handed Big Two under the private deal: the 52nd card to the holder of 3♦ (B2-1.1 D).

Nobody can see who holds 3♦, so the lead stage asks each seat from the
dealer's left in turn (``Lead(card=3♦, stock=True)``): the holder shows it,
takes the set-aside card (opened to it alone: the others publish their keys
of it) and leads with 3♦. When every seat says no, the 3♦ is the set-aside
card and the first seat dealt takes it (RULES.md B2-1.1, the plugin's
choice). Every "no" is checked by the end-of-deal audit, citing B2-2.1.
"""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from private_support import PrivateTable, assert_named, install, run_until_named  # noqa: E402

from zsy_lan.deal.mental import DealPeer  # noqa: E402
from zsy_lan.engine.cards import make_card  # noqa: E402
from zsy_lan.engine.ruleset import build_rules  # noqa: E402
from zsy_lan.engine.state import PLAY  # noqa: E402

pytestmark = pytest.mark.slow  # whole private tables over the in-memory mesh, seconds each

RULES = build_rules(3, ["big-two"], {"big-two.three_players": True})
THREE_D = make_card(0, 0)


def salted(salt: str):
    """Deal peers whose secrets (so the shuffle) depend on ``salt``: picks a deal."""

    def factory(cfg, seat, rand):
        def draw(n: int) -> bytes:
            return hashlib.shake_256(salt.encode() + rand(n)).digest(n)

        return DealPeer(cfg, seat, rand=draw, eager_validation=False)

    return factory


def first_plays(t: PrivateTable) -> dict[int, list]:
    """Each node's first play of every deal: (deal, seat, cards, its card count then)."""
    out: dict[int, list] = {s: [] for s in t.nodes}

    def watch(node, action):
        r = node.game.match.round
        if action.get("kind") == PLAY and r is not None and not r.log and not any(r.plays_made):
            deal = len(node.game.match.results)
            out[node.seat].append((deal, node.seat, tuple(action["cards"]), r.counts[node.seat]))
        return action

    install(t, watch)
    return out


def test_the_holder_of_3d_takes_the_set_aside_card_and_leads_with_it():
    t = PrivateTable(RULES, 2)
    plays = first_plays(t)
    t.run(max_time=120)
    assert len(t.heads()) == 1, "replicas disagree"
    node = t.nodes[0]
    assert node.game.finished() and not node.game.voids
    leads = sorted(x for entries in plays.values() for x in entries)
    assert [deal for deal, *_ in leads] == list(range(len(node.game.match.results)))
    for _deal, _seat, cards, count in leads:
        assert THREE_D in cards and count == 18  # 17 dealt + the 52nd card


def test_when_the_3d_is_the_set_aside_card_the_first_seat_dealt_takes_it():
    # with these secrets the first deal sets the 3♦ aside (found by trying salts)
    factory = salted("s10")
    t = PrivateTable(RULES, 1, factories={s: factory for s in range(3)})
    plays = first_plays(t)
    t.run(max_time=120)
    node = t.nodes[0]
    assert len(t.heads()) == 1 and node.game.finished() and not node.game.voids
    stock = node.game.audits[0].slot_cards[-1]
    assert stock == THREE_D, "the salt no longer sets the 3♦ aside: pick another"
    ((deal, seat, cards, count),) = [x for entries in plays.values() for x in entries]
    assert seat == (node.game.dealer + 1) % 3 and THREE_D in cards and count == 18


def test_a_seat_that_hides_the_3d_is_named_by_the_audit():
    state: dict = {"seat": None}

    def hide(node, action):
        if action.get("kind") == "deal.lead" and "deal" in action and state["seat"] is None:
            state["seat"] = node.seat
            return {"kind": "deal.lead", "seat": node.seat}  # "I do not hold 3♦"
        return action

    t = PrivateTable(RULES, 1)
    install(t, hide)
    run_until_named(t, at_once=False, max_time=120)
    assert state["seat"] is not None
    assert_named(t, state["seat"], at_once=False)
    void = t.nodes[(state["seat"] + 1) % 3].game.voids[0]
    assert void.step == "lead" and "(B2-2.1)" in void.reason
