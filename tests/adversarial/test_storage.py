"""Local damage is a local error, never an accusation (issue #12; docs/protocol.md, "On disk").

A seat's own files (journal, transcript, log, data folder) can fail or be
damaged: a full disk, a read-only folder, too many open files, a deleted
journal, an edited header, random bytes. Each of these stops *that* seat with
one sentence naming the file and what to do; the others see a dropped seat,
never a cheat; nothing is sent that the journal does not hold; a torn last
line is cut off on resume; a record that does not match the seat is refused
and left untouched.

The table here is one real :class:`TablePeer` (seat 0, its files on disk)
and two bare replicas, wired in memory: no socket, fully deterministic. Disk
faults are simulated by making ``zsy_lan.record.store.write_all`` (the one place a
record reaches the disk) or ``open`` raise the OS error.
"""

from __future__ import annotations

import asyncio
import builtins
import errno
import hashlib
import io
import json
import logging
import os
import stat
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from mesh_support import RecordingMesh, deliver

import zsy_lan.record.store as store_mod
from zsy_lan.cli import cli
from zsy_lan.engine.game import Game
from zsy_lan.engine.ruleset import build_rules
from zsy_lan.protocol import Cheat, Identity, Replica, Send, seal
from zsy_lan.protocol.envelope import open_frame
from zsy_lan.protocol.lobby import Roster, Seat
from zsy_lan.record.store import Profile, StorageError, TableStore, save_identity
from zsy_lan.runtime import QuietFileHandler, setup_logging
from zsy_lan.table.peer import TablePeer

pytestmark = [pytest.mark.timeout(60)]

SEATS = (0, 1, 2)


def identities() -> list[Identity]:
    return [Identity.from_seed(hashlib.sha256(b"storage-%d" % s).digest()) for s in SEATS]


def make_roster(table: str = "t-storage") -> Roster:
    rules = build_rules(3, [], {})
    ids = identities()
    seats = [
        Seat(s, ids[s].public_key, ids[s].curve_public, f"tcp://127.0.0.1:{9100 + s}", f"p{s}")
        for s in SEATS
    ]
    return Roster(table, "storage", 2, rules.config, seats)


class Table:
    """Seat 0 as a real TablePeer with files under ``path``; seats 1 and 2 bare replicas."""

    def __init__(self, path: Path, others: list[Replica] | None = None) -> None:
        self.roster = make_roster()
        self.rules = build_rules(3, [], {})
        ids = identities()
        self.mesh = RecordingMesh()
        self.store = TableStore(path)
        self.peer = TablePeer(ids[0], self.roster, 0, self.mesh, self.store)  # type: ignore[arg-type]
        counter = [0]

        def entropy(n: int) -> bytes:
            counter[0] += 1
            return hashlib.sha256(b"storage-e%d" % counter[0]).digest()[:n]

        self.others = others or [
            Replica(
                self.roster.table,
                s,
                ids[s],
                self.roster.keys,
                Game(self.rules, 2),
                entropy=entropy,
                relay=False,
            )
            for s in SEATS[1:]
        ]
        self.cheats: list[Cheat] = []

    def start(self, resume: bool = False) -> None:
        self.peer.start(resume=resume)

    def _route(self, src: int, events: list[Any], out: list[tuple[int, int | None, bytes]]) -> None:
        for e in events:
            if isinstance(e, Send):
                out.append((src, e.to, e.frame))
            self._note(src, e)

    def _note(self, _seat: int, e: Any) -> None:
        if isinstance(e, Cheat):
            self.cheats.append(e)

    def pump(self, rounds: int = 40) -> None:
        """Deliver every frame until the table is quiet (bounded)."""
        queue: list[tuple[int, int | None, bytes]] = []
        for r in self.others:
            self._route(r.seat, r.tick(0.0), queue)
        deliver(self.mesh, self.peer, self.others, queue, 0.0, rounds, on_event=self._note)

    def play(self, moves: int) -> int:
        """Play up to ``moves`` actions (whoever is to act); returns how many were made."""
        made = 0
        for _ in range(moves):
            self.pump()
            if self.peer.fault is not None or self.peer.game.finished():
                break
            if self.peer.replica.can_act():
                self.peer._act(self.peer.game.legal(0)[-1].to_json())
            else:
                author = next((r for r in self.others if r.can_act()), None)
                if author is None:
                    break
                action = author.game.legal(author.seat)[-1].to_json()
                queue: list[tuple[int, int | None, bytes]] = []
                self._route(author.seat, author.act(action, 0.0), queue)
                for src, to, frame in queue:
                    for t in [s for s in SEATS if s != src] if to is None else [to]:
                        if t == 0:
                            self.peer._on_frame(src, frame)
                        else:
                            self._route(t, self.others[t - 1].receive(frame, 0.0), [])
            made += 1
        self.pump()
        return made

    async def close(self) -> None:
        await self.peer.close()


