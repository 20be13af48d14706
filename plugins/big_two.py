"""Big Two (锄大地 / 大老二 / Pusoy Dos), RULES.md B2, written as a third party would.

Why it is built this way: Big Two ranks every card (3♦ lowest, 2♠ highest,
B2-1.2), so every combination here is a *card kind* (``ComboKind.cards``):
its classifier and generator see card ids, never rank counts. A natural card
id of deck 0 is ``rank * 4 + suit`` with ranks ``3..2`` and suits ``♦ ♣ ♥ ♠``,
which is exactly Big Two's card order, so a card id *is* its Big Two value.

Combination keys (the ``Combo.key`` the engine compares):

* single: the card; pair and triple: their highest card (rank, then the
  highest suit in it, B2-3.2);
* five-card hands: ``1000 * (category + 1) + key within the category`` (B2-3.3;
  never below 1000, so no key reads as a rank index to the presenter),
  categories straight 0, flush 1, full house 2, four + one 3, straight
  flush 4; :func:`zsy_beats` lets any five-card hand beat a lower one of any
  category (the engine alone compares only the same kind).

Choices where RULES.md leaves room (documented in docs/plugins.md):

* the deciding card of ``A 2 3 4 5`` and ``2 3 4 5 6`` is their 2 (their
  highest card by B2-1.2), of any other straight its top card;
* B2-4.2 with three players (17 or 18 cards): ×2 with 10 to 12 cards left,
  ×3 with 13 or more;
* three players (B2-1.1 D): the 52nd card goes to the holder of 3♦; when it
  is the 3♦ itself, to the first seat dealt (who then holds 3♦ and leads).
  ``Lead(stock=True)`` says so; the engine gives it after the deal, and the
  private deal gives it to the seat that shows 3♦ (docs/private-deal.md).

Everything here is pure: play-time hooks read options with ``rules.option``.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from functools import lru_cache
from itertools import combinations, product
from typing import Any

from zsy_lan import hookimpl
from zsy_lan.engine.cards import BJ, TWO, full_deck, make_card, rank_of, sort_cards
from zsy_lan.engine.combos import Combo, ComboKind, Play
from zsy_lan.engine.hookspecs import (
    DealLayout,
    Deck,
    FirstLead,
    Lead,
    Option,
    TableConfig,
    Tribute,
)

name = "big-two"
version = "1.0.0"
description = "Big Two (锄大地 / 大老二): 52 cards, every card ranked, 3♦ leads, B2-1..4"
game = True

THREE_OF_DIAMONDS = make_card(0, 0)
ACE = TWO - 1

STRAIGHT, FLUSH, FULLHOUSE, FOURKIND, STRAIGHTFLUSH = range(5)
FIVE_KINDS = ("straight", "flush", "fullhouse", "fourkind", "straightflush")
_CATEGORY = dict(zip(FIVE_KINDS, range(5), strict=True))

# B2-3.5: the rank sets that are straights, weakest first: 3-7 .. 10-A, then
# A 2 3 4 5, then 2 3 4 5 6 (the highest). J Q K A 2 and other wraps are not.
STRAIGHT_RANKS: tuple[tuple[int, ...], ...] = (
    *(tuple(range(lo, lo + 5)) for lo in range(ACE - 3)),
    (0, 1, 2, ACE, TWO),
    (0, 1, 2, 3, TWO),
)
_STRAIGHT_STRENGTH = {frozenset(r): i for i, r in enumerate(STRAIGHT_RANKS)}


# --- options --------------------------------------------------------------------------


@hookimpl
def zsy_options() -> Sequence[Option]:
    """B2's regional choices (each a **D** of RULES.md)."""
    return [
        Option("three_players", "bool", False,
               "B2-1.1 D: three players, 17 each, the 52nd card to the holder of 3♦"),
        Option("winner_leads", "bool", False,
               "B2-2.1 D: from the second deal the previous winner leads freely"),
        Option("flush_by_suit", "bool", False,
               "B2-3.4 D: flushes compare by suit first, then by their highest card"),
        Option("twos_double", "bool", False,
               "B2-4.2 D: a loser still holding any 2 pays double again"),
    ]


def _opt(rules: Any, key: str) -> Any:
    """This plugin's resolved option ``key`` at play time (the documented accessor)."""
    return rules.option(name, key)


@hookimpl
def zsy_default_players() -> int:
    """B2-1.1: four players."""
    return 4


@hookimpl
def zsy_supported_players(options: Mapping[str, Any]) -> Sequence[int]:
    """B2-1.1: four, or three with the option."""
    return (3, 4) if options["three_players"] else (4,)


