"""LAN table benchmark: real peer processes over ZeroMQ on 127.0.0.1.

For 4 and 6 peers (one process each, bots playing every seat) it measures:

* **play latency**: from the moment a seat hands its action to its replica
  (signing and sending included; the bot's thinking not) to the moment the
  *last* replica applied it (p50, p99, max);
* **deal time** (commit-reveal, open deal): from the first replica that knows
  a deal is due (the previous round's last play applied there) to the last
  replica dealing that round. The first deal of a match also includes the
  peers connecting to each other, so it is reported apart;
* **peak resident memory** (``ru_maxrss``) of each peer process.

Every process stamps events with ``time.monotonic()`` (CLOCK_MONOTONIC, one
clock for the whole machine), so times from different processes compare.
Nothing leaves loopback: no mDNS, the host's ``tcp://127.0.0.1`` join URL.

Usage::

    .venv/bin/python bench/bench_table.py                 # 4 and 6 peers, open deal
    .venv/bin/python bench/bench_table.py --peers 4 --rounds 3 --deal private --json

``--pace MS`` makes every bot wait MS before deciding (in its worker thread),
so plays do not pile onto one another as at a table of people; the default 0
plays back to back. ``--breakdown`` adds where a play's time goes: the
author's act to its first send, the arrival at each receiver (1st to last),
and each receiver's handling (verify, order, check, apply).

The per-process agent is this file run with ``agent`` as first argument;
``ZSY_BENCH_PROFILE=FILE`` writes a CPU-time cProfile of every peer process
(the host's to FILE, the others' to FILE.PID).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

TARGET_P99_MS = 5.0
TARGET_DEAL_MS = 50.0
TARGET_RSS_MB = 100.0


# --------------------------------------------------------------------------- agent


def _instrument(peer: Any, record: dict[str, Any]) -> None:
    """Stamp each application (Applied / RoundSeeded), when a deal becomes due, and own acts.

    The stamps are taken where the ledger applies a message (``Ledger.drive``),
    so whatever the shell does with the events afterwards (narration, the UI,
    deferred work) is not counted as "applied" sooner or later than it was.
    """
    from zsy_lan.protocol import Applied, RoundSeeded

    applied: list[list[Any]] = record["applied"]
    ledger, act = peer.replica.ledger, peer._act
    drive = ledger.drive

    def timed_drive() -> Any:
        events = drive()
        now = time.monotonic()
        for ev in events:
            if isinstance(ev, Applied):
                applied.append([len(applied), ev.seat, now])
            elif isinstance(ev, RoundSeeded):
                record["seeded"].setdefault(str(ev.round), now)
        if peer.game.needs_seed():  # the round is over here (or the match starts): a deal is due
            record["need"].setdefault(str(ledger.round), now)
        return events

    def timed_act(action: Any) -> Any:
        t0 = time.monotonic()
        first = len(applied)  # the own action is applied (and stamped) inside _act
        events = act(action)
        mine = [e for e in events if isinstance(e, Applied)]
        for k, _ in enumerate(mine):
            record["played"][str(first + k)] = t0
        return events

    ledger.drive = timed_drive
    peer._act = timed_act
    if os.environ.get("ZSY_BENCH_BREAKDOWN"):
        _trace(peer, record, timed_act)


def _trace(peer: Any, record: dict[str, Any], act: Any) -> None:
    """``--breakdown``: stamp each own frame (act start, first send) and each receive.

    Frames are matched across processes by a short hash of their bytes.
    """
    import hashlib

    from zsy_lan.protocol import Send

    def key(frame: bytes) -> str:
        return hashlib.sha256(frame).hexdigest()[:16]

    sent: dict[str, list[float]] = record.setdefault("sent", {})  # key -> [act start, 1st send]
    got: dict[str, list[float]] = record.setdefault("got", {})  # key -> [receive start, end]
    starts: dict[str, float] = {}
    receive, queue = peer.replica.receive, peer._queue

    def traced_receive(frame: bytes, now: float) -> Any:
        t = time.monotonic()
        events = receive(frame, now)
        got.setdefault(key(frame), [t, time.monotonic()])
        return events

    def traced_act(action: Any) -> Any:
        starts["t"] = time.monotonic()
        events = act(action)
        for e in events:
            if isinstance(e, Send) and key(e.frame) in sent:
                sent[key(e.frame)][0] = starts["t"]
        return events

    def traced_queue(to: Any, frame: bytes) -> None:
        sent.setdefault(key(frame), [float("nan"), time.monotonic()])
        queue(to, frame)

    peer.replica.receive = traced_receive
    peer._act = traced_act
    peer._queue = traced_queue


def breakdown(records: list[dict[str, Any]]) -> dict[str, Any]:
    """Where a play's time goes: author to first send, arrivals in order, receive CPU."""
    to_send: list[float] = []
    arrivals: list[list[float]] = [[] for _ in records[1:]]
    handling: list[float] = []
    for r in records:
        for k, (t_act, t_send) in r.get("sent", {}).items():
            if t_act != t_act:  # nan: not an action of ours (a commit, a reveal, a control)
                continue
            rx = sorted(o["got"][k] for o in records if o is not r and k in o.get("got", {}))
            if len(rx) != len(records) - 1:
                continue
            to_send.append((t_send - t_act) * 1000)
            for i, (t0, t1) in enumerate(rx):
                arrivals[i].append((t0 - t_act) * 1000)
                handling.append((t1 - t0) * 1000)

    def p50(v: list[float]) -> float:
        return round(_pct(v, 0.5), 2)

    return {
        "frames": len(to_send),
        "act_to_first_send_ms": p50(to_send),
        "arrival_ms_by_order": [p50(a) for a in arrivals],
        "receive_and_apply_ms": p50(handling),
    }


