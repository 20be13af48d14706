"""A modified peer cannot void a round or hold a seat at will (issue #12).

The attack: one peer moves ``hold`` (open deal) or ``void`` (private deal)
about a connected seat 0.3 s into its turn. Before the fix every other peer
joined the motion automatically, the victim's own replica would not let it act
while the vote was open, and the seat was held (or the round voided) with every
screen naming the honest seat as the one that withheld.

Now each replica judges a motion by its own clock and view
(``Replica.motion_wait``): it joins only once it has itself waited past the
timeout on that seat (for ``hold``: disconnected, at its turn, for
``hold_after``; for ``void``: ``stall``). A victim that acts in time wins the
cut rule, and the motion is declined with the movers named (``Motion.movers``),
not the victim. Real replicas over the in-memory mesh (tests/protocol/proto_support).
"""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent.parent / "protocol"))

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from proto_support import FAST, Mesh, bot_action  # noqa: E402

from zsy_lan.protocol import verify_transcript  # noqa: E402
from zsy_lan.protocol.events import Motion  # noqa: E402

TIMING = replace(FAST, hold_after=1.0)  # stall stays 5 s
MOVER, VICTIM = 3, 1


def _attack(mesh: Mesh, motion: str) -> str:
    """The modified peer votes about the victim at once, skipping its own judgement."""
    node = mesh.nodes[MOVER]
    at = node.replica.position()
    mesh.handle(node, node.replica._vote(motion, VICTIM, at, mesh.now))
    return at


def _run_attack(motion: str, **kw) -> tuple[Mesh, str, int]:
    """Victim's turn; the attack 0.3 s in; the victim acts 1 s in (well within any timeout)."""
    mesh = Mesh(4, 21, timing=TIMING, rounds=2, per_round=6, motions=(motion,), **kw)
    mesh.asleep = {VICTIM}  # connected (its replica sends heartbeats), its player thinks
    mesh.wait_on(VICTIM)
    for _ in range(6):
        mesh.step()
    at = _attack(mesh, motion)
    for _ in range(14):  # the vote reaches everyone; nobody may join it yet
        mesh.step()
    for node in mesh.honest():
        if node.seat not in (MOVER, VICTIM):
            ballots = node.replica.ledger.votes.get(at, {}).get((VICTIM, motion), {})
            assert sorted(ballots) == [MOVER], f"seat {node.seat} joined: {sorted(ballots)}"
    victim = mesh.nodes[VICTIM].replica
    assert victim.can_act(), "the victim's own replica must still let it act"
    mesh.handle(mesh.nodes[VICTIM], victim.act(bot_action(victim.game, VICTIM), mesh.now))
    move_seq = victim.next_seq() - 1
    mesh.asleep = set()
    mesh.run(limit=120)
    return mesh, at, move_seq


def _check_refused(mesh: Mesh, at: str, motion: str, move_seq: int) -> None:
    nodes = mesh.honest()
    for node in nodes:
        r = node.replica
        assert r.halted is None and not node.cheats, node.cheats
        assert r.game.finished()
        assert r.held() == {}
        done = [m for m in node.motions if m.at == at and m.outcome != "open"]
        assert [(m.motion, m.seat, m.outcome) for m in done] == [(motion, VICTIM, "declined")]
        assert done[0].movers == (MOVER,), done[0]  # the mover is named, not the victim
        applied = [a.seq for a in node.applied if a.seat == VICTIM and a.by is None]
        assert move_seq in applied, "the victim's move in time was not applied"
        # no honest seat voted before it had the victim's move
        ballots = r.ledger.votes[at][(VICTIM, motion)]
        assert all(b.body["cut"] >= move_seq for s, b in ballots.items() if s != MOVER)
    assert len({n.replica.transcript_head() for n in nodes}) == 1
    assert len({tuple(n.lines) for n in nodes}) == 1
    result = verify_transcript(nodes[0].lines, mesh.roster, mesh.new_game)
    assert result.ok, result


def test_an_early_hold_about_a_seat_that_acts_in_time_is_refused_naming_the_mover():
    mesh, at, move_seq = _run_attack("hold")
    _check_refused(mesh, at, "hold", move_seq)


def test_an_early_void_about_a_seat_that_acts_in_time_is_refused_naming_the_mover():
    mesh, at, move_seq = _run_attack("void", voidable=True)
    _check_refused(mesh, at, "void", move_seq)
    for node in mesh.honest():
        assert node.replica.game.voids == [], "the round was voided"