# --- deck, deal and lead --------------------------------------------------------------


@hookimpl
def zsy_deck() -> Deck:
    """B2-1.1: 52 cards, no jokers."""
    return Deck(1, tuple(c for c in full_deck(1) if rank_of(c) < BJ))


@hookimpl
def zsy_deal_layout(table: TableConfig) -> DealLayout:
    """B2-1.1: 13 each; with three players 17 each and one card set aside for 3♦'s holder."""
    return DealLayout(kitty=1 if table.players == 3 else 0)


@hookimpl
def zsy_first_lead(table: TableConfig) -> FirstLead:
    """No base start-card rule: :func:`zsy_deal_lead` (or, three-handed, the deal) decides."""
    return FirstLead(required=table.players != 3)


@hookimpl
def zsy_tribute() -> Tribute:
    """Big Two has no tribute."""
    return Tribute(enabled=False)


@hookimpl
def zsy_deal_lead(rules: Any, match: Any) -> Lead | None:
    """B2-2.1: the holder of 3♦ leads every deal, with it (``winner_leads``: the last winner).

    Three-handed (B2-1.1 D) the 52nd card, set aside at the deal, goes to the holder
    of 3♦ first, or to the first seat dealt when it is the 3♦ (``Lead.stock``: the
    engine moves it, the private deal too, each "I do not hold it" checked at the audit).
    """
    three = rules.players == 3
    if _opt(rules, "winner_leads") and match.results:
        winner = match.results[-1].order[0]
        if three:
            return Lead(seat=winner, card=THREE_OF_DIAMONDS, stock=True)
        return Lead(seat=winner)
    return Lead(card=THREE_OF_DIAMONDS, stock=three)


# --- combinations (B2-3) ---------------------------------------------------------------


def _single_c(cards: Sequence[int], rules: Any) -> Combo | None:
    return Combo("single", 1, cards[0]) if len(cards) == 1 else None


def _same_rank(n: int, kind: str) -> ComboKind:
    """Pairs and triples: ``n`` cards of one rank, keyed by their highest card (B2-3.2)."""

    def classify(cards: Sequence[int], rules: Any) -> Combo | None:
        if len(cards) != n or len({rank_of(c) for c in cards}) != 1:
            return None
        return Combo(kind, n, max(cards))

    def generate(hand: Sequence[int], rules: Any, last: Combo | None) -> Iterator[Play]:
        for combo_cards in _groups(tuple(sort_cards(hand)), n):
            key = combo_cards[-1]
            if last is None or key > last.key:
                yield Play(Combo(kind, n, key), tuple(rank_of(c) for c in combo_cards), combo_cards)

    return ComboKind(kind, classify, generate, cards=True)


@lru_cache(maxsize=4096)
def _groups(hand: tuple[int, ...], n: int) -> tuple[tuple[int, ...], ...]:
    """Every set of ``n`` cards of one rank in ``hand`` (sorted), lowest first."""
    by_rank: dict[int, list[int]] = {}
    for c in hand:
        by_rank.setdefault(rank_of(c), []).append(c)
    out = []
    for r in sorted(by_rank):
        out.extend(combinations(by_rank[r], n))
    return tuple(sorted(out, key=lambda cs: cs[-1]))


def _single_g(hand: Sequence[int], rules: Any, last: Combo | None) -> Iterator[Play]:
    low = -1 if last is None else last.key
    for c in sort_cards(hand):
        if c > low:
            yield Play(Combo("single", 1, c), (rank_of(c),), (c,))


def five_key(cards: Sequence[int], flush_by_suit: bool = False) -> tuple[str, int] | None:
    """``(kind, key)`` of five cards as a Big Two five-card hand (B2-3.3 to 3.5), or ``None``."""
    if len(cards) != 5 or len(set(cards)) != 5 or any(rank_of(c) >= BJ for c in cards):
        return None
    ranks = sorted(rank_of(c) for c in cards)
    suits = {c & 3 for c in cards}
    strength = _STRAIGHT_STRENGTH.get(frozenset(ranks)) if len(set(ranks)) == 5 else None
    if strength is not None:
        # the deciding card: the 2 of A2345 / 23456, else the top card
        top_rank = TWO if strength >= len(STRAIGHT_RANKS) - 2 else ranks[-1]
        top = max(c for c in cards if rank_of(c) == top_rank)
        category = STRAIGHTFLUSH if len(suits) == 1 else STRAIGHT
        return FIVE_KINDS[category], 1000 * (category + 1) + strength * 4 + (top & 3)
    if len(suits) == 1:
        high = max(cards)
        within = (high & 3) * 13 + rank_of(high) if flush_by_suit else high
        return "flush", 1000 * (FLUSH + 1) + within
    counts: dict[int, int] = {}
    for r in ranks:
        counts[r] = counts.get(r, 0) + 1
    shape = sorted(counts.values())
    main = max(counts, key=lambda r: counts[r])
    if shape == [2, 3]:
        return "fullhouse", 1000 * (FULLHOUSE + 1) + main
    if shape == [1, 4]:
        return "fourkind", 1000 * (FOURKIND + 1) + main
    return None


