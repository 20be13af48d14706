"""Sealing a face-down pass to its receiver (X25519 + HKDF-SHA256 + ChaCha20-Poly1305).

Each peer has a fresh X25519 key pair per round; the public key is in its
``Commit``, the private key is revealed at the end of the round, so the audit
can open every pass. The AEAD key is derived from the X25519 shared secret and
(table, round, giver, receiver, pass index), so every pass has its own key and
a zero nonce is never reused. The associated data binds the same fields and
the passed slots: a box cannot be replayed for other slots, seats or rounds.

Plaintext: canonical JSON ``{"cards": [[slot, card, [[seat, key_hex], ...]], ...]}``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from zsy_lan.deal.group import hash_parts

_NONCE = bytes(12)


def box_keypair(rand: Callable[[int], bytes]) -> tuple[bytes, bytes]:
    """(private, public) raw X25519 keys."""
    sk = X25519PrivateKey.from_private_bytes(rand(32))
    pk = sk.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
    return sk.private_bytes_raw(), pk


def box_public(sk: bytes) -> bytes:
    return (
        X25519PrivateKey.from_private_bytes(sk)
        .public_key()
        .public_bytes(Encoding.Raw, PublicFormat.Raw)
    )


def pass_key(
    my_sk: bytes,
    their_pk: bytes,
    table_id: bytes,
    round_no: int,
    giver: int,
    receiver: int,
    index: int,
) -> bytes:
    """The AEAD key of one pass. Raises ValueError for a degenerate public key."""
    shared = X25519PrivateKey.from_private_bytes(my_sk).exchange(
        X25519PublicKey.from_public_bytes(their_pk)
    )
    return HKDF(
        algorithm=hashes.SHA256(),
        length=32,
        salt=None,
        info=hash_parts(b"zsy-deal-pass-key", table_id, round_no, giver, receiver, index),
    ).derive(shared)


def pass_ad(
    table_id: bytes, round_no: int, giver: int, receiver: int, index: int, slots: Sequence[int]
) -> bytes:
    return hash_parts(
        b"zsy-deal-pass-ad", table_id, round_no, giver, receiver, index, *[int(s) for s in slots]
    )


def seal(
    key: bytes, ad: bytes, entries: Sequence[tuple[int, int, Sequence[tuple[int, bytes]]]]
) -> bytes:
    """Encrypt [(slot, card, [(seat, key), ...]), ...]."""
    body = {"cards": [[s, c, [[seat, k.hex()] for seat, k in keys]] for s, c, keys in entries]}
    plain = json.dumps(body, sort_keys=True, separators=(",", ":")).encode("ascii")
    return ChaCha20Poly1305(key).encrypt(_NONCE, plain, ad)


def unseal(key: bytes, ad: bytes, box: bytes) -> list[tuple[int, int, list[tuple[int, bytes]]]]:
    """Decrypt and parse; raises ValueError on any problem."""
    try:
        plain = ChaCha20Poly1305(key).decrypt(_NONCE, box, ad)
    except InvalidTag as exc:
        raise ValueError("pass box does not decrypt") from exc
    try:
        obj: Any = json.loads(plain)
        out = []
        for slot, card, keys in obj["cards"]:
            if type(slot) is not int or type(card) is not int:
                raise ValueError("bad entry")
            kl = []
            for seat, khex in keys:
                if type(seat) is not int or not isinstance(khex, str) or len(khex) != 64:
                    raise ValueError("bad key")
                kl.append((seat, bytes.fromhex(khex)))
            out.append((slot, card, kl))
        if set(obj) != {"cards"}:
            raise ValueError("bad fields")
        return out
    except (ValueError, TypeError, KeyError) as exc:
        raise ValueError(f"pass box content is malformed: {exc}") from exc
