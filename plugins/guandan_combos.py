"""Guandan's combinations (GD-2, GD-3) with the two wild ♥ level cards, and their generation.

Why a module of its own: Guandan's order is not the engine's. Ranks run
``2 3 .. K A`` with the level rank lifted above A (GD-2.1), and the two ♥ cards
of the level rank stand for any non-joker card (GD-2.2), so every kind here is
a *card* kind (``ComboKind.cards``): it sees the card ids, finds the wilds and
ranks by the level in force. The level is read from ``rules.config[LEVEL]``,
which :func:`level_rules` sets on a derived Rules per level (the plugin's
``zsy_rules_in_effect``).

Natural positions: ``0`` is the 2, ``11`` the K, ``12`` the A (engine rank
``r`` is position ``(r + 1) % 13``). A single/pair/triple/full house/bomb is
keyed by its *value* (the position, 13 for the level rank, 14 BJ, 15 RJ);
straights, tubes and plates by their window in ``A 2 3 .. K A`` (0 is the
A-low window, GD-3.2). When wilds allow several readings of one kind, the
highest is taken: it is the one a player means.

Generation yields one play per distinct combination (kind, key, and the
ranks it is built from), using natural cards first and wilds only where they
are needed: a wild spent where a natural card would do is never better, and
listing both would multiply the moves for nothing (docs/plugins.md, Guandan).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Sequence
from typing import Any

from zsy_lan.engine.cards import BJ, DECK_SIZE, RANK_OF, RJ
from zsy_lan.engine.combos import Combo, ComboKind, Play

LEVEL = "guandan.level"  # key in Rules.config (derived rules) and in the round's extra
ACE = 14  # the level A (levels are 2..14)
HEART = 2
POS_OF_RANK: tuple[int, ...] = tuple((r + 1) % 13 for r in range(13))
RANK_OF_POS: tuple[int, ...] = tuple((p - 1) % 13 for p in range(13))
# the natural order with A low and high: windows of straights, tubes, plates
SEQ: tuple[int, ...] = (12, *range(13))
BJ_VALUE, RJ_VALUE = 14, 15
# bomb tiers (GD-3.3): 4 < 5 < straight flush < 6 < 7 < 8 < 9 < 10 < four jokers
_TIER = {4: 0, 5: 1, 6: 3, 7: 4, 8: 5, 9: 6, 10: 7}
SF_TIER, JOKERS_TIER = 2, 8


def level_of(rules: Any) -> int:
    """The level in force for these rules (2 unless a derived Rules says otherwise)."""
    return int(rules.config.get(LEVEL, 2))


def level_pos(level: int) -> int:
    """The natural position of the level rank (level 2 -> 0, A -> 12)."""
    return level - 2


def wild_cards(level: int) -> frozenset[int]:
    """GD-2.2: the two ♥ cards of the level rank (one per deck)."""
    rank = RANK_OF_POS[level_pos(level)]
    return frozenset((rank * 4 + HEART, DECK_SIZE + rank * 4 + HEART))


def value(pos: int, level: int) -> int:
    """GD-2.1: a position's value for singles to bombs (the level rank above A)."""
    return 13 if pos == level_pos(level) else pos


def card_value(card: int, level: int) -> int:
    """A single card's value (jokers 14, 15)."""
    r = RANK_OF[card]
    if r == BJ:
        return BJ_VALUE
    if r == RJ:
        return RJ_VALUE
    return value(POS_OF_RANK[r], level)


def bomb_power(combo: Combo) -> tuple[int, int]:
    """GD-3.3: tier first (size, straight flush between 5 and 6, jokers on top), then key."""
    if combo.kind == "straightflush":
        return (SF_TIER, combo.key)
    if combo.kind == "jokerbomb":
        return (JOKERS_TIER, 0)
    return (_TIER[combo.length], combo.key)


# --- classification ------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Split:
    """Cards taken apart: the wilds, natural cards by position (and suit), the jokers."""

    wilds: tuple[int, ...]
    by_pos: tuple[tuple[int, ...], ...]
    bj: tuple[int, ...]
    rj: tuple[int, ...]

    def count(self, pos: int) -> int:
        """Natural (non-wild) cards of a position."""
        return len(self.by_pos[pos])