@lru_cache(maxsize=2048)
def five_card_plays(hand: tuple[int, ...], flush_by_suit: bool) -> tuple[Play, ...]:
    """Every five-card hand (B2-3.3) in ``hand``, weakest first."""
    found: set[tuple[int, ...]] = set()
    by_rank: dict[int, list[int]] = {}
    by_suit: dict[int, list[int]] = {}
    for c in hand:
        by_rank.setdefault(rank_of(c), []).append(c)
        by_suit.setdefault(c & 3, []).append(c)
    for ranks in STRAIGHT_RANKS:
        if all(r in by_rank for r in ranks):
            found.update(tuple(sorted(cs)) for cs in product(*(by_rank[r] for r in ranks)))
    for cards in by_suit.values():
        if len(cards) >= 5:
            found.update(combinations(sorted(cards), 5))
    triples = [cs for r in by_rank for cs in combinations(by_rank[r], 3)]
    pairs = [cs for r in by_rank for cs in combinations(by_rank[r], 2)]
    for t in triples:
        for p in pairs:
            if rank_of(p[0]) != rank_of(t[0]):
                found.add(tuple(sorted(t + p)))
    for r, cards in by_rank.items():
        if len(cards) == 4:
            found.update(tuple(sorted((*cards, c))) for c in hand if rank_of(c) != r)
    plays = []
    for cards in found:
        read = five_key(cards, flush_by_suit)
        if read is not None:
            kind, key = read
            plays.append(Play(Combo(kind, 5, key), tuple(rank_of(c) for c in cards), cards))
    plays.sort(key=lambda p: (p.combo.key, p.cards))
    return tuple(plays)


def _five_kind(kind: str) -> ComboKind:
    """One category of five-card hands; generation yields only that category's hands."""

    def classify(cards: Sequence[int], rules: Any) -> Combo | None:
        read = five_key(cards, _opt(rules, "flush_by_suit"))
        if read is None or read[0] != kind:
            return None
        return Combo(kind, 5, read[1])

    def generate(hand: Sequence[int], rules: Any, last: Combo | None) -> Iterator[Play]:
        for play in five_card_plays(tuple(sort_cards(hand)), _opt(rules, "flush_by_suit")):
            if play.combo.kind == kind and (last is None or _five_beats(play.combo, last)):
                yield play

    return ComboKind(kind, classify, generate, cards=True)


def _five_beats(play: Combo, last: Combo) -> bool:
    return last.kind in _CATEGORY and play.key > last.key


SINGLE = ComboKind("single", _single_c, _single_g, cards=True)
PAIR = _same_rank(2, "pair")
TRIPLE = _same_rank(3, "triple")
BIG_TWO_KINDS: tuple[ComboKind, ...] = (
    SINGLE, PAIR, TRIPLE, *(_five_kind(k) for k in FIVE_KINDS),
)


@hookimpl
def zsy_combo_kinds(table: TableConfig, kinds: tuple[ComboKind, ...]) -> Sequence[ComboKind] | None:
    """B2-3.1: single, pair, triple and the five five-card categories; nothing else."""
    return BIG_TWO_KINDS if table.game == name else None


@hookimpl
def zsy_beats(rules: Any, play: Combo, last: Combo) -> bool | None:
    """B2-3.3: any five-card hand beats one of a lower category (keys order them all)."""
    if play.kind in _CATEGORY and last.kind in _CATEGORY:
        return play.key > last.key
    return None


# --- end of a deal and scoring (B2-4) --------------------------------------------------


@hookimpl
def zsy_round_over() -> bool:
    """B2-4.1: the deal ends when one player empties their hand."""
    return True


def penalty(left: int, holds_two: bool, twos_double: bool) -> int:
    """B2-4.2: what a loser with ``left`` cards pays (1 a card, ×2 with 10-12, ×3 with 13+)."""
    times = 3 if left >= 13 else 2 if left >= 10 else 1
    if twos_double and holds_two:
        times *= 2
    return left * times


