"""Playing *with* a partner: crisp positions (ZSY-9.1 partnerships, DDZ-4.5 farmers)."""

from __future__ import annotations

import pytest
from bot_helpers import position, rules_for

from zsy_lan.bots import Observation, make_bot
from zsy_lan.engine.cards import BJ, RJ, rank_of
from zsy_lan.engine.game import Game
from zsy_lan.engine.selfplay import round_seed
from zsy_lan.engine.state import PASS, PLAY
from zsy_lan.engine.view import view

SMART = ["normal", "hard"]


def decide(level, rules, state, seat=None):
    seat = state.turn if seat is None else seat
    bot = make_bot(level, 7, **({"budget_ms": 1e9, "max_iters": 24} if level == "hard" else {}))
    return bot.choose(Observation.of(rules, view(state, seat), seat))


def ranks(action):
    return sorted(rank_of(c) for c in action.cards)


@pytest.mark.parametrize("level", SMART)
def test_does_not_overtake_partners_winning_single(level):
    """Partner (seat 2) leads K, the opponent passes; seat 0 holds a 2 but passes."""
    rules = rules_for(4, ["partnerships"])
    st = position(rules, ["2 5 6 8 9 J", "4 4 7 10 Q Q", "3 3 7", "5 6 9 10 J A"], 0,
                  trick=(2, "K"))
    assert st.trick_seat == 2 and st.turn == 0
    assert decide(level, rules, st).kind == PASS


@pytest.mark.parametrize("level", SMART)
def test_does_not_overtake_partners_last_card(level):
    """Partner went out with its last card; overtaking it would only waste a card."""
    rules = rules_for(4, ["partnerships"])
    st = position(rules, ["2 5 6 8 9 J", "4 4 7 10 Q Q", "", "5 6 9 10 J A"], 0,
                  trick=(2, "A"), finished=(2,))
    assert decide(level, rules, st).kind == PASS


@pytest.mark.parametrize("level", SMART)
def test_goes_out_even_over_partner(level):
    """The one exception: a play that empties the hand (the team is Upstream at once)."""
    rules = rules_for(4, ["partnerships"])
    st = position(rules, ["2", "4 4 7 10 Q Q", "3 3 7", "5 6 9 10 J A"], 0, trick=(2, "K"))
    action = decide(level, rules, st)
    assert action.kind == PLAY and ranks(action) == [12]


@pytest.mark.parametrize("level", SMART)
def test_farmer_lets_fellow_farmer_win(level):
    """Dou Dizhu: farmer 1's pair of queens holds against the landlord; farmer 2 passes."""
    rules = rules_for(3, ["doudizhu"])
    st = position(rules, ["3 4 5 6 7 8 9 9 10 J", "5 6 6 8 A A", "3 4 K K 2"], 2,
                  trick=(1, "Q Q"), extra={"landlord": 0})
    # seat 0 (landlord) is between 1 and 2 in play order: it passed
    assert decide(level, rules, st).kind == PASS


@pytest.mark.parametrize("level", SMART)
def test_farmer_beats_the_landlord(level):
    """The same pair of queens from the landlord is beaten by the farmer's kings."""
    rules = rules_for(3, ["doudizhu"])
    st = position(rules, ["3 4 5 6 7 8 9 9 10 J", "5 6 6 8 A A", "3 4 K K 2"], 2,
                  trick=(0, "Q Q"), extra={"landlord": 0})
    action = decide(level, rules, st)
    assert action.kind == PLAY


def test_feeds_a_partner_about_to_go_out():
    """A partner with one card left: lead the lowest single so the partner can go out."""
    rules = rules_for(4, ["partnerships"])
    st = position(rules, ["3 8 8 9 9 J J", "4 4 7 10 Q Q", "A", "5 6 9 10 J A 2"], 0)
    action = decide("normal", rules, st)
    assert action.kind == PLAY and ranks(action) == [0]


def test_does_not_lead_a_single_to_an_opponent_with_one_card():
    rules = rules_for(4)
    st = position(rules, ["3 5 5 9 9 K", "A", "4 4 7 10 Q Q", "6 7 8 J J"], 0)
    action = decide("normal", rules, st)
    assert action.kind == PLAY and len(action.cards) >= 2


@pytest.mark.parametrize("level", SMART)
def test_rocket_never_broken_for_kickers(level):
    """DDZ: the landlord holds the rocket and a triple; the kicker is never a joker."""
    rules = rules_for(3, ["doudizhu"])
    st = position(rules, ["5 5 5 9 10 BJ RJ", "3 4 6 7 8 J Q K A 2", "3 4 6 7 8 J Q K A 2"], 0,
                  extra={"landlord": 0})
    action = decide(level, rules, st)
    jokers = [r for r in ranks(action) if r >= BJ]
    assert jokers in ([], [BJ, RJ])


@pytest.mark.parametrize("level", SMART)
def test_rocket_kept_whole_through_whole_hands(level):
    """Over whole Dou Dizhu hands: a bot holding the rocket never plays one joker of it,
    except as the play that empties its hand."""
    rules = rules_for(3, ["doudizhu"])
    broken = 0
    for i in range(4):
        bots = [make_bot(level, s, **({"budget_ms": 1e9, "max_iters": 3}
                                      if level == "hard" else {})) for s in range(3)]
        game = Game(rules, 3)
        game.start_round(round_seed("rocket", i))
        while game.match.phase == "playing":
            st = game.match.round
            seat = st.turn
            action = bots[seat].act(rules, view(st, seat), seat)
            hand = st.hands[seat] or ()
            has_rocket = {BJ, RJ} <= {rank_of(c) for c in hand}
            if action.kind == PLAY and has_rocket and len(action.cards) < len(hand):
                js = [rank_of(c) for c in action.cards if rank_of(c) >= BJ]
                broken += len(js) == 1
            game.apply(seat, action)
    assert broken == 0


def test_hard_farmer_overtakes_its_mate_when_that_runs_it_home():
    """DDZ-4.5: farmer 1's low single stands against the landlord only if the landlord
    passes; farmer 2 holds the red joker and a pair. Overtaking with the joker (nothing
    beats it) and leading the pair goes out in every world, so ``hard`` overtakes its
    mate: the search, not a rule, decides (``overtake=False``: the old rule, it passes).
    """
    rules = rules_for(3, ["doudizhu"])
    st = position(rules, ["4 6 7 8 9 10 J Q K A 2", "7 9 J", "RJ 5 5"], 2,
                  trick=(1, "3"), extra={"landlord": 0})
    obs = Observation.of(rules, view(st, 2), 2)
    action = make_bot("hard", 7, budget=48, budget_ms=None).choose(obs)
    assert action.kind == PLAY and ranks(action) == [RJ]
    old = make_bot("hard", 7, budget=48, budget_ms=None, overtake=False).choose(obs)
    assert old.kind == PASS
