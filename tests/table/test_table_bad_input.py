"""Bad input on the wire, sent over real CURVE meshes on 127.0.0.1 to running table peers.

Every seat is a real :class:`~zsy_lan.table.peer.TablePeer` (own identity, Mesh,
replica, files) in this process, with no bot, so the game waits and nothing
moves unless the test moves it. The attacker is the test holding one seat's
signing key and mesh (so its frames pass the transport's admission, as a
rogue player's would) and sending crafted frames straight on the sockets.

For each kind of bad input: no peer crashes (all its tasks still run), the
honest replicas' state does not change (same transcript head, same public
game state), and the sender is named in the Rejected/Cheat events (or, for
a frame whose signature proves nothing, the connection it came on, in the
log). Frames that prove cheating (out of turn, illegal, a reveal that does
not open its commitment) halt the table with the culprit named; the rest are
refused and play goes on, which the test checks with one more legal move.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import pytest_asyncio
from mesh_support import FAST_MESH
from table_support import check_records

from zsy_lan.engine.game import Game
from zsy_lan.engine.round import legal_actions
from zsy_lan.engine.ruleset import build_rules
from zsy_lan.net.transport import Mesh, MeshOptions
from zsy_lan.protocol import Cheat, Identity, Rejected, seal
from zsy_lan.protocol.canonical import canonical
from zsy_lan.protocol.commit_reveal import commitment
from zsy_lan.protocol.envelope import MAGIC, open_frame, roster_binding
from zsy_lan.protocol.lobby import Roster, Seat
from zsy_lan.record.store import TableStore
from zsy_lan.table.deciders import make_decider
from zsy_lan.table.joining import join_table
from zsy_lan.table.peer import TablePeer
from zsy_lan.table.reach import NetConfig

pytestmark = [pytest.mark.asyncio, pytest.mark.timeout(60)]

PLAYERS = 3
FAST = FAST_MESH
# The attacker's sockets accept bigger frames than anyone's, to put an oversized one on the wire.
BIG = MeshOptions(**{**FAST.__dict__, "max_message_size": 1024 * 1024})


class RecordingPeer(TablePeer):
    """A TablePeer that keeps every event its replica returned (the test reads them)."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.events: list[object] = []

    def _handle(self, events, *args, **kwargs):  # type: ignore[override]
        self.events.extend(events)
        return super()._handle(events, *args, **kwargs)

    def rejections(self) -> list[Rejected]:
        return [e for e in self.events if isinstance(e, Rejected)]

    def cheats(self) -> list[Cheat]:
        return [e for e in self.events if isinstance(e, Cheat)]


@dataclass
class Table:
    rules: object
    roster: Roster
    ids: list[Identity]
    meshes: list[Mesh]
    peers: dict[int, RecordingPeer]
    runs: list[asyncio.Task] = field(default_factory=list)

    def honest(self, attacker: int) -> list[RecordingPeer]:
        return [p for s, p in self.peers.items() if s != attacker]

    def snapshot(self, attacker: int) -> dict[int, tuple[str, str, int]]:
        return {
            p.seat: (p.replica.transcript_head(), p.game.public_hash(), len(p.game.log))
            for p in self.honest(attacker)
        }

    def alive(self) -> None:
        for p in self.peers.values():
            for t in p._tasks:
                assert not t.done(), f"seat {p.seat}: task {t} ended: {t.exception()}"
        for t in self.runs:
            assert not t.done() or t.exception() is None

    async def send(self, attacker: int, frame: bytes) -> None:
        for p in self.honest(attacker):
            assert await self.meshes[attacker].send(p.seat, frame, timeout=3), f"to {p.seat}"

    def forge(self, attacker: int, kind: str, body: dict, **over) -> bytes:
        """A feed frame from ``attacker`` signed with its real key, on the current state."""
        ledger = self.peers.get(attacker, next(iter(self.peers.values()))).replica.ledger
        fields = {
            "table": self.roster.table,
            "seat": attacker,
            "seq": ledger.next_seq(attacker),
            "prev": ledger.last_digest(attacker),
            "state": next(iter(self.peers.values())).game.public_hash(),
            "type": kind,
            "body": body,
        }
        fields.update(over)
        return seal(self.ids[attacker], **fields)


