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
from dataclasses import dataclass
from pathlib import Path

import pytest
from table_support import Cluster, ZsyProc, check_records

pytestmark = [pytest.mark.slow]


def _seat_processes(c: Cluster, players: int, rounds: int, bots: int, rules=()):
    host, url = c.host(players, rounds, bots=bots, rules=rules)
    joiners = [c.join(f"p{k}", url) for k in range(1, players - bots)]
    return host, joiners


#: The whole-match tables: (players, rounds, in-process bots, rule arguments).
TABLES = {
    "3p": (3, 1, 0, ()),
    "4p": (4, 2, 1, ()),
    "5p": (5, 1, 1, ()),
    "6p": (6, 1, 2, ()),
    "doudizhu": (3, 1, 1, ("--variant", "doudizhu", "--option", "match_multiple=1")),
    "4p-open-deal": (4, 1, 1, ("--open-deal",)),
}


@pytest.mark.timeout(120)
@pytest.mark.parametrize(
    "names",
    [("3p", "doudizhu"), ("4p", "4p-open-deal"), ("5p", "6p")],
    ids=lambda names: "+".join(names),
)
def test_whole_match(tmp_path: Path, names: tuple[str, str]):
    """Each of the six tables of :data:`TABLES` plays a whole match and is checked alike.

    Two tables play at once (each its own cluster, ports and folders): a match is
    mostly waiting (process start, the seats' linger after the end), which the two
    share; each table's every check is made as when they ran one by one.
    """
    clusters = []
    for name in names:
        (tmp_path / name).mkdir()
        clusters.append(Cluster(tmp_path / name))
    try:
        pairs = zip(clusters, names, strict=True)
        tables = [(c, *_seat_processes(c, *TABLES[n])) for c, n in pairs]
        deadline = time.monotonic() + 75  # for both: they play at once
        for (c, host, joiners), name in zip(tables, names, strict=True):
            codes = c.wait_all([host, *joiners], timeout=max(1.0, deadline - time.monotonic()))
            assert all(code == 0 for code in codes.values()), f"{name}: {codes}\n{c.tails()}"
            assert "Bye (match over)" in host.text(), c.tails()
            for proc in (host, *joiners):  # the last line names the record and how to see it
                said = re.search(
                    r"game record: (\S+) \(see it with: zsy replay (\S+)\)", proc.text()
                )
                assert said and said[1] == said[2] and Path(said[1]).is_file(), proc.tail()
            check_records(c.transcripts(), TABLES[name][0])
    finally:
        for c in clusters:
            c.close()
    leftovers = [p.name for c in clusters for p in c.procs if p.alive()]
    assert not leftovers, f"processes left running: {leftovers}"


@dataclass
class _Victim:
    """One table of the resume test and the seat whose process is killed there."""

    cluster: Cluster
    host: ZsyProc
    joiners: list[ZsyProc]
    proc: ZsyProc
    profile: str
    killed_at: int = -1

    def lines(self) -> int:
        """The victim's own record's messages so far (not its bot's)."""
        data = self.cluster.data_dir(self.profile)
        files = [p for p in data.rglob("transcript.jsonl") if "bot-seat" not in str(p)]
        return sum(1 for _ in files[0].open()) - 1 if files else 0


@pytest.mark.timeout(120)
def test_sigkill_mid_round_then_resume(tmp_path: Path):
    """A seat's process is SIGKILLed mid-round; ``zsy join`` (same profile) resumes and catches up.

    Two tables at once (each its own cluster), one victim each: a joiner at one, the
    host at the other. Killing the host also kills its in-process bot; the resumed
    host brings it back. Every check is made for both.
    """
    players, rounds = 4, 1
    tables: list[_Victim] = []
    try:
        for victim in ("joiner", "host"):
            (tmp_path / victim).mkdir()
            c = Cluster(tmp_path / victim)
            host, joiners = _seat_processes(c, players, rounds, bots=1)
            proc, profile = (joiners[1], "p2") if victim == "joiner" else (host, "host")
            tables.append(_Victim(c, host, joiners, proc, profile))

        # Kill each victim once the round is well under way at it: the commits and
        # reveals (2 per seat) plus some plays are on its disk.
        deadline = time.monotonic() + 40
        waiting = list(tables)
        while waiting and time.monotonic() < deadline:
            for t in list(waiting):
                assert t.proc.alive(), t.cluster.tails()
                if t.lines() >= 2 * players + 12:
                    os.killpg(t.proc.popen.pid, signal.SIGKILL)
                    assert t.proc.wait(5) == -signal.SIGKILL
                    t.killed_at = t.lines()
                    waiting.remove(t)
            time.sleep(0.01)
        assert not waiting, f"the game did not start\n{waiting[0].cluster.tails()}"

        backs = [t.cluster.join(t.profile) for t in tables]  # no URL: resume from disk
        deadline = time.monotonic() + 90
        for t, back in zip(tables, backs, strict=True):
            survivors = [p for p in [t.host, *t.joiners] if p is not t.proc]
            left = max(1.0, deadline - time.monotonic())
            codes = t.cluster.wait_all([*survivors, back], timeout=left)
            assert all(code == 0 for code in codes.values()), f"{codes}\n{t.cluster.tails()}"
            assert "resuming table" in back.text(), back.tail()
            reports = check_records(t.cluster.transcripts(), players)
            assert reports[0].messages > t.killed_at
    finally:
        for t in tables:
            t.cluster.close()
    leftovers = [p.name for t in tables for p in t.cluster.procs if p.alive()]
    assert not leftovers, f"processes left running: {leftovers}"
