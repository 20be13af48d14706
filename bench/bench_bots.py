"""Bot strength (round-robin win rates with 95% intervals) and decision time per move.

Run from the repository root with the project's virtualenv::

    nice .venv/bin/python bench/bench_bots.py                  # everything, 1000 rounds each
    .venv/bin/python bench/bench_bots.py --rounds 60 --quick   # a smoke run
    .venv/bin/python bench/bench_bots.py --only zsy4 --json out.json

Strength (issue 5): every pair of levels (``random``, ``easy``, ``normal``,
``hard``) meets in

* ``zsy4``: 4-player Zheng Shangyou, the two levels in alternating seats
  (A B A B, and B A B A for half the matches); a round is won by the level
  whose seat is Upstream (50% = equal strength). Matches of 10 rounds, so the
  tribute is played too; deciding rounds are not counted.
* ``zsy6p``: 6-player with partnerships (teams 0 2 4 and 1 3 5), the team of
  the Upstream wins; teams swap levels for half the matches.
* ``ddz``: 3-player Dou Dizhu in both roles: level A as landlord against two
  level B farmers, for every ordered pair. The bidding is forced (the chosen
  seat bids 3, the others pass; the landlord seat rotates) so each role gets
  exactly its share of hands; the play is the bots' own.

The ``hard`` level plays the strength runs on an iteration budget
(``--budget``, default 48 sampled worlds per decision, no clock), so the
results depend on the seeds alone, never on the load of a shared machine
(``--hard-ms`` brings back the older CPU-time budget); its default table
budget (400 ms wall clock) is what the speed runs use. ``--hard-opt
NAME=VALUE`` passes other ``HardBot`` options (experiments: ``rollout=greedy``,
``confidence=0.5`` ...). Win rates carry Wilson 95% intervals. Use ``--jobs 1``
on a shared machine (one worker process). ``--levels ...,oracle`` adds a
perfect-information ``hard`` (:class:`OracleHard`: the same search on the true
deal, bench only) to bound what the search can reach against an opponent. ``--json FILE`` keeps
every match's result; ``--compare FILE`` (an earlier ``--json``) prints the
paired difference per matchup over the matches both runs played (the same
seeds give the same deals, so two runs differing in one ``--hard-opt`` are
paired match by match); ``--seed TAG`` deals fresh hands (to check a change
chosen on the default deals on deals it was not chosen on).

Speed: CPU time (``time.process_time``) per decision, p50 and p95 per level
and variant, measured in one process with default settings (``normal`` as
configured, ``hard`` with its default budget and any ``--hard-opt``) over
``--speed-rounds`` rounds.
Targets: ``normal`` p95 under 50 ms, ``hard`` p95 under 1 s on one core.

Everything is seeded: the same options give the same games.
"""

from __future__ import annotations

import argparse
import datetime
import json
import math
import multiprocessing
import platform
import sys
import time
from itertools import combinations
from typing import Any

from zsy_lan.bots import make_bot
from zsy_lan.bots.base import Bot, Observation
from zsy_lan.bots.search import HardBot, Simulator
from zsy_lan.engine.cards import rank_counts
from zsy_lan.engine.game import Game
from zsy_lan.engine.ruleset import build_rules
from zsy_lan.engine.selfplay import round_seed
from zsy_lan.engine.shuffle import HashStream
from zsy_lan.engine.state import Action
from zsy_lan.engine.view import view

LEVELS = ["random", "easy", "normal", "hard"]  # --levels may add "rule" (the rule-based agent)
# and "oracle": hard with perfect information (bench only, see OracleHard)
VARIANTS: dict[str, tuple[int, list[str]]] = {
    "zsy4": (4, []),
    "zsy6p": (6, ["partnerships"]),
    "ddz": (3, ["doudizhu"]),
    "b2": (4, ["big-two"]),  # the two levels in alternating seats, like zsy4
    "gd": (4, ["guandan"]),  # alternating seats are Guandan's teams (0 2 against 1 3)
}
MATCH_ROUNDS = {"zsy4": 10, "zsy6p": 10, "ddz": 3, "b2": 4, "gd": 4}


