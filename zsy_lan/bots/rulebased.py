"""A rule-based Dou Dizhu opponent written from the common published heuristics.

Why it exists: the levels are measured against an outside yardstick, an
agent that knows nothing of the planner or the search. This one follows the
rules of thumb found in the public rule-based Dou Dizhu agents and strategy
guides, and nothing else:

- bidding by a hand score: rocket 8, else red joker 4 and black joker 3, each
  2 counts 2, each bomb 6; bid 3 from 7, 2 from 5, 1 from 3 (DDZ-2.2); double
  from 7 (DDZ-6.2);
- the hand is decomposed greedily: rocket, bombs, the 2s, straights (longest
  first, from the lowest rank), chains of pairs, trios, pairs, singles; each
  trio takes the lowest single as a kicker, else the lowest pair;
- lead: go out if possible; otherwise the group with the lowest key, longer
  first; with an opponent on one card, never a single if anything else is
  left (then the highest single);
- follow: go out if possible; never beat a fellow farmer (DDZ-4.5); else the
  lowest group of the decomposition that beats; when the trick's owner is an
  opponent holding five cards or fewer, the lowest play that beats without
  cutting a bomb, or a bomb; else pass.

It is a baseline (``rule``), not a level: :data:`.registry.BASELINES`.
"""

from __future__ import annotations

from zsy_lan.bots.base import Bot, Observation, bomb_ranks, going_out, is_bomb, side_of
from zsy_lan.bots.bidding import BID_KINDS, DOUBLE_KINDS
from zsy_lan.bots.planner import NormalBot
from zsy_lan.bots.search import search_models
from zsy_lan.engine.bots import GreedyBot
from zsy_lan.engine.cards import BJ, RJ, TWO, rank_counts
from zsy_lan.engine.combos import Play, legal_plays
from zsy_lan.engine.phases import Phase
from zsy_lan.engine.round import move_action
from zsy_lan.engine.state import PASS, PLAY, Action


def hand_score(counts: list[int], min_bomb: int = 4) -> int:
    """The published bidding score of a hand (see the module text)."""
    score = 0
    if counts[BJ] and counts[RJ]:
        score += 8
    else:
        score += 3 * counts[BJ] + 4 * counts[RJ]
    score += 2 * counts[TWO]
    score += 6 * sum(1 for r in range(TWO) if counts[r] >= max(4, min_bomb))
    return score


def decompose(rules, counts: list[int]) -> list[Play]:  # noqa: ANN001 (Rules)
    """The greedy decomposition of a hand into plays (see the module text)."""
    c = list(counts)
    by_ranks = {p.ranks: p for p in legal_plays(rules, tuple(counts), None) if p.cards is None}
    groups: list[tuple[int, ...]] = []

    def take(ranks: tuple[int, ...]) -> None:
        for r in ranks:
            c[r] -= 1
        groups.append(ranks)

    if c[BJ] and c[RJ] and (BJ, RJ) in by_ranks:
        take((BJ, RJ))
    for r in range(TWO + 1):
        if c[r] >= 4 and (r,) * 4 in by_ranks:
            take((r,) * 4)
    if c[TWO]:
        take((TWO,) * c[TWO])
    # straights of singles, longest first
    while True:
        best: tuple[int, ...] | None = None
        start = 0
        while start < TWO:
            end = start
            while end < TWO and c[end] >= 1:
                end += 1
            if end - start >= 5 and (best is None or end - start > len(best)):
                best = tuple(range(start, end))
            start = end + 1
        if best is None or best not in by_ranks:
            break
        take(best)
    # chains of pairs (three pairs or more)
    start = 0
    while start < TWO:
        end = start
        while end < TWO and c[end] >= 2:
            end += 1
        if end - start >= 3:
            ranks = tuple(r for r in range(start, end) for _ in range(2))
            if ranks in by_ranks:
                take(ranks)
        start = end + 1
    for n in (3, 2, 1):
        for r in range(RJ + 1):
            if c[r] >= n and (r,) * n in by_ranks:
                take((r,) * n)
    for r in range(RJ + 1):
        while c[r]:
            take((r,))
    # kickers: each trio (lowest first) takes the lowest single, else the lowest pair
    gone: set[int] = set()
    merged: dict[int, tuple[int, ...]] = {}
    for i in sorted(range(len(groups)), key=lambda k: groups[k][0]):
        g = groups[i]
        if not (len(g) == 3 and g[0] == g[2] and g[0] < TWO):
            continue
        for size in (1, 2):
            kicks = [k for k in range(len(groups)) if k not in gone and k not in merged
                     and len(groups[k]) == size and groups[k][0] == groups[k][-1]
                     and groups[k][0] < TWO]
            kick = min(kicks, key=lambda k: groups[k][0], default=None)
            if kick is not None and tuple(sorted(g + groups[kick])) in by_ranks:
                gone.add(kick)
                merged[i] = tuple(sorted(g + groups[kick]))
                break
    out = [merged.get(i, g) for i, g in enumerate(groups) if i not in gone]
    return [by_ranks[g] for g in out if g in by_ranks]


