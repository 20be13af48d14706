"""The order a play's cards are shown in: main part first, as players say it.

Why a module of its own: the engine keeps a play's cards sorted by rank (its
canonical form, what records and the wire carry), but a player reads
``6♦ 6♥ 6♠ 3♣ 3♥ (full house, 6s over 3s)``, not ``3♣ 3♥ 6♦ 6♥ 6♠``, and
``A♦ A♥ A♠ 5♠ (three aces with 5)``. Showing order is a matter of text, so it
lives here, beside the combination's name that it must agree with
(:mod:`zsy_lan.text.words` splits a play with :func:`split_play` too): the
screen, the log, the replay, hints and the legal-play lists all show a play
through :func:`shown_order`, and nothing else orders a play for showing.

The main part (the run or the n of a kind that decides the play) comes first,
a run in the order it is read (``A 2 3 4 5`` for a wrapped straight), then the
kickers (wings, the single or pair carried), lowest first. Within a rank the
cards keep the hand's suit order.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from zsy_lan.engine.cards import NUM_RANKS, RANK_OF, TWO, sort_cards
from zsy_lan.engine.combos import Combo, classify_cards
from zsy_lan.engine.rules import Rules

__all__ = ["hand_shown", "run_order", "shown_order", "split_play"]

# Wrapped straights (house rules) run A 2 3 4 ...: the order to read their ranks in.
_WRAP_ORDER: tuple[int, ...] = (TWO - 1, TWO) + tuple(range(TWO - 1))


def hand_shown(rules: Rules | None, state: Any, cards: Sequence[int]) -> tuple[int, ...]:
    """A hand in the order players of this game sort it: the game's ``zsy_card_order``
    for ``state`` (Guandan: 2 lowest, the level rank above A), else rank, then suit."""
    if rules is not None and rules.card_order is not None and state is not None:
        key = rules.card_order(rules, state)
        if key is not None:
            return tuple(sorted(sort_cards(cards), key=key))
    return sort_cards(cards)


def run_order(main: Sequence[int]) -> list[int]:
    """The ranks of a main part in reading order: ascending, a wrapped run from its A or 2."""
    ranks = sorted(main)
    if not ranks or ranks[-1] - ranks[0] == len(ranks) - 1 or TWO not in ranks:
        return ranks
    for start in (0, 1):  # A-2-3..., then 2-3-4...
        window = list(_WRAP_ORDER[start : start + len(ranks)])
        if sorted(window) == ranks:
            return window
    return ranks


def split_play(key: int, ranks: Sequence[int]) -> tuple[list[int], list[int]]:
    """A play's ranks as its main part (distinct ranks) and its kickers (every kicker card).

    The main part is the ranks held most often; where several runs of them
    exist (an airplane with a triple as wings, four with a second four as its
    pairs), the one holding the deciding rank ``key`` (a :class:`Combo`'s key;
    ``-1`` when unknown).
    """
    counts = [0] * NUM_RANKS
    for r in ranks:
        counts[r] += 1
    width = max(counts)
    main = [r for r in range(NUM_RANKS) if counts[r] == width]
    if 0 <= key < NUM_RANKS and counts[key] == width and len(main) > 1:
        lo = key
        while lo - 1 >= 0 and counts[lo - 1] == width:
            lo -= 1
        main = list(range(lo, key + 1)) if key - lo + 1 >= 2 else [key]
    kickers = []
    for r in range(NUM_RANKS):
        kickers.extend([r] * (counts[r] - (width if r in main else 0)))
    return main, kickers


def shown_order(
    rules: Rules | None, cards: Sequence[int], combo: Combo | None = None
) -> tuple[int, ...]:
    """``cards`` (a play) in the order to show them: main part first, then the kickers.

    ``combo`` when the caller knows how the play was read; else the table's
    ``rules`` classify it. Without either (or for cards that are no
    combination) the ranks held most often come first, which is the same for
    every play but the rare ones with two candidate main parts.
    """
    ordered = sort_cards(cards)
    if len(ordered) < 3:
        return ordered  # a single, a pair, a rocket: the hand's order is the natural one
    if combo is None and rules is not None:
        combo = classify_cards(rules, list(ordered))
    key = combo.key if combo is not None else -1
    main, kickers = split_play(key, [RANK_OF[c] for c in ordered])
    if not kickers and len(main) == 1:
        return ordered
    by_rank: dict[int, list[int]] = {}
    for c in ordered:
        by_rank.setdefault(RANK_OF[c], []).append(c)
    out: list[int] = []
    for r in run_order(main):
        out.extend(by_rank.pop(r))  # a main rank is never a kicker too (it has the most cards)
    for r in sorted(by_rank):
        out.extend(by_rank[r])
    return tuple(out)
