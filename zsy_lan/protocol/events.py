"""What the replica hands back to its shell: frozen records, never callbacks.

The shell handles events in list order. ``Persist`` must be durable (written
and fsynced) before the shell performs any ``Send`` that comes after it in the
same list: that is how a crash never makes a peer contradict what it said.
Everything else is information for the UI and the log.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from zsy_lan.protocol.transcript_format import dump_line

__all__ = [
    "FAULT_PREFIX",
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
    "Aside",
    "Rewound",
    "Motion",
    "Released",
    "Fault",
    "Flooding",
    "RecordBehind",
    "Said",
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
    """A game action entered the transcript and the game applied it.

    No state hash: computing it is the costliest part of applying a frame, and
    nothing waits on it here (``GameMachine.public_hash`` caches it for the next
    frame, and the shell computes it when idle).

    ``by`` is the holder's seat when the action is a proxy played for ``seat``
    while a bot holds it (``seq`` is then the holder's feed number); None otherwise.
    """

    seat: int
    seq: int
    action: Any
    by: int | None = None


@dataclass(frozen=True)
class Transcribed:
    """Message number ``index`` of the transcript; ``head`` is the chain head after it.

    The shell appends :attr:`line` to its transcript file.
    """

    index: int
    seat: int
    frame: bytes = field(repr=False)
    head: str
    pos: int = -1  # 0-based line of the file body (header excluded) this goes to

    @property
    def line(self) -> str:
        """The JSON line for the transcript file."""
        return dump_line(self.seat, self.frame)


@dataclass(frozen=True)
class Aside:
    """A transcript-neutral feed message the record needs (a vote, a return, a void message).

    It goes to the transcript file at body line ``pos`` (an ``"aside"`` line,
    outside the hash chain) so that ``zsy replay`` can re-check why a seat was
    held or a round voided. Every replica writes the same asides at the same places.
    """

    pos: int
    seat: int
    frame: bytes = field(repr=False)

    @property
    def line(self) -> str:
        return dump_line(self.seat, self.frame, aside=True)


@dataclass(frozen=True)
class Rewound:
    """The transcript file must be cut back to its first ``keep`` body lines (header kept).

    Happens when this replica had applied something a motion voided (its own
    move, signed while it was cut off): the replica rebuilt its state from the
    feeds, and the lines from ``keep`` on follow again. Tell the user ``reason``.
    """

    keep: int
    reason: str


@dataclass(frozen=True)
class Motion:
    """A motion about ``seat`` at transcript position ``at`` moved on.

    ``outcome``: ``open`` (first vote seen, ``by`` voted), ``held`` (a bot run
    by ``holder`` holds the seat), ``voided`` (the round was voided),
    ``declined`` (the seat's own message was in time) or ``refused`` (the game
    cannot do it here).

    ``movers`` (``declined`` only): the seats that voted before the seat's
    message reached them. They are the ones to name when a motion is refused,
    never the seat that acted in time.
    """

    motion: str
    seat: int
    at: str
    outcome: str
    by: int | None = None
    holder: int | None = None
    cut: int | None = None
    movers: tuple[int, ...] = ()


@dataclass(frozen=True)
class Released:
    """Seat ``seat`` is back: its holder ``by`` released it; it plays its own moves again."""

    seat: int
    by: int


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


# how the ledger opens a local fault's sentence (Ledger.local_fault); the shell drops it
FAULT_PREFIX = "local fault, not a cheat: "


@dataclass(frozen=True)
class Fault:
    """This replica stopped on a bug of its own (the game or a rules plugin failed).

    Not a cheat: nobody is named. ``reason`` is one sentence naming the bug;
    ``detail`` the traceback, for the log only. The shell stops this seat (the
    table sees it drop) and tells the player ``reason``.
    """

    reason: str
    detail: str = field(default="", repr=False)
    kind: str = "program"  # its class, the word the bye says (protocol.local_fault)

    def sentence(self) -> str:
        """``reason`` without the ledger's "local fault, not a cheat: " opening.

        The shell says that itself, in the player's language; said twice it
        read "...a fault of its own, not a cheat: local fault, not a cheat: ...".
        """
        return self.reason.removeprefix(FAULT_PREFIX)


@dataclass(frozen=True)
class Flooding:
    """Seat ``seat`` sent more than any honest peer does (``rate`` frames a second).

    Its excess control frames (and resends it asked for beyond its allowance)
    are dropped unread; told once per episode. Not a cheat: a flood proves
    nothing by signed frames (the frames could be replays, or the link's), so
    nobody is halted; the shell says "seat N is flooding (X frames/s), its
    excess is dropped".
    """

    seat: int
    rate: int


@dataclass(frozen=True)
class RecordBehind:
    """After a restart the table holds ``table_has`` messages of this seat; its record ``kept``.

    Its journal was deleted or lost its tail: the secrets behind the missing
    messages are gone, and signing their seqs again would be a genuine
    equivocation by an honest seat. The replica signs nothing (it never
    does again); the shell stops the seat with one local sentence naming
    the file. Not a cheat: nobody is blamed.
    """

    table_has: int
    kept: int


@dataclass(frozen=True)
class Said:
    """Seat ``seat`` signed chat message ``seq`` with ``body`` (a phrase id or free text).

    Outside the game: it never enters the transcript chain or the state hash.
    ``body`` is the author's, unjudged: the shell reads it with
    :func:`zsy_lan.protocol.chat.read` (which drops or cleans it) before showing anything.
    """

    seat: int
    seq: int
    body: Any


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
    """Seat ``seat`` was heard from (connected) or has been silent too long.

    ``left``: it is gone because it said so (a signed ``bye``: its player quit),
    not because it fell silent. ``fault``: its ``bye`` said it stopped on a local
    fault of that class (:mod:`zsy_lan.protocol.local_fault`), not that it quit.
    """

    seat: int
    connected: bool
    left: bool = False
    fault: str | None = None


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
    | Aside
    | Rewound
    | Motion
    | Released
    | Fault
    | Flooding
    | RecordBehind
    | Said
)
