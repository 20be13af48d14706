"""N replicas over a hostile in-memory network (DESIGN.md "Testing": the protocol in memory).

Hypothesis picks the table size, the fault rates and the seed of the
schedule that drops, duplicates, delays and reorders frames. Whatever it
picks, the replicas must all reach the same transcript and public state, or
stop with a named culprit: never diverge silently, never blame an honest seat.
"""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from proto_support import TABLE, Mesh

from zsy_lan.protocol import open_frame, verify_transcript

# A soak run: ZSY_MESH_EXAMPLES=500 pytest tests/protocol/test_protocol_mesh.py
EXAMPLES = int(os.environ.get("ZSY_MESH_EXAMPLES", "15"))
MESH = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])

sizes = st.integers(3, 6)
seeds = st.integers(0, 2**32 - 1)
drops = st.sampled_from([0.0, 0.05, 0.2, 0.35])
dups = st.sampled_from([0.0, 0.1, 0.3])
delays = st.sampled_from([0.0, 0.05, 0.4, 1.5])


def assert_agreement(mesh: Mesh) -> None:
    nodes = mesh.honest()
    for node in nodes:
        r = node.replica
        assert r.halted is None, f"seat {node.seat} halted: {r.halted}"
        assert not node.cheats and not node.rejected, (node.cheats, node.rejected)
        assert r.game.finished(), f"seat {node.seat} did not finish by t={mesh.now}"
    assert len({n.replica.transcript_head() for n in nodes}) == 1
    assert len({n.replica.game.public_hash() for n in nodes}) == 1
    assert len({tuple(n.lines) for n in nodes}) == 1  # the files on disk are identical
    result = verify_transcript(nodes[0].lines, mesh.roster, mesh.new_game)
    assert result.ok and result.finished, result
    assert result.head == nodes[0].replica.transcript_head()


@pytest.mark.slow  # soak: whole matches over a lossy simulated network
@MESH
@given(n=sizes, seed=seeds, drop=drops, dup=dups, delay=delays, simultaneous=st.booleans())
def test_honest_replicas_agree_despite_a_lossy_network(n, seed, drop, dup, delay, simultaneous):
    mesh = Mesh(n, seed, drop=drop, dup=dup, max_delay=delay, simultaneous=simultaneous)
    mesh.run()
    assert_agreement(mesh)


@settings(max_examples=3, deadline=None)
@given(n=sizes, seed=seeds)
def test_without_eager_relay_have_want_alone_recovers_losses(n, seed):
    mesh = Mesh(n, seed, drop=0.25, dup=0.1, max_delay=0.3, relay=False)
    mesh.run()
    assert_agreement(mesh)


@MESH
@given(n=sizes, seed=seeds, drop=drops, dup=dups, delay=delays, data=st.data())
def test_every_honest_replica_names_the_equivocator(n, seed, drop, dup, delay, data):
    cheater = data.draw(st.integers(0, n - 1), label="cheater")
    mesh = Mesh(n, seed, drop=drop, dup=dup, max_delay=delay, per_round=n + 1)
    mesh.cheater = cheater
    mesh.dishonest = {cheater}
    mesh.run()
    for node in mesh.honest():
        halted = node.replica.halted
        assert halted is not None, f"seat {node.seat} never noticed (t={mesh.now})"
        assert halted.culprit == cheater
        # Caught directly (two messages for one seq) or through the fork that follows.
        assert "equivocation" in halted.reason or "forked feed" in halted.reason
        assert {c.culprit for c in node.cheats} == {cheater}  # nobody else is ever blamed
        # The evidence convinces a third party: two frames validly signed by the cheater
        # for one seq, or for consecutive seqs that do not chain.
        first, second = (open_frame(f, mesh.roster, TABLE) for f in halted.evidence)
        assert first.seat == second.seat == cheater and first.digest != second.digest
        assert first.seq == second.seq or (
            second.seq == first.seq + 1 and second.prev != first.digest
        )


@MESH
@given(
    n=sizes,
    seed=seeds,
    drop=st.sampled_from([0.0, 0.1, 0.2]),
    delay=st.sampled_from([0.0, 0.1, 0.5]),
    data=st.data(),
)
def test_a_crashed_peer_restarts_from_disk_and_catches_up(n, seed, drop, delay, data):
    victim = data.draw(st.integers(0, n - 1), label="victim")
    at = data.draw(st.floats(0.0, 3.0), label="crash time")
    kept = data.draw(st.integers(0, 6), label="events handled before the crash")
    down = data.draw(st.floats(0.1, 4.0), label="downtime")
    mesh = Mesh(n, seed, drop=drop, dup=0.1, max_delay=delay)
    mesh.crash_plan = (victim, at, kept)
    while mesh.nodes[victim].up and mesh.now < 60:
        mesh.step()
    mesh.step(down)  # frames sent to the dead process are lost
    mesh.restart(victim)
    mesh.run()
    assert_agreement(mesh)
    assert mesh.nodes[victim].replica.stats["duplicates"] >= 0


def test_a_peer_that_never_comes_back_is_named_as_the_stall():
    mesh = Mesh(4, seed=3)
    while not mesh.nodes[0].replica.game.dealt:
        mesh.step()
    mesh.crash(2)
    for _ in range(400):  # 20 simulated seconds
        mesh.step()
    for node in mesh.honest():
        named = {s.waiting_on for s in node.stalled}
        assert named == {2}, (node.seat, node.stalled)
        assert not node.cheats



def test_the_end_is_level_only_once_every_peer_holds_the_same_feeds():
    """``Replica.all_peers_level`` lets a finished seat stop lingering (TablePeer): true
    only while every other seat's last summary shows exactly the messages this one holds."""
    mesh = Mesh(3, 7)
    assert not any(n.replica.all_peers_level() for n in mesh.nodes.values())  # nobody heard
    mesh.run()
    nodes = list(mesh.nodes.values())
    assert all(n.replica.game.finished() for n in nodes)
    end = mesh.now + 5.0
    while not all(n.replica.all_peers_level() for n in nodes) and mesh.now < end:
        mesh.step()
    assert all(n.replica.all_peers_level() for n in nodes)
    # a line said after the end (a gg): its author is ahead of the others' summaries,
    # and they are behind its own, until the summaries carry it
    first = nodes[0]
    said = len(first.replica.ledger.feeds[0])
    mesh.handle(first, first.replica.chat({"text": "gg"}, mesh.now))
    assert len(first.replica.ledger.feeds[0]) == said + 1
    assert not first.replica.all_peers_level()
    mesh.crash(2)  # silent from now on: its summary never shows the gg
    end = mesh.now + 5.0
    while mesh.now < end:
        mesh.step()
    assert len(nodes[1].replica.ledger.feeds[0]) == said + 1  # seat 1 has the gg
    assert nodes[1].replica.all_peers_level() is False  # seat 2 lacks what seat 1 holds
    assert not first.replica.all_peers_level()