async def wait_for(pred, timeout: float = 5.0, what: str = "condition") -> None:
    deadline = time.monotonic() + timeout
    while not pred():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.02)


@pytest_asyncio.fixture
async def make_table(tmp_path: Path):
    """Factory: a 3-seat open-deal table on loopback.

    ``raw`` seats get a mesh but no peer; ``big`` seats' meshes take 1 MiB frames.
    """
    tables: list[Table] = []

    async def factory(raw: tuple[int, ...] = (), big: tuple[int, ...] = ()) -> Table:
        rules = build_rules(PLAYERS, [], {})
        ids = [Identity.generate() for _ in range(PLAYERS)]
        meshes = []
        t = Table(rules, None, ids, meshes, {})  # type: ignore[arg-type]
        tables.append(t)
        for s, ident in enumerate(ids):
            opts = BIG if s in big else FAST
            mesh = await Mesh.start(
                "127.0.0.1", 0, ident.curve_secret, ident.curve_public, options=opts
            )
            meshes.append(mesh)
        seats = [
            Seat(s, ids[s].public_key, ids[s].curve_public, meshes[s].endpoint, f"s{s}")
            for s in range(PLAYERS)
        ]
        t.roster = Roster(secrets.token_hex(6), "attack", 1, rules.config, seats, deal="open")
        for s in range(PLAYERS):
            if s in raw:
                for o in seats:
                    if o.seat != s:
                        meshes[s].connect_peer(o.seat, o.endpoint, o.curve)
                continue
            store = TableStore(tmp_path / f"{t.roster.table}-s{s}")
            t.peers[s] = RecordingPeer(ids[s], t.roster, s, meshes[s], store, linger=0.2)
        for p in t.peers.values():
            t.runs.append(asyncio.create_task(p.run()))
        return t

    try:
        yield factory
    finally:
        for t in tables:
            for p in t.peers.values():
                p.stopped.set()
            for task in t.runs:
                with contextlib.suppress(BaseException):
                    await asyncio.wait_for(task, 5)
            await asyncio.gather(*(m.close() for m in t.meshes))


async def dealt(t: Table) -> None:
    await wait_for(lambda: all(p.game.round is not None for p in t.peers.values()), 15, "the deal")


def leader(t: Table) -> int:
    actors = sorted(set(next(iter(t.peers.values())).game.actors()))
    assert len(actors) == 1
    return actors[0]


def unsigned_frame(ident: Identity, seat: int, payload: dict) -> bytes:
    """A frame signed by hand, for what ``seal`` refuses to build (unknown types)."""
    head = MAGIC + bytes([seat]) + canonical(payload)
    return head + ident.sign(head)


