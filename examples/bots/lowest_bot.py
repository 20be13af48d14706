#!/usr/bin/env python3
"""A minimal external bot for `zsy` (docs/bots.md): reads JSON lines, writes JSON lines.

It imports nothing from zsy_lan on purpose, to show the whole contract: each
input line is an observation; the answer is one of its "legal" actions,
copied back with the observation's "id". It plays the legal play with the
fewest, lowest cards, passes when it cannot play, and takes the first
choice in other phases (bidding, doubling, tribute). Run it with:

    zsy join --bot-cmd "python3 examples/bots/lowest_bot.py"
"""

import json
import sys


def rank(card: int) -> int:
    """Rank 0..14 of a card id (3 low ... 2, black joker, red joker)."""
    c = card % 54
    return 13 if c == 52 else 14 if c == 53 else c // 4


def choose(obs: dict) -> dict:
    legal = obs["legal"]
    plays = [a for a in legal if a["kind"] == "play"]
    if plays:
        return min(plays, key=lambda a: (max(rank(c) for c in a["cards"]), len(a["cards"])))
    passes = [a for a in legal if a["kind"] == "pass"]
    return passes[0] if passes else legal[0]


def main() -> None:
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            obs = json.loads(line)
            answer = dict(choose(obs))
            if "id" in obs:
                answer["id"] = obs["id"]
        except Exception as exc:  # never crash: say what went wrong
            answer = {"error": str(exc)}
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
