"""Blame needs proof: only a rule or deal violation in a signed frame names its author.

A bug in a rules plugin (or in the game code) makes ``check`` raise something
that is not one of the game's typed violations (game_iface.violation_types):
that is a local fault of the replica that hit it. It stops that replica with a
sentence naming the bug, and nobody is called a cheater. A real illegal play
(ZSY-5.1, ZSY-4.1) still names its author with the frame as proof.
"""

from __future__ import annotations

import sys
import types
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent.parent / "private"))
sys.path.insert(0, str(Path(__file__).parent.parent / "protocol"))

from private_support import PrivateTable  # noqa: E402
from proto_support import FakeGame, entropy_for, identity  # noqa: E402

from zsy_lan import hookimpl  # noqa: E402
from zsy_lan.engine.errors import RuleError  # noqa: E402
from zsy_lan.engine.game import Game  # noqa: E402
from zsy_lan.engine.rules import Rules  # noqa: E402
from zsy_lan.engine.ruleset import build_rules  # noqa: E402
from zsy_lan.engine.state import PASS, PLAY, Action  # noqa: E402
from zsy_lan.protocol import Cheat, Ledger, Persist, Rejected, Replica, Send, seal  # noqa: E402
from zsy_lan.protocol.envelope import open_frame  # noqa: E402
from zsy_lan.protocol.events import Fault  # noqa: E402
from zsy_lan.protocol.game_iface import describe_fault, is_violation  # noqa: E402
from zsy_lan.protocol.memory_mesh import MemoryMesh  # noqa: E402
from zsy_lan.table.deciders import make_decider  # noqa: E402

TABLE = "blame-test"

# A third-party rules plugin, as a real module (its hooks' globals are the module's,
# which is how describe_fault finds the plugin's name).
_PLUGIN_SRC = """
name = "buggy_rule"
version = "0.3"
description = "a house rule with a bug"
game = False
WHEN = None   # "pair": fail on every pair; "unknown": fail when the player's hand is unknown
ERROR = ZeroDivisionError

def zsy_on_play(rules, state, action, combo):
    if WHEN == "pair" and len(action.cards) == 2:
        if ERROR is ZeroDivisionError:
            return 1 // 0
        return {}["bonus"]
    if WHEN == "unknown" and state.hands[action.seat] is None:
        if ERROR is ZeroDivisionError:
            return 1 // 0
        return {}["bonus"]
    return None
"""


def buggy_plugin(when: str, error: type[Exception]) -> types.ModuleType:
    mod = types.ModuleType("buggy_rule")
    exec(compile(_PLUGIN_SRC, "buggy_rule.py", "exec"), mod.__dict__)  # noqa: S102
    mod.WHEN = when
    mod.ERROR = error
    mod.zsy_on_play = hookimpl(mod.zsy_on_play)
    return mod


def buggy_rules(when: str, error: type[Exception], players: int = 4) -> Rules:
    plugin = buggy_plugin(when, error)
    return build_rules(players, ["buggy_rule"], {}, plugins={"buggy_rule": plugin})


