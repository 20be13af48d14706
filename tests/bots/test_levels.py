"""Bot levels: registry, labels, determinism, no peeking, whole matches of every variant."""

from __future__ import annotations

import pytest
from bot_helpers import VARIANT_TABLES, dealt_states, rules_for, table_id

from zsy_lan.bots import LEVELS, Observation, make_bot
from zsy_lan.bots.registry import level_names
from zsy_lan.engine.round import legal_actions
from zsy_lan.engine.selfplay import play_match
from zsy_lan.engine.shuffle import shuffled
from zsy_lan.engine.state import evolve
from zsy_lan.engine.view import view

FAST_HARD = {"budget_ms": 1e9, "max_iters": 3}  # deterministic: the cap decides, not the clock


def bot(level: str, seed: object = 0):
    return make_bot(level, seed, **(FAST_HARD if level == "hard" else {}))


def test_registry_levels_and_labels():
    assert list(LEVELS) == ["easy", "normal", "hard"]
    assert level_names(include_baselines=True)[0] == "random"
    for level in level_names(include_baselines=True):
        assert make_bot(level, 1).name == f"bot:{level}"
    with pytest.raises(ValueError, match="unknown bot level 'expert'.*easy, normal, hard"):
        make_bot("expert")


@pytest.mark.parametrize("level", ["random", "easy", "normal", "hard"])
@pytest.mark.parametrize("table", [(4, [], {}), (3, ["doudizhu"], {})], ids=table_id)
def test_same_seed_same_choice(level, table):
    rules = rules_for(*table)
    states = dealt_states(rules, f"det-{level}", upto=40)
    a, b = bot(level, "s"), bot(level, "s")
    for st in states:
        v = view(st, st.turn)
        obs = Observation.of(rules, v, st.turn)
        assert a.choose(obs) == b.choose(obs)
        # a fresh bot taking over mid-round decides like one that played along
        assert bot(level, "s").choose(obs) == a.choose(obs)


def _shuffle_hidden(state, seat, seed):
    """The same public state, other seats' hidden cards dealt differently (counts kept)."""
    others = [s for s in range(state.players) if s != seat and state.hands[s] is not None]
    pool = [c for s in others for c in state.hands[s]]
    pool = shuffled(pool, seed)
    hands = list(state.hands)
    pos = 0
    for s in others:
        n = len(state.hands[s])
        hands[s] = tuple(sorted(pool[pos : pos + n]))
        pos += n
    extra = tuple((k, v) for k, v in state.extra if k != "secret_kitty")
    return evolve(state, hands=tuple(hands), extra=extra)


@pytest.mark.parametrize("level", ["normal", "hard"])
@pytest.mark.parametrize("table", [(4, ["partnerships"], {}), (3, ["doudizhu"], {})], ids=table_id)
def test_decision_ignores_hidden_hands(level, table):
    """Bots get only views: reshuffling the other hands never changes a decision."""
    rules = rules_for(*table)
    for st in dealt_states(rules, f"hid-{level}", upto=30)[::3]:
        seat = st.turn
        choices = set()
        for k in range(3):
            full = _shuffle_hidden(st, seat, bytes([k]))
            b = bot(level, "h")
            choices.add(b.act(rules, view(full, seat), seat))
        assert len(choices) == 1


def test_act_refuses_full_state_leak_is_not_needed():
    """The engine protocol passes views; a bot works from the view's own hand only."""
    rules = rules_for(4)
    st = dealt_states(rules, "leak", upto=1)[0]
    v = view(st, st.turn)
    assert all(h is None for s, h in enumerate(v.hands) if s != st.turn)
    assert make_bot("normal").act(rules, v, st.turn) in legal_actions(rules, v, st.turn)


@pytest.mark.parametrize("table", VARIANT_TABLES, ids=table_id)
def test_every_level_plays_whole_matches(table):
    """All levels (and the random baseline) at one table, a whole match, only legal actions.

    ``play_match`` applies every action through the engine, which raises on an
    illegal one; levels rotate so every level sits in every variant.
    """
    rules = rules_for(*table)
    levels = ["hard", "normal", "easy", "random"]
    rounds = 3 if rules.kitty_size else 2
    offsets = (0, 1) if rules.players == 3 else (0,)
    for off in offsets:
        bots = [bot(levels[(s + off) % 4], f"m{s}") for s in range(rules.players)]
        result = play_match(rules, rounds, f"whole-{table_id(table)}-{off}", bots)
        assert len(result.orders) >= 1
