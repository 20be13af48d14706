"""What a peer keeps on disk: its identity, and per table its roster, journal and transcript.

Layout under the data directory (XDG: ``~/.local/share/zsy-lan`` unless
``--data-dir`` or ``ZSY_DATA_DIR`` says otherwise)::

    zsy.log                             the log (0600)
    profiles/NAME/identity.pem          the Ed25519 identity (0600)
    profiles/NAME/lock                  held while a zsy process uses the profile
    profiles/NAME/tables/TABLE/roster.json
    profiles/NAME/tables/TABLE/journal.jsonl     Persist records, written before any send
    profiles/NAME/tables/TABLE/transcript.jsonl  the game record (zsy replay reads it)
    profiles/NAME/tables/TABLE/evidence.jsonl    proof frames of a cheat, if the table halted
    profiles/NAME/tables/TABLE/done              written when the match finished

Every folder is 0700 and every file 0600, existing ones included (they are
fixed when opened): the journal holds the secrets of the private deal, and
another local user must not rebuild a seat's hand from it.

A crash loses nothing: a journal record is written (secrets also fsynced)
before the frames that depend on it are sent, and the transcript grows line
by line. Any failure to read or write these files is a :class:`StorageError`:
a *local* fault, said in one sentence that names the file and what to do,
never another seat's cheat.
"""

from __future__ import annotations

import base64
import contextlib
import errno
import json
import os
import stat
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import IO, Any

from zsy_lan.text.i18n import _

try:
    import fcntl
except ImportError:  # Windows: the profile lock is msvcrt's byte-range lock instead
    fcntl = None  # type: ignore[assignment]
    import msvcrt
from zsy_lan.protocol.envelope import FrameError, open_frame
from zsy_lan.protocol.identity import Identity
from zsy_lan.protocol.local_fault import (
    DISK_ERROR,
    DISK_FULL,
    READ_ONLY,
    RECORD_DAMAGED,
    TOO_MANY_FILES,
)
from zsy_lan.protocol.transcript import evidence_line, load_entry, load_header

APP = "zsy-lan"
DIR_MODE = 0o700
FILE_MODE = 0o600
DONE_KEY = "done"  # the journal record that marks the match finished (see TableStore.mark_done)


class ProfileBusy(RuntimeError):
    """Another zsy process uses this profile (two players cannot share one identity)."""


class StorageError(RuntimeError):
    """A file of this seat could not be read or written, or does not match the seat.

    A local fault: the seat stops with this one sentence (it names the file and
    what to do), and the table sees a dropped seat, never a cheat. ``kind`` is
    the class the seat tells the others in its ``bye`` (one short word of
    :mod:`zsy_lan.protocol.local_fault`: the sentence itself stays here).
    """

    def __init__(self, message: str, path: Path | None = None, kind: str = DISK_ERROR) -> None:
        super().__init__(message)
        self.path = path
        self.kind = kind


def storage_error(path: Path, exc: OSError, resume: bool = True) -> StorageError:
    """The one sentence for an OS error on ``path``: what went wrong and what to do."""
    where = str(path)
    again = _("run `zsy join` again to resume") if resume else _("try again")
    code = exc.errno
    if code in (errno.ENOSPC, errno.EDQUOT):
        text = _("cannot write {file}: the disk is full; free some space on {dir} and {again}.")
        return StorageError(text.format(file=where, dir=path.parent, again=again), path, DISK_FULL)
    if code in (errno.EMFILE, errno.ENFILE):
        text = _(
            "cannot open {file}: too many open files; close some programs or raise the "
            "limit (ulimit -n) and {again}."
        )
        return StorageError(text.format(file=where, again=again), path, TOO_MANY_FILES)
    if code in (errno.EROFS, errno.EACCES, errno.EPERM):
        text = _(
            "cannot write {file}: {why}; make {dir} writable (or choose another folder "
            "with --data-dir) and {again}."
        )
        why = exc.strerror or str(exc)
        said = text.format(file=where, why=why, dir=path.parent, again=again)
        return StorageError(said, path, READ_ONLY)
    text = _("cannot use {file}: {why}; check the disk and {again}.")
    return StorageError(text.format(file=where, why=exc.strerror or str(exc), again=again), path)


