"""What hostile spectators cost the host's upload: rewinds to position 0 (issue #25).

A spectator's ping says how much of the record it holds; the same position
twice while the host has sent more makes the host send again from there
(a lost batch). A modified spectator that always reports 0 made the host
send the whole record again every two pings. This bench runs the host's real
:class:`~zsy_lan.table.spectator_desk.SpectatorDesk` on a fake clock against a
record that grows to ``--size`` bytes over ``--rounds`` rounds of
``--round-seconds``, with ``--spectators`` spectators pinging every
``PING_EVERY`` seconds: all honest (each reports what it holds), then all
hostile (each reports 0). It counts the bytes the desk hands the mesh.

Run it under an older checkout (``PYTHONPATH=/path/to/old``) for the figure
before the bound. Usage::

    python bench/bench_spectator_rewinds.py [--size 4300000] [--rounds 30] [--spectators 16]
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import tempfile
from pathlib import Path
from types import SimpleNamespace

from zsy_lan.protocol import Identity
from zsy_lan.table import spectator_desk
from zsy_lan.table.spectator_desk import SpectatorDesk, _Seen
from zsy_lan.table.watch_frames import PING_EVERY, PUMP_EVERY, Watcher, seal_watch


class Uplink:
    """The mesh as the desk sees it: every frame counted, none sent."""

    def __init__(self) -> None:
        self.keys: dict[bytes, object] = {}
        self.sent = 0

    async def send(self, peer_id: object, frame: bytes, timeout: float | None = None) -> bool:
        self.sent += len(frame)
        return True

    def admit(self, peer_id: object, key: bytes) -> None:
        self.keys[key] = peer_id

    def revoke(self, peer_id: object) -> None:
        self.keys = {k: p for k, p in self.keys.items() if p != peer_id}

    def peer_for_key(self, key: bytes) -> object:
        return self.keys.get(key)

    def guest_address(self, key: bytes) -> str:
        return ""


async def run(size: int, rounds: int, round_seconds: float, n: int, hostile: bool) -> int:
    """Bytes the desk sends ``n`` spectators while the record grows to ``size``."""
    clock = SimpleNamespace(t=1000.0)
    spectator_desk.time = SimpleNamespace(monotonic=lambda: clock.t)  # an older desk's clock
    host = Identity.generate()
    mesh = Uplink()
    with tempfile.TemporaryDirectory() as tmp:
        record = Path(tmp) / "transcript.jsonl"
        record.write_text("")
        peer = SimpleNamespace(
            store=SimpleNamespace(transcript_path=record), roster=SimpleNamespace(seats=[]),
            seat=0, notices=asyncio.Queue(), changed=asyncio.Event(),
        )
        kwargs = {}
        if "clock" in {f.name for f in dataclasses.fields(SpectatorDesk)}:
            kwargs["clock"] = lambda: clock.t
        desk = SpectatorDesk(host, "open", mesh, lambda _t: None, **kwargs)  # type: ignore[arg-type]
        desk.attach(peer)
        spectators = []
        for i in range(n):
            me = Identity.generate()
            key = me.curve_public
            desk.seen[key] = _Seen(key, me.public_key, f"s{i}", "watching", last=clock.t)
            mesh.admit(Watcher(key), key)
            spectators.append((me, key))
        line = "x" * 511 + "\n"
        duration = rounds * round_seconds
        per_pump = size / (duration / PUMP_EVERY)
        pending = 0.0
        next_ping = clock.t + PING_EVERY
        end = clock.t + duration
        with record.open("a") as fh:
            while clock.t < end:
                clock.t += PUMP_EVERY
                pending += per_pump
                while pending >= len(line):
                    fh.write(line)
                    pending -= len(line)
                fh.flush()
                if clock.t >= next_ping:
                    next_ping += PING_EVERY
                    for me, key in spectators:
                        at = 0 if hostile else desk.seen[key].offset
                        desk.on_frame(Watcher(key), seal_watch(me, "ping", {"at": at}))
                await desk.pump()
    return mesh.sent


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--size", type=int, default=4_300_000, help="record bytes at the end")
    ap.add_argument("--rounds", type=int, default=30)
    ap.add_argument("--round-seconds", type=float, default=60.0)
    ap.add_argument("--spectators", type=int, default=16)
    args = ap.parse_args()
    for hostile in (False, True):
        sent = asyncio.run(
            run(args.size, args.rounds, args.round_seconds, args.spectators, hostile)
        )
        who = "hostile (always at 0)" if hostile else "honest"
        print(f"{args.spectators} {who} spectators, {args.rounds} rounds, record "
              f"{args.size / 1e6:.1f} MB: the host sent {sent / 1e6:.1f} MB")


if __name__ == "__main__":
    main()
