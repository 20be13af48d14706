"""The learned value of ``hard`` (issue #28): the pipeline's steps on a tiny data set,
the exported model's pure-Python inference against numpy's, and ``hard`` with the model.

Nothing here is timed; the tiny run trains on a few self-play hands in seconds.
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import numpy as np
import pytest
from bot_helpers import position

from zsy_lan.bots import make_bot
from zsy_lan.bots.planner import Planner
from zsy_lan.bots.rollout import PlanSimulator
from zsy_lan.bots.search import HardBot
from zsy_lan.bots.value import FEATURE_COUNT, MODEL_PATH, ValueModel, default_model
from zsy_lan.engine.cards import rank_counts
from zsy_lan.engine.combos import Combo, Play
from zsy_lan.engine.game import Game
from zsy_lan.engine.ruleset import build_rules
from zsy_lan.engine.selfplay import round_seed
from zsy_lan.engine.view import view

_ROOT = str(Path(__file__).resolve().parents[2])  # tools/ is not installed: import it from here
sys.path.insert(0, _ROOT)
try:
    from tools.learn import pipeline
    from tools.learn.generate import generate, play_hand, rollout_label
    from tools.learn.train import export, forward, load_rows, train
finally:  # the repository root stays off the path: `import engine` must not find engine/
    sys.path.remove(_ROOT)


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict, np.ndarray]:
    """A model trained on 12 self-play hands of ``normal`` and ``rule`` (a few seconds)."""
    out = tmp_path_factory.mktemp("learn")
    files = generate(out / "rows", 12, workers=1, seed="test", mix="normal,rule")
    x, y, hands = load_rows(files)
    params, stats = train(x, y, hands, hidden=8, epochs=2)
    path = out / "model.json"
    export(params, path, {"test": True})
    return path, params, x


def test_rows_are_labelled_positions_of_the_hand():
    rows = play_hand("test", 0, ["normal"])
    assert rows, "a hand someone bid on gives positions"
    assert all(len(r["x"]) == FEATURE_COUNT for r in rows)
    # one hand, one outcome: every position carries it, with the landlord's points
    assert len({(r["y"], r["points"], r["hand"]) for r in rows}) == 1
    assert rows[0]["y"] == (rows[0]["points"] > 0)


def test_rollout_label_is_the_rollout_from_the_true_position():
    """Every row carries the rollout's result (``r``: won, ``rs``: the stake score)."""
    rows = play_hand("test", 0, ["normal"])
    assert all(r["r"] == int(r["rs"] > 0.5) for r in rows)
    # the landlord about to go out on the trick it may lead: its rollout wins
    rules = build_rules(3, ["doudizhu"])
    st = position(rules, ["3 3", "4 5 6 7 8 9", "4 5 6 7 8 9"], 0, extra={"landlord": 0})
    hands = [list(rank_counts(h)) for h in st.hands]
    assert rollout_label(rules, st, Planner(rules), hands, 0) > 0.5
    # ... and seen from a farmer to move, the landlord's side still wins it
    st = position(rules, ["3 3", "4 5 6 7 8 9", "4 6 6 7 8 9"], 1, extra={"landlord": 0})
    hands = [list(rank_counts(h)) for h in st.hands]
    assert rollout_label(rules, st, Planner(rules), hands, 0) < 0.5  # the farmer's chain


def test_rollout_target_trains_on_the_rollout_labels(tmp_path):
    files = generate(tmp_path, 4, workers=1, seed="test", mix="normal")
    _, y_out, _ = load_rows(files, "outcome")
    _, y_roll, _ = load_rows(files, "rollout")
    assert len(y_out) == len(y_roll)
    rows = [json.loads(line) for f in files for line in f.read_text().splitlines()]
    assert list(y_roll) == [r["r"] for r in rows]


def test_exported_model_predicts_as_numpy_does(tiny):
    path, params, x = tiny
    model = ValueModel.load(path)
    ref = forward(params, x[:8])
    for row, p in zip(x[:8], ref, strict=True):
        assert model.predict(list(row)) == pytest.approx(float(p), abs=1e-4)
        assert 0.0 <= model.predict(list(row)) <= 1.0


def test_model_of_other_features_is_refused(tiny):
    path, _, _ = tiny
    data = json.loads(path.read_text())
    data["features"] = FEATURE_COUNT + 1
    with pytest.raises(ValueError, match="features"):
        ValueModel(data)


def test_pipeline_runs_every_step(tmp_path, capsys):
    model = tmp_path / "m.json"
    status = pipeline.main(["--hands", "4", "--mix", "normal", "--epochs", "1", "--hidden", "4",
                            "--out", str(tmp_path / "rows"), "--model", str(model)])
    assert status == 0
    text = capsys.readouterr().out
    for step in ("generate:", "train:", "export:", "all steps:"):
        assert step in text
    assert text.count("took") == 3  # every step says how long it took
    assert ValueModel.load(model).meta["hands"] >= 1


