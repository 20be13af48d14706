"""CURVE keys, routing identities and the frame size limit: what the mesh and its relay
path both speak.

Why apart from :mod:`.transport`: the relay path (:mod:`.relay_fallback`,
:mod:`.mqtt_link`, whose seals use the CURVE keys) needs the key pair and the limit,
and the mesh needs the relay path; with these here the mesh imports the relay modules
and none reaches back into the mesh.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import zmq
from zmq.utils import z85

#: a frame larger than this is refused by every socket of ours (libzmq ``MAXMSGSIZE``)
DEFAULT_MAX_MESSAGE_SIZE = 256 * 1024
#: the length of a raw CURVE (X25519) key
KEY_LEN = 32


def raw_key(key: bytes | str) -> bytes:
    """Accept a raw 32-byte key or its 40-character z85 form; return raw."""
    if isinstance(key, str):
        key = key.encode("ascii")
    if len(key) == KEY_LEN:
        return bytes(key)
    if len(key) == 40:
        raw = z85.decode(key)
        if len(raw) == KEY_LEN:
            return raw
    raise ValueError(f"a CURVE key is 32 raw bytes or 40 z85 characters, got {len(key)} bytes")


def routing_id_for(public_key: bytes) -> bytes:
    """The DEALER routing identity for a key: ``b"Z" + key`` (never a leading 0 byte)."""
    return b"Z" + raw_key(public_key)


@dataclass(frozen=True)
class CurveKeyPair:
    """An X25519 key pair for ZeroMQ CURVE, as raw 32-byte strings."""

    public: bytes
    secret: bytes = field(repr=False)

    @classmethod
    def generate(cls) -> CurveKeyPair:
        pub, sec = zmq.curve_keypair()
        return cls(z85.decode(pub), z85.decode(sec))

    @classmethod
    def from_secret(cls, secret: bytes | str) -> CurveKeyPair:
        sec = raw_key(secret)
        return cls(z85.decode(zmq.curve_public(z85.encode(sec))), sec)

    @property
    def public_z85(self) -> str:
        return z85.encode(self.public).decode("ascii")
