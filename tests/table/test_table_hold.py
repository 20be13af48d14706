"""A dropped seat is held by a bot, then taken back: real ``zsy`` processes on loopback.

Open deal, 4 seats (the host's bot, one in-process bot, two joiners). One
joiner is SIGKILLed mid-round; once the table has waited on it, disconnected,
for ``ZSY_HOLD_AFTER`` seconds, the other seats vote and a bot run by the
lowest other seat plays its moves. The joiner is restarted from disk (``zsy
join`` resumes), returns, and plays its own seat again after its holder
releases it. The match finishes, every record verifies and all heads agree.
"""

from __future__ import annotations

import os
import signal
import time

import pytest
from table_support import Cluster, check_records

pytestmark = [pytest.mark.slow]


def _wait_for(proc_text, needle: str, timeout: float, cluster: Cluster) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if needle in proc_text():
            return
        time.sleep(0.05)
    raise AssertionError(f"never saw {needle!r}\n{cluster.tails()}")


@pytest.mark.timeout(150)
def test_a_killed_seat_is_held_by_a_bot_then_taken_back(cluster: Cluster):
    cluster.extra_env["ZSY_HOLD_AFTER"] = "0.5"
    players = 4
    # enough rounds that the seat comes back while there are turns left (easy bots are fast)
    host, url = cluster.host(players, 12, bots=1, rules=("--open-deal",))
    joiners = [cluster.join(f"p{k}", url) for k in (1, 2)]
    victim, profile = joiners[1], "p2"
    data = cluster.data_dir(profile)

    def lines() -> int:
        files = [p for p in data.rglob("transcript.jsonl") if "bot-seat" not in str(p)]
        return sum(1 for _ in files[0].open()) - 1 if files else 0

    deadline = time.monotonic() + 40
    while lines() < 2 * players + 6 and time.monotonic() < deadline:
        assert victim.alive(), cluster.tails()
        time.sleep(0.01)
    assert lines() >= 2 * players + 6, f"the game did not start\n{cluster.tails()}"
    os.killpg(victim.popen.pid, signal.SIGKILL)
    assert victim.wait(5) == -signal.SIGKILL

    # peer timeout (3.5 s) + hold_after, then the table goes on without it
    _wait_for(host.text, "a bot (run by", 30, cluster)
    _wait_for(host.text, "bot (held by", 30, cluster)  # a proxy was played
    assert not host.text().count("Bye (match over)")

    back = cluster.join(profile)  # no URL: resume the unfinished table from disk
    survivors = [host, joiners[0]]
    codes = cluster.wait_all([*survivors, back], timeout=100)
    assert all(code == 0 for code in codes.values()), f"{codes}\n{cluster.tails()}"
    assert "resuming table" in back.text(), back.tail()
    assert "back and takes the seat again" in host.text(), cluster.tails()
    assert "your seat is yours again" in back.text(), back.tail()
    reports = check_records(cluster.transcripts(), players)
    rep = reports[0]
    assert any(m["outcome"] == "held" for m in rep.motions), rep.motions
    assert any(m["motion"] == "release" for m in rep.motions), rep.motions