def split(cards: Sequence[int], level: int) -> Split:
    """Take ``cards`` apart under ``level`` (see :class:`Split`)."""
    wild = wild_cards(level)
    by_pos: list[list[int]] = [[] for _ in range(13)]
    wilds, bj, rj = [], [], []
    for c in sorted(cards):
        r = RANK_OF[c]
        if r == BJ:
            bj.append(c)
        elif r == RJ:
            rj.append(c)
        elif c in wild:
            wilds.append(c)
        else:
            by_pos[POS_OF_RANK[r]].append(c)
    return Split(tuple(wilds), tuple(map(tuple, by_pos)), tuple(bj), tuple(rj))


def _suit(card: int) -> int:
    return card % DECK_SIZE & 3


def _windows(width: int) -> range:
    """Window starts in ``SEQ`` for runs of ``width`` ranks."""
    return range(len(SEQ) - width + 1)


def _best_run(s: Split, ranks: int, each: int) -> int | None:
    """The highest window of ``ranks`` consecutive ranks, ``each`` cards a rank, the cards make."""
    present = [p for p in range(13) if s.by_pos[p]]
    w = len(s.wilds)
    best = None
    for start in _windows(ranks):
        window = SEQ[start : start + ranks]
        if any(p not in window for p in present):
            continue
        if any(s.count(p) > each for p in window):
            continue
        if sum(each - s.count(p) for p in window) == w:
            best = start
    return best


def readings(cards: Sequence[int], level: int) -> dict[str, Combo]:
    """Every kind these cards can be read as under ``level``, each at its highest key."""
    key = (tuple(sorted(cards)), level)
    memo = _READINGS.get(key)
    if memo is not None:
        return memo
    out = _readings(key[0], level)
    if len(_READINGS) > 100_000:
        _READINGS.clear()
    _READINGS[key] = out
    return out


_READINGS: dict[tuple[tuple[int, ...], int], dict[str, Combo]] = {}


def _readings(cards: tuple[int, ...], level: int) -> dict[str, Combo]:
    n = len(cards)
    out: dict[str, Combo] = {}
    if n == 0:
        return out
    s = split(cards, level)
    w = len(s.wilds)
    jokers = len(s.bj) + len(s.rj)
    present = [p for p in range(13) if s.by_pos[p]]
    if n == 1:
        out["single"] = Combo("single", 1, card_value(cards[0], level))
        return out
    if jokers:
        if n == 2 and (len(s.bj) == 2 or len(s.rj) == 2):
            out["pair"] = Combo("pair", 2, BJ_VALUE if s.bj else RJ_VALUE)
        elif n == 4 and len(s.bj) == 2 and len(s.rj) == 2:
            out["jokerbomb"] = Combo("jokerbomb", 4, 0)
        elif (
            n == 5
            and (len(s.bj), len(s.rj)) in ((2, 0), (0, 2))
            and len(present) == 1
            and s.count(present[0]) + w == 3
        ):
            out["fullhouse"] = Combo("fullhouse", 5, value(present[0], level))
        return out
    if len(present) <= 1:  # one rank (the wilds standing for it, or alone: the level rank)
        pos = present[0] if present else level_pos(level)
        v = value(pos, level)
        if n == 2:
            out["pair"] = Combo("pair", 2, v)
        elif n == 3:
            out["triple"] = Combo("triple", 3, v)
        elif n >= 4:
            out["bomb"] = Combo("bomb", n, v)
    if n == 5:
        best = None
        for x in present:  # the triple's rank; the pair's is another present rank, or the wilds
            if s.count(x) > 3 or 3 - s.count(x) > w:
                continue
            rest = [p for p in present if p != x]
            if len(rest) <= 1 and all(s.count(p) <= 2 for p in rest):
                v = value(x, level)
                best = v if best is None else max(best, v)
        if best is not None:
            out["fullhouse"] = Combo("fullhouse", 5, best)
        start = _best_run(s, 5, 1)
        if start is not None:
            out["straight"] = Combo("straight", 5, start)
            if len({_suit(c) for p in present for c in s.by_pos[p]}) <= 1:
                out["straightflush"] = Combo("straightflush", 5, start)
    elif n == 6:
        start = _best_run(s, 3, 2)
        if start is not None:
            out["tube"] = Combo("tube", 6, start)
        start = _best_run(s, 2, 3)
        if start is not None:
            out["plate"] = Combo("plate", 6, start)
    return out


# --- generation -------------------------------------------------------------------------


def _play(kind: str, length: int, key: int, cards: Sequence[int]) -> Play:
    cs = tuple(sorted(cards))
    return Play(Combo(kind, length, key), tuple(sorted(RANK_OF[c] for c in cs)), cs)


_SPLITS: dict[tuple[tuple[int, ...], int], Split] = {}


