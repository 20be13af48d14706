"""Dou Dizhu (斗地主, "fight the landlord"): the whole of DDZ-1 to DDZ-6 as a game plugin.

Three players (or four with two decks, DDZ-6.3), 17 cards each and a kitty of
3 (25 and 8 with four). A seed-chosen player bids first; bids of 1-3 go
round until someone bids 3 or everyone else passes in succession after a
bid; if nobody bids the hand is void and redealt (DDZ-2.3: the match asks for
the next seed and counts nothing). The landlord takes the kitty (shown first
with ``show_kitty``) and plays alone against the farmers; with ``doubling``
each farmer may double and then the landlord redouble (DDZ-6.2). The hand
ends when the first player is out (DDZ-4.5). The stake is the bid, doubled
per bomb and rocket and for a spring (DDZ-5.1).

Where seed 002 is silent we follow rlcard's Dou Dizhu judger (the
established reference engine); docs/plugins.md lists each choice:

* airplane single wings may repeat a rank (333444+55), but never hold all
  four of a rank, a triple adjacent to the airplane (that is a longer
  airplane) or both jokers; pair wings are pairs of different ranks;
* four+two takes two singles of different ranks or two pairs of different
  ranks (RULES.md DDZ-3), never both jokers;
* bidding continues round the table (a player who passed may bid later)
  until a bid of 3, or all other players pass in succession after a bid;
* doubling (DDZ-6.2) follows the tournament rule: a farmer's double applies
  to the stake between that farmer and the landlord; the landlord may
  redouble only when a farmer doubled, and it doubles those stakes again;
* four players: no triple+single, no single wings, no four+two (the seed's
  "single extra cards do not exist"); bombs are 4-8 of a rank, more cards
  beat fewer; the rocket is all four jokers; only bombs of 6+ cards and the
  rocket double the stake.

All combinations work on rank counts; one move generator produces every play
from rank bit masks with cached plays (see docs/performance.md).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from itertools import combinations
from typing import Any

from zsy_lan.engine.cards import BJ, NUM_RANKS, RJ, TWO, full_deck, sort_cards
from zsy_lan.engine.combos import Combo, ComboKind, Play
from zsy_lan.engine.errors import RuleError
from zsy_lan.engine.hookspecs import DealLayout, Deck, FirstLead, Option, TableConfig, hookimpl
from zsy_lan.engine.phases import Phase
from zsy_lan.engine.rules import Rules
from zsy_lan.engine.shuffle import choose
from zsy_lan.engine.state import Action, RoundState, evolve, with_extra

name = "doudizhu"
version = "1.1.0"  # 1.1: the landlord's choice is "redouble"
description = "Dou Dizhu (斗地主): bidding, kitty, landlord against farmers, DDZ-1..6"
game = True

BID = "bid"
DOUBLE = "double"
REDOUBLE = "redouble"
ACE = TWO - 1  # chains, pair chains and airplanes stop at the ace (DDZ-3)


# --- combinations (DDZ-3) ------------------------------------------------------------


def _shape(counts: Sequence[int]) -> tuple[int, list[tuple[int, int]]]:
    total = 0
    nz = []
    for r in range(NUM_RANKS):
        c = counts[r]
        if c:
            nz.append((r, c))
            total += c
    return total, nz


def _run_top(nz: list[tuple[int, int]], width: int, min_len: int) -> int | None:
    """Top rank when ``nz`` is a run of ``width`` cards per rank, ``min_len``+ ranks, <= A."""
    if len(nz) < min_len:
        return None
    prev = nz[0][0] - 1
    for r, c in nz:
        if c != width or r != prev + 1:
            return None
        prev = r
    return prev if prev <= ACE else None


class _Variant:
    """The differences of the 4-player game (DDZ-6.3), fixed per table."""

    def __init__(self, four: bool) -> None:
        self.four = four
        self.jokers = 2 if four else 1
        self.max_bomb = 8 if four else 4


def _kinds(v: _Variant) -> tuple[ComboKind, ...]:
    four = v.four

    def single(counts: Sequence[int], rules: Rules) -> Combo | None:
        total, nz = _shape(counts)
        return Combo("single", 1, nz[0][0]) if total == 1 else None

    def pair(counts: Sequence[int], rules: Rules) -> Combo | None:
        total, nz = _shape(counts)
        return Combo("pair", 2, nz[0][0]) if len(nz) == 1 and total == 2 else None

    def triple(counts: Sequence[int], rules: Rules) -> Combo | None:
        total, nz = _shape(counts)
        ok = len(nz) == 1 and total == 3 and nz[0][0] <= TWO
        return Combo("triple", 3, nz[0][0]) if ok else None

    def bomb(counts: Sequence[int], rules: Rules) -> Combo | None:
        total, nz = _shape(counts)
        if len(nz) == 1 and 4 <= total <= v.max_bomb and nz[0][0] <= TWO:
            return Combo("bomb", total, nz[0][0])
        return None

    def rocket(counts: Sequence[int], rules: Rules) -> Combo | None:
        total, nz = _shape(counts)
        j = v.jokers
        if nz == [(BJ, j), (RJ, j)]:
            return Combo("rocket", 2 * j, RJ)
        return None

    def triple1(counts: Sequence[int], rules: Rules) -> Combo | None:
        total, nz = _shape(counts)
        if total != 4 or len(nz) != 2:
            return None
        (a, ca), (b, cb) = nz
        if ca == 3 and a <= TWO:
            return Combo("triple1", 4, a)
        if cb == 3 and b <= TWO:
            return Combo("triple1", 4, b)
        return None

    def triple2(counts: Sequence[int], rules: Rules) -> Combo | None:
        total, nz = _shape(counts)
        if total != 5 or len(nz) != 2:
            return None
        (a, ca), (b, cb) = nz
        if ca == 3 and cb == 2 and a <= TWO:
            return Combo("triple2", 5, a)
        if cb == 3 and ca == 2 and b <= TWO:
            return Combo("triple2", 5, b)
        return None

    def chain(counts: Sequence[int], rules: Rules) -> Combo | None:
        total, nz = _shape(counts)
        top = _run_top(nz, 1, 5)
        return None if top is None else Combo("chain", total, top)

    def pairchain(counts: Sequence[int], rules: Rules) -> Combo | None:
        total, nz = _shape(counts)
        top = _run_top(nz, 2, 3)
        return None if top is None else Combo("pairchain", total, top)

    def plane(counts: Sequence[int], rules: Rules) -> Combo | None:
        total, nz = _shape(counts)
        top = _run_top(nz, 3, 2)
        return None if top is None else Combo("plane", total, top)

    def plane1(counts: Sequence[int], rules: Rules) -> Combo | None:
        total = sum(counts)
        if total % 4 or total < 8:
            return None
        top = _plane_window(counts, total // 4, single_wings=True)
        return None if top is None else Combo("plane1", total, top)

    def plane2(counts: Sequence[int], rules: Rules) -> Combo | None:
        total = sum(counts)
        if total % 5 or total < 10:
            return None
        top = _plane_window(counts, total // 5, single_wings=False)
        return None if top is None else Combo("plane2", total, top)

    def four2(counts: Sequence[int], rules: Rules) -> Combo | None:
        total, nz = _shape(counts)
        if total != 6 or len(nz) != 3:
            return None
        fours = [r for r, c in nz if c == 4 and r <= TWO]
        rest = [r for r, c in nz if c == 1]
        if len(fours) == 1 and len(rest) == 2 and rest != [BJ, RJ]:
            return Combo("four2", 6, fours[0])
        return None

    def four22(counts: Sequence[int], rules: Rules) -> Combo | None:
        total, nz = _shape(counts)
        if total != 8 or len(nz) != 3:
            return None
        fours = [r for r, c in nz if c == 4 and r <= TWO]
        rest = [r for r, c in nz if c == 2]
        if len(fours) == 1 and len(rest) == 2:
            return Combo("four22", 8, fours[0])
        return None

    gen = _generator(v)

    def kind(name: str, classify: Any, is_bomb: bool = False) -> ComboKind:
        def generate(counts: Sequence[int], rules: Rules, last: Combo | None) -> Iterator[Play]:
            if last is None:
                return iter([p for p in gen(rules, counts, None) if p.combo.kind == name])
            return iter([p for p in gen(rules, counts, last) if p.combo.kind == name])

        return ComboKind(name, classify, generate, bomb=is_bomb,
                         bomb_power=_bomb_power if is_bomb else None)

    kinds = [
        kind("rocket", rocket, True),
        kind("bomb", bomb, True),
        kind("single", single),
        kind("pair", pair),
        kind("triple", triple),
    ]
    if not four:
        kinds.append(kind("triple1", triple1))
    kinds += [kind("triple2", triple2), kind("chain", chain), kind("pairchain", pairchain),
              kind("plane", plane)]
    if not four:
        kinds.append(kind("plane1", plane1))
    kinds.append(kind("plane2", plane2))
    if not four:
        kinds += [kind("four2", four2), kind("four22", four22)]
    return tuple(kinds)


def _bomb_power(combo: Combo) -> tuple[int, ...]:
    """DDZ-4.3: the rocket beats all; bombs: more cards, then rank (DDZ-6.3)."""
    if combo.kind == "rocket":
        return (1, 0, 0)
    return (0, combo.length, combo.key)


def _wing_caps(
    counts: Sequence[int], lo: int, hi: int, single_wings: bool
) -> list[tuple[int, int]]:
    """``(rank, how many wing cards it may give)`` outside the airplane ``lo..hi``.

    rlcard's rules: single wings never take all four of a rank, nor a triple
    next to the airplane (a longer airplane), except of 2s.
    """
    caps = []
    for r in range(NUM_RANKS):
        if lo <= r <= hi:
            continue
        c = counts[r]
        if not c:
            continue
        if single_wings:
            cap = min(c, 3)
            if cap == 3 and (r == lo - 1 or r == hi + 1) and r != TWO:
                cap = 2
            caps.append((r, cap))
        elif c >= 2:
            caps.append((r, 1))  # one pair per rank
    return caps


def _plane_window(counts: Sequence[int], k: int, single_wings: bool) -> int | None:
    """Top of the airplane of ``k`` triples these counts hold with valid wings, else None."""
    for hi in range(ACE, k - 2, -1):
        lo = hi - k + 1
        if any(counts[r] != 3 for r in range(lo, hi + 1)):
            continue
        if single_wings:
            wings = {r: c for r, c in enumerate(counts) if c and not lo <= r <= hi}
            if sum(wings.values()) != k or (BJ in wings and RJ in wings):
                continue
            bad = any(
                c >= 4 or (c == 3 and (r == lo - 1 or r == hi + 1) and r != TWO)
                for r, c in wings.items()
            )
            if bad:
                continue
        else:
            rest = [c for r, c in enumerate(counts) if c and not lo <= r <= hi]
            if len(rest) != k or any(c != 2 for c in rest):
                continue
        return hi
    return None


# --- move generation ----------------------------------------------------------------
#
# Plays are generated from bit masks of the ranks held at least 1, 2, 3, 4 times,
# with every Play object cached: leading with a typical 20-card hand costs a mask
# pass plus list concatenations. Airplane wings are enumerated only for the
# (rare) hands that hold an airplane, and only for the windows that can win.


def _bits(mask: int) -> tuple[int, ...]:
    out = _BITS.get(mask)
    if out is None:
        out = _BITS[mask] = tuple(r for r in range(NUM_RANKS) if mask >> r & 1)
    return out


_BITS: dict[int, tuple[int, ...]] = {}
_PLAY: dict[tuple[str, int, int, tuple[int, ...]], Play] = {}


def _play(kind: str, key: int, ranks: tuple[int, ...]) -> Play:
    k = (kind, key, len(ranks), ranks)
    p = _PLAY.get(k)
    if p is None:
        p = _PLAY[k] = Play(Combo(kind, len(ranks), key), ranks)
    return p


_SINGLE = [_play("single", r, (r,)) for r in range(NUM_RANKS)]
_PAIR = [_play("pair", r, (r, r)) for r in range(NUM_RANKS)]
_TRIPLE = [_play("triple", r, (r, r, r)) for r in range(TWO + 1)]
_BOMB = [[_play("bomb", r, (r,) * n) if n >= 4 else None for n in range(9)] for r in range(TWO + 1)]
_T1 = [[_play("triple1", t, tuple(sorted((t, t, t, s)))) for s in range(NUM_RANKS)]
       for t in range(TWO + 1)]
_T2 = [[_play("triple2", t, tuple(sorted((t, t, t, s, s)))) for s in range(NUM_RANKS)]
       for t in range(TWO + 1)]


def _run(kind: str, width: int, lo: int, hi: int) -> Play:
    return _play(kind, hi, tuple(r for r in range(lo, hi + 1) for _ in range(width)))


_RUNS: dict[tuple[int, int], tuple[Play, ...]] = {}
_RUN_KIND = {1: ("chain", 5), 2: ("pairchain", 3), 3: ("plane", 2)}


def _runs(mask: int, width: int) -> tuple[Play, ...]:
    """Every chain of ``width`` cards per rank inside the ranks of ``mask`` (3..A)."""
    mask &= (1 << (ACE + 1)) - 1
    key = (mask, width)
    out = _RUNS.get(key)
    if out is not None:
        return out
    kind, min_len = _RUN_KIND[width]
    plays = []
    r = 0
    while r <= ACE:
        if not mask >> r & 1:
            r += 1
            continue
        hi = r
        while hi + 1 <= ACE and mask >> (hi + 1) & 1:
            hi += 1
        for a in range(r, hi - min_len + 2):
            for b in range(a + min_len - 1, hi + 1):
                plays.append(_run(kind, width, a, b))
        r = hi + 1
    plays.sort(key=lambda p: (p.combo.length, p.combo.key))
    out = _RUNS[key] = tuple(plays)
    return out


def _multisets(caps: list[tuple[int, int]], k: int, start: int = 0) -> Iterator[tuple[int, ...]]:
    """Multisets of ``k`` ranks from ``caps`` (each rank at most its cap), ranks ascending."""
    if k == 0:
        yield ()
        return
    for i in range(start, len(caps)):
        r, cap = caps[i]
        for take in range(min(cap, k), 0, -1):
            for rest in _multisets(caps, k - take, i + 1):
                yield (r,) * take + rest


def _planes_with_wings(
    counts: Sequence[int], m3: int, single_wings: bool, k_only: int = 0, above: int = -1
) -> list[Play]:
    """Airplanes with wings: ``k_only`` triples (0: any) and a top above ``above``."""
    out: list[Play] = []
    kind = "plane1" if single_wings else "plane2"
    for base in _runs(m3, 3):
        k = base.combo.length // 3
        hi = base.combo.key
        if k_only and k != k_only or hi <= above:
            continue
        lo = hi - k + 1
        caps = _wing_caps(counts, lo, hi, single_wings)
        if single_wings:
            for wings in _multisets(caps, k):
                if BJ in wings and RJ in wings:
                    continue
                out.append(_play(kind, hi, tuple(sorted(base.ranks + wings))))
        else:
            for ranks in combinations([r for r, _ in caps], k):
                wings = tuple(r for r in ranks for _ in (0, 1))
                out.append(_play(kind, hi, tuple(sorted(base.ranks + wings))))
    return out


def _generator(v: _Variant) -> Any:
    four = v.four
    jokers = v.jokers

    def bombs(counts: Sequence[int], m4: int, last: Combo | None) -> list[Play]:
        out = []
        if m4:
            power = None if last is None or last.kind != "bomb" else (last.length, last.key)
            for r in _bits(m4 & 0x1FFF):
                for n in range(4, min(counts[r], v.max_bomb) + 1):
                    if power is None or (n, r) > power:
                        out.append(_BOMB[r][n])
        rocket_ok = last is None or last.kind != "rocket"
        if counts[BJ] >= jokers and counts[RJ] >= jokers and rocket_ok:
            out.append(_ROCKET[four])
        return out

    def generate(rules: Rules, counts: Sequence[int], last: Combo | None) -> list[Play]:
        key_counts = tuple(counts)
        masks = _MASKS.get(key_counts)
        if masks is None:
            masks = _masks(key_counts)
        m1, m2, m3, m4 = masks
        if last is None:
            out = [_SINGLE[r] for r in _bits(m1)]
            pr = _bits(m2)
            out += [_PAIR[r] for r in pr]
            tr = _bits(m3 & 0x1FFF)
            if tr:
                out += [_TRIPLE[t] for t in tr]
                for t in tr:
                    if not four:
                        row = _T1[t]
                        out += [row[s] for s in _bits(m1 & ~(1 << t))]
                    row = _T2[t]
                    out += [row[s] for s in pr if s != t]
            out += _runs(m1, 1)
            if m2:
                out += _runs(m2, 2)
            if m3:
                planes = _runs(m3, 3)
                if planes:
                    out += planes
                    if not four:
                        out += _planes_with_wings(counts, m3, True)
                    out += _planes_with_wings(counts, m3, False)
            if m4 and not four:
                out += _fours(counts, m1, m2, m4, -1)
            out += bombs(counts, m4, None)
            return out
        kind = last.kind
        key = last.key
        if kind == "rocket":
            return []
        if kind == "bomb":
            return bombs(counts, m4, last)
        if kind == "single":
            out = [_SINGLE[r] for r in _bits(m1) if r > key]
        elif kind == "pair":
            out = [_PAIR[r] for r in _bits(m2) if r > key]
        elif kind == "triple":
            out = [_TRIPLE[t] for t in _bits(m3 & 0x1FFF) if t > key]
        elif kind == "triple1":
            out = []
            for t in _bits(m3 & 0x1FFF):
                if t > key:
                    row = _T1[t]
                    out += [row[s] for s in _bits(m1 & ~(1 << t))]
        elif kind == "triple2":
            out = []
            for t in _bits(m3 & 0x1FFF):
                if t > key:
                    row = _T2[t]
                    out += [row[s] for s in _bits(m2) if s != t]
        elif kind in ("chain", "pairchain", "plane"):
            width = {"chain": 1, "pairchain": 2, "plane": 3}[kind]
            mask = (m1, m2, m3)[width - 1]
            n = last.length // width
            full = (1 << n) - 1
            out = []
            for hi in range(max(key + 1, n - 1), ACE + 1):
                lo = hi - n + 1
                if (mask >> lo) & full == full:
                    out.append(_run(kind, width, lo, hi))
        elif kind == "plane1":
            out = _planes_with_wings(counts, m3, True, last.length // 4, key)
        elif kind == "plane2":
            out = _planes_with_wings(counts, m3, False, last.length // 5, key)
        elif kind in ("four2", "four22"):
            out = [p for p in _fours(counts, m1, m2, m4, key) if p.combo.kind == kind]
        else:
            out = []
        out += bombs(counts, m4, None)
        return out

    return generate


_MASKS: dict[tuple[int, ...], tuple[int, int, int, int]] = {}


def _masks(counts: tuple[int, ...]) -> tuple[int, int, int, int]:
    """Bit masks of the ranks held at least 1, 2, 3 and 4 times (cached per hand shape)."""
    m1 = m2 = m3 = m4 = 0
    for r in range(NUM_RANKS):
        c = counts[r]
        if c:
            bit = 1 << r
            m1 |= bit
            if c >= 2:
                m2 |= bit
                if c >= 3:
                    m3 |= bit
                    if c >= 4:
                        m4 |= bit
    if len(_MASKS) > 200_000:
        _MASKS.clear()
    out = _MASKS[counts] = (m1, m2, m3, m4)
    return out


def _fours(counts: Sequence[int], m1: int, m2: int, m4: int, above: int) -> list[Play]:
    """Four+two (DDZ-3): two singles of different ranks (not both jokers), or two pairs."""
    out = []
    for f in _bits(m4 & 0x1FFF):
        if f <= above:
            continue
        singles = [r for r in _bits(m1) if r != f]
        for a, b in combinations(singles, 2):
            if a == BJ and b == RJ:
                continue
            out.append(_play("four2", f, tuple(sorted((f, f, f, f, a, b)))))
        pairs = [r for r in _bits(m2) if r != f]
        for a, b in combinations(pairs, 2):
            out.append(_play("four22", f, tuple(sorted((f, f, f, f, a, a, b, b)))))
    return out


_ROCKET = {False: _play("rocket", RJ, (BJ, RJ)), True: _play("rocket", RJ, (BJ, BJ, RJ, RJ))}


# --- bidding, kitty and doubling (DDZ-2, DDZ-6.2) -----------------------------------


def landlord_of(state: RoundState) -> int:
    """The landlord's seat, or -1 while bidding."""
    return int(state.get("landlord", -1))


