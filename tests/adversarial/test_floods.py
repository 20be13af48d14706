"""Floods cost little and are named; honest traffic never trips the limits (issue #12).

The attack: a roster peer sends validly signed control frames (heartbeats,
hellos, wants) at ~3,500/s. Before the fix every one was verified, parsed and
acted on (a want resent up to 64 frames each), which slowed a table ~35x with
nothing logged. Now each replica keeps a token bucket per sender for control
frames, checked before the signature (``CONTROL_RATE``/``CONTROL_BURST``), a
resend allowance per asking peer (``RESEND_RATE``/``RESEND_BURST``) and drops a
want it has just answered; a sender over a limit is named once per episode
(``Flooding``), never blamed as a cheat. Real replicas over the in-memory mesh.
"""

from __future__ import annotations

import asyncio
import sys
from dataclasses import replace
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent.parent / "protocol"))

from proto_support import FAST, TABLE, Mesh, identity  # noqa: E402

from zsy_lan.protocol import Send, seal  # noqa: E402
from zsy_lan.protocol import replica as replica_module  # noqa: E402
from zsy_lan.protocol.events import Flooding  # noqa: E402
from zsy_lan.protocol.floods import (  # noqa: E402
    CONTROL_BURST,
    CONTROL_RATE,
    FLOOD_QUIET,
    RESEND_BURST,
    RESEND_RATE,
    VOTE_BURST,
    VOTE_RATE,
)

FLOODER, TARGET = 1, 0
RATE = 3500  # frames a second, as in the issue


def _control(kind: str, body: dict) -> bytes:
    return seal(identity(FLOODER), table=TABLE, seat=FLOODER, seq=0, prev="", state="",
                type=kind, body=body)  # fmt: skip


def _table() -> Mesh:
    mesh = Mesh(4, 31, rounds=3, per_round=30)
    while mesh.nodes[TARGET].replica.game.round_no < 1:
        mesh.step()
    return mesh


def _flood(replica, frames: list[bytes], start: float, seconds: float, via=None) -> list:
    """Deliver ``frames`` in turn at RATE a second for ``seconds``; returns the events."""
    out = []
    n = int(RATE * seconds)
    for i in range(n):
        out += replica.receive(frames[i % len(frames)], start + i / RATE, via=via)
    return out


def _count_verified(monkeypatch) -> list[int]:
    """Count the frames that reach signature verification (open_frame) in the replica."""
    calls = [0]
    real = replica_module.open_frame

    def counting(*args, **kwargs):
        calls[0] += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(replica_module, "open_frame", counting)
    return calls


def test_a_heartbeat_flood_is_dropped_before_verification_and_named_once(monkeypatch):
    mesh = _table()
    r = mesh.nodes[TARGET].replica
    sender = mesh.nodes[FLOODER].replica
    beat = sender._control_frame("heartbeat", {"have": sender._summary()})
    hello = _control("hello", {"nick": "flood"})
    verified = _count_verified(monkeypatch)
    events = _flood(r, [beat, hello], mesh.now, 2.0)
    allowed = CONTROL_BURST + CONTROL_RATE * 2.0 + 1
    assert verified[0] <= allowed, f"{verified[0]} frames verified out of {int(RATE * 2)}"
    assert r.stats["flood_dropped"] >= RATE * 2 - allowed
    named = [e for e in events if isinstance(e, Flooding)]
    assert len(named) == 1 and named[0].seat == FLOODER
    assert 0.8 * RATE <= named[0].rate <= 1.2 * RATE, named[0]
    assert r.halted is None  # a flood is named, never blamed as a cheat
    # the same episode goes on: not named again
    more = _flood(r, [beat], mesh.now + 2.0, 1.0)
    assert not [e for e in more if isinstance(e, Flooding)]


def test_a_new_flood_after_a_quiet_spell_is_named_again():
    mesh = _table()
    r = mesh.nodes[TARGET].replica
    beat = _control("heartbeat", {"have": {}})
    first = _flood(r, [beat], mesh.now, 1.5)
    later = mesh.now + 1.5 + FLOOD_QUIET + 1.0
    r.tick(later)  # the episode ends
    second = _flood(r, [beat], later, 1.5)
    assert [type(e) for e in first + second if isinstance(e, Flooding)] == [Flooding, Flooding]