class ForcedBidder(Bot):
    """Plays like ``inner`` but bids as told: 3 for the chosen landlord, pass otherwise."""

    def __init__(self, inner: Bot, landlord: bool) -> None:
        super().__init__(inner.seed)
        self.inner = inner
        self.landlord = landlord

    def choose(self, obs: Observation) -> Action:
        """Forced bid in the bidding phase, the inner bot's choice elsewhere."""
        if obs.view.phase == "bidding":
            bids = [a for a in obs.legal if a.kind == "bid"]
            if bids:
                pick = max(bids, key=lambda a: a.value) if self.landlord else min(
                    bids, key=lambda a: a.value
                )
                return pick
        return self.inner.choose(obs)


def wilson(wins: int, n: int, z: float = 1.96) -> tuple[float, float, float]:
    """Win rate and its Wilson 95% interval."""
    if n == 0:
        return 0.0, 0.0, 0.0
    p = wins / n
    d = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / d
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return p, max(0.0, centre - half), min(1.0, centre + half)


def match_interval(per_match: list[tuple[int, int]], z: float = 1.96) -> tuple[float, float, float]:
    """Win rate over rounds with a 95% interval computed over *matches*.

    Why: the rounds of one match share seats and tribute, so they are not
    independent; the match is the unit (a ratio estimate: the rate's standard
    error from the spread of the matches' wins around rate x rounds). With one
    round per match this is the usual normal interval over hands.
    """
    wins = sum(w for w, _ in per_match)
    n = sum(r for _, r in per_match)
    k = len(per_match)
    if n == 0 or k < 2:
        return wilson(wins, n)
    p = wins / n
    mean_r = n / k
    var = sum((w - p * r) ** 2 for w, r in per_match) / (k - 1)
    half = z * math.sqrt(var / k) / mean_r
    return p, max(0.0, p - half), min(1.0, p + half)


HARD_OPTS: dict[str, Any] = {}
# the true state of the round being played (the oracle's eyes; one process, one game)
TRUTH: list[Any] = [None]


class OracleHard(HardBot):
    """``hard`` that sees every hand: the same search, its worlds the true deal.

    Why: an upper bound of what the search can reach on these deals against
    this opponent, so a target can be judged reachable or not. Bench only: a
    table never gives a bot another seat's cards. Every sampled world is the
    same true deal, so the rollouts repeat; the paired comparison then has no
    noise and the planner's move is overruled by any candidate whose rollout
    scores better (by the pick margin).
    """

    level = "oracle"

    def sample_world(self, sim: Simulator, stream: HashStream) -> list[list[int]]:
        """The true hands (rank counts) of the round in play."""
        state = TRUTH[0]
        assert state is not None, "the oracle needs bench_bots.TRUTH set to the true state"
        return [list(rank_counts(h)) for h in state.hands]


def _bot(level: str, seed: str, hard_ms: float, hard_iters: int) -> Bot:
    """A bot of ``level``; ``hard`` on the iteration budget (no clock) unless ``hard_ms``."""
    if level == "oracle":
        # all its worlds are the one true deal: the minimum of worlds decides the same
        opts = {k: v for k, v in HARD_OPTS.items() if k != "budget"}
        return OracleHard(seed, budget=8, budget_ms=None, **opts)
    if level == "hard":
        if hard_ms > 0:
            return make_bot("hard", seed, budget_ms=hard_ms, max_iters=hard_iters, clock="cpu",
                            **HARD_OPTS)
        return make_bot("hard", seed, budget=hard_iters, budget_ms=None, **HARD_OPTS)
    return make_bot(level, seed)