def farmers_of(state: RoundState) -> tuple[int, ...]:
    """The farmers' seats in play order after the landlord (empty while bidding)."""
    lord = landlord_of(state)
    if lord < 0:
        return ()
    n = state.players
    return tuple((lord + i) % n for i in range(1, n))


def sides(state: RoundState) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """``((landlord,), farmers)``: this hand's two sides (DDZ-4.5)."""
    return ((landlord_of(state),), farmers_of(state))


class Bidding:
    """DDZ-2: bid 1-3 higher than the highest so far, or pass (``bid`` with value 0)."""

    def legal(self, rules: Rules, state: RoundState, seat: int) -> list[Action]:
        """Higher bids first (lowest first), then the pass."""
        if seat != state.turn:
            return []
        high = int(state.get("bid", 0))
        return [Action(BID, seat, value=v) for v in range(high + 1, 4)] + [Action(BID, seat)]

    def apply(self, rules: Rules, state: RoundState, action: Action) -> RoundState:
        """Record the bid; end the bidding (DDZ-2.2), or void the hand (DDZ-2.3)."""
        seat = action.seat
        if seat != state.turn:
            raise RuleError("DDZ-2.1", f"it is seat {state.turn}'s turn to bid, not seat {seat}'s")
        high = int(state.get("bid", 0))
        if action.kind != BID:
            choices = " or ".join(f"'bid {v}'" for v in range(high + 1, 4))
            raise RuleError(
                "DDZ-2.1", f"this is the bidding, not the play: type {choices} or 'pass'"
            )
        value = action.value
        if value != 0 and not high < value <= 3:
            raise RuleError("DDZ-2.1", f"bid {high + 1}-3 or pass, not {value}")
        bids = tuple(state.get("bids", ())) + ((seat, value),)
        n = state.players
        if value:
            state = with_extra(state, bids=bids, bid=value, bidder=seat)
            high = value
        else:
            state = with_extra(state, bids=bids)
        if value == 3:
            return _take_kitty(rules, state, seat)
        tail = bids[-(n - 1):]
        if high and len(tail) == n - 1 and all(v == 0 for _, v in tail):
            return _take_kitty(rules, state, int(state.get("bidder")))
        if not high and len(bids) == n:
            # DDZ-2.3: everybody passed: the hand is void and redealt with a new seed
            return evolve(with_extra(state, void=True), phase=Phase.DONE, turn=-1)
        return evolve(state, turn=(seat + 1) % n)


