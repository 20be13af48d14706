"""A whole match through an MQTT broker, with a seat SIGKILLed and resumed (issue #29).

Three seats, each its own ``zsy`` process, whose direct links lead nowhere
(tests/relay/broker_only.py: on loopback, the seats reach each other only
through ``--relay``), at a real amqtt broker that asks for a user and
password. The host gives the broker with its password; the joiners get the
line the host printed (without the password) and the password in
``$ZSY_RELAY_PASSWORD``. Mid-match a joiner is SIGKILLed; ``zsy join`` again
resumes it from its table folder (the broker is kept there, the password is
not: without it the seat is told the broker refused it), and the match
finishes with every record the same and verified, nobody blamed, and the
password in no file.
"""

from __future__ import annotations

import os
import re
import signal
import sys
import time
from pathlib import Path

import pytest

_TABLE = str(Path(__file__).resolve().parent.parent / "table")
if _TABLE not in sys.path:
    sys.path.insert(0, _TABLE)

from table_support import LOOPBACK, Cluster, check_records  # noqa: E402

BROKER_ONLY = str(Path(__file__).with_name("broker_only.py"))
LINE_RE = re.compile(r"zsy join (tcp://127\.0\.0\.1:\d+#[\w-]{43},relay=\S+,table=[0-9a-f]+)")
PASSWORD = "s3cret-at-the-broker"


def _lines(c: Cluster, profile: str) -> int:
    files = list(c.data_dir(profile).rglob("transcript.jsonl"))
    return sum(1 for _ in files[0].open()) - 1 if files else 0


def wait_text(proc, text: str, timeout: float = 20) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while text not in proc.text():
        assert proc.alive() and time.monotonic() < deadline, proc.tail()
        time.sleep(0.05)


@pytest.mark.slow
@pytest.mark.timeout(150)
def test_a_match_and_a_resume_through_the_broker_only(tmp_path: Path, amqtt_broker):
    broker = amqtt_broker(users={"ana": PASSWORD})
    c = Cluster(tmp_path, launcher=[sys.executable, BROKER_ONLY])
    c.extra_env.update(ZSY_RELAY_PASSWORD=PASSWORD, ZSY_TIMING="heartbeat=0.5,want_retry=0.2")
    players = 3
    try:
        args = ["host", "--players", str(players), "--rounds", "1", "--bot", "easy"]
        args += ["--no-mdns", "--nick", "host", "--name", "t", "--relay", broker.url]
        host = c.start("host", args + c.profile_args("host") + LOOPBACK)
        deadline = time.monotonic() + 30
        while not (m := LINE_RE.search(host.text())) and time.monotonic() < deadline:
            assert host.alive(), host.tail()
            time.sleep(0.05)
        assert m, host.tail()
        line = m.group(1)
        assert f"relay=mqtt://ana@127.0.0.1:{broker.port}," in line and PASSWORD not in line
        assert "ZSY_RELAY_PASSWORD" in host.text()  # the host is told how guests give it
        joiners = [c.join(p, line) for p in ("p1", "p2")]

        deadline = time.monotonic() + 60
        while _lines(c, "p2") < 2 * players + 8:
            assert all(p.alive() for p in (host, *joiners)), c.tails()
            assert time.monotonic() < deadline, f"the game did not start\n{c.tails()}"
            time.sleep(0.02)
        os.killpg(joiners[1].popen.pid, signal.SIGKILL)
        assert joiners[1].wait(5) == -signal.SIGKILL
        killed_at = _lines(c, "p2")

        # resumed without the password (the folder keeps the broker, never the password):
        # the seat is told what to do; then with it, as the player would
        del c.extra_env["ZSY_RELAY_PASSWORD"]
        bare = c.join("p2")
        wait_text(bare, "refused the user name or password")
        assert "ZSY_RELAY_PASSWORD" in bare.text(), bare.tail()
        bare.kill()
        c.extra_env["ZSY_RELAY_PASSWORD"] = PASSWORD
        back = c.join("p2")  # no line: resumed from its table folder, through the broker
        codes = c.wait_all([host, joiners[0], back], timeout=90)
        assert all(code == 0 for code in codes.values()), f"{codes}\n{c.tails()}"
        assert "resuming table" in back.text(), back.tail()
        reports = check_records(c.transcripts(), players)
        assert reports[0].messages > killed_at
        logs = {p: (c.data_dir(p) / "zsy.log").read_text() for p in ("host", "p1", "p2")}
        for name, log in logs.items():
            assert f"registered at relay mqtt://127.0.0.1:{broker.port}" in log, name
        everything = c.tails() + "".join(logs.values())
        assert "cheat" not in everything.lower()
        assert "relay altered" not in everything and "replayed" not in everything
        for f in tmp_path.joinpath("data").rglob("*"):
            if f.is_file():
                assert PASSWORD.encode() not in f.read_bytes(), f
    finally:
        c.close()
