"""The engine round a private deal plays, built from what one seat knows of the deal.

Once every hand is open to its holder, a seat's engine round holds its own
hand, every other hand as ``None`` and every count (the slots each seat
holds); an observer (``OBSERVER``) holds no hand at all. When a landlord takes
the kitty (Dou Dizhu), the landlord's hand grows by it, and everyone sees it
when the rules show it. Pure functions of the deal's state: every change to
the game stays in :class:`~zsy_lan.deal.private_game.PrivateGame`.
"""

from __future__ import annotations

from zsy_lan.deal.mental import OBSERVER, STOCK, DealConfig, DealPeer
from zsy_lan.engine.cards import sort_cards
from zsy_lan.engine.hookspecs import Lead
from zsy_lan.engine.match import MatchState, tribute_duties
from zsy_lan.engine.round import new_round
from zsy_lan.engine.rules import Rules
from zsy_lan.engine.state import RoundState, evolve, with_extra

__all__ = ["deal_config", "engine_round", "seen_twice", "with_kitty"]


def deal_config(
    rules: Rules, table: str, deal_no: int, dealer: int
) -> tuple[DealConfig, tuple[int, ...]]:
    """Deal ``deal_no``'s slot layout and the kitty's slots (the stock).

    Slot ``i`` goes to seat ``dealer + 1 + i`` round the table, as the open
    deal deals its permutation (ZSY-1.2); the last ``kitty_size`` slots are
    the stock.
    """
    deck = tuple(rules.deck)
    n = rules.players
    body = len(deck) - rules.kitty_size
    layout = tuple((dealer + 1 + i) % n if i < body else STOCK for i in range(len(deck)))
    return DealConfig(table, deal_no, n, deck, layout), tuple(range(body, len(deck)))


def seen_twice(deal: DealPeer) -> int | None:
    """A card this seat saw in two slots (a duplicated card in the deck), or None."""
    seen: set[int] = set()
    for sl in deal.slots:
        if sl.card is not None:
            if sl.card in seen:
                return sl.card
            seen.add(sl.card)
    return None


def engine_round(
    rules: Rules,
    match: MatchState,
    deal: DealPeer,
    seat: int,
    *,
    dealer: int,
    seed: bytes,
    leader: int | None,
    lead: Lead | None = None,
) -> RoundState:
    """The round from ``seat``'s knowledge (ZSY-2 leader, ZSY-7 duties), its seed applied.

    ``lead``: the deal's own lead (``zsy_deal_lead``); with a card, ``leader``
    is the seat that showed it in the lead stage.
    """
    prev = match.results[-1] if match.results else None
    n = rules.players
    counts = [len(deal.slots_of(s)) for s in range(n)]
    hands: list[tuple[int, ...] | None] = [None] * n
    if seat != OBSERVER:
        hands[seat] = sort_cards(tuple(deal.hand().values()))
    if prev is None:
        state = new_round(
            rules, hands, round_no=1, dealer=dealer, leader=leader, counts=counts, lead=lead
        )
    else:
        state = new_round(
            rules,
            hands,
            round_no=len(match.results) + 1,
            dealer=dealer,
            leader=prev.order[0] if lead is None else leader,
            duties=tribute_duties(rules, prev.order),
            counts=counts,
            lead=lead,
        )
    if rules.on_seed is not None:
        state = rules.on_seed(rules, state, seed, match)
    return state


def with_kitty(
    rules: Rules, r: RoundState, deal: DealPeer, seat: int, lord: int, stock: tuple[int, ...]
) -> RoundState:
    """``r`` once the landlord took the kitty (its slots already assigned to ``lord``):
    the landlord's hand with it; the kitty itself when the rules show it
    (``Rules.kitty_shown``, the DealLayout's: no option read by name)."""
    hands = list(r.hands)
    if seat == lord:
        hands[lord] = sort_cards(tuple(deal.hand().values()))
    r = evolve(r, hands=tuple(hands))
    if rules.kitty_shown:
        cards = [deal.slots[i].card for i in stock]
        if all(c is not None for c in cards):
            r = with_extra(r, kitty=sort_cards(tuple(c for c in cards if c is not None)))
    return r
