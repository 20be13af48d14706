"""Send before apply: ``Replica.act(apply=False)`` then ``progress()`` (the table's fast path).

The author's frame can reach the other replicas before the author applies it
itself; the transcript must come out the same everywhere, and nothing is
applied twice.
"""

from __future__ import annotations

import hashlib

from zsy_lan.engine.game import Game
from zsy_lan.engine.ruleset import build_rules
from zsy_lan.protocol import Applied, Identity, Replica, Send
from zsy_lan.protocol.memory_mesh import MemoryMesh

SEATS = (0, 1, 2)


def _replicas() -> list[Replica]:
    rules = build_rules(3, [], {})
    ids = [Identity.from_seed(hashlib.sha256(b"send-first-%d" % s).digest()) for s in SEATS]
    roster = {s: ids[s].public_key for s in SEATS}
    counter = [0]

    def entropy(n: int) -> bytes:
        counter[0] += 1
        return hashlib.sha256(b"e%d" % counter[0]).digest()[:n]

    return [
        Replica("t-send-first", s, ids[s], roster, Game(rules, 1), entropy=entropy, relay=False)
        for s in SEATS
    ]


def _deliver(reps: list[Replica], src: int, events: list) -> list[Applied]:
    """Hand every Send to its targets at once (a perfect network); return what they applied."""
    applied: list[Applied] = []
    net = MemoryMesh(SEATS)  # lossless, in order
    net.post_sends(src, events)
    while (due := net.pop()) is not None:
        for dst in due.dsts:
            out = reps[dst].receive(due.frame, 0.0)
            applied += [e for e in out if isinstance(e, Applied)]
            net.post_sends(dst, out)
    return applied


def test_receivers_apply_before_the_author_and_all_agree():
    reps = _replicas()
    for r in reps:  # commits and reveals: the round is dealt everywhere
        _deliver(reps, r.seat, r.tick(0.0))
    assert all(r.game.round is not None for r in reps)
    plays = 0
    while not reps[0].game.finished() and plays < 200:
        author = next(r for r in reps if r.can_act())
        action = author.game.legal(author.seat)[0].to_json()
        before = len(author.game.log)
        events = author.act(action, 0.0, apply=False)
        assert any(isinstance(e, Send) for e in events)
        assert not any(isinstance(e, Applied) for e in events)  # not applied here yet
        assert len(author.game.log) == before
        others = _deliver(reps, author.seat, events)
        assert [a.seat for a in others] == [author.seat] * (len(reps) - 1)  # each applied once
        mine = [e for e in author.progress(0.0) if isinstance(e, Applied)]
        assert [a.seat for a in mine] == [author.seat]
        again = author.progress(0.0)
        assert not any(isinstance(e, Applied) for e in again)  # nothing applied twice
        heads = {r.transcript_head() for r in reps}
        assert len(heads) == 1
        plays += 1
    assert reps[0].game.finished()
    assert len({r.game.public_hash() for r in reps}) == 1