class OpenTable:
    """n replicas of the open deal (engine Game) over the lossless in-memory mesh, easy bots."""

    def __init__(self, rules: Rules, rounds: int, forge: dict[int, Any] | None = None) -> None:
        self.rules = rules
        self.n = rules.players
        self.roster = {s: identity(s).public_key for s in range(self.n)}
        self.games = {s: Game(rules, rounds) for s in range(self.n)}
        self.replicas = {
            s: Replica(
                TABLE,
                s,
                identity(s),
                self.roster,
                self.games[s],
                entropy=entropy_for(s, "blame"),
                relay=False,
            )
            for s in range(self.n)
        }
        self.deciders = {s: make_decider("easy", identity(s).public_key) for s in range(self.n)}
        self.events: dict[int, list[Any]] = {s: [] for s in range(self.n)}
        self.net = MemoryMesh(range(self.n))
        self.forge = forge or {}  # seat -> fn(game, seat) -> action signed unchecked, once
        self.idle: set[int] = set()  # seats whose player does not act (their replica runs)
        self.now = 0.0
        for s in range(self.n):
            self.handle(s, self.replicas[s].tick(self.now))

    def handle(self, seat: int, events: list[Any]) -> None:
        for ev in events:
            if isinstance(ev, Send):
                self.net.post(seat, ev.to, ev.frame, self.now)
            elif not isinstance(ev, Persist):
                self.events[seat].append(ev)

    def stopped(self, seat: int) -> bool:
        r = self.replicas[seat]
        return r.halted is not None or r.ledger.fault is not None

    def act(self, seat: int) -> None:
        r, game = self.replicas[seat], self.games[seat]
        while seat not in self.idle and not self.stopped(seat) and r.can_act():
            if game.finished():
                return
            forge = self.forge.pop(seat, None)
            if forge is not None:  # sign without checking: what a modified peer can do
                events = r._author("action", forge(game, seat), self.now) + r.progress(self.now)
                self.handle(seat, events)
                continue
            view = game.view(seat)
            assert view is not None
            choice = self.deciders[seat](game.rules, view, seat)
            before = len(self.events[seat])
            self.handle(seat, r.act(choice.to_json(), self.now))
            if any(isinstance(e, (Rejected, Fault)) for e in self.events[seat][before:]):
                return

    def run(self, max_steps: int = 20_000) -> None:
        for _ in range(max_steps):
            for s in range(self.n):
                self.act(s)
            if not self.net:
                if all(self.stopped(s) or self.games[s].finished() for s in range(self.n)):
                    return
                self.now += 0.1
                for s in range(self.n):
                    self.handle(s, self.replicas[s].tick(self.now))
                if not self.net:
                    return  # nothing moves any more
                continue
            self.deliver_one()

    def deliver_one(self) -> None:
        """The next frame on the mesh, handed to each of its destinations."""
        due = self.net.pop()
        assert due is not None  # lossless: everything on it is due
        for dst in due.dsts:
            self.handle(dst, self.replicas[dst].receive(due.frame, self.now))

    def of(self, seat: int, kind: type) -> list[Any]:
        return [e for e in self.events[seat] if isinstance(e, kind)]


def _assert_nobody_blamed(cheats: list[Cheat]) -> None:
    assert cheats == [], [c.reason for c in cheats]


@pytest.mark.parametrize("error", [ZeroDivisionError, KeyError])
def test_plugin_bug_on_the_authors_own_check_is_a_local_fault(error: type[Exception]) -> None:
    """Every replica fails on the same pair: each stops on a fault; no seat is named a cheater."""
    t = OpenTable(buggy_rules("pair", error), rounds=2)
    t.run()
    faults = {s: t.of(s, Fault) for s in range(t.n)}
    assert any(faults.values()), "the bug never fired (no pair played?)"
    for s in range(t.n):
        _assert_nobody_blamed(t.of(s, Cheat))
        assert t.replicas[s].halted is None
    seat = next(s for s, f in faults.items() if f)
    fault = faults[seat][0]
    assert error.__name__ in fault.reason
    assert "rules plugin 'buggy_rule' 0.3" in fault.reason
    assert "buggy_rule.py line" in fault.reason and "in zsy_on_play" in fault.reason
    assert "not a cheat" in fault.reason
    assert fault.kind == "plugin"  # its bye says a rules plugin failed (issue #27)
    assert "Traceback" in fault.detail and error.__name__ in fault.detail
    # the seat that hit it signed nothing for that move: the table just waits on it
    assert not t.of(seat, Rejected) or all("illegal" not in r.reason for r in t.of(seat, Rejected))


