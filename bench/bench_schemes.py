"""Does ``hard`` play for points under Zheng Shangyou's point schemes? (issue #16)

Run from the repository root (one process, ``nice`` on a shared machine)::

    nice -n 19 .venv/bin/python bench/bench_schemes.py penalty 300
    nice -n 19 .venv/bin/python bench/bench_schemes.py cardcount 300

4-player Zheng Shangyou under ``--option scoring=SCHEME``, two ``hard`` bots
scoring their rollouts by the scheme (``stakes=True``, the default) against
two that score win/loss only (``stakes=False``), in alternating seats; every
deal is played twice with the seats swapped, so the comparison is paired.
Both on an iteration budget (48 worlds, no clock): the figures depend on the
seeds alone. Prints the points per seat and hand of each group and the mean
paired difference (on minus off) with its 95% interval over hands.
Penalty points are bad (lower is better); card-count points are good.
"""

from __future__ import annotations

import statistics
import sys

from zsy_lan.bots import make_bot
from zsy_lan.engine.game import Game
from zsy_lan.engine.ruleset import build_rules
from zsy_lan.engine.selfplay import round_seed
from zsy_lan.engine.view import view


def main(argv: list[str]) -> int:
    """Command line: SCHEME [HANDS] [BUDGET]."""
    scoring = argv[0] if argv else "penalty"
    hands = int(argv[1]) if len(argv) > 1 else 300
    budget = int(argv[2]) if len(argv) > 2 else 48
    rules = build_rules(4, [], {"scoring": scoring})
    totals = {True: 0, False: 0}
    diffs: list[float] = []
    for h in range(hands):
        swap = h % 2
        on = [(s % 2 == swap) for s in range(4)]
        bots = [make_bot("hard", f"sc{h}:{s}", budget=budget, budget_ms=None,
                         stakes=on[s]) for s in range(4)]
        game = Game(rules, 1)
        game.start_round(round_seed(f"scheme{scoring}", h // 2))
        while game.match.phase == "playing":
            st = game.match.round
            assert st is not None
            s = st.turn
            game.apply(s, bots[s].act(rules, view(st, s), s))
        pts = game.match.results[-1].points
        a = sum(p for s, p in enumerate(pts) if on[s])
        b = sum(p for s, p in enumerate(pts) if not on[s])
        totals[True] += a
        totals[False] += b
        diffs.append((a - b) / 2)
    mean = statistics.mean(diffs)
    half = 1.96 * statistics.stdev(diffs) / len(diffs) ** 0.5
    print(f"{scoring} {hands} hands: points per seat and hand, scheme-aware "
          f"{totals[True] / (2 * hands):+.3f}, win/loss only {totals[False] / (2 * hands):+.3f}, "
          f"paired difference {mean:+.3f} [{mean - half:+.3f}, {mean + half:+.3f}]")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
