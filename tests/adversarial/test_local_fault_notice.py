"""A seat that stops on its own disk says so, signed, and the table goes on at once (issue #25).

Before: a full disk or a damaged journal stopped that seat with a clear sentence, but the
other seats saw only silence: "dropped" after 3.5 s, then "seat 1 is withholding a move
past the timeout", and a hold or a void only after the timeouts. Now the stopping seat
sends a signed ``bye`` naming one short fault class (``{"fault": "disk-full"}``,
zsy_lan/protocol/local_fault.py); every other seat says at once "seat 1 (bob) stopped:
its disk is full", and may hold the seat (open deal) or void the round (private deal)
without waiting out a timeout, because the seat itself signed that it is gone.

The notice is that seat's own word and nothing more: a forged one (bad signature, another
seat's key, another seat's notice played back on a link, a body naming another seat) is
refused or ignored, a fault word is never printed (each is said in the receiver's own
phrase), and a seat that stopped "on a fault" is still named for a cheat its signed frames
prove. Real TablePeers in one process (their real loops, a loopback-free in-memory link)
and real replicas (tests/protocol/proto_support) fed hand-crafted signed frames.
"""

from __future__ import annotations

import asyncio
import errno
import hashlib
import os
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent.parent / "protocol"))

from mesh_support import RecordingMesh
from proto_support import FAST, TABLE, Mesh, bot_action, identity  # noqa: E402
from test_storage import Table, identities, make_roster, own_twin  # noqa: E402

import zsy_lan.record.store as store_mod  # noqa: E402
from zsy_lan.engine.ruleset import build_rules  # noqa: E402
from zsy_lan.protocol import Identity, seal  # noqa: E402
from zsy_lan.protocol.canonical import canonical  # noqa: E402
from zsy_lan.protocol.envelope import MAGIC, open_frame  # noqa: E402
from zsy_lan.protocol.events import Cheat, Motion, PeerState, Rejected  # noqa: E402
from zsy_lan.protocol.lobby import Roster, Seat  # noqa: E402
from zsy_lan.protocol.local_fault import (  # noqa: E402
    DISK_ERROR,
    DISK_FULL,
    LOCAL,
    PLUGIN,
    PROGRAM,
    READ_ONLY,
    RECORD_DAMAGED,
    TOO_MANY_FILES,
)
from zsy_lan.record.store import TableStore, damaged, storage_error  # noqa: E402
from zsy_lan.table.deciders import make_decider  # noqa: E402
from zsy_lan.table.peer import TablePeer  # noqa: E402

pytestmark = [pytest.mark.timeout(60)]


def _texts(peer: TablePeer) -> list[str]:
    out = []
    while not peer.notices.empty():
        out.append(peer.notices.get_nowait().text)
    return out


def _fault_bye(ident: Identity, seat: int, body: dict[str, Any], table: str = TABLE) -> bytes:
    """A ``bye`` as a modified client signs it: ``seal``'s own checks skipped, so a body no
    honest seat sends can be tried too (the receiver's ``open_frame`` judges it)."""
    payload = {"table": table, "seq": 0, "prev": "", "state": "", "type": "bye", "body": body}
    head = MAGIC + bytes([seat]) + canonical(payload)
    return head + ident.sign(head)


def _byes(sent: list[tuple[int, bytes]], roster: Roster) -> list[dict[str, Any]]:
    out = []
    for _, frame in sent:
        env = open_frame(frame, roster.keys, roster.table)
        if env.type == "bye":
            out.append(dict(env.body))
    return out


# --- the fault classes ------------------------------------------------------------------


def test_each_storage_fault_has_its_class_and_no_os_text_travels(tmp_path: Path) -> None:
    """The class is decided where the OS error is; only that word goes into the ``bye``."""
    where = tmp_path / "journal.jsonl"
    cases = {
        errno.ENOSPC: DISK_FULL,
        errno.EDQUOT: DISK_FULL,
        errno.EROFS: READ_ONLY,
        errno.EACCES: READ_ONLY,
        errno.EMFILE: TOO_MANY_FILES,
        errno.EIO: DISK_ERROR,
    }
    for code, kind in cases.items():
        assert storage_error(where, OSError(code, os.strerror(code))).kind == kind, code
    assert damaged(where, "line 2 is not a journal record").kind == RECORD_DAMAGED


