"""protocol/bucket.py: the one token bucket (chat, replica floods, the relay) from given times."""

from __future__ import annotations

import pytest

from zsy_lan.protocol.bucket import Bucket, take_all


def test_take_spends_whole_costs_and_refills_with_the_time_given():
    b = Bucket(rate=2.0, burst=4.0, now=10.0)
    assert [b.take(10.0) for _ in range(5)] == [True, True, True, True, False]
    assert b.take(10.5)  # half a second: one token
    assert not b.take(10.5)
    assert not b.take(9.0)  # an earlier time refills nothing
    assert b.take(100.0, cost=4.0) and b.tokens == 0.0  # capped at the burst


def test_grant_gives_what_there_is_up_to_the_asked():
    b = Bucket(rate=100.0, burst=10.0, now=0.0)
    assert b.grant(0.0, 64) == 10
    assert b.grant(0.05, 64) == 5
    assert b.grant(0.05) == 0


def test_wait_says_how_long_until_a_token_and_spends_nothing():
    b = Bucket(rate=0.5, burst=1.0, now=0.0)
    assert b.wait(0.0) == 0.0
    assert b.take(0.0)
    assert b.wait(0.5) == pytest.approx(1.5)
    assert b.tokens == 0.0 and b.at == 0.0


def test_take_all_spends_every_bucket_or_none():
    frames, size = Bucket(10.0, 2.0, 0.0), Bucket(100.0, 150.0, 0.0)
    assert take_all(0.0, (frames, 1.0), (size, 100.0))
    assert not take_all(0.0, (frames, 1.0), (size, 100.0))  # 50 bytes left: nothing spent
    assert frames.tokens == 1.0 and size.tokens == 50.0
    assert take_all(0.5, (frames, 1.0), (size, 100.0))  # both refilled by the half second
    assert frames.tokens == 1.0 and size.tokens == 0.0  # frames capped at their burst


def test_pause_moves_the_last_refill_on_never_past_now():
    b = Bucket(rate=1.0, burst=8.0, now=0.0)
    for _ in range(8):
        assert b.take(0.0)
    b.pause(5.0, now=6.0)  # the owner did not listen for 5 of those 6 seconds
    assert b.at == 5.0 and b.grant(6.0, 8) == 1
    b.pause(10.0, now=7.0)
    assert b.at == 7.0 and b.grant(7.0, 8) == 0



def test_no_other_bucket_class_in_the_package():
    """One token bucket: a new limit uses this one instead of growing its own copy."""
    import ast
    from pathlib import Path

    import zsy_lan

    root = Path(zsy_lan.__file__).resolve().parent
    found = [
        f"{path.relative_to(root.parent)}:{node.lineno} {node.name}"
        for path in sorted(root.rglob("*.py"))
        if path.name != "bucket.py"
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.ClassDef) and "bucket" in node.name.lower()
    ]
    assert not found, found
