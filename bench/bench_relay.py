"""Relay benchmark: play latency through ``zsy relay`` (an MQTT broker) against direct
links, and the broker's CPU.

Everything runs on 127.0.0.1 (no mDNS). Three ways to seat the same table
of peer processes (bots playing every seat; one process per seat, as
``bench/bench_table.py`` does, whose instrumentation is reused):

* ``direct``: no relay (the LAN case);
* ``relay-idle``: ``zsy host --relay`` attached, every direct link up: the
  relay carries only the links' pings (this shows what attaching costs);
* ``relay``: every direct link is pointed at a closed port (connections are
  refused), so every frame, the lobby's too, goes through the relay, sealed
  end to end: the case of two peers that cannot reach each other.

The relay is ``zsy relay --broker amqtt`` (:class:`BrokerProcess`; ``--broker
mosquitto`` for Mosquitto, which counts nothing, so latency only). Until issue #29 it
was a home-made ZeroMQ relay; docs/performance.md keeps one sentence of its figures.

**Through the broker per round**: the PUBLISH packets (frames, pings and pongs) and
their bytes the broker received in the ``relay`` mode, counted by its guard
(``Broker stopped: ...``), over the rounds played (medians over ``--repeat`` runs, as
the latency ratio is).

**Play latency** is from the moment a seat hands its action to its replica
to the moment the last replica applied it (p50, p99). **Relay CPU per
frame** is the broker process's user+system CPU time (``/proc/PID/stat``)
over the PUBLISH packets it carried, both for the whole match and for a plain
stream of frames (``--stream N``: one sender, one receiver, 400-byte frames).

**Namespace mode** (``--netns``, root only): the same match between peers
in their own network namespaces (``tests/relay/topology.py``, which the bench
creates and always removes; nothing touches this machine's interfaces):

* ``ns-direct``: every peer on one bridge, every link direct;
* ``ns-relay``: two LANs (two bridges) with no route between them, peers 0..1
  on LAN A, 2..3 on LAN B, ``zsy relay`` in a namespace with a leg on each:
  the links inside a LAN are direct, the four across go through the relay.

Every process runs under ``nice -n 10`` (the machine is shared). Latency
adds p95 there; the ratio is ns-relay over ns-direct.

Usage::

    .venv/bin/python bench/bench_relay.py                  # 4 peers, 2 rounds, open deal
    .venv/bin/python bench/bench_relay.py --deal private --rounds 1 --json
    .venv/bin/python bench/bench_relay.py --repeat 3 --stream 0 --broker mosquitto
    sudo .venv/bin/python bench/bench_relay.py --netns --repeat 3
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
    from zsy_lan.net.broker import parse_relay_url
    from zsy_lan.net.transport import Mesh
    from zsy_lan.protocol import Identity
    from zsy_lan.record.store import TableStore
    from zsy_lan.table.deciders import make_decider
    from zsy_lan.table.hosting import open_table
    from zsy_lan.table.joining import join_table
    from zsy_lan.table.reach import NetConfig

    if args.via == "relay":  # every direct link leads to a closed port: only the relay works
        real = Mesh.connect_peer
        dead = _dead_endpoint()

        def connect_peer(self: Mesh, peer_id: Any, endpoint: str, key: Any) -> None:
            real(self, peer_id, dead, key)

        Mesh.connect_peer = connect_peer  # type: ignore[method-assign]
    out = Path(args.out)
    rules = build_rules(args.players, [], {})
    net = NetConfig(address=args.address, mdns=False)
    if args.relay and args.url is None:
        net.relay = parse_relay_url(args.relay)  # the MQTT broker
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
    ap.add_argument("--address", default="127.0.0.1")
    args = ap.parse_args(argv)
    from zsy_lan.runtime import tune_for_table

    tune_for_table()
    asyncio.run(_agent(args))


# --------------------------------------------------------------------------- relay


class BrokerProcess:
    """``zsy relay --broker ENGINE`` on 127.0.0.1 in its own process (what run_table needs)."""

    engine = "amqtt"

    def __init__(self, _data: Path) -> None:
        argv = [ZSY, "relay", "--broker", self.engine, "--address", "127.0.0.1", "--port", "0"]
        self.p = subprocess.Popen(
            argv,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            env=dict(os.environ, PYTHONUNBUFFERED="1", ZSY_LANG="en"),
            start_new_session=True,
        )
        out = b""
        deadline = time.monotonic() + 20
        while not re.search(rb"--relay (mqtt://\S+)\n", out):
            if time.monotonic() > deadline or self.p.poll() is not None:
                raise RuntimeError(f"zsy relay did not start: {out!r}")
            assert self.p.stdout is not None
            if select.select([self.p.stdout], [], [], 1)[0]:
                out += os.read(self.p.stdout.fileno(), 4096)
        self.url = re.search(rb"--relay (mqtt://\S+)\n", out).group(1).decode()  # type: ignore[union-attr]
        self.bytes: int | None = None

    def cpu(self) -> float:
        """CPU seconds of the broker: ``zsy relay`` itself (amqtt) or its child (Mosquitto)."""
        pids = [self.p.pid] + [
            int(c)
            for c in Path(f"/proc/{self.p.pid}/task/{self.p.pid}/children").read_text().split()
        ]
        return sum(_cpu(pid) for pid in pids)

    def stop(self) -> int:
        """Stop it; the PUBLISH packets it says it carried (their KiB into ``bytes``)."""
        self.p.send_signal(signal.SIGTERM)
        out, _ = self.p.communicate(timeout=10)
        frames, self.bytes = carried(out)
        return frames


def carried(said: bytes) -> tuple[int, int | None]:
    """The PUBLISH packets and their bytes in ``zsy relay``'s last line (amqtt counts them;
    Mosquitto does not: ``(0, None)``)."""
    m = re.search(rb"Broker stopped: \d+ connections, (\d+) messages carried \((\d+) KiB", said)
    return (int(m.group(1)), int(m.group(2)) * 1024) if m else (0, None)


# --------------------------------------------------------------------------- driver


def run_table(
    via: str, players: int, rounds: int, deal: str, level: str, carrier: Any = None
) -> dict[str, Any]:
    """One match on loopback; ``carrier`` makes what carries it (default:
    :class:`BrokerProcess`): ``.url``, ``.cpu()``, ``.stop()`` -> frames, and ``.bytes``
    after ``stop`` if it counts them."""
    me = str(Path(__file__).resolve())
    with tempfile.TemporaryDirectory(prefix="zsy-bench-relay-") as tmp:
        relay = (carrier or BrokerProcess)(Path(tmp) / "relay") if via != "direct" else None
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
        "relay_bytes": getattr(relay, "bytes", None),
        "relay_cpu_us_per_frame": round(relay_cpu * 1e6 / frames, 1) if frames else None,
    }


def _latencies(records: list[dict[str, Any]], players: int) -> list[float]:
    """Per play: ms from the seat's act to the last replica's application of it."""
    assert len(records) == players and all(r["finished"] for r in records)
    assert len({r["head"] for r in records}) == 1, "transcripts differ"
    n = min(len(r["applied"]) for r in records)
    played: dict[int, float] = {}
    for r in records:
        played.update({int(k): v for k, v in r["played"].items()})
    return [
        (max(r["applied"][i][2] for r in records) - played[i]) * 1000
        for i in range(n)
        if i in played
    ]


def _wait_line(path: Path, pattern: bytes, procs: list[Any], timeout: float) -> re.Match[bytes]:
    """The first match of ``pattern`` in the file ``path`` (a process's output), bounded."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        m = re.search(pattern, path.read_bytes()) if path.exists() else None
        if m:
            return m
        if any(p.poll() not in (None, 0) for p in procs):
            break
        time.sleep(0.05)
    raise RuntimeError(f"no {pattern!r} in {path}: {path.read_bytes()[-2000:]!r}")


def run_table_ns(via: str, players: int, rounds: int, deal: str, level: str) -> dict[str, Any]:
    """One match between peers in namespaces: ``ns-direct`` (one LAN) or ``ns-relay``."""
    sys.path.insert(0, str(HERE.parent / "tests" / "relay"))
    sys.path.insert(0, str(HERE.parent / "tests" / "lan"))
    import netns  # noqa: PLC0415
    from topology import RELAY_IP, SplitLans  # noqa: PLC0415

    if players % 2:
        raise SystemExit("--netns needs an even number of peers (half on each LAN)")
    netns.remove_stale()
    topo = SplitLans(players // 2, one_lan=via == "ns-direct").setup()
    nice = ["nice", "-n", "10"]
    me = str(Path(__file__).resolve())
    tmp = topo.tmp
    env = dict(os.environ, PYTHONUNBUFFERED="1", TMPDIR=str(tmp), ZSY_LANG="en")
    try:
        relay = None
        relay_url = None
        if via == "ns-relay":
            argv = [*nice, ZSY, "relay", "--broker", "amqtt", "--address", RELAY_IP]
            relay = topo.spawn(topo.relay, [*argv, "--port", "1883"], tmp / "relay.out", env)
            m = _wait_line(tmp / "relay.out", rb"--relay (mqtt://\S+)\n", [relay], 20)
            relay_url = m.group(1).decode()
        cpu0 = _cpu(relay.pid) if relay else 0.0
        base = [*nice, sys.executable, me, "agent", "--players", str(players)]
        base += ["--rounds", str(rounds), "--out", str(tmp), "--level", level, "--deal", deal]
        base += ["--via", "direct"]
        host_argv = [*base, "--address", topo.addresses[0]]
        host_argv += ["--relay", relay_url] if relay_url else []
        procs = [topo.spawn(0, host_argv, tmp / "p0.out", env)]
        url = _wait_line(tmp / "p0.out", rb"URL (\S+)\n", procs, 30).group(1).decode()
        for i in range(1, players):
            argv = [*base, "--address", topo.addresses[i], "--url", url]
            procs.append(topo.spawn(i, argv, tmp / f"p{i}.out", env))
        deadline = time.monotonic() + 400
        for i, p in enumerate(procs):
            if p.wait(max(1.0, deadline - time.monotonic())) != 0:
                raise RuntimeError(f"peer {i} failed: {(tmp / f'p{i}.out').read_text()[-2000:]}")
        relay_cpu = (_cpu(relay.pid) - cpu0) if relay else 0.0
        frames = 0
        if relay is not None:
            relay.send_signal(signal.SIGTERM)
            relay.wait(10)
            frames = carried((tmp / "relay.out").read_bytes())[0]
        records = [json.loads(f.read_text()) for f in sorted(tmp.glob("seat-*.json"))]
    finally:
        topo.teardown()
    lat = _latencies(records, players)
    paths = sorted({p for r in records for p in r["links"].values()})
    return {
        "via": via,
        "peers": players,
        "deal": deal,
        "plays": len(lat),
        "links": paths,
        "latency_ms": {
            "p50": round(bench_table._pct(lat, 0.5), 2),  # noqa: SLF001
            "p95": round(bench_table._pct(lat, 0.95), 2),  # noqa: SLF001
            "p99": round(bench_table._pct(lat, 0.99), 2),  # noqa: SLF001
            "mean": round(statistics.fmean(lat), 2),
        },
        "relay_frames": frames,
        "relay_cpu_us_per_frame": round(relay_cpu * 1e6 / frames, 1) if frames else None,
    }


def _cpu(pid: int) -> float:
    """User + system CPU seconds of process ``pid`` so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main_netns(args: argparse.Namespace) -> None:
    """``--netns``: ns-direct then ns-relay, ``--repeat`` times each, and the ratios."""
    runs: list[dict[str, Any]] = []
    for _ in range(args.repeat):
        for via in ("ns-direct", "ns-relay"):
            runs.append(run_table_ns(via, args.peers, args.rounds, args.deal, args.level))
    direct = [r for r in runs if r["via"] == "ns-direct"]
    relayed = [r for r in runs if r["via"] == "ns-relay"]

    def med(rs: list[dict[str, Any]], q: str) -> float:
        return statistics.median(r["latency_ms"][q] for r in rs)

    ratio = {q: round(med(relayed, q) / med(direct, q), 2) for q in ("p50", "p95", "p99")}
    if args.json:
        print(json.dumps({"tables": runs, "ratio": ratio}, indent=2))
        return
    for t in runs:
        lat = t["latency_ms"]
        cpu = t["relay_cpu_us_per_frame"]
        print(
            f"{t['via']:>9}: {t['plays']} plays, links {'/'.join(t['links'])}, latency "
            f"p50 {lat['p50']} p95 {lat['p95']} p99 {lat['p99']} ms; relay frames "
            f"{t['relay_frames']}" + (f", relay CPU {cpu} us/frame" if cpu else "")
        )
    print(f"ratio ns-relay/ns-direct (medians of runs): {ratio}")


async def _stream(url: str, n: int) -> tuple[float, float]:
    """``n`` 400-byte frames from one mesh to another through the relay; (seconds, rtt ms)."""
    from zsy_lan.net.broker import parse_relay_url
    from zsy_lan.net.transport import CurveKeyPair, Mesh

    addr = parse_relay_url(url)
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
        relay = BrokerProcess(Path(tmp))
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
    ap.add_argument("--stream", type=int, default=5000, help="frames for the stream test (0: none)")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--netns", action="store_true", help="peers in network namespaces (root)")
    ap.add_argument("--repeat", type=int, default=1, help="runs of each mode (medians)")
    ap.add_argument(
        "--broker",
        choices=["amqtt", "mosquitto"],
        default="amqtt",
        help="the broker zsy relay starts (Mosquitto reports no counts: latency only)",
    )
    args = ap.parse_args()
    BrokerProcess.engine = args.broker
    if args.netns:
        main_netns(args)
        return
    runs = [
        run_table(via, args.peers, args.rounds, args.deal, args.level)
        for _ in range(args.repeat)
        for via in ("direct", "relay-idle", "relay")
    ]
    direct = [r for r in runs if r["via"] == "direct"]
    relayed = [r for r in runs if r["via"] == "relay"]

    def med(rs: list[dict[str, Any]], q: str) -> float:
        return statistics.median(r["latency_ms"][q] for r in rs)

    frames = statistics.median(r["relay_frames"] for r in relayed)
    kib = statistics.median((r["relay_bytes"] or 0) / 1024 for r in relayed)
    result = {
        "broker": args.broker,
        "tables": runs,
        "ratio_p50": round(med(relayed, "p50") / med(direct, "p50"), 2),
        "ratio_p99": round(med(relayed, "p99") / med(direct, "p99"), 2),
        "per_round": {"frames": round(frames / args.rounds), "kib": round(kib / args.rounds, 1)},
        "stream": run_stream(args.stream) if args.stream else None,
    }
    if args.json:
        print(json.dumps(result, indent=2))
        return
    for t in runs:
        lat = t["latency_ms"]
        cpu = t["relay_cpu_us_per_frame"]
        print(
            f"{t['via']:>10}: {t['plays']} plays, links {'/'.join(t['links'])}, "
            f"latency p50 {lat['p50']} ms p99 {lat['p99']} ms; relay frames {t['relay_frames']}"
            + (f", relay CPU {cpu} us/frame" if cpu else "")
        )
    ratios = f"p50 {result['ratio_p50']}, p99 {result['ratio_p99']}"
    print(f"ratio relay/direct (medians of runs): {ratios}")
    pr = result["per_round"]
    print(f"through the broker per round: {pr['frames']} messages, {pr['kib']} KiB")
    s = result["stream"]
    if s is not None:
        print(
            f"stream: {s['frames']} frames in {s['seconds']} s, relay CPU "
            f"{s['relay_cpu_us_per_frame']} us/frame, RTT {s['rtt_ms']} ms"
        )

if __name__ == "__main__":
    main()
