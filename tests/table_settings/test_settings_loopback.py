"""Table settings between real peers on 127.0.0.1 (issue #15).

The host sets a 5-second clock, hints off and an invitation; a join without
the secret or with a wrong one is refused in one sentence, the invited joiner
learns the very same settings (signed roster) before the first deal, shows
them in its header, is refused the hint, times out (the hint played, its clock
note heard at the host's seat), and keeps the settings and its run of
timeouts through a resume. The mDNS record (zeroconf bound to
127.0.0.1 only) carries the invite flag but never the secret, and ``zsy join
NAME`` refuses such a table before trying. Every task, mesh and advert is closed.
"""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path

import pytest

from zsy_lan.engine.ruleset import build_rules
from zsy_lan.net import discovery
from zsy_lan.net.discovery import (
    SERVICE_TYPE,
    TableNotFoundError,
    make_zeroconf,
    resolve_table,
)
from zsy_lan.protocol import Identity
from zsy_lan.protocol.lobby import Roster
from zsy_lan.protocol.table_settings import TableSettings
from zsy_lan.record.store import TableStore
from zsy_lan.table.clock import CLOCK_GRACE, clock_streak
from zsy_lan.table.hosting import open_table
from zsy_lan.table.joining import join_table, resolve_target
from zsy_lan.table.reach import NetConfig, TableError, invite_in
from zsy_lan.table.resuming import resume_table
from zsy_lan.ui.line_mode import Assist, _handle, _my_turn, clock_ran_out, play_for_me, render
from zsy_lan.ui.render import Style

LO = "127.0.0.1"
SETTINGS = TableSettings(clock=5, hints=False, counter=True, invite=True)


class _Host:
    """``open_table`` in a task; its printed lines; closed with everything it started."""

    def __init__(self, tmp: Path, mdns: bool = False, name: str = "t") -> None:
        self.tmp, self.mdns, self.name = tmp, mdns, name
        self.identity = Identity.generate()
        self.lines: list[str] = []
        self.task: asyncio.Task | None = None
        self.url = ""

    async def start(self, bots: int = 1) -> _Host:
        self.task = asyncio.create_task(
            open_table(
                self.identity,
                build_rules(3, [], {}),
                1,
                self.name,
                "host",
                lambda t: TableStore(self.tmp / "host" / t),
                NetConfig(address=LO, mdns=self.mdns, mdns_interfaces=[LO]),
                bots=bots,
                bot_level="easy",
                notify=self.lines.append,
                bot_store=lambda t, s: TableStore(self.tmp / f"bot-{s}"),
                deal="open",
                settings=SETTINGS,
            )
        )
        for _k in range(500):
            line = next((ln for ln in self.lines if "zsy join tcp://" in ln), None)
            if line:
                self.url = line[line.index("tcp://") :].split()[0]
                return self
            if self.task.done():
                self.task.result()
            await asyncio.sleep(0.02)
        raise AssertionError(f"host did not open: {self.lines}")

    async def close(self) -> None:
        if self.task is None:
            return
        if not self.task.done():
            self.task.cancel()
        with contextlib.suppress(BaseException):
            hosted = await self.task
            hosted.peer.stopped.set()
            for t in hosted.bots:
                t.cancel()
            await asyncio.gather(*hosted.bots, return_exceptions=True)
            await hosted.peer.close()
            await hosted.mesh.close()


async def _join(tmp: Path, url: str, nick: str):
    return await asyncio.wait_for(
        join_table(
            Identity.generate(),
            url,
            nick,
            lambda t, s: TableStore(tmp / nick / t),
            NetConfig(address=LO, mdns=False),
            notify=lambda _line: None,
        ),
        30,
    )


async def _until(cond, what: str, timeout: float = 30.0) -> None:
    for _ in range(int(timeout / 0.02)):
        if cond():
            return
        await asyncio.sleep(0.02)
    raise AssertionError(f"timed out waiting for {what}")