def test_a_short_flood_is_named_by_the_timer_after_it_stopped():
    mesh = _table()
    r = mesh.nodes[TARGET].replica
    events = _flood(r, [_control("heartbeat", {"have": {}})], mesh.now, 0.5)
    assert not [e for e in events if isinstance(e, Flooding)]
    named = [e for e in r.tick(mesh.now + 1.2) if isinstance(e, Flooding)]
    assert [e.seat for e in named] == [FLOODER]


def test_a_want_flood_resends_little(monkeypatch):
    """Identical wants are answered once; distinct ones within the resend allowance."""
    mesh = _table()
    r = mesh.nodes[TARGET].replica
    have = len(r.ledger.feeds[2])
    assert have >= 8
    same = _control("want", {"author": 2, "from": 1, "to": have})
    events = _flood(r, [same], mesh.now, 1.0)
    sends = [e for e in events if isinstance(e, Send)]
    # at most one answer per half want_retry, each at most `have` frames
    assert len(sends) <= have * (1.0 / (FAST.want_retry / 2) + 1)
    assert r.stats["wants_deduped"] > 0
    # distinct wants (every range) spend the resend allowance, then are cut
    ranges = [
        _control("want", {"author": a, "from": lo, "to": len(r.ledger.feeds[a])})
        for a in range(4)
        for lo in range(1, len(r.ledger.feeds[a]) + 1)
    ]
    start = mesh.now + 5.0
    events = _flood(r, ranges, start, 2.0)
    sends = [e for e in events if isinstance(e, Send)]
    assert len(sends) <= RESEND_BURST + RESEND_RATE * 2.0 + 64
    assert [e.seat for e in events if isinstance(e, Flooding)] == [FLOODER]


def test_the_link_not_the_claimed_seat_pays_for_a_flood():
    """A peer forging another seat's header spends its own allowance (``via``)."""
    mesh = _table()
    r = mesh.nodes[TARGET].replica
    beat = _control("heartbeat", {"have": {}})  # claims seat 1 ...
    events = _flood(r, [beat], mesh.now, 1.5, via=3)  # ... but comes on seat 3's link
    assert [e.seat for e in events if isinstance(e, Flooding)] == [3]
    honest = mesh.nodes[FLOODER].replica
    frame = honest._control_frame("heartbeat", {"have": honest._summary()})
    assert r.receive(frame, mesh.now + 1.6, via=FLOODER) is not None
    assert r.floods.control_in[FLOODER].tokens > CONTROL_BURST - 2  # seat 1: untouched


def test_a_table_under_flood_finishes_and_verifies_little(monkeypatch):
    """A flooder in a live table: the others play on, the flood is named everywhere."""
    mesh = Mesh(4, 32, rounds=2, per_round=30)
    flood = [_control("heartbeat", {"have": {}}), _control("hello", {"nick": "x"})]
    named: dict[int, list[Flooding]] = {s: [] for s in mesh.seats}
    real_handle = mesh.handle

    def handle(node, events, limit=None):
        named[node.seat] += [e for e in events if isinstance(e, Flooding)]
        real_handle(node, events, limit)

    mesh.handle = handle  # type: ignore[method-assign]
    verified = _count_verified(monkeypatch)
    per_step = int(RATE * 0.05)
    t = 0.0
    while not mesh.done() and mesh.now < 60:
        for node in mesh.nodes.values():
            if node.seat != FLOODER:
                for i in range(per_step):
                    handle(node, node.replica.receive(flood[i % 2], mesh.now))
        mesh.step()
        t += 0.05
    assert mesh.done() and t > 2.0
    for node in mesh.honest():
        assert node.replica.halted is None and node.replica.game.finished()
        if node.seat != FLOODER:
            assert [e.seat for e in named[node.seat]] == [FLOODER]
    sent = per_step * 3 * (t / 0.05)
    assert verified[0] < sent / 5, f"{verified[0]} verified of {sent:.0f} flood frames"


