"""A slow, independent pure-Python edwards25519 (RFC 8032 formulas), for checking libsodium.

Points are extended coordinates (X, Y, Z, T) with x = X/Z, y = Y/Z, xy = T/Z.
"""

from __future__ import annotations

P = 2**255 - 19
L = 2**252 + 27742317777372353535851937790883648493
D = (-121665 * pow(121666, P - 2, P)) % P
SQRT_M1 = pow(2, (P - 1) // 4, P)

Pt = tuple[int, int, int, int]
IDENT: Pt = (0, 1, 1, 0)


def add(p: Pt, q: Pt) -> Pt:
    x1, y1, z1, t1 = p
    x2, y2, z2, t2 = q
    a = (y1 - x1) * (y2 - x2) % P
    b = (y1 + x1) * (y2 + x2) % P
    c = 2 * t1 * t2 * D % P
    d = 2 * z1 * z2 % P
    e, f, g, h = b - a, d - c, d + c, b + a
    return (e * f % P, g * h % P, f * g % P, e * h % P)


def mul(k: int, p: Pt) -> Pt:
    q = IDENT
    while k > 0:
        if k & 1:
            q = add(q, p)
        p = add(p, p)
        k >>= 1
    return q


def equal(p: Pt, q: Pt) -> bool:
    x1, y1, z1, _ = p
    x2, y2, z2, _ = q
    return (x1 * z2 - x2 * z1) % P == 0 and (y1 * z2 - y2 * z1) % P == 0


def recover_x(y: int, sign: int) -> int | None:
    if y >= P:
        return None
    x2 = (y * y - 1) * pow(D * y * y + 1, P - 2, P) % P
    if x2 == 0:
        return None if sign else 0
    x = pow(x2, (P + 3) // 8, P)
    if (x * x - x2) % P != 0:
        x = x * SQRT_M1 % P
    if (x * x - x2) % P != 0:
        return None
    if (x & 1) != sign:
        x = P - x
    return x


def decode(b: bytes, *, strict: bool = True) -> Pt | None:
    """Decode 32 bytes; None if not a curve point (or non-canonical with strict)."""
    if len(b) != 32:
        return None
    v = int.from_bytes(b, "little")
    y = v & ((1 << 255) - 1)
    sign = v >> 255
    if y >= P:
        if strict:
            return None
        y -= P
    x = recover_x(y, sign)
    if x is None:
        return None
    return (x, y, 1, x * y % P)


def encode(p: Pt) -> bytes:
    x, y, z, _ = p
    zi = pow(z, P - 2, P)
    x, y = x * zi % P, y * zi % P
    return (y | ((x & 1) << 255)).to_bytes(32, "little")


def is_prime_order_point(b: bytes) -> bool:
    """Canonical, on the curve, in the subgroup of order L and not the identity."""
    p = decode(b)
    if p is None or equal(p, IDENT):
        return False
    return equal(mul(L, p), IDENT)


BASE = decode(bytes.fromhex("5866666666666666666666666666666666666666666666666666666666666666"))
assert BASE is not None


def torsion_points() -> list[bytes]:
    """The 8 points of the small-order subgroup (identity included)."""
    # an order-8 point: libsodium's blocklist entry
    t8 = decode(bytes.fromhex("26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05"))
    assert t8 is not None
    pts = [encode(mul(k, t8)) for k in range(8)]
    assert len(set(pts)) == 8
    return pts