# --- the stopping seat tells the table -----------------------------------------------------


@pytest.mark.asyncio
async def test_a_full_disk_sends_one_signed_fault_bye_and_nothing_of_its_feed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ENOSPC at the store's write seam: the seat stops, and what it sends after is exactly one
    ``bye`` to each other seat, ``{"fault": "disk-full"}``, signed; no feed frame, no OS text."""
    t = Table(tmp_path / "seat0")
    t.start()
    try:
        t.play(6)
        before = len(t.mesh.sent)

        def full(fd: int, data: bytes) -> None:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

        monkeypatch.setattr(store_mod, "write_all", full)
        t.play(10)
        assert t.peer.fault is not None and "the disk is full" in t.peer.fault
        await asyncio.sleep(0.05)  # the bye goes out on the loop, bounded (outbox.last_words)
        after = t.mesh.sent[before:]
        kinds = [open_frame(f, t.roster.keys, t.roster.table).type for _, f in after]
        assert kinds == ["bye", "bye"], kinds  # one to each other seat, nothing else
        assert sorted(to for to, _ in after) == [1, 2]
        assert _byes(after, t.roster) == [{"fault": DISK_FULL}] * 2
        t.play(5)
        assert len(t.mesh.sent) == before + 2  # told once, then silent
        # the bare replicas (seats 1 and 2, which the table pumped the byes to) take it as
        # seat 0's own word: gone, and no timeout before a hold about it
        for r in t.others:
            assert r.stopped(0) == DISK_FULL and not r.live.connected[0]
            assert r.motion_wait("hold", 0, 100.0) == 0.0
            assert r.receive(after[0][1], 100.0, via=0) == []  # said once
        assert not t.cheats
    finally:
        monkeypatch.undo()
        await t.close()
    assert len(t.mesh.sent) == before + 2  # closing sends no second, plain bye


@pytest.mark.asyncio
async def test_a_record_lacking_a_signed_frame_is_told_as_a_damaged_record(tmp_path: Path) -> None:
    """The table holds a frame this seat signed that its journal lost: a local fault of class
    "record-damaged", told as such (never as a cheat of its own, never as a disk error)."""
    t = Table(tmp_path / "seat0")
    t.start()
    try:
        t.play(6)
        twin = own_twin(t, tmp_path / "seat0")
        before = len(t.mesh.sent)
        t.peer._on_frame(1, twin)
        await asyncio.sleep(0.05)
        assert t.peer.fault is not None
        assert _byes(t.mesh.sent[before:], t.roster) == [{"fault": RECORD_DAMAGED}] * 2
    finally:
        await t.close()


@pytest.mark.asyncio
async def test_a_bug_of_its_own_program_is_told_as_such(tmp_path: Path) -> None:
    """The game or a rules plugin failed here (``Fault``): the seat stops, and the others read
    "its program failed (a bug)", not a withheld move."""
    from zsy_lan.protocol.events import Fault

    t = Table(tmp_path / "seat0")
    t.start()
    try:
        t.play(3)
        before = len(t.mesh.sent)
        t.peer._handle([Fault("local fault, not a cheat: the game code failed", "Traceback")])
        await asyncio.sleep(0.05)
        assert t.peer.stopped.is_set()
        assert _byes(t.mesh.sent[before:], t.roster) == [{"fault": PROGRAM}] * 2
        said, _kind = await _bye_read_at_seat_1(tmp_path, t, before)
        assert len(said) == 1 and "stopped: its program failed (a bug)" in said[0], said
    finally:
        await t.close()


async def _bye_read_at_seat_1(tmp_path: Path, t: Table, before: int) -> tuple[list[str], object]:
    """Seat 1 reads the first ``bye`` seat 0 sent since ``before``: what it tells its player,
    and what it records of seat 0's stop (``replica.stopped(0)``)."""
    guest = _peer(tmp_path, 1)
    guest.start()
    try:
        bye = next(
            f
            for _, f in t.mesh.sent[before:]
            if open_frame(f, t.roster.keys, t.roster.table).type == "bye"
        )
        guest._on_frame(0, bye)
        return _texts(guest), guest.replica.stopped(0)
    finally:
        await guest.close()


