"""A spectator that arrives late, or follows slowly, is not cut off (U2 finding 18, session 7).

Seen once: ``zsy watch`` of a bots-only ``--spectators open`` table stopped with "Everything
received verified; the host's record ends at line 107 (the match is unfinished). Stopped
watching (lost the table's host)", and the host had said "zed is watching" only at its very
end. A bots-only match is over in seconds: the spectator was let in while the host lingered
after the match, and the host's desk, closing, sent it one batch of the record (128 KiB, about
a round of the private deal) and a ``bye`` that its socket, closed at once (linger 0), never
delivered. The spectator then waited for a host that was gone and said it was unreachable.

Now the closing desk sends each spectator the rest of the record, then ``bye``, and waits
(bounded) until the spectator says it has read it (its ``leave``); and a spectator never gives
up on a host it still hears from, whatever its link's state says.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from local_support import play_out
from mesh_support import DeskMesh
from spectate_support import LO, bot_table  # noqa: E402

from zsy_lan.protocol import Identity  # noqa: E402
from zsy_lan.table.watch import _follow, watch_table  # noqa: E402
from zsy_lan.table.watch_frames import seal_watch  # noqa: E402


@pytest.mark.slow
@pytest.mark.asyncio
@pytest.mark.timeout(150)
async def test_a_spectator_let_in_as_the_host_closes_gets_the_whole_record_and_the_end(tmp_path):
    """Let in after the last move, the host closing right away (as ``zsy host`` does after its
    linger): the spectator still follows every line of the record and ends with the match."""
    table = await bot_table(tmp_path, deal="private", spectators="open", rounds=3)
    closed = False
    try:
        ok = await table.wait(lambda: table.hosted.peer.game.finished(), 90)
        assert ok, "the bots' match did not end"
        record = table.hosted.peer.store.transcript_path
        said: list[str] = []
        watch = asyncio.create_task(watch_table(table.endpoint, table.curve, "zed", LO,
                                                show=said.append))
        desk = table.hosted.spectators
        assert await table.wait(lambda: bool(desk.watching()), 30), said
        await table.close()  # the desk's close (rest of the record, bye), then the socket's
        closed = True
        outcome = await asyncio.wait_for(watch, 60)
        lines = record.read_text().splitlines()
        assert record.stat().st_size > 128 * 1024 * 2  # more than two batches were left to send
        assert outcome.ok and outcome.follower is not None, said
        # every chain line, up to the match's end (chat said after the last move may follow
        # in the record; the spectator stops at the match's end)
        assert outcome.follower.head == table.hosted.peer.replica.transcript_head(), said[-3:]
        assert len(lines) - 4 <= outcome.follower.lines <= len(lines), said[-3:]
        assert outcome.follower.game.finished(), said[-3:]
        assert outcome.why == "match over", said[-3:]
        assert not any("unfinished" in s for s in said), said[-3:]
    finally:
        if not closed:
            await table.close()


# --- without a network --------------------------------------------------------------------


async def _local_record(path: Path) -> list[str]:
    from zsy_lan.engine.ruleset import build_rules
    from zsy_lan.table.local_table import make_local_table

    table = make_local_table(build_rules(4), 1, 0, "easy", path, seed="w1-late", me="alice",
                             bot_chat=False)
    await play_out(table)
    return path.read_text().splitlines()


class _Clock:
    """The spectator's clock (``time.monotonic`` in zsy_lan.table.watch), moved only by the
    fake link: how long the host takes between frames is then what the test says, not how
    fast this machine (or a loaded one) runs the loop."""

    def __init__(self) -> None:
        self.now = 1000.0

    def monotonic(self) -> float:
        return self.now


class _HostLink:
    """What ``_follow`` uses of a Mesh: a host whose frames come while the link looks down.

    Each frame comes ``every`` seconds (on ``clock``) after the one before; in between, and
    once they are all sent (the host says nothing more), each look for a frame finds only
    another peer's, which ``_next`` skips, and moves the clock by a tick: so ``_next`` times
    out as it would on a real link, and a silence passes without waiting for it."""

    TICK = 0.01

    def __init__(self, frames: list[bytes], every: float, clock: _Clock) -> None:
        self.frames, self.every, self.clock = list(frames), every, clock
        self.sent: list[bytes] = []
        self.due: float | None = None  # when the next frame comes

    def is_connected(self, peer_id: object) -> bool:
        return False  # the link's state says down (it lags, or the frames come another way)

    async def send(self, peer_id: object, frame: bytes, timeout: float | None = None) -> bool:
        self.sent.append(frame)
        return True

    async def recv(self) -> tuple[object, bytes]:
        await asyncio.sleep(0)
        if self.due is None:
            self.due = self.clock.now + self.every
        if not self.frames or self.clock.now < self.due:
            self.clock.now = round(self.clock.now + self.TICK, 6)
            return 1, b""
        self.due = self.clock.now + self.every
        return 0, self.frames.pop(0)


def _batches(host: Identity, lines: list[str], size: int) -> list[bytes]:
    out, at = [], 0
    for i in range(0, len(lines), size):
        part = lines[i : i + size]
        out.append(seal_watch(host, "lines", {"at": at, "lines": part}))
        at += sum(len(line.encode("utf-8")) + 1 for line in part)
    return out


@pytest.fixture
def clock(monkeypatch) -> _Clock:
    import zsy_lan.table.watch as watch

    c = _Clock()
    monkeypatch.setattr(watch, "time", c)
    return c


@pytest.mark.asyncio
async def test_a_spectator_follows_a_host_it_still_hears_from_whatever_its_link_says(
    tmp_path, clock
):
    """The link reads as down from the start, but the host's batches keep coming for longer
    than ``gone_after``: the spectator follows to the end of the match."""
    lines = await _local_record(tmp_path / "r.jsonl")
    host, me = Identity.generate(), Identity.generate()
    frames = _batches(host, lines, 1)
    link = _HostLink(frames, every=0.03, clock=clock)
    assert len(frames) * 0.03 > 4 * 0.3  # the feed lasts well past gone_after
    said: list[str] = []
    outcome = await asyncio.wait_for(
        _follow(link, me, host.public_key, said.append, None, None, None, 0.3), 60  # type: ignore[arg-type]
    )
    assert outcome.why == "match over" and outcome.ok, said[-3:]
    assert outcome.follower is not None and outcome.follower.lines == len(lines)


@pytest.mark.asyncio
async def test_a_spectator_gives_up_on_a_host_gone_silent_with_its_link_down(tmp_path, clock):
    """The other half: link down and nothing heard for ``gone_after``: lost, and it says how
    far the record it got goes."""
    lines = await _local_record(tmp_path / "r.jsonl")
    host, me = Identity.generate(), Identity.generate()
    link = _HostLink(_batches(host, lines[:30], 10), every=0.01, clock=clock)
    said: list[str] = []
    outcome = await asyncio.wait_for(
        _follow(link, me, host.public_key, said.append, None, None, None, 0.3), 60  # type: ignore[arg-type]
    )
    assert outcome.why == "lost the table's host" and outcome.ok
    assert any("ends at line 30" in s for s in said), said[-3:]


class _DeskMesh(DeskMesh):
    """What the desk uses of a Mesh; a spectator's ``leave`` comes once the ``bye`` went."""

    def __init__(self, spectator: Identity) -> None:
        super().__init__()
        self.spectator = spectator
        self.inbox: asyncio.Queue = asyncio.Queue()

    async def send(self, peer_id, frame, timeout=None):
        from zsy_lan.table.watch_frames import open_watch

        await super().send(peer_id, frame)
        if open_watch(frame).kind == "bye":
            self.inbox.put_nowait((peer_id, seal_watch(self.spectator, "leave", {})))
        return True

    async def recv(self):
        return await self.inbox.get()