def damaged(path: Path, why: str) -> StorageError:
    """A record on disk that does not match this seat: refused, left untouched."""
    text = _(
        "the saved record {file} does not match this seat ({why}); it was left untouched, "
        "because resuming from it could make this seat contradict what it already signed. "
        "Put the original file back, or move the folder {dir} aside to leave that table "
        "(the other seats carry on without you)."
    )
    return StorageError(text.format(file=path, why=why, dir=path.parent), path, RECORD_DAMAGED)


#: Windows only: the locked byte of a profile's lock file, far past the pid written at
#: its start, which a second process reads to say who holds the profile
_WIN_LOCK_AT = 1 << 20


def _lock_nb(f: IO[str]) -> None:
    """Lock a profile's lock file without waiting; ``OSError`` while another process holds it.

    ``fcntl.flock`` on Linux and macOS; on Windows (no ``fcntl``, so this module
    still imports there) ``msvcrt.locking`` of one byte (tests/test_store_portable.py
    runs that path with a stand-in ``msvcrt``).
    """
    if fcntl is not None:
        fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
    else:
        os.lseek(f.fileno(), _WIN_LOCK_AT, os.SEEK_SET)
        msvcrt.locking(f.fileno(), msvcrt.LK_NBLCK, 1)


def _unlock(f: IO[str]) -> None:
    """Release :func:`_lock_nb`'s lock."""
    if fcntl is not None:
        fcntl.flock(f, fcntl.LOCK_UN)
    else:
        os.lseek(f.fileno(), _WIN_LOCK_AT, os.SEEK_SET)
        msvcrt.locking(f.fileno(), msvcrt.LK_UNLCK, 1)


def write_all(fd: int, data: bytes) -> None:
    """Write all of ``data`` to ``fd``: the one place a record reaches the disk.

    A failure part-way leaves a torn last line, which :meth:`TableStore.repair`
    cuts off on resume (tests make this raise to simulate a full disk).
    """
    view = memoryview(data)
    while view:
        n = os.write(fd, view)
        view = view[n:]


def private_dir(path: Path, *, fix: bool = True) -> Path:
    """Create ``path`` (with parents) as 0700; an existing folder of ours is made 0700 too.

    ``fix=False`` leaves an existing folder's mode alone (a shared or sticky
    folder such as /tmp given as ``--data-dir`` is never changed either).
    """
    try:
        path.mkdir(parents=True, exist_ok=True, mode=DIR_MODE)
        st = path.stat()
        geteuid = getattr(os, "geteuid", None)  # (not on Windows: no owner to compare)
        shared = st.st_mode & stat.S_ISVTX or (geteuid is not None and st.st_uid != geteuid())
        if fix and not shared and stat.S_IMODE(st.st_mode) != DIR_MODE:
            os.chmod(path, DIR_MODE)
    except OSError as exc:
        raise storage_error(path, exc, resume=False) from None
    return path


def open_private(path: Path, flags: int) -> int:
    """``os.open`` with mode 0600, and an existing file made 0600 too."""
    fd = os.open(path, flags | getattr(os, "O_CLOEXEC", 0), FILE_MODE)
    try:
        if stat.S_IMODE(os.fstat(fd).st_mode) != FILE_MODE:
            if hasattr(os, "fchmod"):
                os.fchmod(fd, FILE_MODE)
            else:  # Windows before Python 3.13
                os.chmod(path, FILE_MODE)
    except OSError:
        os.close(fd)
        raise
    return fd


