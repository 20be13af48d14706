"""The prime-order group of ed25519, as used by the private deal.

Thin typed wrappers over libsodium (through PyNaCl's low-level bindings):

* a **card point** is ``from_uniform(SHA-256("zsy-card", table, round, card))``:
  a point whose discrete logarithm nobody knows. Cards are never encoded as
  small multiples of the base point (anyone could open those without a key);
* a **scalar** is a nonzero integer modulo the group order ``L``, 32 bytes
  little-endian, always reduced;
* ``mask(P, k) = k*P`` with ``crypto_scalarmult_ed25519_noclamp`` (the clamped
  variant is not invertible) and ``unmask(P, k) = (1/k)*P``;
* ``validate_point`` is applied to every point received from a peer: exactly
  32 bytes, canonical ``y < p``, on the curve, in the prime-order subgroup
  and not the identity (``crypto_core_ed25519_is_valid_point``; PyNaCl >=
  1.6.2 carries the fix for CVE-2025-69277 in its subgroup check).

``mask`` itself refuses an invalid input point: libsodium runs the same
checks (canonical, not small order, prime-order subgroup) before any
``scalarmult_ed25519``, so a peer that is about to mask a received deck gets
the validation for free. ``self_test()`` checks all of this at start-up.

Every group operation is counted in ``COUNTERS`` (for the benchmark).
"""

from __future__ import annotations

import hashlib
import os
import re
import threading
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from typing import NewType, TypeVar

import nacl
import nacl.bindings as _nb
import nacl.exceptions

from zsy_lan.deal.deal_errors import BadPoint, BadScalar, PrimitiveUnavailable

T = TypeVar("T")
Point = NewType("Point", bytes)
Scalar = NewType("Scalar", bytes)

#: field prime and group order
P_FIELD = 2**255 - 19
L_ORDER = 2**252 + 27742317777372353535851937790883648493

POINT_BYTES = 32
SCALAR_BYTES = 32
IDENTITY = Point(b"\x01" + bytes(31))
MIN_PYNACL = (1, 6, 2)

#: counts of group operations since the last ``reset_counters()``
COUNTERS: Counter[str] = Counter()
_count_lock = threading.Lock()  # a deck step may run on another thread (``in_background``)


def _count(op: str, n: int = 1) -> None:
    with _count_lock:
        COUNTERS[op] += n

_smul = _nb.crypto_scalarmult_ed25519_noclamp
_is_valid = _nb.crypto_core_ed25519_is_valid_point
_from_uniform = _nb.crypto_core_ed25519_from_uniform
_sc_invert = _nb.crypto_core_ed25519_scalar_invert
_sc_mul = _nb.crypto_core_ed25519_scalar_mul
_sc_reduce = _nb.crypto_core_ed25519_scalar_reduce


def reset_counters() -> None:
    COUNTERS.clear()


# ---------------------------------------------------------------- hashing


def encode_parts(domain: bytes, *parts: bytes | int | str) -> bytes:
    """The bytes ``hash_parts`` hashes: a domain tag and length-prefixed parts.

    Ints are 8-byte big-endian (non-negative, not bool), strings UTF-8. A
    prefix of these bytes can be kept and extended (``deck_setup.key_hash`` does).
    """
    out = [len(domain).to_bytes(4, "big"), domain]
    for part in parts:
        if isinstance(part, bool):
            raise TypeError("bool is not a hash part")
        if isinstance(part, int):
            if part < 0:
                raise ValueError("hash parts are non-negative integers")
            b = part.to_bytes(8, "big")
        elif isinstance(part, str):
            b = part.encode("utf-8")
        else:
            b = bytes(part)
        out += (len(b).to_bytes(4, "big"), b)
    return b"".join(out)


def hash_parts(domain: bytes, *parts: bytes | int | str) -> bytes:
    """SHA-256 of a domain tag and length-prefixed parts (ints as 8-byte big-endian)."""
    return hashlib.sha256(encode_parts(domain, *parts)).digest()


# ---------------------------------------------------------------- points


def card_point(table_id: bytes, round_no: int, card_id: int) -> Point:
    """The group element that encodes ``card_id`` for this table and round."""
    _count("from_uniform")
    return Point(_from_uniform(hash_parts(b"zsy-card", table_id, round_no, card_id)))


def card_table(table_id: bytes, round_no: int, card_ids: Iterable[int]) -> dict[Point, int]:
    """Map from card point to card id, for looking up opened cards."""
    table: dict[Point, int] = {}
    for cid in card_ids:
        pt = card_point(table_id, round_no, cid)
        if pt in table:  # pragma: no cover - a hash collision
            raise PrimitiveUnavailable(f"card points of {table[pt]} and {cid} collide")
        table[pt] = cid
    return table


