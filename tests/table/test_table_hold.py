"""A dropped seat is held by a bot, then taken back: real ``zsy`` processes on loopback.

Open deal, 4 seats (the host's bot, one in-process bot, two joiners). One
joiner is SIGKILLed mid-round; once the table has waited on it, disconnected,
for ``ZSY_HOLD_AFTER`` seconds, the other seats vote and a bot run by the
lowest other seat plays its moves. The joiner is restarted from disk (``zsy
join`` resumes), returns, and plays its own seat again after its holder
releases it. The match finishes, every record verifies and all heads agree.

Why the other joiner plays through a gate: easy bots play a 12-round match in
about two seconds, less than a process restart plus a catch-up takes on a
loaded machine. The test used to race the two, and about one run in three the
match was over (the seat still held) before the restarted seat's ``return``
reached its holder. Now the other joiner's moves come from a small external
bot that waits (1 s a move, under the 5 s per-move limit of ``ExternalBot``)
while a gate file exists: the table is slowed, never stopped, from the hold
until the restarted seat says its seat is its own again, so the match cannot end
first however slow the machine is (a round has a dozen or more of that seat's
turns, a seat that went out waits for the next round), and four rounds are plenty:
after the release they only need to end.
"""

from __future__ import annotations

import os
import signal
import sys
import time
from pathlib import Path

import pytest
from table_support import LOOPBACK, Cluster, check_records

pytestmark = [pytest.mark.slow]

# A stdio bot (docs/bots.md) that plays the lowest legal play, 1 s a move while GATE exists.
GATED_BOT = """
import json, os, sys, time
gate = sys.argv[1]
for line in sys.stdin:
    if not line.strip():
        continue
    obs = json.loads(line)
    if obs.get("type") == "quit":
        break
    end = time.monotonic() + 1.0
    while os.path.exists(gate) and time.monotonic() < end:
        time.sleep(0.02)
    legal = obs["legal"]
    plays = [a for a in legal if a["kind"] == "play"]
    passes = [a for a in legal if a["kind"] == "pass"]
    pick = min(plays, key=lambda a: (max(c % 54 for c in a["cards"]), len(a["cards"]))) if plays \\
        else (passes or legal)[0]
    print(json.dumps({**pick, "id": obs["id"]}), flush=True)
"""


def _wait_for(proc_text, needle: str, timeout: float, cluster: Cluster) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if needle in proc_text():
            return
        time.sleep(0.05)
    raise AssertionError(f"never saw {needle!r}\n{cluster.tails()}")


@pytest.mark.timeout(150)
def test_a_killed_seat_is_held_by_a_bot_then_taken_back(cluster: Cluster, tmp_path: Path):
    cluster.extra_env["ZSY_HOLD_AFTER"] = "0.5"
    players = 4
    host, url = cluster.host(players, 4, bots=1, rules=("--open-deal",))
    bot, gate = tmp_path / "gated_bot.py", tmp_path / "gate"
    bot.write_text(GATED_BOT)
    paced = cluster.start(
        "p1",
        ["join", url, "--bot-cmd", f"{sys.executable} {bot} {gate}", "--nick", "p1"]
        + cluster.profile_args("p1")
        + LOOPBACK,
    )
    victim, profile = cluster.join("p2", url), "p2"
    data = cluster.data_dir(profile)

    def lines() -> int:
        files = [p for p in data.rglob("transcript.jsonl") if "bot-seat" not in str(p)]
        return sum(1 for _ in files[0].open()) - 1 if files else 0

    deadline = time.monotonic() + 40
    while lines() < 2 * players + 6 and time.monotonic() < deadline:
        assert victim.alive(), cluster.tails()
        time.sleep(0.01)
    assert lines() >= 2 * players + 6, f"the game did not start\n{cluster.tails()}"
    gate.touch()  # from here the table moves at most one of p1's turns a second
    os.killpg(victim.popen.pid, signal.SIGKILL)
    assert victim.wait(5) == -signal.SIGKILL

    # peer timeout (3.5 s) + hold_after, then the table goes on without it
    _wait_for(host.text, "dropped; a bot", 60, cluster)  # "(run by seat N)" or "run by you"
    _wait_for(host.text, "bot (held by", 60, cluster)  # a proxy was played
    assert not host.text().count("Bye (match over)")

    back = cluster.join(profile)  # no URL: resume the unfinished table from disk
    _wait_for(back.text, "you were away", 60, cluster)  # it knows, and signed its return
    _wait_for(back.text, "your seat is yours again", 60, cluster)  # released: still gated
    gate.unlink()
    survivors = [host, paced]
    codes = cluster.wait_all([*survivors, back], timeout=100)
    assert all(code == 0 for code in codes.values()), f"{codes}\n{cluster.tails()}"
    assert "resuming table" in back.text(), back.tail()
    assert "back and takes the seat again" in host.text(), cluster.tails()
    assert "your seat is yours again" in back.text(), back.tail()
    reports = check_records(cluster.transcripts(), players)
    rep = reports[0]
    assert any(m["outcome"] == "held" for m in rep.motions), rep.motions
    assert any(m["motion"] == "release" for m in rep.motions), rep.motions
