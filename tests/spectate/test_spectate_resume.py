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
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from spectate_support import LO, bot_table  # noqa: E402

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
    try:
        peer = table.hosted.peer
        assert await table.wait(lambda: len(peer.game.match.results) >= 1, 60)
        assert saved_spectators(peer.store.path) == "open"
        desk = table.hosted.spectators
        assert desk is not None and desk._pump is not None
        folder = await table.stop_host()  # no goodbye to anyone, then back from its folder
        said: list[str] = []
        back = await table.resume_host(folder, said.append)
        assert back.spectators is not None and back.spectators.mode == "open"
        endpoint = table.back_mesh.endpoint
        line = f"Spectators watch with:  zsy watch tcp://{endpoint[len('tcp://'):]}#"
        assert any(s.startswith(line) for s in said), said
        shown: list[str] = []
        outcome = await asyncio.wait_for(
            watch_table(endpoint, table.curve, "bob", LO, show=shown.append), 100
        )
        assert outcome.ok, shown
        assert outcome.follower is not None and outcome.follower.game.finished()
        assert any(s.startswith("Match over. Winner:") for s in shown), shown
        assert outcome.follower.head == back.replica.transcript_head()
    finally:
        await table.close()
