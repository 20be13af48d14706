"""Guest connections kept open against a host in open admission: the host's RSS and fds.

Loopback only. A host ``Mesh`` (open admission, as while a lobby is open) runs in a
child process; this process opens N CURVE DEALER connections to it, each with its
own key, sends one frame on each and keeps them all open, then reads the child's
RSS and open descriptors from /proc. Run: ``python bench/bench_lobby_connections.py
[N] [--no-cap]`` (default 1000; ``--no-cap``: without ``max_guest_connections``, as
before it existed). docs/network.md, "The lobby", quotes the result.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time

import zmq
from zmq.utils import z85

HOST = r"""
import asyncio, sys
from zmq.utils import z85
from zsy_lan.net.transport import CurveKeyPair, Mesh, MeshOptions

async def main():
    kp = CurveKeyPair.generate()
    options = MeshOptions(max_guest_connections=None) if "--no-cap" in sys.argv else None
    mesh = await Mesh.start("127.0.0.1", 0, kp.secret, open_admission=True, options=options)
    print(mesh.endpoint, z85.encode(kp.public).decode(), flush=True)
    loop = asyncio.get_running_loop()
    await loop.run_in_executor(None, sys.stdin.readline)  # until the bench is done
    await mesh.close()

asyncio.run(main())
"""


def _status(pid: int) -> tuple[float, int]:
    """(RSS in MB, open file descriptors) of ``pid``."""
    rss = 0.0
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                rss = int(line.split()[1]) / 1024
    return rss, len(os.listdir(f"/proc/{pid}/fd"))


def main(n: int = 1000, cap: bool = True) -> None:
    child = subprocess.Popen(
        [sys.executable, "-c", HOST, *([] if cap else ["--no-cap"])],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    ctx = zmq.Context()
    socks = []
    try:
        assert child.stdout is not None and child.stdin is not None
        endpoint, server_key = child.stdout.readline().split()
        time.sleep(0.5)
        rss0, fds0 = _status(child.pid)
        print(f"host idle: {rss0:.1f} MB RSS, {fds0} fds")
        for _ in range(n):
            public, secret = zmq.curve_keypair()
            s = ctx.socket(zmq.DEALER)
            socks.append(s)
            s.linger = 0
            s.curve_serverkey = server_key.encode()
            s.curve_publickey, s.curve_secretkey = public, secret
            s.routing_id = b"Z" + z85.decode(public)
            s.connect(endpoint)
            s.send(b"not a lobby frame", zmq.DONTWAIT)
        for _ in range(40):  # let the handshakes finish (bounded)
            time.sleep(0.5)
        rss1, fds1 = _status(child.pid)
        print(f"host with {n} guest connections kept open: {rss1:.1f} MB RSS, {fds1} fds")
        print(f"difference: {rss1 - rss0:+.1f} MB, {fds1 - fds0:+d} fds")
    finally:
        ctx.destroy(linger=0)
        if child.stdin is not None:
            child.stdin.close()
        try:
            child.wait(10)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()


if __name__ == "__main__":
    numbers = [a for a in sys.argv[1:] if a.isdigit()]
    main(int(numbers[0]) if numbers else 1000, cap="--no-cap" not in sys.argv)
