"""The one sealing module (zsy_lan/net/seal.py) both carried paths use: the relay link and
the MQTT broker link. What a carrier can do to a box, and what the receiver makes of it."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from zsy_lan.net.curve import CurveKeyPair
from zsy_lan.net.seal import DATA, HEADER, KEYS_KEPT, PING, SESSIONS_KEPT, Sealer, SealFault

A, B, C = CurveKeyPair.generate(), CurveKeyPair.generate(), CurveKeyPair.generate()


def fault(fn) -> str:
    with pytest.raises(SealFault) as err:
        fn()
    return err.value.what


@settings(max_examples=50, deadline=None)
@given(st.lists(st.binary(max_size=300), min_size=1, max_size=8), st.sampled_from([DATA, PING]))
def test_what_is_sealed_opens_once_in_order(frames, kind):
    a, b = Sealer(A), Sealer(B)
    boxes = [a.seal(B.public, kind, f) for f in frames]
    assert all(f not in box for f, box in zip(frames, boxes, strict=True) if len(f) > 8)
    assert [b.open(A.public, box) for box in boxes] == [(kind, f) for f in frames]
    assert {fault(lambda box=box: b.open(A.public, box)) for box in boxes} == {"replayed"}


@settings(max_examples=60, deadline=None)
@given(st.binary(min_size=1, max_size=64), st.data())
def test_any_altered_byte_is_the_carriers_doing(frame, data):
    box = Sealer(A).seal(B.public, DATA, frame)
    i = data.draw(st.integers(0, len(box) - 1))
    flip = data.draw(st.integers(1, 255))
    spoiled = box[:i] + bytes([box[i] ^ flip]) + box[i + 1 :]
    assert fault(lambda: Sealer(B).open(A.public, spoiled)) == "altered"
    cut = box[: data.draw(st.integers(0, len(box) - 1))]
    assert fault(lambda: Sealer(B).open(A.public, cut)) == "altered"


def test_wrong_sender_reflection_and_reordering():
    a, b = Sealer(A), Sealer(B)
    box = a.seal(B.public, DATA, b"x")
    assert fault(lambda: b.open(C.public, box)) == "altered"  # claimed by another key
    assert fault(lambda: b.open(b"short", box)) == "misaddressed"
    assert fault(lambda: a.open(B.public, box)) == "misaddressed"  # ours, reflected back
    first, second = a.seal(B.public, DATA, b"1"), a.seal(B.public, DATA, b"2")
    assert b.open(A.public, second) == (DATA, b"2")
    assert fault(lambda: b.open(A.public, first)) == "replayed"  # reordered: refused


def test_a_restarted_sender_is_heard_and_its_old_session_stays_refused():
    b = Sealer(B)
    old = Sealer(A)
    early = old.seal(B.public, DATA, b"before")
    assert b.open(A.public, early) == (DATA, b"before")
    new = Sealer(A)  # the same keys, a new run: a new random session, counters from 1
    assert new.session != old.session
    assert b.open(A.public, new.seal(B.public, DATA, b"after")) == (DATA, b"after")
    assert fault(lambda: b.open(A.public, early)) == "replayed"


def test_what_a_carrier_can_make_grow_is_bounded():
    b = Sealer(B)
    for _ in range(KEYS_KEPT + 20):  # keys a carrier made up, each with a box that opens
        k = CurveKeyPair.generate()
        b.open(k.public, Sealer(k).seal(B.public, DATA, b"hi"))
    assert len(b._boxes) <= KEYS_KEPT and len(b._heard) <= KEYS_KEPT
    for _ in range(SESSIONS_KEPT + 5):  # one sender restarted many times
        b.open(A.public, Sealer(A).seal(B.public, DATA, b"hi"))
    assert len(b._heard[A.public]) == SESSIONS_KEPT
    assert HEADER == 25