def _desk(tmp_path: Path, lines: list[str]):
    import time
    from types import SimpleNamespace

    from zsy_lan.table.spectator_desk import SpectatorDesk, _Seen
    from zsy_lan.table.watch_frames import Watcher

    host, bob = Identity.generate(), Identity.generate()
    mesh = _DeskMesh(bob)
    record = tmp_path / "transcript.jsonl"
    record.write_text("".join(line + "\n" for line in lines))
    peer = SimpleNamespace(
        store=SimpleNamespace(transcript_path=record), roster=SimpleNamespace(seats=[]),
        seat=0, notices=asyncio.Queue(), changed=asyncio.Event(), stopped=asyncio.Event(),
    )
    desk = SpectatorDesk(host, "open", mesh, lambda _t: None)  # type: ignore[arg-type]
    desk.attach(peer)
    peer.stopped.set()  # the host's seat has stopped: nobody else reads the socket
    key = bob.curve_public
    desk.seen[key] = _Seen(key, bob.public_key, "bob", "watching", last=time.monotonic())
    mesh.admit(Watcher(key), key)
    return desk, mesh, bob, key


@pytest.mark.asyncio
async def test_the_closing_desk_sends_the_whole_record_then_bye_and_waits_for_the_leave(
    tmp_path,
):
    from zsy_lan.table.watch_frames import BATCH_BYTES, open_watch

    lines = [f"line-{i:05d}-" + "x" * 1000 for i in range(500)]  # about four batches
    desk, mesh, _bob, _key = _desk(tmp_path, lines)
    await asyncio.wait_for(desk.close("match over"), 10)
    kinds = [open_watch(f).kind for _p, f in mesh.sent]
    got = [line for _p, f in mesh.sent if open_watch(f).kind == "lines"
           for line in open_watch(f).body["lines"]]
    assert len(lines) * 1000 > 3 * BATCH_BYTES
    assert got == lines  # every line, in order, before the bye
    assert kinds[-1] == "bye" and kinds.count("bye") == 1
    assert desk.watching() == []  # it said leave: it has read everything