def _split_memo(hand: Sequence[int], level: int) -> Split:
    key = (tuple(hand), level)
    s = _SPLITS.get(key)
    if s is None:
        if len(_SPLITS) > 256:
            _SPLITS.clear()
        s = _SPLITS[key] = split(hand, level)
    return s


def _fill(s: Split, pos: int, k: int) -> tuple[int, ...] | None:
    """``k`` cards of ``pos``: naturals first, then wilds; ``None`` when short."""
    nat = s.by_pos[pos][:k]
    need = k - len(nat)
    if need > len(s.wilds):
        return None
    return nat + s.wilds[:need]


def _of_a_kind(s: Split, level: int, k: int) -> Iterator[tuple[int, tuple[int, ...]]]:
    """``(value, cards)`` for every rank that makes ``k`` of a kind, lowest value first."""
    lp = level_pos(level)
    found = []
    for pos in range(13):
        if s.by_pos[pos] or (pos == lp and s.wilds):
            cards = _fill(s, pos, k)
            if cards is not None:
                found.append((value(pos, level), cards))
    found.sort()
    return iter(found)


def gen_n(kind: str, k: int):
    """Generator of singles, pairs, triples (jokers included for singles and pairs)."""

    def generate(hand: Sequence[int], rules: Any, last: Combo | None) -> Iterator[Play]:
        level = level_of(rules)
        s = _split_memo(hand, level)
        low = -1 if last is None else last.key
        for v, cards in _of_a_kind(s, level, k):
            if v > low:
                yield _play(kind, k, v, cards)
        for v, jk in ((BJ_VALUE, s.bj), (RJ_VALUE, s.rj)):
            if len(jk) >= k and k <= 2 and v > low:
                yield _play(kind, k, v, jk[:k])

    return generate


def gen_fullhouse(hand: Sequence[int], rules: Any, last: Combo | None) -> Iterator[Play]:
    """Every triple with every pair of another rank (GD-3.1), wilds only where needed."""
    level = level_of(rules)
    return _best_per_cards(_fullhouses(hand, rules, None), _split_memo(hand, level), level, last)


def _fullhouses(hand: Sequence[int], rules: Any, last: Combo | None) -> Iterator[Play]:
    level = level_of(rules)
    s = _split_memo(hand, level)
    low = -1 if last is None else last.key
    lp = level_pos(level)
    w = len(s.wilds)
    pairs_nat = [p for p in range(13) if s.by_pos[p] or p == lp]
    joker_pairs = [jk[:2] for jk in (s.bj, s.rj) if len(jk) >= 2]
    for v, triple in _of_a_kind(s, level, 3):
        if v <= low:
            continue
        used = sum(1 for c in triple if c in s.wilds)
        left = w - used
        x = lp if v == 13 else v
        for y in pairs_nat:
            if y == x:
                continue
            nat = s.by_pos[y][:2]
            need = 2 - len(nat)
            if need > left:
                continue
            yield _play("fullhouse", 5, v, triple + nat + s.wilds[used : used + need])
        for jp in joker_pairs:
            yield _play("fullhouse", 5, v, triple + jp)


def _best_per_cards(
    plays: Iterator[Play], s: Split, level: int, last: Combo | None
) -> Iterator[Play]:
    """One play per set of cards, keyed as the cards read: with wilds the same cards can
    be read several ways (``x x W y y``: the triple of x or of y; ``5 6 7 8 W``: up to 9),
    and a player means the highest. Then only those above ``last``."""
    best: dict[tuple[int, ...], Play] = {}
    wilds = s.wilds
    for p in plays:
        cards = p.cards
        assert cards is not None
        if wilds and any(c in wilds for c in cards):
            combo = readings(cards, level)[p.combo.kind]
            if combo != p.combo:
                p = p._replace(combo=combo)
        best[cards] = p
    low = -1 if last is None else last.key
    return iter(sorted((p for p in best.values() if p.combo.key > low), key=lambda p: p.combo.key))


def _run_cards(s: Split, window: Sequence[int], each: int) -> tuple[int, ...] | None:
    need = sum(max(0, each - s.count(p)) for p in window)
    if need > len(s.wilds):
        return None
    out: list[int] = []
    for p in window:
        out.extend(s.by_pos[p][:each])
    return tuple(out) + s.wilds[:need]