def test_shipped_model_if_any_fits_the_code():
    model = default_model()
    if not MODEL_PATH.exists():
        assert model is None
        with pytest.raises(ValueError, match="value_model"):
            HardBot(1, value_depth=4)
        return
    assert model is not None
    assert MODEL_PATH.stat().st_size < 300_000
    assert 0.0 <= model.predict([0.0] * FEATURE_COUNT) <= 1.0


@pytest.mark.parametrize(("depth", "mix"), [(0, 1.0), (1, 1.0), (4, 1.0), (4, 0.5)])
def test_hard_with_and_without_the_model_plays_legal_moves(tiny, depth, mix):
    """Whole Dou Dizhu hands (the model ending rollouts, or blended with them)."""
    path, _, _ = tiny
    rules = build_rules(3, ["doudizhu"], {"match_multiple": 1})
    for hand in range(2):
        bots = [make_bot("hard", f"v{depth}:{hand}:{s}", budget=6, budget_ms=None,
                         value_depth=depth, value_model=str(path) if depth else None,
                         value_mix=mix)
                for s in range(3)]
        hand_between(rules, bots, round_seed("learn-test", hand))


def hand_between(rules, bots, seed: bytes) -> list:
    """One Dou Dizhu hand between ``bots`` from ``seed``; every move must be legal."""
    game = Game(rules, 1)
    game.start_round(seed)
    actions = []
    while game.match.phase == "playing":
        st = game.match.round
        seat = st.turn
        action = bots[seat].act(rules, view(st, seat), seat)
        assert action in game.legal(seat)
        game.apply(seat, action)
        actions.append(action)
    return actions


def constant_model(p_lord: float) -> ValueModel:
    """A model that gives the landlord the chance ``p_lord`` in every position."""
    z = math.log(p_lord / (1 - p_lord))
    return ValueModel({"features": FEATURE_COUNT, "w1": [[0.0] * FEATURE_COUNT], "b1": [0.0],
                       "w2": [0.0], "b2": z})


@pytest.mark.parametrize(("seat", "mix", "expected"), [
    (0, 1.0, 0.9), (1, 1.0, 0.1), (0, 0.5, None),
])
def test_rollout_ends_with_the_models_value(seat, mix, expected):
    """The landlord's side scores ``p``, a farmer's ``1 - p``; a blend lies between."""
    rules = build_rules(3, ["doudizhu"])
    hands = ["3 4 5 6 7 9 J Q K A 2", "3 4 5 8 9 10 J Q K", "6 7 8 10 J Q K A 2"]
    st = position(rules, hands, seat, extra={"landlord": 0})
    world = [list(rank_counts(h)) for h in st.hands]
    planner = Planner(rules)
    plain = PlanSimulator(rules, view(st, seat), seat, planner, stakes=True)
    sim = PlanSimulator(rules, view(st, seat), seat, planner, stakes=True,
                        value=constant_model(0.9), value_depth=1, value_mix=mix)
    plans = sim.prepare(world)
    move = Play(Combo("single", 1, 0), (0,))  # (both seats lead their 3)
    played = plain.rollout_plan(world, plans, move)
    valued = sim.rollout_plan(world, plans, move)
    if expected is not None:
        assert valued == pytest.approx(expected)
    else:
        assert valued == pytest.approx(0.5 * 0.9 + 0.5 * played)


@pytest.mark.parametrize("opts", [
    {"value_prior": 0.05}, {"reinvest": True}, {"value_prior": 0.05, "reinvest": True},
])
def test_hard_with_the_prior_plays_legal_moves_and_repeats_itself(tiny, opts):
    """The model as a prior that drops candidates, the budget counted in rollouts."""
    path, _, _ = tiny
    rules = build_rules(3, ["doudizhu"], {"match_multiple": 1})

    def play(tag: str) -> list:
        bots = [make_bot("hard", f"p:{tag}:{s}", budget=8, budget_ms=None,
                         value_model=str(path), **opts) for s in range(3)]
        return hand_between(rules, bots, round_seed("learn-prior", 0))

    assert play("a") == play("a")  # the same seed, the same game


def test_prior_is_the_models_value_right_after_the_move():
    rules = build_rules(3, ["doudizhu"])
    hands = ["3 4 5 6 7 9 J Q K A 2", "3 4 5 8 9 10 J Q K", "6 7 8 10 J Q K A 2"]
    st = position(rules, hands, 1, extra={"landlord": 0})
    world = [list(rank_counts(h)) for h in st.hands]
    sim = PlanSimulator(rules, view(st, 1), 1, Planner(rules), stakes=True,
                        value=constant_model(0.9))
    plans = sim.prepare(world)
    move = Play(Combo("single", 1, 0), (0,))
    assert sim.prior(world, plans, move) == pytest.approx(0.1)  # a farmer: 1 - p
    # the rollouts themselves are played out (no value_depth): a 0/1 or stake score
    assert sim.rollout_plan(world, plans, move) not in (pytest.approx(0.1),)