def journal_frames(path: Path) -> set[bytes]:
    return {d for k, d in TableStore(path).journal() if k.startswith("frame/")}


def twin_of(table: Table, frame: bytes) -> bytes:
    """Another message signed by ``frame``'s author for the same seq: equivocation (another
    commitment of the same round, or the other of play and pass)."""
    env = open_frame(frame, table.roster.keys, table.roster.table)
    body = dict(env.body)
    if env.type == "commit":
        body["commit"] = ("0" if body["commit"][0] != "0" else "1") + body["commit"][1:]
    else:
        body["seat"] = body.get("seat", env.seat)
        body["kind"] = "pass" if body.get("kind") != "pass" else "play"
    return seal(
        identities()[env.seat],
        table=env.table,
        seat=env.seat,
        seq=env.seq,
        prev=env.prev,
        state=env.state,
        type=env.type,
        body=body,
    )


def own_twin(table: Table, folder: Path) -> bytes:
    """The twin of the first frame seat 0's journal holds: what the table holds against
    seat 0 when its own record lost that frame."""
    return twin_of(table, sorted(journal_frames(folder))[0])


def own_sent(table: Table) -> set[bytes]:
    """Frames of seat 0's own feed that went on the wire (controls, relays excluded)."""
    out = set()
    for _, frame in table.mesh.sent:
        env = open_frame(frame, table.roster.keys, table.roster.table)
        if env.seat == 0 and env.is_feed:
            out.add(frame)
    return out


def errors(peer: TablePeer) -> list[str]:
    out = []
    while not peer.notices.empty():
        n = peer.notices.get_nowait()
        if n.kind == "error":
            out.append(n.text)
    return out


# --- full disk ----------------------------------------------------------------------


