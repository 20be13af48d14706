"""A player who types ``quit`` during a network match is told ``zsy join`` brings them back.

Played in session 7 (helper U2): Ctrl-C ended with "`zsy join` resumes the table.", but
``quit`` (and Ctrl-Q, y) only said "Bye (quit). The game record: ...", though the table
waits for that seat and only ``zsy join`` brings it back (README: "If you drop (or quit...)").
"""

from __future__ import annotations

import pytest

pytestmark = [pytest.mark.slow, pytest.mark.timeout(90)]


def test_quit_during_the_match_names_zsy_join(zsy_process) -> None:
    proc = zsy_process(
        "--lang", "en", "host", "--plain", "--players", "3", "--bots", "2",
        "--open-deal", "--quiet-bots", "--rounds", "1", "--data-dir", "data",
        "--interface", "lo", "--no-mdns",  # loopback only, and no advert another test could see
    )
    proc.wait_for("Your hand", 60)
    proc.type("quit\nyes\n")
    proc.wait_exit(30)
    text = proc.text()
    assert "Bye (quit)" in text, text[-2000:]
    assert "`zsy join` resumes the table." in text.split("Bye (quit)")[1]
