"""What a peer keeps on disk: its identity, and per table its roster, journal and transcript.

Layout under the data directory (XDG: ``~/.local/share/zsy-lan`` unless
``--data-dir`` or ``ZSY_DATA_DIR`` says otherwise)::

    profiles/NAME/identity.pem          the Ed25519 identity (0600)
    profiles/NAME/lock                  held while a zsy process uses the profile
    profiles/NAME/tables/TABLE/roster.json
    profiles/NAME/tables/TABLE/journal.jsonl     Persist records, fsynced before any send
    profiles/NAME/tables/TABLE/transcript.jsonl  the game record (zsy replay reads it)
    profiles/NAME/tables/TABLE/done              written when the match finished

A crash loses nothing: the journal is written (and fsynced) before the
frames that depend on it are sent, and the transcript grows line by line.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from .protocol.identity import Identity

APP = "zsy-lan"


class ProfileBusy(RuntimeError):
    """Another zsy process uses this profile (two players cannot share one identity)."""


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
        self.dir = root / "profiles" / name
        self._lock: IO[str] | None = None

    def acquire(self) -> Identity:
        """Lock the profile and load (or create) its identity."""
        self.dir.mkdir(parents=True, exist_ok=True)
        lock = open(self.dir / "lock", "a+")  # noqa: SIM115 - held for the process lifetime
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            lock.seek(0)
            holder = lock.read().strip() or "?"
            lock.close()
            raise ProfileBusy(
                f"profile '{self.name}' is in use by another zsy process (pid {holder}); "
                "a second player on this machine needs its own: add --profile NAME"
            ) from None
        lock.seek(0)
        lock.truncate()
        lock.write(str(os.getpid()))
        lock.flush()
        self._lock = lock
        return Identity.load_or_create(self.dir / "identity.pem")

    def release(self) -> None:
        """Unlock (also happens when the process exits)."""
        if self._lock is not None:
            with contextlib.suppress(OSError):
                fcntl.flock(self._lock, fcntl.LOCK_UN)
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


class TableStore:
    """Files of one table for one seat."""

    def __init__(self, path: Path, transcript: Path | None = None) -> None:
        self.path = path
        self.roster_path = path / "roster.json"
        self.journal_path = path / "journal.jsonl"
        self.transcript_path = transcript or path / "transcript.jsonl"
        self._journal: IO[str] | None = None
        self._transcript: IO[str] | None = None
        self._unsynced = False
        self._urgent = False

    @property
    def done(self) -> bool:
        """True once the match finished here."""
        return (self.path / "done").exists()

    def mark_done(self) -> None:
        (self.path / "done").write_text("finished\n")

    def save_roster(self, roster: dict[str, Any], seat: int) -> None:
        """Write the roster and our seat atomically (resume needs both)."""
        self.path.mkdir(parents=True, exist_ok=True)
        tmp = self.roster_path.with_suffix(".tmp")
        tmp.write_text(json.dumps({"seat": seat, "roster": roster}, sort_keys=True))
        os.replace(tmp, self.roster_path)

    def load_roster(self) -> tuple[dict[str, Any], int]:
        data = json.loads(self.roster_path.read_text())
        return data["roster"], int(data["seat"])

    def journal(self) -> Iterator[tuple[str, bytes]]:
        """The Persist records written so far (a torn last line is skipped)."""
        if not self.journal_path.exists():
            return
        for line in self.journal_path.read_text().splitlines():
            try:
                rec = json.loads(line)
                yield rec["key"], bytes.fromhex(rec["data"])
            except (ValueError, KeyError):
                continue

    def persist(self, key: str, data: bytes, *, sync: bool = True, urgent: bool = True) -> None:
        """Append one record (written to the OS at once: a killed process loses nothing).

        ``sync=False`` defers the fsync to the next :meth:`sync`. ``urgent``
        records (secrets) must be on disk before the next send
        (:attr:`urgent_pending`); the others (our own signed frames, which every
        peer also holds and relays) are fsynced in the background within a tick,
        so a play is not delayed by a disk flush (~4 ms here). Only a power
        loss in that window could lose them.
        """
        if self._journal is None:
            self.path.mkdir(parents=True, exist_ok=True)
            self._journal = open(self.journal_path, "a")  # noqa: SIM115
        self._journal.write(json.dumps({"key": key, "data": data.hex()}) + "\n")
        self._journal.flush()
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
        if self._journal is not None:
            os.fsync(self._journal.fileno())

    def transcript_lines(self) -> list[str]:
        if not self.transcript_path.exists():
            return []
        return self.transcript_path.read_text().splitlines()

    def append_transcript(self, line: str, header: str | None = None) -> None:
        """Append one transcript line (writing the header first on a new file).

        Flushed to the OS at once (a crashed or killed process loses nothing) but
        fsynced only at :meth:`close`: an fsync per line cost several ms on every
        replica for every message (docs/performance.md, "LAN table"). After a
        power cut a resumed peer re-fetches a lost tail from the others.
        """
        if self._transcript is None:
            self.path.mkdir(parents=True, exist_ok=True)
            fresh = not self.transcript_path.exists() or self.transcript_path.stat().st_size == 0
            self._transcript = open(self.transcript_path, "a")  # noqa: SIM115
            if fresh and header is not None:
                self._transcript.write(header + "\n")
        self._transcript.write(line + "\n")
        self._transcript.flush()

    def close(self) -> None:
        self.sync()
        for f in (self._journal, self._transcript):
            if f is not None:
                with contextlib.suppress(OSError):
                    os.fsync(f.fileno())
                f.close()
        self._journal = self._transcript = None