@pytest.mark.asyncio
@pytest.mark.parametrize("where", ["replica", "bot"])
async def test_a_rules_plugins_bug_is_told_as_the_plugins(tmp_path: Path, where: str) -> None:
    """A rules plugin raised here (issue #27: PluginError), in the replica (``Fault.kind``
    "plugin") or while this seat's bot weighed its moves (it used to retry for ever): the
    others read that a rules plugin failed on that seat, never a cheat nor a withheld move."""
    from zsy_lan.engine.errors import PluginError
    from zsy_lan.protocol.events import Fault

    t = Table(tmp_path / "seat0")
    t.start()
    try:
        t.play(3)
        before = len(t.mesh.sent)
        if where == "replica":
            t.peer._handle([Fault("local fault, not a cheat: rules plugin 'x' failed", "", PLUGIN)])
        else:
            t.peer.bot._plugin_failed(PluginError("x", "zsy_beats", KeyError("boom")))
            assert "rules plugin 'x' failed in its zsy_beats" in t.peer.info.stopped
        await asyncio.sleep(0.05)
        assert t.peer.stopped.is_set()
        assert _byes(t.mesh.sent[before:], t.roster) == [{"fault": PLUGIN}] * 2
        said, kind = await _bye_read_at_seat_1(tmp_path, t, before)
        assert len(said) == 1 and "a rules plugin failed on its computer" in said[0], said
        assert kind == PLUGIN
    finally:
        await t.close()


@pytest.mark.asyncio
async def test_a_record_refused_on_resume_tells_the_waiting_table_why(tmp_path: Path) -> None:
    """The player comes back (zsy join) but the journal was damaged meanwhile: resuming is
    refused, files untouched, nothing signed into the feed; the table, which waits for this
    seat, gets the signed "record-damaged" notice, so it may void or hold at once."""
    from zsy_lan.record.store import StorageError

    t = Table(tmp_path / "seat0")
    t.start()
    t.play(8)
    await t.close()
    journal = tmp_path / "seat0" / "journal.jsonl"
    lines = journal.read_bytes().split(b"\n")
    lines[1] = b'{"key": "frame/2", "data": "zz"}'  # a complete line that is no record
    journal.write_bytes(b"\n".join(lines))
    before = journal.read_bytes()
    again = Table(tmp_path / "seat0", others=t.others)
    with pytest.raises(StorageError, match="does not match this seat"):
        again.start(resume=True)
    await again.close()  # what zsy join does before it exits: the bye goes out (bounded)
    assert journal.read_bytes() == before
    kinds = [open_frame(f, again.roster.keys, again.roster.table).type for _, f in again.mesh.sent]
    assert kinds == ["bye", "bye"] and sorted(to for to, _ in again.mesh.sent) == [1, 2]
    assert _byes(again.mesh.sent, again.roster) == [{"fault": RECORD_DAMAGED}] * 2


# --- what the other seats read ---------------------------------------------------------------


def _peer(tmp_path: Path, seat: int, deal: str = "open") -> TablePeer:
    roster = replace(make_roster(), deal=deal)
    store = TableStore(tmp_path / f"s{seat}")
    return TablePeer(identities()[seat], roster, seat, RecordingMesh(), store)  # type: ignore[arg-type]


