"""The documented, hash-driven shuffle every peer computes identically.

``random.shuffle`` is not stable across Python versions, so the deal uses its
own generator:

* a byte stream ``SHA-256(seed || counter)`` for counter = 0, 1, 2, ...
  (counter as 8 bytes big-endian), each block cut into four 64-bit big-endian
  words;
* ``uniform(n)`` takes the next word ``w`` and rejects it while
  ``w >= 2**64 - (2**64 % n)`` (no modulo bias), else returns ``w % n``;
* Fisher–Yates: for ``i`` from ``len-1`` down to 1, swap item ``i`` with item
  ``uniform(i + 1)``.

Test vectors in ``tests/test_shuffle.py`` fix the output.
"""

from __future__ import annotations

import hashlib
import struct
from collections.abc import Sequence
from typing import TypeVar

T = TypeVar("T")
_TWO64 = 1 << 64
_FOUR_WORDS = struct.Struct(">4Q")


class HashStream:
    """Deterministic stream of 64-bit words from a seed."""

    def __init__(self, seed: bytes) -> None:
        self._seed = bytes(seed)
        self._counter = 0
        self._words: list[int] = []

    def word(self) -> int:
        """The next 64-bit word."""
        if not self._words:
            block = hashlib.sha256(self._seed + self._counter.to_bytes(8, "big")).digest()
            self._counter += 1
            self._words = list(_FOUR_WORDS.unpack(block))[::-1]
        return self._words.pop()

    def uniform(self, n: int) -> int:
        """An unbiased integer in ``[0, n)``."""
        if n <= 0:
            raise ValueError("uniform(n) needs n >= 1")
        limit = _TWO64 - (_TWO64 % n)
        while True:
            w = self.word()
            if w < limit:
                return w % n


def shuffled(items: Sequence[T], seed: bytes) -> list[T]:
    """A Fisher–Yates permutation of ``items`` driven by :class:`HashStream`.

    This is ``HashStream(seed)`` and ``uniform(i + 1)`` for each ``i``, inlined
    (the deal of every round goes through here): the same words, in the same
    order, with the same rejections.
    """
    out = list(items)
    prefix = bytes(seed)
    words: list[int] = []
    counter = pos = 0
    for i in range(len(out) - 1, 0, -1):
        n = i + 1
        limit = _LIMITS[n] if n < _N_LIMITS else _TWO64 - (_TWO64 % n)
        while True:
            if pos == len(words):
                block = hashlib.sha256(prefix + counter.to_bytes(8, "big")).digest()
                counter += 1
                words.extend(_FOUR_WORDS.unpack(block))
            w = words[pos]
            pos += 1
            if w < limit:
                break
        j = w % n
        out[i], out[j] = out[j], out[i]
    return out


# uniform(n)'s rejection limit for the n of a deal (up to two decks and then some)
_N_LIMITS = 256
_LIMITS = [0] + [_TWO64 - (_TWO64 % n) for n in range(1, _N_LIMITS)]


def derive(seed: bytes, label: str) -> bytes:
    """A sub-seed for one purpose (``deal``, ``dealer``, ``bidder``) of a round seed."""
    return hashlib.sha256(b"zsy-derive\x00" + label.encode() + b"\x00" + seed).digest()


def choose(seed: bytes, label: str, n: int) -> int:
    """A shared random choice in ``[0, n)`` (first dealer, first bidder)."""
    return HashStream(derive(seed, label)).uniform(n)
