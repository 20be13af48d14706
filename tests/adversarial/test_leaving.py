"""A seat that leaves on purpose says so (a signed ``bye``), and the others say what follows.

Before: quitting mid-match left the others with "dropped (the table waits for
them to return)" after the peer timeout, the host's leaving no different and
unexplained. Seat 0 is the host (it has no authority after the lobby).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from mesh_support import RecordingMesh
from test_storage import Table, identities

from zsy_lan.protocol import Replica, seal
from zsy_lan.protocol.envelope import open_frame
from zsy_lan.protocol.events import PeerState
from zsy_lan.record.store import TableStore
from zsy_lan.table.peer import TablePeer


def _texts(peer: TablePeer) -> list[str]:
    out = []
    while not peer.notices.empty():
        out.append(peer.notices.get_nowait().text)
    return out


@pytest.mark.asyncio
async def test_the_host_quitting_mid_match_is_told_in_one_sentence(tmp_path: Path) -> None:
    host = Table(tmp_path / "seat0")
    guest = TablePeer(identities()[1], host.roster, 1, RecordingMesh(), TableStore(tmp_path / "s1"))  # type: ignore[arg-type]
    host.start()
    guest.start()
    try:
        host.play(4)
        sent_before = len(host.mesh.sent)
        await host.close()  # the host's player quits (Ctrl-C, quit): the peer is closed
        byes = [
            f
            for _, f in host.mesh.sent[sent_before:]
            if open_frame(f, host.roster.keys, host.roster.table).type == "bye"
        ]
        assert len(byes) == 2  # one to each other seat
        for _, frame in host.mesh.sent:  # everything the host sent reaches seat 1, in order
            guest._on_frame(0, frame)
        said = [t for t in _texts(guest) if "left the table" in t]
        assert said == [
            "seat 0 (p0), the host, left the table. If the table waits on them, a bot holds "
            "the seat after 10 s, until they return (zsy join)"
        ]
        assert guest.info.seats[0].connected is False
    finally:
        await guest.close()


@pytest.mark.asyncio
async def test_a_finished_or_faulted_seat_says_no_bye(tmp_path: Path) -> None:
    t = Table(tmp_path / "seat0")
    t.start()
    t.peer.fault = "the disk is full"  # a seat stopped by its own fault sends nothing more
    await t.close()
    kinds = [open_frame(f, t.roster.keys, t.roster.table).type for _, f in t.mesh.sent]
    assert "bye" not in kinds


def test_a_bye_marks_the_seat_gone_at_once_and_a_replayed_one_is_ignored() -> None:
    """The replica: ``PeerState(left=True)`` once; another seat's bye on a link is a replay."""
    roster = Table.__init__.__globals__["make_roster"]()
    ids = identities()
    from zsy_lan.engine.game import Game
    from zsy_lan.engine.ruleset import build_rules

    r = Replica(
        roster.table, 1, ids[1], roster.keys, Game(build_rules(3, [], {}), 2), entropy=bytes
    )
    hb = seal(
        ids[0],
        table=roster.table,
        seat=0,
        seq=0,
        prev="",
        state="",
        type="heartbeat",
        body={"have": {}},
    )
    bye = seal(ids[0], table=roster.table, seat=0, seq=0, prev="", state="", type="bye", body={})
    r.receive(hb, 0.0, via=0)
    assert r.receive(bye, 0.1, via=2) == []  # played back on seat 2's link: ignored
    events = r.receive(bye, 0.2, via=0)
    assert PeerState(0, False, left=True) in events
    # a hold is counted from the bye, not from the peer timeout after it
    assert r.motion_wait("hold", 0, 0.2) <= r.timing.hold_after


@pytest.mark.asyncio
async def test_quitting_as_zsy_join_does_it_says_bye(tmp_path: Path) -> None:
    """``zsy join``/``host`` quit by setting ``stopped``; ``run`` then closes: bye goes out."""
    import asyncio

    t = Table(tmp_path / "seat0")
    t.start()
    runner = asyncio.create_task(t.peer.run())
    await asyncio.sleep(0)
    t.peer.stopped.set()  # what _play_seat's finally does when the player quits
    await asyncio.wait_for(runner, 5)
    kinds = [open_frame(f, t.roster.keys, t.roster.table).type for _, f in t.mesh.sent]
    assert kinds.count("bye") == 2


def test_what_follows_a_leaving_depends_on_the_deal(tmp_path: Path) -> None:
    """Open deal: a bot holds the seat; private deal: the others may vote the round void."""
    t = Table(tmp_path / "seat0")
    peer = t.peer
    assert "a bot holds the seat after 10 s" in peer.narration.left_text(1)
    assert "the host" not in peer.narration.left_text(1)  # only seat 0 hosted the lobby
    peer.replica.motions = frozenset({"void"})  # what a private-deal table votes on
    said = peer.narration.left_text(2)
    assert said == (
        "seat 2 (p2) left the table. The table waits for them to return (zsy join); if it "
        "waits on them for 10 s, you can type void to void this round"
    )