@pytest.mark.asyncio
async def test_full_disk_stops_the_seat_before_it_sends_what_the_journal_lacks(
    tmp_path, monkeypatch
):
    """ENOSPC from the N-th journal write: the seat stops with one sentence, and every own
    frame that reached the wire is in the journal (today: sent to seq 47, journal at 29)."""
    t = Table(tmp_path / "seat0")
    t.start()
    try:
        t.play(6)
        assert t.peer.fault is None
        writes = [0]
        real = store_mod.write_all

        def failing(fd: int, data: bytes) -> None:
            path = os.readlink(f"/proc/self/fd/{fd}")
            if path.endswith("journal.jsonl"):
                writes[0] += 1
                if writes[0] >= 2:
                    os.write(fd, data[: len(data) // 2])  # a torn line, as a full disk leaves it
                    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
            real(fd, data)

        monkeypatch.setattr(store_mod, "write_all", failing)
        t.play(40)
        assert t.peer.fault is not None, "the seat went on after its journal failed"
        said = errors(t.peer)
        assert len(said) == 1, said
        assert str(t.store.journal_path) in said[0]
        assert "free some space" in said[0] and "zsy join" in said[0]
        sent_after = len(t.mesh.sent)
        t.play(5)
        assert len(t.mesh.sent) == sent_after, "a stopped seat sent more frames"
        assert not t.cheats, "a local disk fault was reported as a cheat"
    finally:
        await t.close()
    monkeypatch.undo()
    # every own frame that left is in the journal (the torn line is not)
    journal = journal_frames(tmp_path / "seat0")
    assert own_sent(t) <= journal
    # space is back: resume repairs the torn tail and accepts the record
    raw = (tmp_path / "seat0" / "journal.jsonl").read_bytes()
    assert not raw.endswith(b"\n")
    again = Table(tmp_path / "seat0", others=t.others)
    again.start(resume=True)
    try:
        assert (tmp_path / "seat0" / "journal.jsonl").read_bytes().endswith(b"\n")
        assert again.peer.fault is None
        again.play(30)
        assert again.peer.fault is None
        assert not again.cheats and again.peer.replica.halted is None
        assert again.peer.replica.transcript_head() == t.others[0].transcript_head()
    finally:
        await again.close()


@pytest.mark.asyncio
async def test_a_failed_fsync_stops_the_seat_too(tmp_path, monkeypatch):
    """A secret's fsync fails (EIO): the seat stops before sending anything after it."""
    t = Table(tmp_path / "seat0")
    t.start()
    try:
        t.play(2)

        def bad_fsync(fd: int) -> None:
            raise OSError(errno.EIO, os.strerror(errno.EIO))

        monkeypatch.setattr(store_mod.os, "fsync", bad_fsync)
        t.store.persist("secret/99", b"x" * 32, sync=False, urgent=True)
        before = len(t.mesh.sent)
        t.play(10)
        monkeypatch.undo()
        assert t.peer.fault is not None and "journal.jsonl" in t.peer.fault
        assert len(t.mesh.sent) == before
    finally:
        await t.close()


# --- a record that does not match the seat ------------------------------------------------


async def _played(tmp_path: Path, moves: int = 12) -> Table:
    t = Table(tmp_path / "seat0")
    t.start()
    t.play(moves)
    await t.close()
    assert t.peer.fault is None and len(journal_frames(tmp_path / "seat0")) >= 2
    return t


@pytest.mark.asyncio
async def test_an_altered_header_is_refused_not_resumed_and_never_overwritten(tmp_path):
    """Today: resumed with 0 messages, re-signed seq 1, every peer halted on 'equivocation'."""
    await _played(tmp_path)
    path = tmp_path / "seat0" / "transcript.jsonl"
    lines = path.read_text().splitlines()
    lines[0] = lines[0].replace("t-storage", "t-other")
    path.write_text("\n".join(lines) + "\n")
    before = path.read_bytes()
    again = Table(tmp_path / "seat0")
    with pytest.raises(StorageError) as err:
        again.start(resume=True)
    assert str(path) in str(err.value) and "does not match this seat" in str(err.value)
    assert "move the folder" in str(err.value)
    assert path.read_bytes() == before
    assert again.mesh.sent == []  # nothing signed, nothing sent


@pytest.mark.asyncio
async def test_a_deleted_journal_is_refused_instead_of_fresh_secrets(tmp_path):
    """Today: fresh secrets, its own replica halted it as a cheater, the table waited forever."""
    await _played(tmp_path)
    (tmp_path / "seat0" / "journal.jsonl").unlink()
    again = Table(tmp_path / "seat0")
    with pytest.raises(StorageError) as err:
        again.start(resume=True)
    assert "journal.jsonl" in str(err.value) and "does not" in str(err.value)
    assert again.mesh.sent == []


@pytest.mark.asyncio
async def test_a_transcript_of_random_bytes_is_one_clear_error(tmp_path):
    """Today: a UnicodeDecodeError traceback."""
    await _played(tmp_path)
    path = tmp_path / "seat0" / "transcript.jsonl"
    path.write_bytes(bytes(range(256)) * 4 + b"\n\xff\xfe\n")
    again = Table(tmp_path / "seat0")
    with pytest.raises(StorageError) as err:
        again.start(resume=True)
    assert str(path) in str(err.value) and "not text" in str(err.value)
    # and `zsy replay` says what it is, no traceback
    res = CliRunner().invoke(cli, ["replay", str(path)])
    assert res.exit_code == 1
    assert "not UTF-8 text" in res.output and "Traceback" not in res.output


@pytest.mark.asyncio
async def test_a_journal_of_another_identity_is_refused(tmp_path):
    await _played(tmp_path)
    other = tmp_path / "other"
    t2 = Table(other)
    t2.peer.seat = 0
    journal = tmp_path / "seat0" / "journal.jsonl"
    # a record signed by seat 1 dropped into seat 0's journal
    frame = t2.others[0].act({"kind": "pass", "seat": 1}, 0.0)
    signed = [e.frame for e in frame if isinstance(e, Send)]
    if not signed:  # seat 1 cannot act now: sign a feed frame by hand
        signed = [
            seal(
                identities()[1],
                table="t-storage",
                seat=1,
                seq=1,
                prev="",
                state="",
                type="action",
                body={"kind": "pass"},
            )
        ]
    with journal.open("a") as f:
        f.write(json.dumps({"key": "frame/99", "data": signed[0].hex()}) + "\n")
    again = Table(tmp_path / "seat0")
    with pytest.raises(StorageError) as err:
        again.start(resume=True)
    assert "did not sign" in str(err.value)


@pytest.mark.asyncio
async def test_a_torn_transcript_tail_is_repaired_on_resume(tmp_path):
    """A crash mid-line: the unfinished line goes, the rest resumes and the table goes on."""
    t = await _played(tmp_path)
    path = tmp_path / "seat0" / "transcript.jsonl"
    full = path.read_bytes()
    path.write_bytes(full + b'{"frame":"QUJD')  # half a line, no newline
    again = Table(tmp_path / "seat0", others=t.others)
    again.start(resume=True)
    try:
        assert path.read_bytes().startswith(full)
        again.play(10)
        assert again.peer.fault is None and not again.cheats
        lines = path.read_text().splitlines()
        assert all(line.startswith("{") and line.endswith("}") for line in lines)
        assert again.peer.replica.transcript_head() == t.others[0].transcript_head()
    finally:
        await again.close()


@pytest.mark.asyncio
async def test_a_cheat_proven_against_this_seat_is_a_local_fault(tmp_path):
    """The table relays a frame this seat signed that its record lost: stop, blame nobody."""
    t = Table(tmp_path / "seat0")
    t.start()
    try:
        t.play(6)
        twin = own_twin(t, tmp_path / "seat0")
        before = len(t.mesh.sent)
        t.peer._on_frame(1, twin)
        assert t.peer.fault is not None
        said = errors(t.peer)
        assert said and "cheated" not in said[-1] and "journal.jsonl" in said[-1]
        assert len(t.mesh.sent) == before  # no evidence broadcast against itself
        assert not (tmp_path / "seat0" / "evidence.jsonl").exists()
    finally:
        await t.close()


# --- permissions ------------------------------------------------------------------


@pytest.mark.asyncio
async def test_data_folder_0700_and_files_0600_existing_ones_fixed(tmp_path):
    """Today 0644 files in 0755 folders: another local user rebuilt a seat's live hand."""
    root = tmp_path / "data"
    table_dir = root / "profiles" / "p" / "tables" / "t1"
    table_dir.mkdir(parents=True, mode=0o755)
    for d in (root, root / "profiles", root / "profiles" / "p", table_dir.parent, table_dir):
        os.chmod(d, 0o755)
    for name in ("journal.jsonl", "transcript.jsonl", "roster.json"):
        (table_dir / name).write_text("")
        os.chmod(table_dir / name, 0o644)
    setup_logging(root)
    prof = Profile(root, "p")
    prof.acquire()
    try:
        st = prof.table("t1")
        st.save_roster({"x": 1}, 0)
        st.persist("secret/1", b"s" * 32)
        st.append_transcript("{}", header="{}")
        st.save_evidence(1, "why", (b"frame",))
        st.mark_done()
        st.close()
        for d in (root, root / "profiles", root / "profiles" / "p", table_dir.parent, table_dir):
            assert stat.S_IMODE(d.stat().st_mode) == 0o700, d
        for f in [*table_dir.iterdir(), root / "zsy.log", prof.dir / "identity.pem"]:
            if f.is_file():
                assert stat.S_IMODE(f.stat().st_mode) == 0o600, f
    finally:
        prof.release()
        for h in [h for h in logging.getLogger().handlers if isinstance(h, QuietFileHandler)]:
            logging.getLogger().removeHandler(h)
            h.close()


def test_a_shared_data_folder_keeps_its_mode(tmp_path):
    """--data-dir /tmp must never chmod /tmp: sticky folders are left alone."""
    shared = tmp_path / "shared"
    shared.mkdir()
    os.chmod(shared, 0o1777)
    store_mod.private_dir(shared)
    assert stat.S_IMODE(shared.stat().st_mode) == 0o1777


# --- read-only data folder, logging ------------------------------------------------------


def test_read_only_data_dir_is_one_sentence_not_a_traceback(tmp_path, monkeypatch):
    """Today: a traceback from the logging set-up. (chmod cannot stop root: open is patched.)"""
    root = tmp_path / "ro"
    root.mkdir()
    real_open = os.open

    def ro_open(path: Any, flags: int, *args: Any, **kwargs: Any) -> int:
        if str(path).startswith(str(root)) and flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT):
            raise OSError(errno.EROFS, os.strerror(errno.EROFS), str(path))
        return real_open(path, flags, *args, **kwargs)

    real_builtin_open = builtins.open

    def ro_builtin_open(file: Any, mode: str = "r", *args: Any, **kwargs: Any) -> Any:
        if str(file).startswith(str(root)) and any(c in mode for c in "wax+"):
            raise OSError(errno.EROFS, os.strerror(errno.EROFS), str(file))
        return real_builtin_open(file, mode, *args, **kwargs)

    monkeypatch.setattr(os, "open", ro_open)
    monkeypatch.setattr(builtins, "open", ro_builtin_open)
    monkeypatch.setattr(io, "open", ro_builtin_open)
    try:
        res = CliRunner().invoke(
            cli,
            ["join", "tcp://127.0.0.1:1#" + "A" * 43, "--data-dir", str(root), "--interface", "lo"],
        )
    finally:
        monkeypatch.undo()
        for h in [h for h in logging.getLogger().handlers if isinstance(h, QuietFileHandler)]:
            logging.getLogger().removeHandler(h)
            h.close()
    assert res.exit_code == 1, res.output
    assert res.exception is None or isinstance(res.exception, SystemExit), res.exception
    assert "Traceback" not in res.output
    assert "zsy.log" in res.output and "writable" in res.output
    assert len([ln for ln in res.output.splitlines() if ln.strip()]) == 1


def test_a_full_disk_is_one_log_line_not_seventy(tmp_path):
    """Today: 70+ '--- Logging error ---' blocks. Now: said once, then quiet."""
    err = io.StringIO()
    handler = QuietFileHandler(tmp_path / "zsy.log", stream=err)
    log = logging.getLogger("zsy.test-storage")
    log.addHandler(handler)
    log.propagate = False
    try:

        class Full(io.StringIO):
            def write(self, s: str) -> int:
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

        handler.stream = Full()
        for i in range(70):
            log.warning("record %d", i)
        text = err.getvalue()
        assert text.count("\n") == 1 and "zsy.log" in text and "No space" in text
        assert "Traceback" not in text and "Logging error" not in text
        assert handler.failed == 70
    finally:
        log.removeHandler(handler)
        handler.close()
        log.propagate = True


# --- too many open files ------------------------------------------------------------------


def test_emfile_does_not_skip_the_end_of_match_marker(tmp_path, monkeypatch):
    """Out of file descriptors when the match ends: the seat is still marked finished
    (not offered for resume forever)."""
    root = tmp_path / "data"
    prof = Profile(root, "p")
    st = prof.table("t1")
    st.save_roster({"x": 1}, 0)
    st.persist("frame/1", b"f")  # a seat that played has its journal open

    def no_fd(*args: Any, **kwargs: Any) -> Any:
        raise OSError(errno.EMFILE, os.strerror(errno.EMFILE))

    with monkeypatch.context() as m:
        m.setattr(os, "open", no_fd)
        m.setattr(builtins, "open", no_fd)
        m.setattr(io, "open", no_fd)
        st.mark_done()
    st.close()
    assert TableStore(st.path).done
    assert prof.unfinished_tables() == []


def test_emfile_message_says_what_to_do(tmp_path, monkeypatch):
    st = TableStore(tmp_path / "t")

    def no_fd(*args: Any, **kwargs: Any) -> Any:
        raise OSError(errno.EMFILE, os.strerror(errno.EMFILE))

    with monkeypatch.context() as m:
        m.setattr(os, "open", no_fd)
        with pytest.raises(StorageError) as err:
            st.persist("frame/1", b"f")
    assert "too many open files" in str(err.value) and "ulimit -n" in str(err.value)
    assert "journal.jsonl" in str(err.value)


@pytest.mark.asyncio
async def test_a_deal_secret_that_cannot_be_written_is_a_disk_fault_not_a_game_bug(
    tmp_path, monkeypatch
):
    """Private deal: the secret is journaled from inside the game, whose caller takes any
    error there for a bug ("report this bug"). The seat says the disk is full instead."""
    from dataclasses import replace

    from zsy_lan.protocol.events import Fault

    roster = replace(make_roster(), deal="private")
    store = TableStore(tmp_path / "seat0")
    peer = TablePeer(identities()[0], roster, 0, RecordingMesh(), store)  # type: ignore[arg-type]
    assert {k for k, _ in store.journal()} == {"deal/1", "deal/2"}  # drawn ahead, journaled

    def full(fd: int, data: bytes) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(store_mod, "write_all", full)
    with pytest.raises(StorageError):
        peer.game.secrets.secret_for(3)  # what the game does after a deal's audit
    # the ledger reports it as a game bug; the shell knows it was the disk
    peer._handle([Fault("local fault, not a cheat: the game code failed ...", "tb")])
    assert peer.fault is not None and "the disk is full" in peer.fault
    assert "journal.jsonl" in peer.fault
    assert peer.info.stopped is not None and "bug" not in peer.info.stopped
    assert peer.stopped.is_set()
    await peer.close()


# --- a real table: a seat's disk fills up mid-match ------------------------------------


@pytest.mark.slow
@pytest.mark.timeout(120)
def test_a_full_disk_at_a_real_table_is_a_dropped_seat_and_resumes(tmp_path):
    """Real processes on loopback; seat p2's data folder is a tiny tmpfs this test mounts.

    When it fills, p2 stops with one sentence (no traceback, no logging-error
    flood) having sent nothing its journal lacks; nobody is called a cheater.
    Space comes back (remount), ``zsy join`` repairs the torn tail, resumes and
    the match finishes with every record verified and equal.
    """
    import shutil
    import subprocess
    import time

    if os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip("needs root to mount a small tmpfs")
    sys_path = str(Path(__file__).parent.parent / "table")
    import sys

    if sys_path not in sys.path:
        sys.path.insert(0, sys_path)
    from table_support import Cluster, check_records

    c = Cluster(tmp_path)
    mnt = c.data_dir("p2")
    mnt.mkdir(parents=True)
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=64k,mode=0700", "tmpfs", str(mnt)],
        capture_output=True,
        timeout=10,
    )
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr!r}")
    try:
        host, url = c.host(3, 2, rules=("--open-deal",))
        p1 = c.join("p1", url)
        p2 = c.join("p2", url)
        assert p2.wait(90) != 0, c.tails()  # stopped by the full disk
        out = p2.text()
        assert "the disk is full" in out and "zsy join" in out, p2.tail()
        assert "Traceback" not in out and "Logging error" not in out, p2.tail()
        assert out.count("the disk is full") <= 2, p2.tail()  # the sentence, and Bye (...)
        for other in (host, p1):  # told at once by p2's signed bye (issue #25), no "withholding"
            deadline = time.monotonic() + 10
            while "stopped: its disk is full" not in other.text():
                assert time.monotonic() < deadline, other.tail()
                time.sleep(0.1)
            assert "withhold" not in other.text(), other.tail()
        # nothing it sent is missing from its journal: compare with what the host recorded
        table_dir = next((mnt / "profiles" / "p2" / "tables").iterdir())
        seat = json.loads((table_dir / "roster.json").read_text())["seat"]
        journal = {
            bytes.fromhex(json.loads(line)["data"])
            for line in (table_dir / "journal.jsonl").read_bytes().split(b"\n")
            if line.endswith(b"}")
        }
        host_record = next(c.data_dir("host").rglob("transcript.jsonl"))
        from zsy_lan.protocol.transcript import load_entry

        host_lines = host_record.read_text().splitlines()[1:]
        sent = [f for s, f, _a in map(load_entry, host_lines) if s == seat]
        assert sent and all(f in journal for f in sent)
        # space comes back: the same seat resumes and the match finishes
        subprocess.run(
            ["mount", "-o", "remount,size=16m", str(mnt)], check=True, capture_output=True
        )
        back = c.join("p2")
        codes = c.wait_all([host, p1, back], timeout=90)
        assert all(code == 0 for code in codes.values()), f"{codes}\n{c.tails()}"
        assert "resuming table" in back.text(), back.tail()
        for proc in (host, p1, back):
            assert "cheated" not in proc.text(), proc.tail()
        check_records(c.transcripts(), 3)
    finally:
        c.close()
        for _ in range(20):
            if subprocess.run(["umount", str(mnt)], capture_output=True).returncode == 0:
                break
            time.sleep(0.1)
        else:
            subprocess.run(["umount", "-l", str(mnt)], capture_output=True)