def is_canonical_encoding(data: bytes) -> bool:
    """32 bytes whose y coordinate (low 255 bits) is reduced modulo p."""
    if len(data) != POINT_BYTES:
        return False
    return int.from_bytes(data, "little") & ((1 << 255) - 1) < P_FIELD


def validate_point(data: object, *, sender: int | None = None, what: str = "point") -> Point:
    """Return ``data`` as a Point, or raise BadPoint naming ``sender``."""
    if not isinstance(data, bytes | bytearray):
        raise BadPoint(f"{what} is not bytes", culprit=sender, step="validate")
    data = bytes(data)
    if len(data) != POINT_BYTES:
        raise BadPoint(f"{what} has {len(data)} bytes, not 32", culprit=sender, step="validate")
    if not is_canonical_encoding(data):
        raise BadPoint(f"{what} is not canonically encoded", culprit=sender, step="validate")
    _count("is_valid_point")
    if not _is_valid(data):
        # rejects the identity, small-order points, points off the curve and
        # points outside the prime-order subgroup
        raise BadPoint(f"{what} is not in the prime-order group", culprit=sender, step="validate")
    return Point(data)


def mask(point: bytes, scalar: bytes, *, sender: int | None = None) -> Point:
    """``scalar * point``. An invalid input point raises BadPoint naming ``sender``."""
    _count("scalarmult")
    return _mask_run(((point, scalar),), sender)[0]


#: worker threads for long runs of scalar multiplications (libsodium runs without the
#: GIL): a deck step is on the deal's critical path, so it uses every core there is
WORKERS = max(1, min(4, os.cpu_count() or 1))
_MIN_PARALLEL = 16  # shorter runs are not worth a thread hand-off
_pool: tuple[int, ThreadPoolExecutor] | None = None
_pool_lock = threading.Lock()


def _mask_run(pairs: Sequence[tuple[bytes, bytes]], sender: int | None) -> list[Point]:
    out = []
    for point, scalar in pairs:
        try:
            out.append(Point(_smul(scalar, point)))
        except (nacl.exceptions.RuntimeError, nacl.exceptions.TypeError, TypeError) as exc:
            raise BadPoint(
                "point rejected by scalarmult (not a canonical prime-order point)",
                culprit=sender,
                step="mask",
            ) from exc
    return out


