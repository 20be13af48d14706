"""Guandan's tribute (GD-6): single and double, returns of 10 or lower, 抗贡.

Why its own phase: the engine's tribute (ZSY-7) gives the highest cards in
Zheng Shangyou's order and takes any card back; Guandan's highest card counts
the jokers and the level rank and never the wild ♥ level cards, and a return
must be 10 or lower. The plugin runs the ``tribute`` phase itself
(``zsy_phases``).

The gives are not a choice (GD-6.4), so they are made when the deal starts
(:func:`start`, from ``zsy_on_seed``): the givers' highest cards move to the
receivers, or nobody gives when the givers hold both red jokers (抗贡,
GD-6.3). What is left to the players is the return: each receiver, in turn,
gives back one card of 10 or lower (GD-6.2); then the giver of the higher
tribute leads (GD-4.1). Every peer computes the gives from the same hands, so
this needs every hand: with the private deal (where no peer sees the others'
hands) the deal is played without tribute, which is said in the deal's
``tribute_paid`` field (``"unseen"``). The field is public and the table shows it
(docs/plugins.md, engine seams): the gives are face up (GD-6.4).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from zsy_lan.engine.cards import RANK_OF, RJ, sort_cards
from zsy_lan.engine.errors import RuleError
from zsy_lan.engine.phases import Phase
from zsy_lan.engine.state import Action, Duty, RoundState, evolve, with_extra
from zsy_lan.plugins.guandan_combos import DEAL_LEVEL, POS_OF_RANK, card_value, wild_cards

PHASE = Phase.TRIBUTE
GIVE, RETURN = "give", "return"
# the round's public record: ((giver, receiver, card), ...), "resisted" or "unseen"
TRIBUTE = "tribute_paid"
TEN = 8  # natural position of the 10 (2 is 0)


def givers(order: Sequence[int]) -> list[int]:
    """GD-6.1: who gives after a deal that finished in ``order``."""
    first = order[0]
    if order[1] == first ^ 2:  # 双下: the losers were 3rd and last
        return [order[2], order[3]]
    last = order[3]
    return [order[2] if last == first ^ 2 else last]  # 对落 / 单落


def highest(hand: Sequence[int], level: int) -> int:
    """GD-6.1: the highest card, jokers and the level rank counted, the wild ♥ never."""
    wild = wild_cards(level)
    return max((c for c in hand if c not in wild), key=lambda c: (card_value(c, level), -c))


def returnable(card: int) -> bool:
    """GD-6.2: natural rank 10 or lower."""
    r = RANK_OF[card]
    return r < 13 and POS_OF_RANK[r] <= TEN


def start(rules: Any, state: RoundState, order: Sequence[int]) -> RoundState:
    """The gives of GD-6.1 made (or resisted, GD-6.3) and the returns due."""
    if any(h is None for h in state.hands):
        return with_extra(state, **{TRIBUTE: "unseen"})
    level = int(state.get(DEAL_LEVEL, 2))
    first = order[0]
    gs = givers(order)
    red = sum(1 for g in gs for c in state.hands[g] or () if RANK_OF[c] == RJ)
    if red >= 2:  # 抗贡: the first finisher leads
        return with_extra(evolve(state, leader=first, turn=first), **{TRIBUTE: "resisted"})
    gifts = [(g, highest(state.hands[g] or (), level)) for g in gs]
    if len(gifts) == 2:
        # the higher to the first finisher; equal: the giver first in play order from it
        gifts.sort(key=lambda gc: (-card_value(gc[1], level), (gc[0] - first) % 4))
        receivers = [first, order[1]]
    else:
        receivers = [first]
    hands = [list(h or ()) for h in state.hands]
    record = []
    for (g, card), r in zip(gifts, receivers, strict=True):
        hands[g].remove(card)
        hands[r].append(card)
        record.append((g, r, card))
    leader = gifts[0][0]  # GD-4.1: the giver of the higher card leads
    duties = tuple(Duty(RETURN, r, g, 1) for g, r, _ in record)
    return with_extra(
        evolve(
            state,
            hands=tuple(sort_cards(h) for h in hands),
            counts=tuple(len(h) for h in hands),
            phase=PHASE,
            duties=duties,
            turn=duties[0].giver,
            leader=leader,
        ),
        **{TRIBUTE: tuple(record)},
    )


class TributePhase:
    """GD-6.2: the receivers' returns, one at a time; then the play starts."""

    def legal(self, rules: Any, state: RoundState, seat: int) -> list[Action]:
        """One return per distinct returnable card (rank and suit)."""
        hand = state.hands[seat]
        if hand is None or not state.duties or state.duties[0].giver != seat:
            return []
        cards = [c for c in hand if returnable(c)] or [min(hand, key=lambda c: card_value(c, 2))]
        seen, out = set(), []
        for c in cards:
            if c % 54 not in seen:
                seen.add(c % 54)
                out.append(Action(RETURN, seat, (c,)))
        return out

    def apply(self, rules: Any, state: RoundState, action: Action) -> RoundState:
        """The return at the head of the duties, checked."""
        duty = state.duties[0] if state.duties else None
        if duty is None or action.seat != duty.giver:
            raise RuleError("GD-6.2", f"it is seat {state.turn}'s turn, not seat {action.seat}'s")
        if action.kind != RETURN or len(action.cards) != 1:
            raise RuleError("GD-6.2", "return one card of 10 or lower to the one who gave to you")
        card = action.cards[0]
        hand = state.hands[action.seat]
        if hand is not None:
            if card not in hand:
                raise RuleError("GD-6.2", "that card is not in your hand")
            if not returnable(card) and any(returnable(c) for c in hand):
                raise RuleError("GD-6.2", "the card returned must be 10 or lower")
        hands = list(state.hands)
        counts = list(state.counts)
        if hand is not None:
            rest = list(hand)
            rest.remove(card)
            hands[action.seat] = tuple(rest)
        if hands[duty.receiver] is not None:
            hands[duty.receiver] = sort_cards((*hands[duty.receiver], card))
        counts[action.seat] -= 1
        counts[duty.receiver] += 1
        duties = state.duties[1:]
        if duties:
            return evolve(state, hands=tuple(hands), counts=tuple(counts), duties=duties,
                          turn=duties[0].giver)
        return evolve(state, hands=tuple(hands), counts=tuple(counts), duties=(),
                      phase=Phase.PLAY, turn=state.leader)
