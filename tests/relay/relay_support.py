"""What the relay tests share: loopback, fast mesh timers, a dead endpoint, a zsy process.

Why a module of its own: these lived in the home-made relay's tests (test_relay.py,
test_relay_cli.py, test_relay_lan.py), which went with that relay (issue #29); the
broker tests use them. The ``make_mesh`` fixture is in conftest.py.
"""

from __future__ import annotations

import dataclasses
import os
import re
import socket
import subprocess
import sys
import time
from pathlib import Path

from mesh_support import FAST_MESH

LO = "127.0.0.1"
ZSY = str(Path(sys.executable).with_name("zsy"))
#: mesh timers short enough that a lost direct link gives way to the relay at once
FAST = dataclasses.replace(FAST_MESH, connect_timeout_ms=300, direct_grace=0.3)


def dead_endpoint() -> str:
    """A tcp:// endpoint on loopback where nothing listens (connections are refused)."""
    with socket.socket() as s:
        s.bind((LO, 0))
        port = s.getsockname()[1]
    return f"tcp://{LO}:{port}"


def zsy(*args: str, tmp: Path, timeout: float = 30) -> subprocess.CompletedProcess:
    """``zsy ARGS`` run to its end in English, without the developer's data dir."""
    env = dict(os.environ, ZSY_LANG="en")
    env.pop("ZSY_DATA_DIR", None)
    return subprocess.run(
        [ZSY, *args], capture_output=True, text=True, timeout=timeout, env=env, cwd=tmp
    )


def wait_for(path: Path, pattern: str, procs: list, timeout: float) -> re.Match[str]:
    """The first match of ``pattern`` in the output file ``path``; fails early when a
    process of ``procs`` ended badly, and past ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        m = re.search(pattern, path.read_text(errors="replace")) if path.exists() else None
        if m:
            return m
        assert all(p.poll() in (None, 0) for p in procs), path.read_text(errors="replace")
        time.sleep(0.05)
    raise AssertionError(f"no {pattern!r} in {path}:\n{path.read_text(errors='replace')}")