def _take_kitty(rules: Rules, state: RoundState, lord: int) -> RoundState:
    """DDZ-2.4: the landlord takes the kitty (shown to all with ``show_kitty``)."""
    kitty = state.get("secret_kitty")
    hands = list(state.hands)
    if hands[lord] is not None:
        hands[lord] = sort_cards(hands[lord] + tuple(kitty)) if kitty is not None else None
    counts = list(state.counts)
    counts[lord] += rules.kitty_size
    extra: dict[str, Any] = {"landlord": lord, "bombs": 0}
    if rules.kitty_shown and kitty is not None:
        extra["kitty"] = tuple(kitty)
    state = with_extra(state, **extra)
    state = evolve(state, hands=tuple(hands), counts=tuple(counts))
    if rules.phase_handlers and Phase.DOUBLING in rules.phase_handlers:
        doubles = tuple(-1 for _ in range(state.players))
        first = farmers_of(state)[0]
        return evolve(with_extra(state, doubles=doubles), phase=Phase.DOUBLING, turn=first)
    return _start_play(state)


def _start_play(state: RoundState) -> RoundState:
    lord = landlord_of(state)
    return evolve(state, phase=Phase.PLAY, leader=lord, turn=lord)  # DDZ-4.1


class Doubling:
    """DDZ-6.2: each farmer may double (value 1) or not (0); then the landlord may redouble.

    The landlord's choice is its own action kind, ``redouble``, so that what a
    seat did reads right anywhere (a record, a replay) without the state. A
    landlord's ``double`` (records made before ``redouble`` existed) is still
    accepted as the same choice.
    """

    def legal(self, rules: Rules, state: RoundState, seat: int) -> list[Action]:
        """Not doubling first, then doubling (the landlord: no redouble, redouble)."""
        if seat != state.turn:
            return []
        kind = REDOUBLE if seat == landlord_of(state) else DOUBLE
        return [Action(kind, seat, value=0), Action(kind, seat, value=1)]

    def apply(self, rules: Rules, state: RoundState, action: Action) -> RoundState:
        """Record the choice; after the last one the landlord leads (DDZ-4.1)."""
        seat = action.seat
        if seat != state.turn:
            raise RuleError(
                "DDZ-6.2", f"it is seat {state.turn}'s turn to double, not seat {seat}'s"
            )
        kinds = (REDOUBLE, DOUBLE) if seat == landlord_of(state) else (DOUBLE,)
        if action.kind not in kinds or action.value not in (0, 1):
            verb = kinds[0]
            raise RuleError("DDZ-6.2", f"type '{verb}' or 'no {verb}'")
        doubles = list(state.get("doubles"))
        doubles[seat] = action.value
        state = with_extra(state, doubles=tuple(doubles))
        lord = landlord_of(state)
        for f in farmers_of(state):
            if doubles[f] < 0:
                return evolve(state, turn=f)
        if seat != lord and any(doubles[f] == 1 for f in farmers_of(state)):
            return evolve(state, turn=lord)
        return _start_play(state)


