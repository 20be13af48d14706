"""Ctrl-C in a command that does not handle it: one line and status 130, no traceback.

Tried in session 7 (helper U2) with ``timeout -s INT``: during ``zsy replay`` or ``zsy
history`` click printed "Aborted!" (English in every language, status 1); while the
program was still loading (the first second) Python printed a traceback of the imports.
"""

from __future__ import annotations

import subprocess
import sys

from click.testing import CliRunner

from zsy_lan.cli import cli
from zsy_lan.text.i18n import set_language


def test_ctrl_c_in_a_command_ends_it_in_one_line(monkeypatch) -> None:
    def interrupted(**_kw: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(cli.commands["plugins"], "callback", interrupted)
    try:
        got = CliRunner().invoke(cli, ["--lang", "en", "plugins"])
    finally:
        set_language("en")
    assert got.exit_code == 130
    assert "Stopped (Ctrl-C)." in got.output
    assert "Aborted!" not in got.output and "Traceback" not in got.output


_LOADING = """
import sys

class Interrupt:
    def find_spec(self, name, path=None, target=None):
        if name == "zsy_lan.cli.history_cmds":
            raise KeyboardInterrupt
        return None

sys.meta_path.insert(0, Interrupt())
from zsy_lan.cli import main
main()
"""


def test_ctrl_c_while_the_program_loads_prints_no_traceback() -> None:
    done = subprocess.run(
        [sys.executable, "-c", _LOADING], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 130
    assert "Traceback" not in done.stderr and "KeyboardInterrupt" not in done.stderr
