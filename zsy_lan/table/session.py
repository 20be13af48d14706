"""The seam between a running table and whatever shows it (terminal UI, bots, tests).

A :class:`TableSession` is one seat's handle on a table: the game as this
seat knows it, a way to submit an action, and a stream of notices (a player
joined, dropped, came back; a play was made; a round ended). The terminal UI
only ever talks to this interface, so it never holds game state of its own,
and the peer (network) and tests can both provide it.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from zsy_lan.engine.game import Game
from zsy_lan.engine.rules import Rules
from zsy_lan.engine.state import Action, RoundState
from zsy_lan.protocol.table_settings import TableSettings


@dataclass(frozen=True)
class Notice:
    """Something to tell the player: ``kind`` (``net``, ``play``, ``round``, ``error``) and text."""

    kind: str
    text: str


NOTICE_LIMIT = 1000  # unread notices kept per seat


class NoticeQueue(asyncio.Queue):  # type: ignore[type-arg]
    """The notices of a seat; once ``NOTICE_LIMIT`` are unread the oldest unread goes.

    A seat shown in a terminal reads them as they come; a bot seat run inside
    the host's process has no reader, and its notices must not pile up for a
    whole match.
    """

    def __init__(self) -> None:
        super().__init__(maxsize=NOTICE_LIMIT)

    def put_nowait(self, item: Notice) -> None:
        if self.full():
            self.get_nowait()
        super().put_nowait(item)


@dataclass
class SeatInfo:
    """What the table shows about a seat besides its cards."""

    nick: str = ""
    bot: bool = False
    connected: bool = True
    held_by_bot: bool = False
    held_by: int | None = None  # the seat whose peer runs the bot holding this one
    run_by: int | None = None  # a bot run in that seat's process (it could see its cards)
    fingerprint: str = ""
    auto_play: bool = False  # its player put it on auto-play (托管), as its clock note said


@dataclass
class SessionState:
    """Mutable facts a session keeps for its UI; owned by the session, read by the UI."""

    seats: list[SeatInfo] = field(default_factory=list)
    deal_mode: str = "open"  # "open", "private", or "local" (zsy play: no network)
    table_name: str = ""
    ruleset: str = ""
    stopped: str | None = None  # set when the table cannot go on (cheat proven, host gone...)
    settings: TableSettings = field(default_factory=TableSettings)  # the host's, for all seats


class TableSession(Protocol):
    """One seat's view of a running table."""

    seat: int
    game: Game
    info: SessionState
    notices: asyncio.Queue[Notice]
    changed: asyncio.Event

    async def submit(self, action: Action) -> str | None:
        """Try an action for this seat: ``None`` when accepted, else the reason it was refused."""
        ...

    async def close(self) -> None:
        """Leave the table cleanly (the others see this seat drop)."""
        ...


class VotingSession(TableSession, Protocol):
    """A session whose table can vote (network tables): the UI's ``void`` command."""

    async def vote(self, motion: str) -> str:
        """Vote ``motion`` about the seat the table waits on; what happened, in words."""
        ...


@runtime_checkable
class Announcing(Protocol):
    """A session whose seat can tell the table what its clock did (a network seat, ``zsy play``).

    :func:`zsy_lan.table.clock.announce` asks it; a session without it has nobody to tell.
    """

    async def announce(self, event: str) -> bool:
        """Sign the clock note ``event`` into this seat's feed; ``False`` when it could not."""
        ...


@runtime_checkable
class FeedSession(Protocol):
    """A session that keeps this seat's own signed feed (the clock reads its notes back)."""

    def own_feed(self) -> list[tuple[str, Any]] | None:
        """This seat's feed messages in memory as ``(type, body)``; ``None``: no feed here."""
        ...


@runtime_checkable
class ChatSession(Protocol):
    """A session with a chat (:class:`zsy_lan.table.chat_desk.ChatDesk`): the UI's chat words."""

    async def chat(self, text: str) -> str | None:
        """Send a line; ``None`` when sent, else why not (a sentence)."""
        ...

    def mute(self, arg: str) -> str:
        """Hide a seat's chat here; the answer in words."""
        ...

    def unmute(self, arg: str) -> str:
        """Show a seat's chat again; the answer in words."""
        ...


def hint_list(rules: Rules, view: RoundState, seat: int, legal: list[Action]) -> list[Action]:
    """Legal moves best-first, from the ``normal`` bot's planner (the hint key cycles them).

    Here, beside the session API, because both sides of the seam need it: the
    UI's hint key, and a local table playing a seat by itself (``auto``).
    """
    if not legal:
        return []
    try:
        from zsy_lan.bots import hints

        ranked = hints(rules, view, seat)
    except Exception:  # noqa: BLE001 - a hint must never break the game: fall back
        ranked = []
    return ranked or ([a for a in legal if a.kind != "pass"] or legal)
