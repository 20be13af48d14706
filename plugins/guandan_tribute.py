"""Guandan's tribute (GD-6): single and double, returns of 10 or lower, 抗贡.

Why its own phase: the engine's tribute (ZSY-7) gives the highest cards in
Zheng Shangyou's order and takes any card back; Guandan's highest card counts
the jokers and the level rank and never the wild ♥ level cards, and a return
must be 10 or lower. The plugin runs the ``tribute`` phase itself
(``zsy_phases``).

With every hand known (the open deal, ``zsy play``, ``zsy selfplay``) the
gives are not a choice (GD-6.4), so they are made when the deal starts
(:func:`start`, from ``zsy_on_seed``): the givers' highest cards move to the
receivers, or nobody gives when the givers hold both red jokers (抗贡,
GD-6.3). What is left to the players is the return: each receiver, in turn,
gives back one card of 10 or lower (GD-6.2); then the giver of the higher
tribute leads (GD-4.1).

With the private deal no peer sees another's hand, so each giver, in turn,
shows its tribute itself (a ``give`` of its highest card, face up), or both
red jokers when it holds them; once every giver has shown, the same rules
decide: two red jokers shown resist (抗贡), else the cards go to their
receivers (recorded in ``tribute_log``, which moves the slots) and the
returns follow, face down. What a seat claims about its hidden hand there
(this is my highest card; I do not hold both red jokers; this return is 10 or
lower, or I have none) is checked by :meth:`TributePhase.audit` when the
deal's cards are opened at its end (docs/plugins.md, "Claims about a hidden
hand"). The round's public ``tribute_paid`` field records the gives, or
``"resisted"``; the table shows it (docs/plugins.md, engine seams).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from zsy_lan.engine.cards import RANK_OF, RJ, sort_cards
from zsy_lan.engine.errors import RuleError
from zsy_lan.engine.phases import Phase
from zsy_lan.engine.state import Action, Duty, Hand, RoundState, evolve, with_extra
from zsy_lan.plugins.guandan_combos import DEAL_LEVEL, POS_OF_RANK, card_value, wild_cards

PHASE = Phase.TRIBUTE
GIVE, RETURN = "give", "return"
# the round's public record: ((giver, receiver, card), ...) or "resisted"
TRIBUTE = "tribute_paid"
# the private deal's shows so far: ((giver, cards, receiver if it gives), ...)
SHOWN = "guandan.shown"
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
    first = order[0]
    gs = givers(order)
    if any(h is None for h in state.hands):  # the private deal: the givers show, in turn
        receivers = [first, order[1]][: len(gs)]
        duties = tuple(Duty(GIVE, g, r, 1) for g, r in zip(gs, receivers, strict=True))
        return with_extra(
            evolve(state, phase=PHASE, duties=duties, turn=gs[0], leader=first),
            **{SHOWN: ()},
        )
    level = int(state.get(DEAL_LEVEL, 2))
    red = sum(1 for g in gs for c in state.hands[g] or () if RANK_OF[c] == RJ)
    if red >= 2:  # 抗贡: the first finisher leads
        return with_extra(evolve(state, leader=first, turn=first), **{TRIBUTE: "resisted"})
    gifts = [(g, highest(state.hands[g] or (), level)) for g in gs]
    return _given(state, gifts, [first, order[1]], level, logged=False)


def _given(
    state: RoundState,
    gifts: list[tuple[int, int]],
    receivers: Sequence[int],
    level: int,
    *,
    logged: bool,
) -> RoundState:
    """GD-6.1: the ``(giver, card)`` gifts handed over (the higher to ``receivers[0]``;
    equal: the giver first in play order from it), the returns due, the higher's giver
    to lead (GD-4.1). ``logged``: the private deal, where ``tribute_log`` moves the slots."""
    first = receivers[0]
    gifts = sorted(gifts, key=lambda gc: (-card_value(gc[1], level), (gc[0] - first) % 4))
    hands = list(state.hands)
    counts = list(state.counts)
    record = []
    for (g, card), r in zip(gifts, receivers, strict=False):
        if hands[g] is not None:
            rest = list(hands[g] or ())
            rest.remove(card)
            hands[g] = tuple(rest)
        if hands[r] is not None:
            hands[r] = sort_cards((*(hands[r] or ()), card))
        counts[g] -= 1
        counts[r] += 1
        record.append((g, r, card))
    duties = tuple(Duty(RETURN, r, g, 1) for g, r, _ in record)
    log = tuple((g, r, (card,), 1) for g, r, card in record) if logged else ()
    return with_extra(
        evolve(
            state,
            hands=tuple(None if h is None else sort_cards(h) for h in hands),
            counts=tuple(counts),
            phase=PHASE,
            duties=duties,
            turn=duties[0].giver,
            leader=gifts[0][0],
            tribute_log=state.tribute_log + log,
        ),
        **{TRIBUTE: tuple(record)},
    )


def _red_jokers(hand: Hand) -> list[int]:
    return [c for c in hand if RANK_OF[c] == RJ]


def _show(rules: Any, state: RoundState, action: Action) -> RoundState:
    """The private deal: a giver shows its tribute (or both red jokers, 抗贡); after the
    last show the tribute is given or resisted (GD-6.1, GD-6.3)."""
    duty = state.duties[0]
    if action.seat != duty.giver or state.turn != duty.giver:
        raise RuleError("GD-6.1", f"it is seat {duty.giver}'s turn, not seat {action.seat}'s")
    cards = action.cards
    level = int(state.get(DEAL_LEVEL, 2))
    both = len(cards) == 2 and len(_red_jokers(cards)) == 2
    if len(cards) != 1 and not both:
        raise RuleError("GD-6.1", "give your highest card, or show both red jokers (GD-6.3)")
    hand = state.hands[action.seat]
    if hand is not None:
        if any(c not in hand for c in cards) or len(set(cards)) != len(cards):
            raise RuleError("GD-6.1", "that card is not in your hand")
        _check_give(cards, hand, level)
    shown = (*state.get(SHOWN, ()), (action.seat, tuple(cards), duty.receiver))
    rest = state.duties[1:]
    jokers = sum(len(_red_jokers(c)) for _, c, _ in shown)
    if jokers >= 2:  # 抗贡: nobody gives, the first finisher leads
        return with_extra(
            evolve(state, phase=Phase.PLAY, duties=(), turn=state.leader),
            **{TRIBUTE: "resisted", SHOWN: ()},
        )
    if rest:
        return with_extra(evolve(state, duties=rest, turn=rest[0].giver), **{SHOWN: shown})
    gifts = [(g, c[0]) for g, c, _ in shown]
    receivers = [r for _, _, r in shown]
    return with_extra(_given(state, gifts, receivers, level, logged=True), **{SHOWN: ()})


def _check_give(cards: Sequence[int], hand: Hand, level: int) -> None:
    """GD-6.1/6.3 against the giver's whole hand: its highest card (never a wild), or
    both red jokers, which it must show when it holds them."""
    if len(cards) == 2:
        return  # both red jokers, shown: nothing hidden to check
    if len(_red_jokers(hand)) >= 2:
        raise RuleError("GD-6.3", "held both red jokers and gave instead of showing them")
    card = cards[0]
    top = highest(hand, level)
    if card in wild_cards(level) or card_value(card, level) != card_value(top, level):
        raise RuleError("GD-6.1", "did not give its highest card")


class TributePhase:
    """GD-6.2: the receivers' returns, one at a time; then the play starts."""

    def legal(self, rules: Any, state: RoundState, seat: int) -> list[Action]:
        """One return per distinct returnable card (rank and suit); with the private
        deal a giver's show: its highest card, or both red jokers when it holds them."""
        hand = state.hands[seat]
        if hand is None or not state.duties or state.duties[0].giver != seat:
            return []
        if state.duties[0].kind == GIVE:
            jokers = _red_jokers(hand)
            if len(jokers) >= 2:
                return [Action(GIVE, seat, tuple(jokers[:2]))]
            return [Action(GIVE, seat, (highest(hand, int(state.get(DEAL_LEVEL, 2))),))]
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
        if duty.kind == GIVE:
            if action.kind != GIVE:
                raise RuleError("GD-6.1", "give your highest card first")
            return _show(rules, state, action)
        hidden = action.hidden and not action.cards and action.value == 1  # face down, unseen
        if action.kind != RETURN or (len(action.cards) != 1 and not hidden):
            raise RuleError("GD-6.2", "return one card of 10 or lower to the one who gave to you")
        card = None if hidden else action.cards[0]
        hand = state.hands[action.seat]
        if hand is not None and card is not None:
            if card not in hand:
                raise RuleError("GD-6.2", "that card is not in your hand")
            _check_return(card, hand)
        hands = list(state.hands)
        counts = list(state.counts)
        if hand is not None and card is not None:
            rest = list(hand)
            rest.remove(card)
            hands[action.seat] = tuple(rest)
        if hands[duty.receiver] is not None:
            # a return nobody here saw leaves the receiver's hand unknown (counts move)
            hands[duty.receiver] = (
                None if card is None else sort_cards((*(hands[duty.receiver] or ()), card))
            )
        counts[action.seat] -= 1
        counts[duty.receiver] += 1
        private = any(h is None for h in state.hands)
        log = ((action.seat, duty.receiver, None, 1),) if private else ()
        state = evolve(state, hands=tuple(hands), counts=tuple(counts),
                       tribute_log=state.tribute_log + log)
        duties = state.duties[1:]
        if duties:
            return evolve(state, duties=duties, turn=duties[0].giver)
        return evolve(state, duties=(), phase=Phase.PLAY, turn=state.leader)

    def audit(self, rules: Any, state: RoundState, action: Action, hand: Hand) -> None:
        """The private deal's audit, every hand known: the give was the giver's highest
        card and it held no pair of red jokers (GD-6.1, GD-6.3); a return was 10 or lower
        when the hand had such a card (GD-6.2)."""
        if action.kind == GIVE:
            _check_give(action.cards, hand, int(state.get(DEAL_LEVEL, 2)))
        elif action.kind == RETURN and len(action.cards) == 1:
            _check_return(action.cards[0], hand)


def _check_return(card: int, hand: Hand) -> None:
    """GD-6.2: 10 or lower, unless the hand holds no such card."""
    if not returnable(card) and any(returnable(c) for c in hand):
        raise RuleError("GD-6.2", "the card returned must be 10 or lower")
