"""A whole match across network namespaces: real mDNS multicast, real TCP between addresses.

Three namespaces on one bridge (see ``netns.py``; nothing is created in the
machine's own namespace). ``zsy host --interface eth0`` advertises the table
with zeroconf bound to its namespace's address; two ``zsy join NAME
--interface eth0 --bot easy`` processes find it by multicast DNS-SD, sit
down, and the three peers play a match over CURVE-encrypted ZeroMQ between
10.231.0.x addresses. Mid-game one joiner's bridge port goes down and comes
back up (a partition): the protocol's heartbeats and resends heal it, and
every peer ends with the same verified transcript.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from zsy_lan.record.replay import replay_file

pytestmark = [pytest.mark.lan, pytest.mark.slow, pytest.mark.timeout(120)]

ZSY = str(Path(sys.executable).with_name("zsy"))


def test_match_across_namespaces_with_a_partition(make_lan, tmp_path):
    lan = make_lan(3)
    env = dict(os.environ, PYTHONUNBUFFERED="1", TMPDIR=str(tmp_path))
    env.pop("ZSY_DATA_DIR", None)
    procs: list[tuple[str, subprocess.Popen, Path]] = []

    def start(i: int, name: str, args: list[str]) -> tuple[subprocess.Popen, Path]:
        out = tmp_path / f"{name}.out"
        data = tmp_path / "data" / name
        argv = [ZSY, *args, "--profile", name, "--data-dir", str(data), "--interface", "eth0"]
        argv += ["--plain", "--color", "never"]
        with out.open("wb") as f:
            p = subprocess.Popen(
                lan.exec_argv(i, argv),
                stdin=subprocess.DEVNULL,
                stdout=f,
                stderr=subprocess.STDOUT,
                env=env,
                cwd=tmp_path,
                start_new_session=True,
            )
        procs.append((name, p, out))
        return p, out

    def tails() -> str:
        return "\n".join(
            f"--- {n} ---\n{o.read_text(errors='replace')[-2500:]}" for n, _, o in procs
        )

    try:
        host, host_out = start(
            0,
            "host",
            ["host", "--players", "3", "--rounds", "2", "--bot", "easy", "--name", "lan-t"],
        )
        deadline = time.monotonic() + 20
        while "Others join with" not in host_out.read_text() and time.monotonic() < deadline:
            assert host.poll() is None, tails()
            time.sleep(0.05)
        assert lan.peers[0].address in host_out.read_text(), tails()
        # found by name through real multicast DNS-SD across the bridge
        for i in (1, 2):
            start(i, f"p{i}", ["join", "lan-t", "--bot", "easy", "--nick", f"p{i}"])
        # partition p2 once the game is under way, then heal it
        transcript = None
        deadline = time.monotonic() + 40
        while time.monotonic() < deadline:
            found = list((tmp_path / "data" / "p2").rglob("transcript.jsonl"))
            if found and sum(1 for _ in found[0].open()) > 15:
                transcript = found[0]
                break
            assert all(p.poll() in (None, 0) for _, p, _ in procs), tails()
            time.sleep(0.02)
        assert transcript is not None, f"the game did not start\n{tails()}"
        lan.partition(2)
        assert not lan.port_is_up(2)
        time.sleep(1.0)  # the partition (below the 3.5 s peer timeout, like the 1.5 s it was): TCP
        # retries at 0.2, 0.6, 1.4 s, so the first after the heal comes 0.4 s later, not 1.5 s
        lan.heal(2)
        deadline = time.monotonic() + 80
        while time.monotonic() < deadline and any(p.poll() is None for _, p, _ in procs):
            time.sleep(0.1)
        codes = {n: p.poll() for n, p, _ in procs}
        assert all(c == 0 for c in codes.values()), f"{codes}\n{tails()}"
    finally:
        for _, p, _ in procs:
            if p.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(p.pid, signal.SIGKILL)
                p.wait(5)
    assert all(
        re.search(r"joining 'lan-t' at tcp://10\.231\.0\.1:", o.read_text())
        for _, _, o in procs[1:]
    )
    files = sorted((tmp_path / "data").rglob("transcript.jsonl"))
    assert len(files) == 3, files
    reports = [replay_file(f) for f in files]
    assert all(r.ok and r.finished for r in reports), [r.verdict() for r in reports]
    assert len({r.head for r in reports}) == 1
