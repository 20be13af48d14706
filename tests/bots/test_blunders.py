"""Blunders players noticed (issue #16), each as a position, and the iteration budget.

Every ``hard`` bot here runs on an iteration budget with no clock
(``budget_ms=None``), so the choices depend on the seed alone.
"""

from __future__ import annotations

import pytest
from bot_helpers import cards, position, rules_for

from zsy_lan.bots import Observation, make_bot
from zsy_lan.engine.cards import RANK_OF
from zsy_lan.engine.combos import classify_cards
from zsy_lan.engine.game import Game
from zsy_lan.engine.selfplay import play_match, round_seed
from zsy_lan.engine.state import PLAY, evolve
from zsy_lan.engine.view import view


def hard(seed: object = 1, budget: int = 24):
    return make_bot("hard", seed, budget=budget, budget_ms=None)


def bot(level: str, seed: object = 1):
    return hard(seed) if level == "hard" else make_bot(level, seed)


def choice(b, rules, st, seat):
    return b.choose(Observation.of(rules, view(st, seat), seat))


def ranks(action) -> list[int]:
    """Rank numbers of a play (0 = the 3 ... 12 = the 2)."""
    return sorted(RANK_OF[c] for c in action.cards)


def test_hard_breaks_its_bomb_when_the_search_says_so():
    """DDZ-4.2: landlord 7 8 9 9 9 9 10 J, a farmer on one card. A single 7 lets the
    farmer out; 7-J (a straight, cut from the four nines) then 9 9 9 wins."""
    rules = rules_for(3, ["doudizhu"])
    st = position(rules, ["7 8 9 9 9 9 10 J", "K", "3 4 5 5 6"], 0, extra={"landlord": 0},
                  played="3 3 3 4 4 4 5 5 6 6 6 7 7 7 8 8 8 10 10 10 J J J Q Q Q Q K K K A A A A "
                         "2 2 2 2 BJ")
    a = choice(hard(), rules, st, 0)
    assert a.kind == PLAY and len(a.cards) > 1, "a single lets the one-card farmer out"
    assert classify_cards(rules, a.cards).kind == "chain" and ranks(a) == [4, 5, 6, 7, 8]


@pytest.mark.parametrize("trick", ["3 3 3 3", "K", "5 5", "3 4 5 6 7"])
def test_easy_bombs_when_the_bomb_is_its_whole_hand(trick):
    """ZSY-4.2: a bomb beats any plain play; easy holding only 9 9 9 9 goes out with it."""
    rules = rules_for(4)
    st = position(rules, ["9 9 9 9", "10 J Q", "10 J Q", "10 J Q"], 0, trick=(3, trick))
    a = choice(make_bot("easy"), rules, st, 0)
    assert a.kind == PLAY and ranks(a) == [6, 6, 6, 6]


@pytest.mark.parametrize("level", ["easy", "normal", "hard"])
@pytest.mark.parametrize(
    ("hand", "trick"),
    [("5 5", (3, "3 3")), ("2", (3, "A")), ("4 5 6 7 8", (3, "3 4 5 6 7")),
     ("8 8 8 K K", (3, "3 3 3 4 4")), ("BJ RJ", (3, "A A")), ("4 4 4", None)],
)
def test_every_level_takes_a_play_that_ends_its_hand(level, hand, trick):
    """Weak may be weak, never absurd: a play that empties the hand is always taken."""
    rules = rules_for(4)
    st = position(rules, [hand, "10 J Q", "10 J Q", "10 J Q"], 0, trick=trick)
    a = choice(bot(level), rules, st, 0)
    assert a.kind == PLAY and len(a.cards) == len(st.hands[0])


def test_normal_never_breaks_a_four_for_a_kicker_when_the_trio_is_legal():
    """ZSY: 4 4 4 4 5 6 6 6 7 8 9, leading. The split 4 4 4 + 6 6 and 4 5 6 7 8 9 cuts the
    four of a kind for a full house (ZSY-4.2 bombs); 6 6 6 alone is legal, so normal never
    leads a kicker play out of the four."""
    rules = rules_for(4)
    st = position(rules, ["4 4 4 4 5 6 6 6 7 8 9", "3 5 7 9 J K A", "3 5 7 9 J K A",
                          "3 8 10 10 Q Q 2"], 0)
    b = make_bot("normal")
    a = choice(b, rules, st, 0)
    r = ranks(a)
    kick = len(set(r.count(x) for x in r)) > 1
    assert not (kick and 1 in r), f"led {r}: the four 4s broken for a kicker play"