@pytest.mark.asyncio
async def test_zsy_join_refuses_a_mismatched_record_in_one_sentence(tmp_path):
    """The whole command: `zsy join` (resume) on an edited record exits 1 with the sentence."""
    import socket

    root = tmp_path / "data"
    prof_dir = root / "profiles" / "p"
    table_dir = prof_dir / "tables" / "t-storage"
    t = Table(table_dir)
    t.start()
    t.play(10)
    await t.close()
    save_identity(identities()[0], prof_dir / "identity.pem")
    with socket.socket() as s:  # a free loopback port for the resumed seat's socket
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    saved = json.loads((table_dir / "roster.json").read_text())
    saved["roster"]["seats"][0]["endpoint"] = f"tcp://127.0.0.1:{port}"
    (table_dir / "roster.json").write_text(json.dumps(saved))
    path = table_dir / "transcript.jsonl"
    lines = path.read_text().splitlines()
    path.write_text("\n".join([lines[0].replace("t-storage", "t-edited"), *lines[1:]]) + "\n")
    before = path.read_bytes()
    args = ["join", "--data-dir", str(root), "--profile", "p", "--plain", "--bot", "easy"]
    res = await asyncio.to_thread(CliRunner().invoke, cli, args)
    for h in [h for h in logging.getLogger().handlers if isinstance(h, QuietFileHandler)]:
        logging.getLogger().removeHandler(h)
        h.close()
    assert res.exit_code == 1, res.output
    assert "does not match this seat" in res.output and "Traceback" not in res.output
    assert path.read_bytes() == before


