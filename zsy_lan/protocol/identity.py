"""A peer's long-term identity: an Ed25519 signing key and the X25519 key for CURVE.

Every envelope is signed with the Ed25519 key, so a message can be relayed by
anyone and still be attributed to its author. The transport encrypts table
traffic with ZeroMQ CURVE, which needs an X25519 key pair; it is derived from
the Ed25519 seed (domain-separated hash), so one secret file is all a user has
to keep, and the lobby publishes the X25519 public key signed by the Ed25519
identity so a peer cannot be impersonated at the transport layer either.

The key is kept as PKCS#8 PEM (``to_pem``/``from_pem``); the file itself, written
0600 (it holds the only secret), is the store's business (``zsy_lan.record.store``):
the protocol does no file I/O.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey
from nacl.bindings import crypto_sign, crypto_sign_open, crypto_sign_seed_keypair
from nacl.exceptions import CryptoError

__all__ = [
    "Identity",
    "fingerprint",
    "verify",
    "curve_key_statement",
    "verify_curve_key",
    "PUBLIC_KEY_SIZE",
    "SIGNATURE_SIZE",
]

PUBLIC_KEY_SIZE = 32
SIGNATURE_SIZE = 64
_CURVE_DERIVATION = b"zsy-lan/curve-x25519/v1\x00"
_CURVE_STATEMENT = b"zsy-lan/curve-key/v1\x00"

_RAW = serialization.Encoding.Raw
_RAW_PUB = serialization.PublicFormat.Raw
_RAW_PRIV = serialization.PrivateFormat.Raw
_NOENC = serialization.NoEncryption()


def fingerprint(public_key: bytes) -> str:
    """Short hex of SHA-256 of a public key, for people to compare (not for security decisions)."""
    digest = hashlib.sha256(public_key).hexdigest()[:16]
    return ":".join(digest[i : i + 4] for i in range(0, 16, 4))


def verify(public_key: bytes, signature: bytes, data: bytes) -> bool:
    """True when ``signature`` is ``public_key``'s Ed25519 signature of exactly ``data``.

    Verified with libsodium (``crypto_sign_open``): every peer checks every
    frame, and libsodium's verification is about twice as fast as OpenSSL's
    here. It is also the strict one (it refuses non-canonical encodings and
    small-order keys), which only ever refuses what no honest key signs.
    """
    if len(public_key) != PUBLIC_KEY_SIZE or len(signature) != SIGNATURE_SIZE:
        return False
    try:
        crypto_sign_open(bytes(signature) + bytes(data), bytes(public_key))
    except (CryptoError, ValueError, TypeError):
        return False
    return True


def curve_key_statement(curve_public: bytes) -> bytes:
    """The bytes an identity signs to vouch for its CURVE key (domain-separated)."""
    if len(curve_public) != 32:
        raise ValueError("an X25519 public key is 32 bytes")
    return _CURVE_STATEMENT + curve_public


def verify_curve_key(public_key: bytes, curve_public: bytes, signature: bytes) -> bool:
    """True when the Ed25519 ``public_key`` vouched for ``curve_public`` (lobby check)."""
    try:
        statement = curve_key_statement(curve_public)
    except ValueError:
        return False
    return verify(public_key, signature, statement)


@dataclass(frozen=True)
class Identity:
    """An Ed25519 signing key plus the X25519 key pair derived from it."""

    signing_key: Ed25519PrivateKey
    # libsodium's 64-byte secret key (seed + public key), derived once: see sign()
    _sodium_secret: bytes = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        seed = self.signing_key.private_bytes(_RAW, _RAW_PRIV, _NOENC)
        object.__setattr__(self, "_sodium_secret", crypto_sign_seed_keypair(seed)[1])

    @classmethod
    def generate(cls) -> Identity:
        """A fresh identity (the OS random source, through cryptography)."""
        return cls(Ed25519PrivateKey.generate())

    @classmethod
    def from_seed(cls, seed: bytes) -> Identity:
        """The identity with this 32-byte Ed25519 seed (deterministic: for tests and bots)."""
        return cls(Ed25519PrivateKey.from_private_bytes(seed))

    @classmethod
    def from_pem(cls, pem: bytes, source: str = "the key") -> Identity:
        """The identity in PKCS#8 PEM bytes made by :meth:`to_pem`; ``ValueError`` otherwise.

        Bytes in, bytes out: the protocol does no file I/O. The key file (mode
        0600, written atomically) is the store's: ``zsy_lan.record.store.load_identity``.
        """
        key = serialization.load_pem_private_key(pem, password=None)
        if not isinstance(key, Ed25519PrivateKey):
            raise ValueError(f"{source}: not an Ed25519 private key")
        return cls(key)

    def to_pem(self) -> bytes:
        """The key as PKCS#8 PEM (unencrypted: the store keeps the file owner-only)."""
        return self.signing_key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, _NOENC
        )

    @property
    def public_key(self) -> bytes:
        """The raw 32-byte Ed25519 public key: what the roster holds."""
        return self.signing_key.public_key().public_bytes(_RAW, _RAW_PUB)

    @property
    def fingerprint(self) -> str:
        """Short display form of the public key."""
        return fingerprint(self.public_key)

    def sign(self, data: bytes) -> bytes:
        """Ed25519 signature (64 bytes) over exactly ``data``.

        Signed with libsodium, like :func:`verify`: a third faster than
        OpenSSL here, and signing is on the path from a play to the wire.
        Ed25519 signatures are deterministic, so the bytes are the same.
        """
        return crypto_sign(bytes(data), self._sodium_secret)[:SIGNATURE_SIZE]

    def _curve_key(self) -> X25519PrivateKey:
        seed = self.signing_key.private_bytes(_RAW, _RAW_PRIV, _NOENC)
        return X25519PrivateKey.from_private_bytes(
            hashlib.sha256(_CURVE_DERIVATION + seed).digest()
        )

    @property
    def curve_secret(self) -> bytes:
        """Raw 32-byte X25519 secret for CURVE (the transport z85-encodes it)."""
        return self._curve_key().private_bytes(_RAW, _RAW_PRIV, _NOENC)

    @property
    def curve_public(self) -> bytes:
        """Raw 32-byte X25519 public key for CURVE, published in the lobby."""
        return self._curve_key().public_key().public_bytes(_RAW, _RAW_PUB)

    def sign_curve_key(self) -> bytes:
        """This identity's signature vouching for its own CURVE public key."""
        return self.sign(curve_key_statement(self.curve_public))