@pytest.mark.parametrize("error", [ZeroDivisionError, KeyError])
def test_plugin_bug_on_receivers_names_nobody(error: type[Exception]) -> None:
    """Private deal: a hook that breaks when the player's hand is unknown to this replica.

    The author's own check passes (it knows its hand) and it signs the play;
    every other replica's check raises. Before the typed contract each of them
    named the honest author a cheater ("illegal action by seat N: ...").
    """
    t = PrivateTable(buggy_rules("unknown", error, players=3), rounds=1)
    faults: dict[int, list[Fault]] = {s: [] for s in t.nodes}
    events = t._events

    def keep(node: Any, evs: list[Any]) -> None:
        faults[node.seat] += [e for e in evs if isinstance(e, Fault)]
        events(node, evs)

    t._events = keep  # type: ignore[method-assign]

    def stuck() -> bool:
        return sum(bool(f) for f in faults.values()) >= t.n - 1

    t.run(until=stuck, max_time=60.0)
    for node in t.nodes.values():
        _assert_nobody_blamed(node.cheats)
        assert node.replica.halted is None
    hit = [s for s, f in faults.items() if f]
    assert len(hit) == t.n - 1, faults
    for s in hit:
        reason = faults[s][0].reason
        assert "rules plugin 'buggy_rule'" in reason and error.__name__ in reason
        assert "checking an action by seat" in reason


def _illegal_leader_pass(game: Game, seat: int) -> dict[str, Any]:
    return Action(PASS, seat).to_json()


def _card_not_held(game: Game, seat: int) -> dict[str, Any]:
    r = game.round
    assert r is not None
    other = next(c for s, h in enumerate(r.hands) if s != seat and h for c in h)
    return Action(PLAY, seat, (other,)).to_json()


@pytest.mark.parametrize(
    ("forge", "rule"),
    [(_illegal_leader_pass, "ZSY-5.1"), (_card_not_held, "ZSY-5.1")],
)
def test_real_illegal_play_still_names_its_author(forge: Any, rule: str) -> None:
    """A signed illegal action is proof: every other replica names its author (RULES.md ids)."""
    t2 = OpenTable(build_rules(4, [], {}), rounds=1)
    # deliver until the seat that leads round 1 may act; it signs an illegal move unchecked
    leader: list[int] = []
    for _ in range(2000):
        leader = [s for s in range(t2.n) if t2.replicas[s].can_act()]
        if leader:
            break
        if not t2.net:
            t2.now += 0.1
            for s in range(t2.n):
                t2.handle(s, t2.replicas[s].tick(t2.now))
            continue
        t2.deliver_one()
    author = leader[0]
    t2.forge[author] = forge
    t2.run()
    for s in range(t2.n):
        assert t2.of(s, Fault) == []
        if s == author:
            continue
        cheat = t2.replicas[s].halted
        assert cheat is not None and cheat.culprit == author, s
        assert rule in cheat.reason and f"illegal action by seat {author}" in cheat.reason
        assert len(cheat.evidence) == 1


class _StrictFake(FakeGame):
    """FakeGame whose typed contract says: only RuleError proves a violation."""

    violations = (RuleError,)

    def check(self, seat: int, action: dict[str, Any]) -> None:
        if action.get("n") == 13:
            raise ValueError("a bug: int('thirteen')")
        try:
            super().check(seat, action)
        except ValueError as exc:  # the toy game's rule errors, typed
            raise RuleError("F4", str(exc)) from None


def _ledger(game: FakeGame) -> tuple[Ledger, dict[int, Any]]:
    ids = {s: identity(s) for s in game.seats}
    roster = {s: i.public_key for s, i in ids.items()}
    return Ledger(TABLE, roster, game), ids


