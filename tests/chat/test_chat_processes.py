"""Chat between real ``zsy`` processes over ZeroMQ on loopback (``--interface lo --no-mdns``).

Two human seats in line mode (``--plain``, their input a pipe) and the host's
bot seat. One player types ``say`` lines (one of them hostile); the other
player's table shows them as chat lines, set apart from the game's news and
cleaned; the bot seat's process hears them too. The match is unchanged by it:
every record verifies and all end on the same head. Every process is killed
at the end, whatever happens.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "table"))
from table_support import LOOPBACK, ZSY, Cluster, ZsyProc, check_records  # noqa: E402

pytestmark = [pytest.mark.slow]


@pytest.fixture
def cluster(tmp_path):
    c = Cluster(tmp_path)
    try:
        yield c
    finally:
        c.close()
        assert not [p.name for p in c.procs if p.alive()], "processes left running"


def human(c: Cluster, profile: str, url: str) -> ZsyProc:
    """``zsy join URL --plain`` reading its lines from a pipe (a player typing).

    A join by its tcp:// line never browses mDNS (and the host runs ``--no-mdns``), so
    these tests need no ``xdist_group("mdns")``: no other worker's table can be seen.
    """
    argv = [ZSY, "join", url, "--nick", profile, *c.profile_args(profile), *LOOPBACK]
    out = c.root / f"{profile}-{len(c.procs)}.out"
    with out.open("wb") as f:
        popen = subprocess.Popen(
            argv, stdin=subprocess.PIPE, stdout=f, stderr=subprocess.STDOUT, env=c.env(),
            cwd=c.root, start_new_session=True,
        )
    proc = ZsyProc(profile, argv, popen, out)
    c.procs.append(proc)
    return proc


def type_line(proc: ZsyProc, text: str) -> None:
    assert proc.popen.stdin is not None
    proc.popen.stdin.write(text.encode() + b"\n")
    proc.popen.stdin.flush()


def wait_for(proc: ZsyProc, text: str, timeout: float, c: Cluster) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if text in proc.text():
            return
        assert proc.alive(), c.tails()
        time.sleep(0.05)
    raise AssertionError(f"{text!r} never shown\n{c.tails()}")


@pytest.mark.timeout(100)
def test_a_players_chat_reaches_the_other_tables(cluster: Cluster):
    # Auto-play only ends the match here: its 0.3 s look at each turn (for a watching
    # player) was 6 of this test's 9 s.
    cluster.extra_env["ZSY_AUTO_PAUSE"] = "0"
    host, url = cluster.host(3, 1, bots=0)
    p1, p2 = human(cluster, "p1", url), human(cluster, "p2", url)
    for p in (p1, p2):
        wait_for(p, "Type help for commands.", 30, cluster)
    type_line(p1, "say hello from p1")
    type_line(p1, "say \x1b[2J\x1b]0;owned\x07clean \u202eline")
    type_line(p1, ":gg")
    wait_for(p2, "» p1: hello from p1", 20, cluster)
    wait_for(p2, "» p1: clean line", 20, cluster)
    wait_for(p2, "» p1: Good game!", 20, cluster)
    wait_for(p1, "» p1: hello from p1", 5, cluster)  # the author sees its own line too
    wait_for(host, "p1: hello from p1", 20, cluster)  # the bot seat's process hears it
    for p in (p1, p2):
        type_line(p, "auto")  # the normal bot plays the rest of the match for both
    codes = cluster.wait_all([host], timeout=70)
    assert all(code == 0 for code in codes.values()), f"{codes}\n{cluster.tails()}"
    for p in (p1, p2):
        wait_for(p, "Bye (match over)", 20, cluster)
        assert p.popen.stdin is not None
        p.popen.stdin.close()
        assert p.wait(15) == 0, cluster.tails()
    raw = p2.text()
    assert "\x1b" not in raw and "owned" not in raw and "\u202e" not in raw
    assert "say hello" not in raw  # never read as a move or echoed as a command
    check_records(cluster.transcripts(), 3)


@pytest.mark.timeout(90)
def test_quiet_bots_at_a_network_table(cluster: Cluster):
    """``zsy host --quiet-bots``: a whole table of bots plays without a word of chat."""
    args = ["host", "--players", "3", "--rounds", "1", "--bots", "2", "--bot", "easy"]
    args += ["--quiet-bots", "--no-mdns", "--nick", "host", "--name", "q"]
    host = cluster.start("host", args + cluster.profile_args("host") + LOOPBACK)
    codes = cluster.wait_all([host], timeout=75)
    assert all(code == 0 for code in codes.values()), f"{codes}\n{cluster.tails()}"
    for phrase in ("Good game!", "Nice play!", "Hello!"):
        assert phrase not in host.text()
    from zsy_lan.record.retell import record_chats

    for path in cluster.transcripts():
        assert record_chats(path.read_text().splitlines()) == []
    check_records(cluster.transcripts(), 3)


def test_quiet_bots_is_offered_by_host_join_and_play():
    from click.testing import CliRunner

    from zsy_lan.cli import cli

    for command in ("host", "join", "play"):
        result = CliRunner().invoke(cli, [command, "--help"])
        assert result.exit_code == 0 and "--quiet-bots" in result.output, result.output
