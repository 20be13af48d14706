"""A relay that misbehaves on purpose, for the namespace tests: ``drop`` or ``tamper``.

Run as ``python faulty_relay.py MODE ADDRESS PORT DATA_DIR``; prints the same
"Hosts use it with:  zsy host --relay URL" line as ``zsy relay``. ``drop``
loses 10% of the boxes it forwards; ``tamper`` flips one byte in 10% of them
(a seeded generator: the same run misbehaves the same way).
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

from zsy_lan.relay import Relay, RelayLimits, load_or_create_relay_key, serve


class FaultyRelay(Relay):
    def __init__(self, mode: str, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.mode = mode
        self.rng = random.Random(17)
        self.faults = 0

    def forward_box(self, box: bytes) -> bytes | None:
        if self.rng.random() >= 0.10:
            return box
        self.faults += 1
        if self.mode == "drop":
            return None
        i = self.rng.randrange(len(box))
        return box[:i] + bytes([box[i] ^ 0x5A]) + box[i + 1 :]


def main() -> None:
    mode, address, port, data = sys.argv[1:5]
    relay = FaultyRelay(mode, load_or_create_relay_key(Path(data)), limits=RelayLimits())
    relay.bind(address, int(port))
    url = relay.address(address).url

    def ready() -> None:
        print(f"Hosts use it with:  zsy host --relay {url}", flush=True)

    serve(relay, on_ready=ready)
    print(f"faults: {relay.faults}, forwarded: {relay.stats.forwarded}", flush=True)


if __name__ == "__main__":
    main()