def play_task(task: dict[str, Any]) -> dict[str, Any]:
    """Play one block of matches of one matchup; returns win counts (a worker's job)."""
    variant = task["variant"]
    a, b = task["a"], task["b"]
    players, variants = VARIANTS[variant]
    rules = build_rules(players, variants)
    wins_a = rounds = 0
    points_a = 0.0
    match_wins: list[tuple[int, int]] = []  # (wins, rounds) per match: the unit of the interval
    by_match: list[tuple[int, int, int, float]] = []  # (match, wins, rounds, points): --compare
    times: dict[str, list[float]] = {}
    for m in range(task["start"], task["start"] + task["matches"]):
        wins_before, rounds_before, points_before = wins_a, rounds, points_a
        swap = m % 2 == 1
        seed = f"{task['seed']}:{variant}:{a}:{b}:{m}"
        if variant == "ddz":
            levels = [b] * players
            lord = m % players
            levels[lord] = a
            bots: list[Bot] = [
                ForcedBidder(_bot(levels[s], f"{seed}:{s}", task["hard_ms"], task["hard_iters"]),
                             s == lord)
                for s in range(players)
            ]
        else:
            first, second = (b, a) if swap else (a, b)
            levels = [first if s % 2 == 0 else second for s in range(players)]
            bots = [_bot(levels[s], f"{seed}:{s}", task["hard_ms"], task["hard_iters"])
                    for s in range(players)]
        game = Game(rules, MATCH_ROUNDS[variant])
        index = 0
        while not game.finished():
            if game.needs_seed():
                if variant == "ddz" and game.match.results:
                    lord = (lord + 1) % players  # the landlord seat rotates hand by hand
                    levels = [b] * players
                    levels[lord] = a
                    for s, bot in enumerate(bots):
                        assert isinstance(bot, ForcedBidder)
                        bot.landlord = s == lord
                        bot.inner = _bot(levels[s], f"{seed}:{index}:{s}", task["hard_ms"],
                                         task["hard_iters"])
                game.start_round(round_seed(seed, index))
                index += 1
                continue
            state = game.match.round
            assert state is not None
            seat = state.turn
            TRUTH[0] = state
            t0 = time.process_time()
            action = bots[seat].act(rules, view(state, seat), seat)
            times.setdefault(levels[seat], []).append(time.process_time() - t0)
            game.apply(seat, action)
            if game.match.phase != "playing" and game.match.results:
                res = game.match.results[-1]
                if res.deciding or len(game.match.results) != _counted(game):
                    continue
                upstream = res.order[0]
                if variant == "ddz":
                    won = (upstream == lord)
                    points_a += res.points[lord]
                else:
                    won = levels[upstream] == a
                    mine = [p for s, p in enumerate(res.points) if levels[s] == a]
                    points_a += sum(mine) / max(1, len(mine))
                rounds += 1
                wins_a += int(won)
        match_wins.append((wins_a - wins_before, rounds - rounds_before))
        by_match.append((m, wins_a - wins_before, rounds - rounds_before, points_a - points_before))
    return {"key": (variant, a, b), "wins": wins_a, "rounds": rounds, "times": times,
            "points": points_a, "matches": match_wins, "by_match": by_match}


def _counted(game: Game) -> int:
    """Rounds recorded so far (a finished round is counted once)."""
    return len(game.match.results)


def strength_tasks(rounds: int, only: set[str], hard_ms: float, hard_iters: int,
                   levels: list[str], focus: str | None = None,
                   mirror: bool = False,
                   only_pairs: set[tuple[str, str]] | None = None,
                   seed: str = "bench") -> list[dict[str, Any]]:
    """The matchups, cut into blocks of matches for the workers."""
    tasks = []
    for variant in VARIANTS:
        if only and variant not in only:
            continue
        pairs: list[tuple[str, str]] = []
        if variant == "ddz":
            # mirror: a level against itself, the landlord's base rate with equal play
            pairs = [(x, y) for x in levels for y in levels if x != y or mirror]
        else:
            pairs = list(combinations(levels, 2))
            pairs = [(y, x) for x, y in pairs]  # stronger level first: "A beats B"
        if focus:
            pairs = [(x, y) for x, y in pairs if focus in (x, y)]
        if only_pairs:
            pairs = [p for p in pairs if p in only_pairs]
        per = MATCH_ROUNDS[variant]
        matches = math.ceil(rounds / per)
        block = max(2, math.ceil(matches / 16))
        for a, b in pairs:
            for start in range(0, matches, block):
                tasks.append({
                    "variant": variant, "a": a, "b": b, "start": start,
                    "matches": min(block, matches - start), "hard_ms": hard_ms,
                    "hard_iters": hard_iters, "seed": seed,
                })
    # interleave the matchups block by block: a run cut short still has every
    # matchup sampled evenly (the progress lines on stderr carry the running totals)
    tasks.sort(key=lambda t: t["start"] / max(1, t["matches"]))
    return tasks


