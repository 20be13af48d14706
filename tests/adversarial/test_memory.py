"""Memory does not grow with the match (DESIGN.md "Around the table"; docs/performance.md).

With retention on (``Replica(retain=k)``, what ``TablePeer`` uses) the frames
of rounds older than the last ``k`` leave memory once every seat has acted
past them; the record on disk (the Transcribed/Aside lines) keeps everything
and still verifies. These tests count what a replica holds after round r, not
bytes or time: the count must not grow with r.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent.parent / "private"))
sys.path.insert(0, str(Path(__file__).parent.parent / "protocol"))

from private_support import PrivateTable, zsy_rules  # noqa: E402
from proto_support import FakeGame, bot_action, entropy_for, identity  # noqa: E402

from zsy_lan.protocol import (  # noqa: E402
    Cheat,
    Replica,
    Send,
    Transcribed,
    verify_transcript,
)
from zsy_lan.protocol.events import Aside  # noqa: E402
from zsy_lan.protocol.memory_mesh import MemoryMesh  # noqa: E402

TABLE = "memory-test"


class FakeTable:
    """n replicas of the toy game over the lossless in-memory mesh; every line goes to 'disk'."""

    def __init__(self, n: int, rounds: int, retain: int | None) -> None:
        self.n = n
        self.rounds = rounds
        self.roster = {s: identity(s).public_key for s in range(n)}
        self.replicas = {
            s: Replica(
                TABLE,
                s,
                identity(s),
                self.roster,
                self.new_game(),
                entropy=entropy_for(s, "mem"),
                relay=False,
                retain=retain,
            )
            for s in range(n)
        }
        self.lines: dict[int, list[str]] = {
            s: [r.transcript_header()] for s, r in self.replicas.items()
        }
        self.net = MemoryMesh(range(n))
        self.sent: list[tuple[int, bytes]] = []  # every frame ever broadcast (to replay later)
        self.now = 0.0
        for s in range(n):
            self.handle(s, self.replicas[s].tick(self.now))

    def new_game(self) -> FakeGame:
        return FakeGame(tuple(range(self.n)), rounds=self.rounds, per_round=6)

    def handle(self, seat: int, events: list[Any]) -> None:
        for ev in events:
            if isinstance(ev, Send):
                self.net.post(seat, ev.to, ev.frame, self.now)
                self.sent.append((seat, ev.frame))
            elif isinstance(ev, (Transcribed, Aside)):
                assert ev.pos == len(self.lines[seat]) - 1
                self.lines[seat].append(ev.line)
            elif isinstance(ev, Cheat):
                raise AssertionError(f"seat {seat} blamed: {ev.reason}")
        r = self.replicas[seat]
        while r.can_act() and not r.game.finished():
            self.handle(seat, r.act(bot_action(r.game, seat), self.now))

    def rounds_done(self) -> int:
        return min(r.game.round_no for r in self.replicas.values())

    def run(self, until_round: int) -> None:
        for _ in range(200_000):
            if self.rounds_done() >= until_round:
                return
            if not self.net:
                self.now += 0.1
                for s in range(self.n):
                    self.handle(s, self.replicas[s].tick(self.now))
                continue
            self.deliver_one()
        raise AssertionError("the table did not get there")

    def deliver_one(self) -> None:
        """The next frame on the mesh, to each destination still running."""
        due = self.net.pop()
        assert due is not None  # lossless: everything on it is due
        for dst in due.dsts:
            if dst in self.replicas:
                self.handle(dst, self.replicas[dst].receive(due.frame, self.now))

    def held(self, seat: int) -> int:
        """Feed messages, transcript entries and dedup hashes this replica holds."""
        led = self.replicas[seat].ledger
        return (
            sum(len(f.items) for f in led.feeds.values())
            + len(led.entries.items)
            + len(self.replicas[seat]._seen)
            + len(led.steps)
        )


def test_frames_held_do_not_grow_with_the_rounds() -> None:
    t = FakeTable(3, rounds=60, retain=2)
    held = {}
    for k in (10, 20, 40, 60):
        t.run(k)
        held[k] = [t.held(s) for s in range(t.n)]
    for s in range(t.n):
        # after round 10 the count stays within one round's worth of messages
        assert max(held[k][s] for k in (20, 40, 60)) <= held[10][s] + 12, held
    # nothing left memory without retention: the same table holds ~6x as much
    plain = FakeTable(3, rounds=60, retain=None)
    plain.run(60)
    assert t.held(0) * 4 < plain.held(0)
    # every replica agrees, and the record on disk keeps everything and verifies
    assert len({r.transcript_head() for r in t.replicas.values()}) == 1
    assert t.replicas[0].transcript_head() == plain.replicas[0].transcript_head()
    for s in range(t.n):
        assert t.lines[s] == plain.lines[s]
        res = verify_transcript(t.lines[s], t.roster, t.new_game)
        assert res.ok and res.finished, res.reason
    # the commit-reveal secrets of rounds revealed long ago went too (the journal keeps them)
    assert all(len(r.seeds.secrets) <= 3 for r in t.replicas.values())
    assert len(plain.replicas[0].seeds.secrets) > 30
    # indices stay absolute: the summary still counts every message
    led = t.replicas[0].ledger
    assert led.entries.base > 0 and len(led.entries) == len(plain.replicas[0].ledger.entries)


def test_an_old_frame_again_is_a_duplicate_not_proof() -> None:
    """A frame that left memory comes back (a late relay): ignored, nobody blamed."""
    t = FakeTable(3, rounds=30, retain=2)
    t.run(30)
    old = [f for s, f in t.sent[:20] if s == 1]
    assert old and t.replicas[0].ledger.feeds[1].base > 0
    for frame in old:
        events = t.replicas[0].receive(frame, t.now)
        assert not [e for e in events if isinstance(e, Cheat)]
    assert t.replicas[0].halted is None


def test_a_seat_that_never_acts_past_a_round_keeps_it_in_memory() -> None:
    """Retire waits for every seat: a seat that is gone pins what it has not acted past."""
    t = FakeTable(3, rounds=30, retain=1)
    t.run(5)
    # seat 2's process stops: the others wait on it, nothing is retired past its last act
    t.replicas.pop(2)
    t.n = 2
    for _ in range(200):
        t.now += 0.1
        for s in range(2):
            t.handle(s, t.replicas[s].tick(t.now))
        while t.net:
            t.deliver_one()
    for s in range(2):
        led = t.replicas[s].ledger
        assert t.replicas[s].game.round_no < 7  # the table is stuck on seat 2
        assert 0 < led.entries.base <= led.last_entry[2], (led.entries.base, led.last_entry)
        assert len(led.entries.items) > len(led.entries) - led.last_entry[2] - 1


@pytest.mark.slow  # soak: memory over many private-deal rounds
def test_private_deal_holds_the_same_after_each_round() -> None:
    """The private deal (the biggest frames): held frames, moves and audits stay flat."""
    t = PrivateTable(zsy_rules(3), rounds=7)
    for node in t.nodes.values():
        node.replica.retain = 2
    held = []
    for k in range(3, 8):
        t.run(until=lambda k=k: all(len(n.game.match.results) >= k for n in t.nodes.values()))
        node = t.nodes[0]
        led = node.replica.ledger
        held.append(
            (
                sum(len(f.items) for f in led.feeds.values()) + len(led.entries.items),
                len(node.game.log.items),
                len(node.game.audits.items),
            )
        )
    assert all(n.game.finished() for n in t.nodes.values())
    assert not any(n.cheats for n in t.nodes.values())
    frames = [h[0] for h in held]
    # a round's worth of spread (round lengths differ), but no growth with the rounds
    assert max(frames) - min(frames) < min(frames) // 2, held
    assert all(h[2] <= 3 for h in held), held  # the last two audits (+ the one just made)
    assert max(h[1] for h in held) < 3 * min(h[1] for h in held), held
    node = t.nodes[0]
    assert len(node.game.audits) == 7 and node.game.log.base > 0


def test_a_seat_rebuilds_after_a_hold_even_when_old_rounds_left_memory() -> None:
    """A partitioned seat moved meanwhile, was held, came back: it rebuilds from its record.

    The rebuild replays every feed from the start; the rounds that left memory
    come back from the transcript file (``Replica(record=...)``), so the seat
    ends on the same transcript as the others, in memory and on disk.
    """
    from dataclasses import replace

    from proto_support import FAST, Mesh

    mesh = Mesh(4, 7, timing=replace(FAST, hold_after=1.0), rounds=6, per_round=8)
    for node in mesh.nodes.values():
        node.replica.retain = 1
        node.replica._record = lambda node=node: list(node.lines)
    while min(n.replica.game.round_no for n in mesh.nodes.values()) < 3:
        mesh.step()
    victim = mesh.nodes[2]
    mesh.asleep = {2}
    mesh.wait_on(2, limit=mesh.now + 30.0)
    assert victim.replica.ledger.retired, "old rounds must have left memory by now"
    mesh.cut_off = {2}
    r = victim.replica
    mesh.handle(victim, r.act(bot_action(r.game, 2), mesh.now))  # lost: nobody gets it
    end = mesh.now + 30.0
    while any(n.replica.motion_wait("hold", 2, mesh.now) > 0 for n in mesh.honest() if n.seat != 2):
        assert mesh.now < end
        mesh.step()
    mesh.move(0, "hold", 2)
    while not any(a.by is not None for a in mesh.nodes[0].applied):
        mesh.step()
    mesh.cut_off = set()
    mesh.asleep = set()
    mesh.run(limit=mesh.now + 120)
    nodes = mesh.honest()
    assert all(n.replica.halted is None and n.replica.ledger.fault is None for n in nodes)
    assert all(n.replica.game.finished() for n in nodes)
    assert victim.replica.stats["rebuilds"] == 1 and len(victim.rewound) == 1
    assert len({n.replica.transcript_head() for n in nodes}) == 1
    assert len({tuple(n.lines) for n in nodes}) == 1, "the files on disk differ"
    assert verify_transcript(victim.lines, mesh.roster, mesh.new_game).ok


def test_the_engine_game_forgets_old_rounds_but_counts_every_action() -> None:
    """Open deal: Game.retire_history keeps the last rounds' actions; len(log) counts all."""
    import hashlib

    from zsy_lan.engine.bots import GreedyBot
    from zsy_lan.engine.game import Game
    from zsy_lan.engine.ruleset import build_rules

    rules = build_rules(4, [], {})
    game = Game(rules, 8)
    bot = GreedyBot()
    applied, held = 0, []
    for k in range(8):
        game.start_round(hashlib.sha256(b"mem-%d" % k).digest())
        while game.actors():
            seat = game.actors()[0]
            game.apply(seat, bot.act(rules, game.view(seat), seat))
            applied += 1
        game.retire_history(1)
        held.append(list.__len__(game.log))
        assert len(game.log) == applied  # a change counter for the shell: never goes back
    assert game.finished()
    assert max(held[2:]) < 3 * min(held[2:]) and max(held) < applied // 3, held


def test_a_vote_about_a_position_long_gone_does_not_stop_retirement() -> None:
    """A seat votes about a position that left memory: memory still stays flat."""
    t = FakeTable(3, rounds=40, retain=1)
    t.run(10)
    r = t.replicas[1]
    gone = "ab" * 32  # a position nobody holds (long gone, or never)
    t.handle(1, r._author("motion", {"motion": "hold", "seat": 2, "at": gone, "cut": 1}, t.now))
    t.run(20)
    held20 = t.held(0)
    t.run(40)
    assert t.held(0) <= held20 + 12
    assert all(rep.halted is None for rep in t.replicas.values())
    assert t.replicas[0].ledger.entries.base > 0
