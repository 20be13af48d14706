"""One command for the whole pipeline: generate, train, export, check.

Run from the repository root (the ``learn`` extra installed)::

    nice -n 19 .venv/bin/python -m tools.learn --hands 4000 --out /tmp/learn
    .venv/bin/python -m tools.learn --hands 30 --epochs 2 --out /tmp/x --model /tmp/x/m.json

It scales unchanged on a bigger machine: ``--workers N`` self-play processes,
``--hands N``. Each step prints its wall time; ``--max-seconds`` bounds the
generation's (each worker stops there and the run goes on with what it has).
The check step reads the exported file back with the game's own pure-Python
inference and compares it with numpy's predictions on held-out rows, so what
ships is what was measured.
"""

from __future__ import annotations

import argparse
import datetime
import time
from pathlib import Path

import numpy as np

from tools.learn.generate import DEFAULT_MIX, generate
from tools.learn.train import TARGETS, export, forward, load_rows, train
from zsy_lan.bots.value import MODEL_PATH, ValueModel


def check(params: dict, model_path: Path, x: np.ndarray, rows: int = 200) -> float:
    """Largest gap between the exported model's and numpy's predictions on ``rows`` rows."""
    model = ValueModel.load(model_path)
    sample = x[:rows]
    ref = forward(params, sample)
    return max((abs(model.predict(list(r)) - p) for r, p in zip(sample, ref, strict=True)),
               default=0.0)


def main(argv: list[str] | None = None) -> int:
    """Run every step; returns the exit status."""
    ap = argparse.ArgumentParser(prog="python -m tools.learn", description=__doc__.split("\n")[0])
    ap.add_argument("--hands", type=int, default=4000, help="self-play hands (default 4000)")
    ap.add_argument("--workers", type=int, default=1, help="self-play processes")
    ap.add_argument("--mix", default=DEFAULT_MIX, help="levels a seat is drawn from")
    ap.add_argument("--seed", default="learn", help="deal seed tag (keep it off the bench's)")
    ap.add_argument("--max-seconds", type=float, default=600.0,
                    help="wall-time bound of the generation step")
    ap.add_argument("--target", choices=sorted(TARGETS), default="outcome",
                    help="label: the hand's outcome or hard's rollout from the position")
    ap.add_argument("--hidden", type=int, default=32)
    ap.add_argument("--epochs", type=int, default=10,
                    help="at most (the best on validation hands is kept)")
    ap.add_argument("--out", type=Path, required=True, help="folder for the generated rows")
    ap.add_argument("--model", type=Path, default=MODEL_PATH, help="where the model goes")
    ap.add_argument("--rows", nargs="*", type=Path, default=None,
                    help="train on these row files instead of generating")
    args = ap.parse_args(argv)
    t_all = time.monotonic()
    t0 = time.monotonic()
    if args.rows:
        files = list(args.rows)
        print(f"generate: skipped, {len(files)} row files given")
    else:
        files = generate(args.out, args.hands, args.workers, args.seed, args.mix, args.max_seconds)
    print(f"  took {time.monotonic() - t0:.1f} s (bound {args.max_seconds:.0f} s per worker)")
    t0 = time.monotonic()
    x, y, hands = load_rows(files, args.target)
    params, stats = train(x, y, hands, hidden=args.hidden, epochs=args.epochs)
    print(f"train: {int(stats['train_rows'])} rows, held-out {int(stats['test_rows'])}: "
          f"log-loss {stats['test_loss']:.4f} (base rate {stats['test_base_loss']:.4f}), "
          f"accuracy {stats['test_accuracy']:.3f}; training log-loss {stats['train_loss']:.4f} "
          f"(epoch {int(stats['epochs_kept'])} of {args.epochs} kept)")
    print(f"  took {time.monotonic() - t0:.1f} s")
    t0 = time.monotonic()
    meta = {
        "trained": datetime.date.today().isoformat(), "hands": int(len(set(hands.tolist()))),
        "rows": int(len(y)), "target": args.target, "mix": args.mix, "seed": args.seed,
        "hidden": args.hidden,
        "epochs": args.epochs, **{k: round(v, 4) for k, v in stats.items()},
    }
    size = export(params, args.model, meta)
    gap = check(params, args.model, x)
    print(f"export: {args.model} ({size / 1024:.0f} KB); pure-Python inference within {gap:.1e} "
          "of numpy's")
    print(f"  took {time.monotonic() - t0:.1f} s")
    print(f"all steps: {time.monotonic() - t_all:.1f} s")
    return 0 if gap < 1e-3 else 1
