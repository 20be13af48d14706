"""Relay benchmark: play latency through ``zsy relay`` against direct links, and relay CPU.

Everything runs on 127.0.0.1 (no mDNS). Three ways to seat the same table
of peer processes (bots playing every seat; one process per seat, as
``bench/bench_table.py`` does, whose instrumentation is reused):

* ``direct``: no relay (the LAN case);
* ``relay-idle``: ``zsy host --relay`` attached, every direct link up: the
  relay carries only the links' pings (this shows what attaching costs);
* ``relay``: every direct link is pointed at a closed port (connections are
  refused), so every frame, the lobby's too, goes through the relay, sealed
  end to end: the case of two peers that cannot reach each other.

**Play latency** is from the moment a seat hands its action to its replica
to the moment the last replica applied it (p50, p99). **Relay CPU per
frame** is the relay process's user+system CPU time (``/proc/PID/stat``)
over the frames it forwarded, both for the whole match and for a plain
stream of frames (``--stream N``: one sender, one receiver, 400-byte frames).

Usage::

    .venv/bin/python bench/bench_relay.py                  # 4 peers, 2 rounds, open deal
    .venv/bin/python bench/bench_relay.py --deal private --rounds 1 --json
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import resource
import select
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import bench_table  # noqa: E402  (its instrumentation: _instrument, _pct)

ZSY = str(Path(sys.executable).with_name("zsy"))


def _dead_endpoint() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"tcp://127.0.0.1:{s.getsockname()[1]}"


# --------------------------------------------------------------------------- agent


async def _agent(args: argparse.Namespace) -> None:
    from zsy_lan.engine.ruleset import build_rules
    from zsy_lan.protocol import Identity
    from zsy_lan.relay import RelayAddress
    from zsy_lan.store import TableStore
    from zsy_lan.table import NetConfig, join_table, make_decider, open_table
    from zsy_lan.transport import Mesh

    if args.via == "relay":  # every direct link leads to a closed port: only the relay works
        real = Mesh.connect_peer
        dead = _dead_endpoint()

        def connect_peer(self: Mesh, peer_id: Any, endpoint: str, key: Any) -> None:
            real(self, peer_id, dead, key)

        Mesh.connect_peer = connect_peer  # type: ignore[method-assign]
    out = Path(args.out)
    rules = build_rules(args.players, [], {})
    net = NetConfig(address="127.0.0.1", mdns=False)
    if args.relay and args.url is None:
        net.relay = RelayAddress.parse(args.relay)
    ident = Identity.generate()
    record: dict[str, Any] = {"applied": [], "played": {}, "need": {}, "seeded": {}}

    def store_for(table: str, seat: int) -> TableStore:
        return TableStore(out / f"state-{os.getpid()}")

    def notify(line: str) -> None:
        m = re.search(r"zsy join (tcp://[^\s)]+)", line)
        if m:
            print(f"URL {m.group(1)}", flush=True)

    if args.url is None:
        hosted = await open_table(
            ident,
            rules,
            args.rounds,
            "bench",
            "host",
            lambda t: store_for(t, 0),
            net,
            notify=notify,
            deal=args.deal,
        )
        peer, mesh = hosted.peer, hosted.mesh
    else:
        peer, mesh = await join_table(
            ident, args.url, f"p{os.getpid()}", store_for, net, notify=lambda _: None
        )
    peer.decider = make_decider(args.level, ident.public_key)
    peer.linger = 1.0
    bench_table._instrument(peer, record)  # noqa: SLF001
    try:
        await asyncio.wait_for(peer.run(), args.timeout)
    finally:
        record["links"] = {str(k): v[0] for k, v in mesh.link_report().items()}
        await mesh.close()
    record["seat"] = peer.seat
    record["finished"] = peer.game.finished()
    record["head"] = peer.replica.transcript_head()
    record["rss_kb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    (out / f"seat-{peer.seat}.json").write_text(json.dumps(record))


def agent_main(argv: list[str]) -> None:
    ap = argparse.ArgumentParser(prog="bench_relay.py agent")
    for name in ("--out", "--via", "--deal", "--level"):
        ap.add_argument(name, required=True)
    ap.add_argument("--players", type=int, required=True)
    ap.add_argument("--rounds", type=int, required=True)
    ap.add_argument("--timeout", type=float, default=300)
    ap.add_argument("--url", default=None)
    ap.add_argument("--relay", default=None)
    args = ap.parse_args(argv)
    from zsy_lan.runtime import tune_for_table

    tune_for_table()
    asyncio.run(_agent(args))


# --------------------------------------------------------------------------- relay


class RelayProcess:
    """``zsy relay`` on 127.0.0.1 in its own process; CPU time read from /proc."""

    def __init__(self, data: Path) -> None:
        self.p = subprocess.Popen(
            [ZSY, "relay", "--address", "127.0.0.1", "--port", "0", "--data-dir", str(data)],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            env=dict(os.environ, PYTHONUNBUFFERED="1", ZSY_LANG="en"),
            start_new_session=True,
        )
        out = b""
        deadline = time.monotonic() + 20
        while b"--relay " not in out or not out.endswith(b"\n"):
            if time.monotonic() > deadline or self.p.poll() is not None:
                raise RuntimeError(f"zsy relay did not start: {out!r}")
            assert self.p.stdout is not None
            if select.select([self.p.stdout], [], [], 1)[0]:
                out += os.read(self.p.stdout.fileno(), 4096)
        self.url = re.search(rb"--relay (zsy-relay://\S+)", out).group(1).decode()  # type: ignore[union-attr]

    def cpu(self) -> float:
        """User + system CPU seconds of the relay process so far."""
        fields = Path(f"/proc/{self.p.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def stop(self) -> int:
        """Stop it; the number of frames it says it forwarded."""
        self.p.send_signal(signal.SIGTERM)
        out, _ = self.p.communicate(timeout=10)
        m = re.search(rb"Relay stopped: (\d+) frames", out)
        return int(m.group(1)) if m else 0


# --------------------------------------------------------------------------- driver


def run_table(via: str, players: int, rounds: int, deal: str, level: str) -> dict[str, Any]:
    me = str(Path(__file__).resolve())
    with tempfile.TemporaryDirectory(prefix="zsy-bench-relay-") as tmp:
        relay = RelayProcess(Path(tmp) / "relay") if via != "direct" else None
        base = [sys.executable, me, "agent", "--players", str(players), "--rounds", str(rounds)]
        base += ["--out", tmp, "--level", level, "--deal", deal, "--via", via]
        env = dict(os.environ, PYTHONUNBUFFERED="1", TMPDIR=tmp)
        procs: list[subprocess.Popen[bytes]] = []
        try:
            cpu0 = relay.cpu() if relay else 0.0
            host_argv = base + (["--relay", relay.url] if relay else [])
            host = subprocess.Popen(
                host_argv, stdout=subprocess.PIPE, env=env, start_new_session=True
            )
            procs.append(host)
            assert host.stdout is not None
            line = host.stdout.readline().decode()
            if not line.startswith("URL "):
                raise RuntimeError(f"host agent said {line!r}")
            url = line.split()[1]
            for _ in range(players - 1):
                procs.append(
                    subprocess.Popen([*base, "--url", url], env=env, start_new_session=True)
                )
            for p in procs:
                if p.wait(400) != 0:
                    raise RuntimeError("a peer process failed")
            relay_cpu = (relay.cpu() - cpu0) if relay else 0.0
            frames = relay.stop() if relay else 0
        finally:
            for p in procs:
                if p.poll() is None:
                    os.killpg(p.pid, signal.SIGKILL)
                    p.wait(5)
            if relay is not None and relay.p.poll() is None:
                os.killpg(relay.p.pid, signal.SIGKILL)
                relay.p.wait(5)
        records = [json.loads(f.read_text()) for f in sorted(Path(tmp).glob("seat-*.json"))]
    assert len(records) == players and all(r["finished"] for r in records)
    assert len({r["head"] for r in records}) == 1, "transcripts differ"
    n = min(len(r["applied"]) for r in records)
    played: dict[int, float] = {}
    for r in records:
        played.update({int(k): v for k, v in r["played"].items()})
    lat = [
        (max(r["applied"][i][2] for r in records) - played[i]) * 1000
        for i in range(n)
        if i in played
    ]
    paths = sorted({p for r in records for p in r["links"].values()})
    return {
        "via": via,
        "peers": players,
        "deal": deal,
        "plays": len(lat),
        "links": paths,
        "latency_ms": {
            "p50": round(bench_table._pct(lat, 0.5), 2),  # noqa: SLF001
            "p99": round(bench_table._pct(lat, 0.99), 2),  # noqa: SLF001
            "mean": round(statistics.fmean(lat), 2),
        },
        "relay_frames": frames,
        "relay_cpu_us_per_frame": round(relay_cpu * 1e6 / frames, 1) if frames else None,
    }


async def _stream(url: str, n: int) -> tuple[float, float]:
    """``n`` 400-byte frames from one mesh to another through the relay; (seconds, rtt ms)."""
    from zsy_lan.relay import RelayAddress
    from zsy_lan.transport import CurveKeyPair, Mesh

    addr = RelayAddress.parse(url)
    a = await Mesh.start("127.0.0.1", 0, CurveKeyPair.generate().secret)
    b = await Mesh.start("127.0.0.1", 0, CurveKeyPair.generate().secret)
    try:
        await a.attach_relay(addr, "stream")
        await b.attach_relay(addr, "stream")
        a.connect_peer(1, _dead_endpoint(), b.public_key)
        b.connect_peer(0, _dead_endpoint(), a.public_key)
        await a.wait_connected(1, 10)
        got = 0
        done = asyncio.Event()

        def on(_p: Any, _f: bytes) -> None:
            nonlocal got
            got += 1
            if got >= n:
                done.set()

        b.set_handler(on)
        t0 = time.monotonic()
        frame = os.urandom(400)
        for i in range(n):
            if not a.send_now(1, frame):
                await a.send(1, frame)
            if i % 500 == 499:
                await asyncio.sleep(0.3)  # stay under the relay's per-connection rate
        await asyncio.wait_for(done.wait(), 60)
        return time.monotonic() - t0, (a.link_report()[1][1] or 0) * 1000
    finally:
        await a.close()
        await b.close()


def run_stream(n: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="zsy-bench-relay-") as tmp:
        relay = RelayProcess(Path(tmp))
        try:
            cpu0 = relay.cpu()
            secs, rtt = asyncio.run(_stream(relay.url, n))
            cpu = relay.cpu() - cpu0
        finally:
            frames = relay.stop()
    return {
        "frames": frames,
        "seconds": round(secs, 2),
        "relay_cpu_us_per_frame": round(cpu * 1e6 / max(frames, 1), 1),
        "rtt_ms": round(rtt, 2),
    }


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "agent":
        agent_main(sys.argv[2:])
        return
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--peers", type=int, default=4)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--deal", choices=["open", "private"], default="open")
    ap.add_argument("--level", default="easy")
    ap.add_argument("--stream", type=int, default=5000, help="frames for the stream test")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    tables = [
        run_table(via, args.peers, args.rounds, args.deal, args.level)
        for via in ("direct", "relay-idle", "relay")
    ]
    direct, relayed = tables[0]["latency_ms"], tables[2]["latency_ms"]
    result = {
        "tables": tables,
        "ratio_p50": round(relayed["p50"] / direct["p50"], 2),
        "ratio_p99": round(relayed["p99"] / direct["p99"], 2),
        "stream": run_stream(args.stream),
    }
    if args.json:
        print(json.dumps(result, indent=2))
        return
    for t in tables:
        lat = t["latency_ms"]
        cpu = t["relay_cpu_us_per_frame"]
        print(
            f"{t['via']:>10}: {t['plays']} plays, links {'/'.join(t['links'])}, "
            f"latency p50 {lat['p50']} ms p99 {lat['p99']} ms; relay frames {t['relay_frames']}"
            + (f", relay CPU {cpu} us/frame" if cpu else "")
        )
    print(f"ratio relay/direct: p50 {result['ratio_p50']}, p99 {result['ratio_p99']}")
    s = result["stream"]
    print(
        f"stream: {s['frames']} frames in {s['seconds']} s, relay CPU "
        f"{s['relay_cpu_us_per_frame']} us/frame, RTT {s['rtt_ms']} ms"
    )


if __name__ == "__main__":
    main()
