"""Bidding and doubling measured against outcome (issue #16), Dou Dizhu, 3 players.

Run from the repository root (one process, ``nice`` on a shared machine)::

    nice -n 19 .venv/bin/python bench/bench_bidding.py --deals 600
    .venv/bin/python bench/bench_bidding.py --deals 30          # smoke

Method: for every seeded deal, each seat's *bid* is asked once as if it
were the first to bid (all of 1, 2, 3 and pass offered), from the levels'
bidding (easy, normal and hard share it: :func:`zsy_lan.bots.bidding.phase_choice`)
and from the rule-based yardstick (``rule``). Then the deal is played out
three times, each seat once the forced landlord (bid 3 for it, a pass from the
others), every seat played by ``--player`` (default ``normal``), with the
doubling option on (DDZ-6.2: each farmer may double, the landlord redouble,
by the player's own decisions). Reported:

* per bid value: how many hands chose it, how often such a hand won as the
  landlord and its mean points as the landlord (the bid's stake set to 1, so
  hands are comparable): a bid of 3 should win most of the time, a pass rarely;
* ``passed but would have won``: the share of passed hands that won as landlord;
* doubling: how often a farmer doubled, the farmers' win rate when it doubled
  and when it did not, and the points the doubles gained or lost in total.

Intervals are Wilson 95% over hands (every hand is its own deal and seat).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from zsy_lan.bots import make_bot
from zsy_lan.bots.base import Bot, Observation
from zsy_lan.engine.game import Game
from zsy_lan.engine.ruleset import build_rules
from zsy_lan.engine.selfplay import round_seed
from zsy_lan.engine.state import evolve
from zsy_lan.engine.view import view

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from bench_bots import ForcedBidder, wilson  # noqa: E402


def bid_of(bot: Bot, rules, state, seat: int) -> int:  # noqa: ANN001
    """The bid ``bot`` makes for ``seat`` when it is the first to bid (0: pass)."""
    st = evolve(state, turn=seat)
    a = bot.choose(Observation.of(rules, view(st, seat), seat))
    return a.value if a.kind == "bid" else 0


def strength_of(rules, hand) -> float:  # noqa: ANN001
    """The levels' worth of a hand (what their bidding decides from)."""
    from zsy_lan.bots.bidding import hand_strength
    from zsy_lan.bots.planner import Planner
    from zsy_lan.engine.cards import rank_counts

    return hand_strength(rules, hand, Planner(rules).plan(rank_counts(hand)).cost)


