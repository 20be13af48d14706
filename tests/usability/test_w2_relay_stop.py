"""``zsy relay`` stopped by Ctrl-C says its last line apart from the terminal's ``^C`` (U2 14).

It printed ``^CRelay stopped: 679 frames forwarded (49 KiB).`` on the ^C's line. The relay
is bound on 127.0.0.1 only; ``serve`` is replaced by one that returns as a Ctrl-C or a
SIGTERM leaves it.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

import zsy_lan.net.relay as relay_mod
from zsy_lan.cli import cli


def _stopped(monkeypatch, tmp_path: Path, by_sigterm: bool) -> str:
    def serve(server, on_ready=None, until=None):  # what relay.serve leaves behind
        if on_ready is not None:
            on_ready()
        if by_sigterm:
            server._stop.set()  # noqa: SLF001 - the SIGTERM handler's doing
        server.close()

    monkeypatch.setattr(relay_mod, "serve", serve)
    args = ["relay", "--legacy", "--address", "127.0.0.1", "--port", "0"]
    args += ["--data-dir", str(tmp_path)]
    res = CliRunner().invoke(cli, args)
    assert res.exit_code == 0, res.output
    return res.output


@pytest.mark.timeout(30)
def test_ctrl_c_puts_the_last_line_on_its_own(monkeypatch, tmp_path: Path) -> None:
    out = _stopped(monkeypatch, tmp_path, by_sigterm=False)
    assert "\n\nRelay stopped: 0 frames forwarded (0 KiB).\n" in out


@pytest.mark.timeout(30)
def test_sigterm_adds_no_blank_line(monkeypatch, tmp_path: Path) -> None:
    out = _stopped(monkeypatch, tmp_path, by_sigterm=True)
    assert "\n\nRelay stopped" not in out and "\nRelay stopped: 0 frames" in out
