"""Test support for the protocol: a toy game, deterministic identities and an in-memory mesh.

The mesh follows h11's tests/helpers.py idea: real protocol objects, a fake
link. The link is the package's in-memory mesh
(:class:`zsy_lan.protocol.memory_mesh.MemoryMesh`, the one ``zsy play`` runs on)
with :class:`~zsy_lan.protocol.memory_mesh.Faults`: it drops, duplicates, delays
and reorders frames according to a seeded generator (hypothesis picks the seed
and the rates), and the shell loop obeys the same contract a real shell must:
events in order, Persist before later Sends, tick on a timer.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from zsy_lan.protocol import (
    Applied,
    Cheat,
    Identity,
    Persist,
    Rejected,
    Replica,
    Send,
    Stalled,
    Timing,
    Transcribed,
    digest,
    seal,
)
from zsy_lan.protocol.envelope import MOTIONS
from zsy_lan.protocol.events import Aside, Motion, Released, Rewound
from zsy_lan.protocol.memory_mesh import Faults, MemoryMesh


class FakeGame:
    """A deterministic turn-taking game, dealt from the seed.

    Each round: optionally a simultaneous bidding phase (every seat sends
    {"bid": int}), then seats take turns sending {"n": int} (plus an optional
    free "note"), each larger than
    the last (rule F4), starting from the seat and the base number the seed
    picks. A round ends after ``per_round`` plays; the match after ``rounds``.
    """

    def __init__(
        self,
        seats: tuple[int, ...],
        rounds: int = 2,
        per_round: int = 5,
        simultaneous: bool = False,
    ) -> None:
        self.seats = tuple(seats)
        self.rounds = rounds
        self.per_round = per_round
        self.simultaneous = simultaneous
        self.round_no = 0
        self.dealt = False
        self.last = 0
        self.turn = -1
        self.count = 0
        self.moves = 0
        self.bids: dict[int, int] = {}
        self.seed = ""
        self.score = dict.fromkeys(self.seats, 0)

    def _bidding(self) -> bool:
        return self.dealt and self.simultaneous and len(self.bids) < len(self.seats)

    def actors(self) -> tuple[int, ...]:
        if not self.dealt:
            return ()
        if self._bidding():
            return tuple(s for s in self.seats if s not in self.bids)
        return (self.turn,)

    def needs_seed(self) -> bool:
        return not self.dealt and self.round_no < self.rounds

    def start_round(self, seed: bytes) -> None:
        assert self.needs_seed()
        self.dealt = True
        self.turn = self.seats[seed[0] % len(self.seats)]
        self.last = seed[1]
        self.count = 0
        self.bids = {}
        self.seed = seed.hex()

    def check(self, seat: int, action: dict[str, Any]) -> None:
        if not self.dealt:
            raise ValueError("F0: no round is in play")
        if self._bidding():
            if seat in self.bids:
                raise ValueError(f"F2: seat {seat} has already bid")
            if set(action) != {"bid"} or type(action["bid"]) is not int:
                raise ValueError("F2: a bid is {'bid': int}")
            return
        if seat != self.turn:
            raise ValueError(f"F1: it is seat {self.turn}'s turn, not seat {seat}'s")
        if set(action) - {"note"} != {"n"} or type(action["n"]) is not int:
            raise ValueError("F3: a play is {'n': int} with an optional 'note'")
        if action["n"] <= self.last:
            raise ValueError(f"F4: {action['n']} must be larger than {self.last}")

    def apply(self, seat: int, action: dict[str, Any]) -> None:
        self.moves += 1
        if self._bidding():
            self.bids[seat] = action["bid"]
            if len(self.bids) == len(self.seats):
                self.turn = self.seats[sum(self.bids.values()) % len(self.seats)]
            return
        self.last = action["n"]
        self.count += 1
        i = self.seats.index(seat)
        self.turn = self.seats[(i + 1) % len(self.seats)]
        if self.count == self.per_round:
            self.score[seat] += 1
            self.dealt = False
            self.round_no += 1

    def public_hash(self) -> str:
        return digest(
            {
                "round": self.round_no,
                "dealt": self.dealt,
                "last": self.last,
                "turn": self.turn,
                "count": self.count,
                "moves": self.moves,
                "bids": {str(s): b for s, b in sorted(self.bids.items())},
                "seed": self.seed,
                "score": {str(s): v for s, v in sorted(self.score.items())},
            }
        )

    def finished(self) -> bool:
        return self.round_no >= self.rounds


class VoidableFakeGame(FakeGame):
    """FakeGame plus the optional void_round: a voided round scores nothing and is dealt again."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.voids: list[tuple[int, int]] = []  # (round, seat that withheld)

    def can_void_round(self) -> bool:
        return self.dealt

    def void_round(self, seat: int, reason: str) -> None:
        assert self.dealt, reason
        self.voids.append((self.round_no, seat))
        self.dealt = False  # the same round number is dealt again from a new seed

    def public_hash(self) -> str:
        return digest({"base": super().public_hash(), "voids": [list(v) for v in self.voids]})


