"""Blunder counts per level (issue #16): the moves players noticed, counted per 2,000 hands.

Run from the repository root (one process; ``nice`` on a shared machine)::

    nice -n 19 .venv/bin/python bench/bench_blunders.py --hands 300 --budget 24
    .venv/bin/python bench/bench_blunders.py --hands 20 --levels easy,normal   # smoke

Every seat of a table plays the same level (self-play), on the same seeded
deals for every level: 4-player Zheng Shangyou (``zsy4``) and 3-player Dou
Dizhu (``ddz``, the bots' own bidding). ``hard`` runs on an iteration budget
(``--budget`` sampled worlds per decision, no clock), so the counts depend on
the seeds alone. Counted, at every decision with more than one legal action:

* ``missed_out``: a legal play ended the hand and the bot played something else
  (target 0);
* ``exposed_lead``: a lead an opponent could go out on (they hold exactly as
  many cards and the unseen cards beat it) while a safe lead existed: not a
  bomb, cut from no held bomb, not exposed itself (target 0;
  :func:`zsy_lan.bots.planner.exposed`);
* ``kicker_break``: a play with kickers cut out of a held bomb when another
  non-bomb play that keeps the bomb was legal;
* ``bomb_break``: any non-bomb play cut out of a held bomb (not a blunder in
  itself: ``hard`` judges it by its search; shown for comparison);
* ``losing_bomb`` (Dou Dizhu): a bomb or rocket played by a side that then
  lost the hand, so it only doubled the loss;
* ``points``: the points per hand of the landlord (Dou Dizhu) / of seat 0 (ZSY).

Rates are scaled to 2,000 hands; the Wilson 95% interval of ``exposed_lead``
and ``missed_out`` is over hands (a hand has it or not), not over decisions.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

from zsy_lan.bots import make_bot
from zsy_lan.bots.base import Bot, Observation, bomb_ranks, going_out
from zsy_lan.bots.planner import Situation, breaks_bomb, exposed, has_kicker
from zsy_lan.engine.cards import RANK_OF, rank_counts
from zsy_lan.engine.combos import Combo, Play, classify_cards
from zsy_lan.engine.game import Game
from zsy_lan.engine.round import legal_moves
from zsy_lan.engine.ruleset import build_rules
from zsy_lan.engine.selfplay import round_seed
from zsy_lan.engine.state import PLAY
from zsy_lan.engine.view import view

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from bench_bots import wilson  # noqa: E402

DEBUG = False
TABLES: dict[str, tuple[int, list[str], dict[str, Any]]] = {
    "zsy4": (4, [], {}),
    "ddz": (3, ["doudizhu"], {"match_multiple": 1}),
}


HARD_OPTS: dict[str, Any] = {}


def make(level: str, seed: str, budget: int) -> Bot:
    """A bot of the level; ``hard`` on the iteration budget with no clock."""
    if level == "hard":
        return make_bot("hard", seed, budget=budget, budget_ms=None, **HARD_OPTS)
    return make_bot(level, seed)


def _move(rules, v, seat, cards) -> Play | None:
    ranks = tuple(sorted(RANK_OF[c] for c in cards))
    for m in legal_moves(rules, v, seat):
        if m is not None and m.ranks == ranks:
            return m
    combo = classify_cards(rules, cards) or Combo("single", len(ranks), ranks[-1])
    return Play(combo, ranks)


def judge(obs: Observation, action, counts: dict[str, int], flags: set[str]) -> None:
    """Count the blunders of one decision."""
    rules = obs.rules
    v = obs.view
    if rules.in_effect is not None:
        rules = rules.in_effect(rules, v)
    if v.phase != "play" or len(obs.legal) < 2:
        return
    out = going_out(obs)
    if out is not None and not (action.kind == PLAY and len(action.cards) == len(out.cards)):
        counts["missed_out"] += 1
        flags.add("missed_out")
    if action.kind != PLAY:
        return
    sit = Situation(rules, v, obs.seat)
    m = _move(rules, v, obs.seat, action.cards)
    if m is None:
        return
    bombs = bomb_ranks(rules, rank_counts(sit.hand))
    last = len(action.cards) == len(sit.hand)
    if not last and breaks_bomb(rules, sit.counts, m, bombs):
        counts["bomb_break"] += 1
        if DEBUG:
            print("break", sorted(RANK_OF[c] for c in sit.hand), m, v.trick_combo, v.counts,
                  file=sys.stderr)
        if has_kicker(m):
            others = [x for x in legal_moves(rules, v, obs.seat) if x is not None
                      and not rules.kind_by_name[x.combo.kind].bomb
                      and not breaks_bomb(rules, sit.counts, x, bombs)]
            if others:
                counts["kicker_break"] += 1
    if v.trick is None and not last and exposed(sit, m):
        safe = [x for x in legal_moves(rules, v, obs.seat) if x is not None
                and not rules.kind_by_name[x.combo.kind].bomb
                and not breaks_bomb(rules, sit.counts, x, bombs) and not exposed(sit, x)]
        if safe:
            if DEBUG:
                print("exposed", obs.seat, sorted(RANK_OF[c] for c in sit.hand), m,
                      v.counts, safe[:3], file=sys.stderr)
            counts["exposed_lead"] += 1
            flags.add("exposed_lead")


def run(table: str, level: str, hands: int, budget: int) -> dict[str, Any]:
    """Self-play ``hands`` hands of ``level`` at ``table``; the counts."""
    players, variants, options = TABLES[table]
    rules = build_rules(players, variants, options)
    counts = dict.fromkeys(
        ("missed_out", "exposed_lead", "kicker_break", "bomb_break", "losing_bomb"), 0)
    hands_with = {"missed_out": 0, "exposed_lead": 0}
    points = 0
    decisions = 0
    by: dict[str, int] = {}  # bombs and losing bombs by how they were chosen
    for h in range(hands):
        game = Game(rules, 1)
        redeal = 0
        bots = [make(level, f"blunders:{table}:{h}:{s}", budget) for s in range(players)]
        flags: set[str] = set()
        bombers: list[tuple[int, str]] = []
        lord = -1
        while not game.finished():
            if game.needs_seed():  # (a Dou Dizhu deal nobody bid on is dealt again)
                game.start_round(round_seed(f"blunders:{table}:{redeal}", h))
                redeal += 1
                continue
            st = game.match.round
            assert st is not None
            seat = st.turn
            obs = Observation.of(rules, view(st, seat), seat)
            action = bots[seat].choose(obs)
            judge(obs, action, counts, flags)
            decisions += 1
            if action.kind == PLAY and table == "ddz":
                c = classify_cards(rules, action.cards)
                if c is not None and rules.kind_by_name[c.kind].bomb:
                    # how it was chosen (hard: the planner's move kept, or the search's)
                    # and whether the trick was an opponent's with few cards left
                    src = getattr(bots[seat], "last_source", "") or "planner"
                    owner = st.trick_seat if st.trick is not None else -1
                    lord_now = st.get("landlord", -1)
                    opp = owner >= 0 and (owner == lord_now) != (seat == lord_now)
                    why = "lead" if owner < 0 else (
                        "vs_short" if opp and st.counts[owner] <= 4 else "vs_long")
                    bombers.append((seat, f"{src}:{why}"))
            lord = st.get("landlord", -1)
            game.apply(seat, action)
        if (h + 1) % 100 == 0:  # running totals: a run cut short still says something
            print(f"  [{table} {level}] {h + 1} hands: {counts}", file=sys.stderr, flush=True)
        res = game.match.results[-1]
        for k in flags:
            hands_with[k] += 1
        if table == "ddz":
            winner = res.order[0]
            for b, how in bombers:
                same = (b == lord) == (winner == lord)
                by["bombs:" + how] = by.get("bombs:" + how, 0) + 1
                if not same:
                    counts["losing_bomb"] += 1
                    by["losing:" + how] = by.get("losing:" + how, 0) + 1
            points += res.points[lord]
        else:
            points += res.points[0]
    scale = 2000 / hands
    row: dict[str, Any] = {"table": table, "level": level, "hands": hands,
                           "decisions": decisions, "points_per_hand": points / hands}
    for k, n in counts.items():
        row[k] = n
        row[k + "_per_2000"] = round(n * scale, 1)
    row["bombs_by"] = dict(sorted(by.items()))
    for k, n in hands_with.items():
        p, lo, hi = wilson(n, hands)
        row[k + "_hands"] = [n, round(lo, 4), round(hi, 4)]
    return row


def main(argv: list[str] | None = None) -> int:
    """Command line entry."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--hands", type=int, default=300, help="hands per level and table")
    ap.add_argument("--budget", type=int, default=24, help="hard: sampled worlds per decision")
    ap.add_argument("--levels", default="easy,normal,hard")
    ap.add_argument("--only", action="append", default=[], help="zsy4 or ddz")
    ap.add_argument("--json", metavar="FILE")
    ap.add_argument("--hard-opt", action="append", default=[], metavar="NAME=VALUE",
                    help="extra HardBot option, e.g. stakes=0 or lord_early_share=0.25")
    args = ap.parse_args(argv)
    for pair in args.hard_opt:
        name, _, value = pair.partition("=")
        try:
            HARD_OPTS[name] = float(value) if "." in value else int(value)
        except ValueError:
            HARD_OPTS[name] = value  # (a path: value_model=FILE)
    rows = []
    for table in TABLES:
        if args.only and table not in args.only:
            continue
        for level in args.levels.split(","):
            t0 = time.process_time()
            row = run(table, level, args.hands, args.budget)
            row["cpu_s"] = round(time.process_time() - t0, 1)
            rows.append(row)
            print(f"{table:5} {level:7} hands {row['hands']:4}  per 2000 hands: missed_out "
                  f"{row['missed_out_per_2000']:6}  exposed_lead {row['exposed_lead_per_2000']:6}"
                  f"  kicker_break {row['kicker_break_per_2000']:6}  bomb_break "
                  f"{row['bomb_break_per_2000']:6}  losing_bomb {row['losing_bomb_per_2000']:6}"
                  f"  points/hand {row['points_per_hand']:+.3f}  ({row['cpu_s']} s CPU)",
                  flush=True)
            if row["bombs_by"]:
                print(f"      bombs by choice:situation {row['bombs_by']}", flush=True)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump(rows, fh, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