async def test_refused_input_changes_nothing_and_play_goes_on(make_table, caplog):
    """Garbage, oversized frames, bad signatures, replays, another table's frame, unknown type."""
    caplog.set_level(logging.INFO, logger="zsy.peer")
    t = await make_table()
    await dealt(t)
    lead = leader(t)
    a = (lead + 1) % PLAYERS  # the attacker is not the seat the game waits on
    before = t.snapshot(a)
    victims = t.honest(a)
    own_reveal = t.peers[a].replica.ledger.feeds[a][-1].frame
    # 1. garbage bytes
    await t.send(a, b"\x00\xffnot a frame at all" * 3)
    # 2. oversized for the protocol (the transport carries it; the replica refuses it)
    await t.send(a, b"ZSY\x01" + bytes([a]) + b"x" * (100 * 1024))
    # 3. bad signature: the attacker's own valid frame with one signature byte flipped,
    #    and a frame that claims another seat but is signed with the attacker's key
    await t.send(a, own_reveal[:-1] + bytes([own_reveal[-1] ^ 1]))
    other = lead
    forged = seal(
        t.ids[a],
        table=t.roster.table,
        seat=other,
        seq=0,
        prev="",
        state="",
        type="heartbeat",
        body={"have": {}},
    )
    await t.send(a, forged)
    # 4. replays: a frame already delivered, and a valid frame signed for another table
    duplicates = {p.seat: p.replica.stats["duplicates"] for p in victims}
    await t.send(a, own_reveal)
    await t.send(a, t.forge(a, "action", {"kind": "pass", "seat": a}, table="another-table"))
    # 5. an unknown message type, correctly signed
    payload = {"table": t.roster.table, "seq": 0, "prev": "", "state": "", "type": "bogus"}
    await t.send(a, unsigned_frame(t.ids[a], a, {**payload, "body": {}}))

    def refused(p: RecordingPeer) -> list[str]:
        return [r.reason for r in p.rejections()]

    expect = [
        ("garbage", None),
        ("oversized frame", None),
        (f"bad signature on a frame claiming seat {a}", None),
        (f"bad signature on a frame claiming seat {other}", None),
        (f"wrong table from seat {a}", a),
        (f"unknown message type 'bogus' from seat {a}", a),
    ]
    for p in victims:
        await wait_for(lambda p=p: len(refused(p)) >= len(expect), what=f"seat {p.seat} refusals")
        await wait_for(lambda p=p: p.replica.stats["duplicates"] > duplicates[p.seat], what="dedup")
        for text, sender in expect:
            hits = [r for r in p.rejections() if text in r.reason]
            assert hits, f"seat {p.seat} did not refuse {text!r}: {refused(p)}"
            assert all(r.sender == sender for r in hits), hits
        assert not p.cheats()
    # a signature that proves nothing is still traced to the connection it came on
    lines = [r.getMessage() for r in caplog.records if "rejected from" in r.getMessage()]
    assert any(f"on seat {a}'s connection" in m and "garbage" in m for m in lines), lines
    assert any(f"rejected from seat {a}" in m and "bogus" in m for m in lines), lines
    assert t.snapshot(a) == before
    t.alive()
    # play goes on: the leader's legal move reaches everyone
    leader_peer = t.peers[lead]
    move = legal_actions(t.rules, leader_peer.game.round, lead)[0]
    assert await leader_peer.submit(move) is None
    await wait_for(lambda: all(len(p.game.log) == before[p.seat][2] + 1 for p in victims))
    await wait_for(lambda: len({p.replica.transcript_head() for p in t.peers.values()}) == 1)


async def test_frame_too_big_for_the_transport(make_table):
    """A frame above MAXMSGSIZE: libzmq drops it with the connection; the link comes back."""
    a = 0  # its mesh sends frames up to 1 MiB; the others accept 256 KiB
    t = await make_table(big=(a,))
    await dealt(t)
    lead = leader(t)
    before = t.snapshot(a)
    played = len(t.peers[a].game.log)
    for p in t.honest(a):
        await t.meshes[a].send(p.seat, b"ZSY\x01" + bytes([a]) + b"y" * (600 * 1024), timeout=2)
    await asyncio.sleep(0.3)
    assert t.snapshot(a) == before
    t.alive()
    assert t.meshes[a].dropped["unadmitted"] == 0
    move = legal_actions(t.rules, t.peers[lead].game.round, lead)[0]
    assert await t.peers[lead].submit(move) is None
    await wait_for(
        lambda: all(len(p.game.log) == played + 1 for p in t.peers.values()),
        10,
        "the next move after the dropped connection",
    )


@pytest.mark.parametrize("kind", ["out-of-turn", "illegal"])
async def test_cheating_action_halts_and_names_the_culprit(make_table, kind):
    t = await make_table()
    await dealt(t)
    lead = leader(t)
    game = t.peers[lead].game
    if kind == "out-of-turn":
        a = (lead + 1) % PLAYERS
        body = legal_actions(t.rules, game.round, lead)[0].to_json() | {"seat": a}
    else:
        a = lead
        stranger = game.round.hands[(lead + 1) % PLAYERS][0]  # a card the leader does not hold
        body = {"kind": "play", "seat": a, "cards": [stranger]}
    before = t.snapshot(a)
    await t.send(a, t.forge(a, "action", body))
    for p in t.honest(a):
        await wait_for(lambda p=p: p.cheats(), what=f"seat {p.seat} to name the cheat")
        cheat = p.cheats()[0]
        assert cheat.culprit == a
        assert ("out of turn" if kind == "out-of-turn" else "illegal action") in cheat.reason
        assert p.replica.halted is not None
        assert f"seat {a} cheated" in (p.info.stopped or "")
    assert t.snapshot(a) == before  # the bad message never entered any transcript
    t.alive()