@pytest.mark.slow  # soak: a long match replayed to a late seat
def test_honest_catch_up_after_a_long_absence_never_trips_a_limit():
    """Six seats, one cut off while a bot holds it for many turns, then back: it catches up.

    Every frame it missed comes back through wants and resends, in bursts; no
    replica drops anything and nobody is named.
    """
    timing = replace(FAST, hold_after=0.5)
    mesh = Mesh(6, 33, rounds=4, per_round=60, relay=False, timing=timing, dup=0.05)
    mesh.asleep = {5}
    mesh.wait_on(5)
    mesh.cut_off = {5}
    mesh.auto_hold = timing.hold_after
    while mesh.nodes[0].replica.game.round_no < 3 and mesh.now < 200:
        mesh.step()
    missed = sum(len(f) for f in mesh.nodes[0].replica.ledger.feeds.values()) - sum(
        len(f) for f in mesh.nodes[5].replica.ledger.feeds.values()
    )
    assert missed > 150, missed
    mesh.cut_off = set()
    mesh.asleep = set()
    mesh.run(limit=400)
    for node in mesh.nodes.values():
        r = node.replica
        assert r.halted is None and r.game.finished(), node.seat
        assert r.stats["flood_dropped"] == 0, (node.seat, dict(r.stats))
        assert r.stats["resend_dropped"] == 0, (node.seat, dict(r.stats))
    assert len({n.replica.transcript_head() for n in mesh.nodes.values()}) == 1


# -- one real-socket check: the peer charges the authenticated link ---------------------

sys.path.insert(0, str(Path(__file__).parent.parent / "table"))

import test_table_bad_input as bad  # noqa: E402
from test_table_bad_input import make_table  # noqa: E402, F401 - the fixture


@pytest.mark.slow  # real peers on loopback and a 1.5 s flood
@pytest.mark.asyncio
@pytest.mark.timeout(60)
async def test_a_flood_on_real_sockets_is_named_once_and_charged_to_the_link(make_table):  # noqa: F811
    """Real TablePeers over CURVE on 127.0.0.1 (tests/table/test_table_bad_input's table).

    The attacker holds seat 2's key and mesh and sends validly signed heartbeats,
    one in five claiming seat 0, at about 3,500 a second for 1.5 s. Each honest
    peer charges the link (seat 2), drops the excess unverified, names seat 2
    once, and seat 0's allowance is untouched.
    """
    t = await make_table(raw=(2,))
    for p in t.peers.values():
        assert await t.meshes[2].wait_connected(p.seat, 5)
    own = seal(t.ids[2], table=t.roster.table, seat=2, seq=0, prev="", state="",
               type="heartbeat", body={"have": {}})  # fmt: skip
    claims_0 = seal(t.ids[2], table=t.roster.table, seat=0, seq=0, prev="", state="",
                    type="heartbeat", body={"have": {}})  # fmt: skip
    sent = 0
    for _ in range(150):  # 1.5 s: 35 frames to each peer every 10 ms
        for i in range(35):
            frame = claims_0 if i % 5 == 0 else own
            for p in t.peers.values():
                if not t.meshes[2].send_now(p.seat, frame):
                    await t.meshes[2].send(p.seat, frame, timeout=1)
                sent += 1
        await asyncio.sleep(0.01)
    await bad.wait_for(
        lambda: all(any(isinstance(e, Flooding) for e in p.events) for p in t.peers.values()),
        timeout=5,
        what="the flood named",
    )
    for p in t.peers.values():
        told = [e for e in p.events if isinstance(e, Flooding)]
        assert [e.seat for e in told] == [2], told
        r = p.replica
        assert r.stats["flood_dropped"] > sent / len(t.peers) / 2, dict(r.stats)
        assert 0 not in r.floods.control_in or r.floods.control_in[0].tokens > CONTROL_BURST - 5
        assert r.halted is None
        assert not p.cheats()
    t.alive()