def strength_bin(x: float, top: int = 5) -> float:
    """Bins of width 1, the ends pooled (below -3, ``top`` and above)."""
    return float(max(-3, min(top, int(x // 1))))


def play_out(rules, seed: bytes, lord: int, player: str, tag: str) -> dict[str, Any]:  # noqa: ANN001
    """One hand with ``lord`` the forced landlord; the outcome and the doubles."""
    game = Game(rules, 1)
    game.start_round(seed)
    bots = [ForcedBidder(make_bot(player, f"{tag}:{s}"), s == lord) for s in range(3)]
    doubles: dict[int, int] = {}
    lord_strength: float | None = None  # at the redouble (20 cards), when it was offered
    while game.match.phase == "playing":
        st = game.match.round
        assert st is not None
        seat = st.turn
        a = bots[seat].act(rules, view(st, seat), seat)
        if a.kind in ("double", "redouble"):
            doubles[seat] = a.value
            if a.kind == "redouble" or seat == lord:
                lord_strength = strength_of(rules, st.hands[seat])
        game.apply(seat, a)
    res = game.match.results[-1]
    return {"won": res.order[0] == lord, "points": list(res.points), "doubles": doubles,
            "bid": 3, "lord_strength": lord_strength}


def main(argv: list[str] | None = None) -> int:
    """Command line entry."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--deals", type=int, default=600)
    ap.add_argument("--player", default="normal", help="the level playing the hands out")
    ap.add_argument("--json", metavar="FILE")
    args = ap.parse_args(argv)
    rules = build_rules(3, ["doudizhu"], {"match_multiple": 1, "doubling": True})
    bidders = {"levels": make_bot("normal", "bid"), "rule": make_bot("rule", "bid")}
    rows: dict[str, dict[int, list[float]]] = {k: {} for k in bidders}
    doubled = {"yes": [0, 0, 0.0], "no": [0, 0, 0.0]}  # farmer hands, farmer wins, points
    by_strength: dict[float, list[tuple[float, float]]] = {}
    as_farmer: dict[float, list[tuple[float, float, int]]] = {}
    # the landlord's answer to a double: by its strength when asked (20 cards), the
    # landlord's wins and its points per bid unit against the farmers who doubled
    redoubles: dict[float, list[tuple[float, float, int]]] = {}
    for d in range(args.deals):
        seed = round_seed("bidding", d)
        game = Game(rules, 1)
        game.start_round(seed)
        st0 = game.match.round
        assert st0 is not None and st0.phase == "bidding"
        bids = {k: [bid_of(b, rules, st0, s) for s in range(3)] for k, b in bidders.items()}
        strength = [strength_of(rules, st0.hands[s]) for s in range(3)]
        for lord in range(3):
            out = play_out(rules, seed, lord, args.player, f"bidding:{d}:{lord}")
            # points as the landlord, per unit of bid (the forced bid is 3)
            pts = out["points"][lord] / 3
            b = strength_bin(strength[lord])
            by_strength.setdefault(b, []).append((float(out["won"]), pts))
            for f in range(3):
                if f != lord:
                    fb = strength_bin(strength[f])
                    as_farmer.setdefault(fb, []).append(
                        (float(not out["won"]), out["points"][f] / 3, out["doubles"].get(f, 0)))
            for k in bidders:
                rows[k].setdefault(bids[k][lord], []).append(float(out["won"]))
                rows[k].setdefault(10 + bids[k][lord], []).append(pts)
            if out["lord_strength"] is not None:
                doublers = [f for f, v in out["doubles"].items() if f != lord and v]
                # the stake against the doublers alone: what a redouble doubles again
                # (as if not redoubled: a redouble adds the same again, so it pays
                # exactly where this is positive)
                again = 2 if out["doubles"].get(lord, 0) else 1
                vs = sum(-out["points"][f] for f in doublers) / 3 / again
                redoubles.setdefault(strength_bin(out["lord_strength"], 9), []).append(
                    (float(out["won"]), vs, out["doubles"].get(lord, 0)))
            for f, v in out["doubles"].items():
                if f == lord:
                    continue
                row = doubled["yes" if v else "no"]
                row[0] += 1
                row[1] += int(not out["won"])
                row[2] += out["points"][f] / 3
    report: dict[str, Any] = {"deals": args.deals, "player": args.player, "bids": {}}
    for k, per in rows.items():
        print(f"bidder {k}:")
        report["bids"][k] = {}
        for bid in (0, 1, 2, 3):
            wins = per.get(bid, [])
            pts = per.get(10 + bid, [])
            n = len(wins)
            p, lo, hi = wilson(int(sum(wins)), n)
            mean_pts = sum(pts) / n if n else 0.0
            label = "pass" if bid == 0 else f"bid {bid}"
            extra = "  (passed but would have won)" if bid == 0 else ""
            print(f"  {label:6} hands {n:5}  won as landlord {100 * p:5.1f}% "
                  f"[{100 * lo:4.1f}, {100 * hi:4.1f}]  points as landlord per bid unit "
                  f"{mean_pts:+.2f}{extra}")
            report["bids"][k][label] = {"hands": n, "won": p, "lo": lo, "hi": hi,
                                        "points": mean_pts}
    for k, (n, w, pts) in doubled.items():
        p, lo, hi = wilson(w, n)
        print(f"farmer doubled={k:3}  hands {n:5}  farmers won {100 * p:5.1f}% "
              f"[{100 * lo:4.1f}, {100 * hi:4.1f}]  farmer points per bid unit "
              f"{(pts / n if n else 0):+.2f}")
        report["double_" + k] = {"hands": n, "farmers_won": p, "lo": lo, "hi": hi,
                                 "points": pts / n if n else 0.0}
    print("by the levels' hand strength (phases.hand_strength of the 17 cards):")
    report["strength"] = {}
    for b in sorted(by_strength):
        rows_b = by_strength[b]
        n = len(rows_b)
        w = int(sum(x for x, _ in rows_b))
        p, lo, hi = wilson(w, n)
        pts = sum(y for _, y in rows_b) / n
        fr = as_farmer.get(b, [])
        fw = sum(x for x, _, _ in fr) / len(fr) if fr else 0.0
        fd = sum(z for _, _, z in fr) / len(fr) if fr else 0.0
        print(f"  strength [{b:+.0f}, {b + 1:+.0f})  hands {n:4}  as landlord: won "
              f"{100 * p:5.1f}% [{100 * lo:4.1f}, {100 * hi:4.1f}]  points/bid unit {pts:+.2f}"
              f"   as farmer: side won {100 * fw:5.1f}%  doubled {100 * fd:5.1f}%")
        report["strength"][b] = {"hands": n, "won": p, "lo": lo, "hi": hi, "points": pts,
                                 "farmer_won": fw, "farmer_doubled": fd}
    print("the landlord's redouble, by its strength when asked (20 cards; a farmer doubled):")
    report["redouble"] = {}
    for b in sorted(redoubles):
        rows_r = redoubles[b]
        n = len(rows_r)
        w = int(sum(x for x, _, _ in rows_r))
        p, lo, hi = wilson(w, n)
        pts = sum(y for _, y, _ in rows_r) / n
        rd = sum(z for _, _, z in rows_r) / n
        print(f"  strength [{b:+.0f}, {b + 1:+.0f})  hands {n:4}  landlord won {100 * p:5.1f}% "
              f"[{100 * lo:4.1f}, {100 * hi:4.1f}]  points vs the doublers/bid unit "
              f"(unredoubled) {pts:+.2f}"
              f"  redoubled {100 * rd:5.1f}%")
        report["redouble"][b] = {"hands": n, "won": p, "lo": lo, "hi": hi, "points": pts,
                                 "redoubled": rd}
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump(report, fh, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