@settings(max_examples=10, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    motion=st.sampled_from(["hold", "void"]),
    attack_after=st.integers(0, 30),
    act_after=st.integers(1, 50),  # both within the 5 s stall: the victim acts in time
)
def test_no_early_motion_reaches_its_quorum_before_each_seat_s_own_timeout(
    motion: str, attack_after: int, act_after: int
) -> None:
    """docs/protocol.md, "Votes": whenever the modified peer moves and whenever (within the
    timeout) the victim acts, no honest seat joins before its own timer ran out, so the
    motion never has every other seat's vote: it is declined, naming the mover only."""
    mesh = Mesh(4, 25, timing=TIMING, rounds=1, per_round=6, motions=(motion,),
                voidable=motion == "void")  # fmt: skip
    mesh.asleep = {VICTIM}
    mesh.wait_on(VICTIM)
    for _ in range(attack_after):
        mesh.step()
    at = _attack(mesh, motion)
    for _ in range(act_after):
        mesh.step()
        for node in mesh.honest():
            if node.seat in (MOVER, VICTIM):
                continue
            ballots = node.replica.ledger.votes.get(at, {}).get((VICTIM, motion), {})
            joined = [s for s in ballots if s not in (MOVER,)]
            assert not joined, f"seat {node.seat} saw {joined} join at t={mesh.now}"
    victim = mesh.nodes[VICTIM].replica
    assert victim.can_act()
    mesh.handle(mesh.nodes[VICTIM], victim.act(bot_action(victim.game, VICTIM), mesh.now))
    move_seq = victim.next_seq() - 1
    mesh.asleep = set()
    mesh.run(limit=120)
    _check_refused(mesh, at, motion, move_seq)


def test_a_hold_about_a_connected_seat_is_never_joined_even_past_the_stall():
    """A seat that is connected and thinking is not gone: no replica backs a hold on it."""
    mesh = Mesh(4, 22, timing=TIMING, rounds=1, per_round=6, motions=("hold",))
    mesh.asleep = {VICTIM}
    mesh.wait_on(VICTIM)
    at = _attack(mesh, "hold")
    end = mesh.now + TIMING.stall + 2 * TIMING.hold_after
    while mesh.now < end:
        mesh.step()
    for node in mesh.honest():
        assert node.replica.held() == {}
        ballots = node.replica.ledger.votes.get(at, {}).get((VICTIM, "hold"), {})
        assert sorted(ballots) == [MOVER]
    refusal = mesh.nodes[0].replica.move("hold", VICTIM, mesh.now)
    assert [type(e).__name__ for e in refusal] == ["Rejected"]
    assert "connected" in refusal[0].reason


def test_a_seat_that_is_really_gone_is_held_once_each_peer_s_own_timer_passes():
    """The early vote is not wasted: each replica joins when it judges the seat gone itself."""
    mesh = Mesh(4, 23, timing=TIMING, rounds=2, per_round=6, motions=("hold",))
    mesh.asleep = {VICTIM}
    mesh.wait_on(VICTIM)
    mesh.crash(VICTIM)
    at = _attack(mesh, "hold")
    joined: dict[int, float] = {}
    end = mesh.now + 30
    while len(joined) < 2 and mesh.now < end:
        mesh.step()
        for node in mesh.honest():
            if node.seat in (MOVER, VICTIM) or node.seat in joined:
                continue
            if node.seat in node.replica.ledger.votes.get(at, {}).get((VICTIM, "hold"), {}):
                joined[node.seat] = mesh.now
                # it joined only past its own timeout: the seat silent for
                # peer_timeout, then hold_after at its turn
                assert node.replica.motion_wait("hold", VICTIM, mesh.now) == 0.0
    assert sorted(joined) == [0, 2]
    while not all(n.replica.held() for n in mesh.honest()) and mesh.now < end:
        mesh.step()
    for node in mesh.honest():
        assert node.replica.held() == {VICTIM: 0}
        outcome = [m for m in node.motions if m.at == at and m.outcome != "open"]
        assert outcome and outcome[0].outcome == "held" and isinstance(outcome[0], Motion)


