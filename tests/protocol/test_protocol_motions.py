"""Motions: the other seats hold a dropped seat, or void a round, in one transcript order.

Real replicas over the in-memory mesh (proto_support). A seat "drops" by
crashing (its process is gone) or sleeping (its replica runs, its bot does
not act). Whatever the delivery schedule, every replica must reach the same
transcript, the files on disk must be identical and verify, and a motion's
outcome must follow the cut rule: the seat's own message wins if and only if
some voter held it when it voted.
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from proto_support import FAST, TABLE, Mesh, bot_action, identity

from zsy_lan.protocol import Send, load_line, open_frame, seal, verify_transcript


def agree(mesh: Mesh, *, finished: bool = True) -> None:
    """Every up replica: no cheat, same head, same file, and the file verifies."""
    nodes = mesh.honest()
    for node in nodes:
        r = node.replica
        assert r.halted is None, f"seat {node.seat} halted: {r.halted}"
        assert not node.cheats, node.cheats
        assert not [e for e in node.rejected if e.sender != node.seat], node.rejected
        if finished:
            assert r.game.finished(), f"seat {node.seat} did not finish by t={mesh.now}"
    assert len({n.replica.transcript_head() for n in nodes}) == 1
    assert len({n.replica.game.public_hash() for n in nodes}) == 1
    assert len({tuple(n.lines) for n in nodes}) == 1, "the files on disk differ"
    result = verify_transcript(nodes[0].lines, mesh.roster, mesh.new_game)
    assert result.ok, result
    assert result.head == nodes[0].replica.transcript_head()
    assert result.finished == finished


def outcomes(node, motion: str = "hold") -> list[tuple[int, str]]:
    return [(m.seat, m.outcome) for m in node.motions if m.motion == motion and m.outcome != "open"]


# every replica backs a hold once the seat was disconnected at its turn for 1 s (its own clock)
HOLD = replace(FAST, hold_after=1.0)


def dropped_at_its_turn(n: int = 4, seed: int = 7, victim: int = 2, **kw) -> Mesh:
    kw.setdefault("timing", HOLD)
    mesh = Mesh(n, seed, **kw)
    mesh.asleep = {victim}
    mesh.wait_on(victim)
    return mesh


def until_judged(mesh: Mesh, victim: int, motion: str = "hold", seats=None) -> None:
    """Step until each up replica (or ``seats``) would back ``motion`` by its own clock."""
    end = mesh.now + 30.0
    nodes = [n for n in mesh.honest() if n.seat != victim and (seats is None or n.seat in seats)]
    while any(n.replica.motion_wait(motion, victim, mesh.now) > 0 for n in nodes):
        assert mesh.now < end, f"the replicas never judged seat {victim} gone"
        mesh.step()


# -- hold ------------------------------------------------------------------------


def test_a_seat_that_drops_at_its_turn_is_held_and_the_match_goes_on():
    mesh = dropped_at_its_turn(rounds=2, per_round=6)
    mesh.crash(2)
    until_judged(mesh, 2)
    events = mesh.move(0, "hold", 2)
    assert any(isinstance(e, Send) for e in events)  # the vote goes out
    mesh.run(limit=60)
    agree(mesh)
    holder = 0  # the lowest seat that is not held
    for node in mesh.honest():
        assert outcomes(node) == [(2, "held")]
        assert node.replica.held() == {2: holder}
        proxies = [a for a in node.applied if a.by is not None]
        assert proxies and all(a.seat == 2 and a.by == holder for a in proxies)
    # the votes are in the record, outside the chain
    assert any('"aside":true' in line for line in mesh.nodes[0].lines)


def test_every_other_seat_votes_by_itself_once_one_did():
    mesh = dropped_at_its_turn(n=5, seed=11, rounds=1, per_round=7)
    mesh.crash(2)
    until_judged(mesh, 2, seats={4})
    mesh.move(4, "hold", 2)
    for _ in range(40):
        mesh.step()
    at = mesh.nodes[0].replica.ledger.motion_log[0]["at"]
    for node in mesh.honest():
        ballots = node.replica.ledger.votes[at][(2, "hold")]
        assert sorted(ballots) == [0, 1, 3, 4]


def test_a_vote_by_the_seat_itself_names_it():
    mesh = dropped_at_its_turn(rounds=1, per_round=6)
    r = mesh.nodes[2].replica
    frame = seal(
        identity(2),
        table=TABLE,
        seat=2,
        seq=r.next_seq(),
        prev=r.ledger.last_digest(2),
        state=r.game.public_hash(),
        type="motion",
        body={"motion": "hold", "seat": 2, "at": r.position(), "cut": 0},
    )
    mesh.dishonest = {2}
    mesh.post(2, None, frame, reliable=True)
    for _ in range(10):
        mesh.step()
    for node in mesh.honest():
        assert node.replica.halted is not None and node.replica.halted.culprit == 2
        assert "its own seat" in node.replica.halted.reason


def _forge(mesh: Mesh, seat: int, kind: str, body: dict) -> bytes:
    r = mesh.nodes[seat].replica
    return seal(
        identity(seat),
        table=TABLE,
        seat=seat,
        seq=r.next_seq(),
        prev=r.ledger.last_digest(seat),
        state=r.game.public_hash(),
        type=kind,
        body=body,
    )


def _cheat_named(mesh: Mesh, culprit: int, frame: bytes, fragment: str) -> None:
    mesh.dishonest = {culprit}
    mesh.post(culprit, None, frame, reliable=True)
    for _ in range(10):
        mesh.step()
    for node in mesh.honest():
        halted = node.replica.halted
        assert halted is not None, f"seat {node.seat} did not notice"
        assert halted.culprit == culprit and fragment in halted.reason, halted
        assert {c.culprit for c in node.cheats} == {culprit}
        assert (
            halted.evidence and open_frame(halted.evidence[-1], mesh.roster, TABLE).seat == culprit
        )


def test_a_proxy_while_the_seat_is_not_held_names_its_author():
    mesh = dropped_at_its_turn(rounds=1, per_round=6)
    action = bot_action(mesh.nodes[0].replica.game, 2)
    frame = _forge(mesh, 0, "proxy", {"seat": 2, "action": action})
    _cheat_named(mesh, 0, frame, "which is not held")


def test_a_proxy_from_a_seat_that_does_not_hold_names_its_author():
    mesh = dropped_at_its_turn(rounds=2, per_round=9)
    mesh.crash(2)
    mesh.asleep = {0}  # the holder's bot waits, so the forged proxy comes first
    until_judged(mesh, 2)
    mesh.move(1, "hold", 2)
    while not all(n.replica.held() for n in mesh.honest()):
        mesh.step()
    assert mesh.nodes[1].replica.held() == {2: 0}
    action = bot_action(mesh.nodes[1].replica.game, 2)
    frame = _forge(mesh, 3, "proxy", {"seat": 2, "action": action})
    _cheat_named(mesh, 3, frame, "which seat 0 holds")


def test_a_vote_about_a_seat_the_table_does_not_wait_on_names_the_voter():
    mesh = dropped_at_its_turn(rounds=1, per_round=6)
    r = mesh.nodes[1].replica
    frame = _forge(mesh, 1, "motion", {"motion": "hold", "seat": 3, "at": r.position(), "cut": 0})
    _cheat_named(mesh, 1, frame, "does not wait on seat 3")


# -- the cut rule, over delivery schedules --------------------------------------------


@pytest.mark.slow  # soak: whole simulated matches per example
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    n=st.integers(3, 5),
    seed=st.integers(0, 2**32 - 1),
    delay=st.sampled_from([0.05, 0.3, 1.0]),
    back_after=st.floats(2.0, 4.5),
    data=st.data(),
)
def test_the_seats_own_move_wins_iff_some_voter_had_it(n, seed, delay, back_after, data):
    """A partitioned seat comes back and moves just as the others judge it gone.

    The others back a hold on their own clocks (disconnected ``peer_timeout``,
    then ``hold_after`` at its turn), so the votes race the move. Whatever
    arrives where first, every replica decides alike: the move is applied if it
    is within the largest cut of the votes, else the seat is held.
    """
    victim = data.draw(st.integers(0, n - 1), label="victim")
    mesh = Mesh(n, seed, max_delay=delay, dup=0.1, rounds=2, per_round=n + 2, timing=HOLD)
    mesh.asleep = {victim}
    mesh.wait_on(victim)
    node = mesh.nodes[victim]
    at = node.replica.position()  # where the table waits on the victim
    mesh.cut_off = {victim}
    mesh.auto_hold = HOLD.hold_after  # each shell moves once it judges the seat gone
    end = mesh.now + back_after
    while mesh.now < end:
        mesh.step()
    mesh.cut_off = set()
    mesh.asleep = set()
    if node.replica.can_act():
        mesh.handle(node, node.replica.act(bot_action(node.replica.game, victim), mesh.now))
    moves = [e for e in node.replica.ledger.feeds[victim] if e.type == "action"]
    move_seq = moves[-1].seq
    mesh.run(limit=150)
    agree(mesh)
    logs = {
        tuple(
            (m["motion"], m["seat"], m.get("at"), m.get("outcome"), m.get("cut"))
            for m in nd.replica.ledger.motion_log
        )
        for nd in mesh.honest()
    }
    assert len(logs) == 1, "the replicas disagree on the motions"
    here = [m for m in mesh.nodes[0].replica.ledger.motion_log if m.get("at") == at]
    first = mesh.nodes[(victim + 1) % n]
    applied = [a for a in first.applied if a.seat == victim and a.by is None]
    own_move_applied = any(a.seq == move_seq for a in applied)
    event(f"outcome at the seat's turn: {here[0]['outcome'] if here else 'no motion'}")
    if here:
        (motion,) = here
        assert motion["outcome"] in ("held", "declined")
        assert (motion["outcome"] == "declined") == (motion["cut"] >= move_seq), motion
        assert (motion["outcome"] == "declined") == own_move_applied
    else:  # nobody judged the seat gone before its move came
        assert own_move_applied


# -- coming back -----------------------------------------------------------------------


def _held_then_back(voided_own_move: bool) -> Mesh:
    mesh = dropped_at_its_turn(rounds=4, per_round=8)
    if voided_own_move:  # signed and journaled, but the process died before sending it
        node = mesh.nodes[2]
        events = node.replica.act(bot_action(node.replica.game, 2), mesh.now)
        mesh.handle(node, [e for e in events if not isinstance(e, Send)])
    mesh.crash(2)
    until_judged(mesh, 2)
    mesh.move(1, "hold", 2)
    while not any(a.by is not None for a in mesh.nodes[0].applied):
        mesh.step()
    mesh.restart(2)
    mesh.asleep = set()
    mesh.run(limit=120)
    return mesh


def test_a_held_seat_that_comes_back_is_released_and_plays_again():
    mesh = _held_then_back(voided_own_move=False)
    agree(mesh)
    for node in mesh.nodes.values():
        assert [(e.seat, e.by) for e in node.released] == [(2, 0)]
        assert node.replica.held() == {}
    back = mesh.nodes[2]
    assert back.up and back.replica.stats["rebuilds"] == 0
    kinds = [(open_frame_of(ln).seat, open_frame_of(ln).type) for ln in back.lines[1:]]
    release_at = kinds.index((0, "release"))
    own_after = [k for k in kinds[release_at + 1 :] if k == (2, "action")]
    assert own_after, "the seat never played its own move after the release"


def open_frame_of(line: str):
    # the roster the table sat with: every first message is signed for it (issue #25)
    frame = load_line(line)[1]
    return open_frame(frame, {s: identity(s).public_key for s in range(4)}, TABLE)


def test_a_restart_after_an_own_move_the_table_voided_rebuilds_the_same_transcript():
    mesh = _held_then_back(voided_own_move=True)
    agree(mesh)
    back = mesh.nodes[2]
    assert back.replica.stats["rebuilds"] == 1
    assert len(back.rewound) == 1 and "hold seat 2" in back.rewound[0].reason
    # the voided move is in the record as an aside, not in the chain
    voided = [ln for ln in back.lines[1:] if open_frame_of(ln).seat == 2 and '"aside"' in ln]
    assert any(open_frame_of(ln).type == "action" for ln in voided)


def test_a_partitioned_seat_that_moved_meanwhile_rebuilds_live():
    mesh = dropped_at_its_turn(rounds=3, per_round=8)
    mesh.cut_off = {2}
    node = mesh.nodes[2]
    mesh.handle(node, node.replica.act(bot_action(node.replica.game, 2), mesh.now))  # lost
    until_judged(mesh, 2)
    mesh.move(0, "hold", 2)
    while not any(a.by is not None for a in mesh.nodes[0].applied):
        mesh.step()
    mesh.cut_off = set()
    mesh.asleep = set()
    mesh.run(limit=120)
    agree(mesh)
    assert node.replica.stats["rebuilds"] == 1 and len(node.rewound) == 1
    assert [(e.seat, e.by) for e in mesh.nodes[0].released] == [(2, 0)]


# -- void --------------------------------------------------------------------------------


def test_a_void_motion_voids_the_round_and_keeps_the_earlier_ones():
    mesh = Mesh(4, 5, rounds=3, per_round=6, voidable=True, motions=("void",))
    while mesh.nodes[0].replica.game.round_no < 1:  # one round scored first
        mesh.step()
    score = dict(mesh.nodes[0].replica.game.score)
    victim = next(s for s in range(4) if s != 0)
    mesh.asleep = {victim}
    mesh.wait_on(victim)
    round_no = mesh.nodes[0].replica.game.round_no
    until_judged(mesh, victim, "void")  # FAST.stall: 5 s on every replica's own clock
    assert mesh.move(3 if victim != 3 else 1, "void", victim)
    for _ in range(20):
        mesh.step()
    mesh.asleep = set()  # it comes back: it returns, then plays the new deal
    mesh.run(limit=120)
    agree(mesh)
    for node in mesh.honest():
        game = node.replica.game
        assert game.voids == [(round_no, victim)]
        assert outcomes(node, "void") == [(victim, "voided")]
        assert all(game.score[s] >= score[s] for s in score)  # nothing earlier lost
        assert sum(game.score.values()) == 3  # three rounds scored; the void one not


def test_a_game_without_void_round_refuses_to_vote():
    mesh = dropped_at_its_turn(rounds=1, per_round=6)  # FakeGame has no void_round
    events = mesh.move(0, "void", 2)
    assert [type(e).__name__ for e in events] == ["Rejected"]
    assert "void_round" in events[0].reason


def test_a_table_that_does_not_hold_refuses_a_hold_vote():
    mesh = dropped_at_its_turn(rounds=1, per_round=6, motions=("void",))
    events = mesh.move(0, "hold", 2)
    assert [type(e).__name__ for e in events] == ["Rejected"]


def test_the_open_deal_engine_voids_a_round_and_keeps_the_match():
    from zsy_lan.engine.game import Game
    from zsy_lan.engine.ruleset import build_rules

    game = Game(build_rules(4), 2)
    assert not game.can_void_round()  # nothing dealt yet
    game.start_round(b"\x01" * 32)
    turn = game.round.turn
    game.apply(turn, game.legal(turn)[0])
    before = game.public_hash()
    game.void_round(2, "withheld a key")
    assert game.needs_seed() and not game.can_void_round()
    assert game.public_hash() != before and game.match.results == ()
    game.start_round(b"\x02" * 32)  # the same round number is dealt again
    assert game.round.round_no == 1 and game.actors()


def test_the_private_deal_voids_only_a_deal_under_way():
    """PrivateGame has its own void_round (tests/private): with no deal started, nothing to void."""
    from zsy_lan.deal.private_game import PrivateGame
    from zsy_lan.engine.ruleset import build_rules

    game = PrivateGame(build_rules(4), 1, table="t", seat=None)
    assert not game.can_void_round()  # so no replica moves or carries a void on it


def test_when_the_holder_drops_too_the_next_seat_holds_both():
    mesh = dropped_at_its_turn(n=5, seed=3, rounds=3, per_round=9)
    mesh.crash(2)
    mesh.auto_hold = HOLD.hold_after  # the shells' rule from here on: hold whoever is gone
    until_judged(mesh, 2)
    mesh.move(4, "hold", 2)
    while not any(a.by == 0 for a in mesh.nodes[1].applied):
        mesh.step()
    mesh.crash(0)  # the holder goes too
    mesh.run(limit=200)
    agree(mesh)
    for node in mesh.honest():
        assert node.replica.held() == {0: 1, 2: 1}
        assert {a.by for a in node.applied if a.seat == 2 and a.by is not None} == {0, 1}
