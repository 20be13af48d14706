"""A host that resumes its table serves spectators again, with the table's setting.

Before, a host whose process stopped mid-match and came back (``zsy join`` resuming the
table from its folder) served nobody: ``zsy watch`` was refused as if the table admitted no
spectators. The desk's mode is kept in the table's folder when the match starts
(:func:`zsy_lan.table.spectator_desk.save_spectators`) and
:func:`zsy_lan.table.spectator_desk.reopen_desk` opens
the desk again on a resume.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from spectate_support import LO, bot_table  # noqa: E402

from zsy_lan.record.store import TableStore  # noqa: E402
from zsy_lan.table.deciders import make_decider  # noqa: E402
from zsy_lan.table.reach import NetConfig  # noqa: E402
from zsy_lan.table.resuming import resume_table  # noqa: E402
from zsy_lan.table.spectator_desk import SPECTATORS_FILE, saved_spectators  # noqa: E402
from zsy_lan.table.watch import watch_table  # noqa: E402


def test_the_saved_setting_is_read_back_and_anything_else_serves_nobody(tmp_path):
    assert saved_spectators(tmp_path) == "off"  # a table from before: never more than chosen
    (tmp_path / SPECTATORS_FILE).write_text("open\n")
    assert saved_spectators(tmp_path) == "open"
    (tmp_path / SPECTATORS_FILE).write_text("everyone\n")
    assert saved_spectators(tmp_path) == "off"
    (tmp_path / SPECTATORS_FILE).write_bytes(b"\xff\xfe")
    assert saved_spectators(tmp_path) == "off"


@pytest.mark.slow
@pytest.mark.asyncio
@pytest.mark.timeout(150)
async def test_a_resumed_host_lets_spectators_watch_again(tmp_path):
    table = await bot_table(tmp_path, deal="private", spectators="open", rounds=2)
    hosted = table.hosted
    back = bmesh = runner = None
    try:
        peer = hosted.peer
        assert await table.wait(lambda: len(peer.game.match.results) >= 1, 60)
        folder = peer.store.path
        assert saved_spectators(folder) == "open"
        # the host's process stops (no goodbye to anyone), then comes back from its folder
        desk = hosted.spectators
        assert desk is not None and desk._pump is not None
        desk._pump.cancel()
        peer.stopped.set()
        with contextlib.suppress(BaseException):
            await asyncio.wait_for(table.runner, 10)
        await hosted.mesh.close()
        said: list[str] = []
        back, bmesh = await resume_table(
            table.identity, TableStore(folder), NetConfig(address=LO, mdns=False),
            notify=said.append,
        )
        assert back.spectators is not None and back.spectators.mode == "open"
        line = f"Spectators watch with:  zsy watch tcp://{bmesh.endpoint[len('tcp://'):]}#"
        assert any(s.startswith(line) for s in said), said
        back.decider = make_decider("easy", table.identity.public_key)
        back.start(resume=True)
        runner = asyncio.create_task(back.run())
        shown: list[str] = []
        outcome = await asyncio.wait_for(
            watch_table(bmesh.endpoint, table.curve, "bob", LO, show=shown.append), 100
        )
        assert outcome.ok, shown
        assert outcome.follower is not None and outcome.follower.game.finished()
        assert any(s.startswith("Match over. Winner:") for s in shown), shown
        assert outcome.follower.head == back.replica.transcript_head()
    finally:
        if back is not None:
            with contextlib.suppress(BaseException):
                await asyncio.wait_for(back.spectators.close(), 5)
            back.stopped.set()
        if runner is not None:
            with contextlib.suppress(BaseException):
                await asyncio.wait_for(runner, 10)
        for t in hosted.bots:
            t.cancel()
        await asyncio.gather(*hosted.bots, return_exceptions=True)
        if bmesh is not None:
            await bmesh.close()
        await hosted.mesh.close()