async def test_reveal_that_does_not_open_its_commitment(make_table):
    """The last seat is raw: it commits honestly, then reveals another seed."""
    a = PLAYERS - 1
    t = await make_table(raw=(a,))
    state = Game(t.rules, 1).public_hash()
    nonce, seed = secrets.token_bytes(32), secrets.token_bytes(32)
    value = commitment(t.roster.table, 0, a, nonce, seed)
    commit = seal(
        t.ids[a],
        table=t.roster.table,
        seat=a,
        seq=1,
        prev=roster_binding(t.roster.table, t.roster.keys),  # vouches for the roster (#25)
        state=state,
        type="commit",
        body={"round": 0, "commit": value},
    )
    digest = open_frame(commit, t.roster.keys, t.roster.table).digest
    lying = seal(
        t.ids[a],
        table=t.roster.table,
        seat=a,
        seq=2,
        prev=digest,
        state=state,
        type="reveal",
        body={"round": 0, "nonce": nonce.hex(), "seed": secrets.token_bytes(32).hex()},
    )
    for s in t.peers:
        assert await t.meshes[a].wait_connected(s, 5)
    await t.send(a, commit)
    await t.send(a, lying)
    for p in t.honest(a):
        await wait_for(lambda p=p: p.cheats(), 10, f"seat {p.seat} to name the cheat")
        cheat = p.cheats()[0]
        assert cheat.culprit == a and "does not match its commit" in cheat.reason
        assert p.game.round is None, "a round was dealt from a bad reveal"
        assert len(cheat.evidence) == 2  # the commit and the reveal that does not open it
    t.alive()


@pytest.mark.slow
@pytest.mark.timeout(90)
async def test_end_to_end_bad_input_during_a_real_match(cluster):
    """A rogue player seated through the real lobby (in this process) sprays bad frames
    at a ``zsy host`` and a ``zsy join`` process mid-round, then plays on honestly: the
    match finishes, every record verifies, and the victims' logs name the sender."""
    host, url = cluster.host(3, 1)
    joiner = cluster.join("p1", url)
    ident = Identity.generate()
    root = cluster.data_dir("mallory")
    peer, mesh = await join_table(
        ident,
        url,
        "mallory",
        lambda table, seat: TableStore(root / "tables" / table),
        NetConfig(address="127.0.0.1", mdns=False),
        notify=lambda _: None,
    )
    peer.decider = make_decider("easy", ident.public_key)
    run = asyncio.create_task(peer.run())
    try:
        await wait_for(lambda: peer.game.round is not None, 30, "the deal")
        a = peer.seat
        others = [s.seat for s in peer.roster.seats if s.seat != a]
        for s in others:
            assert await mesh.wait_connected(s, 5)
        old = peer.replica.ledger.feeds[others[0]][0].frame  # someone's first commit
        payload = {"table": peer.roster.table, "seq": 0, "prev": "", "state": "", "type": "bogus"}
        spray = [
            b"garbage" * 9,
            b"ZSY\x01" + bytes([a]) + b"z" * (100 * 1024),
            old[:-1] + bytes([old[-1] ^ 0x80]),  # a bad signature
            old,  # a replay
            unsigned_frame(ident, a, {**payload, "body": {}}),
        ]
        for frame in spray:
            for s in others:
                await mesh.send(s, frame, timeout=3)
        await asyncio.wait_for(asyncio.shield(run), 60)
    finally:
        peer.stopped.set()
        with contextlib.suppress(BaseException):
            await asyncio.wait_for(run, 5)
        await mesh.close()
    assert peer.game.finished() and peer.replica.halted is None
    codes = cluster.wait_all([host, joiner], timeout=30)
    assert all(c == 0 for c in codes.values()), f"{codes}\n{cluster.tails()}"
    check_records(cluster.transcripts(), 3)
    for profile in ("host", "p1"):
        log = (cluster.data_dir(profile) / "zsy.log").read_text()
        assert f"on seat {a}'s connection: garbage" in log, log[-3000:]
        assert f"claiming seat {others[0]}" in log
        assert "oversized frame" in log
        assert f"rejected from seat {a}, on seat {a}'s connection: unknown message type" in log