@pytest.mark.parametrize("level", ["normal", "hard"])
def test_no_single_into_a_one_card_opponent_with_a_safe_alternative(level):
    """ZSY-4.1: an opponent holds one card. 3 4 2 2: the 2 2 cannot be answered by a one-card
    hand; a single can. The bot leads the pair (or another safe play), never a single."""
    rules = rules_for(4)
    st = position(rules, ["3 4 2 2", "K", "3 4 5 6 7 8 9", "5 6 7 8 9 10 J"], 0)
    a = choice(bot(level), rules, st, 0)
    assert a.kind == PLAY and len(a.cards) > 1


@pytest.mark.parametrize("level", ["normal", "hard"])
def test_a_farmer_does_not_lead_a_single_into_the_one_card_landlord(level):
    """DDZ-4.2: the landlord holds one card; the farmer leads its pair, not a single."""
    rules = rules_for(3, ["doudizhu"])
    st = position(rules, ["3 5 5 9", "K", "4 6 7 8 10 J Q"], 0, extra={"landlord": 1})
    a = choice(bot(level), rules, st, 0)
    assert a.kind == PLAY and len(a.cards) > 1


def test_same_seed_and_iteration_budget_give_the_same_game_twice():
    """With ``budget`` (worlds per decision) and no clock, a whole Dou Dizhu match is the
    same twice: nothing depends on how fast the machine is."""

    class Recorder:
        def __init__(self, inner, log):
            self.inner, self.log = inner, log

        def act(self, rules, state, seat):
            a = self.inner.act(rules, state, seat)
            self.log.append(a)
            return a

    rules = rules_for(3, ["doudizhu"], {"match_multiple": 1})
    logs = []
    for _ in range(2):
        log: list = []
        bots = [Recorder(hard(f"rep{s}", budget=6), log) for s in range(3)]
        play_match(rules, 1, "budget-repeat", bots)
        logs.append(log)
    assert logs[0] == logs[1] and len(logs[0]) > 10


def test_budget_caps_the_sampled_worlds():
    """``budget`` is the number of worlds sampled (the early-round share included)."""
    rules = rules_for(3)
    st = position(rules, ["9 9 J K A", "3 4 5 7", "4 5 6 10"], 0, trick=(2, "8"))
    b = make_bot("hard", 3, budget=10, budget_ms=None, prune=False)
    b.choose(Observation.of(rules, view(st, 0), 0))
    assert b.last_iters == 10
    with pytest.raises(ValueError, match="at least 1"):
        make_bot("hard", 3, budget=0)


@pytest.mark.parametrize("level", ["easy", "normal", "hard"])
def test_bid_sanity(level):
    """DDZ-2.2: every level bids 3 on a monster hand and passes a hopeless one."""
    rules = rules_for(3, ["doudizhu"], {"match_multiple": 1})
    game = Game(rules, 1)
    game.start_round(round_seed("bid-sanity", 0))
    st = game.match.round
    assert st is not None and st.phase == "bidding"
    strong = "BJ RJ 2 2 2 2 A A A K K K Q Q J 10 9"
    weak = "3 4 5 7 8 10 J 3 5 7 9 J Q 4 8 10 K"
    for text, want in ((strong, 3), (weak, 0)):
        mine = cards(text, 1, set())
        rest = [c for c in rules.deck if c not in mine]
        seat = st.turn
        hands = list(st.hands)
        hands[seat] = mine
        others = [s for s in range(3) if s != seat]
        for i, s in enumerate(others):
            hands[s] = tuple(sorted(rest[17 * i:17 * i + 17]))
        a = choice(bot(level), rules, evolve(st, hands=tuple(hands)), seat)
        value = a.value if a.kind == "bid" else 0
        assert value == want, (text, a)


@pytest.mark.parametrize("table", [(3, ["doudizhu"], {"match_multiple": 1}), (4, [], {})])
def test_the_rule_based_yardstick_plays_legal_whole_matches(table):
    """The ``rule`` baseline (the outside yardstick of the benchmarks) only plays legal
    actions (the engine raises otherwise), bids and doubles included."""
    rules = rules_for(*table)
    bots = [make_bot("rule", s) for s in range(rules.players)]
    result = play_match(rules, 1 if rules.kitty_size else 2, "rule-whole", bots)
    assert len(result.orders) >= 1


def test_rule_based_bidding_follows_the_published_score():
    """Rocket 8, each 2 counts 2, bombs 6: 7 and more bids 3 (DDZ-2.2)."""
    from zsy_lan.bots.rulebased import hand_score
    from zsy_lan.engine.cards import rank_counts

    assert hand_score(rank_counts(cards("BJ RJ 3 4 5"))) == 8
    assert hand_score(rank_counts(cards("2 2 7 7 7 7"))) == 10
    assert hand_score(rank_counts(cards("3 5 7 9 J"))) == 0


