"""Commit-reveal shared randomness: pure functions, no entropy source of their own.

Each seat picks a secret 32-byte seed and nonce, publishes
``H(table, round, seat, nonce, seed)``, and reveals only after every seat has
committed. Nobody can choose the combined seed (all commitments are fixed
before any seed is seen) nor predict it while one seat is honest. Binding the
table, round and seat into the hash stops a peer from replaying someone else's
commitment or an old one of its own.

The replica drives the exchange; these functions are also what
``verify_transcript`` uses to re-check a finished game.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from zsy_lan.protocol.canonical import canonical, decode, digest

__all__ = ["COMMIT", "REVEAL", "Secret", "commitment", "check_reveal", "combine"]

SEED_SIZE = 32

#: the two stages of a seed phase (``Ledger.stage``), named as their messages' types
COMMIT = "commit"
REVEAL = "reveal"


@dataclass(frozen=True)
class Secret:
    """One seat's hidden contribution for one round."""

    nonce: bytes
    seed: bytes

    @classmethod
    def draw(cls, entropy: Callable[[int], bytes]) -> Secret:
        """Draw from the caller's entropy (``os.urandom`` in the shell, a fixed one in tests)."""
        nonce, seed = entropy(SEED_SIZE), entropy(SEED_SIZE)
        if len(nonce) != SEED_SIZE or len(seed) != SEED_SIZE:
            raise ValueError("entropy source must return the number of bytes asked for")
        return cls(nonce, seed)

    def to_bytes(self) -> bytes:
        """Stable form for the persistence journal."""
        return canonical({"nonce": self.nonce.hex(), "seed": self.seed.hex()})

    @classmethod
    def from_bytes(cls, data: bytes) -> Secret:
        """Inverse of :meth:`to_bytes`."""
        obj = decode(data)
        return cls(bytes.fromhex(obj["nonce"]), bytes.fromhex(obj["seed"]))


def commitment(table: str, round_no: int, seat: int, nonce: bytes, seed: bytes) -> str:
    """Hex SHA-256 over the canonical encoding of (table, round, seat, nonce, seed)."""
    return digest(
        {"table": table, "round": round_no, "seat": seat, "nonce": nonce.hex(), "seed": seed.hex()}
    )


def check_reveal(
    commit_hex: str, table: str, round_no: int, seat: int, nonce: bytes, seed: bytes
) -> bool:
    """True when (nonce, seed) opens ``commit_hex`` for this table, round and seat."""
    return commitment(table, round_no, seat, nonce, seed) == commit_hex


def combine(seeds_in_seat_order: Sequence[bytes]) -> bytes:
    """The round's 32-byte seed: SHA-256 of every seat's seed concatenated in seat order."""
    return hashlib.sha256(b"".join(seeds_in_seat_order)).digest()
