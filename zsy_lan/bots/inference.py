"""Inference of hidden hands from the public play log, for the ``hard`` search.

Why: ``hard`` deals the unseen cards at random among the other seats
(:class:`.search.Simulator`), as if nothing had been seen of how they played.
But a seat that passed on a low single while holding a loose higher single,
or on a pair while holding a spare pair, rarely plays like that; a seat that
led a low single usually held it alone. The round's public play log
(``RoundState.log``: who played or passed what, in order) is in every view,
so a bot may use it and still decide from the view alone (a seat taken over
mid-round sees the same log).

How: each logged move of another seat becomes a check on that seat's hand *at
the time*, reconstructed in a sampled world as its sampled hand plus the cards
it played later. A world's weight is the product of the checks' factors (1.0
for a move the hand explains; less for one it hardly explains). A sampled
world is then drawn by importance resampling: ``tries`` worlds are dealt as
before, and one is kept with probability proportional to its weight (the
bot's :class:`~zsy_lan.engine.shuffle.HashStream`, so the choice depends on
the seed and the view alone). Mild factors, never 0: the opponent may be a
person or another program with other habits, and a wrong inference must only
cost a little.

The checks are the common heuristics' habits (the ``rule`` baseline and most
people follow them): follow an opponent with the lowest loose group that
beats (a pass means none was held), lead the lowest loose single or pair.
Only singles, pairs and triples are read; everything else passes unread.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from zsy_lan.engine.cards import NUM_RANKS, RANK_OF, TWO
from zsy_lan.engine.combos import Combo, classify_cards
from zsy_lan.engine.rules import Rules
from zsy_lan.engine.shuffle import HashStream
from zsy_lan.engine.state import RoundState

from .base import side_of

# A check's factor when the logged move goes against the habit (1.0 when it fits),
# about the likelihood ratio measured on self-play of the ``rule`` baseline and of
# ``normal`` (the true hands against blind samples; docs/bots.md, fourth pass), between
# the two where they differ:
PASS_SINGLE = 0.25  # passed on an opponent's single holding a loose higher single
PASS_PAIR = 0.3  # ... on a pair holding a spare higher pair
PASS_TRIPLE = 1.0  # ... on a triple holding a higher plain triple (measured: no signal)
LEAD_SPLIT = (0.7, 0.5)  # led a single (pair) out of a pair or more (a triple or more)
SKIPPED_LOWER = (0.6, 0.5)  # followed with a single (pair) while a lower loose one beat
# How many worlds are dealt for each one kept (importance resampling).
DEFAULT_TRIES = 4
# the resampling draws on integer weights: a weight's resolution
_SCALE = 1 << 20

_PLAIN = {"single": 1, "pair": 2, "triple": 3, "triple1": 3, "triple2": 3}


class Check:
    """One logged move of one seat: what it says about the hand held then.

    ``seat`` moved at log entry ``index``; ``later`` are the rank counts it
    played from that entry on (so its hand then = its hand now + ``later``).
    """

    __slots__ = ("seat", "later", "test", "rank", "width", "key")

    def __init__(
        self, seat: int, later: list[int], test: str, rank: int, width: int, key: int
    ) -> None:
        self.seat = seat
        self.later = later
        self.test = test  # "pass", "lead" or "follow"
        self.rank = rank  # the rank played (lead, follow)
        self.width = width  # 1 single, 2 pair, 3 triple
        self.key = key  # the rank to beat (pass, follow)

    def factor(self, world: Sequence[Sequence[int]]) -> float:
        """How well the seat's hand in ``world`` explains the move (1.0: fully)."""
        now = world[self.seat]
        later = self.later
        w = self.width
        if self.test == "pass":
            # a loose group of the same width above the key would have been played
            for r in range(self.key + 1, TWO + 1):
                if now[r] + later[r] == w:
                    return PASS_SINGLE if w == 1 else PASS_PAIR if w == 2 else PASS_TRIPLE
            return 1.0
        if self.test == "lead":
            return LEAD_SPLIT[w - 1] if now[self.rank] + later[self.rank] > w else 1.0
        # follow: a lower loose group of the same width that also beats was skipped
        for r in range(self.key + 1, self.rank):
            if now[r] + later[r] == w:
                return SKIPPED_LOWER[w - 1]
        return 1.0