@pytest.mark.asyncio
async def test_a_damaged_journal_line_is_refused_not_skipped(tmp_path):
    """Skipping a damaged record could lose a secret this seat committed to: refuse it,
    naming the file and the line (only a torn last line is cut off)."""
    await _played(tmp_path)
    path = tmp_path / "seat0" / "journal.jsonl"
    lines = path.read_bytes().split(b"\n")
    lines[1] = b'{"key": "frame/2", "data": "zz'  # a complete line that is not a record
    path.write_bytes(b"\n".join(lines))
    again = Table(tmp_path / "seat0")
    with pytest.raises(StorageError) as err:
        again.start(resume=True)
    assert str(path) in str(err.value) and "line 2" in str(err.value)
    assert again.mesh.sent == []


@pytest.mark.asyncio
async def test_zsy_replay_of_a_record_cut_short_is_not_called_tampered(tmp_path):
    """A seat that never resumed keeps a torn last line: replay leaves it out and says so."""
    from zsy_lan.record.replay import replay_file

    await _played(tmp_path)
    path = tmp_path / "seat0" / "transcript.jsonl"
    path.write_bytes(path.read_bytes() + b'{"frame":"QUJD')
    report = replay_file(path)
    assert report.ok and report.torn
    res = CliRunner().invoke(cli, ["replay", "--verify", str(path)])
    assert res.exit_code == 0 and "OK:" in res.output and "cut short" in res.output
    # a damaged line that is not the last is still found
    lines = path.read_bytes().split(b"\n")
    lines[2] = b'{"frame":"QUJD'
    path.write_bytes(b"\n".join(lines) + b"\n")
    assert not replay_file(path).ok


