"""The bot levels behind one name each, so every caller spells them the same way.

``easy`` is the engine's greedy baseline, ``normal`` the hand planner,
``hard`` the sampling search; ``random`` (uniform among legal actions) is kept
out of :data:`LEVELS` because no player asks for it, but the benchmarks and
tests measure against it.
"""

from __future__ import annotations

from typing import Any

from zsy_lan.bots.base import Bot, Observation, going_out, side_of
from zsy_lan.bots.bidding import BID_KINDS, DOUBLE_KINDS, phase_choice
from zsy_lan.bots.planner import NormalBot
from zsy_lan.bots.rulebased import RuleBot
from zsy_lan.bots.search import HardBot, drop_exposed
from zsy_lan.engine.bots import GreedyBot
from zsy_lan.engine.shuffle import HashStream
from zsy_lan.engine.state import PASS, PLAY, Action
from zsy_lan.engine.view import state_hash


class EasyBot(Bot):
    """Level ``easy``: the engine's greedy baseline behind the common interface."""

    level = "easy"

    def __init__(self, seed: bytes | int | str = 0) -> None:
        super().__init__(seed)
        self._greedy = GreedyBot(self.seed)
        self._normal = NormalBot(self.seed)

    def choose(self, obs: Observation) -> Action:
        """The greedy choice (smallest play that beats, bombs kept), but never absurd.

        Easy may be weak, not absurd: a play that empties the hand is always
        taken (a bomb that is the whole hand included), whatever greedy says.
        """
        out = going_out(obs)
        if out is not None:
            return out
        if any(a.kind in BID_KINDS or a.kind in DOUBLE_KINDS for a in obs.legal):
            # bids and doubles by the hand's worth, like every level (never the first
            # legal action blindly: that made easy bid on hopeless hands)
            return phase_choice(self._normal, obs)[0]
        view = obs.view
        owner = view.trick_seat if view.trick is not None else -1
        if obs.rules.teams and owner != obs.seat and owner in side_of(obs.rules, view, obs.seat):
            # a fixed partner's play is winning the trick: not overtaken (Guandan,
            # partnerships); the partner's winning play is the side's
            passing = Action(PASS, obs.seat)
            if passing in obs.legal:
                return passing
        action = self._greedy.act(obs.rules, obs.view, obs.seat)
        if action not in obs.legal:
            return obs.legal[0]
        if obs.view.trick is None and action.kind == PLAY:
            # nor does it lead what an opponent about to go out can beat, when a safe
            # lead exists (the lowest safe lead then)
            action = drop_exposed(obs, [action])[0]
        return action


class RandomLevelBot(Bot):
    """Uniformly random among the legal actions (benchmark baseline).

    The draw is keyed by the seed *and* the observed state, so like every
    level its choice depends on (seed, observation) alone.
    """

    level = "random"

    def choose(self, obs: Observation) -> Action:
        """A uniformly random legal action (deterministic given seed and view)."""
        key = self.seed + b"\x00" + state_hash(obs.view).encode() + b"\x00" + bytes([obs.seat])
        return obs.legal[HashStream(b"zsy-random\x00" + key).uniform(len(obs.legal))]


LEVELS: dict[str, type[Bot]] = {"easy": EasyBot, "normal": NormalBot, "hard": HardBot}
BASELINES: dict[str, type[Bot]] = {"random": RandomLevelBot, "rule": RuleBot}
DEFAULT_LEVEL = "normal"


def level_names(include_baselines: bool = False) -> list[str]:
    """The level names, weakest first (``random`` first when included)."""
    names = list(LEVELS)
    return (list(BASELINES) + names) if include_baselines else names


def make_bot(level: str = DEFAULT_LEVEL, seed: bytes | int | str = 0, **options: Any) -> Bot:
    """A bot of ``level`` with ``seed``; options go to the level (``hard``: ``budget_ms``...).

    Raises ``ValueError`` naming the known levels for an unknown one.
    """
    cls = LEVELS.get(level) or BASELINES.get(level)
    if cls is None:
        known = ", ".join(level_names(include_baselines=True))
        raise ValueError(f"unknown bot level '{level}' (known: {known})")
    return cls(seed, **options)
