"""A seat's session on an in-memory game for the table-settings tests (no network)."""

from __future__ import annotations

import asyncio

from zsy_lan.engine.game import Game
from zsy_lan.engine.ruleset import build_rules
from zsy_lan.protocol.table_settings import TableSettings
from zsy_lan.table.session import Notice, SeatInfo, SessionState


class ClockSession:
    """This seat's handle on an in-memory game; records what it announces to the table."""

    def __init__(self, settings: TableSettings, players: int = 4) -> None:
        rules = build_rules(players, [], {})
        self.game = Game(rules, 3)
        self.game.start_round(b"\x05" * 32)
        self.seat = self.game.actors()[0]
        self.info = SessionState(
            seats=[SeatInfo(nick=f"p{i}") for i in range(players)],
            table_name="t",
            settings=settings,
        )
        self.notices: asyncio.Queue[Notice] = asyncio.Queue()
        self.changed = asyncio.Event()
        self.submitted: list = []
        self.announced: list[str] = []

    async def submit(self, action):
        self.submitted.append(action)
        self.game.apply(self.seat, action)
        self.changed.set()
        return None

    async def announce(self, event: str) -> None:
        self.announced.append(event)

    async def close(self) -> None:
        return None


class FedReader:
    """Lines the test hands over, one at a time; ``None`` ends the input."""

    def __init__(self) -> None:
        self.lines: asyncio.Queue[str | None] = asyncio.Queue()

    async def read(self, prompt) -> str | None:
        return await self.lines.get()