# --- a journal that lost messages the transcript does not hold yet -----------------


def _news(table: Table, now: float) -> None:
    """The other seats' heartbeats (their summaries) reach seat 0, as after a restart."""
    for r in table.others:
        for e in r.tick(now):
            if isinstance(e, Send) and e.to in (None, 0):
                table.peer._on_frame(r.seat, e.frame)
    table.pump()


def _own_feed_sent(table: Table) -> list[bytes]:
    """Seat 0's feed frames handed to the wire, in order."""
    out = []
    for _, frame in table.mesh.sent:
        env = open_frame(frame, table.roster.keys, table.roster.table)
        if env.seat == 0 and env.is_feed:
            out.append(frame)
    return out


@pytest.mark.asyncio
async def test_a_deleted_journal_the_transcript_does_not_show_stops_before_signing(tmp_path):
    """Before: restored with fresh secrets, it signed seq 1 again: the table proved an
    equivocation against an honest seat that only lost its disk. Now it waits for the
    table's news of its own feed, then stops with one local sentence and signs nothing."""
    t = await _played(tmp_path)
    seat0 = tmp_path / "seat0"
    path = seat0 / "transcript.jsonl"
    lines = path.read_text().splitlines()
    from zsy_lan.protocol.transcript import load_entry

    first_own = next(n for n, line in enumerate(lines[1:], 1) if load_entry(line)[0] == 0)
    path.write_text("\n".join(lines[:first_own]) + "\n")  # none of seat 0's messages
    (seat0 / "journal.jsonl").unlink()
    again = Table(seat0, others=t.others)
    again.start(resume=True)  # check_resume has nothing to refuse: no own line on disk
    try:
        again.pump()
        assert _own_feed_sent(again) == []  # nothing signed before the table's news
        assert again.peer.fault is None
        _news(again, 100.0)
        assert again.peer.fault is not None
        said = errors(again.peer)
        assert len(said) == 1 and "journal.jsonl" in said[0], said
        assert "cannot resume safely" in said[0] and "cheat" not in said[0]
        assert _own_feed_sent(again) == []  # and nothing after it either
        assert again.cheats == []  # no seat proved an equivocation against seat 0
    finally:
        await again.close()


