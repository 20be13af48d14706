"""A table of four bot seats on loopback, hosted in this process, and a spectator for it."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from zsy_lan.engine.ruleset import build_rules
from zsy_lan.net.broker import BrokerAddress
from zsy_lan.net.transport import Mesh
from zsy_lan.protocol import Identity
from zsy_lan.record.store import TableStore
from zsy_lan.table.deciders import make_decider
from zsy_lan.table.hosting import HostedTable, open_table
from zsy_lan.table.peer import TablePeer
from zsy_lan.table.reach import NetConfig, join_url
from zsy_lan.table.resuming import resume_table

LO = "127.0.0.1"


@dataclass
class BotTable:
    """``zsy host --bot easy --bots 3`` in this process, with ``--spectators MODE``."""

    hosted: HostedTable
    identity: Identity
    runner: asyncio.Task[None]
    said: list[str] = field(default_factory=list)
    #: the host once it resumed (:meth:`resume_host`): its peer, mesh and run task
    back: TablePeer | None = None
    back_mesh: Mesh | None = None
    back_runner: asyncio.Task[None] | None = None

    @property
    def endpoint(self) -> str:
        return self.hosted.mesh.endpoint

    @property
    def curve(self) -> bytes:
        return self.identity.curve_public

    @property
    def url(self) -> str:
        return join_url(self.endpoint, self.curve)

    def notices(self) -> list[str]:
        """The host seat's notices so far (drained into :attr:`said`)."""
        q = self.hosted.peer.notices
        while not q.empty():
            self.said.append(q.get_nowait().text)
        return self.said

    async def wait(self, check, timeout: float) -> bool:
        deadline = asyncio.get_running_loop().time() + timeout
        while asyncio.get_running_loop().time() < deadline:
            if check():
                return True
            await asyncio.sleep(0.1)
        return check()

    async def stop_host(self) -> Path:
        """The host's process stops mid-match: no goodbye to anyone. Its table folder."""
        peer = self.hosted.peer
        desk = self.hosted.spectators
        if desk is not None and desk._pump is not None:
            desk._pump.cancel()
        peer.stopped.set()
        with contextlib.suppress(BaseException):
            await asyncio.wait_for(self.runner, 10)
        await self.hosted.mesh.close()
        return peer.store.path

    async def resume_host(self, folder: Path, notify: Callable[[str], None]) -> TablePeer:
        """``zsy join`` resumes the host from ``folder`` (an easy bot plays its seat)."""
        self.back, self.back_mesh = await resume_table(
            self.identity, TableStore(folder), NetConfig(address=LO, mdns=False), notify=notify
        )
        self.back.decider = make_decider("easy", self.identity.public_key)
        self.back.start(resume=True)
        self.back_runner = asyncio.create_task(self.back.run())
        return self.back

    async def close(self) -> None:
        if self.back is not None:
            with contextlib.suppress(BaseException):
                await asyncio.wait_for(self.back.spectators.close(), 5)
            self.back.stopped.set()
        if self.back_runner is not None:
            with contextlib.suppress(BaseException):
                await asyncio.wait_for(self.back_runner, 10)
        if self.back_mesh is not None:
            await self.back_mesh.close()
        desk = self.hosted.spectators
        if desk is not None:
            with contextlib.suppress(BaseException):
                await asyncio.wait_for(desk.close(), 5)
        self.hosted.peer.stopped.set()
        with contextlib.suppress(BaseException):
            await asyncio.wait_for(self.runner, 5)
        for t in self.hosted.bots:
            t.cancel()
        await asyncio.gather(*self.hosted.bots, return_exceptions=True)
        await self.hosted.mesh.close()


async def bot_table(
    tmp_path: Path, *, deal: str = "private", spectators: str = "open", rounds: int = 2,
    players: int = 4, variants: tuple[str, ...] = (), options: dict | None = None,
    relay: BrokerAddress | None = None,
) -> BotTable:
    """Open the table (it fills at once with its own bots) and start the match.

    ``relay``: ``zsy host --relay`` (every link's fallback; the watch line names it)."""
    identity = Identity.generate()
    rules = build_rules(players, list(variants), options or {})
    said: list[str] = []
    hosted = await open_table(
        identity,
        rules,
        rounds,
        "watched",
        "host",
        lambda t: TableStore(tmp_path / "host" / t),
        NetConfig(address=LO, mdns=False, relay=relay),
        bots=players - 1,
        bot_level="easy",
        notify=said.append,
        bot_store=lambda t, s: TableStore(tmp_path / f"bot-{s}" / t),
        host_bot=True,
        deal=deal,
        spectators=spectators,
    )
    hosted.peer.decider = make_decider("easy", identity.public_key)
    runner = asyncio.create_task(hosted.peer.run())
    return BotTable(hosted, identity, runner, said)


def returned(result):
    """What an ``asyncio.gather(..., return_exceptions=True)`` call returned: its value, or
    its exception raised here (so ``pytest.raises`` can judge it as if awaited alone)."""
    if isinstance(result, BaseException):
        raise result
    return result