class RuleBot(Bot):
    """The rule-based Dou Dizhu baseline (see the module text)."""

    level = "rule"

    def __init__(self, seed: bytes | int | str = 0) -> None:
        super().__init__(seed)
        self._planner = NormalBot(self.seed)

    def choose(self, obs: Observation) -> Action:
        """The heuristics' choice (always one of ``obs.legal``)."""
        legal = list(obs.legal)
        if len(legal) == 1:
            return legal[0]
        out = going_out(obs)
        if out is not None:
            return out
        hand = obs.view.hands[obs.seat] or ()
        counts = rank_counts(hand)
        kinds = {a.kind for a in legal}
        if kinds & set(BID_KINDS):
            score = hand_score(counts, obs.rules.min_bomb)
            worth = 3 if score >= 7 else 2 if score >= 5 else 1 if score >= 3 else 0
            bids = [a for a in legal if a.kind in BID_KINDS and 0 < a.value <= worth]
            if bids:
                return max(bids, key=lambda a: a.value)
            return next((a for a in legal if a.kind not in BID_KINDS or a.value <= 0), legal[0])
        if kinds & set(DOUBLE_KINDS):
            yes = hand_score(counts, obs.rules.min_bomb) >= 7
            for a in legal:
                if a.kind in DOUBLE_KINDS and (a.value != 0) == yes:
                    return a
            return legal[0]
        if not kinds <= {PLAY, PASS} or obs.view.phase != Phase.PLAY:
            return legal[0]
        if not obs.rules.rank_kinds:
            # every kind needs the cards (Guandan's wilds): the rank-count heuristics
            # cannot read them, so the engine's greedy choice stands in
            action = GreedyBot(self.seed).act(obs.rules, obs.view, obs.seat)
            return action if action in legal else legal[0]
        if not search_models(obs.rules):
            # its heuristics split rank counts: a variant ranking cards by suit (Big Two)
            # is beyond them, so it plays the planner's pick, as ``hard`` does
            return self._planner.choose(obs)
        return self._play(obs, counts)

    def _play(self, obs: Observation, counts: list[int]) -> Action:
        rules = obs.rules
        view = obs.view
        if rules.in_effect is not None:
            rules = rules.in_effect(rules, view)
        seat = obs.seat
        legal = set(obs.legal)
        side = side_of(rules, view, seat)
        opp_counts = [view.counts[s] for s in view.active if s not in side]
        opp_min = min(opp_counts, default=99)
        groups = decompose(rules, counts)

        def act(p: Play | None) -> Action | None:
            a = move_action(view, seat, p)
            return a if a in legal else None

        if view.trick is None:
            plain = [g for g in groups if not is_bomb(rules, g.combo.kind)]
            pool = plain or groups
            if opp_min == 1 and any(len(g.ranks) > 1 for g in pool):
                pool = [g for g in pool if len(g.ranks) > 1]
            if opp_min == 1 and all(len(g.ranks) == 1 for g in pool):
                choice = max(pool, key=lambda g: g.combo.key)
            else:
                choice = min(pool, key=lambda g: (g.combo.key, -len(g.ranks)))
            a = act(choice)
            return a if a is not None else obs.legal[0]
        owner = view.trick_seat
        passing = Action(PASS, seat)
        if owner in side and owner != seat:
            return passing if passing in legal else obs.legal[0]
        beaters = [p for p in legal_plays(rules, tuple(counts), view.trick_combo)
                   if p.cards is None]
        beat_set = {p.ranks for p in beaters}
        fits = [g for g in groups if g.ranks in beat_set and not is_bomb(rules, g.combo.kind)]
        if fits:
            a = act(min(fits, key=lambda g: g.combo.key))
            if a is not None:
                return a
        owner_left = view.counts[owner] if 0 <= owner < len(view.counts) else 99
        if owner_left <= 5:
            bombs = bomb_ranks(rules, counts)
            plain = [p for p in beaters if not is_bomb(rules, p.combo.kind)
                     and not any(r in bombs for r in p.ranks)]
            if plain:
                a = act(min(plain, key=lambda p: p.combo.key))
                if a is not None:
                    return a
            booms = [p for p in beaters if is_bomb(rules, p.combo.kind)]
            if booms:
                a = act(min(booms, key=lambda p: (len(p.ranks), p.combo.key)))
                if a is not None:
                    return a
        return passing if passing in legal else obs.legal[0]
