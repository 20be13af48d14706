"""Whole matches between real ``zsy`` processes over ZeroMQ on loopback.

Each seat is its own process (``zsy host --bot``, ``zsy join URL --bot``) or
an in-process bot peer of the host (``--bots``), every one with its own
identity, CURVE socket on 127.0.0.1, replica and files. A match passes when
every process exits 0, every transcript on disk re-verifies (signatures,
actions, hashes) and all of them end on the same head.
"""

from __future__ import annotations

import os
import re
import signal
import time
from pathlib import Path

import pytest
from table_support import Cluster, check_records

pytestmark = [pytest.mark.slow]


def _seat_processes(c: Cluster, players: int, rounds: int, bots: int, rules=()):
    host, url = c.host(players, rounds, bots=bots, rules=rules)
    joiners = [c.join(f"p{k}", url) for k in range(1, players - bots)]
    return host, joiners


@pytest.mark.timeout(90)
@pytest.mark.parametrize(
    ("players", "rounds", "bots", "rules"),
    [
        (3, 1, 0, ()),
        (4, 2, 1, ()),
        (5, 1, 1, ()),
        (6, 1, 2, ()),
        (3, 1, 1, ("--variant", "doudizhu", "--option", "match_multiple=1")),
        (4, 1, 1, ("--open-deal",)),
    ],
    ids=["3p", "4p", "5p", "6p", "doudizhu", "4p-open-deal"],
)
def test_whole_match(cluster: Cluster, players, rounds, bots, rules):
    host, joiners = _seat_processes(cluster, players, rounds, bots, rules)
    codes = cluster.wait_all([host, *joiners], timeout=75)
    assert all(code == 0 for code in codes.values()), f"{codes}\n{cluster.tails()}"
    assert "Bye (match over)" in host.text(), cluster.tails()
    for proc in (host, *joiners):  # the last line names the record and how to see it
        said = re.search(r"game record: (\S+) \(see it with: zsy replay (\S+)\)", proc.text())
        assert said and said[1] == said[2] and Path(said[1]).is_file(), proc.tail()
    check_records(cluster.transcripts(), players)


@pytest.mark.timeout(120)
@pytest.mark.parametrize("victim", ["joiner", "host"])
def test_sigkill_mid_round_then_resume(cluster: Cluster, victim):
    """A seat's process is SIGKILLed mid-round; ``zsy join`` (same profile) resumes and catches up.

    Killing the host also kills its in-process bot; the resumed host brings it back.
    """
    players, rounds = 4, 1
    host, joiners = _seat_processes(cluster, players, rounds, bots=1)
    proc, profile = (joiners[1], "p2") if victim == "joiner" else (host, "host")
    data = cluster.data_dir(profile)

    # Wait until the round is well under way at the victim: the commits and
    # reveals (2 per seat) plus some plays are on its disk.
    def lines() -> int:
        files = [p for p in data.rglob("transcript.jsonl") if "bot-seat" not in str(p)]
        return sum(1 for _ in files[0].open()) - 1 if files else 0

    deadline = time.monotonic() + 40
    while lines() < 2 * players + 12 and time.monotonic() < deadline:
        assert proc.alive(), cluster.tails()
        time.sleep(0.01)
    assert lines() >= 2 * players + 12, f"the game did not start\n{cluster.tails()}"
    os.killpg(proc.popen.pid, signal.SIGKILL)
    assert proc.wait(5) == -signal.SIGKILL
    killed_at = lines()
    time.sleep(0.5)  # the others notice and wait on the missing seat

    back = cluster.join(profile)  # no URL: resume the unfinished table from disk
    survivors = [p for p in [host, *joiners] if p is not proc]
    codes = cluster.wait_all([*survivors, back], timeout=90)
    assert all(code == 0 for code in codes.values()), f"{codes}\n{cluster.tails()}"
    assert "resuming table" in back.text(), back.tail()
    reports = check_records(cluster.transcripts(), players)
    assert reports[0].messages > killed_at