@pytest.mark.asyncio
async def test_a_spectator_the_desk_let_go_is_told_so_when_it_pings(tmp_path):
    """A spectator dropped as silent that still pings would wait for lines for ever."""
    from zsy_lan.table.watch_frames import FORGOTTEN, GONE_AFTER, Watcher, open_watch

    desk, mesh, bob, key = _desk(tmp_path, ["header"])
    desk.seen[key].last -= GONE_AFTER + 1
    await desk.pump()
    assert desk.watching() == []
    mesh.sent.clear()
    mesh.keys.clear()  # revoked: its frames now come from a stranger's connection
    from zsy_lan.net.transport import Guest

    desk.on_frame(Guest(key), seal_watch(bob, "ping", {"at": 7}))
    await asyncio.sleep(0)
    said = [open_watch(f) for _p, f in mesh.sent]
    assert [(m.kind, m.body.get("reason")) for m in said] == [("bye", FORGOTTEN)]
    assert Watcher(key) not in mesh.keys.values()


@pytest.mark.asyncio
async def test_a_host_that_stalled_does_not_count_its_stall_as_a_spectator_s_silence(tmp_path):
    """The host's loop was busy (a deal under load) longer than GONE_AFTER: the pings that
    came meanwhile are not read yet, so the spectator is not dropped for the host's stall."""
    import time

    from zsy_lan.table.watch_frames import GONE_AFTER

    desk, _mesh, _bob, key = _desk(tmp_path, ["header"])
    await desk.pump()
    stall = GONE_AFTER + 2
    desk.seen[key].last -= stall  # its last word came just before the stall
    desk._pumped = time.monotonic() - stall  # and the pump did not run since
    await desk.pump()
    assert [w.nick for w in desk.watching()] == ["bob"]
    desk.seen[key].last -= GONE_AFTER + 1  # a real silence, the host listening: gone
    await desk.pump()
    assert desk.watching() == []