def compare_rows(before: list[dict[str, Any]], after: list[dict[str, Any]]) -> list[str]:
    """The paired difference of two runs, matchup by matchup, over the matches both played.

    Why: the same options and seeds give the same deals, so two runs that differ
    only in a bot option are paired match by match; the difference of the win
    rates then has a much narrower interval (95%, over matches) than either rate.
    """
    old = {(r["variant"], r["a"], r["b"]): {m[0]: m for m in r.get("by_match", [])}
           for r in before}
    lines = []
    for r in after:
        prev = old.get((r["variant"], r["a"], r["b"]))
        if not prev:
            continue
        pairs = [(m, prev[m[0]]) for m in r["by_match"] if m[0] in prev and m[2] == prev[m[0]][2]]
        k = len(pairs)
        n = sum(m[2] for m, _ in pairs)
        if k < 2 or n == 0:
            continue
        dw = [m[1] - p[1] for m, p in pairs]
        dp = [m[3] - p[3] for m, p in pairs]
        out = []
        for d in (dw, dp):
            mean = sum(d) / k
            sd = math.sqrt(sum((x - mean) ** 2 for x in d) / (k - 1))
            out.append((sum(d) / n, 1.96 * sd * math.sqrt(k) / n))
        (w, wh), (p, ph) = out
        lines.append(f"{r['variant']:6} {r['a']:>6}-{r['b']:<6} paired over {n} hands: won "
                     f"{100 * w:+.1f} [{100 * (w - wh):+.1f}, {100 * (w + wh):+.1f}] points, "
                     f"points/hand {p:+.3f} [{p - ph:+.3f}, {p + ph:+.3f}]")
    return lines


def percentile(xs: list[float], q: float) -> float:
    """The q-quantile (nearest rank) of xs."""
    if not xs:
        return float("nan")
    s = sorted(xs)
    return s[min(len(s) - 1, int(q * len(s)))]


def speed_run(rounds: int, only: set[str]) -> dict[str, dict[str, dict[str, float]]]:
    """Decision CPU time per level (default settings), p50/p95, per variant."""
    out: dict[str, dict[str, dict[str, float]]] = {}
    for variant, (players, variants) in VARIANTS.items():
        if only and variant not in only:
            continue
        rules = build_rules(players, variants)
        out[variant] = {}
        for level in ("easy", "normal", "hard"):
            times: list[float] = []
            searched: list[float] = []
            for r in range(rounds):
                # (``--hard-opt`` applies here too: the decision time of a variant of hard)
                opts = HARD_OPTS if level == "hard" else {}
                bots = [make_bot(level, f"speed:{variant}:{r}:{s}", **opts)
                        for s in range(players)]
                game = Game(rules, MATCH_ROUNDS[variant])
                game.start_round(round_seed(f"speed:{variant}", r))
                while game.match.phase == "playing":
                    state = game.match.round
                    assert state is not None
                    seat = state.turn
                    obs = Observation.of(rules, view(state, seat), seat)
                    t0 = time.process_time()
                    action = bots[seat].choose(obs)
                    dt = time.process_time() - t0
                    times.append(dt)
                    if len(obs.legal) > 1:
                        searched.append(dt)
                    game.apply(seat, action)
            out[variant][level] = {
                "moves": len(times),
                "p50_ms": 1000 * percentile(times, 0.5),
                "p95_ms": 1000 * percentile(times, 0.95),
                "max_ms": 1000 * max(times),
                "choice_p50_ms": 1000 * percentile(searched, 0.5),
                "choice_p95_ms": 1000 * percentile(searched, 0.95),
            }
    return out


