"""Regenerate the golden replays: ``python tests/golden/regen.py``.

Each file is one whole match with greedy bots: a header line, then for every
round its seed and every action with the public state hash after it. Review
the diff before committing: a changed golden file means changed rules or a
changed shuffle, and peers on different versions would disagree.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from zsy_lan.engine.game import Game
from zsy_lan.engine.rules import base_rules
from zsy_lan.engine.selfplay import play_match
from zsy_lan.engine.view import public_hash

HERE = Path(__file__).parent
CASES = {
    "zsy-3p.jsonl": dict(players=3, scoring="ranking"),
    "zsy-4p.jsonl": dict(players=4, scoring="cardcount"),
    "zsy-5p.jsonl": dict(players=5, scoring="penalty"),
    "zsy-6p.jsonl": dict(players=6, scoring="ranking"),
}
ROUNDS = 3
SEED = "golden"


def record(players: int, scoring: str) -> list[dict]:
    """The golden lines for one configuration."""
    rules = base_rules(players, scoring=scoring)
    res = play_match(rules, ROUNDS, SEED, bots="greedy")
    lines: list[dict] = [{"players": players, "scoring": scoring, "rounds": ROUNDS, "seed": SEED}]
    game = Game(rules, ROUNDS)
    seeds = iter(res.seeds)
    for action in res.log:
        while game.needs_seed():
            s = next(seeds)
            game.start_round(s)
            lines.append({"deal": s.hex(), "hash": public_hash(game.round)[:16]})
        game.apply(action.seat, action)
        lines.append({"action": action.to_json(), "hash": public_hash(game.round)[:16]})
    lines.append(
        {
            "result": {
                "orders": res.orders,
                "totals": res.totals,
                "winners": res.winners,
                "match_hash": game.public_hash(),
            }
        }
    )
    return lines


def main() -> int:
    for name, case in CASES.items():
        path = HERE / name
        path.write_text("".join(json.dumps(line) + "\n" for line in record(**case)))
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