def test_game_declares_its_violations() -> None:
    """With ``violations`` declared, a ValueError from check is a bug, not proof."""
    game = _StrictFake((0, 1, 2))
    assert is_violation(game, RuleError("F4", "x"))
    assert not is_violation(game, ValueError("x"))
    assert not is_violation(game, KeyError("x"))
    plain = FakeGame((0, 1, 2))  # the default contract: ValueError is the game's rule error
    assert is_violation(plain, ValueError("F4: too low"))
    assert not is_violation(plain, ZeroDivisionError())
    assert is_violation(Game(build_rules(4, [], {}), 1), RuleError("ZSY-4.1", "x"))
    assert not is_violation(Game(build_rules(4, [], {}), 1), ValueError("x"))


def test_ledger_keeps_blame_for_violations_only() -> None:
    """The same ledger path: a bug stops it (fault, no Cheat); a violation halts it (Cheat)."""
    for n, expect_cheat in ((13, False), (-5, True)):
        game = _StrictFake((0, 1, 2), rounds=1)
        game.start_round(bytes([1, 7]) + bytes(30))  # seat 1 to play, above 7
        ledger, ids = _ledger(game)
        frame = seal(
            ids[1],
            table=TABLE,
            seat=1,
            seq=1,
            prev="",
            state=game.public_hash(),
            type="action",
            body={"n": n},
        )
        env = open_frame(frame, ledger.roster, TABLE)
        ledger.add(env)
        # the ledger needs no seed here: the game was dealt by hand
        out = ledger.drive()
        cheats = [e for e in out if isinstance(e, Cheat)]
        if expect_cheat:
            assert ledger.fault is None
            assert len(cheats) == 1 and cheats[0].culprit == 1
            assert cheats[0].evidence == (frame,)
        else:
            assert cheats == [] and ledger.halted is None
            assert ledger.fault is not None and "ValueError: a bug" in ledger.fault
            assert "not a cheat" in ledger.fault and "seat 1" in ledger.fault
            assert "Traceback" in ledger.fault_detail


def test_describe_fault_names_the_innermost_plugin_frame() -> None:
    mod = buggy_plugin("pair", ZeroDivisionError)
    try:
        mod.zsy_on_play(None, None, Action(PLAY, 0, (1, 2)), None)
    except ZeroDivisionError as exc:
        text = describe_fault(exc)
    assert text.startswith("ZeroDivisionError: integer division or modulo by zero")
    assert "rules plugin 'buggy_rule' 0.3 (buggy_rule.py line" in text


def test_equivocation_each_honest_record_verifies_up_to_the_proof() -> None:
    """Honest records may end differently after an equivocation; each verifies up to the proof.

    Seat 1 signs two versions of one move and sends each to half the table.
    Each honest replica applied the version it got first, then the proof
    (both frames) halted it: the records end on different heads, none is
    wrong, and ``verify_evidence`` on each seat's proof names seat 1.
    """
    from proto_support import TABLE as MESH_TABLE
    from proto_support import Mesh

    from zsy_lan.protocol import verify_transcript
    from zsy_lan.protocol.transcript import verify_evidence

    mesh = Mesh(4, seed=11, rounds=2, max_delay=0.05)
    mesh.cheater = 1
    mesh.run(limit=60.0)
    honest = [n for n in mesh.nodes.values() if n.seat != 1]
    heads = set()
    for node in honest:
        cheat = node.replica.halted
        assert cheat is not None and cheat.culprit == 1 and "equivocation" in cheat.reason
        res = verify_transcript(node.lines, mesh.roster, mesh.new_game)
        assert res.ok and not res.finished, res.reason  # valid, and it stops at the proof
        heads.add(res.head)
        records = [(cheat.culprit, cheat.reason, f) for f in cheat.evidence]
        checks = verify_evidence(records, MESH_TABLE, mesh.roster, node.lines, mesh.new_game)
        assert len(checks) == 1 and checks[0].signed and checks[0].proves, checks
        assert checks[0].culprit == 1
    assert len(heads) == 2, "both versions were applied by someone (the records differ)"


