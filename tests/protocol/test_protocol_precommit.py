"""Pre-commits: each reveal carries its author's commitment for the next seed.

From the second deal on, the transcript's seed phase is reveals only (one
round trip instead of two), and a reveal that does not open the commitment
its author pre-committed is a named cheat, as with a separate commit.
"""

from __future__ import annotations

import hashlib

from zsy_lan.engine.game import Game
from zsy_lan.engine.ruleset import build_rules
from zsy_lan.protocol import Cheat, Identity, Replica, RoundSeeded, open_frame, seal
from zsy_lan.protocol.memory_mesh import MemoryMesh

SEATS = (0, 1, 2)
TABLE = "t-precommit"


def _replicas() -> tuple[list[Replica], list[Identity]]:
    rules = build_rules(3, [], {})
    ids = [Identity.from_seed(hashlib.sha256(b"precommit-%d" % s).digest()) for s in SEATS]
    roster = {s: ids[s].public_key for s in SEATS}
    counter = [0]

    def entropy(n: int) -> bytes:
        counter[0] += 1
        return hashlib.sha256(b"p%d" % counter[0]).digest()[:n]

    reps = [
        Replica(TABLE, s, ids[s], roster, Game(rules, 3), entropy=entropy, relay=False)
        for s in SEATS
    ]
    return reps, ids


def _deliver(reps: list[Replica], src: int, events: list, drop=lambda frame: False) -> list:
    """Deliver every Send at once, except frames ``drop`` rejects; returns all events seen."""
    seen: list = list(events)
    net = MemoryMesh(SEATS)  # lossless, in order
    net.post_sends(src, events)
    while (due := net.pop()) is not None:
        if drop(due.frame):
            continue
        for dst in due.dsts:
            out = reps[dst].receive(due.frame, 0.0)
            seen += out
            net.post_sends(dst, out)
    return seen


def _play_round(reps: list[Replica]) -> None:
    start = reps[0].game.match.results
    n = len(start)
    for _ in range(400):
        if len(reps[0].game.match.results) > n or reps[0].game.finished():
            return
        author = next(r for r in reps if r.can_act())
        _deliver(reps, author.seat, author.act(author.game.legal(author.seat)[0].to_json(), 0.0))
    raise AssertionError("the round did not end")


def _types(rep: Replica) -> list[str]:
    return [open_frame(f, rep.roster, TABLE).type for _, f in rep.transcript()]


def test_second_deal_needs_reveals_only():
    reps, _ = _replicas()
    for r in reps:
        _deliver(reps, r.seat, r.tick(0.0))
    first = _types(reps[0])
    assert first.count("commit") == 3 and first.count("reveal") == 3  # the first deal: both
    _play_round(reps)
    assert reps[0].game.round is not None and reps[0].game.round.round_no == 2  # dealt again
    later = _types(reps[0])[len(first) :]
    assert later.count("commit") == 0 and later.count("reveal") == 3
    assert len({r.transcript_head() for r in reps}) == 1
    bodies = [open_frame(f, reps[0].roster, TABLE).body for _, f in reps[0].transcript()]
    assert all("next" in b for b in bodies if "seed" in b)  # every reveal pre-commits


def test_a_reveal_that_does_not_open_its_precommit_names_its_author():
    reps, ids = _replicas()
    for r in reps:
        _deliver(reps, r.seat, r.tick(0.0))
    # play the first round, but seat 1's second-deal reveal never reaches anyone...
    liar = reps[1]

    def is_liars_reveal(frame: bytes) -> bool:
        env = open_frame(frame, liar.roster, TABLE)
        return env.seat == 1 and env.type == "reveal" and env.body["round"] == 1

    start = len(reps[0].game.match.results)
    for _ in range(400):
        if len(reps[0].game.match.results) > start:
            break
        author = next(r for r in reps if r.can_act())
        events = author.act(author.game.legal(author.seat)[0].to_json(), 0.0)
        _deliver(reps, author.seat, events, drop=is_liars_reveal)
    env = liar.ledger.feeds[1][-1]  # the reveal nobody got
    assert env.type == "reveal" and env.body["round"] == 1 and "next" in env.body
    assert reps[0].waiting_on() == [(1, "reveal for round 1")]
    # ...and the others get a reveal for that slot with another seed instead
    forged = seal(
        ids[1],
        table=TABLE,
        seat=1,
        seq=env.seq,
        prev=env.prev,
        state=env.state,
        type="reveal",
        body={**env.body, "seed": "00" * 32},
    )
    cheats = [e for e in reps[0].receive(forged, 0.0) if isinstance(e, Cheat)]
    assert cheats and cheats[0].culprit == 1
    assert "does not match its commit" in cheats[0].reason
    assert not any(isinstance(e, RoundSeeded) for e in reps[2].receive(forged, 0.0))
