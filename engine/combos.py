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

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import compress
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
#
# Move generation is the hot path. Each base kind has a *fast* generator that
# reads the rank counts as ``bytes`` (one slot per rank) and does its scans
# with C-level ``bytes`` operations (``translate`` into a 0/1 mask, ``find``,
# ``itertools.compress``) instead of a Python loop per rank; its public
# ``generate`` converts the counts once and falls back to the plain loop
# (the reference) for anything that is not 15 small non-negative ints.
# :func:`legal_plays` converts a hand's counts once and calls the fast
# generators of the base kinds directly (looked up by their ``generate``
# function in ``_FAST``); any other kind is called through its ``generate``.

FastGenerator = Callable[[bytes, "Rules", "Combo | None"], Iterable[Play]]
_FAST: dict[Callable[..., object], FastGenerator] = {}

# _AT_LEAST[n] maps a count to 1 when it is at least n, else 0 (a translate table)
_AT_LEAST = [b"\x00" * n + b"\x01" * (256 - n) for n in range(256)]
_EMPTY: tuple[Play, ...] = ()
_MEMO_LIMIT = 4096  # entries per memo; a full memo is simply emptied
_MEMOS: list[dict] = []  # every memo of this module, for clear_memos()


def clear_memos() -> None:
    """Empty the move generators' memos (benchmarks measure cold calls with this)."""
    for memo in _MEMOS:
        memo.clear()


def raw_counts(counts: Counts) -> bytes | None:
    """The counts as ``bytes`` when they are 15 ints in 0..255, else ``None``."""
    if type(counts) is bytes:
        return counts if len(counts) == NUM_RANKS else None
    try:
        raw = bytes(counts)
    except (TypeError, ValueError):
        return None
    return raw if len(raw) == NUM_RANKS and len(counts) == NUM_RANKS else None


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
    at_least = _AT_LEAST[n]

    memos: list[dict[bytes, tuple[Play, ...]]] = [{} for _ in range(top + 1)]
    _MEMOS.extend(memos)

    def fast(raw: bytes, rules: Rules, last: Combo | None) -> Iterable[Play]:
        start = 0 if last is None else last.key + 1
        if not 0 <= start <= top:
            return [table[r] for r in range(start, top + 1) if raw[r] >= n]
        # which ranks start..top hold n cards, as a 0/1 mask: the plays are a
        # function of it, memoised (a few thousand masks occur in practice)
        mask = raw[start : top + 1].translate(at_least)
        memo = memos[start]
        plays = memo.get(mask)
        if plays is None:
            plays = tuple(compress(table[start:], mask))
            if len(memo) >= _MEMO_LIMIT:
                memo.clear()
            memo[mask] = plays
        return plays

    def generate(counts: Counts, rules: Rules, last: Combo | None) -> Iterator[Play]:
        raw = raw_counts(counts)
        if raw is not None:
            return iter(fast(raw, rules, last))
        start = 0 if last is None else last.key + 1
        return iter([table[r] for r in range(start, top + 1) if counts[r] >= n])

    _FAST[generate] = fast
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
_NATURALS = range(TWO + 1)
_ALL_RANKS = range(NUM_RANKS)


def _fullhouse_fast(raw: bytes, rules: Rules, last: Combo | None) -> Iterable[Play]:
    start = 0 if last is None else last.key + 1
    if start < 0:
        return _fullhouse_slow(raw, start)
    threes = raw[start : TWO + 1].translate(_AT_LEAST[3])
    if 1 not in threes:
        return _EMPTY
    triples = list(compress(_NATURALS[start:], threes))
    pairs = list(compress(_ALL_RANKS, raw.translate(_AT_LEAST[2])))
    return [_FULLHOUSES[t][p] for t in triples for p in pairs if p != t]


def _fullhouse_slow(counts: Counts, start: int) -> list[Play]:
    triples = [t for t in range(start, TWO + 1) if counts[t] >= 3]
    if not triples:
        return []
    pairs = [p for p in range(NUM_RANKS) if counts[p] >= 2]
    return [_FULLHOUSES[t][p] for t in triples for p in pairs if p != t]


def _fullhouse_g(counts: Counts, rules: Rules, last: Combo | None) -> Iterator[Play]:
    raw = raw_counts(counts)
    if raw is not None:
        return iter(_fullhouse_fast(raw, rules, last))
    return iter(_fullhouse_slow(counts, 0 if last is None else last.key + 1))


_FAST[_fullhouse_g] = _fullhouse_fast


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


# (kind, width, min_len, lo, hi) -> every sub-run of lo..hi with at least min_len ranks
_SUB_RUNS: dict[tuple[str, int, int, int, int], tuple[Play, ...]] = {}


def _sub_runs(kind: str, width: int, min_len: int, lo: int, hi: int) -> tuple[Play, ...]:
    key = (kind, width, min_len, lo, hi)
    plays = _SUB_RUNS.get(key)
    if plays is None:
        plays = _SUB_RUNS[key] = tuple(
            run_play(kind, width, a, b)
            for a in range(lo, hi - min_len + 2)
            for b in range(a + min_len - 1, hi + 1)
        )
    return plays


