"""The ``hard`` level's split-following rollouts (zsy_lan.bots.rollout)."""

from __future__ import annotations

import pytest
from bot_helpers import position, rules_for

from zsy_lan.bots import make_bot
from zsy_lan.bots.planner import Planner
from zsy_lan.bots.rollout import PlanSimulator
from zsy_lan.bots.search import _as_move
from zsy_lan.engine.cards import RJ, TWO, rank_counts
from zsy_lan.engine.combos import Combo, beats, classify
from zsy_lan.engine.game import Game
from zsy_lan.engine.round import legal_actions
from zsy_lan.engine.selfplay import round_seed
from zsy_lan.engine.shuffle import HashStream
from zsy_lan.engine.view import view


def sim_for(rules, st, seat=None):
    """A simulator for ``seat``'s view, and the real hands as its world."""
    seat = st.turn if seat is None else seat
    sim = PlanSimulator(rules, view(st, seat), seat, Planner(rules))
    world = [list(rank_counts(h or ())) for h in st.hands]
    return sim, world


def move_of(sim, world, seat, last=None, owner=-1):
    """``seat``'s policy move in ``world`` with ``last`` (owned by ``owner``) on the table."""
    groups = [list(sim.split(h)) for h in world]
    left = [sum(h) for h in world]
    return sim.policy(seat, [list(h) for h in world], groups, left, last, owner,
                      list(sim.finished0))


def single(rank: int) -> Combo:
    return Combo("single", 1, rank)


def test_follows_with_a_group_of_its_split_not_a_broken_pair():
    """ZSY-4.1: the smallest play that beats a 6 is a 7, but the 7s are a pair in the
    split; the rollout player follows with its lowest single group, the 9."""
    rules = rules_for(4)
    st = position(rules, ["5 7 7 9 J Q", "3 4 8 10 K A A", "3 4 8 10 K K", "4 5 8 10 Q Q"], 0)
    sim, world = sim_for(rules, st)
    play = move_of(sim, world, 0, last=single(3), owner=1)  # 3 = rank of the 6
    assert play is not None and play.ranks == (6,)


def test_never_overtakes_its_partner():
    """ZSY-9.1: the partner (seat 2) owns the trick with a K; seat 0 holds a 2 and passes."""
    rules = rules_for(4, ["partnerships"])
    st = position(rules, ["2 5 6 8 9 J", "4 4 7 10 Q Q", "3 3 7", "5 6 9 10 J A"], 0)
    sim, world = sim_for(rules, st)
    assert move_of(sim, world, 0, last=single(10), owner=2) is None
    # ... unless the play empties its hand (the side is out first)
    st = position(rules, ["2", "4 4 7 10 Q Q", "3 3 7", "5 6 9 10 J A"], 0)
    sim, world = sim_for(rules, st)
    play = move_of(sim, world, 0, last=single(10), owner=2)
    assert play is not None and play.ranks == (TWO,)


def test_fellow_farmer_is_not_overtaken():
    """DDZ-4.5: farmers win together; farmer 2 lets farmer 1's pair stand."""
    rules = rules_for(3, ["doudizhu"])
    st = position(rules, ["3 4 5 6 7 8 9 9 10 J", "5 6 6 8 A A", "3 4 K K 2"], 2,
                  extra={"landlord": 0})
    sim, world = sim_for(rules, st)
    assert move_of(sim, world, 2, last=Combo("pair", 2, 9), owner=1) is None
    # against the landlord's pair the same farmer does play its kings
    play = move_of(sim, world, 2, last=Combo("pair", 2, 9), owner=0)
    assert play is not None and play.ranks == (10, 10)


def test_leads_its_weakest_group_longest_first():
    """A straight 3-7 is led before the single 9 and the pair of kings."""
    rules = rules_for(4)
    st = position(rules, ["3 4 5 6 7 9 K K", "3 4 8 10 K A A", "3 4 8 10 J Q", "4 5 8 10 Q Q"], 0)
    sim, world = sim_for(rules, st)
    play = move_of(sim, world, 0)
    assert play is not None and play.ranks == (0, 1, 2, 3, 4)


def test_runs_home_with_a_control_first():
    """Two groups left, one of them the red joker nobody can beat (ZSY-4: no one else holds a
    bomb or the joker bomb): lead the joker, then the last card, instead of the low 4 first."""
    rules = rules_for(4)
    st = position(rules, ["4 RJ", "3 5 8 10 K A", "3 6 8 10 K A", "5 7 9 J Q 2"], 0)
    sim, world = sim_for(rules, st)
    play = move_of(sim, world, 0)
    assert play is not None and play.ranks == (RJ,)


