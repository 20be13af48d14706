"""The public play log (``RoundState.log``): every play and pass of the play phase, in order.

It is public (every seat's view holds it, other hands stay hidden) and it is
outside the canonical form, so the hashes of earlier versions still hold.
"""

from engine_helpers import hand, passes, play, position

from zsy_lan.engine.canonical import decode, encode
from zsy_lan.engine.round import apply
from zsy_lan.engine.rules import base_rules
from zsy_lan.engine.state import evolve, public_json, round_from_json, round_to_json
from zsy_lan.engine.view import public_hash, state_hash, view

R3 = base_rules(3)


def _trick_played():
    st = position(R3, ["3 4 9", "5 8 K", "6 7 A"], turn=0)
    st = apply(R3, st, play(0, hand("3")))  # ZSY-5.1 lead
    st = apply(R3, st, play(1, hand("5")))
    st = apply(R3, st, passes(2))
    st = apply(R3, st, passes(0))  # ZSY-5.2 seat 1 wins the trick and leads
    return apply(R3, st, play(1, hand("8")))


def test_log_records_plays_and_passes_across_tricks():  # ZSY-5.1, ZSY-5.2
    st = _trick_played()
    assert st.log == ((0, hand("3")), (1, hand("5")), (2, ()), (0, ()), (1, hand("8")))
    assert st.trick == hand("8") and st.seat_last == (None, hand("8"), None)  # trick reset


def test_log_is_public_and_hands_stay_hidden():
    st = _trick_played()
    for seat in range(3):
        v = view(st, seat)
        assert v.log == st.log
        assert all(h is None for s, h in enumerate(v.hands) if s != seat)
    assert view(st, -1).log == st.log and view(st, -1).hands == (None, None, None)


def test_log_is_outside_the_hashes():
    st = _trick_played()
    bare = evolve(st, log=())
    assert state_hash(st) == state_hash(bare) and public_hash(st) == public_hash(bare)
    assert "log" not in round_to_json(st) and "log" not in public_json(st)
    assert st == bare  # equality ignores it: a state restored from the canonical form is equal


def test_log_json_round_trip_when_asked_for():
    st = _trick_played()
    js = decode(encode(round_to_json(st, log=True)))
    assert js["log"][0] == [0, list(hand("3"))] and js["log"][2] == [2, []]
    assert round_from_json(js).log == st.log
    assert round_from_json(round_to_json(st)).log == ()


def test_a_view_replica_builds_the_same_log():
    """A replica that knows only its own hand applies the same actions: the same log."""
    full = position(R3, ["3 4 9", "5 8 K", "6 7 A"], turn=0)
    mine = view(full, 2)
    for a in (play(0, hand("3")), play(1, hand("5")), passes(2), passes(0)):
        full = apply(R3, full, a)
        mine = apply(R3, mine, a)
    assert mine.log == full.log and public_hash(mine) == public_hash(full)