def run_generate(
    counts: Counts, width: int, min_len: int, top: int, kind: str, last: Combo | None
) -> Iterator[Play]:
    """Every run of ``width`` cards per rank (see :func:`run_classify`).

    With ``last`` only runs of the same length and a higher top.
    """
    raw = raw_counts(counts)
    if raw is not None:
        fast = _run_fast(raw, width, min_len, top, kind, last)
        if fast is not None:
            return iter(fast)
    return iter(_run_slow(counts, width, min_len, top, kind, last))


def _run_fast(
    raw: bytes, width: int, min_len: int, top: int, kind: str, last: Combo | None
) -> list[Play] | None:
    """:func:`run_generate` on bytes counts; ``None`` for parameters it leaves to the loop."""
    if not (0 <= width <= 255 and 0 <= top < NUM_RANKS):
        return None
    mask = raw[: top + 1].translate(_AT_LEAST[width])  # 1 where a rank holds width cards
    out: list[Play] = []
    if last is not None:
        n = last.length // width
        if n < 1:
            return None
        # every window of n ranks, all held, whose top is above last.key
        ones = b"\x01" * n
        i = mask.find(ones, max(0, last.key + 2 - n))
        while i >= 0:
            out.append(run_play(kind, width, i, i + n - 1))
            i = mask.find(ones, i + 1)
        return out
    if min_len < 1:
        return None
    # every maximal run of at least min_len held ranks (found as its first
    # window of min_len ones), then all its sub-runs of at least min_len ranks
    ones = b"\x01" * min_len
    lo = mask.find(ones)
    while lo >= 0:
        hi = mask.find(0, lo + min_len)  # just past the run
        if hi < 0:
            hi = len(mask)
        out.extend(_sub_runs(kind, width, min_len, lo, hi - 1))
        lo = mask.find(ones, hi)
    return out


def _run_slow(
    counts: Counts, width: int, min_len: int, top: int, kind: str, last: Combo | None
) -> list[Play]:
    out: list[Play] = []
    if last is not None:
        n = last.length // width
        streak = 0
        for r in range(top + 1):
            streak = streak + 1 if counts[r] >= width else 0
            if streak >= n and r > last.key:
                out.append(run_play(kind, width, r - n + 1, r))
        return out
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
    return out


def _straight_c(counts: Counts, rules: Rules) -> Combo | None:
    found = run_classify(counts, 1, rules.min_straight, rules.straight_top)
    return None if found is None else Combo("straight", found[0], found[1])


def _straight_g(counts: Counts, rules: Rules, last: Combo | None) -> Iterator[Play]:
    return run_generate(counts, 1, rules.min_straight, rules.straight_top, "straight", last)


def _straight_fast(raw: bytes, rules: Rules, last: Combo | None) -> Iterable[Play]:
    out = _run_fast(raw, 1, rules.min_straight, rules.straight_top, "straight", last)
    if out is None:
        return _run_slow(raw, 1, rules.min_straight, rules.straight_top, "straight", last)
    return out


_FAST[_straight_g] = _straight_fast


def _bomb_c(counts: Counts, rules: Rules) -> Combo | None:
    only = _only_rank(counts)
    if only is None or only[0] > TWO or only[1] < rules.min_bomb:
        return None
    return Combo("bomb", only[1], only[0])


_BOMBS = [[Play(Combo("bomb", n, r), (r,) * n) for n in range(9)] for r in range(TWO + 1)]


def _bomb_slow(counts: Counts, low: int) -> list[Play]:
    naturals = counts[: TWO + 1]
    if max(naturals) < low:
        return []
    return [_BOMBS[r][n] for r, c in enumerate(naturals) if c >= low for n in range(low, c + 1)]


def _bomb_fast(raw: bytes, rules: Rules, last: Combo | None) -> Iterable[Play]:
    low = rules.min_bomb
    if 1 <= low <= 255 and 1 not in raw[: TWO + 1].translate(_AT_LEAST[low]):
        return _EMPTY  # the common case: no natural rank with min_bomb cards
    return _bomb_slow(raw, low)


def _bomb_g(counts: Counts, rules: Rules, last: Combo | None) -> Iterator[Play]:
    raw = raw_counts(counts)
    if raw is not None:
        return iter(_bomb_fast(raw, rules, last))
    return iter(_bomb_slow(counts, rules.min_bomb))


_FAST[_bomb_g] = _bomb_fast


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


_JOKERBOMBS: dict[int, tuple[Play]] = {}


def _jokerbomb_fast(counts: Counts, rules: Rules, last: Combo | None) -> Iterable[Play]:
    d = rules.decks
    if counts[BJ] >= d and counts[RJ] >= d:
        plays = _JOKERBOMBS.get(d)
        if plays is None:
            play = Play(Combo("jokerbomb", 2 * d, RJ), (BJ,) * d + (RJ,) * d)
            plays = _JOKERBOMBS[d] = (play,)
        return plays
    return _EMPTY