@pytest.mark.asyncio
@pytest.mark.slow  # a real table on loopback sockets, a resume: over a second
@pytest.mark.timeout(90)
async def test_invitation_and_settings_agreed_by_every_seat(tmp_path):
    host = await _Host(tmp_path).start(bots=1)
    secret = invite_in(host.url)
    assert secret and len(secret) >= 20
    assert any("By invitation" in line for line in host.lines)
    peers, runs = [], []
    joiner = jmesh = None
    try:
        bare = host.url[: -len(secret) - 1]
        with pytest.raises(TableError, match="this table is by invitation: ask the host"):
            await _join(tmp_path, bare, "stranger")
        with pytest.raises(TableError, match="this table is by invitation: ask the host"):
            await _join(tmp_path, bare + ".not-the-secret", "guesser")
        joiner, jmesh = await _join(tmp_path, host.url, "ana")
        hosted = await asyncio.wait_for(host.task, 30)
        # the same settings at every seat, from the host's signed roster
        assert hosted.roster.settings == SETTINGS
        assert joiner.roster.settings == SETTINGS and joiner.info.settings == SETTINGS
        header = render(joiner, Style())[1]
        assert "table clock 5 seconds per turn" in header and "hints off" in header
        for peer in (hosted.peer, joiner):
            peer.start()
            runs.append(asyncio.create_task(peer.run()))
        peers = [(hosted.peer, hosted.mesh), (joiner, jmesh)]
        # kept for a resume: the roster each seat saved when it started
        data, _seat = joiner.store.load_roster()
        assert Roster.from_json(data).settings == SETTINGS
        await _until(lambda: joiner.game.view(joiner.seat) is not None, "the first deal")
        said: list[str] = []
        await _handle(joiner, "hint", Style(), 0, said.append)
        assert said and "The host turned hints off at this table" in said[0]
        # the joiner's time runs out: the hint is played and the note, signed into its
        # feed, reaches the host's seat as one line (the host's own turns played for it)
        assist, said_j = Assist(timer=5), []
        for _k in range(1500):
            if _my_turn(joiner):
                # the time really runs out: the host tells a timeout only for a turn that
                # ran the clock by its own clock, less the grace (tests/adversarial/
                # test_clock_notes.py)
                await asyncio.sleep(SETTINGS.clock - CLOCK_GRACE + 0.5)
                play = lambda why: play_for_me(joiner, why, said_j.append)  # noqa: E731
                await clock_ran_out(joiner, assist, said_j.append, play)
                break
            if _my_turn(hosted.peer):
                await play_for_me(hosted.peer, "host", lambda _line: None)
            await asyncio.sleep(0.02)
        assert assist.timeouts == 1 and clock_streak(joiner) == 1, said_j
        await _until(
            lambda: any(
                "ana's time ran out: the hint was played" in n.text
                for n in list(hosted.peer.notices._queue)  # type: ignore[attr-defined]
            ),
            "the clock note at the host",
            10,
        )
        # the joiner drops and comes back: the resumed seat has the same settings
        joiner.stopped.set()
        await asyncio.wait_for(runs[1], 10)
        await jmesh.close()
        peers.pop()
        back, bmesh = await resume_table(
            joiner.identity, TableStore(joiner.store.path), NetConfig(address=LO, mdns=False),
            notify=lambda _line: None,
        )
        try:
            assert back.info.settings == SETTINGS
            # the run of timeouts survives the resume: read from the seat's own signed feed
            # (a fresh client's count used to start again at 0, so a second timeout in a
            # row after a resume did not start auto-play)
            back.start(resume=True)  # the replica restored from the journal and the record
            assert clock_streak(back) == 1
            assert "table clock 5 seconds per turn" in render(back, Style())[1]
        finally:
            back.stopped.set()
            with contextlib.suppress(BaseException):
                await asyncio.wait_for(back.close(), 10)
            await bmesh.close()
    finally:
        for peer, _mesh in peers:
            peer.stopped.set()
        for r in runs:
            with contextlib.suppress(BaseException):
                await asyncio.wait_for(r, 10)
        for _peer, mesh in peers:
            await mesh.close()
        if not peers and jmesh is not None:
            await jmesh.close()
        await host.close()


@pytest.mark.asyncio
@pytest.mark.slow
@pytest.mark.xdist_group("mdns")  # mDNS on 127.0.0.1 is one medium for every xdist worker
@pytest.mark.timeout(90)
async def test_mdns_shows_invite_only_without_the_secret_and_join_by_name_says_so(
    tmp_path, monkeypatch
):
    # A lookup by name listens SECOND_LOOK (1.5 s) after the first answer for a second
    # table of that name; this test has one table and asserts the refusal, not the look.
    monkeypatch.setattr(discovery, "SECOND_LOOK", 0.2)
    name = f"invite-{id(tmp_path) % 100000}"
    host = await _Host(tmp_path, mdns=True, name=name).start(bots=0)
    secret = invite_in(host.url)
    assert secret
    zc = make_zeroconf([LO])
    try:
        try:  # returns as soon as the table is seen (browse_tables listens its full timeout)
            table = await resolve_table(name, [LO], 20, zeroconf=zc)
        except TableNotFoundError as exc:
            raise AssertionError(f"the table was not advertised on 127.0.0.1: {exc}") from exc
        assert table.name == name
        assert table.settings == SETTINGS  # the flag, the clock and the assists
        from zeroconf.asyncio import AsyncServiceInfo

        info = AsyncServiceInfo(SERVICE_TYPE, table.instance)
        assert await info.async_request(zc.zeroconf, 3000)
        raw = b" ".join((k or b"") + b"=" + (v or b"") for k, v in info.properties.items())
        assert b"invite=1" in raw
        assert secret.encode() not in raw  # never the secret
        with pytest.raises(TableError, match="this table is by invitation: ask the host"):
            await resolve_target(name, NetConfig(address=LO, mdns_interfaces=[LO]), 5, print)
    finally:
        await zc.async_close()
        await host.close()