def mask_each(
    points: Sequence[bytes], scalars: Sequence[bytes], *, sender: int | None = None
) -> list[Point]:
    """``[mask(p, k) for p, k in zip(points, scalars)]``, split over worker threads.

    Same results, same checks, same error (``BadPoint`` naming ``sender``; with
    several bad points, the one in the first chunk that has one) as the loop.
    """
    pairs = list(zip(points, scalars, strict=True))
    _count("scalarmult", len(pairs))
    workers = WORKERS
    if workers == 1 or len(pairs) < _MIN_PARALLEL:
        return _mask_run(pairs, sender)
    global _pool
    with _pool_lock:
        if _pool is None or _pool[0] != os.getpid():  # (a forked child needs its own)
            _pool = (os.getpid(), ThreadPoolExecutor(workers, thread_name_prefix="zsy-deal"))
        pool = _pool[1]
    size = -(-len(pairs) // workers)
    chunks = [pairs[i : i + size] for i in range(0, len(pairs), size)]
    futures = [pool.submit(_mask_run, chunk, sender) for chunk in chunks[1:]]
    try:
        out = _mask_run(chunks[0], sender)  # this thread does a share too
        for fut in futures:
            out += fut.result()
    finally:
        for fut in futures:
            fut.cancel()  # (after an error: the chunks not started yet)
    return out


_background: tuple[int, ThreadPoolExecutor] | None = None


def in_background(fn: Callable[[], T]) -> Future[T]:
    """Run ``fn`` on a background thread (its masks still use the worker threads).

    For work that depends on nobody and is needed a little later (the first
    shuffle of a deal); ``result()`` returns its value or raises its error.
    """
    global _background
    with _pool_lock:
        if _background is None or _background[0] != os.getpid():
            _background = (os.getpid(), ThreadPoolExecutor(1, thread_name_prefix="zsy-deal-bg"))
        return _background[1].submit(fn)


def unmask(point: bytes, scalar: bytes, *, sender: int | None = None) -> Point:
    """``(1/scalar) * point``."""
    return mask(point, scalar_inv(scalar), sender=sender)


# ---------------------------------------------------------------- scalars


def random_scalar(rand: Callable[[int], bytes] = os.urandom) -> Scalar:
    """A uniformly random nonzero scalar (a peer's own secret: never replicated)."""
    while True:
        s = _sc_reduce(rand(64))
        if any(s):
            return Scalar(s)


def random_permutation(n: int, rand: Callable[[int], bytes] = os.urandom) -> tuple[int, ...]:
    """A uniformly random permutation of range(n) (Fisher-Yates, rejection sampling)."""
    perm = list(range(n))
    for i in range(n - 1, 0, -1):
        bound = i + 1
        limit = (1 << 32) - ((1 << 32) % bound)
        while True:
            r = int.from_bytes(rand(4), "big")
            if r < limit:
                break
        j = r % bound
        perm[i], perm[j] = perm[j], perm[i]
    return tuple(perm)


def is_canonical_scalar(data: object) -> bool:
    if not isinstance(data, bytes) or len(data) != SCALAR_BYTES:
        return False
    v = int.from_bytes(data, "little")
    return 0 < v < L_ORDER


def validate_scalar(data: object, *, sender: int | None = None, what: str = "scalar") -> Scalar:
    if not is_canonical_scalar(data):
        raise BadScalar(f"{what} is not a reduced nonzero scalar", culprit=sender, step="validate")
    assert isinstance(data, bytes)
    return Scalar(data)


def scalar_inv(s: bytes) -> Scalar:
    _count("scalar_invert")
    return Scalar(_sc_invert(s))


def scalar_mul(a: bytes, b: bytes) -> Scalar:
    _count("scalar_mul")
    return Scalar(_sc_mul(a, b))


def scalar_product(scalars: Iterable[bytes]) -> Scalar:
    acc: bytes | None = None
    for s in scalars:
        acc = s if acc is None else scalar_mul(acc, s)
    if acc is None:
        raise ValueError("empty product")
    return Scalar(acc)


def scalar_from_int(v: int) -> Scalar:
    if not 0 < v < L_ORDER:
        raise ValueError("scalar out of range")
    return Scalar(v.to_bytes(32, "little"))


# ---------------------------------------------------------------- self-test


def add_order2_torsion(point: bytes) -> bytes:
    """``point + (0, -1)``: on the curve, but outside the prime-order subgroup.

    Adding the order-2 point maps (x, y) to (-x, -y). Such points fooled
    ``is_valid_point`` before the fix of CVE-2025-69277.
    """
    raw = int.from_bytes(point, "little")
    y = raw & ((1 << 255) - 1)
    sign = raw >> 255
    return ((P_FIELD - y) % P_FIELD | ((sign ^ 1) << 255)).to_bytes(32, "little")


_SELFTEST_TABLE = b"zsy-selftest"
_SELFTEST_SCALAR = hashlib.sha512(b"zsy-selftest-scalar").digest()
#: card_point(b"zsy-selftest", 0, 0)
SELFTEST_CARD_HEX = "c41b11286359a2a1caea3ca07b200dd65c4cf9c8a6cc8d5bcb740f57918435af"
#: mask(SELFTEST_CARD, reduce(SHA-512("zsy-selftest-scalar")))
SELFTEST_MASKED_HEX = "c40536835b741f0f2e309de058e56de5216e5487839e39c16e960f7795c91b8a"

_self_test_done = False


def _version_tuple(v: str) -> tuple[int, ...]:
    out = []
    for part in v.split(".")[:3]:
        m = re.match(r"\d+", part)
        out.append(int(m.group(0)) if m else 0)
    return tuple(out)


def self_test(*, force: bool = False) -> None:
    """Check the primitive once per process; raise PrimitiveUnavailable if unusable."""
    global _self_test_done
    if _self_test_done and not force:
        return
    version = getattr(nacl, "__version__", "0")
    if _version_tuple(version) < MIN_PYNACL:
        raise PrimitiveUnavailable(
            f"the private deal needs PyNaCl >= 1.6.2 (fix for CVE-2025-69277 in "
            f"ed25519 point validation); installed: {version}. "
            f"Upgrade with: pip install 'pynacl>=1.6.2'"
        )
    if not getattr(_nb, "has_crypto_core_ed25519", False):
        raise PrimitiveUnavailable("PyNaCl was built without crypto_core_ed25519")
    card = card_point(_SELFTEST_TABLE, 0, 0)
    k = Scalar(_sc_reduce(_SELFTEST_SCALAR))
    problems = []
    if card.hex() != SELFTEST_CARD_HEX:
        problems.append("from_uniform test vector")
    masked = mask(card, k)
    if masked.hex() != SELFTEST_MASKED_HEX:
        problems.append("scalarmult_noclamp test vector")
    if unmask(masked, k) != card:
        problems.append("mask/unmask round trip")
    if not _is_valid(card) or _is_valid(IDENTITY):
        problems.append("identity/valid point check")
    if _is_valid(add_order2_torsion(card)):
        problems.append("is_valid_point accepts a point outside the subgroup (CVE-2025-69277)")
    if problems:
        raise PrimitiveUnavailable(
            "libsodium self-test failed: " + ", ".join(problems) + f" (PyNaCl {version})"
        )
    _self_test_done = True