def main(argv: list[str] | None = None) -> int:
    """Command line entry."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=1000, help="rounds per matchup (default 1000)")
    ap.add_argument("--speed-rounds", type=int, default=6, help="rounds per level for timing")
    ap.add_argument("--budget", type=int, default=48,
                    help="hard: sampled worlds per decision, no clock (default 48)")
    ap.add_argument("--hard-ms", type=float, default=0.0,
                    help="hard: CPU ms per move instead of --budget (old method; 0: off)")
    ap.add_argument("--hard-iters", type=int, default=150, help="hard iteration cap with --hard-ms")
    ap.add_argument("--jobs", type=int, default=2, help="worker processes")
    ap.add_argument("--only", action="append", default=[],
                    help="zsy4, zsy6p, ddz, b2 (Big Two) or gd (Guandan)")
    ap.add_argument("--levels", default=",".join(LEVELS), help="levels to include")
    ap.add_argument("--focus", default=None, help="only the matchups of this level")
    ap.add_argument("--pair", action="append", default=[], metavar="A:B",
                    help="only this matchup (A first: in ddz A is the landlord)")
    ap.add_argument("--hard-opt", action="append", default=[], metavar="NAME=VALUE",
                    help="extra HardBot option (e.g. rollout=greedy, confidence=0.3)")
    ap.add_argument("--mirror", action="store_true",
                    help="Dou Dizhu: also each level as landlord against itself")
    ap.add_argument("--no-speed", action="store_true")
    ap.add_argument("--no-strength", action="store_true")
    ap.add_argument("--quick", action="store_true", help="smoke run: 4 speed rounds")
    ap.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    ap.add_argument("--seed", default="bench",
                    help="deal seed prefix (another value: fresh deals, e.g. to check a change "
                         "chosen on the default deals)")
    ap.add_argument("--compare", metavar="FILE",
                    help="a --json file of an earlier run: the paired difference per matchup")
    args = ap.parse_args(argv)
    if args.hard_ms <= 0:
        args.hard_iters = args.budget  # the budget travels as the iteration count
    only = set(args.only)
    for pair in args.hard_opt:
        name, _, value = pair.partition("=")
        try:
            HARD_OPTS[name] = int(value)
        except ValueError:
            try:
                HARD_OPTS[name] = float(value)
            except ValueError:
                HARD_OPTS[name] = value
    report: dict[str, Any] = {
        "date": datetime.date.today().isoformat(),
        "python": platform.python_version(),
        "machine": platform.machine(),
        "cpus": multiprocessing.cpu_count(),
        "rounds": args.rounds,
        "hard_ms": args.hard_ms,
        "hard_iters": args.hard_iters,
    }
    t0 = time.time()
    if not args.no_strength:
        tasks = strength_tasks(args.rounds, only, args.hard_ms, args.hard_iters,
                               args.levels.split(","), args.focus, args.mirror,
                               {tuple(p.split(":", 1)) for p in args.pair}  # type: ignore[misc]
                               or None, args.seed)
        agg: dict[tuple[str, str, str], list[Any]] = {}
        with multiprocessing.Pool(args.jobs) as pool:
            for done, res in enumerate(pool.imap_unordered(play_task, tasks), start=1):
                w = agg.setdefault(tuple(res["key"]), [0, 0, 0.0, [], []])  # type: ignore[arg-type]
                w[0] += res["wins"]
                w[1] += res["rounds"]
                w[2] += res["points"]
                w[3].extend(res["matches"])
                w[4].extend(res["by_match"])
                variant, a, b = res["key"]
                print(f"  [{done}/{len(tasks)}] {variant} {a}-{b}: {w[0]}/{w[1]} so far",
                      file=sys.stderr, flush=True)
        rows = []
        for (variant, a, b), (wins, n, pts, per_match, by_match) in sorted(agg.items()):
            p, lo, hi = match_interval(per_match)
            role = " as landlord vs farmers" if variant == "ddz" else " vs"
            ppr = pts / n if n else 0.0
            rows.append({"variant": variant, "a": a, "b": b, "wins": wins, "rounds": n,
                         "rate": p, "lo": lo, "hi": hi, "points_per_hand": ppr,
                         "matches": len(per_match), "by_match": sorted(by_match)})
            print(f"{variant:6} {a:>6}{role} {b:<6} {wins:5}/{n:<5} {100 * p:5.1f}% "
                  f"[{100 * lo:4.1f}, {100 * hi:4.1f}]  points/hand {ppr:+.3f}", flush=True)
        report["strength"] = rows
        if args.compare:
            with open(args.compare, encoding="utf-8") as fh:
                for line in compare_rows(json.load(fh)["strength"], rows):
                    print(line, flush=True)
        report["strength_seconds"] = round(time.time() - t0)
    if not args.no_speed:
        speed = speed_run(4 if args.quick else args.speed_rounds, only)
        for variant, per in speed.items():
            for level, s in per.items():
                print(f"{variant:6} {level:7} moves {s['moves']:5}  p50 {s['p50_ms']:7.2f} ms  "
                      f"p95 {s['p95_ms']:7.2f} ms  max {s['max_ms']:7.1f} ms  (real choices: "
                      f"p50 {s['choice_p50_ms']:.2f}, p95 {s['choice_p95_ms']:.2f})", flush=True)
        report["speed"] = speed
    report["seconds"] = round(time.time() - t0)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump(report, fh, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
