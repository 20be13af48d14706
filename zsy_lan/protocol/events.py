"""What the replica hands back to its shell: frozen records, never callbacks.

The shell handles events in list order. ``Persist`` must be durable (written
and fsynced) before the shell performs any ``Send`` that comes after it in the
same list: that is how a crash never makes a peer contradict what it said.
Everything else is information for the UI and the log.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "Event",
    "Send",
    "Persist",
    "Applied",
    "Transcribed",
    "RoundSeeded",
    "Rejected",
    "Cheat",
    "PeerState",
    "Stalled",
    "Hello",
]


@dataclass(frozen=True)
class Send:
    """Deliver ``frame`` to seat ``to``, or to every other seat when ``to`` is None."""

    to: int | None
    frame: bytes = field(repr=False)


@dataclass(frozen=True)
class Persist:
    """Durably store ``data`` under ``key`` before any later Send (see module doc).

    Keys: ``frame/<seq>`` (one of our own feed messages) and ``secret/<round>``
    (our commit-reveal secret). Give them back to ``Replica.restore`` after a crash.
    """

    key: str
    data: bytes = field(repr=False)


@dataclass(frozen=True)
class Applied:
    """A game action entered the transcript; ``state_hash`` is the public hash after it."""

    seat: int
    seq: int
    action: Any
    state_hash: str


@dataclass(frozen=True)
class Transcribed:
    """Message number ``index`` of the transcript; ``head`` is the chain head after it.

    The shell appends :attr:`line` to its transcript file.
    """

    index: int
    seat: int
    frame: bytes = field(repr=False)
    head: str

    @property
    def line(self) -> str:
        """The JSON line for the transcript file."""
        from .transcript import dump_line

        return dump_line(self.seat, self.frame)


@dataclass(frozen=True)
class RoundSeeded:
    """Commit-reveal for round ``round`` finished; the game was dealt from ``seed``."""

    round: int
    seed: bytes


@dataclass(frozen=True)
class Rejected:
    """A frame or local request refused without changing state.

    ``sender`` is the seat when known for sure (authenticated), else None.
    """

    sender: int | None
    reason: str


@dataclass(frozen=True)
class Cheat:
    """Proof that ``culprit`` broke the protocol; the replica stops applying actions.

    ``evidence`` holds the signed frames that show it (two frames for one slot,
    a commit and the reveal that does not open it, an illegal action...).
    """

    culprit: int
    reason: str
    evidence: tuple[bytes, ...] = field(repr=False)


@dataclass(frozen=True)
class PeerState:
    """Seat ``seat`` was heard from (connected) or has been silent too long."""

    seat: int
    connected: bool


@dataclass(frozen=True)
class Stalled:
    """The game has waited too long on ``waiting_on``, which owes ``what``."""

    waiting_on: int
    what: str


@dataclass(frozen=True)
class Hello:
    """A lobby/hello message from ``seat`` (nickname, CURVE key...), for the shell."""

    seat: int
    body: Any


Event = (
    Send
    | Persist
    | Applied
    | Transcribed
    | RoundSeeded
    | Rejected
    | Cheat
    | PeerState
    | Stalled
    | Hello
)