def test_the_peer_stops_its_seat_on_a_fault_and_blames_nobody(tmp_path: Path, caplog: Any) -> None:
    """TablePeer: a Fault is logged with its traceback, told as not a cheat, and stops the seat."""
    import logging

    from zsy_lan.protocol.lobby import Roster, Seat
    from zsy_lan.record.store import TableStore
    from zsy_lan.table.peer import TablePeer

    rules = build_rules(3, [], {})
    ids = [_identity(b"fault-%d" % s) for s in range(3)]
    seats = [
        Seat(s, ids[s].public_key, ids[s].curve_public, f"tcp://127.0.0.1:{9100 + s}", f"p{s}")
        for s in range(3)
    ]
    roster = Roster("t-fault", "fault", 2, rules.config, seats)
    peer = TablePeer(ids[0], roster, 0, object(), TableStore(tmp_path / "seat0"), rules=rules)  # type: ignore[arg-type]
    fault = Fault(
        "local fault, not a cheat: the game code failed while checking an action by seat 1: "
        "KeyError: 'bonus\x1b]0;pwned\x07' in rules plugin 'buggy_rule' 0.3 "
        "(buggy_rule.py line 9, in zsy_on_play)",
        "Traceback (most recent call last):\n  ...\nKeyError: 'bonus\x1b[2J'\n",
    )
    with caplog.at_level(logging.ERROR, logger="zsy.peer"):
        peer._handle([fault])
    assert peer.stopped.is_set()
    assert peer.info.stopped is not None and "not a cheat" in peer.info.stopped
    assert "cheated" not in peer.info.stopped and "buggy_rule" in peer.info.stopped
    notices = []
    while not peer.notices.empty():
        notices.append(peer.notices.get_nowait())
    assert [n.kind for n in notices] == ["error"]
    assert "Traceback" in caplog.text and "KeyError" in caplog.text
    # an exception's text may quote a peer's bytes: no escape reaches the screen or the log
    assert "\x1b" not in peer.info.stopped and "\x1b" not in caplog.text


def _identity(seed: bytes) -> Any:
    import hashlib

    from zsy_lan.protocol import Identity

    return Identity.from_seed(hashlib.sha256(seed).digest())


def test_zsy_replay_verify_accepts_each_honest_record_of_an_equivocation(tmp_path: Path) -> None:
    """The real game and `zsy replay --verify`'s checks: each honest record and its proof.

    The leader of round 1 signs two different legal plays for one seq; seats
    1..3 get one or the other first. Each honest seat's record (written as
    TablePeer writes it, with its evidence file) replays as valid and
    unfinished, and its kept proof names the equivocator.
    """
    from zsy_lan.protocol.events import Transcribed
    from zsy_lan.protocol.lobby import Roster, Seat
    from zsy_lan.protocol.transcript import evidence_line
    from zsy_lan.record.replay import replay_file
    from zsy_lan.record.store import evidence_path
    from zsy_lan.table.peer import transcript_header

    rules = build_rules(4, [], {})
    t = OpenTable(rules, rounds=1)
    for _ in range(2000):  # deliver until the leader of round 1 may act
        leader = [s for s in range(t.n) if t.replicas[s].can_act()]
        if leader:
            break
        if not t.net:
            t.now += 0.1
            for s in range(t.n):
                t.handle(s, t.replicas[s].tick(t.now))
            continue
        t.deliver_one()
    author = leader[0]
    r, game = t.replicas[author], t.games[author]
    plays = [a for a in game.legal(author) if a.kind == PLAY][:2]
    frames = [
        seal(
            r.identity,
            table=TABLE,
            seat=author,
            seq=r.next_seq(),
            prev=r.ledger.last_digest(author),
            state=game.public_hash(),
            type="action",
            body=a.to_json(),
        )
        for a in plays
    ]
    others = [s for s in range(t.n) if s != author]
    for i, dst in enumerate(others):  # each version first to some, the other one later
        t.net.post(author, dst, frames[i % 2], t.now)
    for i, dst in enumerate(others):
        t.net.post(author, dst, frames[(i + 1) % 2], t.now)
    t.idle.add(author)  # the equivocator signs nothing more itself
    t.run()
    seats = [
        Seat(
            s,
            identity(s).public_key,
            identity(s).curve_public,
            f"tcp://127.0.0.1:{9200 + s}",
            f"p{s}",
        )
        for s in range(t.n)
    ]
    roster = Roster(TABLE, "equivocation", 1, rules.config, seats)
    heads = set()
    for s in others:
        cheat = t.replicas[s].halted
        assert cheat is not None and cheat.culprit == author and "equivocation" in cheat.reason
        path = tmp_path / f"seat-{s}.jsonl"
        lines = [transcript_header(roster)]
        lines += [e.line for e in t.events[s] if isinstance(e, Transcribed)]
        path.write_text("\n".join(lines) + "\n")
        evidence_path(path).write_text(
            "\n".join(evidence_line(cheat.culprit, cheat.reason, f) for f in cheat.evidence) + "\n"
        )
        report = replay_file(path)
        assert report.ok and not report.finished, report.reason
        assert report.evidence_ok and len(report.evidence) == 1
        assert report.evidence[0].culprit == author and report.evidence[0].proves
        heads.add(report.head)
    assert len(heads) >= 2, "the honest records end differently (each applied one version)"