# --- scoring (DDZ-5) ---------------------------------------------------------------


def stakes(rules: Rules, state: RoundState) -> dict[int, int]:
    """DDZ-5.1 (with DDZ-6.2): the stake between the landlord and each farmer."""
    lord = landlord_of(state)
    winner = state.finished[0]
    plays = state.plays_made
    farmers = farmers_of(state)
    base = int(state.get("bid", 1)) * (2 ** int(state.get("bombs", 0)))
    if winner == lord:
        spring = all(plays[f] == 0 for f in farmers)
    else:
        spring = plays[lord] <= 1
    if spring:
        base *= 2
    doubles = state.get("doubles") or (0,) * state.players
    redouble = doubles[lord] == 1
    out = {}
    for f in farmers:
        s = base
        if doubles[f] == 1:
            s *= 4 if redouble else 2
        out[f] = s
    return out


def score(rules: Rules, state: RoundState) -> tuple[int, ...]:
    """DDZ-5.2: farmers pay the landlord their stake, or the landlord pays each farmer."""
    lord = landlord_of(state)
    pts = [0] * state.players
    sign = 1 if state.finished[0] == lord else -1
    for f, s in stakes(rules, state).items():
        pts[f] = -sign * s
        pts[lord] += sign * s
    return tuple(pts)


