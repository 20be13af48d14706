"""Step 2 and 3: train the value network on the generated rows, export it as JSON.

Why a one-hidden-layer network: it trains in minutes on a CPU with numpy, and
its inference is a few thousand multiply-adds in plain Python
(:class:`zsy_lan.bots.value.ValueModel`), cheap enough for the end of every
rollout. Loss: the log-loss of the landlord's win. Rows of one hand are
strongly alike (one outcome for all of them), so a network soon learns the
hands by heart: training keeps the epoch with the lowest log-loss on a
validation set of whole hands (``hand % 10 == 1``), and the figures printed
are on another set of whole hands (``hand % 10 == 0``), neither trained on.
The label is the hand's outcome or the rollout's (``--target``, see
:mod:`.generate`).
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np

from zsy_lan.bots.value import FEATURE_COUNT

TARGETS = {"outcome": "y", "rollout": "r"}


def load_rows(files: Iterable[Path], target: str = "outcome") -> tuple[Any, Any, Any]:
    """Features, labels and hand ids of every row in the files.

    ``target``: ``outcome`` (did the landlord win the hand) or ``rollout`` (did it
    win ``hard``'s rollout from that position, :func:`.generate.rollout_label`).
    """
    key = TARGETS[target]
    xs: list[list[float]] = []
    ys: list[int] = []
    hands: list[int] = []
    for f in files:
        with Path(f).open(encoding="utf-8") as fh:
            for line in fh:
                row = json.loads(line)
                xs.append(row["x"])
                ys.append(row[key])
                hands.append(row["hand"])
    x = np.asarray(xs, dtype=np.float64).reshape(-1, FEATURE_COUNT)
    return x, np.asarray(ys, dtype=np.float64), np.asarray(hands)


def _sigmoid(z: Any) -> Any:
    return 1.0 / (1.0 + np.exp(-np.clip(z, -30, 30)))


def forward(params: dict[str, Any], x: Any) -> Any:
    """The network's win probabilities for rows ``x`` (numpy: the reference)."""
    h = np.maximum(0.0, x @ params["w1"].T + params["b1"])
    return _sigmoid(h @ params["w2"] + params["b2"])


def log_loss(p: Any, y: Any) -> float:
    """Mean log-loss of probabilities ``p`` for labels ``y``."""
    p = np.clip(p, 1e-7, 1 - 1e-7)
    return float(-np.mean(y * np.log(p) + (1 - y) * np.log(1 - p)))


def train(
    x: Any, y: Any, hands: Any, *, hidden: int = 32, epochs: int = 10, batch: int = 256,
    lr: float = 3e-3, l2: float = 1e-3, seed: int = 0,
) -> tuple[dict[str, Any], dict[str, float]]:
    """Adam on the log-loss, the best epoch on validation hands; parameters and figures."""
    rng = np.random.default_rng(seed)
    test = hands % 10 == 0
    val = hands % 10 == 1
    fit = ~(test | val)
    xt, yt, xv, yv = x[fit], y[fit], x[test], y[test]
    xval, yval = x[val], y[val]
    if len(xt) == 0:
        raise ValueError("no training rows")
    d = x.shape[1]
    params = {
        "w1": rng.normal(0, math.sqrt(2.0 / d), (hidden, d)),
        "b1": np.zeros(hidden),
        "w2": rng.normal(0, math.sqrt(1.0 / hidden), hidden),
        "b2": np.zeros(()),
    }
    m = {k: np.zeros_like(v) for k, v in params.items()}
    v2 = {k: np.zeros_like(v) for k, v in params.items()}
    step = 0
    best: tuple[float, dict[str, Any], int] = (float("inf"), dict(params), 0)
    for epoch in range(epochs):
        order = rng.permutation(len(xt))
        for s in range(0, len(order), batch):
            idx = order[s : s + batch]
            xb, yb = xt[idx], yt[idx]
            a = xb @ params["w1"].T + params["b1"]
            h = np.maximum(0.0, a)
            p = _sigmoid(h @ params["w2"] + params["b2"])
            g = (p - yb) / len(idx)  # d loss / d logit
            grads = {
                "w2": h.T @ g + l2 * params["w2"],
                "b2": np.asarray(g.sum()),
            }
            gh = np.outer(g, params["w2"]) * (a > 0)
            grads["w1"] = gh.T @ xb + l2 * params["w1"]
            grads["b1"] = gh.sum(axis=0)
            step += 1
            for k in params:
                m[k] = 0.9 * m[k] + 0.1 * grads[k]
                v2[k] = 0.999 * v2[k] + 0.001 * grads[k] ** 2
                mh = m[k] / (1 - 0.9**step)
                vh = v2[k] / (1 - 0.999**step)
                params[k] = params[k] - lr * mh / (np.sqrt(vh) + 1e-8)
        score = log_loss(forward(params, xval), yval) if len(xval) else -float(epoch)
        if score < best[0]:
            best = (score, dict(params), epoch + 1)
    params = best[1]
    base = float(yt.mean())
    stats = {
        "train_rows": float(len(xt)), "test_rows": float(len(xv)), "epochs_kept": float(best[2]),
        "train_loss": log_loss(forward(params, xt), yt),
        "test_loss": log_loss(forward(params, xv), yv) if len(xv) else float("nan"),
        "test_base_loss": log_loss(np.full(len(yv), base), yv) if len(xv) else float("nan"),
        "test_accuracy": float(np.mean((forward(params, xv) > 0.5) == (yv > 0.5)))
        if len(xv) else float("nan"),
    }
    return params, stats


def export(params: dict[str, Any], path: Path, meta: dict[str, Any]) -> int:
    """Write the model as JSON (5 significant digits: a few tens of KB); its size in bytes."""

    def r(v: float) -> float:
        return float(f"{v:.5g}")

    data = {
        "features": int(params["w1"].shape[1]),
        "w1": [[r(v) for v in row] for row in params["w1"]],
        "b1": [r(v) for v in params["b1"]],
        "w2": [r(v) for v in params["w2"]],
        "b2": r(float(params["b2"])),
        "meta": meta,
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(data, separators=(",", ":")) + "\n"
    path.write_text(text, encoding="utf-8")
    return len(text.encode())
