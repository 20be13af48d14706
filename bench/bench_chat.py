"""What chat costs a replica (issue #15): a chat frame received, a chat flood, a line judged.

Run from the repository root (one process, ``nice`` on a shared machine)::

    nice -n 19 .venv/bin/python bench/bench_chat.py

Three figures, with ``FakeGame`` replicas of the protocol tests (no game
work, so the chat path alone):

* a valid signed chat frame within its author's allowance, received,
  verified, filed and handed out as ``Said``;
* a flood of 3,000 valid signed chat frames in one second on the author's
  own link: the average cost per frame, and how many were filed (the vote
  allowance: ``VOTE_BURST`` at once, ``VOTE_RATE`` a second) and dropped;
* ``ChatRoom.hear``: the reader's judgement (clean, rate limit) of one line.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "protocol"))
from proto_support import TABLE, Mesh, identity  # noqa: E402

from zsy_lan.protocol import open_frame, seal  # noqa: E402
from zsy_lan.protocol.chat import ChatRoom  # noqa: E402


def chat_frames(n: int, seat: int = 0) -> list[bytes]:
    """``n`` chained chat frames of ``seat``, as a modified peer could sign them."""
    ident, prev, out = identity(seat), "", []
    roster = Mesh(3, 1).roster
    for seq in range(1, n + 1):
        frame = seal(
            ident, table=TABLE, seat=seat, seq=seq, prev=prev, state="", type="chat",
            body={"text": f"line {seq}"},
        )
        prev = open_frame(frame, roster, TABLE).digest
        out.append(frame)
    return out


def main() -> None:
    frames = chat_frames(3000)
    replica = Mesh(3, 1).nodes[1].replica
    t = time.perf_counter()
    for i, frame in enumerate(frames[:1000]):
        replica.receive(frame, 10.0 + i * 0.1, via=0)
    each = (time.perf_counter() - t) / 1000
    print(f"a chat frame within its allowance: {each * 1e6:.0f} us")

    replica = Mesh(3, 1).nodes[1].replica
    t = time.perf_counter()
    for i, frame in enumerate(frames):
        replica.receive(frame, 10.0 + i / 3000, via=0)
    each = (time.perf_counter() - t) / len(frames)
    print(
        f"a flood of 3000 in 1 s: {each * 1e6:.1f} us a frame on average; "
        f"filed {len(replica.ledger.feeds[0])}, dropped {replica.stats['flood_dropped']}"
    )

    room = ChatRoom(1)
    t = time.perf_counter()
    for i in range(10_000):
        room.hear(0, {"text": f"\x1b[2Jhello there {i}"}, i * 0.001)
    each = (time.perf_counter() - t) / 10_000
    print(f"ChatRoom.hear (clean and rate limit): {each * 1e6:.1f} us a line")


if __name__ == "__main__":
    main()
