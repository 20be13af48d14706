"""The documented hash-driven shuffle: fixed test vectors (ZSY-1.4, DESIGN "The deal").

If one of these changes, every peer on an older version deals different cards:
never update a vector without bumping the protocol version.
"""

import hashlib

from hypothesis import given
from hypothesis import strategies as st

from zsy_lan.engine.shuffle import HashStream, choose, derive, shuffled


def test_first_word_is_sha256_counter_zero():
    block = hashlib.sha256(b"abc" + (0).to_bytes(8, "big")).digest()
    assert HashStream(b"abc").word() == int.from_bytes(block[:8], "big") == 5430338203079989309


def test_vectors():
    assert shuffled(list(range(10)), b"zsy") == [8, 4, 1, 6, 2, 9, 0, 3, 5, 7]
    assert shuffled(list(range(54)), bytes(32))[:12] == [
        33,
        52,
        29,
        12,
        45,
        32,
        21,
        6,
        41,
        5,
        11,
        23,
    ]
    assert choose(bytes(32), "dealer", 4) == 1
    assert derive(b"s", "deal") == hashlib.sha256(b"zsy-derive\x00deal\x00s").digest()


@given(st.binary(max_size=40), st.integers(1, 120))
def test_shuffle_is_a_permutation(seed, n):
    out = shuffled(list(range(n)), seed)
    assert sorted(out) == list(range(n))


@given(st.binary(max_size=8), st.integers(1, 1000))
def test_uniform_in_range(seed, n):
    s = HashStream(seed)
    assert all(0 <= s.uniform(n) < n for _ in range(5))
