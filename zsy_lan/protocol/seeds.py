"""This seat's seeds for the deal: its secrets by round, and the commit or reveal it owes.

Why a module of its own: the commit-reveal exchange (docs/protocol.md, "The
transcript"; :mod:`zsy_lan.protocol.commit_reveal` has the pure functions) is
the one place a replica draws entropy, and the one place it must persist a
secret before it signs anything that depends on it. The replica asks what to
sign; this answers with the ``Persist`` events to make durable first.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from zsy_lan.protocol.commit_reveal import Secret, commitment
from zsy_lan.protocol.events import Event, Persist

__all__ = ["Seeds"]


class Seeds:
    """The secrets one seat drew (from the entropy it is given), by round."""

    def __init__(self, table: str, seat: int, entropy: Callable[[int], bytes]) -> None:
        self.table = table
        self.seat = seat
        self.entropy = entropy
        self.secrets: dict[int, Secret] = {}

    def restore(self, key: str, data: bytes) -> None:
        """A ``secret/<round>`` record from the journal."""
        self.secrets[int(key.split("/", 1)[1])] = Secret.from_bytes(data)

    def _drawn(self, rnd: int, out: list[Event]) -> Secret:
        secret = self.secrets.get(rnd)
        if secret is None:
            secret = Secret.draw(self.entropy)
            self.secrets[rnd] = secret
            out.append(Persist(f"secret/{rnd}", secret.to_bytes()))
        return secret

    def commit(self, rnd: int, out: list[Event]) -> dict[str, Any]:
        """The body of this seat's commit for round ``rnd`` (its secret persisted into ``out``)."""
        secret = self._drawn(rnd, out)
        value = commitment(self.table, rnd, self.seat, secret.nonce, secret.seed)
        return {"round": rnd, "commit": value}

    def reveal(self, rnd: int, out: list[Event]) -> dict[str, Any] | None:
        """The body of this seat's reveal for ``rnd``; None when its secret was lost.

        It pre-commits to the next seed in the same message (the next deal then
        needs reveals only); that secret goes into ``out`` to be made durable
        before the reveal is sent.
        """
        secret = self.secrets.get(rnd)
        if secret is None:
            return None
        body = {"round": rnd, "nonce": secret.nonce.hex(), "seed": secret.seed.hex()}
        upcoming = self._drawn(rnd + 1, out)
        body["next"] = commitment(self.table, rnd + 1, self.seat, upcoming.nonce, upcoming.seed)
        return body

    def forget(self, before: int) -> None:
        """Secrets of rounds before ``before`` were revealed long ago (the journal keeps them)."""
        for rnd in [r for r in self.secrets if r < before]:
            del self.secrets[rnd]
