"""Step 1: positions from Dou Dizhu self-play, labelled with how the hand ended.

Why self-play of the project's own levels: the model stands in for the end of
``hard``'s rollouts, whose players follow the ``normal`` planner, so it must
know how hands go on between such players; ``rule`` and a small-budget ``hard``
widen the positions seen. Every seat of a hand draws its level from ``--mix``;
the bots bid for themselves. At every play-phase decision the *true* position
(every hand, as a rollout's sampled world has it) becomes one row: the
features of :func:`zsy_lan.bots.value.features`, the landlord's win (0/1) and
its points, and the *rollout label*: how ``hard``'s own rollout
(:class:`zsy_lan.bots.rollout.PlanSimulator`, every seat following its planner
split, the exact solver at the end) plays out from that true position, the
mover playing as the rollout would (``r``: the landlord's win 0/1, ``rs``: its
score on :func:`zsy_lan.bots.rollout.stake_value`'s scale). A hand's outcome is
one noisy draw shared by all its rows; the rollout label differs from row to
row and is exactly what a rollout cut short at that position would have
found, so a model of it can stand in for the rest of the rollout (issue #28,
second attempt). Deals are seeded (``--seed``, hand index), so a run is reproducible
and the deals of two seeds never overlap with the bench's (those use
``bench_bots``' own seed strings).

Rows go to JSON lines, one file per worker process (``--workers``), each
stopping at its share of ``--hands`` or at ``--max-seconds`` of wall time.
"""

from __future__ import annotations

import json
import multiprocessing
import time
from pathlib import Path
from typing import Any

from zsy_lan.bots import make_bot
from zsy_lan.bots.base import Bot, landlord_of
from zsy_lan.bots.planner import Planner
from zsy_lan.bots.rollout import PlanSimulator
from zsy_lan.bots.search import ENDGAME_CARDS, SPLIT_NODES
from zsy_lan.bots.simulator import bomb_kind_names
from zsy_lan.bots.value import features
from zsy_lan.engine.cards import rank_counts
from zsy_lan.engine.combos import Play
from zsy_lan.engine.game import Game
from zsy_lan.engine.phases import Phase
from zsy_lan.engine.rules import Rules
from zsy_lan.engine.ruleset import build_rules
from zsy_lan.engine.selfplay import round_seed
from zsy_lan.engine.shuffle import HashStream
from zsy_lan.engine.state import RoundState
from zsy_lan.engine.view import view

DEFAULT_MIX = "normal,normal,rule,hard"
HARD_BUDGET = 8  # sampled worlds per decision of the self-play ``hard``: cheap, still itself


def _bot(level: str, seed: str) -> Bot:
    if level == "hard":
        return make_bot("hard", seed, budget=HARD_BUDGET, budget_ms=None)
    return make_bot(level, seed)


def rollout_label(
    rules: Rules, state: RoundState, planner: Planner, hands: list[list[int]], lord: int,
) -> float:
    """The rollout's score of a true position, on the landlord's side (stake scale).

    Why the true position: a rollout in ``hard`` plays a sampled world with every
    hand known, and this is the value it would find in the world that is the truth.
    The mover plays the rollout policy's own move (its split's), so the label is the
    value of the position, not of the move the self-play bot chose.
    """
    seat = state.turn
    sim = PlanSimulator(rules, state, seat, planner, stakes=True, endgame=ENDGAME_CARDS)
    plans = sim.prepare([list(h) for h in hands])
    groups: list[list[Play] | None] = [list(g) for g in plans]
    groups[seat] = list(sim.own_split(None))
    last = state.trick_combo if state.trick is not None else None
    owner = state.trick_seat if last is not None else -1
    left = [sum(h) for h in hands]
    move = sim.policy(seat, [list(h) for h in hands], groups, left, last, owner,
                      list(state.finished))
    score = sim.rollout_plan([list(h) for h in hands], plans, move)
    return score if seat == lord else 1.0 - score


def play_hand(seed: str, index: int, mix: list[str]) -> list[dict[str, Any]]:
    """One self-play hand: its rows (features, the landlord's win and points)."""
    rules = build_rules(3, ["doudizhu"], {"match_multiple": 1})
    names = bomb_kind_names(rules)
    planner = Planner(rules, node_cap=SPLIT_NODES)
    pick = HashStream(f"learn-mix\x00{seed}\x00{index}".encode())
    levels = [mix[pick.uniform(len(mix))] for _ in range(3)]
    bots = [_bot(levels[s], f"{seed}:{index}:{s}") for s in range(3)]
    game = Game(rules, 1)
    rows: list[dict[str, Any]] = []
    game.start_round(round_seed(f"learn:{seed}", index))
    while game.match.phase == "playing":
        state = game.match.round
        assert state is not None
        seat = state.turn
        if state.phase == Phase.PLAY:
            lord = landlord_of(state)
            assert lord is not None
            hands = [rank_counts(h) for h in state.hands]
            costs = []
            for h in hands:
                planner.spent = 0
                costs.append(planner.plan(h).cost if any(h) else 0.0)
            last = state.trick_combo if state.trick is not None else None
            owner = state.trick_seat if last is not None else -1
            x = features(hands, costs, lord, seat, last, owner, names)
            rs = rollout_label(rules, state, planner, hands, lord)
            rows.append({"x": [round(v, 4) for v in x], "lord": lord, "r": int(rs > 0.5),
                         "rs": rs})
        game.apply(seat, bots[seat].act(rules, view(state, seat), seat))
    if not game.match.results:
        return []  # (a hand nobody bid on is dealt again in a real match: no rows)
    res = game.match.results[-1]
    for row in rows:
        lord = row.pop("lord")
        row["y"] = int(res.order[0] == lord)
        row["points"] = res.points[lord]
        row["hand"] = index
    return rows


def _worker(job: dict[str, Any]) -> dict[str, Any]:
    t0 = time.monotonic()
    out = Path(job["out"])
    hands = rows = 0
    with out.open("w", encoding="utf-8") as f:
        for i in range(job["start"], job["start"] + job["hands"]):
            if time.monotonic() - t0 > job["max_seconds"]:
                break
            for row in play_hand(job["seed"], i, job["mix"]):
                f.write(json.dumps(row, separators=(",", ":")) + "\n")
                rows += 1
            hands += 1
    return {"file": str(out), "hands": hands, "rows": rows}


def generate(
    out_dir: Path, hands: int, workers: int = 1, seed: str = "learn", mix: str = DEFAULT_MIX,
    max_seconds: float = 600.0,
) -> list[Path]:
    """Play ``hands`` hands over ``workers`` processes; the row files written."""
    out_dir.mkdir(parents=True, exist_ok=True)
    levels = [m.strip() for m in mix.split(",") if m.strip()]
    share = -(-hands // max(1, workers))
    jobs = [
        {"out": str(out_dir / f"rows-{w}.jsonl"), "start": w * share,
         "hands": max(0, min(share, hands - w * share)), "seed": seed, "mix": levels,
         "max_seconds": max_seconds}
        for w in range(max(1, workers))
    ]
    if workers > 1:
        with multiprocessing.get_context("spawn").Pool(workers) as pool:
            done = pool.map(_worker, jobs)
    else:
        done = [_worker(j) for j in jobs]
    total_h = sum(d["hands"] for d in done)
    total_r = sum(d["rows"] for d in done)
    print(f"generate: {total_h} hands, {total_r} positions ({mix}; seed {seed!r})")
    return [Path(d["file"]) for d in done]
