"""What the replica needs from a game: the engine adapts its match to this.

The replica knows nothing about cards. It asks the game who may act now,
whether a round needs shared randomness, and whether an action is legal; the
order of the transcript follows from these answers alone, so every replica
that applied the same transcript asks the same questions and gets the same
answers. All methods must be deterministic functions of the applied history.

Simultaneous phases (``actors()`` returns several seats): every listed seat
submits one action against the same public state, and the replica applies
them in seat order once all are in. The game must therefore accept those
actions in seat order no matter which arrived first.
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

__all__ = ["GameMachine"]


@runtime_checkable
class GameMachine(Protocol):
    def actors(self) -> tuple[int, ...]:
        """Seats the game waits on now (one, or several in a simultaneous phase); () when over."""
        ...

    def needs_seed(self) -> bool:
        """True when a new round must be dealt from shared randomness."""
        ...

    def start_round(self, seed: bytes) -> None:
        """Deal from the combined 32-byte seed."""
        ...

    def check(self, seat: int, action: dict[str, Any]) -> None:
        """Raise with a message naming the rule if ``action`` by ``seat`` is illegal now."""
        ...

    def apply(self, seat: int, action: dict[str, Any]) -> None:
        """Apply an action that :meth:`check` accepted."""
        ...

    def public_hash(self) -> str:
        """Hex SHA-256 of the public state; must cover everything ``actors`` depends on."""
        ...

    def finished(self) -> bool:
        """True when the match is over."""
        ...
