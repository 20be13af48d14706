"""The group layer: masking algebra, point validation, vectors, self-test."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import deal_ref25519 as ref
import nacl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from zsy_lan.deal import group
from zsy_lan.deal.deal_errors import BadPoint, BadScalar, PrimitiveUnavailable

VECTORS = json.loads((Path(__file__).parent / "vectors.json").read_text())
TORSION = ref.torsion_points()

scalars = st.integers(min_value=1, max_value=ref.L - 1).map(group.scalar_from_int)
cards = st.tuples(st.binary(min_size=1, max_size=16), st.integers(0, 1000), st.integers(0, 107))
points = cards.map(lambda t: group.card_point(*t))
fast = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# ------------------------------------------------------------------ algebra


@fast
@given(points, scalars, scalars)
def test_masking_commutes(p, a, b):
    assert group.mask(group.mask(p, a), b) == group.mask(group.mask(p, b), a)


@fast
@given(points, scalars)
def test_unmask_inverts_mask(p, a):
    masked = group.mask(p, a)
    assert (masked != p) == (a != group.scalar_from_int(1))
    assert group.unmask(masked, a) == p


@fast
@given(points, st.lists(scalars, min_size=1, max_size=6), st.randoms(use_true_random=False))
def test_any_order_of_n_masks(p, ks, rnd):
    forward = p
    for k in ks:
        forward = group.mask(forward, k)
    order = list(ks)
    rnd.shuffle(order)
    other = p
    for k in order:
        other = group.mask(other, k)
    assert forward == other == group.mask(p, group.scalar_product(ks))
    rnd.shuffle(order)
    back = forward
    for k in order:
        back = group.unmask(back, k)
    assert back == p


@settings(max_examples=15, deadline=None)
@given(points, st.integers(min_value=1, max_value=ref.L - 1))
def test_mask_agrees_with_reference(p, k):
    expected = ref.encode(ref.mul(k, ref.decode(p)))
    assert group.mask(p, group.scalar_from_int(k)) == expected


@settings(max_examples=15, deadline=None)
@given(cards)
def test_card_points_are_prime_order_points(t):
    assert ref.is_prime_order_point(group.card_point(*t))


def test_card_points_are_not_small_multiples_of_the_base_point():
    pts = {group.card_point(b"t", 0, c) for c in range(108)}
    assert len(pts) == 108
    base = group.scalar_from_int
    import nacl.bindings as nb

    multiples = {nb.crypto_scalarmult_ed25519_base_noclamp(base(k)) for k in range(1, 1025)}
    assert not pts & multiples


def test_card_points_depend_on_table_round_and_card():
    a = group.card_point(b"table", 1, 5)
    assert a == group.card_point(b"table", 1, 5)
    assert a != group.card_point(b"table", 2, 5)
    assert a != group.card_point(b"tablf", 1, 5)
    assert a != group.card_point(b"table", 1, 6)


# ------------------------------------------------------------------ validation


def test_valid_point_accepted():
    p = group.card_point(b"t", 0, 0)
    assert group.validate_point(p) == p


@pytest.mark.parametrize("t", TORSION, ids=[t.hex()[:8] for t in TORSION])
def test_small_order_points_rejected(t):
    with pytest.raises(BadPoint) as exc:
        group.validate_point(t, sender=2)
    assert exc.value.culprit == 2
    with pytest.raises(BadPoint):
        group.mask(t, group.scalar_from_int(5), sender=2)


def test_identity_rejected():
    with pytest.raises(BadPoint):
        group.validate_point(group.IDENTITY)


@fast
@given(points, st.sampled_from(TORSION[1:]))
def test_points_with_a_torsion_component_rejected(p, t):
    poisoned = ref.encode(ref.add(ref.decode(p), ref.decode(t)))
    assert ref.decode(poisoned) is not None  # on the curve
    with pytest.raises(BadPoint):
        group.validate_point(poisoned, sender=1)
    with pytest.raises(BadPoint) as exc:
        group.mask(poisoned, group.scalar_from_int(3), sender=1)
    assert exc.value.culprit == 1


@pytest.mark.parametrize("workers", [1, 2, 3, 4])
def test_mask_each_is_the_loop_of_masks_on_worker_threads(monkeypatch, workers):
    """A deck step's masks are split over threads: same points in the same order, and
    a point outside the group anywhere in the deck is refused naming the sender."""
    monkeypatch.setattr(group, "WORKERS", workers)
    pts = [group.card_point(b"mask-each", 1, c) for c in range(54)]
    ks = [group.scalar_from_int(7 + 11 * i) for i in range(54)]
    loop = [group.mask(p, k) for p, k in zip(pts, ks, strict=True)]
    assert group.mask_each(pts, ks, sender=2) == loop
    before = group.COUNTERS["scalarmult"]
    group.mask_each(pts, ks)
    assert group.COUNTERS["scalarmult"] - before == 54
    for bad_at in (0, 26, 27, 53):
        poisoned = list(pts)
        poisoned[bad_at] = group.add_order2_torsion(pts[bad_at])
        with pytest.raises(BadPoint) as exc:
            group.mask_each(poisoned, ks, sender=2)
        assert exc.value.culprit == 2
    with pytest.raises(ValueError):
        group.mask_each(pts, ks[:-1])


def test_cve_2025_69277_point_rejected():
    """T2 + B (T2 the point of order 2) fooled is_valid_point before the fix."""
    b = ref.encode(ref.BASE)
    poisoned = group.add_order2_torsion(b)
    assert poisoned == ref.encode(ref.add(ref.BASE, ref.decode(TORSION[4])))
    with pytest.raises(BadPoint):
        group.validate_point(poisoned)


@fast
@given(points)
def test_non_canonical_encodings_rejected(p):
    y = int.from_bytes(p, "little") & ((1 << 255) - 1)
    if y + ref.P >= 1 << 255:
        return  # no non-canonical twin (y >= 19)
    twin = (y + ref.P | (int.from_bytes(p, "little") >> 255) << 255).to_bytes(32, "little")
    with pytest.raises(BadPoint):
        group.validate_point(twin)


@pytest.mark.parametrize("y", range(19))
def test_non_canonical_small_y_rejected(y):
    for sign in (0, 1):
        enc = (y + ref.P | sign << 255).to_bytes(32, "little")
        with pytest.raises(BadPoint):
            group.validate_point(enc)
        with pytest.raises(BadPoint):
            group.mask(enc, group.scalar_from_int(7))


@settings(max_examples=60, deadline=None)
@given(st.binary(min_size=32, max_size=32))
def test_random_junk_accepted_iff_reference_says_valid(junk):
    ok = ref.is_prime_order_point(junk)
    if ok:
        assert group.validate_point(junk) == junk
    else:
        with pytest.raises(BadPoint):
            group.validate_point(junk)


@pytest.mark.parametrize("junk", [b"", b"\x01" * 31, b"\x01" * 33, "ab" * 32, None, 5])
def test_wrong_types_and_lengths_rejected(junk):
    with pytest.raises(BadPoint):
        group.validate_point(junk, sender=0)


# ------------------------------------------------------------------ scalars


def test_scalar_validation():
    for bad in (
        bytes(32),
        ref.L.to_bytes(32, "little"),
        (ref.L + 1).to_bytes(32, "little"),
        b"\xff" * 32,
        b"\x01" * 31,
        "00" * 32,
    ):
        with pytest.raises(BadScalar):
            group.validate_scalar(bad, sender=3)
    assert group.validate_scalar(group.scalar_from_int(ref.L - 1))


def test_random_scalars_and_permutations():
    for _ in range(50):
        s = group.random_scalar()
        assert group.is_canonical_scalar(s)
    perm = group.random_permutation(108)
    assert sorted(perm) == list(range(108))
    from deal_sim import seeded_rand

    assert group.random_permutation(54, seeded_rand(b"a")) == group.random_permutation(
        54, seeded_rand(b"a")
    )
    assert group.random_permutation(54, seeded_rand(b"a")) != group.random_permutation(
        54, seeded_rand(b"b")
    )


def test_random_scalar_rejects_zero():
    draws = iter([bytes(64), bytes(64), b"\x05" + bytes(63)])
    assert group.random_scalar(lambda n: next(draws)) == group.scalar_from_int(5)


# ------------------------------------------------------------------ vectors and self-test


@pytest.mark.parametrize("v", VECTORS["card_points"], ids=lambda v: f"{v['table']}-{v['card']}")
def test_card_point_vectors(v):
    pt = group.card_point(v["table"].encode(), v["round"], v["card"])
    assert pt.hex() == v["point"]
    assert ref.is_prime_order_point(pt)


@pytest.mark.parametrize("v", VECTORS["masks"], ids=["m0", "m1"])
def test_mask_vectors(v):
    p, k = bytes.fromhex(v["point"]), bytes.fromhex(v["scalar"])
    k2 = bytes.fromhex(v["scalar2"])
    assert group.mask(p, k).hex() == v["masked"]
    assert group.mask(bytes.fromhex(v["masked"]), k2).hex() == v["masked_both"]
    # independent check of libsodium with the reference implementation
    ki = int.from_bytes(k, "little")
    assert ref.encode(ref.mul(ki, ref.decode(p))).hex() == v["masked"]


def test_commitment_vectors():
    from zsy_lan.deal.mental import DealConfig, key_hash, shuffle_digest

    v = VECTORS["commitments"]
    cfg = DealConfig(v["table"].encode(), v["round"], 3, (0, 1, 2, 3), (0, 1, 2, -1))
    s, nonce = bytes.fromhex(v["scalar"]), bytes.fromhex(v["nonce"])
    assert shuffle_digest(cfg, v["seat"], s, v["perm"], nonce).hex() == v["shuffle_digest"]
    assert key_hash(cfg, v["seat"], v["slot"], s).hex() == v["key_hash"]

    # the hash layout, spelled out independently: length-prefixed parts
    def lp(b: bytes) -> bytes:
        return len(b).to_bytes(4, "big") + b

    parts = [
        b"zsy-deal-key",
        v["table"].encode(),
        v["round"].to_bytes(8, "big"),
        v["seat"].to_bytes(8, "big"),
        v["slot"].to_bytes(8, "big"),
        s,
    ]
    assert hashlib.sha256(b"".join(lp(p) for p in parts)).hexdigest() == v["key_hash"]


def test_self_test_vectors_are_the_documented_ones():
    v = next(c for c in VECTORS["card_points"] if c["table"] == "zsy-selftest")
    assert v["point"] == group.SELFTEST_CARD_HEX
    group.self_test(force=True)


def test_self_test_refuses_old_pynacl(monkeypatch):
    monkeypatch.setattr(nacl, "__version__", "1.6.1")
    with pytest.raises(PrimitiveUnavailable, match=r"PyNaCl >= 1\.6\.2"):
        group.self_test(force=True)


def test_self_test_catches_unfixed_point_validation(monkeypatch):
    real = group._is_valid
    # an is_valid_point that, like before the fix, lets T2 + P through
    monkeypatch.setattr(group, "_is_valid", lambda p: real(p) or real(group.add_order2_torsion(p)))
    with pytest.raises(PrimitiveUnavailable, match="CVE-2025-69277"):
        group.self_test(force=True)


def test_self_test_catches_a_wrong_vector(monkeypatch):
    monkeypatch.setattr(group, "SELFTEST_MASKED_HEX", "00" * 32)
    with pytest.raises(PrimitiveUnavailable, match="scalarmult"):
        group.self_test(force=True)
    monkeypatch.undo()
    group.self_test(force=True)