def test_a_local_fault_says_not_a_cheat_once(tmp_path: Path) -> None:
    """The player's sentence for a local fault opens once, not twice (ledger + shell)."""
    from zsy_lan.protocol.lobby import Roster, Seat
    from zsy_lan.record.store import TableStore
    from zsy_lan.table.peer import TablePeer

    rules = build_rules(3, [], {})
    ids = [_identity(b"fault1-%d" % s) for s in range(3)]
    seats = [
        Seat(s, ids[s].public_key, ids[s].curve_public, f"tcp://127.0.0.1:{9200 + s}", f"p{s}")
        for s in range(3)
    ]
    roster = Roster("t-fault1", "fault1", 2, rules.config, seats)
    peer = TablePeer(ids[0], roster, 0, object(), TableStore(tmp_path / "seat0"), rules=rules)  # type: ignore[arg-type]
    # the very sentence the ledger writes for a failing game
    ledger = Ledger("t-fault1", {s: ids[s].public_key for s in range(3)}, peer.game, 0)
    ledger.local_fault("checking an action by seat 1", KeyError("bonus"))
    assert ledger.fault is not None
    peer._handle([Fault(ledger.fault, "tb")])
    said = peer.info.stopped
    assert said is not None
    assert said.count("not a cheat") == 1, said
    assert "local fault" not in said, said
    assert said.startswith(
        "this seat stopped on a fault of its own, not a cheat: the game code failed while "
        "checking an action by seat 1: KeyError"
    ), said


def test_replaying_a_record_with_a_buggy_rule_names_nobody() -> None:
    """verify_transcript (zsy replay): a rules bug met while replaying is not a culprit."""
    from proto_support import Mesh

    from zsy_lan.protocol import verify_transcript

    mesh = Mesh(3, seed=5, rounds=1, per_round=6)
    mesh.run(limit=60.0)
    lines = mesh.nodes[0].lines
    assert verify_transcript(lines, mesh.roster, mesh.new_game).ok

    class Buggy(FakeGame):
        def check(self, seat: int, action: dict[str, Any]) -> None:
            if self.count == 3:
                raise KeyError("bonus")  # a bug in this replayer's rules, not in the record
            super().check(seat, action)

    res = verify_transcript(lines, mesh.roster, lambda: Buggy((0, 1, 2), rounds=1, per_round=6))
    assert not res.ok and res.culprit is None
    assert "local fault, not a cheat" in res.reason and "KeyError" in res.reason