def write_private(path: Path, data: bytes) -> None:
    """Replace ``path`` atomically with ``data`` (mode 0600, fsynced)."""
    tmp = path.with_name(path.name + ".tmp")
    try:
        fd = open_private(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
        try:
            write_all(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except OSError as exc:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise storage_error(path, exc) from None


def save_identity(identity: Identity, path: Path) -> None:
    """Write an identity's key file: PEM, mode 0600, atomically (never half a key).

    The key file lives here, not in the protocol (which does no file I/O).
    Raises ``OSError``: the caller says which file and what to do.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    fd = open_private(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
    try:
        write_all(fd, identity.to_pem())
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(tmp, path)


def load_identity(path: Path) -> Identity:
    """Read a key file written by :func:`save_identity` (``OSError``/``ValueError`` if bad)."""
    return Identity.from_pem(path.read_bytes(), str(path))


def load_or_create_identity(path: Path) -> Identity:
    """The identity in ``path``, created (and saved) on first run."""
    if path.exists():
        return load_identity(path)
    identity = Identity.generate()
    save_identity(identity, path)
    return identity


def data_dir(explicit: str | os.PathLike[str] | None = None) -> Path:
    """The data directory: ``explicit``, ``$ZSY_DATA_DIR``, or the XDG user data dir."""
    if explicit:
        return Path(explicit)
    env = os.environ.get("ZSY_DATA_DIR")
    if env:
        return Path(env)
    from platformdirs import user_data_dir

    return Path(user_data_dir(APP, appauthor=False))


class Profile:
    """One player identity on this machine, locked while in use."""

    def __init__(self, root: Path, name: str = "default") -> None:
        if not name or "/" in name or name.startswith("."):
            raise ValueError(f"bad profile name {name!r}: use letters, digits, - or _")
        self.name = name
        self.root = root
        self.dir = root / "profiles" / name
        self._lock: IO[str] | None = None

    def acquire(self) -> Identity:
        """Lock the profile and load (or create) its identity.

        The folders are made (or fixed to) 0700 on the way. ``StorageError``
        when the data directory cannot be used.
        """
        private_dir(self.root)
        private_dir(self.root / "profiles")
        private_dir(self.dir)
        if (self.dir / "tables").is_dir():
            private_dir(self.dir / "tables")
        path = self.dir / "lock"
        try:
            lock = os.fdopen(open_private(path, os.O_RDWR | os.O_CREAT), "r+")
        except OSError as exc:
            raise storage_error(path, exc, resume=False) from None
        try:
            _lock_nb(lock)
        except OSError:
            lock.seek(0)
            holder = lock.read().strip() or "?"
            lock.close()
            raise ProfileBusy(
                f"profile '{self.name}' is in use by another zsy process (pid {holder}); "
                "a second player on this machine needs its own: add --profile NAME"
            ) from None
        try:
            lock.seek(0)
            lock.truncate()
            lock.write(str(os.getpid()))
            lock.flush()
        except OSError as exc:
            lock.close()
            raise storage_error(path, exc, resume=False) from None
        self._lock = lock
        key = self.dir / "identity.pem"
        try:
            identity = load_or_create_identity(key)
            os.chmod(key, FILE_MODE)
        except OSError as exc:
            self.release()
            raise storage_error(key, exc, resume=False) from None
        return identity

    def release(self) -> None:
        """Unlock (also happens when the process exits)."""
        if self._lock is not None:
            with contextlib.suppress(OSError):
                _unlock(self._lock)
            self._lock.close()
            self._lock = None

    def table(self, table_id: str) -> TableStore:
        """The store of one table of this profile."""
        return TableStore(self.dir / "tables" / table_id)

    def unfinished_tables(self) -> list[TableStore]:
        """Tables this profile sat at that did not finish: candidates to resume."""
        root = self.dir / "tables"
        if not root.is_dir():
            return []
        out = [TableStore(p) for p in sorted(root.iterdir()) if p.is_dir()]
        return [t for t in out if t.roster_path.exists() and not t.done]


def evidence_path(transcript: Path) -> Path:
    """Where the proof frames of a cheat go: ``evidence.jsonl`` beside ``transcript.jsonl``.

    A record with another name (``seat-2.jsonl``) gets ``seat-2.evidence.jsonl``.
    """
    if transcript.name == "transcript.jsonl":
        return transcript.with_name("evidence.jsonl")
    return transcript.with_name(transcript.stem + ".evidence.jsonl")


def read_lines(path: Path) -> list[str]:
    """The complete lines of a file we append to (a torn last line, with no newline, is left out).

    ``StorageError`` when it cannot be read or is not UTF-8 text.
    """
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return []
    except OSError as exc:
        raise storage_error(path, exc) from None
    parts = raw.split(b"\n")
    parts.pop()  # after the last newline: empty, or a torn line
    out = []
    for n, part in enumerate(parts, start=1):
        try:
            out.append(part.decode("utf-8"))
        except UnicodeDecodeError:
            raise damaged(path, _("line {n} is not text").format(n=n)) from None
    return out


class TableStore:
    """Files of one table for one seat.

    Every write goes straight to the OS (no buffer in this process), so what
    ``persist`` returned from is in the file even if the process is killed
    the next instant; any OS error becomes a :class:`StorageError`.
    """

    def __init__(self, path: Path, transcript: Path | None = None) -> None:
        self.path = path
        self.roster_path = path / "roster.json"
        self.journal_path = path / "journal.jsonl"
        self.transcript_path = transcript or path / "transcript.jsonl"
        self.evidence_path = evidence_path(self.transcript_path)
        self._journal: int | None = None
        self._transcript: int | None = None
        self._unsynced = False
        self._urgent = False

    # --- opening -------------------------------------------------------------

    def _dir(self) -> None:
        private_dir(self.path)
        if self.transcript_path.parent != self.path:
            # a record kept elsewhere (``zsy demo``'s folder): created private, an
            # existing folder the user chose is left as it is
            private_dir(self.transcript_path.parent, fix=False)

    def _open_append(self, path: Path) -> int:
        """Open ``path`` to append, 0600, after cutting off a torn last line."""
        self._dir()
        try:
            self._cut_torn(path)
            return open_private(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND)
        except OSError as exc:
            raise storage_error(path, exc) from None

    @staticmethod
    def _cut_torn(path: Path) -> bool:
        """Truncate ``path`` after its last newline when a write was cut short; True if it was."""
        try:
            size = path.stat().st_size
        except FileNotFoundError:
            return False
        if size == 0:
            return False
        with open(path, "rb+") as f:
            f.seek(size - 1)
            if f.read(1) == b"\n":
                return False
            # walk back to the last newline, in blocks (the torn tail is short)
            end = size
            keep = 0
            while end > 0:
                start = max(0, end - 65536)
                f.seek(start)
                block = f.read(end - start)
                i = block.rfind(b"\n")
                if i >= 0:
                    keep = start + i + 1
                    break
                end = start
            f.truncate(keep)
            os.fsync(f.fileno())
        return True

    def repair(self) -> list[Path]:
        """Cut a torn last line (a write the disk or a crash cut short) off journal and transcript.

        Only the unfinished line goes: it was never sent (a frame is sent after
        its record is complete) and the table still has every transcript
        line. Returns the files that were repaired.
        """
        fixed = []
        for path in (self.journal_path, self.transcript_path):
            try:
                if self._cut_torn(path):
                    fixed.append(path)
            except OSError as exc:
                raise storage_error(path, exc) from None
        return fixed

    # --- done marker -----------------------------------------------------------

    @property
    def done(self) -> bool:
        """True once the match finished here (the ``done`` file, or its journal record)."""
        if (self.path / "done").exists():
            return True
        try:
            return any(key == DONE_KEY for key, _data in self.journal())
        except StorageError:
            return False

    def mark_done(self) -> None:
        """Record that the match finished, even when no file can be opened any more.

        The journal is normally open already (this seat signed frames), so the
        marker goes there first, through that descriptor: running out of file
        descriptors (EMFILE) cannot skip it. The ``done`` file is written too
        when it can be.
        """
        marked = False
        if self._journal is not None:
            self.persist(DONE_KEY, b"", sync=True)
            marked = True
        try:
            write_private(self.path / "done", b"finished\n")
        except StorageError:
            if not marked:
                self.persist(DONE_KEY, b"", sync=True)  # opens the journal: may raise

    # --- roster ------------------------------------------------------------------

    def save_roster(self, roster: dict[str, Any], seat: int) -> None:
        """Write the roster and our seat atomically (resume needs both)."""
        self._dir()
        write_private(
            self.roster_path, json.dumps({"seat": seat, "roster": roster}, sort_keys=True).encode()
        )

    def load_roster(self) -> tuple[dict[str, Any], int]:
        """The saved roster and our seat; ``StorageError`` when missing or damaged."""
        try:
            data = json.loads(self.roster_path.read_bytes().decode("utf-8"))
            return data["roster"], int(data["seat"])
        except OSError as exc:
            raise storage_error(self.roster_path, exc) from None
        except (ValueError, KeyError, TypeError):
            raise damaged(self.roster_path, _("it is not a saved roster")) from None

    # --- journal -------------------------------------------------------------------

    def journal(self) -> Iterator[tuple[str, bytes]]:
        """The Persist records written so far (a torn last line is skipped).

        A damaged complete line is refused (``StorageError``): skipping it could
        lose a secret this seat committed to.
        """
        for n, line in enumerate(read_lines(self.journal_path), start=1):
            if not line.strip():
                continue
            try:
                rec = json.loads(line)
                yield str(rec["key"]), bytes.fromhex(rec["data"])
            except (ValueError, KeyError, TypeError):
                raise damaged(
                    self.journal_path, _("line {n} is not a journal record").format(n=n)
                ) from None

    def persist(self, key: str, data: bytes, *, sync: bool = True, urgent: bool = True) -> None:
        """Append one record, in the OS before this returns (a killed process loses nothing).

        ``sync=False`` defers the fsync to the next :meth:`sync`. ``urgent``
        records (secrets) must be on disk before the next send
        (:attr:`urgent_pending`); the others (our own signed frames, which every
        peer also holds and relays) are fsynced in the background within a tick,
        so a play is not delayed by a disk flush (~4 ms here). Only a power
        loss in that window could lose them. ``StorageError`` if the write fails:
        the caller must then send nothing that depends on it.
        """
        if self._journal is None:
            self._journal = self._open_append(self.journal_path)
        line = json.dumps({"key": key, "data": data.hex()}) + "\n"
        try:
            write_all(self._journal, line.encode())
        except OSError as exc:
            raise storage_error(self.journal_path, exc) from None
        self._unsynced = True
        self._urgent = self._urgent or urgent
        if sync:
            self.sync()

    @property
    def unsynced(self) -> bool:
        """True while some journal record is not fsynced yet."""
        return self._unsynced

    @property
    def urgent_pending(self) -> bool:
        """True while a record that must be durable before the next send is not."""
        return self._urgent

    def sync(self) -> None:
        """Make every journal record written so far durable (no-op when they are)."""
        if not self._unsynced:
            return
        self._urgent = False
        self._unsynced = False
        fd = self._journal
        if fd is not None:
            try:
                os.fsync(fd)
            except OSError as exc:
                if self._journal != fd:
                    return  # closed meanwhile (the ticker syncs in a thread): close() synced it
                self._unsynced = self._urgent = True
                raise storage_error(self.journal_path, exc) from None

    # --- transcript ------------------------------------------------------------------

    def transcript_lines(self) -> list[str]:
        """The transcript's complete lines (a torn last line is left out)."""
        return read_lines(self.transcript_path)

    def append_transcript(self, line: str, header: str | None = None) -> None:
        """Append one transcript line (writing the header first on a new file).

        Written to the OS at once (a crashed or killed process loses nothing) but
        fsynced only at :meth:`close`: an fsync per line cost several ms on every
        replica for every message (docs/performance.md, "LAN table"). After a
        power cut a resumed peer re-fetches a lost tail from the others.
        """
        if self._transcript is None:
            fd = self._open_append(self.transcript_path)
            self._transcript = fd
            try:
                if os.fstat(fd).st_size == 0 and header is not None:
                    write_all(fd, (header + "\n").encode())
            except OSError as exc:
                raise storage_error(self.transcript_path, exc) from None
        try:
            write_all(self._transcript, (line + "\n").encode())
        except OSError as exc:
            raise storage_error(self.transcript_path, exc) from None

    def rewrite_transcript(self, keep: int) -> None:
        """Cut the transcript back to its header and first ``keep`` lines (atomically)."""
        self.close()
        lines = self.transcript_lines()
        if lines:
            kept = "".join(line + "\n" for line in lines[: 1 + keep])
            write_private(self.transcript_path, kept.encode())

    # --- checks before a resume -------------------------------------------------------

    def check_resume(self, table: str, roster: Mapping[int, bytes], seat: int) -> None:
        """Refuse (``StorageError``) a record that does not match this seat, before using it.

        The transcript must be this table's (header: table id and roster), every
        complete line must parse, and every message of this seat in it must be
        in the journal, byte for byte: a seat without them would sign a
        different message for a seq it already used (equivocation), or draw
        fresh deal secrets. Every frame in the journal must be this seat's own.
        Nothing is changed on disk.
        """
        lines = self.transcript_lines()
        if lines and not lines[0].strip():
            raise damaged(self.transcript_path, _("its first line is empty"))
        if lines:
            try:
                t_table, t_roster = load_header(lines[0])
            except ValueError:
                raise damaged(self.transcript_path, _("its header is damaged")) from None
            if t_table != table or t_roster != dict(roster):
                raise damaged(
                    self.transcript_path,
                    _("its header names another table or other players"),
                )
        mine: dict[bytes, int] = {}
        for n, line in enumerate(lines[1:], start=2):
            if not line.strip():
                continue
            try:
                who, frame, _aside = load_entry(line)
            except ValueError:
                raise damaged(
                    self.transcript_path, _("line {n} is not a transcript line").format(n=n)
                ) from None
            if who == seat:
                mine.setdefault(frame, n)
        journaled = set()
        for key, data in self.journal():
            if not key.startswith("frame/"):
                continue
            try:
                env = open_frame(data, roster, table)
            except FrameError:
                env = None
            if env is None or env.seat != seat:
                raise damaged(self.journal_path, _("it holds a message this seat did not sign"))
            journaled.add(data)
        missing = [n for frame, n in mine.items() if frame not in journaled]
        if missing:
            why = _(
                "the transcript holds this seat's message at line {n} but the journal "
                "{journal} does not"
            ).format(n=missing[0], journal=self.journal_path)
            raise damaged(self.journal_path, why)

    # --- evidence --------------------------------------------------------------------

    def save_evidence(self, culprit: int, reason: str, frames: tuple[bytes, ...]) -> bool:
        """Keep the proof of a cheat beside the transcript: each frame's exact signed bytes.

        One JSON line per frame (``culprit``, ``reason``, ``frame`` in base64),
        fsynced; a frame already kept for the same reason is not written twice.
        Returns True when something new was written.
        """
        have = set()
        for line in read_lines(self.evidence_path):
            with contextlib.suppress(ValueError, KeyError, TypeError):
                rec = json.loads(line)
                have.add((rec["reason"], rec["frame"]))
        out = []
        for frame in frames:
            b64 = base64.b64encode(frame).decode("ascii")
            if (reason, b64) in have:
                continue
            have.add((reason, b64))
            out.append(evidence_line(culprit, reason, frame) + "\n")
        if not out:
            return False
        fd = self._open_append(self.evidence_path)
        try:
            write_all(fd, "".join(out).encode())
            os.fsync(fd)
        except OSError as exc:
            raise storage_error(self.evidence_path, exc) from None
        finally:
            os.close(fd)
        return True

    # --- closing -----------------------------------------------------------------------

    def close(self) -> None:
        """Sync and close the files; the first error is raised after every file is closed."""
        error: StorageError | None = None
        try:
            self.sync()
        except StorageError as exc:
            error = exc
        for fd in (self._journal, self._transcript):
            if fd is not None:
                with contextlib.suppress(OSError):
                    os.fsync(fd)
                with contextlib.suppress(OSError):
                    os.close(fd)
        self._journal = self._transcript = None
        self._unsynced = self._urgent = False
        if error is not None:
            raise error


def quietly(fn: Callable[[], None]) -> None:
    """Run ``fn`` and drop a :class:`StorageError` (cleanup after the seat already stopped)."""
    with contextlib.suppress(StorageError):
        fn()