def spring(state: RoundState) -> bool:
    """DDZ-5.1: was the finished hand a spring?"""
    lord = landlord_of(state)
    if state.finished[0] == lord:
        return all(state.plays_made[f] == 0 for f in farmers_of(state))
    return state.plays_made[lord] <= 1


# --- fast random playouts (simulation) -----------------------------------------------------


def random_playout(
    rules: Rules,
    counts: Sequence[Sequence[int]],
    kitty: Sequence[int],
    first_bidder: int,
    pick: Any,
) -> tuple[int, ...] | None:
    """One whole hand on rank counts only, each choice ``pick(k)`` in ``range(k)``.

    For Monte Carlo bots and the benchmark: the same rules as the state machine
    (the bidding of DDZ-2 without doubling, the kitty, the play of DDZ-4, the
    stakes of DDZ-5) without card ids, views or state copies. The choices are
    indexed exactly like ``legal_actions`` (bidding) and ``legal_moves``
    (play: the generator's order, then the pass), so a stream of choices gives
    the same hand here as in the engine (tests check it). Returns each seat's
    points, or ``None`` when everybody passed (DDZ-2.3: redeal).
    """
    n = rules.players
    hands = [list(c) for c in counts]
    high, bidder, passes, bids, seat = 0, -1, 0, 0, first_bidder
    while True:
        options = list(range(high + 1, 4)) + [0]
        value = options[pick(len(options))]
        bids += 1
        if value:
            high, bidder, passes = value, seat, 0
            if value == 3:
                break
        else:
            passes += 1
            if high and passes == n - 1:
                break
            if not high and bids == n:
                return None
        seat = (seat + 1) % n
    lord = bidder
    for r in range(NUM_RANKS):
        hands[lord][r] += kitty[r]
    left = [sum(h) for h in hands]
    gen = rules.move_generator
    assert gen is not None
    plays = [0] * n
    bombs = 0
    turn, last, owner, passes = lord, None, -1, 0
    while True:
        moves = gen(rules, hands[turn], last)
        i = pick(len(moves) + (last is not None))
        if i == len(moves):  # pass (DDZ-4.4)
            passes += 1
            if passes == n - 1:
                turn, last, passes = owner, None, 0
            else:
                turn = (turn + 1) % n
            continue
        play = moves[i]
        hand = hands[turn]
        for r in play.ranks:
            hand[r] -= 1
        left[turn] -= len(play.ranks)
        plays[turn] += 1
        combo = play.combo
        if combo.kind == "rocket" or combo.kind == "bomb" and (n == 3 or combo.length >= 6):
            bombs += 1
        if not left[turn]:
            break
        last, owner, passes, turn = combo, turn, 0, (turn + 1) % n
    winner = turn
    farmers = [(lord + i) % n for i in range(1, n)]
    spring = (all(plays[f] == 0 for f in farmers) if winner == lord else plays[lord] <= 1)
    stake = high * 2**bombs * (2 if spring else 1)
    sign = 1 if winner == lord else -1
    pts = [-sign * stake] * n
    pts[lord] = sign * stake * (n - 1)
    return tuple(pts)


