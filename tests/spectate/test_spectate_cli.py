"""``zsy host --spectators open`` and ``zsy watch URL --record FILE`` as real processes on
loopback (the table tests' cluster: every process killed at the end)."""

from __future__ import annotations

import re
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent.parent / "table"))

from table_support import LOOPBACK, Cluster  # noqa: E402

from zsy_lan.record.replay import replay_file  # noqa: E402

WATCH_RE = re.compile(r"zsy watch (tcp://127\.0\.0\.1:\d+#[A-Za-z0-9_-]{43})")


@pytest.fixture
def cluster(tmp_path):
    c = Cluster(tmp_path)
    try:
        yield c
    finally:
        c.close()
        assert not [p.name for p in c.procs if p.alive()]


def _wait_for(proc, pattern: re.Pattern[str], timeout: float) -> re.Match[str]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        m = pattern.search(proc.text())
        if m:
            return m
        if not proc.alive():
            break
        time.sleep(0.05)
    raise AssertionError(f"{pattern.pattern} not seen\n{proc.tail()}")


@pytest.mark.slow
@pytest.mark.timeout(120)
def test_zsy_watch_follows_a_bot_table_and_keeps_a_record_that_verifies(cluster, tmp_path):
    """The spectator is let in while the table fills: its last seat (a ``zsy join --bot``
    process) sits down only once the host says bob is watching, so the watch covers the
    whole match however slowly either process starts (before, eight rounds of bots were
    raced against the watcher's start), and two rounds suffice."""
    args = ["host", "--players", "4", "--rounds", "2", "--bots", "2", "--bot-level", "easy"]
    args += ["--bot", "easy", "--no-mdns", "--spectators", "open", "--nick", "host"]
    host = cluster.start("host", args + ["--name", "t", *cluster.profile_args("host"), *LOOPBACK])
    url = _wait_for(host, WATCH_RE, 30).group(1)
    join_url = cluster.wait_url(host, 10)
    record = tmp_path / "watched.jsonl"
    watcher = cluster.start("bob", ["watch", url, "--nick", "bob", "--record", str(record)])
    _wait_for(host, re.compile("bob is watching"), 60)
    carl = cluster.join("carl", join_url)
    codes = cluster.wait_all([host, watcher, carl], 100)
    assert all(c == 0 for c in codes.values()), (codes, cluster.tails())
    out = watcher.text()
    assert "Watching table 't' (private deal) as a spectator" in out, out[-2000:]
    assert "Match over. Winner:" in out and "Stopped watching (match over)." in out
    assert "anyone with this line may watch" in host.text()
    assert "bob is watching" in host.text()
    report = replay_file(record)
    assert report.ok and report.finished, report.verdict()
    assert report.head == replay_file(cluster.transcripts()[0]).head