def _jokerbomb_g(counts: Counts, rules: Rules, last: Combo | None) -> Iterator[Play]:
    return iter(_jokerbomb_fast(counts, rules, last))


_FAST[_jokerbomb_g] = _jokerbomb_fast


def _zsy_bombs_fast(raw: bytes, rules: Rules, last: Combo | None) -> Iterable[Play]:
    """``_jokerbomb_fast`` then ``_bomb_fast`` in one call (the base game's bomb kinds)."""
    low = rules.min_bomb
    jokers = _jokerbomb_fast(raw, rules, None)
    if 1 <= low <= 255 and 1 not in raw[: TWO + 1].translate(_AT_LEAST[low]):
        return jokers
    return [*jokers, *_bomb_slow(raw, low)]


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
    p_kind, p_length, p_key = play  # (hot: tuple unpacking beats three attribute reads)
    l_kind, l_length, l_key = last
    pk = kinds.get(p_kind)
    lk = kinds.get(l_kind)
    if pk is None or lk is None:
        return False
    if pk.bomb:
        if not lk.bomb:
            return True
        assert pk.bomb_power is not None and lk.bomb_power is not None
        return pk.bomb_power(play) > lk.bomb_power(last)
    if lk.bomb:
        return False
    return p_kind == l_kind and p_length == l_length and p_key > l_key


# A ruleset's generation plan, built once and kept on the Rules object: for
# each kind (in generation order, the bombs, and by name) the kind, its fast
# generator or None, and whether it needs the actual cards.
PlanEntry = tuple[ComboKind, "FastGenerator | None", bool]
Plan = tuple[
    tuple[PlanEntry, ...], tuple[PlanEntry, ...], dict[str, PlanEntry], "FastGenerator | None"
]


def _plan(rules: Rules) -> Plan:
    fields = getattr(rules, "__dict__", None)
    plan = None if fields is None else fields.get("_generation_plan")
    if plan is None:

        def entry(kind: ComboKind) -> PlanEntry:
            return (kind, None if kind.cards else _FAST.get(kind.generate), kind.cards)

        bombs = tuple(entry(k) for k in rules.bomb_kinds)
        # the base game's bombs in one call (what follows any non-bomb play)
        base = tuple(e[1] for e in bombs) == (_jokerbomb_fast, _bomb_fast)
        plan = (
            tuple(entry(k) for k in rules.gen_order),
            bombs,
            {name: entry(k) for name, k in rules.kind_by_name.items()},
            _zsy_bombs_fast if base else None,
        )
        if fields is not None:
            fields["_generation_plan"] = plan
    return plan


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
    return legal_plays_raw(rules, counts, raw_counts(counts), last, hand)


def legal_plays_raw(
    rules: Rules,
    counts: Counts,
    raw: bytes | None,
    last: Combo | None = None,
    hand: Sequence[int] | None = None,
) -> list[Play]:
    """:func:`legal_plays` given also ``raw``: the counts as bytes (or ``None``), for callers
    that keep them (the round memoises them per hand)."""
    if rules.move_generator is not None and not rules.card_kinds:
        return rules.move_generator(rules, counts, last)
    # The base kinds' fast generators read the counts as bytes, converted once;
    # any other kind gets the counts through its ``generate`` (and the bytes
    # are taken again after it, in case it changed them).
    order, bomb_kinds, by_name, all_bombs = _plan(rules)
    out: list[Play] = []
    if last is None or rules.beats_override is not None:
        for kind, fast, needs_cards in order:
            if needs_cards:
                if hand is not None:
                    out.extend(kind.generate(hand, rules, None))
            elif fast is not None and raw is not None:
                out.extend(fast(raw, rules, None))
            else:
                out.extend(kind.generate(counts, rules, None))
                raw = raw_counts(counts) if raw is not None else None
        if last is None:
            return out
        return [p for p in out if beats(rules, p.combo, last)]
    found = by_name.get(last[0])
    if found is None:
        return out
    lk, fast, needs_cards = found
    if not lk.bomb:
        if needs_cards:
            if hand is not None:
                out.extend(lk.generate(hand, rules, last))
        elif fast is not None and raw is not None:
            out.extend(fast(raw, rules, last))
        else:
            out.extend(lk.generate(counts, rules, last))
            raw = raw_counts(counts) if raw is not None else None
        if all_bombs is not None and raw is not None:  # ZSY-4.2 any bomb beats a non-bomb
            out.extend(all_bombs(raw, rules, None))
            return out
        for kind, fast, bomb_cards in bomb_kinds:
            if bomb_cards:  # a bomb that needs suits (Guandan's straight flush)
                if hand is not None:
                    out.extend(kind.generate(hand, rules, None))
            elif fast is not None and raw is not None:
                out.extend(fast(raw, rules, None))
            else:
                out.extend(kind.generate(counts, rules, None))
                raw = raw_counts(counts) if raw is not None else None
        return out
    for kind, _, bomb_cards in bomb_kinds:
        if bomb_cards and hand is None:
            continue
        for play in kind.generate(hand if bomb_cards else counts, rules, None):
            if beats(rules, play.combo, last):
                out.append(play)
    return out
