"""Broker benchmark: play latency through an MQTT broker against direct links, and its traffic.

Everything runs on 127.0.0.1 (no mDNS). The same table of peer processes (bots playing
every seat, one process per seat; bench_relay.py's agent and instrumentation) is seated
two ways:

* ``direct``: no broker (the LAN case);
* ``broker``: ``zsy relay --broker amqtt`` (the broker ``zsy relay`` starts when Mosquitto
  is not installed), and every direct link pointed at a closed port, so every frame, the
  lobby's too, goes through the broker, sealed end to end.

**Play latency** is from the moment a seat hands its action to its replica to the moment
the last replica applied it (p50, p99); the ratio is broker over direct. **Through the
broker per round**: the PUBLISH packets (frames, pings and pongs) and their bytes the
broker received, counted by its guard (``Broker stopped: ...``), over the rounds played.
**Broker CPU per frame**: the broker process's user+system CPU over those frames.

Usage::

    .venv/bin/python bench/bench_broker.py                 # 4 peers, 2 rounds, open deal
    .venv/bin/python bench/bench_broker.py --deal private --rounds 1 --repeat 3 --json
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import bench_relay  # noqa: E402  (the agent, the match driver, the broker process)

ZSY = bench_relay.ZSY


BrokerProcess = bench_relay.BrokerProcess


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "agent":
        bench_relay.agent_main(sys.argv[2:])
        return
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--peers", type=int, default=4)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--deal", choices=["open", "private"], default="open")
    ap.add_argument("--level", default="easy")
    ap.add_argument("--repeat", type=int, default=1, help="runs of each mode (medians)")
    ap.add_argument("--json", action="store_true")
    ap.add_argument(
        "--broker",
        choices=["amqtt", "mosquitto"],
        default="amqtt",
        help="the broker zsy relay starts (Mosquitto reports no counts: latency only)",
    )
    args = ap.parse_args()
    BrokerProcess.engine = args.broker
    runs: list[dict[str, Any]] = []
    for _ in range(args.repeat):
        for via, carrier in (("direct", None), ("relay", BrokerProcess)):
            t = bench_relay.run_table(
                via, args.peers, args.rounds, args.deal, args.level, carrier=carrier
            )
            t["via"] = "broker" if via == "relay" else via
            runs.append(t)
    direct = [r for r in runs if r["via"] == "direct"]
    broker = [r for r in runs if r["via"] == "broker"]

    def med(rs: list[dict[str, Any]], q: str) -> float:
        return statistics.median(r["latency_ms"][q] for r in rs)

    frames = statistics.median(r["relay_frames"] for r in broker)
    kib = statistics.median((r["relay_bytes"] or 0) / 1024 for r in broker)
    result = {
        "tables": runs,
        "ratio_p50": round(med(broker, "p50") / med(direct, "p50"), 2),
        "ratio_p99": round(med(broker, "p99") / med(direct, "p99"), 2),
        "per_round": {
            "frames": round(frames / args.rounds),
            "kib": round(kib / args.rounds, 1),
        },
    }
    if args.json:
        print(json.dumps(result, indent=2))
        return
    for t in runs:
        lat = t["latency_ms"]
        cpu = t["relay_cpu_us_per_frame"]
        print(
            f"{t['via']:>7}: {t['plays']} plays, links {'/'.join(t['links'])}, "
            f"latency p50 {lat['p50']} ms p99 {lat['p99']} ms"
            + (f"; broker frames {t['relay_frames']}, CPU {cpu} us/frame" if cpu else "")
        )
    print(f"ratio broker/direct: p50 {result['ratio_p50']}, p99 {result['ratio_p99']}")
    pr = result["per_round"]
    print(f"through the broker per round: {pr['frames']} frames, {pr['kib']} KiB")


if __name__ == "__main__":
    main()
