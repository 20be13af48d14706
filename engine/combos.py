"""Combinations (ZSY-3), how they compare (ZSY-4), and move generation.

Everything here works on *rank counts* (a 15-slot list: how many cards of
each rank), never on card objects: that is what makes move generation fast
enough for bots and hints. A play is a :class:`Combo` (kind, number of cards,
comparison key) plus the sorted tuple of its ranks; the round turns ranks into
concrete cards.

A game is a list of :class:`ComboKind` objects, each able to *classify* a
rank-count vector and to *generate* every play of its kind from a hand,
optionally only those that beat a given combination of its kind. Variant
plugins add, drop or replace kinds; the base game's kinds are
:data:`ZSY_KINDS`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple

from .cards import BJ, NUM_RANKS, RANK_OF, RJ, TWO

if TYPE_CHECKING:
    from .rules import Rules


class Combo(NamedTuple):
    """A classified play: ``kind`` name, ``length`` in cards, comparison ``key``.

    ``key`` is the rank that decides comparison within a kind (top card of a
    straight, the triple of a full house, the rank of a bomb).
    """

    kind: str
    length: int
    key: int


class Play(NamedTuple):
    """A legal play: its combination and its ranks, lowest first.

    ``cards`` is set only by kinds that depend on the actual cards (a straight
    flush): then those exact cards are the play.
    """

    combo: Combo
    ranks: tuple[int, ...]
    cards: tuple[int, ...] | None = None


Counts = Sequence[int]
Classifier = Callable[[Counts, "Rules"], "Combo | None"]
Generator = Callable[[Counts, "Rules", "Combo | None"], Iterator[Play]]


@dataclass(frozen=True)
class ComboKind:
    """One kind of combination of a game.

    ``classify(counts, rules)`` returns the :class:`Combo` when the counts are
    exactly one play of this kind, else ``None``. ``generate(counts, rules,
    last)`` yields every play of this kind in the hand; when ``last`` is given
    (always of this kind) only the plays that beat it. ``bomb_power`` is set
    for bombs: bombs beat every non-bomb and each other by this tuple.

    ``cards=True`` marks a kind that needs the actual cards (suits): its
    ``classify(cards, rules)`` gets the card ids and its ``generate(hand, rules,
    last)`` the hand's card ids and yields plays with ``cards`` set. Rank-count
    kinds stay the fast path; card kinds are tried first by :func:`classify_cards`.
    """

    name: str
    classify: Classifier
    generate: Generator
    bomb: bool = False
    bomb_power: Callable[[Combo], tuple[int, ...]] | None = None
    cards: bool = False


# --- the base game's kinds ------------------------------------------------


def _only_rank(counts: Counts) -> tuple[int, int] | None:
    """``(rank, count)`` when the counts hold exactly one rank."""
    found = None
    for r in range(NUM_RANKS):
        c = counts[r]
        if c:
            if found is not None:
                return None
            found = (r, c)
    return found


def _n_of_a_kind(n: int, name: str, naturals_only: bool) -> tuple[Classifier, Generator]:
    top = TWO if naturals_only else RJ

    def classify(counts: Counts, rules: Rules) -> Combo | None:
        only = _only_rank(counts)
        if only is None or only[1] != n or only[0] > top:
            return None
        return Combo(name, n, only[0])

    table = [Play(Combo(name, n, r), (r,) * n) for r in range(top + 1)]

    def generate(counts: Counts, rules: Rules, last: Combo | None) -> Iterator[Play]:
        start = 0 if last is None else last.key + 1
        return iter([table[r] for r in range(start, top + 1) if counts[r] >= n])

    return classify, generate


_single_c, _single_g = _n_of_a_kind(1, "single", naturals_only=False)
_pair_c, _pair_g = _n_of_a_kind(2, "pair", naturals_only=False)  # BJ BJ is a pair with two decks
_triple_c, _triple_g = _n_of_a_kind(3, "triple", naturals_only=True)


def _fullhouse_c(counts: Counts, rules: Rules) -> Combo | None:
    triple = pair = -1
    for r in range(NUM_RANKS):
        c = counts[r]
        if c == 0:
            continue
        if c == 3 and triple < 0 and r <= TWO:
            triple = r
        elif c == 2 and pair < 0:
            pair = r
        else:
            return None
    if triple < 0 or pair < 0:
        return None
    return Combo("fullhouse", 5, triple)


_FULLHOUSES = [
    [Play(Combo("fullhouse", 5, t), tuple(sorted((t, t, t, p, p)))) for p in range(NUM_RANKS)]
    for t in range(TWO + 1)
]


def _fullhouse_g(counts: Counts, rules: Rules, last: Combo | None) -> Iterator[Play]:
    start = 0 if last is None else last.key + 1
    triples = [t for t in range(start, TWO + 1) if counts[t] >= 3]
    if not triples:
        return iter(())
    pairs = [p for p in range(NUM_RANKS) if counts[p] >= 2]
    return iter([_FULLHOUSES[t][p] for t in triples for p in pairs if p != t])


def run_classify(counts: Counts, width: int, min_len: int, top: int) -> tuple[int, int] | None:
    """``(length in ranks, top rank)`` when counts are a run of ``width`` cards per rank.

    A run is consecutive ranks, at least ``min_len`` of them, none above ``top``.
    Shared by straights and by the variants' pair and triple chains.
    """
    lo = hi = -1
    for r in range(NUM_RANKS):
        c = counts[r]
        if c == 0:
            if lo >= 0 and hi < 0:
                hi = r - 1
            continue
        if c != width or hi >= 0:
            return None
        if lo < 0:
            lo = r
    if lo < 0:
        return None
    if hi < 0:
        hi = NUM_RANKS - 1
    n = hi - lo + 1
    if n < min_len or hi > top:
        return None
    return n, hi


_RUN_PLAYS: dict[tuple[str, int, int, int], Play] = {}


def run_play(kind: str, width: int, lo: int, hi: int) -> Play:
    """The (shared, cached) play of the run ``lo..hi`` with ``width`` cards per rank."""
    key = (kind, width, lo, hi)
    play = _RUN_PLAYS.get(key)
    if play is None:
        ranks = tuple(r for r in range(lo, hi + 1) for _ in range(width))
        play = _RUN_PLAYS[key] = Play(Combo(kind, (hi - lo + 1) * width, hi), ranks)
    return play


def run_generate(
    counts: Counts, width: int, min_len: int, top: int, kind: str, last: Combo | None
) -> Iterator[Play]:
    """Every run of ``width`` cards per rank (see :func:`run_classify`).

    With ``last`` only runs of the same length and a higher top.
    """
    out: list[Play] = []
    if last is not None:
        n = last.length // width
        streak = 0
        for r in range(top + 1):
            streak = streak + 1 if counts[r] >= width else 0
            if streak >= n and r > last.key:
                out.append(run_play(kind, width, r - n + 1, r))
        return iter(out)
    lo = 0
    while lo <= top:
        if counts[lo] < width:
            lo += 1
            continue
        hi = lo
        while hi + 1 <= top and counts[hi + 1] >= width:
            hi += 1
        # every sub-run of [lo, hi] with at least min_len ranks
        for a in range(lo, hi - min_len + 2):
            for b in range(a + min_len - 1, hi + 1):
                out.append(run_play(kind, width, a, b))
        lo = hi + 1
    return iter(out)


def _straight_c(counts: Counts, rules: Rules) -> Combo | None:
    found = run_classify(counts, 1, rules.min_straight, rules.straight_top)
    return None if found is None else Combo("straight", found[0], found[1])


def _straight_g(counts: Counts, rules: Rules, last: Combo | None) -> Iterator[Play]:
    return run_generate(counts, 1, rules.min_straight, rules.straight_top, "straight", last)


def _bomb_c(counts: Counts, rules: Rules) -> Combo | None:
    only = _only_rank(counts)
    if only is None or only[0] > TWO or only[1] < rules.min_bomb:
        return None
    return Combo("bomb", only[1], only[0])


_BOMBS = [[Play(Combo("bomb", n, r), (r,) * n) for n in range(9)] for r in range(TWO + 1)]


def _bomb_g(counts: Counts, rules: Rules, last: Combo | None) -> Iterator[Play]:
    low = rules.min_bomb
    naturals = counts[: TWO + 1]
    if max(naturals) < low:
        return iter(())
    return iter(
        [
            _BOMBS[r][n]
            for r, c in enumerate(naturals)
            if c >= low
            for n in range(low, c + 1)
        ]
    )


def bomb_power(combo: Combo) -> tuple[int, ...]:
    """ZSY-4.2: more cards beat fewer; equal count, higher rank; joker bomb beats all."""
    if combo.kind == "jokerbomb":
        return (1, 0, 0)
    return (0, combo.length, combo.key)


def _jokerbomb_c(counts: Counts, rules: Rules) -> Combo | None:
    d = rules.decks
    if counts[BJ] != d or counts[RJ] != d or sum(counts) != 2 * d:
        return None
    return Combo("jokerbomb", 2 * d, RJ)


_JOKERBOMBS: dict[int, Play] = {}


def _jokerbomb_g(counts: Counts, rules: Rules, last: Combo | None) -> Iterator[Play]:
    d = rules.decks
    if counts[BJ] >= d and counts[RJ] >= d:
        play = _JOKERBOMBS.get(d)
        if play is None:
            play = _JOKERBOMBS[d] = Play(Combo("jokerbomb", 2 * d, RJ), (BJ,) * d + (RJ,) * d)
        return iter((play,))
    return iter(())


SINGLE = ComboKind("single", _single_c, _single_g)
PAIR = ComboKind("pair", _pair_c, _pair_g)
TRIPLE = ComboKind("triple", _triple_c, _triple_g)
FULLHOUSE = ComboKind("fullhouse", _fullhouse_c, _fullhouse_g)
STRAIGHT = ComboKind("straight", _straight_c, _straight_g)
BOMB = ComboKind("bomb", _bomb_c, _bomb_g, bomb=True, bomb_power=bomb_power)
JOKERBOMB = ComboKind("jokerbomb", _jokerbomb_c, _jokerbomb_g, bomb=True, bomb_power=bomb_power)

# Bombs first: with a house rule making three of a kind a bomb, the bomb reading wins.
ZSY_KINDS: tuple[ComboKind, ...] = (JOKERBOMB, BOMB, SINGLE, PAIR, TRIPLE, FULLHOUSE, STRAIGHT)


# --- classification, comparison, generation ------------------------------


_MISSING: Combo = Combo("", 0, 0)  # a memo sentinel (never a real combination)


def classify(rules: Rules, counts: Counts) -> Combo | None:
    """The combination these rank counts form under ``rules`` (ZSY-3), or ``None``.

    Memoised per ruleset: the same few thousand patterns recur all game long.
    """
    key = tuple(counts)
    memo = rules.classify_memo
    combo = memo.get(key, _MISSING)
    if combo is not _MISSING:
        return combo
    combo = None
    if sum(counts):
        for kind in rules.rank_kinds:
            combo = kind.classify(counts, rules)
            if combo is not None:
                break
    if len(memo) > 200_000:
        memo.clear()
    memo[key] = combo
    return combo


def classify_cards(rules: Rules, cards: Sequence[int]) -> Combo | None:
    """The combination these actual cards form: card kinds first, then by rank counts."""
    for kind in rules.card_kinds:
        combo = kind.classify(tuple(cards), rules)
        if combo is not None:
            return combo
    counts = [0] * NUM_RANKS
    for c in cards:
        counts[RANK_OF[c]] += 1
    return classify(rules, counts)


def readings(rules: Rules, cards: Sequence[int]) -> list[Combo]:
    """Every combination these cards can be read as (one per kind), for ambiguous plays."""
    counts = [0] * NUM_RANKS
    for c in cards:
        counts[RANK_OF[c]] += 1
    out = []
    for kind in rules.kinds:
        combo = kind.classify(tuple(cards) if kind.cards else counts, rules)
        if combo is not None:
            out.append(combo)
    return out


def beats(rules: Rules, play: Combo, last: Combo) -> bool:
    """Does ``play`` beat ``last`` (ZSY-4)? Variants may override via ``rules.beats_override``."""
    if rules.beats_override is not None:
        verdict = rules.beats_override(rules, play, last)
        if verdict is not None:
            return verdict
    kinds = rules.kind_by_name
    pk = kinds.get(play.kind)
    lk = kinds.get(last.kind)
    if pk is None or lk is None:
        return False
    if pk.bomb:
        if not lk.bomb:
            return True
        assert pk.bomb_power is not None and lk.bomb_power is not None
        return pk.bomb_power(play) > lk.bomb_power(last)
    if lk.bomb:
        return False
    return play.kind == last.kind and play.length == last.length and play.key > last.key


def legal_plays(
    rules: Rules,
    counts: Counts,
    last: Combo | None = None,
    hand: Sequence[int] | None = None,
) -> list[Play]:
    """Every legal play from a hand with these rank counts.

    As leader (``last`` is ``None``) every combination in the hand; else every
    play that beats ``last`` (ZSY-4). Ordered by kind (the game's order, bombs
    last), then as each kind generates them (by key), so output is stable.
    Kinds that need the actual cards (``ComboKind.cards``) are generated only
    when ``hand`` (its card ids) is given. A game's ``rules.move_generator``
    replaces the per-kind loop when no kind needs cards.
    """
    if rules.move_generator is not None and not rules.card_kinds:
        return rules.move_generator(rules, counts, last)
    out: list[Play] = []
    if last is None or rules.beats_override is not None:
        for kind in rules.gen_order:
            if not kind.cards:
                out.extend(kind.generate(counts, rules, None))
            elif hand is not None:
                out.extend(kind.generate(hand, rules, None))
        if last is None:
            return out
        return [p for p in out if beats(rules, p.combo, last)]
    lk = rules.kind_by_name.get(last.kind)
    if lk is None:
        return out
    if not lk.bomb:
        if not lk.cards:
            out.extend(lk.generate(counts, rules, last))
        elif hand is not None:
            out.extend(lk.generate(hand, rules, last))
        for kind in rules.bomb_kinds:
            out.extend(kind.generate(counts, rules, None))  # ZSY-4.2 any bomb beats a non-bomb
        return out
    for kind in rules.bomb_kinds:
        for play in kind.generate(counts, rules, None):
            if beats(rules, play.combo, last):
                out.append(play)
    return out
