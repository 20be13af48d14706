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

__all__ = ["GameMachine", "VoidableGame", "can_void"]


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


@runtime_checkable
class VoidableGame(Protocol):
    """Optional: a game whose current round the table can vote void (motions, ``void``).

    The replica only moves or joins a ``void`` motion when the game has both
    methods; without them it refuses to vote and says so. Both must be
    deterministic functions of the applied history, like the rest.
    """

    def can_void_round(self) -> bool:
        """True when :meth:`void_round` may be called now (a round is in progress).

        Asked at the position where the table waits on the seat voted about; a
        motion carried where this says False is ``refused`` and changes nothing.
        """
        ...

    def void_round(self, seat: int, reason: str) -> None:
        """End the current round with no result because ``seat`` withheld what it owed.

        Nothing from earlier rounds is lost (results, totals, titles, tribute
        duties they set). The round counts for nothing: afterwards the game
        must be waiting for the next round's seed (``needs_seed()`` True) or be
        over, and ``public_hash()`` must differ from before (it should record
        the void, e.g. the round number and ``seat``). Every message signed on
        the voided state is skipped by the ledger, so the game must not need them.
        """
        ...


def can_void(game: object) -> bool:
    """True when ``game`` implements the optional :class:`VoidableGame` methods."""
    return callable(getattr(game, "void_round", None)) and callable(
        getattr(game, "can_void_round", None)
    )