def test_the_in_memory_mesh_hands_the_link_to_receive():
    """The harness passes ``via``: a seat's heartbeat played back on another seat's link is
    a replay (ignored, not charged to the seat it names). Before, the mesh called
    ``receive`` without the link and every such frame counted for the claimed seat."""
    mesh = Mesh(3, 41)
    beat = next(e.frame for e in mesh.nodes[1].replica.tick(5.0) if isinstance(e, Send))
    target = mesh.nodes[0].replica
    replayed = target.stats["replayed_control"]
    mesh.post(2, 0, beat, reliable=True)  # seat 2 plays seat 1's heartbeat back to seat 0
    mesh.step(0.1)
    assert target.stats["replayed_control"] == replayed + 1
    mesh.post(1, 0, beat, reliable=True)  # on its own link it counts
    mesh.step(0.1)
    assert target.stats["replayed_control"] == replayed + 1


def _signed_votes(mesh: Mesh, n: int) -> list[bytes]:
    """``n`` valid feed messages outside the game (returns) by the flooder, chained."""
    fl = mesh.nodes[FLOODER].replica
    frames = []
    for _ in range(n):
        events = fl._author("return", {"at": fl.ledger.head}, mesh.now)
        frames.append(next(e.frame for e in events if isinstance(e, Send)))
    return frames


def test_a_vote_flood_is_cut_per_author_named_once_and_never_halts(monkeypatch):
    """Before: every one of thousands of valid signed returns a second was filed and kept
    (a return even in a list); now past ``VOTE_RATE`` the author's excess is dropped."""
    mesh = _table()
    r = mesh.nodes[TARGET].replica
    frames = _signed_votes(mesh, int(RATE * 2))
    before = len(r.ledger.feeds[FLOODER])
    verified = _count_verified(monkeypatch)
    events = []
    for i, frame in enumerate(frames):
        events += r.receive(frame, mesh.now + i / RATE, via=FLOODER)
    filed = len(r.ledger.feeds[FLOODER]) - before
    assert filed <= VOTE_BURST + VOTE_RATE * 2 + 1, filed
    # on the author's own link the excess is dropped before its signature is checked
    assert verified[0] <= VOTE_BURST + VOTE_RATE * 2 + 1, verified[0]
    assert r.stats["flood_dropped"] > RATE
    assert [e.seat for e in events if isinstance(e, Flooding)] == [FLOODER]
    assert r.halted is None  # named, never blamed: the frames are valid


def test_votes_asked_for_are_not_charged():
    """A replica catching up takes any number of votes it asked for (its wants' ranges),
    all at one instant: a catch-up is not a flood. Only unasked ones are charged."""
    mesh = _table()
    r = mesh.nodes[TARGET].replica
    n = int(VOTE_BURST * 2)  # beyond the burst, within the buffer window
    frames = _signed_votes(mesh, n)
    have = len(r.ledger.feeds[FLOODER])
    now = mesh.now
    r.receive(frames[-1], now, via=FLOODER)  # ahead of a gap: kept, and the gap asked for
    for _ in range(n):  # each want's answer (at most MAX_RESEND frames), then the next want
        want = r.sync.wants.get(FLOODER)
        if want is None:
            break
        for seq in range(want.lo, want.hi + 1):
            r.receive(frames[seq - have - 1], now, via=2)  # resent by another seat
        r.tick(now)
    assert len(r.ledger.feeds[FLOODER]) == have + n
    assert r.stats["flood_dropped"] == 0


@pytest.mark.slow  # soak: a flood through a whole simulated match
def test_a_vote_flood_relayed_by_another_seat_is_charged_to_its_author():
    """Votes coming on another seat's link are charged after the signature, to the author
    it proves (the relaying seat's allowance is not spent, nor is it named)."""
    mesh = _table()
    r = mesh.nodes[TARGET].replica
    frames = _signed_votes(mesh, int(RATE * 2))
    events = []
    for i, frame in enumerate(frames):
        events += r.receive(frame, mesh.now + i / RATE, via=2)
    assert [e.seat for e in events if isinstance(e, Flooding)] == [FLOODER]
    assert 2 not in r.floods.votes_in
