"""Small builders for engine tests: hands from text, states in a chosen position."""

from __future__ import annotations

from zsy_lan.engine.cards import parse_cards_exact, rank_counts
from zsy_lan.engine.combos import classify
from zsy_lan.engine.round import new_round
from zsy_lan.engine.rules import Rules
from zsy_lan.engine.state import Action, RoundState, evolve


def hand(text: str, decks: int = 1) -> tuple[int, ...]:
    """Cards from text like '3d 3c 4 5'."""
    return parse_cards_exact(text, decks)


def combo(rules: Rules, text: str):
    """The combination typed cards form."""
    return classify(rules, rank_counts(hand(text, rules.decks)))


def position(rules: Rules, hands: list[str], turn: int = 0, round_no: int = 2) -> RoundState:
    """A play-phase state with given hands (by text), seat ``turn`` to lead."""
    hs = []
    used: set[int] = set()
    for text in hands:
        cards = []
        for c in hand(text, rules.decks):
            while c in used:  # same text in two hands: take the next deck's copy
                c += 54
            used.add(c)
            cards.append(c)
        hs.append(tuple(sorted(cards, key=lambda x: (x % 54, x))))
    from zsy_lan.engine.cards import sort_cards

    hs = [sort_cards(h) for h in hs]
    st = new_round(rules, hs, round_no=round_no, dealer=(turn - 1) % rules.players, leader=turn)
    return evolve(st, must_contain=None)


def play(seat: int, cards: tuple[int, ...]) -> Action:
    return Action("play", seat, cards)


def passes(seat: int) -> Action:
    return Action("pass", seat)
