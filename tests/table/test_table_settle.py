"""A play is applied and recorded at once, and told to the user SETTLE later.

``TablePeer`` defers only what its own user sees (the play's narration, the UI
wake-up) and the state hash, so peers sharing a CPU apply the frame first. The
record on disk, the game and the next bot's turn do not wait, and nothing is
told out of order: a notice about anything else (the next deal) comes after
the plays received before it.
"""

from __future__ import annotations

import asyncio
import hashlib
from pathlib import Path

import pytest

from zsy_lan.engine.game import Game
from zsy_lan.engine.ruleset import build_rules
from zsy_lan.protocol import Applied, Identity, PeerState, Replica, Send
from zsy_lan.protocol.lobby import Roster, Seat
from zsy_lan.record.store import TableStore
from zsy_lan.table.peer import TablePeer
from zsy_lan.table.settle import SETTLE

pytestmark = [pytest.mark.asyncio, pytest.mark.timeout(60)]

SEATS = (0, 1, 2)


class _NoMesh:
    """The peer is fed by hand here: nothing goes on a wire, so sends wait in its outboxes."""

    def send_now(self, seat: int, frame: bytes) -> bool:
        return False


def _setup(tmp_path: Path) -> tuple[TablePeer, list[Replica]]:
    rules = build_rules(3, [], {})
    ids = [Identity.from_seed(hashlib.sha256(b"settle-%d" % s).digest()) for s in SEATS]
    seats = [
        Seat(s, ids[s].public_key, ids[s].curve_public, f"tcp://127.0.0.1:{9000 + s}", f"p{s}")
        for s in SEATS
    ]
    roster = Roster("t-settle", "settle", 2, rules.config, seats)
    peer = TablePeer(ids[0], roster, 0, _NoMesh(), TableStore(tmp_path / "seat0"))  # type: ignore[arg-type]
    counter = [0]

    def entropy(n: int) -> bytes:
        counter[0] += 1
        return hashlib.sha256(b"settle-e%d" % counter[0]).digest()[:n]

    others = [
        Replica(roster.table, s, ids[s], roster.keys, Game(rules, 2), entropy=entropy, relay=False)
        for s in SEATS[1:]
    ]
    return peer, others


def _exchange(peer: TablePeer, others: list[Replica], frames: list[tuple[int, bytes]]) -> None:
    """Deliver frames everywhere (the peer through its network entry point) until quiet."""
    while frames:
        src, frame = frames.pop(0)
        if src != 0:
            peer._on_frame(src, frame)
        for r in others:
            if r.seat != src:
                frames += [(r.seat, e.frame) for e in r.receive(frame, 0.0) if isinstance(e, Send)]


def _peer_sends(peer: TablePeer) -> list[tuple[int, bytes]]:
    out = []
    for q in peer.outbox.queues.values():
        while not q.empty():
            out.append((0, q.get_nowait()))
    return out


def _drain(q: asyncio.Queue) -> list[str]:  # type: ignore[type-arg]
    out = []
    while not q.empty():
        n = q.get_nowait()
        out.append(f"{n.kind}: {n.text}")
    return out


async def test_a_received_play_is_recorded_at_once_and_told_after_settle(tmp_path):
    peer, others = _setup(tmp_path)
    for s in (1, 2):
        peer.outbox.queues[s] = asyncio.Queue()  # what start() would wire, minus the sockets
    # the deal: every replica commits and reveals
    frames = [(r.seat, e.frame) for r in others for e in r.tick(0.0) if isinstance(e, Send)]
    peer._handle(peer.replica.tick(0.0))
    frames += _peer_sends(peer)
    for _ in range(10):
        _exchange(peer, others, frames)
        frames = _peer_sends(peer)
        if not frames:
            break
    assert peer.game.round is not None and all(r.game.round is not None for r in others)
    _drain(peer.notices)
    # seat 0 plays when it leads (applied at once, told after SETTLE like any
    # play), then the other seats play until seat 0 is to act again
    if peer.replica.can_act():
        before = len(peer.game.log)
        peer._act(peer.game.legal(0)[-1].to_json())
        assert len(peer.game.log) == before + 1
        _exchange(peer, others, _peer_sends(peer))
        assert not _drain(peer.notices)
        await asyncio.sleep(SETTLE * 3)
        assert [n for n in _drain(peer.notices) if n.startswith("play: you")]
    told_before = len(peer.store.transcript_lines())
    plays = 0
    while not peer.replica.can_act() and plays < 10:
        author = next(r for r in others if r.can_act())
        action = author.game.legal(author.seat)[-1].to_json()
        frames = [(author.seat, e.frame) for e in author.act(action, 0.0) if isinstance(e, Send)]
        _exchange(peer, others, frames)
        plays += 1
    assert plays >= 1
    # applied and recorded at once, the same state as the others
    assert len(peer.game.log) == len(others[0].game.log)
    assert len(peer.store.transcript_lines()) == told_before + plays
    assert peer.replica.transcript_head() == others[0].transcript_head()
    assert not [n for n in _drain(peer.notices) if n.startswith("play:")]  # not told yet
    await asyncio.sleep(SETTLE * 3)
    told = [n for n in _drain(peer.notices) if n.startswith("play:")]
    assert len(told) == plays  # each once, after the settle time
    assert all(n.startswith(("play: seat 1", "play: seat 2")) for n in told)
    assert peer.changed.is_set()


async def test_other_news_waits_for_the_plays_received_before_it(tmp_path):
    peer, others = _setup(tmp_path)
    peer.settle.tell_pending()  # nothing pending: nothing told, no error
    assert peer.notices.empty()
    play = Applied(1, 1, {"kind": "pass", "seat": 1}, None)
    peer.settle.pending.append(play)  # a received play not told yet
    peer._handle([PeerState(2, False)])  # then other news arrives
    order = _drain(peer.notices)
    assert order[0].startswith("play: seat 1") and "dropped" in order[1]
