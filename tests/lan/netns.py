"""A throw-away LAN built from Linux network namespaces, for real-network tests.

Topology (nothing is created in the machine's own namespace)::

    netns <P>-p0  eth0 10.231.0.1/24 ──veth── br-p0 ┐
    netns <P>-p1  eth0 10.231.0.2/24 ──veth── br-p1 ├ br0   (netns <P>-br)
    ...                                             ┘

* Each peer namespace has ``lo`` up, one veth ``eth0`` with its address and a
  multicast route (224.0.0.0/4 dev eth0) so mDNS goes out on it.
* The other ends of the veths live in the bridge namespace, enslaved to a
  Linux bridge ``br0`` (STP off, multicast snooping off: mDNS is flooded).
* Every veth is created *inside* a namespace (``ip -n NS link add ... peer
  name ... netns BR``), so not even for a moment does a link exist in the
  root namespace. Deleting the namespaces deletes every link.
* ``partition(i)`` takes peer i's bridge port down (its eth0 loses carrier);
  ``heal(i)`` brings it back.
* Names carry the pid and a random suffix (``zsylan<pid>x<hex>-p0``), so
  parallel runs never collide; :func:`remove_stale` deletes namespaces left
  by a run whose process is gone.

Processes run inside a namespace with ``ip netns exec NS ...``;
:class:`NsProcess` wraps one that speaks JSON lines on stdin/stdout (see
``peer_agent.py``). Requires root and iproute2; :func:`unavailable_reason`
says why not, for ``pytest.skip``.

Usage::

    with NetnsLan(2) as lan:
        p = lan.spawn_json(0, [sys.executable, "-u", "agent.py"])
        p.call(op="...")
        lan.partition(1); lan.heal(1)
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import secrets
import select
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

IP = shutil.which("ip") or "/usr/sbin/ip"
_PREFIX = "zsylan"
_NAME_RE = re.compile(rf"^{_PREFIX}(\d+)x[0-9a-f]+-(?:p\d+|br)$")


class NetnsError(RuntimeError):
    """An ``ip`` command failed while building or changing the test LAN."""


def _ip(*args: str, check: bool = True, timeout: float = 10) -> subprocess.CompletedProcess:
    proc = subprocess.run([IP, *args], capture_output=True, text=True, timeout=timeout, check=False)
    if check and proc.returncode != 0:
        raise NetnsError(f"ip {' '.join(args)} failed: {proc.stderr.strip()}")
    return proc


def _ipn(netns: str, command: str) -> subprocess.CompletedProcess:
    """``ip -n NETNS <command>`` (command split on spaces; our names have none)."""
    return _ip("-n", netns, *command.split())


def unavailable_reason() -> str | None:
    """Why namespace tests cannot run here (None when they can)."""
    if sys.platform != "linux":
        return "network namespaces need Linux"
    if os.geteuid() != 0:
        return "network-namespace LAN tests need root (CI runs them as root)"
    if not shutil.which("ip") and not os.path.exists(IP):
        return "iproute2 'ip' command not found"
    probe = f"{_PREFIX}{os.getpid()}x{secrets.token_hex(3)}-p0"
    try:
        res = _ip("netns", "add", probe, check=False)
        if res.returncode != 0:
            return f"cannot create a network namespace: {res.stderr.strip()}"
    finally:
        _ip("netns", "del", probe, check=False)
    return None


def list_namespaces() -> list[str]:
    out = _ip("netns", "list", check=False).stdout
    return [line.split()[0] for line in out.splitlines() if line.strip()]


def remove_stale() -> list[str]:
    """Delete namespaces of ours whose creating process no longer exists."""
    removed = []
    for ns in list_namespaces():
        m = _NAME_RE.match(ns)
        if m and not Path(f"/proc/{m.group(1)}").exists():
            _ip("netns", "del", ns, check=False)
            removed.append(ns)
    return removed


def root_links() -> set[str]:
    """Names of the links in the root namespace (to prove we add none)."""
    out = _ip("-o", "link", "show", check=False).stdout
    return {line.split(":")[1].strip().split("@")[0] for line in out.splitlines() if ":" in line}


@dataclass(frozen=True)
class Peer:
    index: int
    netns: str
    address: str  # IPv4 of eth0 inside the namespace
    bridge_port: str  # name of its veth end in the bridge namespace


class NsProcess:
    """A process in a namespace that answers JSON lines (one reply per request)."""

    def __init__(self, popen: subprocess.Popen, stderr_path: Path, label: str) -> None:
        self.popen = popen
        self.stderr_path = stderr_path
        self.label = label
        self._buf = b""
        self._seq = 0

    def send(self, obj: dict) -> None:
        assert self.popen.stdin is not None
        self.popen.stdin.write((json.dumps(obj) + "\n").encode())
        self.popen.stdin.flush()

    def read(self, timeout: float) -> dict:
        """Next JSON line from stdout, within ``timeout`` seconds."""
        assert self.popen.stdout is not None
        fd = self.popen.stdout.fileno()
        deadline = time.monotonic() + timeout
        while b"\n" not in self._buf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"{self.label}: no reply in {timeout}s{self._stderr_tail()}")
            ready, _, _ = select.select([fd], [], [], left)
            if ready:
                chunk = os.read(fd, 65536)
                if not chunk:
                    raise EOFError(f"{self.label} exited{self._stderr_tail()}")
                self._buf += chunk
        line, self._buf = self._buf.split(b"\n", 1)
        return json.loads(line)

    def call(self, op: str, reply_timeout: float | None = None, **fields) -> dict:
        """Send ``{"op": op, **fields}``, wait for its reply; raise if it reports an error.

        The reply is awaited for ``reply_timeout`` seconds (default: the
        request's own ``timeout`` field plus 10).
        """
        self._seq += 1
        request = {"op": op, **fields, "id": self._seq}
        if reply_timeout is None:
            reply_timeout = float(fields.get("timeout") or 0) + 10
        self.send(request)
        reply = self.read(reply_timeout)
        if reply.get("id") != self._seq:
            raise RuntimeError(f"{self.label}: reply out of order: {reply}")
        if "error" in reply:
            raise RuntimeError(f"{self.label}: {request['op']} failed: {reply['error']}")
        return reply

    def _stderr_tail(self) -> str:
        try:
            tail = self.stderr_path.read_text(errors="replace")[-2000:]
        except OSError:
            return ""
        return f"\n--- {self.label} stderr ---\n{tail}" if tail.strip() else ""

    def stop(self, timeout: float = 3) -> None:
        """Close stdin (agents exit on EOF), then terminate, then kill. Never hangs."""
        p = self.popen
        if p.poll() is None:
            with contextlib.suppress(OSError):
                if p.stdin:
                    p.stdin.close()
            try:
                p.wait(timeout)
            except subprocess.TimeoutExpired:
                p.terminate()
                try:
                    p.wait(1)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait(5)
        for f in (p.stdin, p.stdout):
            with contextlib.suppress(OSError):
                if f:
                    f.close()


class NetnsLan:
    """N peer namespaces on one bridge that lives in its own namespace."""

    def __init__(self, n_peers: int, *, subnet: str = "10.231.0") -> None:
        if not 1 <= n_peers <= 200:
            raise ValueError("1..200 peers")
        tag = f"{_PREFIX}{os.getpid()}x{secrets.token_hex(3)}"
        self.bridge_ns = f"{tag}-br"
        self.peers = [
            Peer(i, f"{tag}-p{i}", f"{subnet}.{i + 1}", f"br-p{i}") for i in range(n_peers)
        ]
        self._created: list[str] = []
        self._procs: list[NsProcess] = []
        self._tmp = Path(tempfile.mkdtemp(prefix=f"{tag}-"))

    # -------------------------------------------------------------- lifecycle
    def setup(self) -> NetnsLan:
        try:
            br = self.bridge_ns
            self._add_ns(br)
            _ipn(br, "link set lo up")
            _ipn(br, "link add br0 type bridge stp_state 0 mcast_snooping 0")
            _ipn(br, "link set br0 up")
            for p in self.peers:
                ns, port = p.netns, p.bridge_port
                self._add_ns(ns)
                _ipn(ns, "link set lo up")
                # both ends are born inside namespaces, never in the root one
                _ipn(ns, f"link add eth0 type veth peer name {port} netns {br}")
                _ipn(br, f"link set {port} master br0")
                _ipn(br, f"link set {port} up")
                _ipn(ns, f"addr add {p.address}/24 dev eth0")
                _ipn(ns, "link set eth0 up")
                _ipn(ns, "route add 224.0.0.0/4 dev eth0")  # mDNS leaves by eth0
        except BaseException:
            self.teardown()
            raise
        return self

    def _add_ns(self, name: str) -> None:
        _ip("netns", "add", name)
        self._created.append(name)

    def teardown(self) -> None:
        """Stop every process we started, then delete every namespace (and so every link)."""
        for proc in self._procs:
            with contextlib.suppress(Exception):
                proc.stop()
        self._procs.clear()
        for ns in reversed(self._created):
            _ip("netns", "del", ns, check=False)
        self._created.clear()
        shutil.rmtree(self._tmp, ignore_errors=True)

    def __enter__(self) -> NetnsLan:
        return self.setup()

    def __exit__(self, *exc: object) -> None:
        self.teardown()

    @property
    def namespaces(self) -> list[str]:
        return list(self._created)

    # ------------------------------------------------------------- processes
    def exec_argv(self, i: int, argv: Sequence[str]) -> list[str]:
        return [IP, "netns", "exec", self.peers[i].netns, *argv]

    def run(self, i: int, argv: Sequence[str], timeout: float = 10) -> subprocess.CompletedProcess:
        """Run a command to completion inside peer i's namespace."""
        return subprocess.run(
            self.exec_argv(i, argv), capture_output=True, text=True, timeout=timeout, check=False
        )

    def run_python(self, i: int, code: str, timeout: float = 10) -> subprocess.CompletedProcess:
        """Run a Python snippet with this interpreter inside peer i's namespace."""
        return self.run(i, [sys.executable, "-c", code], timeout=timeout)

    def spawn_json(self, i: int, argv: Sequence[str], label: str | None = None) -> NsProcess:
        """Start a JSON-lines process in peer i's namespace; stopped at teardown."""
        label = label or f"p{i}"
        err = self._tmp / f"{label}-{len(self._procs)}.stderr"
        with err.open("wb") as errf:
            popen = subprocess.Popen(
                self.exec_argv(i, argv),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=errf,
                start_new_session=True,
            )
        proc = NsProcess(popen, err, label)
        self._procs.append(proc)
        return proc

    # ------------------------------------------------------------ partitions
    def partition(self, i: int) -> None:
        """Cut peer i off the LAN: its bridge port goes down."""
        _ipn(self.bridge_ns, f"link set {self.peers[i].bridge_port} down")

    def port_is_up(self, i: int) -> bool:
        out = _ipn(self.bridge_ns, f"-o link show {self.peers[i].bridge_port}").stdout
        return "state DOWN" not in out and ",UP" in out

    def heal(self, i: int) -> None:
        _ipn(self.bridge_ns, f"link set {self.peers[i].bridge_port} up")
