"""Decisions outside the trick play: Dou Dizhu bidding and doubling, unknown phases.

Why one generic module: variants add phases through plugins, each with its
own action kinds. The bots judge their hand once (:func:`hand_strength`:
controls such as jokers, 2s and bombs against the number of turns the hand
needs) and map that judgement onto whatever the phase offers: the highest
bid the hand is worth, doubling only a strong hand, and for a phase they do
not know, the first legal action (always legal, never a crash).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from zsy_lan.engine.cards import BJ, RJ, TWO, rank_counts
from zsy_lan.engine.rules import Rules
from zsy_lan.engine.state import PASS, Action

if TYPE_CHECKING:
    from zsy_lan.bots.base import Observation
    from zsy_lan.bots.planner import NormalBot

BID_KINDS = ("bid", "call", "rob")
DOUBLE_KINDS = ("double", "redouble")


def hand_strength(rules: Rules, hand: tuple[int, ...], planner_cost: float) -> float:
    """A rough worth of a hand for bidding: high controls minus turns needed.

    Calibrated on Dou Dizhu's 17 cards before the kitty (normal against normal
    with a forced landlord): about 0 for an average hand; landlords with 0 won
    about 60%, with 4 and more over 80%.
    """
    c = rank_counts(hand)
    bombs = sum(1 for r in range(TWO + 1) if c[r] >= max(4, rules.min_bomb))
    rocket = c[BJ] >= rules.decks and c[RJ] >= rules.decks
    controls = 2.0 * c[RJ] + 1.5 * c[BJ] + 1.0 * c[TWO] + 0.4 * c[TWO - 1] + 3.0 * bombs
    if rocket:
        controls += 1.5
    # structure (few turns needed) helps, but cannot replace controls: a hand of
    # low chains wins no trick back, so its bonus is capped
    return controls + min(1.5, -0.9 * (planner_cost - 6.0))


def _bid_value(a: Action) -> int:
    return a.value if a.kind in BID_KINDS else 0


def phase_choice(bot: NormalBot, obs: Observation) -> list[Action]:
    """Legal actions of a non-play phase, best first, for this bot's hand."""
    legal = list(obs.legal)
    hand = obs.view.hands[obs.seat] or ()
    cost = bot.planner(obs.rules).plan(rank_counts(hand)).cost
    s = hand_strength(obs.rules, hand, cost)
    kinds = {a.kind for a in legal}
    if kinds & set(BID_KINDS):
        # worth: 0 (pass) .. 3, from strength; bid the highest offered value not above it.
        # Calibrated by bench/bench_bidding.py (1,200 forced-landlord hands, doubling on):
        # as the landlord a hand below 1 loses points on average (-0.35 to -0.91 per bid
        # unit), 1-2 about breaks even (+0.11), 2-3 gains a little (+0.23), 3 and more
        # clearly (+1.05 to +1.42): pass, 1, 2, 3
        worth = 0 if s < 1.0 else 1 if s < 2.0 else 2 if s < 3.0 else 3
        bids = sorted(legal, key=_bid_value)
        ok = [a for a in bids if a.kind in BID_KINDS and 0 < a.value <= worth]
        passes = [a for a in bids if a.kind not in BID_KINDS or a.value <= 0]
        first = ok[-1:] if ok else passes[:1]
        return first + [a for a in sorted(legal, key=_bid_value, reverse=True) if a not in first]
    if kinds & set(DOUBLE_KINDS) or any(a.kind == PASS for a in legal):
        yes = [a for a in legal if a.kind in DOUBLE_KINDS and a.value != 0]
        no = [a for a in legal if a not in yes]
        # a farmer doubles when its side wins clearly more than half the time: from a
        # strength of 2 the farmers won 57-59% (bench_bidding), 4 and more 67-68%
        threshold = 2.0
        if any(a.kind == "redouble" for a in legal):
            # the landlord answers a farmer who doubled (a sign of strength), with 20
            # cards: recalibrated by bench_bidding (1,200 hands, 502 with a double): a
            # landlord asked with strength 4-6 won 39% (-1.32 points per bid unit
            # against the doublers, so a redouble doubled a loss), from 6 67% (+1.74)
            threshold = 6.0
        return (yes + no) if s >= threshold else (no + yes)
    return legal