class LogModel:
    """The checks the play log gives on the other seats' hands (one decision's view)."""

    def __init__(self, rules: Rules, view: RoundState, seat: int) -> None:
        self.checks = build_checks(rules, view, seat)

    def weight(self, world: Sequence[Sequence[int]]) -> float:
        """The product of every check's factor in ``world``."""
        w = 1.0
        for c in self.checks:
            w *= c.factor(world)
        return w


def build_checks(rules: Rules, view: RoundState, seat: int) -> list[Check]:
    """Replay the log (tricks, who owned them, who was out) into checks on other seats."""
    log = view.log
    if not log:
        return []
    n = view.players
    # the rank counts each seat played from each entry on (suffix sums, per seat)
    later: list[list[int]] = [[0] * NUM_RANKS for _ in range(n)]
    suffix: list[list[int] | None] = [None] * len(log)
    for i in range(len(log) - 1, -1, -1):
        s, cards = log[i]
        if not 0 <= s < n:
            return []  # a malformed log (from outside): read nothing
        if cards:
            row = later[s] = list(later[s])
            for c in cards:
                row[RANK_OF[c]] += 1
        suffix[i] = later[s]
    # each seat's count when the log began: its count now plus what it played
    count = [view.counts[s] + sum(later[s]) for s in range(n)]
    finished: list[int] = [s for s in view.finished if count[s] == 0]  # out before the log
    sides = [side_of(rules, view, s) for s in range(n)]
    checks: list[Check] = []
    last: Combo | None = None
    owner = -1
    passes = 0
    for i, (s, cards) in enumerate(log):
        row = suffix[i]
        assert row is not None
        if not cards:
            if s != seat and last is not None and owner not in sides[s]:
                width = _PLAIN.get(last.kind)
                if width is not None and last.key < TWO and (width < 3 or PASS_TRIPLE < 1):
                    checks.append(Check(s, row, "pass", -1, width, last.key))
            passes += 1
            active = n - len(finished)
            needed = active - 1 if owner not in finished else active
            if passes >= needed:
                last, owner, passes = None, -1, 0
            continue
        combo = _combo(rules, cards)
        if combo is None:
            return checks  # not a combination under these rules: stop reading
        width = _PLAIN.get(combo.kind) if combo.kind in ("single", "pair") else None
        out = count[s] == len(cards)  # went out with it: no habit to read
        if s != seat and width is not None and not out:
            if last is None:
                checks.append(Check(s, row, "lead", combo.key, width, -1))
            elif owner not in sides[s] and last.kind == combo.kind:
                checks.append(Check(s, row, "follow", combo.key, width, last.key))
        count[s] -= len(cards)
        if count[s] <= 0 and s not in finished:
            finished.append(s)
        last, owner, passes = combo, s, 0
    return checks


def _combo(rules: Rules, cards: Sequence[int]) -> Combo | None:
    try:
        return classify_cards(rules, cards)
    except (ValueError, IndexError, KeyError):
        return None


def infer_sample(sim: Any, stream: HashStream, tries: int = DEFAULT_TRIES) -> list[list[int]]:
    """One sampled world of ``sim`` (a :class:`.search.Simulator`), resampled by the log.

    Deals ``tries`` worlds and keeps one with probability proportional to its
    weight; without checks (nothing logged yet) it is ``sim.sample(stream)``.
    The model is built once per simulator (one decision) and kept on it.
    """
    model = getattr(sim, "_log_model", None)
    if model is None:
        model = LogModel(sim.rules, sim.view, sim.seat)
        sim._log_model = model
    if not model.checks or tries <= 1:
        return sim.sample(stream)
    worlds = [sim.sample(stream) for _ in range(tries)]
    weights = [max(1, int(model.weight(w) * _SCALE)) for w in worlds]
    x = stream.uniform(sum(weights))
    for w, weight in zip(worlds, weights, strict=True):
        if x < weight:
            return w
        x -= weight
    return worlds[-1]
