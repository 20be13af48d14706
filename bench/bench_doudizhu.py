"""Dou Dizhu benchmarks: legal-move generation per state, and random hands per second.

Run: ``.venv/bin/python bench/bench_doudizhu.py [--states N] [--hands N] [--json]``.

* move generation: ``legal_moves`` (what bots and hints call) for 17-card
  and 20-card hands from seeded deals, leading and following (the play to
  follow is a random non-bomb lead from another seat's hand); each state is
  timed over several calls with ``time.process_time`` and the median per
  state is reported in µs. Targets (issue 3): under 50 µs for a 20-card
  leading hand.
* random hands: whole Dou Dizhu hands (deal, bidding, kitty, play to the
  first player out, scoring) between uniformly random players on one core.
  Two figures: through the full state machine (``deal_round``/``apply_action``
  /``legal_moves``, card ids, state copies: what a replica does), and through
  ``doudizhu.random_playout`` (the same rules and the same move generator on
  rank counts: what a Monte Carlo bot does; tests check both give the same
  hands). Target: at least 1,000 hands per second.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import statistics
import time
from typing import Any

from zsy_lan.engine.combos import legal_plays
from zsy_lan.engine.match import apply_action, deal_round, new_match
from zsy_lan.engine.round import legal_actions, legal_moves, move_action
from zsy_lan.engine.ruleset import build_rules
from zsy_lan.engine.shuffle import HashStream
from zsy_lan.engine.state import evolve, with_extra


def _seed(i: int) -> bytes:
    return hashlib.sha256(f"bench-ddz\x00{i}".encode()).digest()


def _states(rules: Any, n: int, kitty: bool, follow: bool) -> list[Any]:
    """Play-phase states whose seat 0 holds 17 cards (or 20 with the kitty)."""
    out = []
    stream = HashStream(b"bench-follow")
    i = 0
    while len(out) < n:
        m = deal_round(rules, new_match(rules, 3), _seed(i))
        i += 1
        st = m.round
        assert st is not None
        hands = list(st.hands)
        counts = list(st.counts)
        if kitty:
            hands[0] = tuple(sorted(hands[0] + st.get("secret_kitty")))
            counts[0] = len(hands[0])
        st = evolve(with_extra(st, landlord=0, bid=1), phase="play", hands=tuple(hands),
                    counts=tuple(counts), turn=0, leader=0)
        if follow:
            other = [p for p in legal_plays(rules, _counts(hands[1]))
                     if not rules.kind_by_name[p.combo.kind].bomb]
            pick = other[stream.uniform(len(other))]
            st = evolve(st, trick=pick.ranks, trick_seat=1, trick_combo=pick.combo)
        out.append(st)
    return out


def _counts(hand: Any) -> list[int]:
    from zsy_lan.engine.cards import rank_counts

    return rank_counts(hand)


def time_moves(rules: Any, states: list[Any], repeat: int = 20) -> float:
    """Median over states of the mean µs per ``legal_moves`` call."""
    per_state = []
    for st in states:
        legal_moves(rules, st, 0)  # warm the play caches as a running game would
        t0 = time.process_time()
        for _ in range(repeat):
            legal_moves(rules, st, 0)
        per_state.append((time.process_time() - t0) / repeat * 1e6)
    return statistics.median(per_state)


def random_hands(rules: Any, hands: int, seed: str = "0") -> tuple[int, int, float]:
    """Play ``hands`` random hands; returns (hands played, void redeals, CPU seconds)."""
    stream = HashStream(f"bench-random\x00{seed}".encode())
    played = void = 0
    i = 0
    t0 = time.process_time()
    match = new_match(rules, 3)
    while played < hands:
        match = new_match(rules, 3) if match.phase == "over" or match.results else match
        match = deal_round(rules, match, _seed(10_000_000 + i))
        i += 1
        while match.phase == "playing":
            st = match.round
            assert st is not None
            seat = st.turn
            if st.phase == "play":
                moves = legal_moves(rules, st, seat)
                action = move_action(st, seat, moves[stream.uniform(len(moves))])
            else:
                acts = legal_actions(rules, st, seat)
                action = acts[stream.uniform(len(acts))]
            match = apply_action(rules, match, action)
        if match.results:
            played += 1
        else:
            void += 1
    return played, void, time.process_time() - t0


def random_playouts(rules: Any, hands: int, seed: str = "0") -> tuple[int, int, float]:
    """Deal and play ``hands`` hands with ``random_playout``: (played, void, CPU seconds)."""
    from zsy_lan.engine.cards import rank_counts
    from zsy_lan.engine.round import deal_hands
    from zsy_lan.engine.shuffle import choose, derive, shuffled
    from zsy_lan.plugins.doudizhu import random_playout

    stream = HashStream(f"bench-playout\x00{seed}".encode())
    played = void = 0
    i = 0
    n = rules.players
    t0 = time.process_time()
    while played < hands:
        s = _seed(20_000_000 + i)
        i += 1
        dealt, kitty = deal_hands(rules, shuffled(rules.deck, derive(s, "deal")), 0)
        pts = random_playout(rules, [rank_counts(h) for h in dealt], rank_counts(kitty),
                             choose(s, "bidder", n), stream.uniform)
        if pts is None:
            void += 1
        else:
            played += 1
    return played, void, time.process_time() - t0


def main() -> None:
    """Print the figures (docs/performance.md, "Dou Dizhu")."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--states", type=int, default=300)
    ap.add_argument("--hands", type=int, default=2000)
    ap.add_argument("--runs", type=int, default=3, help="hands/s: median of this many runs")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    rules = build_rules(3, ["doudizhu"])
    figures: dict[str, float] = {}
    for cards, kitty in ((17, False), (20, True)):
        for mode, follow in (("leading", False), ("following", True)):
            states = _states(rules, args.states, kitty, follow)
            figures[f"moves_{cards}_{mode}_us"] = round(time_moves(rules, states), 2)
    rates = []
    for run in range(args.runs):
        played, void, secs = random_hands(rules, args.hands, str(run))
        rates.append(played / secs)
    figures["random_hands_per_s_state_machine"] = round(statistics.median(rates), 1)
    rates = []
    for run in range(args.runs):
        played, void, secs = random_playouts(rules, args.hands, str(run))
        rates.append(played / secs)
    figures["random_hands_per_s_playout"] = round(statistics.median(rates), 1)
    if args.json:
        print(json.dumps(figures, indent=2))
        return
    for k, v in figures.items():
        print(f"{k:36} {v}")


if __name__ == "__main__":
    main()
