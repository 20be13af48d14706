"""One seat's per-deal secrets in a private deal: drawn once, durable before use.

Every scalar, permutation, nonce and box key a seat uses in a deal is drawn
from one 32-byte secret of that deal (:class:`SecretStream`), so a restarted
seat that finds the secret in its journal derives exactly what it committed
to. The shell makes each new secret durable (``persist``) before anything
that depends on it is sent; the next deals' secrets are drawn ahead, off the
deal's critical path.
"""

from __future__ import annotations

import hashlib
import hmac
import os
from collections.abc import Callable, Mapping

from zsy_lan.deal.mental import OBSERVER, prefetch_card_points, prefetch_first_shuffle

__all__ = ["SeatSecrets", "SecretStream"]


class SecretStream:
    """A deterministic byte source keyed by a secret (HMAC-SHA256 in counter mode).

    The deal peer draws its scalars, permutation, nonce and box key from it in
    a fixed order, so the same persisted secret always gives the same secrets.
    """

    def __init__(self, secret: bytes) -> None:
        self._secret = secret
        self._ctr = 0
        self._buf = b""

    def __call__(self, n: int) -> bytes:
        while len(self._buf) < n:
            ctr = self._ctr.to_bytes(8, "big")
            self._buf += hmac.new(self._secret, ctr, hashlib.sha256).digest()
            self._ctr += 1
        out, self._buf = self._buf[:n], self._buf[n:]
        return out


class SeatSecrets:
    """The per-deal secrets of ``seat`` at ``table`` (``OBSERVER``: none, never used).

    ``known``: secrets already on disk (after a restart); ``persist(deal_no,
    secret)`` must make a new one durable before returning; ``entropy``: where
    a new one comes from.
    """

    def __init__(
        self,
        table: str,
        seat: int,
        deck: tuple[int, ...],
        known: Mapping[int, bytes] | None = None,
        persist: Callable[[int, bytes], None] | None = None,
        entropy: Callable[[int], bytes] = os.urandom,
    ) -> None:
        self.table = table
        self.seat = seat
        self.deck = deck
        self.known = dict(known or {})
        self._persist = persist
        self._entropy = entropy

    def prefetch(self, deal_no: int) -> None:
        """Start a later deal's card points (and seat 0's first shuffle) in the background."""
        prefetch_card_points(self.table, deal_no, self.deck)
        if self.seat == 0:
            prefetch_first_shuffle(self.table, deal_no, self.deck, self.rand_for(deal_no))

    def rand_for(self, deal_no: int) -> Callable[[int], bytes]:
        """The byte source of this seat's secrets in deal ``deal_no``."""
        if self.seat == OBSERVER:
            return os.urandom  # an observer's "secrets" are never used
        return SecretStream(self.secret_for(deal_no))

    def secret_for(self, deal_no: int) -> bytes:
        """The seat's secret of a deal: drawn and made durable the first time it is needed.

        The next deal's secret is drawn ahead (at construction for the first
        deal, at each audit for the next one), so the fsync that makes it
        durable is not on the deal's critical path: nothing is sent from it
        until that deal starts, and a restarted seat finds it in the journal.
        """
        secret = self.known.get(deal_no)
        if secret is None:
            secret = self._entropy(32)
            if self._persist is not None:
                self._persist(deal_no, secret)  # durable before anything depends on it
            self.known[deal_no] = secret
        return secret