def test_rollouts_score_the_dou_dizhu_stake():
    """DDZ-5.1: each bomb or rocket and a spring double the stake; a rollout's value is
    0.5 +- m/2, so a bomb in a lost hand costs what it doubled (plain 1/0 when m = 1)."""
    from zsy_lan.bots.rollout import stake_value

    lord = 0
    some = [3, 2, 1]  # everyone played: no spring
    assert stake_value(True, 0, 0, lord, some) == 1.0
    assert stake_value(False, 0, 1, lord, some) == 0.0
    assert stake_value(True, 1, 0, lord, some) == 1.5
    assert stake_value(False, 1, 1, lord, some) == -0.5
    # the landlord went out and no farmer played a card: spring, doubled
    assert stake_value(True, 0, 0, lord, [5, 0, 0]) == 1.5
    # the farmers went out and the landlord played once only: anti-spring
    assert stake_value(False, 1, 2, lord, [1, 4, 6]) == -1.5


def test_selfplay_takes_the_levels_and_the_budget():
    """One set of names everywhere: ``zsy selfplay --bot`` takes the levels (old 'greedy'
    is refused with the new name), and ``--budget`` makes hard's matches repeat exactly."""
    import json

    from click.testing import CliRunner

    from zsy_lan.cli import cli

    runner = CliRunner()
    args = ["selfplay", "--players", "3", "--rounds", "1", "--seed", "7", "--bot", "hard",
            "--budget", "3", "--json"]
    a = runner.invoke(cli, args)
    b = runner.invoke(cli, args)
    assert a.exit_code == 0, a.output
    assert json.loads(a.output)["hashes"] == json.loads(b.output)["hashes"]
    old = runner.invoke(cli, ["selfplay", "--bot", "greedy"])
    assert old.exit_code == 2 and "use --bot easy" in old.output


def test_rollouts_score_the_zsy_point_schemes():
    """ZSY-8.2 penalty (1 a card, 2 a 2, 3 a joker) and ZSY-8.3 card count (-1 a card, -2
    each with 10+ left, -3 each if none played; the first out takes the sum): a lost round
    where the costly cards are gone scores better than one where they are held."""
    from zsy_lan.bots.rollout import scheme_value

    def hand(*ranks):
        h = [0] * 15
        for r in ranks:
            h[r] += 1
        return h

    empty = hand()
    low = [empty, hand(0), hand(1), hand(2)]          # seat 0 out, seat 1 holds one 3
    high = [empty, hand(14), hand(1), hand(2)]        # seat 1 holds the red joker
    assert scheme_value("penalty", 0, 0, low, [3, 3, 3, 3], 13) == 1.0
    assert scheme_value("penalty", 1, 0, low, [3, 3, 3, 3], 13) > scheme_value(
        "penalty", 1, 0, high, [3, 3, 3, 3], 13)
    # card count: seat 1 played nothing (x3) with one card left; the winner takes 3+1+1
    many = [empty, hand(0), hand(1), hand(2)]
    assert scheme_value("cardcount", 1, 0, many, [4, 0, 2, 2], 13) == 0.5 - 1.5 / 13
    assert scheme_value("cardcount", 0, 0, many, [4, 0, 2, 2], 13) == 0.5 + 2.5 / 13


@pytest.mark.parametrize("scoring", ["penalty", "cardcount"])
def test_hard_plays_for_the_zsy_point_schemes(scoring):
    """Whole matches under each point scheme, on the iteration budget: legal and repeatable."""
    rules = rules_for(4, [], {"scoring": scoring})
    runs = [play_match(rules, 1, f"scheme-{scoring}", [hard(s, budget=4) for s in range(4)])
            for _ in range(2)]
    assert runs[0].hashes == runs[1].hashes and runs[0].orders


def test_a_local_table_gives_its_hard_bots_the_budget(tmp_path):
    """``zsy play --budget N``: the hard bots at a local table sample N worlds per move
    (their wall clock still caps each move at a table)."""
    from zsy_lan.table.local_table import make_local_table

    rules = rules_for(4)
    table = make_local_table(rules, 1, 0, "hard", tmp_path / "r.jsonl", seed="b", budget=5)
    bots = [d.__self__ for d in table.deciders.values()]
    assert len(bots) == 3 and all(b.budget == 5 and b.budget_ms == 400.0 for b in bots)
    plain = make_local_table(rules, 1, 0, "normal", tmp_path / "s.jsonl", seed="b", budget=5)
    assert all(d.__self__.level == "normal" for d in plain.deciders.values())
