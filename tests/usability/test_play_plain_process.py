"""``zsy play --plain``: the table's news starts on its own line (a real process, a pipe).

The line mode prints a notice on a fresh line and the prompt again after it (PlainReader.show),
but ``zsy play`` handed the table ``click.echo`` and a Ctrl-C wrapper, so it never used that:
"[your turn, 3 s left] > * time's up (3 s): played 3 of hearts for you", and no prompt after.
"""

from __future__ import annotations

import contextlib

import pytest

pytestmark = [pytest.mark.slow, pytest.mark.timeout(60)]


def test_a_clock_notice_is_not_glued_to_the_prompt(zsy_process) -> None:
    # The clock is real (3 s, the least --turn-timer allows): the process and its pipe are
    # what is tested; the wait is for the notice and the prompt after it, not a fixed time.
    proc = zsy_process(
        "--lang", "en", "play", "--plain", "--players", "3", "--rounds", "1",
        "--seed", "7", "--turn-timer", "3", "--quiet-bots", "--data-dir", "data",
    )
    proc.wait_for("time's up", 40)
    with contextlib.suppress(AssertionError):  # if it never comes, the asserts below say so
        proc.wait_for(r"time's up[^\n]*\n(?:.*\n)*?.*> (?:\n|$)", 10)  # a prompt after it
    text = proc.text()
    assert "time's up" in text, text[-2000:]
    lines = text.split("\n")
    notice = next(x for x in lines if "time's up" in x)
    assert notice.startswith("* time's up"), notice
    after = lines[lines.index(notice) + 1 :]
    assert any(x.endswith("> ") for x in after), after  # the prompt again, on its own line
