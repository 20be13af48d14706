"""Errors of the private deal.

Every error that a peer's message can cause names that peer (``culprit``, a
seat index) and the protocol step, so the network layer can report it and
void the round. ``culprit`` is ``None`` only when the local evidence cannot
tell who is at fault (then the end-of-round audit decides).

``DealError`` is one of :class:`~zsy_lan.deal.private_game.PrivateGame`'s
``violations``: raised from a check of a signed message, it is proof against
that message's author (docs/protocol.md, "Blame"). A bug in the deal code
must not raise it (nor ``NotReady``): any other exception is a local fault.
"""

from __future__ import annotations


class DealError(Exception):
    """A deal protocol failure, optionally naming the seat at fault."""

    def __init__(self, reason: str, *, culprit: int | None = None, step: str = "") -> None:
        self.reason = reason
        self.culprit = culprit
        self.step = step
        who = f"seat {culprit}" if culprit is not None else "unknown seat"
        where = f" [{step}]" if step else ""
        super().__init__(f"{who}{where}: {reason}")


class BadPoint(DealError):
    """A received point is not a valid, canonical element of the prime-order group."""


class BadScalar(DealError):
    """A received scalar is not canonical (reduced, nonzero, 32 bytes)."""


class MalformedMessage(DealError):
    """A message body does not have the expected shape."""


class ProtocolViolation(DealError):
    """A message that is out of turn, duplicated, or not allowed to its sender."""


class CheatDetected(DealError):
    """Evidence that a peer deviated: a wrong key, a false claim, a lie in a pass."""


class NotReady(Exception):
    """Internal: a message arrived before its preconditions (it is kept and retried)."""


class PrimitiveUnavailable(RuntimeError):
    """The installed PyNaCl/libsodium cannot be used safely for the private deal."""