@pytest.mark.asyncio
async def test_the_others_read_the_fault_not_a_withheld_move(tmp_path: Path) -> None:
    """Open deal: "stopped: its disk is full ... a bot holds the seat"; private deal: "type
    void ... at once". Never "withholding", "dropped" or "cheated"; the host is named so."""
    ids = identities()
    roster = make_roster()
    open_seat = _peer(tmp_path, 0)
    open_seat.start()
    private_seat = _peer(tmp_path, 2, deal="private")
    private_seat.start()
    try:
        open_seat._on_frame(1, _fault_bye(ids[1], 1, {"fault": DISK_FULL}, roster.table))
        said = _texts(open_seat)
        assert said == [
            "seat 1 (p1) stopped: its disk is full, it says; a fault on its side, not a cheat. "
            "A bot holds the seat when the table waits on it, until p1 is back (zsy join)."
        ]
        assert open_seat.info.seats[1].connected is False
        # no timeout on it: a hold needs no wait (it would be 10 s after a plain bye)
        assert open_seat.replica.motion_wait("hold", 1, open_seat._now()) == 0.0
        private_seat._on_frame(0, _fault_bye(ids[0], 0, {"fault": RECORD_DAMAGED}, roster.table))
        said = _texts(private_seat)
        assert said == [
            "seat 0 (p0), the host, stopped: its saved record of this table is damaged, it "
            "says; a fault on its side, not a cheat. When the table waits on it, type void to "
            "void this round at once (earlier rounds stand), or wait until p0 is back (zsy join)."
        ]
        assert private_seat.replica.motion_wait("void", 0, private_seat._now()) == 0.0
        # told once; a later frame of the seat shows it back, and the timeouts hold again
        private_seat._on_frame(0, _fault_bye(ids[0], 0, {"fault": RECORD_DAMAGED}, roster.table))
        assert _texts(private_seat) == []
        hb = seal(
            ids[0], table=roster.table, seat=0, seq=0, prev="", state="", type="heartbeat",
            body={"have": {}},
        )
        private_seat._on_frame(0, hb)
        assert private_seat.replica.stopped(0) is None
        assert private_seat.replica.motion_wait("void", 0, private_seat._now()) > 0.0
        for text in _texts(open_seat) + _texts(private_seat):
            assert "withhold" not in text and "cheated" not in text
    finally:
        await open_seat.close()
        await private_seat.close()


@pytest.mark.asyncio
async def test_a_stall_and_a_void_about_a_stopped_seat_name_its_fault(tmp_path: Path) -> None:
    """Private deal: the table waits on a seat that said it stopped; the stall report and the
    motion's notices say "stopped: its disk is full", never "withholding" or "withheld"."""
    from zsy_lan.protocol.events import Stalled

    ids = identities()
    peer = _peer(tmp_path, 2, deal="private")
    peer.start()
    try:
        peer._on_frame(1, _fault_bye(ids[1], 1, {"fault": DISK_FULL}, make_roster().table))
        _texts(peer)
        peer.narration.stalled(Stalled(1, "commit"))
        at = peer.replica.position()
        peer.holding.motion(Motion("void", 1, at, "open", by=0))
        peer.holding.motion(Motion("void", 1, at, "voided"))
        said = _texts(peer)
        assert said[0].startswith("the table waits on seat 1 (p1), which stopped: its disk is full")
        assert said[1:] == [
            "seat 0 (p0) moved to void the round: seat 1 (p1) stopped: its disk is full",
            "the round was voided: seat 1 (p1) stopped (its disk is full); earlier rounds stand",
        ]
        assert not any("withh" in text for text in said)
    finally:
        await peer.close()


@pytest.mark.asyncio
async def test_a_fault_word_is_never_printed_and_an_unknown_one_reads_generic(
    tmp_path: Path,
) -> None:
    """A modified seat's word: escape sequences, capitals or a long text are refused as a
    malformed ``bye``; a well-formed word this version does not know reads as a fault on its
    own computer. The word itself never reaches a screen."""
    ids = identities()
    roster = make_roster()
    peer = _peer(tmp_path, 0)
    peer.start()
    try:
        for bad in ("\x1b[2Jdisk-full", "DISK-FULL", "x" * 40, "disk full", 7, ""):
            before = peer.replica.stats["rejected"]
            peer._on_frame(1, _fault_bye(ids[1], 1, {"fault": bad}, roster.table))
            assert peer.replica.stats["rejected"] == before + 1, bad
            assert peer.replica.stopped(1) is None and peer.info.seats[1].connected
        assert _texts(peer) == []
        peer._on_frame(1, _fault_bye(ids[1], 1, {"fault": "quantum-flux"}, roster.table))
        said = _texts(peer)
        assert len(said) == 1 and "a fault on its own computer" in said[0], said
        assert "quantum" not in said[0]
        assert peer.replica.stopped(1) == LOCAL
    finally:
        await peer.close()


# --- forged notices ------------------------------------------------------------------------------


