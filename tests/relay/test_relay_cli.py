"""``zsy relay`` and the relay options of ``zsy host`` / ``zsy join`` (loopback only)."""

from __future__ import annotations

import os
import re
import select
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from zsy_lan.net.relay import RelayAddress

pytestmark = [pytest.mark.timeout(60)]

ZSY = str(Path(sys.executable).with_name("zsy"))


def zsy(*args: str, tmp: Path, timeout: float = 30) -> subprocess.CompletedProcess:
    env = dict(os.environ, ZSY_LANG="en")
    env.pop("ZSY_DATA_DIR", None)
    return subprocess.run(
        [ZSY, *args], capture_output=True, text=True, timeout=timeout, env=env, cwd=tmp
    )


def start_relay(tmp: Path, *args: str) -> tuple[subprocess.Popen, str]:
    """A running ``zsy relay`` on loopback and its URL (the caller stops it)."""
    env = dict(os.environ, ZSY_LANG="en", PYTHONUNBUFFERED="1")
    p = subprocess.Popen(
        [
            ZSY,
            "relay",
            "--legacy",
            "--address",
            "127.0.0.1",
            "--port",
            "0",
            "--data-dir",
            str(tmp),
            *args,
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        env=env,
    )
    out = b""
    deadline = time.monotonic() + 20
    while b"--relay " not in out or not out.endswith(b"\n"):
        left = deadline - time.monotonic()
        assert left > 0 and p.poll() is None, out.decode()
        if select.select([p.stdout], [], [], left)[0]:
            out += os.read(p.stdout.fileno(), 4096)
    url = re.search(r"--relay (zsy-relay://\S+)", out.decode()).group(1)
    return p, url


def stop(p: subprocess.Popen) -> str:
    p.send_signal(signal.SIGTERM)
    try:
        out, _ = p.communicate(timeout=10)
    except subprocess.TimeoutExpired:
        p.kill()
        out, _ = p.communicate(timeout=5)
    return out.decode()


@pytest.mark.slow
def test_relay_runs_prints_its_url_and_keeps_its_key(tmp_path):
    p, url = start_relay(tmp_path, "--max-tables", "3")
    try:
        addr = RelayAddress.parse(url)
        assert addr.host == "127.0.0.1" and addr.port > 0
    finally:
        out = stop(p)
    assert p.returncode == 0 and "Relay stopped: 0 frames forwarded" in out, out
    assert "Traceback" not in out
    p2, url2 = start_relay(tmp_path)
    stop(p2)
    assert RelayAddress.parse(url2).key == addr.key  # same data dir: same key, same URL


def in_process(*args: str) -> Result:
    """``zsy ARGS`` through click's runner: a refusal before the relay serves, with no
    process to start (a second each); what is checked is the exit code and the sentence."""
    from zsy_lan.cli import cli

    return CliRunner().invoke(cli, list(args), env={"ZSY_LANG": "en"})


def test_relay_refuses_a_bad_address_and_a_taken_port(tmp_path):
    bad = in_process("relay", "--address", "not-an-ip", "--data-dir", str(tmp_path))
    assert bad.exit_code == 2 and "'not-an-ip' is not an IP address" in bad.stderr
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = str(s.getsockname()[1])
        taken = in_process(
            "relay", "--address", "127.0.0.1", "--port", port, "--data-dir", str(tmp_path)
        )
    assert taken.exit_code == 1 and f"port {port} on 127.0.0.1 is already in use" in taken.stderr
    none = in_process("relay", "--max-tables", "0", "--data-dir", str(tmp_path))
    assert none.exit_code == 2 and "--max-tables" in none.stderr
    for r in (bad, taken, none):
        assert isinstance(r.exception, SystemExit), r.exception  # an exit, never a crash
        assert "Traceback" not in r.stderr + r.stdout


def test_host_refuses_a_bad_relay_line(tmp_path):
    r = zsy(
        "host",
        "--relay",
        "zsy-relay://127.0.0.1:7641",
        "--data-dir",
        str(tmp_path),
        "--interface",
        "lo",
        "--no-mdns",
        tmp=tmp_path,
    )
    assert r.returncode == 2 and "lacks the relay's key" in r.stderr, r.stderr
    assert "Traceback" not in r.stderr


@pytest.mark.slow
def test_host_says_when_the_relay_serves_no_more_tables(tmp_path):
    p, url = start_relay(tmp_path / "relay", "--max-tables", "1")
    try:
        env = dict(os.environ, ZSY_LANG="en")
        first = subprocess.Popen(
            [
                ZSY,
                "host",
                "--relay",
                url,
                "--data-dir",
                str(tmp_path / "a"),
                "--interface",
                "lo",
                "--no-mdns",
                "--players",
                "4",
                "--bot",
                "easy",
                "--plain",
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            env=env,
        )
        try:
            out = b""
            deadline = time.monotonic() + 20
            while b"zsy join tcp://" not in out:
                assert time.monotonic() < deadline and first.poll() is None, out.decode()
                if select.select([first.stdout], [], [], 1)[0]:
                    out += os.read(first.stdout.fileno(), 4096)
            assert b",relay=zsy-relay://127.0.0.1:" in out
            second = zsy(
                "host",
                "--relay",
                url,
                "--data-dir",
                str(tmp_path / "b"),
                "--interface",
                "lo",
                "--no-mdns",
                "--players",
                "4",
                "--bot",
                "easy",
                "--plain",
                tmp=tmp_path,
            )
        finally:
            first.kill()
            first.communicate(timeout=10)
    finally:
        stop(p)
    assert second.returncode == 1, second.stdout + second.stderr
    assert "serves as many tables as it may (its --max-tables)" in second.stderr
    assert "Traceback" not in second.stderr


def test_join_refuses_a_garbled_relay_line(tmp_path):
    key = "A" * 43
    line = f"tcp://127.0.0.1:9#{key},relay=zsy-relay://127.0.0.1:1,table=abc"
    r = zsy("join", line, "--data-dir", str(tmp_path), "--interface", "lo", tmp=tmp_path)
    assert r.returncode == 1 and "lacks the relay's key" in r.stderr, r.stderr
    assert "Traceback" not in r.stderr
