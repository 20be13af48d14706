"""An in-memory table of replicas playing with the private deal.

Each node is what a real seated peer runs minus the sockets: a
:class:`~zsy_lan.protocol.Replica` around a :class:`~zsy_lan.deal.private_game.PrivateGame`,
a shell loop that obeys the replica's contract (events in order, Persist
before later Sends), authors the deal messages it owes at once
(``local_action``) and lets an easy bot choose its moves. Frames go through a
FIFO "network" that records what every node received, so the privacy tests
can search those bytes.
"""

from __future__ import annotations

import hashlib
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from zsy_lan.deal.mental import DealConfig, DealPeer
from zsy_lan.deal.private_game import PrivateGame
from zsy_lan.engine.rules import Rules
from zsy_lan.engine.ruleset import build_rules
from zsy_lan.protocol import (
    Cheat,
    Identity,
    Persist,
    Rejected,
    Replica,
    Send,
    Stalled,
    Transcribed,
)
from zsy_lan.table.deciders import make_decider

DealFactory = Callable[[DealConfig, int, Callable[[int], bytes]], DealPeer]


def identity(seat: int) -> Identity:
    return Identity.from_seed(hashlib.sha256(f"private-test-{seat}".encode()).digest())


def entropy(seat: int, salt: str = "") -> Callable[[int], bytes]:
    counter = [0]

    def draw(n: int) -> bytes:
        out = b""
        while len(out) < n:
            counter[0] += 1
            out += hashlib.sha256(f"{salt}/{seat}/{counter[0]}".encode()).digest()
        return out[:n]

    return draw


@dataclass
class Node:
    seat: int
    replica: Replica
    game: PrivateGame
    journal: list[tuple[str, bytes]] = field(default_factory=list)
    received: list[bytes] = field(default_factory=list)
    transcript: list[str] = field(default_factory=list)
    cheats: list[Cheat] = field(default_factory=list)
    stalls: list[Stalled] = field(default_factory=list)
    rejected: list[Rejected] = field(default_factory=list)
    decider: Any = None
    act_hook: Callable[[Node, dict[str, Any]], Any] | None = None
    down: bool = False