def test_a_forged_notice_about_another_seat_is_ignored() -> None:
    """Seat 2 (modified) tries to make the table drop seat 1 at once: with its own key in seat
    1's name (bad signature), with seat 1's genuine old notice played back on its link, with a
    notice of its own that names seat 1, and unsigned. None moves anything about seat 1."""
    mesh = Mesh(3, 7, timing=FAST, rounds=1, per_round=4, motions=("hold",))
    victim, forger, judge = 1, 2, 0
    r = mesh.nodes[judge].replica
    for _ in range(10):
        mesh.step()
    assert r.live.connected[victim]
    forged = [
        (_fault_bye(identity(forger), victim, {"fault": DISK_FULL}), forger),  # wrong key
        (_fault_bye(identity(forger), forger, {"fault": DISK_FULL, "seat": victim}), forger),
        (_fault_bye(identity(victim), victim, {"fault": DISK_FULL})[:-64] + bytes(64), forger),
    ]
    for frame, via in forged:
        events = r.receive(frame, mesh.now, via=via)
        assert events and all(type(e) is Rejected for e in events), events
        assert all(e.sender != victim for e in events)  # refused, and never charged to seat 1
    genuine = _fault_bye(identity(victim), victim, {"fault": DISK_FULL})
    assert r.receive(genuine, mesh.now, via=forger) == []  # played back on seat 2's link
    assert r.stats["replayed_control"] == 1
    assert r.stopped(victim) is None and r.live.connected[victim]
    assert r.motion_wait("hold", victim, mesh.now) == float("inf")  # still connected here
    # the same genuine notice on the victim's own link is its word: taken at once
    assert PeerState(victim, False, left=True, fault=DISK_FULL) in r.receive(
        genuine, mesh.now, via=victim
    )


# --- the table goes on at once ------------------------------------------------------------------


def test_a_private_table_voids_at_once_after_a_fault_notice_not_after_the_stall() -> None:
    """Void table (the private deal's motions): a seat that says it stopped is voided as soon
    as a player types void; every other replica joins at once. Without the notice the same
    move is refused until the stall timeout (5 s here)."""
    timing = replace(FAST, hold_after=1.0)
    mesh = Mesh(4, 21, timing=timing, rounds=2, per_round=6, voidable=True, motions=("void",))
    victim = 1
    mesh.asleep = {victim}
    mesh.wait_on(victim)
    for _ in range(4):
        mesh.step()
    refused = mesh.nodes[0].replica.move("void", victim, mesh.now)
    assert [type(e) for e in refused] == [Rejected] and "withholds its part" in refused[0].reason
    # the victim's disk fills: its shell stops the replica and sends the notice
    mesh.nodes[victim].up = False
    mesh.handle(mesh.nodes[victim], mesh.nodes[victim].replica.bye(DISK_FULL))
    start = mesh.now
    mesh.step(0.01)
    mesh.handle(mesh.nodes[0], mesh.nodes[0].replica.move("void", victim, mesh.now))
    for _ in range(20):
        mesh.step(0.05)
    for seat in (0, 2, 3):
        node = mesh.nodes[seat]
        voided = [m for m in node.motions if m.outcome == "voided" and m.seat == victim]
        assert voided, f"seat {seat}: {node.motions}"
        assert not node.cheats
    assert mesh.now - start < timing.stall / 2  # not the 5 s stall


@pytest.mark.parametrize("seed", [0, 3])
def test_a_seat_that_says_it_stopped_but_plays_on_only_hurts_itself(seed: int) -> None:
    """A modified seat sends ``{"fault": "disk-full"}`` and keeps playing (and says it again
    now and then) over a lossy link; the others hold it at once at its turn. The cut rule
    decides each hold, the replicas agree on one transcript, the match ends and nobody is
    named for anything."""
    mesh = Mesh(3, seed, timing=FAST, rounds=2, per_round=6, motions=("hold",), drop=0.1)
    liar = 1
    for _ in range(5):
        mesh.step()
    mesh.handle(mesh.nodes[liar], mesh.nodes[liar].replica.bye(DISK_FULL))
    steps = 0
    while not mesh.done() and mesh.now < 60:
        mesh.step()
        steps += 1
        for s in (0, 2):  # the shells' rule (TablePeer's seat holding)
            mesh.handle(mesh.nodes[s], mesh.nodes[s].replica.hold_silent(mesh.now))
        if steps % 40 == 0:
            mesh.handle(mesh.nodes[liar], mesh.nodes[liar].replica.bye(DISK_FULL))
    assert mesh.done()
    assert len({n.replica.transcript_head() for n in mesh.nodes.values()}) == 1
    assert not any(n.cheats for n in mesh.nodes.values())
    assert any(m.seat == liar for m in mesh.nodes[0].motions)  # it was moved about at once


