"""Invariants over whole random games (hypothesis): conservation, turn order, replay,
encodings, views that leak nothing, and seat-knowledge replays reaching the same
public hash as the full-information game (DESIGN "The engine", ZSY-5, ZSY-7)."""

import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from zsy_lan.engine.canonical import decode, digest, encode
from zsy_lan.engine.errors import RuleError
from zsy_lan.engine.game import Game
from zsy_lan.engine.round import legal_actions
from zsy_lan.engine.rules import base_rules
from zsy_lan.engine.selfplay import play_match, round_seed
from zsy_lan.engine.state import Action, round_from_json, round_to_json
from zsy_lan.engine.view import public_hash, view, view_action


class GameMachine(RuleBasedStateMachine):
    """Random legal actions on a whole match, checking invariants after each."""

    def __init__(self):
        super().__init__()
        self.game = None
        self.initial = None

    @rule(players=st.integers(3, 6), scoring=st.sampled_from(["ranking", "penalty", "cardcount"]))
    @precondition(lambda self: self.game is None)
    def start(self, players, scoring):
        self.game = Game(base_rules(players, scoring=scoring), rounds=3)
        self.rounds = 0

    @rule(pick=st.integers(0, 10_000))
    @precondition(lambda self: self.game is not None and not self.game.finished())
    def step(self, pick):
        g = self.game
        if g.needs_seed():
            g.start_round(round_seed("prop", self.rounds))
            self.rounds += 1
            self.initial = sorted(c for h in g.round.hands for c in h)
            return
        state = g.round
        seat = state.turn
        actions = legal_actions(g.rules, state, seat)
        assert actions, "the seat to act always has a legal action"
        before = public_hash(state)
        # an out-of-turn action is refused and changes nothing
        other = (seat + 1) % state.players
        try:
            g.check(other, Action("pass", other))
            raise AssertionError("out-of-turn action accepted")
        except RuleError:
            pass
        assert public_hash(g.round) == before
        g.apply(seat, actions[pick % len(actions)])

    @invariant()
    def hash_form_encodes_like_the_json_form(self):
        # The state hash skips list copies (flat tuples stay tuples); the bytes must not change.
        g = self.game
        if g is None:
            return
        assert encode(g.public_json(for_hash=True)) == encode(g.public_json())
        # public_hash skips encode()'s type walk: still the digest of the checked form
        assert g.public_hash() == digest(g.public_json())

    @invariant()
    def cards_conserved(self):
        g = self.game
        if g is None or g.round is None:
            return
        st_ = g.round
        held = [c for h in st_.hands for c in h]
        assert len(held) == len(set(held))
        assert tuple(len(h) for h in st_.hands) == st_.counts
        assert sorted(held + list(st_.played)) == self.initial

    @invariant()
    def turn_is_an_active_seat(self):
        g = self.game
        if g is None or g.round is None or g.round.phase == "done":
            return
        assert g.round.turn in g.round.active

    @invariant()
    def encoding_round_trips(self):
        g = self.game
        if g is None or g.round is None:
            return
        js = round_to_json(g.round)
        assert round_from_json(decode(encode(js))) == g.round

    @invariant()
    def views_leak_no_hidden_card(self):
        g = self.game
        if g is None or g.round is None:
            return
        for seat in range(g.round.players):
            v = view(g.round, seat)
            blob = encode(round_to_json(v))
            assert all(h is None for s, h in enumerate(v.hands) if s != seat)
            assert v.hands[seat] == g.round.hands[seat]
            assert public_hash(v) == public_hash(g.round)
            assert len(blob) > 0


GameMachine.TestCase.settings = __import__("hypothesis").settings(
    max_examples=15, stateful_step_count=120, deadline=None
)
# soak: 25 random games of up to 120 steps each (seconds of CPU), so not in the fast lane
TestGame = pytest.mark.slow(GameMachine.TestCase)


def seat_replay(rules, rounds, res, seat):
    """Replay a match from ``seat``'s knowledge only; return per-round public hashes."""
    g = Game(rules, rounds, knows=seat)
    hashes = []
    it = iter(res.log)
    index = 0
    while not g.finished():
        if g.needs_seed():
            g.start_round(res.seeds[index])
            index += 1
            assert all(h is None for s, h in enumerate(g.round.hands) if s != seat)
            continue
        action = next(it)
        g.apply(action.seat, action)
        if g.match.phase != "playing":
            hashes.append(public_hash(g.match.round))
    return hashes


@given(players=st.integers(3, 6), seed=st.integers(0, 10**6))
def test_each_seat_replay_reaches_the_same_public_hashes(players, seed):
    rules = base_rules(players)
    res = play_match(rules, 3, seed, bots="random")
    for seat in range(players):
        assert seat_replay(rules, 3, res, seat) == res.hashes


def test_hidden_return_is_masked_for_outsiders():  # ZSY-7.1 face down
    rules = base_rules(4)
    res = play_match(rules, 2, "ret", bots="greedy")
    g = Game(rules, 2)
    idx = 0
    for action in res.log:
        while g.needs_seed():
            g.start_round(res.seeds[idx])
            idx += 1
        if action.kind == "return":
            duty = g.round.duties[0]
            outsider = next(s for s in range(4) if s not in (duty.giver, duty.receiver))
            seen = view_action(g.round, action, outsider)
            assert seen.hidden and seen.cards == () and seen.value == len(action.cards)
            assert view_action(g.round, action, duty.receiver) == action
            return
        g.apply(action.seat, action)
    raise AssertionError("no return in two rounds")


def test_replay_log_equals_state():
    rules = base_rules(4)
    res = play_match(rules, 2, "replay", bots="random")
    g = Game(rules, 2)
    idx = 0
    for action in res.log:
        while g.needs_seed():
            g.start_round(res.seeds[idx])
            idx += 1
        g.apply(action.seat, Action.from_json(decode(encode(action.to_json()))))
    assert g.finished()
    assert [r.order for r in g.match.results] == [tuple(o) for o in res.orders]
