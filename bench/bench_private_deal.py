"""Benchmark of the private deal's pure computation (no network).

Runs the whole deal with every peer in one process (tests/deal/deal_sim.py): the
messages go through their canonical encoding, and a discrete-event model with
zero network latency lets the peers work in parallel, as they would on a LAN.

Reported per configuration (median of --repeat runs):
  critical  the deal's critical path: set-up, commitments, n shuffle and n
            re-lock steps, key release and opening, peers in parallel
  total     CPU time of all peers together (what one process doing all the
            work spends)
  peer      the largest CPU time of a single peer
  smul      group operations (scalar multiplications) of all peers, and the
            validations (is_valid_point) and from_uniform encodings
  audit     end-of-round audit per peer (median over peers)

Targets (issue 4, those include the network): 4 peers under 150 ms, 6 peers
under 400 ms; audit under 100 ms per peer for 4 peers.

    python bench/bench_private_deal.py [--repeat 5] [--json]
"""

from __future__ import annotations

import argparse
import datetime
import json
import platform
import statistics
import sys
from collections import Counter
from pathlib import Path

import nacl

from zsy_lan.deal.mental import FACE_UP

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "deal"))
from deal_sim import Sim  # noqa: E402 - the tests' simulation, not part of the package

CONFIGS = [
    ("3 peers, 54 cards (Dou Dizhu, 3 face-up)", 3, 54),
    ("4 peers, 54 cards", 4, 54),
    ("6 peers, 108 cards", 6, 108),
]
TARGETS_MS = {4: 150.0, 6: 400.0}
AUDIT_TARGET_MS = 100.0


def layout(n: int, m: int) -> list[int]:
    if n == 3 and m == 54:
        return [i % 3 for i in range(51)] + [FACE_UP] * 3
    return [i % n for i in range(m)]


def run_once(n: int, m: int, audit: bool) -> dict:
    sim = Sim(n, range(m), layout(n, m))
    critical = sim.deal()
    assert not sim.errors and all(p.dealt for p in sim.peers)
    ops: Counter[str] = Counter()
    for o in sim.ops:
        ops.update(o)
    out = {
        "critical_ms": critical * 1e3,
        "total_ms": sum(sim.compute) * 1e3,
        "max_peer_ms": max(sim.compute) * 1e3,
        "scalarmult": ops["scalarmult"],
        "is_valid_point": ops["is_valid_point"],
        "from_uniform": ops["from_uniform"],
        "scalar_invert": ops["scalar_invert"],
        "scalar_mul": ops["scalar_mul"],
    }
    if audit:
        audits = sim.end_round()
        assert all(r.ok for r in audits.values())
        out["audit_ms"] = statistics.median(sim.audit_time.values()) * 1e3
        out["audit_max_ms"] = max(sim.audit_time.values()) * 1e3
        out["audit_scalarmult"] = audits[0].scalarmults
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--json", action="store_true", help="print JSON instead of a table")
    args = ap.parse_args(argv)

    Sim(2, range(4), [0, 1, 0, 1]).deal()  # warm up (self-test, imports)
    results = []
    for name, n, m in CONFIGS:
        runs = [run_once(n, m, audit=True) for _ in range(args.repeat)]
        med = {k: statistics.median(r[k] for r in runs) for k in runs[0]}
        med.update({"name": name, "peers": n, "cards": m, "repeat": args.repeat})
        med["target_ms"] = TARGETS_MS.get(n)
        results.append(med)

    meta = {
        "date": datetime.date.today().isoformat(),
        "python": platform.python_version(),
        "pynacl": nacl.__version__,
        "machine": platform.machine(),
        "processor": platform.processor() or platform.platform(),
    }
    if args.json:
        print(json.dumps({"meta": meta, "results": results}, indent=2))
        return 0
    print(
        f"private deal, pure computation ({meta['date']}, Python {meta['python']}, "
        f"PyNaCl {meta['pynacl']}, median of {args.repeat})"
    )
    head = (
        f"{'configuration':<42}{'critical':>10}{'total':>9}{'peer':>8}"
        f"{'smul':>7}{'valid':>7}{'audit/peer':>12}{'target':>9}"
    )
    print(head)
    print("-" * len(head))
    for r in results:
        target = f"{r['target_ms']:.0f}" if r["target_ms"] else "-"
        print(
            f"{r['name']:<42}{r['critical_ms']:>8.1f}ms{r['total_ms']:>7.1f}ms"
            f"{r['max_peer_ms']:>6.1f}ms{r['scalarmult']:>7.0f}{r['is_valid_point']:>7.0f}"
            f"{r['audit_ms']:>10.1f}ms{target:>7}ms"
        )
    four = next(r for r in results if r["peers"] == 4)
    print(
        f"audit target for 4 peers: {AUDIT_TARGET_MS:.0f} ms per peer "
        f"(measured {four['audit_ms']:.1f} ms, {four['audit_scalarmult']:.0f} smul)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