def test_a_winning_first_move_scores_one_and_a_losing_one_zero():
    """The candidate that empties the hand wins at once (ZSY-6.1); passing lets the
    opponent, one card left and holding the top single, go out."""
    rules = rules_for(3)
    st = position(rules, ["9 9", "RJ", "3 4 5 7 8 10 J"], 0, trick=(2, "8 8"))
    sim, world = sim_for(rules, st)
    plans = sim.prepare(world)
    state_moves = {a.kind: a for a in legal_actions(rules, view(st, 0), 0)}
    win = _as_move(rules, view(st, 0), 0, state_moves["play"])
    assert sim.rollout_plan(world, plans, win) == 1.0
    assert sim.rollout_plan(world, plans, None) == 0.0


class Recording(PlanSimulator):
    """A simulator that checks every move its policy makes against the rules."""

    def policy(self, s, hands, groups, left, last, owner, finished):
        play = super().policy(s, hands, groups, left, last, owner, finished)
        if play is None:
            return None
        h = hands[s]
        need = rank_counts(())
        for r in play.ranks:
            need[r] += 1
        assert all(need[r] <= h[r] for r in range(len(h))), "plays cards it does not hold"
        assert classify(self.rules, need) is not None, "not a combination"
        if last is not None:
            assert owner not in self.sides[s] or len(play.ranks) == left[s]
            assert beats(self.rules, play.combo, last), "does not beat the trick"
        self.moves += 1
        return play


@pytest.mark.parametrize("table", [(4, []), (6, ["partnerships"]), (3, ["doudizhu"]),
                                   (4, ["doudizhu"])])
def test_rollouts_play_only_legal_moves_to_the_end(table):
    """Sampled worlds from real positions: every move a rollout player makes is a held,
    legal combination that beats the trick (ZSY-3, ZSY-4, DDZ-3, DDZ-4), and the
    rollout ends with a score in [0, 1]."""
    rules = rules_for(*table)
    game = Game(rules, 3)
    game.start_round(round_seed(f"rollout-{table}", 0))
    bots = [make_bot("normal", s) for s in range(rules.players)]
    checked = 0
    while game.match.phase == "playing" and checked < 12:
        st = game.match.round
        seat = st.turn
        v = view(st, seat)
        if st.phase == "play":
            sim = Recording(rules, v, seat, Planner(rules))
            sim.moves = 0
            stream = HashStream(b"legal")
            legal = legal_actions(rules, v, seat)
            for a in legal[:3]:
                world = sim.sample(stream)
                score = sim.rollout_plan(world, sim.prepare(world), _as_move(rules, v, seat, a))
                assert 0.0 <= score <= 1.0
            assert sim.moves > 0 or len(legal) == 1 or sum(st.counts) <= 3
            checked += 1
        game.apply(seat, bots[seat].act(rules, v, seat))


# --- the search around the rollouts ---------------------------------------------


def test_hopeless_drops_clearly_worse_and_equivalent_candidates():
    """A candidate that loses where the planner's pick wins, or that only ever ties it, can
    never pass :func:`pick`'s bar; one that wins some worlds more stays in."""
    from zsy_lan.bots.search import hopeless, pick

    base = [1.0, 0.0] * 8
    worse = [0.0, 0.0] * 8
    same = list(base)
    better = [1.0, 1.0, 1.0, 0.0] * 4
    assert hopeless(worse, base)
    assert hopeless(same, base)  # 16 worlds, identical outcomes
    assert not hopeless(same[:6], base)  # too few worlds to tell
    assert not hopeless(better, base)
    assert pick([base, worse, same, better], 1.0) == 3
    # a candidate dropped after its first worlds is compared on those worlds only
    assert pick([base, worse[:8], same], 1.0) == 0


class FakeClock:
    """Advances one millisecond per reading: the budget then counts worlds, exactly."""

    def __init__(self) -> None:
        self.t = 0.0

    def __call__(self) -> float:
        self.t += 0.001
        return self.t


def _worlds(state, rules, budget_ms, **opts):
    bot = make_bot("hard", 3, budget_ms=budget_ms, max_iters=1000, prune=False, **opts)
    bot._clock = FakeClock()
    seat = state.turn
    from zsy_lan.bots import Observation

    bot.choose(Observation.of(rules, view(state, seat), seat))
    return bot.last_iters