# --- hooks ------------------------------------------------------------------------------


@hookimpl
def zsy_options() -> Sequence[Option]:
    """Dou Dizhu's table options (DDZ-2.4, DDZ-6.2, DDZ-5.3)."""
    return [
        Option("show_kitty", "bool", False, "DDZ-2.4: the kitty is shown to everyone when taken"),
        Option("doubling", "bool", False,
               "DDZ-6.2: after the kitty each farmer may double, then the landlord redouble"),
        Option("match_multiple", "int", 3,
               "DDZ-5.3: a match is a multiple of this many hands (1: any number)", min=1, max=12),
    ]


@hookimpl
def zsy_default_players() -> int:
    """DDZ-1: three players."""
    return 3


@hookimpl
def zsy_supported_players() -> Sequence[int]:
    """DDZ-1 and DDZ-6.3: three, or four with two decks."""
    return (3, 4)


@hookimpl
def zsy_deck(table: TableConfig) -> Deck | None:
    """DDZ-1: 54 cards; DDZ-6.3: 108 with four players."""
    if table.game != name:
        return None
    decks = 2 if table.players == 4 else 1
    return Deck(decks, full_deck(decks))


@hookimpl
def zsy_deal_layout(table: TableConfig) -> DealLayout | None:
    """DDZ-1: a kitty of 3 (17 each); DDZ-6.3: 8 (25 each)."""
    if table.game != name:
        return None
    return DealLayout(
        kitty=8 if table.players == 4 else 3, kitty_shown=bool(table.opt(name, "show_kitty"))
    )


