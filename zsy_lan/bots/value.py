"""A learned value of a Dou Dizhu position: how likely the landlord is to win from here.

Why: ``hard`` judges a candidate by playing sampled worlds out with the
``normal`` planner's habits (:mod:`.rollout`); a model that has seen how
thousands of hands went on from similar positions can stand in for the end of
a long rollout (issue #28). It reads a *full-information* position, as a
rollout has it in its sampled world: every seat's rank counts, the planner's
split of each hand (its cost: about the turns the hand still needs), whose turn
it is and the trick to beat.

The model is a small network (one hidden layer) trained by ``tools/learn``
(with numpy, outside the installed game) and shipped as a JSON file of
weights; inference here is plain Python, a few thousand multiply-adds, so
the game needs no numerical library. :func:`features` is the one definition
of the inputs, shared by the training pipeline and the bot, so they cannot
drift apart.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import Any

from zsy_lan.engine.cards import BJ, NUM_RANKS, RJ
from zsy_lan.engine.combos import Combo

# The shipped model (``tools/learn`` writes it; ``None`` from :func:`default_model`
# when the file is absent).
MODEL_PATH = Path(__file__).with_name("models") / "ddz_value.json"
# Combo kinds the trick features name (others count as "other").
TRICK_KINDS = (
    "single", "pair", "triple", "triple1", "triple2", "chain", "pairchain", "plane", "plane1",
    "plane2",
)
# The scale of a Dou Dizhu hand (the landlord's 20 cards) and of a split's cost.
HAND_SCALE = 20.0
COST_SCALE = 10.0


def features(
    hands: Sequence[Sequence[int]],
    costs: Sequence[float],
    lord: int,
    turn: int,
    last: Combo | None,
    owner: int,
    bomb_names: frozenset[str] = frozenset(),
) -> list[float]:
    """The model's inputs for a 3-seat Dou Dizhu position, seats taken from the landlord.

    ``hands``: rank counts per seat; ``costs``: the planner's split cost per seat
    (:meth:`.planner.Planner.plan`); ``last``/``owner``: the trick to beat and
    whose it is (``None``/``-1`` when ``turn`` leads). Seats are ordered landlord,
    the farmer after it, the farmer before it, so one model serves every seat.
    """
    n = len(hands)
    order = [(lord + i) % n for i in range(n)]
    x: list[float] = []
    for s in order:
        h = hands[s]
        x.extend(c / 4.0 for c in h[:NUM_RANKS])
        total = sum(h)
        x.append(total / HAND_SCALE)
        x.append(costs[s] / COST_SCALE)
        x.append(1.0 if h[BJ] and h[RJ] else 0.0)
        x.append(float(sum(1 for c in h if c == 4)))
        x.append(1.0 if total <= 2 else 0.0)
    x.extend(1.0 if turn == s else 0.0 for s in order)
    if last is None:
        x.append(1.0)
        x.extend([0.0] * (n + 3 + len(TRICK_KINDS) + 1))
    else:
        x.append(0.0)
        x.extend(1.0 if owner == s else 0.0 for s in order)
        x.append(last.length / HAND_SCALE)
        x.append(last.key / (NUM_RANKS - 1))
        x.append(1.0 if last.kind in bomb_names else 0.0)
        x.extend(1.0 if last.kind == k else 0.0 for k in TRICK_KINDS)
        x.append(0.0 if last.kind in TRICK_KINDS or last.kind in bomb_names else 1.0)
    return x


FEATURE_COUNT = len(features([[0] * NUM_RANKS] * 3, [0.0] * 3, 0, 0, None, -1))


class ValueModel:
    """A one-hidden-layer network (ReLU, then a logistic output), weights from JSON."""

    def __init__(self, data: dict[str, Any]) -> None:
        if data.get("features") != FEATURE_COUNT:
            raise ValueError(
                f"model expects {data.get('features')} features, this code makes {FEATURE_COUNT}"
            )
        self.w1: list[list[float]] = [list(map(float, row)) for row in data["w1"]]
        self.b1: list[float] = list(map(float, data["b1"]))
        self.w2: list[float] = list(map(float, data["w2"]))
        self.b2 = float(data["b2"])
        self.meta: dict[str, Any] = dict(data.get("meta", {}))
        if len(self.w1) != len(self.b1) or len(self.w2) != len(self.b1):
            raise ValueError("model layers do not fit together")
        if any(len(row) != FEATURE_COUNT for row in self.w1):
            raise ValueError("model rows do not fit the features")

    @classmethod
    def load(cls, path: Path | str) -> ValueModel:
        """Read a model written by ``tools/learn`` (JSON)."""
        return cls(json.loads(Path(path).read_text(encoding="utf-8")))

    def predict(self, x: Sequence[float]) -> float:
        """The landlord's chance to win (0..1) from :func:`features`' vector."""
        z = self.b2
        for row, b, w in zip(self.w1, self.b1, self.w2, strict=True):
            a = b
            for wi, xi in zip(row, x, strict=False):
                if xi:
                    a += wi * xi
            if a > 0.0:
                z += w * a
        if z < -30.0:
            return 0.0
        return 1.0 / (1.0 + math.exp(-z))


@cache
def default_model() -> ValueModel | None:
    """The shipped model, read once (``None`` when the package carries none)."""
    if not MODEL_PATH.exists():
        return None
    return ValueModel.load(MODEL_PATH)