def bot_action(game: FakeGame, seat: int, bump: int = 0) -> dict[str, int]:
    """What a bot plays when the replica says it may act."""
    if game._bidding():
        return {"bid": seat * 7 + game.round_no}
    return {"n": game.last + 1 + (seat % 3) + bump}


def identity(seat: int, salt: str = "") -> Identity:
    """A fixed identity per seat, so failures reproduce."""
    return Identity.from_seed(hashlib.sha256(f"zsy-test-seat-{seat}{salt}".encode()).digest())


def entropy_for(seat: int, salt: str = "") -> Callable[[int], bytes]:
    """A deterministic entropy source (tests only; the shell passes os.urandom)."""
    counter = [0]

    def draw(n: int) -> bytes:
        counter[0] += 1
        return hashlib.sha256(f"entropy-{seat}-{salt}-{counter[0]}".encode()).digest()[:n]

    return draw


TABLE = "table-test-1"

FAST = Timing(heartbeat=0.5, have_min=0.05, want_retry=0.2, peer_timeout=2.0, stall=5.0)


@dataclass
class Node:
    """One peer as its shell sees it: the replica plus what it wrote to disk."""

    seat: int
    replica: Replica
    journal: list[tuple[str, bytes]] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)
    cheats: list[Cheat] = field(default_factory=list)
    rejected: list[Rejected] = field(default_factory=list)
    stalled: list[Stalled] = field(default_factory=list)
    applied: list[Applied] = field(default_factory=list)
    motions: list[Motion] = field(default_factory=list)
    released: list[Released] = field(default_factory=list)
    rewound: list[Rewound] = field(default_factory=list)
    up: bool = True


