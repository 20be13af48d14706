"""LANs with no route between them, and a relay reachable from each (namespaces).

Topology (nothing is created in the machine's own namespace)::

    <T>-p0 10.232.1.1 ─┐                          ┌─ 10.232.2.1 <T>-p2
    <T>-p1 10.232.1.2 ─┤ br0   (<T>-br)   br1    ├─ 10.232.2.2 <T>-p3
                       └─ 10.232.1.100  <T>-p4  10.232.2.100 ─┘
                               relay: 10.232.9.1 on its lo

* LAN A (br0) and LAN B (br1) are two bridges with no address: nothing
  routes between them. The relay namespace has a leg on each and forwarding
  off (``net.ipv4.ip_forward=0``), so it answers both LANs but carries no
  packet from one to the other: a peer of LAN A cannot reach LAN B at all
  (``connect`` fails with "network unreachable").
* The relay listens on 10.232.9.1 (its loopback), which every peer reaches
  through its own LAN's leg of the relay namespace: one relay URL for all.
* ``lans=3, per_lan=1`` (:func:`isolated_seats`): every seat alone on its LAN, so the
  seats reach each other *only* through the relay's namespace (the broker tests).
* Names follow ``tests/lan/netns.py`` (``zsylan<pid>x<hex>-p<i>`` / ``-br``),
  so its ``remove_stale`` also clears what a killed run left behind.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

_LAN = str(Path(__file__).resolve().parent.parent / "lan")
if _LAN not in sys.path:
    sys.path.insert(0, _LAN)

import netns  # noqa: E402

RELAY_IP = "10.232.9.1"


class SplitLans:
    """Peers 0..1 on LAN A, 2..3 on LAN B (``per_lan`` each; ``lans`` LANs), the relay as
    index ``relay``.

    ``one_lan``: every peer on LAN A instead (all links direct, the same veths and
    bridge hops: the baseline of ``bench/bench_relay.py --netns``).
    """

    def __init__(self, per_lan: int = 2, *, one_lan: bool = False, lans: int = 2) -> None:
        tag = f"{netns._PREFIX}{os.getpid()}x{secrets.token_hex(3)}"  # noqa: SLF001
        self.bridge_ns = f"{tag}-br"
        self.addresses: list[str] = []
        self.namespaces: list[str] = []
        self.one_lan = one_lan  # every peer on LAN A (the direct case of bench_relay --netns)
        self.lans = lans
        for lan in range(1, lans + 1):
            for k in range(per_lan):
                self.namespaces.append(f"{tag}-p{len(self.namespaces)}")
                n = len(self.addresses)
                self.addresses.append(f"10.232.1.{n + 1}" if one_lan else f"10.232.{lan}.{k + 1}")
        self.relay = len(self.namespaces)
        self.namespaces.append(f"{tag}-p{self.relay}")
        self.per_lan = per_lan
        self._created: list[str] = []
        self._procs: list[subprocess.Popen] = []
        self.tmp = Path(tempfile.mkdtemp(prefix=f"{tag}-"))

    def lan_of(self, i: int) -> int:
        return 1 if self.one_lan else i // self.per_lan + 1

    def setup(self) -> SplitLans:
        ipn = netns._ipn  # noqa: SLF001
        try:
            br = self.bridge_ns
            self._add(br)
            ipn(br, "link set lo up")
            for b in (f"br{k}" for k in range(self.lans)):
                ipn(br, f"link add {b} type bridge stp_state 0 mcast_snooping 0")
                ipn(br, f"link set {b} up")
            rns = self.namespaces[self.relay]
            self._add(rns)
            ipn(rns, "link set lo up")
            ipn(rns, f"addr add {RELAY_IP}/32 dev lo")
            for lan in range(1, self.lans + 1):
                leg = f"eth{lan - 1}"
                port = f"br-r{lan}"
                ipn(rns, f"link add {leg} type veth peer name {port} netns {br}")
                ipn(br, f"link set {port} master br{lan - 1}")
                ipn(br, f"link set {port} up")
                ipn(rns, f"addr add 10.232.{lan}.100/24 dev {leg}")
                ipn(rns, f"link set {leg} up")
            self.run(self.relay, ["sysctl", "-q", "-w", "net.ipv4.ip_forward=0"])
            for i, (ns, addr) in enumerate(zip(self.namespaces, self.addresses, strict=False)):
                lan = self.lan_of(i)
                port = f"br-p{i}"
                self._add(ns)
                ipn(ns, "link set lo up")
                ipn(ns, f"link add eth0 type veth peer name {port} netns {br}")
                ipn(br, f"link set {port} master br{lan - 1}")
                ipn(br, f"link set {port} up")
                ipn(ns, f"addr add {addr}/24 dev eth0")
                ipn(ns, "link set eth0 up")
                ipn(ns, f"route add {RELAY_IP}/32 via 10.232.{lan}.100")
        except BaseException:
            self.teardown()
            raise
        return self

    def _add(self, name: str) -> None:
        netns._ip("netns", "add", name)  # noqa: SLF001
        self._created.append(name)

    def exec_argv(self, i: int, argv: Sequence[str]) -> list[str]:
        return [netns.IP, "netns", "exec", self.namespaces[i], *argv]

    def run(self, i: int, argv: Sequence[str], timeout: float = 10) -> subprocess.CompletedProcess:
        return subprocess.run(
            self.exec_argv(i, argv), capture_output=True, text=True, timeout=timeout, check=False
        )

    def spawn(self, i: int, argv: Sequence[str], out: Path, env: dict) -> subprocess.Popen:
        """Start ``argv`` in namespace ``i`` (own session), output to ``out``; killed at the end."""
        with out.open("ab") as f:
            p = subprocess.Popen(
                self.exec_argv(i, argv),
                stdin=subprocess.DEVNULL,
                stdout=f,
                stderr=subprocess.STDOUT,
                env=env,
                cwd=self.tmp,
                start_new_session=True,
            )
        self._procs.append(p)
        return p

    @staticmethod
    def kill(p: subprocess.Popen, sig: int = signal.SIGKILL) -> None:
        if p.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(p.pid, sig)
            with contextlib.suppress(subprocess.TimeoutExpired):
                p.wait(5)

    def teardown(self) -> None:
        for p in self._procs:
            self.kill(p)
        self._procs.clear()
        for ns in reversed(self._created):
            netns._ip("netns", "del", ns, check=False)  # noqa: SLF001
        self._created.clear()
        shutil.rmtree(self.tmp, ignore_errors=True)

    def __enter__(self) -> SplitLans:
        return self.setup()

    def __exit__(self, *exc: object) -> None:
        self.teardown()


def isolated_seats(seats: int) -> SplitLans:
    """``seats`` namespaces, each alone on its LAN: only the relay's namespace joins them."""
    return SplitLans(per_lan=1, lans=seats)
