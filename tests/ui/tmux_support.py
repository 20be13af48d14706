"""A private tmux server for the end-to-end terminal tests, and a bounded wait.

Both tmux tests (line mode and full screen) drive ``zsy host`` and ``zsy join``
in two terminals through one of these: its own socket (never the user's tmux),
killed in the fixture's ``finally`` with its socket file removed.
"""

from __future__ import annotations

import subprocess
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest


class Tmux:
    """A tmux server of our own with panes of ``height`` rows, read with ``history`` lines."""

    def __init__(self, height: int = 40, history: int = 0) -> None:
        self.sock = f"zsy-test-{uuid.uuid4().hex[:8]}"
        self.height = height
        self.history = history

    def run(self, *args: str) -> str:
        out = subprocess.run(
            ["tmux", "-L", self.sock, *args], capture_output=True, text=True, timeout=10
        )
        return out.stdout

    def new(self, name: str, command: str) -> None:
        self.run("new-session", "-d", "-s", name, "-x", "120", "-y", str(self.height), command)

    def screen(self, name: str) -> str:
        back = ("-S", f"-{self.history}") if self.history else ()
        return self.run("capture-pane", "-t", name, "-p", "-J", *back)

    def keys(self, name: str, *keys: str) -> None:
        self.run("send-keys", "-t", name, *keys)

    def type(self, name: str, text: str) -> None:
        self.keys(name, text, "Enter")

    def kill(self) -> None:
        """Kill the server and remove its socket file (tmux leaves it behind)."""
        path = self.run("display-message", "-p", "#{socket_path}").strip()
        subprocess.run(["tmux", "-L", self.sock, "kill-server"], capture_output=True, timeout=10)
        if path.endswith(self.sock):
            Path(path).unlink(missing_ok=True)


def tmux_fixture(height: int, history: int = 0) -> Callable[[], Iterator[Tmux]]:
    """A pytest fixture named ``tmux`` giving a :class:`Tmux`, always killed afterwards."""

    @pytest.fixture
    def tmux() -> Iterator[Tmux]:
        t = Tmux(height, history)
        try:
            yield t
        finally:
            t.kill()

    return tmux


def wait_for(
    check: Callable[[], Any], timeout: float, what: str, show: Callable[[], str] | None = None
) -> Any:
    """Poll ``check`` until it is truthy (its value is returned) or fail naming ``what``."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        got = check()
        if got:
            return got
        time.sleep(0.03)  # a capture-pane costs a few ms
    raise AssertionError(f"timed out waiting for {what}" + (f":\n{show()}" if show else ""))


def keys_are_read(tmux: Tmux, pane: str, timeout: float = 30) -> None:
    """Wait until the full screen in ``pane`` reads keys: F5 (the seats) until it opens, then
    Escape until it closes.

    The first frame is drawn a moment before the keys are read, and a key sent before then
    can be lost. F5 while an overlay is open does nothing and the terminal keeps the keys in
    order, so sending it again until the overlay shows is safe, and Escape closes it.
    """
    deadline = time.monotonic() + timeout
    while "Escape closes" not in tmux.screen(pane):
        if time.monotonic() > deadline:
            raise AssertionError(f"{pane}: F5 never opened the seats:\n{tmux.screen(pane)}")
        tmux.keys(pane, "F5")
        wait_until(lambda: "Escape closes" in tmux.screen(pane), 1.0)
    tmux.keys(pane, "Escape")
    closed = wait_until(lambda: "Escape closes" not in tmux.screen(pane), 10)
    assert closed, f"{pane}: Escape did not close the seats:\n{tmux.screen(pane)}"


def wait_until(check: Callable[[], Any], timeout: float) -> Any:
    """Poll ``check`` until it is truthy (its value is returned) or ``timeout`` passes (None)."""
    deadline = time.monotonic() + timeout
    while True:
        got = check()
        if got or time.monotonic() > deadline:
            return got
        time.sleep(0.02)