def _thread_cpu() -> dict[str, float]:
    """CPU seconds per thread name (Linux /proc), e.g. ZeroMQ's I/O thread vs the loop."""
    out: dict[str, float] = {}
    tick = os.sysconf("SC_CLK_TCK")
    for task in Path("/proc/self/task").glob("*"):
        try:
            fields = (task / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        # thread names are not set here: the loop's thread has the process id
        name = "loop" if task.name == str(os.getpid()) else "other threads"
        out[name] = out.get(name, 0.0) + (int(fields[11]) + int(fields[12])) / tick
    return out


async def _agent(args: argparse.Namespace) -> None:
    from zsy_lan.engine.ruleset import build_rules
    from zsy_lan.protocol import Identity
    from zsy_lan.record.store import TableStore
    from zsy_lan.table.deciders import make_decider
    from zsy_lan.table.hosting import open_table
    from zsy_lan.table.joining import join_table
    from zsy_lan.table.reach import NetConfig

    out = Path(args.out)
    rules = build_rules(args.players, [], {})
    net = NetConfig(address="127.0.0.1", mdns=False)
    ident = Identity.generate()
    record: dict[str, Any] = {"applied": [], "played": {}, "need": {}, "seeded": {}}

    def store_for(table: str, seat: int) -> TableStore:
        return TableStore(out / f"state-{os.getpid()}")

    if args.url is None:
        # agent_main prints the join URL as soon as the mesh is bound;
        # open_table returns when the table is full.
        hosted = await open_table(
            ident,
            rules,
            args.rounds,
            "bench",
            "host",
            lambda t: store_for(t, 0),
            net,
            notify=lambda _: None,
            deal=args.deal,
        )
        peer, mesh = hosted.peer, hosted.mesh
    else:
        peer, mesh = await join_table(
            ident, args.url, f"p{os.getpid()}", store_for, net, notify=lambda _: None
        )
    decide = make_decider(args.level, ident.public_key)
    if args.pace > 0:
        pace = args.pace / 1000

        def paced(*a: Any) -> Any:
            time.sleep(pace)  # in the bot's worker thread: the loop stays free
            return decide(*a)

        peer.decider = paced
    else:
        peer.decider = decide
    peer.linger = 1.0
    _instrument(peer, record)
    cpu0, threads0 = time.process_time(), _thread_cpu()
    try:
        await asyncio.wait_for(peer.run(), args.timeout)
    finally:
        await mesh.close()
    record["seat"] = peer.seat
    record["finished"] = peer.game.finished()
    record["head"] = peer.replica.transcript_head()
    usage = resource.getrusage(resource.RUSAGE_SELF)
    record["rss_kb"] = usage.ru_maxrss
    record["cpu_s"] = time.process_time() - cpu0  # the match only, not start-up
    record["threads"] = {k: v - threads0.get(k, 0.0) for k, v in _thread_cpu().items()}
    (out / f"seat-{peer.seat}.json").write_text(json.dumps(record))


_HOST_URL: list[str] = []


def agent_main(argv: list[str]) -> None:
    ap = argparse.ArgumentParser(prog="bench_table.py agent")
    ap.add_argument("--players", type=int, required=True)
    ap.add_argument("--rounds", type=int, required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--url", default=None)
    ap.add_argument("--level", default="easy")
    ap.add_argument("--deal", default="open")
    ap.add_argument("--timeout", type=float, default=300)
    ap.add_argument("--pace", type=float, default=0)
    args = ap.parse_args(argv)
    if args.url is None:
        # Print the join URL as soon as the host's mesh is bound (patch the notifier path).
        import zsy_lan.table.hosting as table_mod

        real_start = table_mod.Mesh.start

        async def start(*a: Any, **k: Any) -> Any:
            mesh = await real_start(*a, **k)
            if not _HOST_URL:
                url = table_mod.join_url(mesh.endpoint, mesh.public_key)
                _HOST_URL.append(url)
                print(f"URL {url}", flush=True)
            return mesh

        table_mod.Mesh.start = start  # type: ignore[method-assign]
    from zsy_lan.runtime import tune_for_table

    tune_for_table()  # as `zsy host` / `zsy join` do
    prof = os.environ.get("ZSY_BENCH_PROFILE")  # experiments: profile the host agent
    if prof:
        prof = prof if args.url is None else f"{prof}.{os.getpid()}"
        import cProfile

        profiler = cProfile.Profile(time.process_time)  # CPU time: idle waits do not count
        profiler.runctx("asyncio.run(_agent(args))", globals(), {"args": args})
        profiler.dump_stats(prof)
        return
    asyncio.run(_agent(args))


# --------------------------------------------------------------------------- driver


def _pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    s = sorted(values)
    k = min(len(s) - 1, max(0, round(q * (len(s) - 1))))
    return s[k]


def run_table(
    players: int,
    rounds: int,
    deal: str,
    level: str,
    timeout: float,
    pace: float = 0,
    explain: bool = False,
) -> dict[str, Any]:
    """One match of ``players`` peer processes; returns the figures."""
    me = str(Path(__file__).resolve())
    with tempfile.TemporaryDirectory(prefix="zsy-bench-") as tmp:
        base = [sys.executable, me, "agent", "--players", str(players), "--rounds", str(rounds)]
        base += ["--out", tmp, "--level", level, "--deal", deal, "--timeout", str(timeout)]
        base += ["--pace", str(pace)]
        env = dict(os.environ, PYTHONUNBUFFERED="1", TMPDIR=tmp)
        if explain:
            env["ZSY_BENCH_BREAKDOWN"] = "1"
        procs: list[subprocess.Popen[bytes]] = []
        try:
            host = subprocess.Popen(base, stdout=subprocess.PIPE, env=env, start_new_session=True)
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
            t0 = time.monotonic()
            for p in procs:
                rc = p.wait(timeout + 30)
                if rc != 0:
                    raise RuntimeError(f"peer process exited with {rc}")
            wall = time.monotonic() - t0
        finally:
            for p in procs:
                if p.poll() is None:
                    os.killpg(p.pid, signal.SIGKILL)
                    p.wait(5)
        records = [json.loads(f.read_text()) for f in sorted(Path(tmp).glob("seat-*.json"))]
    assert len(records) == players, f"{len(records)} of {players} peers reported"
    assert all(r["finished"] for r in records), "a peer did not finish"
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
    deals = []
    for rnd in sorted({k for r in records for k in r["seeded"]}, key=int):
        starts = [r["need"][rnd] for r in records if rnd in r["need"]]
        ends = [r["seeded"][rnd] for r in records if rnd in r["seeded"]]
        if len(starts) == players and len(ends) == players:
            deals.append((int(rnd), (max(ends) - min(starts)) * 1000))
    later = [ms for rnd, ms in deals if rnd > 0]
    return {
        "peers": players,
        "rounds": len(deals),
        "deal": deal,
        "actions": len(lat),
        "wall_s": round(wall, 2),
        "latency_ms": {
            "p50": round(_pct(lat, 0.5), 2),
            "p99": round(_pct(lat, 0.99), 2),
            "max": round(max(lat), 2),
            "mean": round(statistics.fmean(lat), 2),
        },
        "first_deal_ms": round(deals[0][1], 1) if deals else None,
        "deal_ms": {
            "median": round(statistics.median(later), 1) if later else None,
            "max": round(max(later), 1) if later else None,
        },
        "cpu_ms_per_play": round(sum(r["cpu_s"] for r in records) * 1000 / max(1, n), 2),
        "rss_mb": sorted(round(r["rss_kb"] / 1024, 1) for r in records),
        "breakdown": breakdown(records) if explain else None,
        "thread_cpu_ms_per_play": {
            name: round(sum(r["threads"].get(name, 0) for r in records) * 1000 / max(1, n), 2)
            for name in sorted({k for r in records for k in r["threads"]})
        },
    }


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "agent":
        agent_main(sys.argv[2:])
        return
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--peers", type=int, nargs="+", default=[4, 6])
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--deal", choices=["open", "private"], default="open")
    ap.add_argument("--level", default="easy")
    ap.add_argument("--timeout", type=float, default=300)
    ap.add_argument(
        "--pace",
        type=float,
        default=0,
        help="each bot waits this many ms before deciding (0: back-to-back plays)",
    )
    ap.add_argument(
        "--breakdown",
        action="store_true",
        help="also show where a play's time goes (adds a little tracing to every peer)",
    )
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    from machine import StealMeter  # bench/machine.py (this folder is on sys.path)

    results = []
    for n in args.peers:
        with StealMeter() as stolen:
            r = run_table(
                n, args.rounds, args.deal, args.level, args.timeout, args.pace, args.breakdown
            )
        r["steal_pct"] = stolen.percent
        results.append(r)
    if args.json:
        print(json.dumps(results, indent=2))
        return
    print(
        f"Python {sys.version.split()[0]}, {os.cpu_count()} cores, {args.deal} deal, "
        f"bots pace {args.pace:g} ms, load average {os.getloadavg()[0]:.1f}"
    )
    for r in results:
        lat, deal = r["latency_ms"], r["deal_ms"]
        ok = lambda good: "ok" if good else "MISSED"  # noqa: E731
        print(
            f"{r['peers']} peers, {r['rounds']} rounds, {r['actions']} plays, {r['wall_s']} s:\n"
            f"  play -> every replica applied: p50 {lat['p50']} ms, p99 {lat['p99']} ms, "
            f"max {lat['max']} ms  [{ok(lat['p99'] < TARGET_P99_MS)} < {TARGET_P99_MS} ms]\n"
            f"  deal (commit-reveal): first {r['first_deal_ms']} ms (includes connecting), "
            f"then median {deal['median']} ms, max {deal['max']} ms "
            f"[{ok((deal['max'] or 0) < TARGET_DEAL_MS)} < {TARGET_DEAL_MS} ms]\n"
            f"  CPU of all peer processes per play (match only, bots included): "
            f"{r['cpu_ms_per_play']} ms\n"
            f"  peak RSS per peer: {r['rss_mb']} MB "
            f"[{ok(max(r['rss_mb']) < TARGET_RSS_MB)} < {TARGET_RSS_MB} MB]\n"
            f"  CPU time stolen by the hypervisor meanwhile: {r['steal_pct']}%"
        )
        b = r["breakdown"]
        if b:
            print(
                f"  breakdown (p50 over {b['frames']} plays): act -> first send "
                f"{b['act_to_first_send_ms']} ms; arrival at the 1st..last receiver "
                f"{b['arrival_ms_by_order']} ms after the act; receive+apply "
                f"{b['receive_and_apply_ms']} ms each"
            )
            print(f"  CPU per play by thread (match only): {r['thread_cpu_ms_per_play']}")


if __name__ == "__main__":
    main()
