"""Guandan move generation with the two wild ♥ level cards (issue #27: < 5 ms at p95).

Run from the repository root (one process, ``nice`` on a shared machine)::

    nice -n 19 .venv/bin/python bench/bench_guandan.py --hands 2000
    .venv/bin/python bench/bench_guandan.py --hands 50          # smoke

Method: seeded random 27-card hands from the 108-card deck, each holding both
wild ♥ cards of a level drawn at random (2..A). For each hand, every legal
play as the leader (the worst case: every combination of the hand) is
generated through the engine's own path (``legal_moves`` with the rules in
effect for the deal's level), with the plugin's memos emptied first, so each
call is cold. Also timed: following a random play of the same hand (the
generator then lists what beats it and the bombs). Each call is repeated
``--repeat`` times (cold each time) and the fastest kept: on a shared machine
the slower ones measure the scheduler, not the generator. Reported: p50, p95,
max over the hands and the mean number of plays, per case.
"""

from __future__ import annotations

import argparse
import json
import random
import time

from zsy_lan.engine.phases import Phase
from zsy_lan.engine.round import legal_moves
from zsy_lan.engine.ruleset import build_rules
from zsy_lan.engine.state import RoundState, with_extra
from zsy_lan.plugins import guandan_combos as gc


def clear() -> None:
    """Empty the plugin's memos: every measured call is cold."""
    gc._READINGS.clear()
    gc._SPLITS.clear()


def state_for(hand: tuple[int, ...], level: int, trick=None) -> RoundState:  # noqa: ANN001
    """A play-phase round where seat 0 holds ``hand`` and it is its turn."""
    others = (0,) * 3
    st = RoundState(
        players=4, round_no=1, dealer=3, phase=Phase.PLAY, hands=(hand, None, None, None),
        counts=(len(hand), *(27 for _ in others)), turn=0, leader=0 if trick is None else 1,
        seat_last=(None,) * 4, plays_made=(0,) * 4,
    )
    if trick is not None:
        st = RoundState(**{**st.__dict__, "trick": trick.cards, "trick_combo": trick.combo,
                           "trick_seat": 1})
    return with_extra(st, **{gc.DEAL_LEVEL: level})


def pct(xs: list[float], p: float) -> float:
    """The ``p`` quantile (nearest rank)."""
    s = sorted(xs)
    return s[min(len(s) - 1, int(p * len(s)))]


def timed(rules, st: RoundState, repeat: int) -> tuple[float, list]:  # noqa: ANN001
    """The fastest of ``repeat`` cold calls of ``legal_moves`` for seat 0, and its moves."""
    best = float("inf")
    moves: list = []
    for _ in range(repeat):
        clear()
        t0 = time.perf_counter()
        moves = legal_moves(rules, st, 0)
        best = min(best, time.perf_counter() - t0)
    return best, moves


def main() -> None:
    """Measure and print."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hands", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=27)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    rules = build_rules(None, ["guandan"], {})
    rng = random.Random(args.seed)
    lead_t, follow_t, lead_n, follow_n = [], [], [], []
    for _ in range(args.hands):
        level = rng.randint(2, 14)
        wild = sorted(gc.wild_cards(level))
        rest = [c for c in range(108) if c not in wild]
        hand = tuple(sorted(wild + rng.sample(rest, 25)))
        st = state_for(hand, level)
        t, moves = timed(rules, st, args.repeat)
        lead_t.append(t)
        lead_n.append(len(moves))
        trick = rng.choice([m for m in moves if m is not None])
        t, follow = timed(rules, state_for(hand, level, trick), args.repeat)
        follow_t.append(t)
        follow_n.append(len(follow))
    out = {
        case: {
            "p50_ms": round(pct(ts, 0.5) * 1000, 3),
            "p95_ms": round(pct(ts, 0.95) * 1000, 3),
            "max_ms": round(max(ts) * 1000, 3),
            "mean_plays": round(sum(ns) / len(ns), 1),
        }
        for case, ts, ns in (("lead", lead_t, lead_n), ("follow", follow_t, follow_n))
    }
    if args.json:
        print(json.dumps(out))
        return
    print(f"{args.hands} hands of 27 cards, both wilds, cold memos, best of {args.repeat}")
    for case, r in out.items():
        print(f"{case:7} p50 {r['p50_ms']:.3f} ms  p95 {r['p95_ms']:.3f} ms  "
              f"max {r['max_ms']:.3f} ms  plays {r['mean_plays']}")


if __name__ == "__main__":
    main()
