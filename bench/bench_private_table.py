"""The private deal at a real table: deal time on loopback, network included.

Every seat is its own OS process (as on a LAN: each peer computes on its own
CPU; this machine's cores are shared, so the figures are pessimistic when
peers outnumber cores), running a real ``TablePeer``: CURVE-encrypted ZeroMQ
on 127.0.0.1, the signed replicated transcript, the private deal, easy bots.
For each deal we record, per peer, when the deal started (the shared seed was
in: ``start_round``) and when the hands were open (the last ``deal.keys``
applied), with wall-clock time of this one machine. Deal time = first start to
last hand open. Also per peer: group operations of the deal (scalar
multiplications, point validations), its CPU time during the deal (all
threads of the process) and the audit's time; and where the wall clock went:
the commit phase (first start to the last commitment applied), the 2n deck
steps (each measured at its author: from the previous step applied there, or
the last commitment, to its own step applied) and the key phase (the last
re-lock to the last hand open). ``--steps`` prints one deal's timeline.

    python bench/bench_private_table.py [--repeat 3] [--configs ddz3,zsy4,zsy6] [--steps]
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing as mp
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

CONFIGS = {
    "ddz3": (
        "3 peers, 54 cards (Dou Dizhu, kitty 3)",
        3,
        ["doudizhu"],
        {"doudizhu.match_multiple": 1},
    ),
    "zsy4": ("4 peers, 54 cards (ZSY)", 4, [], {}),
    "zsy6": ("6 peers, 108 cards (ZSY, two decks)", 6, [], {}),
}
TARGETS = {"zsy4": 150.0, "zsy6": 400.0}


def _instrument(marks: list[dict[str, Any]]) -> None:
    """Wrap PrivateGame so each deal's start, hands-open time, group ops and audit are logged."""
    from zsy_lan.deal import group
    from zsy_lan.deal.private_game import PrivateGame

    start_round = PrivateGame.start_round
    after_keys = PrivateGame._after_keys
    audit = PrivateGame._audit
    apply = PrivateGame.apply

    def s(self: PrivateGame, seed: bytes) -> None:
        group.reset_counters()
        marks.append({"deal": self.deal_no + 1, "start": time.time(), "cpu0": time.process_time()})
        start_round(self, seed)

    def k(self: PrivateGame) -> None:
        marks[-1]["open"] = time.time()
        marks[-1]["cpu"] = (time.process_time() - marks[-1]["cpu0"]) * 1000
        marks[-1]["smul"] = group.COUNTERS["scalarmult"]
        marks[-1]["valid"] = group.COUNTERS["is_valid_point"]
        after_keys(self)

    def ap(self: PrivateGame, seat: int, action: Any) -> None:
        apply(self, seat, action)
        kind = action.get("kind") if isinstance(action, dict) else None
        steps = ("deal.commit", "deal.shuffle", "deal.relock")
        if marks and "open" not in marks[-1] and kind in steps:
            marks[-1].setdefault("applied", []).append((kind[5:], seat, time.time()))

    def a(self: PrivateGame) -> None:
        t0, c0 = time.perf_counter(), time.thread_time()
        audit(self)
        marks[-1]["audit_wall"] = (time.perf_counter() - t0) * 1000
        marks[-1]["audit_ms"] = (time.thread_time() - c0) * 1000

    PrivateGame.start_round = s  # type: ignore[method-assign]
    PrivateGame._after_keys = k  # type: ignore[method-assign]
    PrivateGame._audit = a  # type: ignore[method-assign]
    PrivateGame.apply = ap  # type: ignore[method-assign]


