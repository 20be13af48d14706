"""End-to-end seals for frames that a third party carries (the relay: an MQTT broker).

Why a module of its own: the sealing, the opening and the replay window are the
relay path's guarantees (a broker learns sizes and timing only), kept apart from
how the broker's link (:mod:`.mqtt_link`) moves the bytes.

A box for a peer is::

    nacl.public.Box(our CURVE secret, their CURVE public).encrypt(
        kind (1) | first 8 bytes of their key | session (8) | counter (8) | frame)

Both keys are the roster's (signed by the players' identities in the lobby), so
the carrier holds no key that opens a box. The receiver opens a box with the
key the carrier *says* sent it; a box that does not open (altered bytes, a
wrong sender, one of ours reflected back: the "to" bytes are not ours) is the
carrier's doing, never a seat's. The session (8 random bytes drawn when the
sealer is made) and counter make a replayed or reordered box visible too; it is
refused (the protocol's feeds would refuse it anyway). The session is random,
not the start time: a peer restarted with a clock that went backwards would
otherwise have every box refused as an old session's replay. The receiver
remembers the last :data:`SESSIONS_KEPT` sessions of each sender (and the
highest counter in each): a box of a remembered session is taken once only; one
of a session older than those (many restarts ago) is taken once more, which is
harmless: the frame inside is signed and the protocol refuses what it already has.

Kinds: data (a mesh frame), ping and pong (round-trip time and "this peer
answers through the carrier").
"""

from __future__ import annotations

import os

from nacl.exceptions import CryptoError
from nacl.public import Box, PrivateKey, PublicKey

from zsy_lan.net.curve import KEY_LEN, CurveKeyPair

__all__ = [
    "DATA",
    "HEADER",
    "KEYS_KEPT",
    "PING",
    "PONG",
    "SESSIONS_KEPT",
    "SealFault",
    "Sealer",
]

DATA, PING, PONG = 1, 2, 3
#: kind, the first 8 bytes of the destination key, session, counter
HEADER = 1 + 8 + 8 + 8
#: Keys remembered (a precomputed box, the last session and counter heard): a carrier
#: can make up keys, so the oldest are forgotten beyond this many.
KEYS_KEPT = 256
#: Sessions (restarts) of one sender remembered with their highest counter.
SESSIONS_KEPT = 8


class SealFault(Exception):
    """A box only the carrier can have spoiled: ``what`` is ``altered``, ``misaddressed``
    or ``replayed`` (the words :attr:`zsy_lan.net.transport.Mesh.relay_faults` counts)."""

    def __init__(self, what: str) -> None:
        super().__init__(what)
        self.what = what


class Sealer:
    """Seal boxes to peers and open theirs, with one replay window per sender."""

    def __init__(self, keypair: CurveKeyPair) -> None:
        self._public = keypair.public
        self._secret = PrivateKey(keypair.secret)
        self._boxes: dict[bytes, Box] = {}
        self.session = os.urandom(8)  # per start: never ordered by a clock (see the module)
        self._sent: dict[bytes, int] = {}  # per destination: last counter
        self._heard: dict[bytes, dict[bytes, int]] = {}  # per source: session -> last counter

    def _box(self, key: bytes) -> Box:
        box = self._boxes.get(key)
        if box is None:
            _bound(self._boxes)
            box = self._boxes[key] = Box(self._secret, PublicKey(key))
        return box

    def seal(self, dest: bytes, kind: int, body: bytes) -> bytes:
        """The box for ``dest``: only ``dest`` (and we) can open it."""
        n = self._sent.get(dest, 0) + 1
        self._sent[dest] = n
        plain = bytes([kind]) + dest[:8] + self.session + n.to_bytes(8, "big") + body
        return bytes(self._box(dest).encrypt(plain))

    def open(self, src: bytes, box: bytes) -> tuple[int, bytes]:
        """``(kind, body)`` of a box ``src`` sealed to us; :class:`SealFault` when the
        carrier spoiled it (altered, misaddressed, or a replay of one already taken)."""
        if len(src) != KEY_LEN:
            raise SealFault("misaddressed")
        try:
            plain = self._box(src).decrypt(box)
        except (CryptoError, ValueError, TypeError):
            raise SealFault("altered") from None  # only the carrier stands between us
        if len(plain) < HEADER or plain[1:9] != self._public[:8]:
            raise SealFault("misaddressed")
        kind, session, n = plain[0], plain[9:17], int.from_bytes(plain[17:25], "big")
        sessions = self._heard.get(src)
        if sessions is not None and n <= sessions.get(session, 0):
            raise SealFault("replayed")
        if sessions is None:
            _bound(self._heard)
            sessions = self._heard[src] = {}
        if session not in sessions and len(sessions) >= SESSIONS_KEPT:
            del sessions[next(iter(sessions))]  # the oldest session of this sender
        sessions[session] = n
        return kind, plain[HEADER:]


def _bound(d: dict[bytes, object]) -> None:
    """Forget the oldest entry of ``d`` once it holds :data:`KEYS_KEPT` (before an insert)."""
    while len(d) >= KEYS_KEPT:
        del d[next(iter(d))]