class Mesh:
    """N replicas over a lossy, duplicating, reordering in-memory network."""

    def __init__(
        self,
        n: int,
        seed: int,
        *,
        drop: float = 0.0,
        dup: float = 0.0,
        max_delay: float = 0.02,
        rounds: int = 2,
        per_round: int = 5,
        simultaneous: bool = False,
        relay: bool = True,
        timing: Timing = FAST,
        voidable: bool = False,
        motions: tuple[str, ...] = MOTIONS,
    ) -> None:
        self.now = 0.0
        self.seats = tuple(range(n))
        rng = random.Random(seed)
        self.net = MemoryMesh(self.seats, Faults(rng, drop=drop, dup=dup, max_delay=max_delay))
        self.roster = {s: identity(s).public_key for s in self.seats}
        self.game_args = {"rounds": rounds, "per_round": per_round, "simultaneous": simultaneous}
        self.relay, self.timing = relay, timing
        self.voidable, self.motions = voidable, motions
        self.asleep: set[int] = set()  # seats whose bot does not act (their replica still runs)
        # like TablePeer: move to hold a seat the table waits on once it was silent this long
        self.auto_hold: float | None = None
        self._silent: dict[tuple[int, str, int], float] = {}
        self.nodes = {s: self._new_node(s) for s in self.seats}
        self.cheater: int | None = None  # set by a test: this seat equivocates once
        self.dishonest: set[int] = set()
        self.crash_plan: tuple[int, float, int] | None = None  # (seat, at time, events kept)
        for node in self.nodes.values():
            self.handle(node, node.replica.tick(self.now))

    def new_game(self) -> FakeGame:
        cls = VoidableFakeGame if self.voidable else FakeGame
        return cls(self.seats, **self.game_args)

    def _new_node(self, seat: int, salt: str = "") -> Node:
        replica = Replica(
            TABLE,
            seat,
            identity(seat),
            self.roster,
            self.new_game(),
            entropy=entropy_for(seat, salt),
            timing=self.timing,
            relay=self.relay,
            game_factory=self.new_game,
            motions=self.motions,
        )
        node = Node(seat, replica)
        node.lines.append(replica.transcript_header())
        return node

    # -- the network -----------------------------------------------------------

    @property
    def cut_off(self) -> set[int]:
        """Seats partitioned away: every frame to or from them is lost (a test sets it)."""
        return self.net.cut_off

    @cut_off.setter
    def cut_off(self, seats: set[int]) -> None:
        self.net.cut_off = seats

    @property
    def sent(self) -> int:
        """Frames addressed to a seat so far, lost ones included."""
        return self.net.sent

    def post(self, src: int, to: int | None, frame: bytes, reliable: bool = False) -> None:
        """Put a frame on the wire, subject to the link's faults (drops unless ``reliable``)."""
        self.net.post(src, to, frame, self.now, reliable=reliable)

    def handle(self, node: Node, events: list, limit: int | None = None) -> None:
        """The shell loop: events in order, Persist before later Sends (synchronous here).

        A planned crash cuts the loop after ``kept`` events: exactly what a
        process killed in the middle of its work leaves behind.
        """
        plan = self.crash_plan
        if plan is not None and plan[0] == node.seat and self.now >= plan[1] and events:
            self.crash_plan = None
            node.up = False
            limit = min(plan[2], len(events))
        for i, event in enumerate(events):
            if limit is not None and i >= limit:
                return
            if isinstance(event, Persist):
                node.journal.append((event.key, event.data))
            elif isinstance(event, Send):
                self.post(node.seat, event.to, event.frame)
            elif isinstance(event, (Transcribed, Aside)):
                assert event.pos == len(node.lines) - 1, "transcript lines arrive in order"
                node.lines.append(event.line)
            elif isinstance(event, Rewound):
                assert event.keep < len(node.lines) - 1 or event.keep == len(node.lines) - 1
                del node.lines[1 + event.keep :]
                node.rewound.append(event)
            elif isinstance(event, Motion):
                node.motions.append(event)
            elif isinstance(event, Released):
                node.released.append(event)
            elif isinstance(event, Cheat):
                node.cheats.append(event)
            elif isinstance(event, Rejected):
                node.rejected.append(event)
            elif isinstance(event, Stalled):
                node.stalled.append(event)
            elif isinstance(event, Applied):
                node.applied.append(event)

    def step(self, dt: float = 0.05) -> None:
        """Advance time: deliver what is due, tick everyone, let bots play."""
        self.now += dt
        while (due := self.net.pop(self.now)) is not None:
            src, (dst,), frame = due
            node = self.nodes[dst]
            if node.up:
                # the link it came on, as the shell knows it (CURVE): control traffic is
                # charged to that seat, and another seat's control frame on it is a replay
                self.handle(node, node.replica.receive(frame, self.now, via=src))
        for node in self.nodes.values():
            if node.up:
                self.handle(node, node.replica.tick(self.now))
            if node.up:
                self.play(node)
            if node.up and self.auto_hold is not None:
                self.hold_the_silent(node)

    def hold_the_silent(self, node: Node) -> None:
        """The shell's rule: a seat the table waits on, disconnected for auto_hold, is held."""
        r = node.replica
        for p in r.awaited():
            if p == node.seat or r.live.connected.get(p, True):
                continue
            key = (node.seat, r.position(), p)
            since = self._silent.setdefault(key, self.now)
            if self.now - since >= self.auto_hold:  # type: ignore[operator]
                self._silent[key] = float("inf")  # once per position
                self.handle(node, r.move("hold", p, self.now))

    def play(self, node: Node) -> None:
        replica = node.replica
        if node.seat in self.asleep:
            return
        for held in replica.proxy_due():  # a bot plays for the seat this one holds
            self.handle(node, replica.act_for(held, bot_action(replica.game, held), self.now))
        if not replica.can_act():
            return
        if node.seat == self.cheater:
            self.equivocate(node)
            return
        self.handle(node, replica.act(bot_action(replica.game, node.seat), self.now))

    def equivocate(self, node: Node) -> None:
        """Sign two different legal actions for one seq; half the peers get each.

        Both versions are delivered (late, perhaps): a second version that
        reaches nobody is no equivocation anyone could see or prove.
        """
        r = node.replica
        frames = [
            seal(
                r.identity,
                table=TABLE,
                seat=node.seat,
                seq=r.next_seq(),
                prev=r.ledger.last_digest(node.seat),
                state=r.game.public_hash(),
                type="action",
                body=bot_action(r.game, node.seat, bump),
            )
            for bump in (0, 1)
        ]
        others = [s for s in self.seats if s != node.seat]
        for i, dst in enumerate(others):
            self.post(node.seat, dst, frames[i % 2], reliable=True)
        self.handle(node, r.receive(frames[0], self.now))
        self.cheater = None  # one equivocation is enough proof

    # -- motions ---------------------------------------------------------------

    def move(self, seat: int, motion: str, about: int) -> list:
        """``seat``'s shell moves a motion about ``about``; returns the replica's events."""
        node = self.nodes[seat]
        events = node.replica.move(motion, about, self.now)
        self.handle(node, events)
        return events

    def wait_on(self, seat: int, limit: float = 30.0) -> None:
        """Step until every up replica is at one head where the others wait on ``seat``'s move."""
        while self.now < limit:
            nodes = [n for n in self.nodes.values() if n.up and n.seat != seat]
            heads = {n.replica.transcript_head() for n in self.nodes.values() if n.up}
            acting = all(n.replica.ledger.owed()[0] == "action" for n in nodes)
            if len(heads) == 1 and acting and all(n.replica.awaited() == [seat] for n in nodes):
                return
            self.step()
        raise AssertionError(f"the table never waited on seat {seat} alone")

    # -- crashes ---------------------------------------------------------------

    def crash(self, seat: int) -> None:
        self.nodes[seat].up = False

    def restart(self, seat: int) -> None:
        """A new process with the same identity, its journal and its transcript file."""
        old = self.nodes[seat]
        node = self._new_node(seat, salt=f"restart-{self.now}")
        node.journal = list(old.journal)
        node.lines = list(old.lines)
        events = node.replica.restore(old.journal, old.lines, self.now)
        self.nodes[seat] = node
        self.handle(node, events)
        self.handle(node, node.replica.tick(self.now))

    # -- running ---------------------------------------------------------------

    def honest(self) -> list[Node]:
        return [n for n in self.nodes.values() if n.up and n.seat not in self.dishonest]

    def done(self) -> bool:
        nodes = self.honest()
        if all(n.replica.halted is not None for n in nodes):
            return True
        if not all(n.replica.game.finished() for n in nodes):
            return False
        heads = {n.replica.transcript_head() for n in nodes}
        return len(heads) == 1

    def run(self, limit: float = 120.0, dt: float = 0.05) -> None:
        while not self.done() and self.now < limit:
            self.step(dt)
        # Let in-flight frames settle so every peer sees the same evidence.
        end = self.now + 1.0
        while self.now < end:
            self.step(dt)