def test_a_seat_that_stopped_on_a_fault_is_still_named_for_its_cheat() -> None:
    """The notice changes no verdict: seat 1 says its disk is full, then its two signed
    messages for one seq come in; the replica names seat 1 (equivocation) all the same."""
    mesh = Mesh(3, 11, timing=FAST, rounds=1, per_round=4, motions=("hold",))
    cheat = 1
    mesh.asleep = {cheat}
    mesh.wait_on(cheat)
    judge = mesh.nodes[0].replica
    author = mesh.nodes[cheat].replica
    judge.receive(author.bye(DISK_FULL)[0].frame, mesh.now, via=cheat)
    assert judge.stopped(cheat) == DISK_FULL
    frames = [
        seal(
            author.identity,
            table=TABLE,
            seat=cheat,
            seq=author.next_seq(),
            prev=author.ledger.last_digest(cheat),
            state=author.game.public_hash(),
            type="action",
            body=bot_action(author.game, cheat, bump),
        )
        for bump in (0, 1)
    ]
    events = judge.receive(frames[0], mesh.now, via=cheat) + judge.receive(
        frames[1], mesh.now, via=cheat
    )
    cheats = [e for e in events if isinstance(e, Cheat)]
    assert cheats and cheats[0].culprit == cheat and "equivocation" in cheats[0].reason


# --- real peers, a real loop: the disk fills mid-match ----------------------------------------


class _Hub:
    """An in-memory link between TablePeers in one loop: what each hands to the wire reaches
    the other's ``_on_frame`` on the next pass of the loop, in order."""

    def __init__(self) -> None:
        self.meshes: dict[int, _HubMesh] = {}


class _HubMesh:
    def __init__(self, hub: _Hub, seat: int) -> None:
        self.hub, self.seat = hub, seat
        self.handler: Any = None
        self.sent: list[tuple[int, bytes]] = []
        hub.meshes[seat] = self

    def connect_peer(self, *_a: Any) -> None:
        pass

    def set_handler(self, handler: Any) -> None:
        self.handler = handler

    def _deliver(self, to: int, frame: bytes) -> None:
        dst = self.hub.meshes.get(to)
        if dst is not None and dst.handler is not None:
            dst.handler(self.seat, frame)

    def send_now(self, seat: int, frame: bytes) -> bool:
        self.sent.append((seat, frame))
        asyncio.get_running_loop().call_soon(self._deliver, seat, frame)
        return True

    async def send(self, seat: int, frame: bytes, timeout: float | None = None) -> None:
        self.send_now(seat, frame)

    def __aiter__(self) -> _HubMesh:
        return self

    async def __anext__(self) -> tuple[int, bytes]:
        await asyncio.Event().wait()
        raise StopAsyncIteration