def test_early_in_a_round_the_search_spends_a_quarter_of_its_budget():
    """More than half the deck in hands: a quarter of the budget; later the whole budget."""
    rules = rules_for(3)
    early = position(rules, ["3 4 5 6 7 9 9 10 J Q K A A 2 2 BJ RJ",
                             "3 4 5 6 7 8 9 10 J Q K A 2", "4 5 6 7 8 8 9 10 J Q K A 2"], 0,
                     trick=(2, "8"))
    late = position(rules, ["9 9 J K A", "3 4 5 7", "4 5 6 10"], 0, trick=(2, "8"))
    assert 2 * sum(early.counts) > len(rules.deck) >= 2 * sum(late.counts)
    assert _worlds(early, rules, 40) == 10
    assert _worlds(late, rules, 40) == 40


def test_the_strongest_plain_play_is_also_a_candidate_when_following():
    """Following an opponent's single 8, the planner's first few plays are the low singles
    of its split; taking the lead with the ace is weighed too (never the bomb, ZSY-4.2)."""
    from zsy_lan.bots import Observation
    from zsy_lan.bots.search import strongest_plain

    rules = rules_for(4)
    st = position(rules, ["9 10 J Q A 5 5 5 5", "3 4 6 7 8 K", "3 4 6 7 9 K", "3 4 6 7 10 K"],
                  0, trick=(3, "8"))
    obs = Observation.of(rules, view(st, 0), 0)
    ranked = [a for a in make_bot("normal", 1).ranked(obs) if len(a.cards) != 4]
    top = strongest_plain(obs, ranked)
    assert top is not None and [c % 54 // 4 for c in top.cards] == [11]


def test_a_seat_with_team_mates_spends_its_whole_budget_early():
    """Dou Dizhu, early: a farmer (a side of two) spends all of its budget, and so does
    the landlord (alone, but its early worlds pay: ``lord_early_share``); the same for a
    6-player partner."""
    rules = rules_for(3, ["doudizhu"])
    hands = ["3 4 4 5 5 6 6 7 7 8 8 9 9 10 10 J J BJ RJ",
             "3 4 5 6 7 8 9 10 J Q Q K K A A 2 2", "3 4 5 6 7 8 9 10 Q Q K K A A 2 2"]
    lord = position(rules, hands, 0, trick=(2, "J"), extra={"landlord": 0})
    farmer = position(rules, hands, 1, trick=(0, "3"), extra={"landlord": 0})
    assert 2 * sum(lord.counts) > len(rules.deck)
    assert _worlds(lord, rules, 40) == 40
    assert _worlds(lord, rules, 40, lord_early_share=0.25) == 10  # (before: a lone seat's)
    assert _worlds(farmer, rules, 40) == 40
    rules6 = rules_for(6, ["partnerships"])
    partner = position(rules6, ["3 4 5 6 7 8 9 10 J Q"] * 6, 0, trick=(5, "9"))
    assert 2 * sum(partner.counts) > len(rules6.deck)
    assert _worlds(partner, rules6, 40) == 40
    assert make_bot("hard", 3).team_early_share == 1.0


def test_a_dou_dizhu_farmer_overrules_the_planner_on_less_evidence():
    """The bar to overrule the planner: 0.5 standard errors for a farmer, 1.0 otherwise."""
    rules = rules_for(3, ["doudizhu"])
    hands = ["3 4 4 5 5 6 6 7 7 8 8 9 9 10 10 J J BJ RJ",
             "3 4 5 6 7 8 9 10 J Q Q K K A A 2 2", "3 4 5 6 7 8 9 10 Q Q K K A A 2 2"]
    st = position(rules, hands, 1, trick=(0, "3"), extra={"landlord": 0})
    bot = make_bot("hard", 3)
    assert bot.confidence_for(rules, view(st, 1), 1) == 0.5
    assert bot.confidence_for(rules, view(st, 0), 0) == 1.0
    rules6 = rules_for(6, ["partnerships"])
    partner = position(rules6, ["3 4 5 6 7 8 9 10 J Q"] * 6, 0, trick=(5, "9"))
    assert bot.confidence_for(rules6, view(partner, 0), 0) == 1.0
    assert make_bot("hard", 3, farmer_confidence=1.0).confidence_for(
        rules, view(st, 1), 1) == 1.0
