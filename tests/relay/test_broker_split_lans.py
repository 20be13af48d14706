"""Two LANs with no route between them, ``zsy relay`` (an MQTT broker) reachable from both:
the twin of the home-made relay's ``plain-bots`` run (issue #29; ``topology.SplitLans``).

Five seats play a private-deal match (mental poker): the host, its bot (it runs in the
host's process) and p1 on LAN A; p2 and p3 on LAN B. Links inside a LAN are direct; the
links across the LANs exist only through the broker, sealed end to end. Two things:

* ``plain``: p1 joins by the bare ``tcp://`` line (no relay in it) and learns the relay
  from the host's welcome, so it reaches LAN B's seats too;
* ``bots``: the bot seat, in the host's process on LAN A, is reached by both seats of
  LAN B only through the broker.

Every seat ends with the same verifying record, and can resume through the relay (its
table folder names it). The broker's side (restart, resume, hostile, capture) is
test_broker_lan.py's.
"""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import pytest
from relay_support import ZSY, wait_for
from topology import RELAY_IP

from zsy_lan.record.replay import replay_file

pytestmark = [pytest.mark.lan, pytest.mark.slow, pytest.mark.timeout(150)]

PORT = "1883"


def test_bots_and_a_bare_line_across_two_lans_through_the_broker(split_lans, tmp_path: Path):
    t = split_lans
    env = dict(os.environ, PYTHONUNBUFFERED="1", TMPDIR=str(tmp_path), ZSY_LANG="en")
    env.pop("ZSY_DATA_DIR", None)
    # what is tested is who reaches whom, not the product's patient default timers
    env.update(ZSY_TIMING="heartbeat=0.25,have_min=0.1,want_retry=0.1", ZSY_RELAY_RESEND="0.5")
    data = tmp_path / "data"
    outs: dict[str, Path] = {"broker": tmp_path / "broker.out"}
    seats: dict[str, subprocess.Popen] = {}

    def tails() -> str:
        return "\n".join(
            f"--- {n} ---\n{o.read_text(errors='replace')[-2000:]}" for n, o in outs.items()
        )

    argv = [ZSY, "relay", "--broker", "amqtt", "--address", RELAY_IP, "--port", PORT]
    broker = t.spawn(t.relay, argv, outs["broker"], env)
    url = wait_for(outs["broker"], r"--relay (mqtt://\S+)", [broker], 20).group(1)
    assert url == f"mqtt://{RELAY_IP}:{PORT}"

    def start_seat(i: int, name: str, args: list[str]) -> None:
        out = outs[name] = tmp_path / f"{name}.out"
        argv = [ZSY, *args, "--profile", name, "--data-dir", str(data / name)]
        argv += ["--interface", "eth0", "--plain", "--color", "never"]
        seats[name] = t.spawn(i, argv, out, env)

    host = ["host", "--players", "5", "--rounds", "1", "--bot", "easy", "--bots", "1"]
    start_seat(0, "host", host + ["--name", "relay-t", "--no-mdns", "--relay", url])
    line = wait_for(outs["host"], r"zsy join (tcp://[^\s)]+)", list(seats.values()), 20).group(1)
    assert f",relay={url}," in line and line.startswith(f"tcp://{t.addresses[0]}:")
    for i in (1, 2, 3):  # p1 (LAN A): the bare tcp:// line, the relay from the welcome
        target = line.split(",")[0] if i == 1 else line
        start_seat(i, f"p{i}", ["join", target, "--bot", "easy", "--nick", f"p{i}"])

    deadline = time.monotonic() + 110
    while time.monotonic() < deadline and any(p.poll() is None for p in seats.values()):
        time.sleep(0.1)
    codes = {n: p.poll() for n, p in seats.items()}
    t.kill(broker, 15)
    assert all(c == 0 for c in codes.values()), f"{codes}\n{tails()}"

    files = sorted(data.rglob("transcript.jsonl"))
    assert len(files) == 5, files
    assert any("bot-seat" in str(f) for f in files), files  # the bot's record, in the host's
    reports = [replay_file(f) for f in files]
    assert all(r.ok and r.finished for r in reports), [r.verdict() for r in reports]
    assert len({r.head for r in reports}) == 1  # identical verifying records
    assert len(list(data.rglob("relay.url"))) == 5  # every seat can resume through it
    logs = {n: (data / n / "zsy.log").read_text(errors="replace") for n in seats}
    said = f"registered at relay mqtt://{RELAY_IP}:{PORT}"
    assert all(said in logs[n] for n in ("p1", "p2", "p3")), tails()  # p1: from the welcome
    everything = "\n".join(logs.values()) + tails()
    assert "cheat" not in everything.lower() and "the relay altered" not in everything
    assert "Broker stopped" in outs["broker"].read_text(), tails()