@hookimpl
def zsy_score_round(rules: Any, state: Any) -> Sequence[int]:
    """B2-4.2: each loser scores minus their penalty; the winner gains the sum."""
    winner = state.finished[0]
    twos = _opt(rules, "twos_double")
    hands = state.hands
    points = [0] * state.players
    for seat in range(state.players):
        if seat == winner:
            continue
        hand = hands[seat] if hands is not None else None
        holds_two = bool(hand) and any(rank_of(c) == TWO for c in hand)
        points[seat] = -penalty(state.counts[seat], holds_two, twos)
    points[winner] = -sum(points)
    return tuple(points)


@hookimpl
def zsy_match_score(match: Any) -> Sequence[int]:
    """B2-4.3: the highest total wins."""
    return match.totals


@hookimpl
def zsy_match_over(rules: Any, match: Any) -> Sequence[int] | None:
    """B2-4.3: after the agreed deals the highest total wins; tied seats share the win."""
    if len(match.results) < match.rounds:
        return ()
    best = max(match.totals)
    return tuple(s for s, t in enumerate(match.totals) if t == best)


# --- words ------------------------------------------------------------------------------

RULES_TEXT = "\n".join((
    "B2-1.1 Four players, 52 cards (no jokers), 13 each; option: three players, 17 each, "
    "the 52nd card to the holder of 3♦.",
    "B2-1.2 Ranks 3 4 5 6 7 8 9 10 J Q K A 2; suits ♦ < ♣ < ♥ < ♠: 3♦ is the lowest card, "
    "2♠ the highest.",
    "B2-2.1 Every deal the holder of 3♦ leads, and the first play includes 3♦ "
    "(option: the previous winner leads).",
    "B2-2.2 Play goes round; you may always pass and play again later in the trick. "
    "When all others pass, the last to play leads.",
    "B2-3.1 Plays: single, pair, triple, or a five-card hand. Nothing else.",
    "B2-3.2 Beat a single, pair or triple with a higher one of the same size; "
    "equal ranks: the highest suit wins.",
    "B2-3.3 Five-card hands, low to high: straight, flush, full house, four of a kind + one, "
    "straight flush; a higher one beats any lower one.",
    "B2-3.4 Same category: straights by their highest card, flushes by their highest card "
    "(option: suit first), full houses by the triple, four of a kind by the four.",
    "B2-3.5 Straights: five ranks in a row; 2 3 4 5 6 is the highest, A 2 3 4 5 next, "
    "then 10 J Q K A. No other wraps.",
    "B2-4.1 The deal ends when a player empties their hand.",
    "B2-4.2 Each other player loses 1 a card left, double with 10-12, triple with 13 "
    "(option: double again holding a 2); the winner gains it all.",
    "B2-4.3 After the agreed number of deals the highest total wins; ties share.",
))

VOCABULARY: dict[str, str] = {
    "kind:single": "single",
    "kinds:single": "singles",
    "play:single": "single {rank}",
    "kind:pair": "pair",
    "kinds:pair": "pairs",
    "play:pair": "pair of {ranks}",
    "kind:triple": "triple",
    "kinds:triple": "triples",
    "play:triple": "three {ranks}",
    "kind:straight": "straight",
    "kinds:straight": "straights",
    "play:straight": "straight {low} to {high}",
    "kind:flush": "flush",
    "kinds:flush": "flushes",
    "play:flush": "flush, {high} high",
    "kind:fullhouse": "full house",
    "kinds:fullhouse": "full houses",
    "play:fullhouse": "full house, {ranks} over {kicker_ranks}",
    "kind:fourkind": "four of a kind",
    "kinds:fourkind": "fours of a kind",
    "play:fourkind": "four {ranks} with {kickers}",
    "kind:straightflush": "straight flush",
    "kinds:straightflush": "straight flushes",
    "play:straightflush": "straight flush {low} to {high}",
    "places": "none",
    "action:pass": "pass",
    "stake": "points",
    "rules:big-two": RULES_TEXT,
}


@hookimpl
def zsy_vocabulary(table: TableConfig) -> Mapping[str, str] | None:
    """B2's words: the five-card hands by name, no Upstream/Downstream titles."""
    return VOCABULARY if table.game == name else None


@hookimpl
def zsy_rule_ids() -> Mapping[str, str]:
    """The engine's refusals under Big Two cite B2."""
    return {
        "ZSY-2.1": "B2-2.1",
        "ZSY-3.5": "B2-3.1",
        "ZSY-4.1": "B2-3.2",
        "ZSY-4.2": "B2-3.3",
        "ZSY-5.1": "B2-2.2",
        "ZSY-6.2": "B2-4.1",
    }