@pytest.mark.asyncio
async def test_a_full_disk_mid_match_is_told_at_once_and_a_bot_holds_the_seat(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Three real seats (bots), default timeouts. Bob's journal hits ENOSPC mid-round: bob
    stops with its sentence; alice and carol read "seat 1 (bob) stopped: its disk is full"
    long before the 3.5 s after which silence alone would say "dropped", a bot holds bob's
    seat long before the 10 s hold timeout, and the match ends with equal records."""
    rules = build_rules(3, [], {})
    ids = [Identity.from_seed(hashlib.sha256(b"local-fault-%d" % s).digest()) for s in range(3)]
    names = ("alice", "bob", "carol")
    seats = [
        Seat(s, ids[s].public_key, ids[s].curve_public, f"tcp://127.0.0.1:{9700 + s}", names[s])
        for s in range(3)
    ]
    roster = Roster("t-local-fault", "fault", 1, rules.config, seats)
    hub = _Hub()
    peers = [
        TablePeer(
            ids[s],
            roster,
            s,
            _HubMesh(hub, s),  # type: ignore[arg-type]
            TableStore(tmp_path / f"seat{s}"),
            decider=make_decider("normal", ids[s].public_key),
            linger=0.5,
            bot_chat=False,
        )
        for s in range(3)
    ]
    timing = peers[0].timing
    bob_dir = str(tmp_path / "seat1")
    writes = [0]
    real = store_mod.write_all

    def bobs_disk(fd: int, data: bytes) -> None:
        path = os.readlink(f"/proc/self/fd/{fd}")
        if path.startswith(bob_dir) and path.endswith("journal.jsonl"):
            writes[0] += 1
            if writes[0] >= 5:  # a few of bob's own messages went out: then the disk is full
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        real(fd, data)

    monkeypatch.setattr(store_mod, "write_all", bobs_disk)
    told: dict[int, list[tuple[float, str]]] = {0: [], 1: [], 2: []}

    async def listen(seat: int) -> None:
        while True:
            n = await peers[seat].notices.get()
            told[seat].append((time.monotonic(), n.text))

    listeners = [asyncio.create_task(listen(s)) for s in range(3)]
    runs = [asyncio.create_task(p.run()) for p in peers]
    try:
        await asyncio.wait_for(peers[1].stopped.wait(), 30)
        stopped_at = time.monotonic()
        assert peers[1].fault is not None and "the disk is full" in peers[1].fault
        await asyncio.wait_for(asyncio.gather(runs[0], runs[2]), 40)
    finally:
        for task in runs + listeners:
            task.cancel()
        for p in peers:
            await p.close()
        monkeypatch.undo()
    for seat in (0, 2):
        texts = [text for _, text in told[seat]]
        notice = [at for at, text in told[seat] if "seat 1 (bob) stopped: its disk is full" in text]
        assert notice, texts
        assert notice[0] - stopped_at < timing.peer_timeout, "told only after the silence"
        held = [at for at, text in told[seat] if "holds the seat" in text and "bob" in text]
        assert held, texts
        assert held[0] - stopped_at < timing.hold_after, "held only after the hold timeout"
        for text in texts:
            assert "withhold" not in text and "cheated" not in text and "dropped" not in text
    assert peers[0].game.finished() and peers[2].game.finished()
    assert peers[0].replica.transcript_head() == peers[2].replica.transcript_head()
    byes = _byes(hub.meshes[1].sent, roster)
    assert byes == [{"fault": DISK_FULL}] * 2


# --- real processes: a record refused on resume, told over the real mesh ---------------------


@pytest.mark.slow
@pytest.mark.timeout(120)
def test_zsy_join_refused_on_a_damaged_journal_tells_the_table_over_the_network(
    tmp_path: Path,
) -> None:
    """``zsy host`` and two ``zsy join`` on loopback. p2 is killed mid-match and its journal
    damaged; ``zsy join`` (resume) refuses it in one sentence, and the host and p1 read at
    once that p2 stopped on a damaged record (a link opened only for that signed ``bye``)."""
    sys.path.insert(0, str(Path(__file__).parent.parent / "table"))
    from table_support import Cluster

    c = Cluster(tmp_path)
    c.extra_env["ZSY_HOLD_AFTER"] = "60"  # nobody holds p2 for silence alone meanwhile
    try:
        host, url = c.host(3, 3, rules=("--open-deal",))
        p1 = c.join("p1", url)
        p2 = c.join("p2", url)
        deadline = time.monotonic() + 40
        while "(p2):" not in host.text():  # p2 has played
            assert time.monotonic() < deadline and p2.alive(), c.tails()
            time.sleep(0.05)
        p2.kill()
        tables = c.data_dir("p2") / "profiles" / "p2" / "tables"
        journal = next(tables.iterdir()) / "journal.jsonl"
        lines = journal.read_bytes().split(b"\n")
        lines[1] = b'{"key": "frame/2", "data": "zz"}'  # a complete line that is no record
        journal.write_bytes(b"\n".join(lines))
        back = c.join("p2")
        assert back.wait(30) == 1, back.tail()
        assert "does not match this seat" in back.text(), back.tail()
        for other in (host, p1):
            deadline = time.monotonic() + 10
            while "(p2) stopped: its saved record of this table is damaged" not in other.text():
                assert time.monotonic() < deadline, other.tail()
                time.sleep(0.05)
            assert "cheated" not in other.text() and "withhold" not in other.text()
    finally:
        c.close()