def test_bots_that_leave_with_their_host_are_said_to_come_back_only_with_it(tmp_path: Path) -> None:
    """Issue #26: a private deal, the host's bot at seat 2. The joiner used to read that the
    bot would return "(zsy join)" by itself; it comes back only when its host resumes."""
    host = Table(tmp_path / "seat0")
    guest = TablePeer(identities()[1], host.roster, 1, RecordingMesh(), TableStore(tmp_path / "s1"))  # type: ignore[arg-type]
    guest.replica.motions = frozenset({"void"})  # what a private-deal table votes on
    guest.info.seats[2].bot, guest.info.seats[2].run_by = True, 0
    said = guest.narration
    assert said.left_text(2) == (
        "seat 2 (p2) left the table with seat 0 (p0), whose process runs it: it comes back "
        "only when seat 0 (p0) resumes (zsy join). If the table waits on it for 10 s, you "
        "can type void to void this round."
    )
    assert said.left_text(0) == (
        "seat 0 (p0), the host, left the table, and the bots it runs (seat 2 (p2)) with it: "
        "they come back only when it resumes (zsy join). If the table waits on one of them "
        "for 10 s, you can type void to void this round; it goes on if they are back before "
        "every seat agreed."
    )
    guest.info.seats[0].connected = False  # its host's line came first and said it all
    assert said.left_text(2) == (
        "seat 2 (p2) left the table with seat 0 (p0), whose process runs it: it comes back "
        "only when seat 0 (p0) resumes (zsy join)."
    )
    guest.info.seats[0].connected = True
    guest.replica.motions = frozenset({"hold"})  # the open deal: a bot holds the seat
    assert said.left_text(2).endswith("If the table waits on it, a bot holds the seat after 10 s.")
    # the host's own screen: its bots are its own, nothing to explain
    host.peer.info.seats[2].bot, host.peer.info.seats[2].run_by = True, 0
    assert "whose process runs it" not in host.peer.narration.left_text(2)


@pytest.mark.asyncio
async def test_a_cancelled_seat_says_bye_too(tmp_path: Path) -> None:
    """A host quitting cancels the bot seats it runs: each says bye before it goes."""
    import asyncio

    t = Table(tmp_path / "seat0")
    t.start()
    runner = asyncio.create_task(t.peer.run())
    await asyncio.sleep(0)
    runner.cancel()
    with pytest.raises(asyncio.CancelledError):
        await runner
    kinds = [open_frame(f, t.roster.keys, t.roster.table).type for _, f in t.mesh.sent]
    assert kinds.count("bye") == 2
    assert t.peer.stopped.is_set()


# A stdio bot (docs/bots.md) that plays the lowest legal play, 1.5 s a move: a slow table.
SLOW_BOT = """
import json, sys, time
for line in sys.stdin:
    if not line.strip():
        continue
    obs = json.loads(line)
    if obs.get("type") == "quit":
        break
    time.sleep(1.5)
    legal = obs["legal"]
    plays = [a for a in legal if a["kind"] == "play"]
    passes = [a for a in legal if a["kind"] == "pass"]
    pick = min(plays, key=lambda a: (max(c % 54 for c in a["cards"]), len(a["cards"]))) if plays \\
        else (passes or legal)[0]
    print(json.dumps({**pick, "id": obs["id"]}), flush=True)
"""


@pytest.mark.slow
@pytest.mark.timeout(120)
def test_the_host_quitting_a_real_table_is_told_on_loopback(tmp_path: Path) -> None:
    """Real ``zsy`` processes on 127.0.0.1: the host (and the bot it runs) get Ctrl-C
    mid-match; the joiner's screen says who left, naming the host, and what follows."""
    import os
    import signal
    import sys
    import time

    sys.path.insert(0, str(Path(__file__).parent.parent / "table"))
    from table_support import LOOPBACK, Cluster

    cluster = Cluster(tmp_path)
    try:
        host, url = cluster.host(3, 12, bots=1, rules=("--open-deal",))
        bot = tmp_path / "slow_bot.py"
        bot.write_text(SLOW_BOT)
        guest = cluster.start(
            "p1",
            ["join", url, "--bot-cmd", f"{sys.executable} {bot}", "--nick", "p1"]
            + cluster.profile_args("p1")
            + LOOPBACK,
        )
        # mid-match: dealt, and the bot the host runs has moved (was: the deal, then 1 s)
        deadline = time.monotonic() + 40
        while "dealt" not in guest.text() or "* seat 1 (bot:easy): " not in guest.text():
            assert time.monotonic() < deadline, cluster.tails()
            assert guest.alive(), cluster.tails()
            time.sleep(0.05)
        os.killpg(host.popen.pid, signal.SIGINT)  # the host's player presses Ctrl-C
        assert host.wait(15) is not None, host.tail()
        deadline = time.monotonic() + 10
        while "the host, left the table" not in guest.text() or (
            "seat 1 (bot:easy) left the table with" not in guest.text()
        ):
            assert time.monotonic() < deadline, cluster.tails()
            time.sleep(0.05)
        said = guest.text()
        assert (
            "seat 0 (host), the host, left the table, and the bots it runs (seat 1 (bot:easy)) "
            "with it: they come back only when it resumes (zsy join)." in said
        ), said[-1500:]
        # the bot the host ran goes with it, and says so too
        assert "seat 1 (bot:easy) left the table with seat 0 (host), whose" in said, said[-1500:]
        assert "dropped" not in said, said[-1500:]
    finally:
        cluster.close()
        assert not [p.name for p in cluster.procs if p.alive()]