@pytest.mark.asyncio
async def test_a_journal_that_lost_its_tail_stops_before_signing(tmp_path):
    """The last own message was in the OS but not on disk (a power cut): same stop."""
    t = await _played(tmp_path)
    seat0 = tmp_path / "seat0"
    journal = seat0 / "journal.jsonl"
    records = journal.read_text().splitlines()
    last = max(n for n, r in enumerate(records) if json.loads(r)["key"].startswith("frame/"))
    lost = bytes.fromhex(json.loads(records[last])["data"])
    journal.write_text("\n".join(records[:last] + records[last + 1 :]) + "\n")
    path = seat0 / "transcript.jsonl"
    from zsy_lan.protocol.transcript import load_entry

    lines = path.read_text().splitlines()
    cut = next((n for n, line in enumerate(lines[1:], 1) if load_entry(line)[1] == lost), None)
    if cut is not None:
        path.write_text("\n".join(lines[:cut]) + "\n")
    again = Table(seat0, others=t.others)
    again.start(resume=True)
    try:
        _news(again, 100.0)
        assert again.peer.fault is not None and "cannot resume safely" in again.peer.fault
        assert all(f in journal_frames(seat0) for f in _own_feed_sent(again))  # nothing new
        assert again.cheats == []
    finally:
        await again.close()


@pytest.mark.asyncio
async def test_an_intact_record_resumes_and_a_fresh_seat_is_not_delayed(tmp_path):
    """The wait costs an honest resume nothing but the news; a first start signs at once."""
    fresh = Table(tmp_path / "fresh")
    fresh.start()
    try:
        fresh.peer._handle(fresh.peer.replica.progress(fresh.peer._now()))  # no news at all
        assert _own_feed_sent(fresh), "a fresh seat commits before any peer's news"
    finally:
        await fresh.close()
    t = await _played(tmp_path)
    again = Table(tmp_path / "seat0", others=t.others)
    again.start(resume=True)
    try:
        before = len(_own_feed_sent(again))
        _news(again, 100.0)
        assert again.play(6) > 0
        assert again.peer.fault is None and again.cheats == []
        assert len(_own_feed_sent(again)) > before
    finally:
        await again.close()
