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

LEVEL = "guandan.level"  # key in Rules.config of the derived rules of a level
# the round's public extra fields the table shows (docs/plugins.md, levels): the level the
# deal is played at, and each team's level in the order of Rules.teams (ints 2..14, A = 14)
DEAL_LEVEL = "deal_level"
TEAM_LEVELS = "team_levels"
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
    suited: dict[tuple[int, int], int]  # (position, suit) -> a natural card of it

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
    suited = {}
    for p, cs in enumerate(by_pos):
        for c in reversed(cs):
            suited[(p, c % DECK_SIZE & 3)] = c
    return Split(tuple(wilds), tuple(map(tuple, by_pos)), tuple(bj), tuple(rj), suited)


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
    """Every triple with every pair of another rank (GD-3.1), wilds only where needed.

    ``x x W y y`` is also the triple of y over x: such cards are listed once, at the
    higher reading (the one the classifier gives)."""
    level = level_of(rules)
    s = _split_memo(hand, level)
    low = -1 if last is None else last.key
    lp = level_pos(level)
    w = len(s.wilds)
    by_pos = s.by_pos
    pairs_nat = [p for p in range(13) if by_pos[p] or p == lp]
    joker_pairs = [jk[:2] for jk in (s.bj, s.rj) if len(jk) >= 2]
    best: dict[tuple[int, ...], Play] = {}
    for v, triple in _of_a_kind(s, level, 3):
        x = lp if v == 13 else v
        nx = min(3, len(by_pos[x]))
        used = 3 - nx
        left = w - used
        for y in pairs_nat:
            if y == x:
                continue
            nat = by_pos[y][:2]
            need = 2 - len(nat)
            if need > left:
                continue
            key = v
            if used + need and nat and nx <= 2 and 3 - len(nat) <= used + need:
                key = max(v, value(y, level))  # the wilds can make y the triple instead
            if key > low:
                p = _play("fullhouse", 5, key, triple + nat + s.wilds[used : used + need])
                best[p.cards] = p  # type: ignore[index]
        if v > low:
            for jp in joker_pairs:
                p = _play("fullhouse", 5, v, triple + jp)
                best[p.cards] = p  # type: ignore[index]
    return iter(sorted(best.values(), key=_by_key))


def _by_key(p: Play) -> int:
    return p.combo.key


# WINDOW[width][start]: bit mask of the natural positions in a run's window
WINDOW: dict[int, tuple[int, ...]] = {
    width: tuple(sum(1 << p for p in set(SEQ[s : s + width])) for s in _windows(width))
    for width in (2, 3, 5)
}


def _top_window(mask: int, width: int, start: int) -> int:
    """The highest window holding every position of ``mask`` (wilds fill the rest)."""
    windows = WINDOW[width]
    for top in range(len(windows) - 1, start, -1):
        if not mask & ~windows[top]:
            return top
    return start


def _run_cards(s: Split, window: Sequence[int], each: int) -> tuple[tuple[int, ...], int] | None:
    """A run's cards (naturals first, wilds for the gaps) and its naturals' position mask."""
    by_pos = s.by_pos
    out: list[int] = []
    mask = 0
    for p in window:
        nat = by_pos[p][:each]
        if nat:
            out.extend(nat)
            mask |= 1 << p
    need = len(window) * each - len(out)
    if need > len(s.wilds):
        return None
    return tuple(out) + s.wilds[:need], (mask if need else -1)


def gen_run(kind: str, ranks: int, each: int):
    """Generator of straights (5x1), tubes (3x2) and plates (2x3), A low or high (GD-3.2).

    With wilds in it a run is keyed by the highest window its natural cards fit
    (``5 6 7 8 W`` is 5 to 9), as the classifier reads it."""
    length = ranks * each

    def generate(hand: Sequence[int], rules: Any, last: Combo | None) -> Iterator[Play]:
        s = _split_memo(hand, level_of(rules))
        low = -1 if last is None else last.key
        best: dict[tuple[int, ...], Play] = {}
        for start in _windows(ranks):
            window = SEQ[start : start + ranks]
            found = _run_cards(s, window, each)
            if found is None:
                continue
            cards, mask = found
            key = start if mask < 0 else _top_window(mask, ranks, start)
            if key <= low:
                continue
            if each == 1:
                cards = _not_flush(s, window, cards)
            p = _play(kind, length, key, cards)
            best[p.cards] = p  # type: ignore[index]
        return iter(sorted(best.values(), key=_by_key))

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
    """5 consecutive ranks of one suit (GD-3.3), wilds filling gaps, keyed like runs."""
    s = _split_memo(hand, level_of(rules))
    w = len(s.wilds)
    suited = s.suited
    best: dict[tuple[int, ...], Play] = {}
    for start in _windows(5):
        window = SEQ[start : start + 5]
        for suit in range(4):
            picked = []
            mask = 0
            for p in window:
                c = suited.get((p, suit))
                if c is not None:
                    picked.append(c)
                    mask |= 1 << p
            need = 5 - len(picked)
            if need <= w and picked:
                key = _top_window(mask, 5, start) if need else start
                p = _play("straightflush", 5, key, (*picked, *s.wilds[:need]))
                best[p.cards] = p  # type: ignore[index]
    return iter(sorted(best.values(), key=_by_key))


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