def _peer(index: int, conf: str, rounds: int, urls: Any, results: Any, tmp: str) -> None:
    """One seat in its own process: host (index 0) or joiner."""
    from zsy_lan.engine.ruleset import build_rules
    from zsy_lan.protocol import Identity
    from zsy_lan.record.store import TableStore
    from zsy_lan.runtime import tune_for_table
    from zsy_lan.table.deciders import make_decider
    from zsy_lan.table.hosting import open_table
    from zsy_lan.table.joining import join_table
    from zsy_lan.table.reach import NetConfig

    tune_for_table()  # as `zsy host` / `zsy join` do
    _, players, variants, options = CONFIGS[conf]
    rules = build_rules(players, variants, options)
    marks: list[dict[str, Any]] = []
    _instrument(marks)
    net = NetConfig(address="127.0.0.1", mdns=False)
    ident = Identity.generate()
    base = Path(tmp) / f"seat-{index}"

    async def main() -> None:
        if index == 0:

            def notify(text: str) -> None:
                if "tcp://" in text:
                    url = text[text.index("tcp://") :].split()[0].rstrip(")")
                    for _ in range(players - 1):
                        urls.put(url)

            hosted = await open_table(
                ident,
                rules,
                rounds,
                f"bench-{conf}",
                "host",
                lambda t: TableStore(base),
                net,
                notify=notify,
                deal="private",
            )
            peer, mesh = hosted.peer, hosted.mesh
        else:
            url = urls.get(timeout=60)
            peer, mesh = await join_table(
                ident, url, f"p{index}", lambda t, s: TableStore(base), net, notify=lambda _: None
            )
        peer.decider = make_decider("easy", ident.public_key)
        peer.linger = 1.0
        try:
            await asyncio.wait_for(peer.run(), 300)
        finally:
            await mesh.close()
        results.put((peer.seat, marks, peer.game.finished()))

    asyncio.run(main())


def run_table(conf: str, rounds: int) -> list[tuple[int, list[dict[str, Any]], bool]]:
    ctx = mp.get_context("spawn")
    urls, results = ctx.Queue(), ctx.Queue()
    import tempfile

    players = CONFIGS[conf][1]
    with tempfile.TemporaryDirectory() as tmp:
        procs = [
            ctx.Process(target=_peer, args=(i, conf, rounds, urls, results, tmp))
            for i in range(players)
        ]
        for p in procs:
            p.start()
        out = [results.get(timeout=600) for _ in procs]
        for p in procs:
            p.join(30)
    return out


def _phases(ms: list[dict[str, Any]]) -> dict[str, Any]:
    """Commit phase, each deck step at its author, key phase (ms); see the module doc."""
    n = len(ms)
    at = [{(k, s): t for k, s, t in m.get("applied", [])} for m in ms]  # ms[i] is seat i's
    start = min(m["start"] for m in ms)
    if any(len(a) < 2 * n for a in at):
        return {}
    if any(k == "commit" for a in at for k, _ in a):
        commit_end = max(max(t for (k, _), t in a.items() if k == "commit") for a in at)
        prev_at = {s: max(t for (k, _), t in at[s].items() if k == "commit") for s in range(n)}
    else:  # committed in the previous deal's reveals: the deck moves from the start
        commit_end = start
        prev_at = {s: ms[s]["start"] for s in range(n)}
    steps = []
    order = [("shuffle", s) for s in range(n)] + [("relock", s) for s in range(n)]
    for i, (kind, s) in enumerate(order):
        # from the previous step applied at its author (it sent it then) to this one
        before = prev_at[0] if i == 0 else at[order[i - 1][1]][order[i - 1]]
        steps.append((at[s][(kind, s)] - before) * 1000)
    last = max(a[("relock", n - 1)] for a in at)
    return {
        "pre": commit_end == start,
        "commit_ms": (commit_end - start) * 1000,
        "steps": steps,
        "keys_ms": (max(m["open"] for m in ms) - last) * 1000,
    }


