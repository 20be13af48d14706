"""protocol/memory_mesh.py: the one in-memory network (zsy play, the tests, the memory bench)."""

from __future__ import annotations

import random

from zsy_lan.protocol.events import Persist, Send
from zsy_lan.protocol.memory_mesh import Delivery, Faults, MemoryMesh


def test_lossless_delivers_in_order_a_broadcast_to_every_other_seat_at_once():
    net = MemoryMesh(range(3))
    net.post(1, None, b"a")
    net.post_sends(0, [Persist("k", b""), Send(2, b"b"), Send(None, b"c")])
    assert len(net) == 3 and net.sent == 2 + 1 + 2
    assert net.pop() == Delivery(1, (0, 2), b"a")
    assert net.pop() == Delivery(0, (2,), b"b")
    assert net.pop() == Delivery(0, (1, 2), b"c")
    assert net.pop() is None and not net


def test_a_cut_off_seat_neither_sends_nor_receives():
    net = MemoryMesh(range(3))
    net.cut_off = {2}
    net.post(2, None, b"lost")
    net.post(0, None, b"to 1 only")
    assert net.pop() == Delivery(0, (1,), b"to 1 only")
    assert net.pop() is None


def test_faults_follow_the_seeded_draws_and_deliver_when_due():
    def run(seed: int) -> list[tuple[float, Delivery]]:
        net = MemoryMesh(range(4), Faults(random.Random(seed), drop=0.3, dup=0.3, max_delay=0.5))
        for i in range(20):
            net.post(i % 4, None, b"%d" % i, now=i * 0.1)
        out, now = [], 0.0
        while net:
            now += 0.05
            while (due := net.pop(now)) is not None:
                out.append((round(now, 2), due))
        return out

    first = run(7)
    assert first == run(7)  # the same seed, the same schedule
    assert first != run(8)
    assert first and all(len(d.dsts) == 1 for _, d in first)
    frames = [d.frame for _, d in first]
    assert len(frames) != 20 * 3  # some dropped or doubled


def test_a_reliable_post_is_never_dropped():
    net = MemoryMesh(range(2), Faults(random.Random(1), drop=1.0))
    net.post(0, 1, b"lost")
    net.post(0, 1, b"forged", reliable=True)
    assert net.pop(1.0) == Delivery(0, (1,), b"forged")
    assert net.pop(1.0) is None and net.sent == 2
