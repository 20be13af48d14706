"""Engine-only matches between baseline bots: ``zsy selfplay`` and the benchmarks.

Each round's seed is ``SHA-256("zsy-selfplay" || seed || round index)``, so
the same ``--seed`` gives the same deals, the same actions and the same hashes
on every machine.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

from .bots import BOTS, Bot
from .game import Game
from .phases import MatchPhase
from .rules import Rules
from .state import Action
from .view import public_hash, view


@dataclass
class SelfplayResult:
    """What a selfplay match produced."""

    orders: list[list[int]] = field(default_factory=list)
    points: list[list[int]] = field(default_factory=list)
    hashes: list[str] = field(default_factory=list)
    actions: int = 0
    winners: list[int] = field(default_factory=list)
    totals: list[int] = field(default_factory=list)
    upstreams: list[int] = field(default_factory=list)
    log: list[Action] = field(default_factory=list)
    seeds: list[bytes] = field(default_factory=list)
    # per round: the tied seats a deciding round was played between (ZSY-8.5), else ()
    deciding: list[tuple[int, ...]] = field(default_factory=list)


def round_seed(seed: int | str, index: int) -> bytes:
    """The seed of round ``index`` (0-based) of a selfplay match."""
    return hashlib.sha256(f"zsy-selfplay\x00{seed}\x00{index}".encode()).digest()


def play_match(
    rules: Rules,
    rounds: int,
    seed: int | str,
    bots: list[Bot] | str = "greedy",
    max_actions: int = 100_000,
) -> SelfplayResult:
    """Play a whole match; each bot sees only its seat's view."""
    if isinstance(bots, str):
        players: list[Bot] = [BOTS[bots](f"{seed}:{s}") for s in range(rules.players)]
    else:
        players = bots
    game = Game(rules, rounds)
    out = SelfplayResult()
    index = 0
    tied: tuple[int, ...] = ()  # the seats the round being played decides between
    while not game.finished():
        if game.needs_seed():
            tied = tuple(game.match.tied)
            s = round_seed(seed, index)
            index += 1
            game.start_round(s)
            out.seeds.append(s)
            continue
        state = game.match.round
        assert state is not None
        seat = state.turn
        action = players[seat].act(rules, view(state, seat), seat)
        game.apply(seat, action)
        out.actions += 1
        if out.actions > max_actions:
            raise RuntimeError("selfplay exceeded its action budget")
        if game.match.phase != MatchPhase.PLAYING and len(game.match.results) > len(out.orders):
            # (a void hand, DDZ-2.3: nobody bid, records no result: the next deal follows)
            res = game.match.results[-1]
            out.orders.append(list(res.order))
            out.points.append(list(res.points))
            out.deciding.append(tied if res.deciding else ())
            assert game.match.round is not None
            out.hashes.append(public_hash(game.match.round))
    out.winners = list(game.match.winners)
    out.totals = list(game.match.totals)
    out.upstreams = list(game.match.upstreams)
    out.log = game.log
    return out