def summarize(
    conf: str, out: list[tuple[int, list[dict[str, Any]], bool]]
) -> list[dict[str, float]]:
    deals: dict[int, list[dict[str, Any]]] = {}
    for _seat, marks, _ok in sorted(out, key=lambda o: o[0]):
        for m in marks:
            deals.setdefault(m["deal"], []).append(m)  # in seat order
    rows = []
    for _no, ms in sorted(deals.items()):
        if len(ms) != len(out) or any("open" not in m for m in ms):
            continue
        phases = _phases(ms)
        rows.append(
            {
                **phases,
                "deal_ms": (max(m["open"] for m in ms) - min(m["start"] for m in ms)) * 1000,
                "cpu_max": max(m["cpu"] for m in ms),
                "cpu_sum": sum(m["cpu"] for m in ms),
                "smul": sum(m["smul"] for m in ms),
                "valid": sum(m["valid"] for m in ms),
                "audit_ms": statistics.median(m.get("audit_ms", float("nan")) for m in ms),
                "audit_max": max(m.get("audit_ms", 0.0) for m in ms),
            }
        )
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=2, help="tables per configuration")
    ap.add_argument("--rounds", type=int, default=1, help="rounds per table")
    ap.add_argument("--configs", default="ddz3,zsy4,zsy6")
    ap.add_argument("--steps", action="store_true", help="print each deal's phases")
    args = ap.parse_args(argv)
    load0 = os.getloadavg()
    print(
        "| configuration | deal, wall clock (median, min-max) | commit / one deck step "
        "(median) / keys | busiest peer's CPU in the deal | all peers' CPU "
        "| smul (all peers) | is_valid_point | audit per peer, CPU (median / max) | target |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    from machine import StealMeter  # bench/machine.py (this folder is on sys.path)

    stolen: list[str] = []
    for conf in args.configs.split(","):
        rows: list[dict[str, float]] = []
        with StealMeter() as meter:
            outs = [run_table(conf, args.rounds) for _ in range(args.repeat)]
        stolen.append(f"{conf} {meter.percent}%")
        for out in outs:
            if not all(ok for _, _, ok in out):
                print(f"{conf}: a table did not finish", file=sys.stderr)
            got = summarize(conf, out)
            rows += got
            if args.steps:
                for r in got:
                    steps = " ".join(f"{x:.0f}" for x in r.get("steps", []))
                    print(
                        f"  {conf}: deal {r['deal_ms']:.0f} ms = commit {r.get('commit_ms', 0):.0f}"
                        f" + steps [{steps}] + keys {r.get('keys_ms', 0):.0f}",
                        file=sys.stderr,
                    )
        if not rows:
            print(f"| {CONFIGS[conf][0]} | no complete deal | | | | | | | |")
            continue
        first = [r for r in rows if not r.get("pre", False)]
        later = [r for r in rows if r.get("pre", False)]
        for label, group_rows in (("first deal", first), ("later deals", later)):
            if group_rows:
                _row(f"{CONFIGS[conf][0]}, {label}", conf, group_rows)
    load1 = os.getloadavg()
    print(
        f"load average (1, 5, 15 min) before: {load0[0]:.2f} {load0[1]:.2f} {load0[2]:.2f}; "
        f"after: {load1[0]:.2f} {load1[1]:.2f} {load1[2]:.2f}; {os.cpu_count()} CPUs; "
        f"CPU time stolen by the hypervisor: {', '.join(stolen)}"
    )
    return 0


def _row(label: str, conf: str, rows: list[dict[str, Any]]) -> None:
    """One line of the table: the deals of one kind of one configuration."""
    phased = [r for r in rows if "steps" in r]
    phase = "-"
    if phased:
        phase = (
            f"{statistics.median(r['commit_ms'] for r in phased):.0f} / "
            f"{statistics.median(x for r in phased for x in r['steps']):.0f} / "
            f"{statistics.median(r['keys_ms'] for r in phased):.0f} ms"
        )
    deal = [r["deal_ms"] for r in rows]
    target = TARGETS.get(conf)
    print(
        f"| {label} | {statistics.median(deal):.0f} ms "
        f"({min(deal):.0f}-{max(deal):.0f}, {len(deal)} deals) | {phase} | "
        f"{statistics.median(r['cpu_max'] for r in rows):.0f} ms | "
        f"{statistics.median(r['cpu_sum'] for r in rows):.0f} ms | "
        f"{statistics.median(r['smul'] for r in rows):.0f} | "
        f"{statistics.median(r['valid'] for r in rows):.0f} | "
        f"{statistics.median(r['audit_ms'] for r in rows):.0f} / "
        f"{max(r['audit_max'] for r in rows):.0f} ms | "
        f"{f'{target:.0f} ms' if target else '-'} |"
    )


if __name__ == "__main__":
    sys.exit(main())