def test_an_honest_replica_refuses_to_move_before_its_own_timeout():
    mesh = Mesh(4, 24, timing=TIMING, rounds=1, per_round=6, voidable=True, motions=("void",))
    mesh.asleep = {VICTIM}
    mesh.wait_on(VICTIM)
    events = mesh.nodes[0].replica.move("void", VICTIM, mesh.now)
    assert [type(e).__name__ for e in events] == ["Rejected"]
    assert "withholds its part for 5 s" in events[0].reason


# -- what the screens say -------------------------------------------------------------


class _NoMesh:
    def send_now(self, seat: int, frame: bytes) -> bool:
        return False


def _table_peer(tmp_path: Path, seat: int = 0, deal: str = "open"):
    import hashlib

    from zsy_lan.engine.ruleset import build_rules
    from zsy_lan.protocol import Identity
    from zsy_lan.protocol.lobby import Roster, Seat
    from zsy_lan.record.store import TableStore
    from zsy_lan.table.peer import TablePeer

    rules = build_rules(4, [], {})
    ids = [Identity.from_seed(hashlib.sha256(b"motion-%d" % s).digest()) for s in range(4)]
    seats = [
        Seat(s, ids[s].public_key, ids[s].curve_public, f"tcp://127.0.0.1:{9200 + s}", f"p{s}")
        for s in range(4)
    ]
    roster = Roster("t-motion", "motion", 1, rules.config, seats, deal=deal)
    return TablePeer(ids[seat], roster, seat, _NoMesh(), TableStore(tmp_path / f"s{seat}"))  # type: ignore[arg-type]


def _told(peer) -> list[str]:
    out = []
    while not peer.notices.empty():
        out.append(peer.notices.get_nowait().text)
    return out


def test_the_screen_names_the_mover_of_a_refused_motion_not_the_seat_that_acted(tmp_path):
    peer = _table_peer(tmp_path)
    at = "ab" * 32
    peer._handle([Motion("hold", VICTIM, at, "open", by=MOVER)])
    peer._handle([Motion("hold", VICTIM, at, "declined", cut=4, movers=(MOVER,))])
    opened, refused = _told(peer)
    assert "withh" not in opened and "dropped" not in opened  # nothing claimed as fact
    assert "seat 3 (p3)" in opened and "joins only once" in opened
    assert refused.startswith("seat 1 (p1) acted in time")
    assert "by seat 3 (p3)" in refused and "refused" in refused
    assert peer.info.seats[VICTIM].held_by is None


def test_a_gone_seat_s_heartbeats_played_back_by_another_do_not_keep_it_alive():
    """Liveness decides holds: a replayed heartbeat must not make a gone seat look connected.

    Control frames are never forwarded, so one that comes on another seat's
    authenticated link (``via``) is a replay: ignored, and the seat is still
    judged gone on time.
    """
    mesh = Mesh(4, 25, timing=TIMING, rounds=1, per_round=6, motions=("hold",))
    mesh.asleep = {VICTIM}
    mesh.wait_on(VICTIM)
    victim = mesh.nodes[VICTIM].replica
    old_beat = victim._control_frame("heartbeat", {"have": victim._summary()})
    mesh.crash(VICTIM)
    r = mesh.nodes[0].replica
    end = mesh.now + TIMING.peer_timeout + TIMING.hold_after + 0.5
    while mesh.now < end:
        mesh.step()
        assert r.receive(old_beat, mesh.now, via=MOVER) == []  # seat 3 plays it back
    assert r.stats["replayed_control"] > 0
    assert r.motion_wait("hold", VICTIM, mesh.now) == 0.0  # judged gone all the same
    # the same frame on the victim's own link would have counted (it is valid)
    r.receive(old_beat, mesh.now, via=VICTIM)
    assert r.motion_wait("hold", VICTIM, mesh.now) == float("inf")


def test_zsy_replay_names_who_moved_a_declined_motion():
    """Before: the record said only "a motion to hold seat 1 was declined"; the screens at
    the table named the mover, the replay of the record did not."""
    from zsy_lan.record.replay import narrate_motions

    mesh, at, move_seq = _run_attack("hold")
    result = verify_transcript(mesh.honest()[0].lines, mesh.roster, mesh.new_game)
    declined = [m for m in result.motions if m.get("outcome") == "declined"]
    assert [m["movers"] for m in declined] == [[MOVER]]
    said = [line for line in narrate_motions(list(result.motions)) if "declined" in line]
    assert len(said) == 1
    assert f"seat {MOVER} moved to hold seat {VICTIM}; declined" in said[0], said