@hookimpl
def zsy_first_lead(table: TableConfig) -> FirstLead | None:
    """No start card: the landlord leads after the bidding (DDZ-4.1)."""
    return FirstLead(required=False) if table.game == name else None


#: Dou Dizhu's words (English; zsy_lan.text.words lists the same texts for translation).
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
    "kind:triple1": "triple with a single",
    "kinds:triple1": "triples with a single",
    "play:triple1": "three {ranks} with {kickers}",
    "kind:triple2": "triple with a pair",
    "kinds:triple2": "triples with a pair",
    "play:triple2": "three {ranks} with a pair of {kicker_ranks}",
    "kind:chain": "straight",
    "kinds:chain": "straights",
    "play:chain": "straight {low} to {high}",
    "kind:pairchain": "run of pairs",
    "kinds:pairchain": "runs of pairs",
    "play:pairchain": "pairs {low} to {high}",
    "kind:plane": "airplane",
    "kinds:plane": "airplanes",
    "play:plane": "airplane {low} to {high}",
    "kind:plane1": "airplane with wings",
    "kinds:plane1": "airplanes with wings",
    "play:plane1": "airplane {low} to {high} with wings {kickers}",
    "kind:plane2": "airplane with pair wings",
    "kinds:plane2": "airplanes with pair wings",
    "play:plane2": "airplane {low} to {high} with pair wings {kickers}",
    "kind:four2": "four with two singles",
    "kinds:four2": "fours with two singles",
    "play:four2": "four {ranks} with {kickers}",
    "kind:four22": "four with two pairs",
    "kinds:four22": "fours with two pairs",
    "play:four22": "four {ranks} with pairs {kickers}",
    "kind:bomb": "bomb",
    "kinds:bomb": "bombs",
    "play:bomb": "bomb of {count} {ranks}",
    "kind:rocket": "rocket",
    "kinds:rocket": "rockets",
    "play:rocket": "rocket",
    "role:landlord": "landlord",
    "roles:landlord": "landlords",
    "role:farmer": "farmer",
    "roles:farmer": "farmers",
    "places": "none",
    "action:pass": "pass",
    "action:bid": "bid {value}",
    "action:bid:0": "pass",
    "action:double:1": "double",
    "action:double:0": "no double",
    "action:redouble:1": "redouble",
    "action:redouble:0": "no redouble",
    "stake": "stake",
}


