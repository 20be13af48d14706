"""One real ``zsy`` process driven by a test: :class:`ZsyProcess`, and :func:`kill_group`.

Why one helper: each file that drove a process used to carry its own copy of the
same loop (a pipe made non-blocking, read in a busy loop with a fixed sleep, then
killed), and each copy waited a little differently. tests/usability (its
``zsy_process`` fixture) and the table clock's process test use it; tests/table's
``Cluster`` starts many at once the same way and kills them with :func:`kill_group`.
The process runs in its own session (process group) with its output
in a file under the test's temporary folder, read with a deadline until the text
that is waited for is there; :meth:`ZsyProcess.kill` (the ``zsy_process`` fixture
calls it) SIGKILLs the group, so a failing test leaves nothing behind.

Its standard input is a pipe the test types into (:meth:`ZsyProcess.type`). The
environment says English and no colour; ``PYTHONUNBUFFERED`` is *not* set: what the
player sees must be flushed by the game itself (a prompt without its newline too).
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

ZSY = str(Path(sys.executable).with_name("zsy"))


class ZsyProcess:
    """``zsy ARGS`` with a pipe for its input and a file for its output (and errors)."""

    def __init__(self, root: Path, name: str, args: list[str]) -> None:
        self.name = name
        self.argv = [ZSY, *args]
        self.out = root / f"{name}.out"
        tmp = root / "tmp"
        tmp.mkdir(exist_ok=True)  # anything it puts in a temp dir is the test's to remove
        env = {**os.environ, "ZSY_LANG": "en", "NO_COLOR": "1", "TMPDIR": str(tmp)}
        env.pop("ZSY_DATA_DIR", None)  # the tests pass --data-dir under their own folder
        with self.out.open("wb") as f:
            self.popen = subprocess.Popen(
                self.argv,
                stdin=subprocess.PIPE,
                stdout=f,
                stderr=subprocess.STDOUT,
                env=env,
                cwd=root,
                start_new_session=True,
            )

    def text(self) -> str:
        """Everything it printed so far."""
        try:
            return self.out.read_text(errors="replace")
        except OSError:
            return ""

    def tail(self, n: int = 2000) -> str:
        return f"--- {self.name} ({' '.join(self.argv[1:])}) ---\n{self.text()[-n:]}"

    def wait_for(self, pattern: str, timeout: float) -> str:
        """The output once the regular expression ``pattern`` is in it (polled, bounded).

        Fails at once when the process has ended without printing it.
        """
        deadline = time.monotonic() + timeout
        while True:
            text = self.text()
            if re.search(pattern, text):
                return text
            if self.popen.poll() is not None:
                text = self.text()  # what it printed just before it ended
                if re.search(pattern, text):
                    return text
                raise AssertionError(f"{pattern!r}: it ended first\n{self.tail()}")
            if time.monotonic() >= deadline:
                raise AssertionError(f"{pattern!r} not seen in {timeout} s\n{self.tail()}")
            time.sleep(0.02)

    def type(self, text: str) -> None:
        """Type ``text`` (with its newlines) into the process's input."""
        assert self.popen.stdin is not None
        self.popen.stdin.write(text.encode())
        self.popen.stdin.flush()

    def wait_exit(self, timeout: float) -> int:
        """Its exit status, waited for at most ``timeout`` seconds."""
        return self.popen.wait(timeout)

    def kill(self) -> None:
        """SIGKILL the whole process group (if still running) and close the input pipe."""
        kill_group(self.popen)
        if self.popen.stdin is not None:
            with contextlib.suppress(OSError):
                self.popen.stdin.close()


def kill_group(popen: subprocess.Popen, wait: float = 10) -> None:
    """SIGKILL the process group of ``popen`` (started with ``start_new_session``: the
    process and anything it started) if it still runs, then reap it."""
    if popen.poll() is None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(popen.pid, signal.SIGKILL)
    with contextlib.suppress(subprocess.TimeoutExpired):
        popen.wait(wait)
