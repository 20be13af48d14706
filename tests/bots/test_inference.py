"""Inference of hidden hands from the public play log (``zsy_lan.bots.inference``).

The position (Dou Dizhu, seat 0 the landlord, DDZ-4.1): seat 1 passed twice on
the landlord's singles (a 4, then a J) while holding only pairs; seat 2 followed.
A world where seat 1 holds a loose single above the J explains those passes
badly, so the resampled worlds give it fewer such hands than blind dealing.
"""

from bot_helpers import cards, position, rules_for

from zsy_lan.bots.base import Observation
from zsy_lan.bots.inference import PASS_SINGLE, LogModel, build_checks, infer_sample
from zsy_lan.bots.search import HardBot, Simulator
from zsy_lan.engine.cards import NUM_RANKS, RANK_OF
from zsy_lan.engine.round import apply
from zsy_lan.engine.shuffle import HashStream
from zsy_lan.engine.state import PASS, PLAY, Action
from zsy_lan.engine.view import view

DDZ = rules_for(3, ["doudizhu"])
J, Q, A = (RANK_OF[cards(r)[0]] for r in ("J", "Q", "A"))


def _logged_position():
    st = position(DDZ, ["4 6 6 J Q Q 5", "9 9 10 10 A A 3 3", "7 K 2 8 8 5 5"], 0,
                  extra={"landlord": 0})
    seq = [
        (0, "4"), (1, ""), (2, "7"), (0, "J"), (1, ""), (2, "K"), (0, ""), (1, ""),
        (2, "8 8"),  # seat 2 won the trick and led a pair: seat 0 to follow
    ]
    for seat, text in seq:
        held = st.hands[seat]
        pick: list[int] = []
        for x in cards(text):
            pick.append(next(c for c in held if RANK_OF[c] == RANK_OF[x] and c not in pick))
        a = Action(PLAY, seat, tuple(pick)) if text else Action(PASS, seat)
        st = apply(DDZ, st, a)
    return st


def _loose_above(world, seat, rank):
    return any(world[seat][r] == 1 for r in range(rank + 1, 13))


def test_log_gives_checks_on_the_other_seats_only():
    st = _logged_position()
    checks = build_checks(DDZ, view(st, 0), 0)
    # seat 0's own moves say nothing new; seat 1's pass on its mate's K is no evidence
    assert [(c.seat, c.test) for c in checks] == [
        (1, "pass"), (2, "follow"), (1, "pass"), (2, "follow"), (2, "lead")]


def test_a_world_against_the_log_weighs_less():
    st = _logged_position()
    model = LogModel(DDZ, view(st, 0), 0)
    pairs = [[0] * NUM_RANKS for _ in range(3)]
    loose = [[0] * NUM_RANKS for _ in range(3)]
    pairs[1][A] = 2
    loose[1][A] = 1
    loose[1][J - 1] = 1
    assert model.weight(loose) <= PASS_SINGLE * model.weight(pairs)


def test_resampled_worlds_follow_the_passes():
    st = _logged_position()
    v = view(st, 0)
    n = 300

    def hits(tries: int) -> int:
        sim, stream = Simulator(DDZ, v, 0), HashStream(b"t")
        return sum(_loose_above(infer_sample(sim, stream, tries), 1, J) for _ in range(n))

    blind = hits(1)  # one try: the blind deal
    assert hits(6) < 0.85 * blind and hits(16) < 0.8 * blind


def test_hard_with_inference_is_deterministic_and_view_only():
    st = _logged_position()
    obs = Observation.of(DDZ, view(st, 0), 0)
    a = HardBot("x", budget=12, budget_ms=None, infer=6).choose(obs)
    assert HardBot("x", budget=12, budget_ms=None, infer=6).choose(obs) == a
    # the same view rebuilt from the actions by a replica that knew only seat 0's hand
    assert view(st, 0).log == obs.view.log


def _paired_farmers():
    """12 cards left, every other card played: the landlord (seat 0) led the 3 and both
    farmers passed, so neither holds a loose single; in truth each holds two pairs."""
    names = ["4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "2"]
    held = {"8": 2, "Q": 1, "2": 1, "K": 2, "7": 2, "4": 2, "9": 2}
    gone = [n for n in names for _ in range(4 - held.get(n, 0))] + ["3"] * 3 + ["BJ", "RJ"]
    st = position(DDZ, ["8 8 Q 2 3", "K K 7 7", "4 4 9 9"], 0, played=" ".join(gone),
                  extra={"landlord": 0})
    three = next(c for c in st.hands[0] if RANK_OF[c] == 0)
    for a in (Action(PLAY, 0, (three,)), Action(PASS, 1), Action(PASS, 2)):
        st = apply(DDZ, st, a)
    return st


def test_inference_moves_the_landlords_lead():
    """Blind, the worlds deal the farmers loose singles that beat a lone Q, so the pair
    8 8 looks as good; read from the passes, the farmers hold pairs, and the single Q
    (which the exact solver picks on the true deal too: the pair loses to K K) wins."""
    st = _paired_farmers()
    obs = Observation.of(DDZ, view(st, 0), 0)
    queen = next(a for a in obs.legal if len(a.cards) == 1 and RANK_OF[a.cards[0]] == Q)
    blind = [HardBot(str(k), budget=48, budget_ms=None).choose(obs) for k in range(6)]
    inferred = [HardBot(str(k), budget=48, budget_ms=None, infer=16).choose(obs)
                for k in range(6)]
    assert all(a == queen for a in inferred)
    assert sum(a != queen for a in blind) >= 2