@hookimpl
def zsy_vocabulary(table: TableConfig) -> Mapping[str, str] | None:
    """DDZ-3's combinations, the landlord and farmers, bids and doubling, in words."""
    return VOCABULARY if table.game == name else None


_VARIANTS: dict[bool, tuple[ComboKind, ...]] = {}
_GENERATORS: dict[bool, Any] = {}


def kinds_for(four: bool) -> tuple[ComboKind, ...]:
    """The DDZ-3 kinds (DDZ-6.3 with ``four``), built once per process."""
    if four not in _VARIANTS:
        _VARIANTS[four] = _kinds(_Variant(four))
    return _VARIANTS[four]


def generator_for(four: bool) -> Any:
    """The all-kinds move generator (shared, stateless)."""
    if four not in _GENERATORS:
        _GENERATORS[four] = _generator(_Variant(four))
    return _GENERATORS[four]


@hookimpl
def zsy_combo_kinds(table: TableConfig, kinds: tuple[ComboKind, ...]) -> Sequence[ComboKind] | None:
    """DDZ-3: every Dou Dizhu combination (DDZ-6.3 drops single extras with four)."""
    return kinds_for(table.players == 4) if table.game == name else None


@hookimpl
def zsy_move_generator(table: TableConfig) -> Any:
    """One pass over rank masks for every kind (the 50 µs budget)."""
    return generator_for(table.players == 4) if table.game == name else None


_BIDDING = Bidding()
_DOUBLING = Doubling()


@hookimpl
def zsy_phases(table: TableConfig) -> Mapping[str, Any] | None:
    """DDZ-2 bidding, and DDZ-6.2 doubling when the option is on."""
    if table.game != name:
        return None
    phases: dict[str, Any] = {Phase.BIDDING: _BIDDING}
    if table.opt(name, "doubling"):
        phases[Phase.DOUBLING] = _DOUBLING
    return phases


@hookimpl
def zsy_on_deal(rules: Rules, state: RoundState) -> RoundState:
    """Enter the bidding (DDZ-2) with no start-card duty; the seed picks the first bidder."""
    return evolve(state, phase=Phase.BIDDING, must_contain=None)


@hookimpl
def zsy_on_seed(rules: Rules, state: RoundState, seed: bytes) -> RoundState:
    """DDZ-1: a randomly chosen player bids first (drawn from the round seed)."""
    first = choose(seed, "bidder", state.players)
    return evolve(with_extra(state, first_bidder=first), turn=first, leader=first)


@hookimpl
def zsy_on_play(rules: Rules, state: RoundState, action: Action, combo: Combo) -> RoundState | None:
    """DDZ-5.1: every bomb and the rocket double the stake (DDZ-6.3: bombs of 6+ only)."""
    if combo.kind == "rocket" or combo.kind == "bomb" and (rules.players == 3 or combo.length >= 6):
        return with_extra(state, bombs=int(state.get("bombs", 0)) + 1)
    return None


@hookimpl
def zsy_round_over(rules: Rules, state: RoundState) -> bool:
    """DDZ-4.5: the hand ends when a player empties their hand."""
    return True


@hookimpl
def zsy_score_round(rules: Rules, state: RoundState) -> tuple[int, ...]:
    """DDZ-5.2: zero-sum stakes between the landlord and each farmer."""
    return score(rules, state)


@hookimpl
def zsy_match_score(rules: Rules, match: Any) -> Sequence[int]:
    """DDZ-5.3: the highest total wins."""
    return match.totals


@hookimpl
def zsy_check_rounds(rules: Rules, rounds: int) -> tuple[str, str] | None:
    """DDZ-5.3: a match is a multiple of 3 hands (option ``match_multiple``)."""
    multiple = rules.option(name, "match_multiple")
    if rounds % multiple:
        return ("DDZ-5.3", f"a Dou Dizhu match is a multiple of {multiple} hands, not {rounds} "
                           f"(or set --option match_multiple=1)")
    return None