def gen_run(kind: str, ranks: int, each: int):
    """Generator of straights (5x1), tubes (3x2) and plates (2x3), A low or high (GD-3.2)."""
    length = ranks * each

    def generate(hand: Sequence[int], rules: Any, last: Combo | None) -> Iterator[Play]:
        level = level_of(rules)
        return _best_per_cards(runs(hand, rules, None), _split_memo(hand, level), level, last)

    def runs(hand: Sequence[int], rules: Any, last: Combo | None) -> Iterator[Play]:
        s = _split_memo(hand, level_of(rules))
        low = -1 if last is None else last.key
        for start in _windows(ranks):
            if start <= low:
                continue
            cards = _run_cards(s, SEQ[start : start + ranks], each)
            if cards is None:
                continue
            if each == 1:
                cards = _not_flush(s, SEQ[start : start + ranks], cards)
            yield _play(kind, length, start, cards)

    return generate


def _not_flush(s: Split, window: Sequence[int], cards: tuple[int, ...]) -> tuple[int, ...]:
    """A straight's cards, swapped for another suit where one can make it a plain straight."""
    nat = [c for c in cards if c not in s.wilds]
    if len({_suit(c) for c in nat}) != 1:
        return cards
    suit = _suit(nat[0])
    for p in window:
        other = next((c for c in s.by_pos[p] if _suit(c) != suit), None)
        if other is not None:
            first = s.by_pos[p][0]
            return tuple(other if c == first else c for c in cards)
    return cards


def gen_bomb(hand: Sequence[int], rules: Any, last: Combo | None) -> Iterator[Play]:
    """4 to 10 of a rank (GD-3.3), wilds filling up."""
    level = level_of(rules)
    s = _split_memo(hand, level)
    lp = level_pos(level)
    w = len(s.wilds)
    for pos in range(13):
        nat = s.count(pos)
        if not nat and not (pos == lp and w):
            continue
        for k in range(4, nat + w + 1):
            cards = _fill(s, pos, k)
            if cards is not None:
                yield _play("bomb", k, value(pos, level), cards)


def gen_straightflush(hand: Sequence[int], rules: Any, last: Combo | None) -> Iterator[Play]:
    """5 consecutive ranks of one suit (GD-3.3), wilds filling gaps."""
    level = level_of(rules)
    return _best_per_cards(_straightflushes(hand, rules), _split_memo(hand, level), level, None)


def _straightflushes(hand: Sequence[int], rules: Any) -> Iterator[Play]:
    s = _split_memo(hand, level_of(rules))
    w = len(s.wilds)
    for start in _windows(5):
        window = SEQ[start : start + 5]
        for suit in range(4):
            picked = []
            for p in window:
                c = next((c for c in s.by_pos[p] if _suit(c) == suit), None)
                if c is not None:
                    picked.append(c)
            need = 5 - len(picked)
            if need <= w and picked:
                yield _play("straightflush", 5, start, (*picked, *s.wilds[:need]))


def gen_jokerbomb(hand: Sequence[int], rules: Any, last: Combo | None) -> Iterator[Play]:
    """The four jokers (天王炸)."""
    s = _split_memo(hand, level_of(rules))
    if len(s.bj) == 2 and len(s.rj) == 2:
        yield _play("jokerbomb", 4, 0, s.bj + s.rj)


def _classifier(kind: str):
    def classify(cards: Sequence[int], rules: Any) -> Combo | None:
        return readings(cards, level_of(rules)).get(kind)

    return classify


def _kind(name: str, generate: Any, bomb: bool = False) -> ComboKind:
    return ComboKind(
        name, _classifier(name), generate, bomb=bomb,
        bomb_power=bomb_power if bomb else None, cards=True,
    )


#: Guandan's kinds. The straight flush comes before the straight: five suited
#: cards are led as the bomb (a trick of straights still takes them as a straight).
KINDS: tuple[ComboKind, ...] = (
    _kind("straightflush", gen_straightflush, bomb=True),
    _kind("single", gen_n("single", 1)),
    _kind("pair", gen_n("pair", 2)),
    _kind("triple", gen_n("triple", 3)),
    _kind("fullhouse", gen_fullhouse),
    _kind("straight", gen_run("straight", 5, 1)),
    _kind("tube", gen_run("tube", 3, 2)),
    _kind("plate", gen_run("plate", 2, 3)),
    _kind("bomb", gen_bomb, bomb=True),
    _kind("jokerbomb", gen_jokerbomb, bomb=True),
)


def level_rules(rules: Any, level: int) -> Any:
    """``rules`` with ``level`` in force (cached per level on the base rules)."""
    cache = rules.__dict__.setdefault("_guandan_levels", {})
    derived = cache.get(level)
    if derived is None:
        config = {**rules.config, LEVEL: level}
        derived = cache[level] = dataclasses.replace(rules, in_effect=None, config=config)
    return derived
