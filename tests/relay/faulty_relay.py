"""A relay that misbehaves on purpose, for the namespace tests: it drops and it tampers.

Run as ``python faulty_relay.py ADDRESS PORT DATA_DIR``; prints the same
"Hosts use it with:  zsy host --relay URL" line as ``zsy relay``. It loses 10%
of the boxes it forwards and flips one byte in another 10% (a seeded
generator: the same run misbehaves the same way), so one match meets both
faults; as it stops it says how many of each it did.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

from zsy_lan.net.relay import Relay, RelayLimits, load_or_create_relay_key, serve

DROP, TAMPER = 0.10, 0.10  # the share of forwarded boxes lost, and altered (issue #17: 10%)


class FaultyRelay(Relay):
    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.rng = random.Random(17)
        self.dropped = 0
        self.altered = 0

    def forward_box(self, box: bytes) -> bytes | None:
        roll = self.rng.random()
        if roll >= DROP + TAMPER:
            return box
        if roll < DROP:
            self.dropped += 1
            return None
        self.altered += 1
        i = self.rng.randrange(len(box))
        return box[:i] + bytes([box[i] ^ 0x5A]) + box[i + 1 :]


def main() -> None:
    address, port, data = sys.argv[1:4]
    relay = FaultyRelay(load_or_create_relay_key(Path(data)), limits=RelayLimits())
    relay.bind(address, int(port))
    url = relay.address(address).url

    def ready() -> None:
        print(f"Hosts use it with:  zsy host --relay {url}", flush=True)

    serve(relay, on_ready=ready)
    stats = relay.stats.forwarded
    print(f"dropped: {relay.dropped}, altered: {relay.altered}, forwarded: {stats}", flush=True)


if __name__ == "__main__":
    main()
