"""Process-wide settings for a process that sits at a table.

A peer runs its event loop (frames in and out, the replica) next to worker
threads (bots thinking, fsyncs, the plain-terminal reader). CPython hands the
GIL over only every ``sys.getswitchinterval()`` seconds (5 ms by default), so
a bot thinking in a worker could keep the loop from a frame for up to 5 ms:
measured with ``bench/bench_table.py --pace 0``, the p99 of a play reaching
every replica fell from 61 ms to 23 ms with a 0.5 ms interval (4 peers).

It also sets up the log (:func:`setup_logging`): a file in the data
directory, 0600, whose handler reports a disk fault once, not per record.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sys
from pathlib import Path
from typing import TextIO

__all__ = ["SWITCH_INTERVAL", "QuietFileHandler", "setup_logging", "tune_for_table"]

SWITCH_INTERVAL = 0.0005  # seconds


def tune_for_table() -> None:
    """Hand the GIL over often enough that a thinking bot never delays the loop for long."""
    if sys.getswitchinterval() > SWITCH_INTERVAL:
        sys.setswitchinterval(SWITCH_INTERVAL)


class QuietFileHandler(logging.FileHandler):
    """A log file (0600) that, when the disk fails, says so once instead of once per record.

    The stock handler prints a "--- Logging error ---" block with a traceback
    for every record it cannot write: a full disk made 70 of them. This one
    prints one sentence naming the file the first time, then drops records
    quietly while the fault lasts (it keeps trying, so the log goes on once
    there is space again).
    """

    def __init__(self, path: Path, *, stream: TextIO | None = None) -> None:
        from zsy_lan.record.store import open_private

        os.close(open_private(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND))  # 0600 first
        super().__init__(str(path), encoding="utf-8")
        self.path = path
        self.failed = 0  # records lost so far
        self._err = stream

    def handleError(self, record: logging.LogRecord) -> None:  # noqa: N802 - logging's name
        """Say once that the log cannot be written; count the records lost after that."""
        self.failed += 1
        if self.failed > 1:
            return
        exc = sys.exc_info()[1]
        why = getattr(exc, "strerror", None) or str(exc) or type(exc).__name__
        from zsy_lan.text.i18n import _

        text = _("zsy: cannot write the log {file} ({why}); the log is off until that is fixed.")
        stream = self._err or sys.stderr
        with contextlib.suppress(Exception):
            stream.write(text.format(file=self.path, why=why) + "\n")
            stream.flush()


def setup_logging(root: Path, *, level: int = logging.INFO) -> Path:
    """Log to ``root/zsy.log`` (0600) through a :class:`QuietFileHandler`; returns the path.

    ``StorageError`` (one sentence: which file, what to do) when the log file
    cannot be created, e.g. a read-only data directory: no traceback.
    """
    from zsy_lan.record.store import private_dir, storage_error

    private_dir(root)
    path = root / "zsy.log"
    try:
        handler = QuietFileHandler(path)
    except OSError as exc:
        raise storage_error(path, exc, resume=False) from None
    handler.setFormatter(
        logging.Formatter("%(asctime)s %(process)d %(name)s %(levelname)s %(message)s")
    )
    top = logging.getLogger()
    for old in [h for h in top.handlers if isinstance(h, QuietFileHandler)]:
        top.removeHandler(old)
        old.close()
    top.addHandler(handler)
    top.setLevel(level)
    return path