class PrivateTable:
    """n nodes over a lossless in-memory network (delivery order: FIFO)."""

    def __init__(
        self,
        rules: Rules,
        rounds: int,
        *,
        table: str = "private-test",
        factories: dict[int, DealFactory] | None = None,
        stall: float = 10.0,
        game_cls: type[PrivateGame] = PrivateGame,
    ) -> None:
        from zsy_lan.protocol import Timing

        self.rules = rules
        self.rounds = rounds
        self.table = table
        self.n = rules.players
        self.now = 0.0
        self.queue: deque[tuple[int, int | None, bytes]] = deque()
        self.roster = {s: identity(s).public_key for s in range(self.n)}
        self.timing = Timing(stall=stall)
        self.game_cls = game_cls
        self.factories = factories or {}
        factories = factories or {}
        self.nodes = {s: self._node(s, factories.get(s)) for s in range(self.n)}
        for node in self.nodes.values():
            self.handle(node, node.replica.tick(self.now))

    def _node(self, seat: int, factory: DealFactory | None, secrets: dict | None = None) -> Node:
        journal: list[tuple[str, bytes]] = []

        def persist(deal_no: int, secret: bytes) -> None:
            journal.append((f"deal/{deal_no}", secret))

        game = self.game_cls(
            self.rules,
            self.rounds,
            table=self.table,
            seat=seat,
            secrets=secrets,
            persist=persist,
            entropy=entropy(seat, "deal"),
            deal_factory=factory,
        )
        replica = Replica(
            self.table,
            seat,
            identity(seat),
            self.roster,
            game,
            entropy=entropy(seat, "seed"),
            timing=self.timing,
        )
        node = Node(seat, replica, game, journal=journal)
        node.decider = make_decider("easy", identity(seat).public_key)
        return node

    # -- the shell contract ------------------------------------------------------

    def handle(self, node: Node, events: list[Any]) -> None:
        self._events(node, events)
        self.auto(node)

    def _events(self, node: Node, events: list[Any]) -> None:
        for ev in events:
            if isinstance(ev, Send):
                self.queue.append((node.seat, ev.to, ev.frame))
            elif isinstance(ev, Persist):
                node.journal.append((ev.key, ev.data))
            elif isinstance(ev, Transcribed):
                node.transcript.append(ev.line)
            elif isinstance(ev, Cheat):
                node.cheats.append(ev)
            elif isinstance(ev, Stalled):
                node.stalls.append(ev)
            elif isinstance(ev, Rejected):
                node.rejected.append(ev)

    def auto(self, node: Node) -> None:
        """Author what the seat owes: deal steps at once, moves from the bot."""
        if node.down:
            return
        if True:
            while node.replica.can_act() and not node.game.finished():
                action = node.game.local_action()
                if action is None and node.game.wants_decision():
                    view = node.game.view(node.seat)
                    choice = node.decider(node.game.rules, view, node.seat)
                    try:
                        action = node.game.prepare(choice.to_json())
                    except ValueError:
                        action = None
                        for alt in node.game.legal(node.seat):
                            try:
                                action = node.game.prepare(alt.to_json())
                                break
                            except ValueError:
                                continue
                if action is not None and node.act_hook is not None:
                    action = node.act_hook(node, action)
                if action is None:
                    break
                if isinstance(action, tuple):  # ("force", action): sign it unchecked
                    r = node.replica
                    events = r._author("action", action[1], self.now) + r._progress(self.now)
                    self._events(node, events)
                    break
                events = node.replica.act(action, self.now)
                self._events(node, events)
                if any(isinstance(e, Rejected) and e.sender == node.seat for e in events):
                    break

    def crash(self, seat: int) -> None:
        """The node stops; frames to it are lost."""
        self.nodes[seat].down = True

    def restart(self, seat: int) -> Node:
        """A new process for ``seat`` from its journal and transcript file (as TablePeer does)."""
        old = self.nodes[seat]
        secrets = {
            int(k.split("/", 1)[1]): v for k, v in old.journal if k.startswith("deal/")
        }
        node = self._node(seat, self.factories.get(seat), secrets)
        node.journal.extend(old.journal)
        lines = [node.replica.transcript_header(), *old.transcript]
        events = node.replica.restore(old.journal, lines, self.now)
        node.transcript = list(old.transcript)
        node.received = old.received
        self.nodes[seat] = node
        self.handle(node, events)
        self.handle(node, node.replica.tick(self.now))
        return node

    def deliver_one(self) -> bool:
        if not self.queue:
            return False
        src, to, frame = self.queue.popleft()
        targets = [s for s in self.nodes if s != src] if to is None else [to]
        for t in targets:
            node = self.nodes[t]
            if node.down:
                continue
            node.received.append(frame)
            self.handle(node, node.replica.receive(frame, self.now))
        return True

    def run(self, *, until: Callable[[], bool] | None = None, max_time: float = 60.0) -> None:
        """Deliver frames; tick everyone every 0.1 s of simulated time when the network is idle."""
        done = until or self.done
        while not done() and self.now < max_time:
            while self.queue and not done():
                self.deliver_one()
            if done():
                break
            self.now += 0.1
            for node in self.nodes.values():
                if not node.down:
                    self.handle(node, node.replica.tick(self.now))

    def done(self) -> bool:
        return all(n.game.finished() or n.replica.halted for n in self.nodes.values())

    def heads(self) -> set[str]:
        return {n.replica.transcript_head() for n in self.nodes.values()}


def zsy_rules(players: int = 4, **options: Any) -> Rules:
    return build_rules(players, [], options)


def ddz_rules(players: int = 3, **options: Any) -> Rules:
    opts = {"doudizhu.match_multiple": 1, **{f"doudizhu.{k}": v for k, v in options.items()}}
    return build_rules(players, ["doudizhu"], opts)


def assert_named(t: PrivateTable, cheater: int, *, at_once: bool) -> None:
    """Every honest peer names ``cheater``: at once (a proven Cheat halts the table) or by
    the audit (the round is void, earlier rounds kept)."""
    for node in t.nodes.values():
        if node.seat == cheater:
            continue
        if at_once:
            assert node.replica.halted is not None, node.seat
            assert node.replica.halted.culprit == cheater, node.replica.halted
        else:
            assert node.game.voids, (node.seat, node.game.stage)
            assert node.game.voids[0].culprit == cheater, node.game.voids


def run_until_named(t: PrivateTable, *, at_once: bool, max_time: float = 60.0) -> None:
    def named() -> bool:
        honest = list(t.nodes.values())
        if at_once:
            return sum(n.replica.halted is not None for n in honest) >= len(honest) - 1
        return sum(bool(n.game.voids) for n in honest) >= len(honest) - 1

    t.run(until=named, max_time=max_time)


def install(t: PrivateTable, hook: Callable[[Node, dict[str, Any]], Any]) -> None:
    """Every node runs ``hook`` on each action it is about to author."""
    for node in t.nodes.values():
        node.act_hook = hook
