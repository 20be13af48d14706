"""Commit-reveal shared randomness (DESIGN.md "The deal")."""

from __future__ import annotations

import hashlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from zsy_lan.protocol.commit_reveal import Secret, check_reveal, combine, commitment

N, S = bytes(range(32)), bytes(range(32, 64))


def test_commitment_binds_table_round_seat_nonce_and_seed():
    base = commitment("t", 0, 1, N, S)
    assert check_reveal(base, "t", 0, 1, N, S)
    variants = [
        commitment("u", 0, 1, N, S),
        commitment("t", 1, 1, N, S),
        commitment("t", 0, 2, N, S),
        commitment("t", 0, 1, S, S),
        commitment("t", 0, 1, N, N),
    ]
    assert base not in variants and len(set(variants)) == len(variants)
    assert not check_reveal(base, "t", 0, 1, N, N)


def test_combined_seed_is_sha256_of_seeds_in_seat_order():
    seeds = [bytes([i]) * 32 for i in range(4)]
    assert combine(seeds) == hashlib.sha256(b"".join(seeds)).digest()
    assert combine(seeds) != combine(seeds[::-1])


@settings(max_examples=40, deadline=None)
@given(st.lists(st.binary(min_size=32, max_size=32), min_size=2, max_size=6), st.data())
def test_any_one_seat_changes_the_combined_seed(seeds, data):
    i = data.draw(st.integers(0, len(seeds) - 1))
    other = data.draw(st.binary(min_size=32, max_size=32).filter(lambda b: b != seeds[i]))
    changed = seeds[:i] + [other] + seeds[i + 1 :]
    assert combine(changed) != combine(seeds)


def test_secret_round_trips_through_the_journal_form():
    secret = Secret(N, S)
    assert Secret.from_bytes(secret.to_bytes()) == secret


def test_secret_draw_uses_the_given_entropy_and_checks_it():
    assert Secret.draw(lambda n: b"\x01" * n) == Secret(b"\x01" * 32, b"\x01" * 32)
    with pytest.raises(ValueError):
        Secret.draw(lambda n: b"short")
