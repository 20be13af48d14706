"""Identities: Ed25519 for signing, a derived X25519 pair for CURVE (DESIGN.md "Transport")."""

from __future__ import annotations

import os
import stat

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
from hypothesis import given, settings
from hypothesis import strategies as st

from zsy_lan.protocol.identity import Identity, fingerprint, verify, verify_curve_key
from zsy_lan.record.store import load_identity, load_or_create_identity, save_identity


def test_save_and_load_round_trip_with_owner_only_permissions(tmp_path):
    ident = Identity.generate()
    path = tmp_path / "keys" / "identity.pem"
    save_identity(ident, path)
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert load_identity(path).public_key == ident.public_key
    assert not (tmp_path / "keys" / "identity.pem.tmp").exists()


def test_load_or_create_keeps_the_first_identity(tmp_path):
    path = tmp_path / "id.pem"
    first = load_or_create_identity(path)
    assert load_or_create_identity(path).public_key == first.public_key


def test_pem_round_trip_without_files():
    """The protocol's identity is bytes in, bytes out; a non-Ed25519 key is refused."""
    ident = Identity.generate()
    assert Identity.from_pem(ident.to_pem()).public_key == ident.public_key
    from cryptography.hazmat.primitives import serialization

    other = X25519PrivateKey.generate().private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    with pytest.raises(ValueError, match="not an Ed25519"):
        Identity.from_pem(other, "x.pem")


def test_sign_and_verify_exact_bytes():
    ident = Identity.generate()
    sig = ident.sign(b"message")
    assert len(ident.public_key) == 32 and len(sig) == 64
    assert verify(ident.public_key, sig, b"message")
    assert not verify(ident.public_key, sig, b"message ")
    assert not verify(Identity.generate().public_key, sig, b"message")
    assert not verify(ident.public_key[:31], sig, b"message")
    assert not verify(ident.public_key, sig[:63], b"message")


@settings(max_examples=50, deadline=None)
@given(seed=st.binary(min_size=32, max_size=32), data=st.binary(max_size=2048))
def test_libsodium_signs_the_bytes_openssl_would(seed, data):
    """sign() uses libsodium; Ed25519 is deterministic, so OpenSSL's signature is the
    same bytes and OpenSSL accepts it (one identity, one signature, whichever library)."""
    ident = Identity.from_seed(seed)
    sig = ident.sign(data)
    assert sig == ident.signing_key.sign(data)
    Ed25519PublicKey.from_public_bytes(ident.public_key).verify(sig, data)  # raises if not
    assert verify(ident.public_key, sig, data)


def test_fingerprint_is_short_stable_hex():
    key = Identity.from_seed(bytes(32)).public_key
    fp = fingerprint(key)
    assert fp == fingerprint(key) and len(fp) == 19 and fp.count(":") == 3
    assert fp != fingerprint(Identity.from_seed(bytes([1]) * 32).public_key)


def test_curve_pair_is_derived_consistent_and_distinct_per_identity():
    a, b = Identity.from_seed(bytes(32)), Identity.from_seed(bytes([7]) * 32)
    assert len(a.curve_secret) == 32 and len(a.curve_public) == 32
    assert Identity.from_seed(bytes(32)).curve_public == a.curve_public  # derived, not stored
    assert a.curve_public != b.curve_public
    # The secret and public halves belong together: a Diffie-Hellman agrees both ways.
    ab = X25519PrivateKey.from_private_bytes(a.curve_secret).exchange(
        X25519PublicKey.from_public_bytes(b.curve_public)
    )
    ba = X25519PrivateKey.from_private_bytes(b.curve_secret).exchange(
        X25519PublicKey.from_public_bytes(a.curve_public)
    )
    assert ab == ba


def test_curve_key_is_vouched_for_by_the_identity_only():
    a, b = Identity.generate(), Identity.generate()
    sig = a.sign_curve_key()
    assert verify_curve_key(a.public_key, a.curve_public, sig)
    assert not verify_curve_key(b.public_key, a.curve_public, sig)
    assert not verify_curve_key(a.public_key, b.curve_public, sig)
    assert not verify_curve_key(a.public_key, b"short", sig)


def test_curve_pair_matches_what_libzmq_derives():
    """The transport hands these raw keys to libzmq (z85): both must agree on the public half."""
    zmq = pytest.importorskip("zmq")
    from zmq.utils import z85

    ident = Identity.generate()
    derived = z85.decode(zmq.curve_public(z85.encode(ident.curve_secret)))
    assert derived == ident.curve_public
