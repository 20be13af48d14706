"""The replica state machine, one behaviour at a time (DESIGN.md "The protocol is sans-IO").

Peers here are real replicas wired by a synchronous, lossless link, plus a
hand-driven seat (``Hand``) that signs whatever a test needs, including the
messages a cheater would send.
"""

from __future__ import annotations

import hashlib

import pytest
from proto_support import FAST, TABLE, FakeGame, entropy_for, identity

from zsy_lan.protocol import (
    Applied,
    Cheat,
    Hello,
    PeerState,
    Persist,
    Rejected,
    Replica,
    RoundSeeded,
    Send,
    Stalled,
    Transcribed,
    combine,
    commitment,
    seal,
)
from zsy_lan.protocol.canonical import canonical
from zsy_lan.protocol.envelope import MAGIC, MAX_FRAME, roster_binding
from zsy_lan.protocol.memory_mesh import MemoryMesh

SEATS = (0, 1, 2)
ROSTER = {s: identity(s).public_key for s in SEATS}
NONCE, SEED = b"\x11" * 32, b"\x22" * 32


def replica(seat: int, **game) -> Replica:
    return Replica(
        TABLE,
        seat,
        identity(seat),
        ROSTER,
        FakeGame(SEATS, **game),
        entropy=entropy_for(seat),
        timing=FAST,
    )


class Wire:
    """Delivers every Send at once, in order (the lossless in-memory mesh), and keeps each
    replica's events; frames to the test's hand go nowhere."""

    def __init__(self, reps: dict[int, Replica]) -> None:
        self.reps = reps
        self.log: dict[int, list] = {s: [] for s in reps}
        self.now = 0.0
        self.net = MemoryMesh(SEATS)

    def run(self, src: int, events: list) -> list:
        self._seen(src, events)
        while (due := self.net.pop()) is not None:
            for dst in due.dsts:
                if dst in self.reps:
                    self._seen(dst, self.reps[dst].receive(due.frame, self.now))
        return events

    def _seen(self, seat: int, events: list) -> None:
        self.log[seat] += events
        self.net.post_sends(seat, events, self.now)

    def tick(self) -> None:
        for s, r in self.reps.items():
            self.run(s, r.tick(self.now))

    def deliver(self, frame: bytes, to=None) -> None:
        for dst in to if to is not None else self.reps:
            self.run(dst, self.reps[dst].receive(frame, self.now))

    def of(self, seat: int, kind: type) -> list:
        return [e for e in self.log[seat] if isinstance(e, kind)]


class Hand:
    """A seat driven by the test: signs what it is told, chained like a real feed."""

    def __init__(self, seat: int) -> None:
        # a first message chains to the table's roster (issue #25)
        self.seat, self.seq, self.prev = seat, 0, roster_binding(TABLE, ROSTER)

    def sign(self, kind: str, body: dict, state: str, *, seq=None, prev=None) -> bytes:
        seq = self.seq + 1 if seq is None else seq
        prev = self.prev if prev is None else prev
        frame = seal(
            identity(self.seat),
            table=TABLE,
            seat=self.seat,
            seq=seq,
            prev=prev,
            state=state,
            type=kind,
            body=body,
        )
        self.seq, self.prev = seq, hashlib.sha256(frame[:-64]).hexdigest()
        return frame

    def commit(self, state: str, round_no: int = 0, nonce=NONCE, seed=SEED) -> bytes:
        value = commitment(TABLE, round_no, self.seat, nonce, seed)
        return self.sign("commit", {"round": round_no, "commit": value}, state)

    def reveal(self, state: str, round_no: int = 0, nonce=NONCE, seed=SEED) -> bytes:
        return self.sign(
            "reveal", {"round": round_no, "nonce": nonce.hex(), "seed": seed.hex()}, state
        )


def snapshot(r: Replica):
    return (
        r.transcript_head(),
        {s: len(f) for s, f in r.ledger.feeds.items()},
        r.sync.buffered,
        r.game.public_hash(),
        r.halted,
    )


def two_and_a_hand(**game):
    """Seats 0 and 1 are replicas, seat 2 is the test's hand; both replicas have committed."""
    wire = Wire({0: replica(0, **game), 1: replica(1, **game)})
    wire.tick()
    return wire, Hand(2), wire.reps[0].game.public_hash()


def dealt(**game):
    """Like two_and_a_hand, with the round dealt: the game waits on its first player."""
    wire, hand, state = two_and_a_hand(**game)
    wire.deliver(hand.commit(state))
    wire.deliver(hand.reveal(state))
    assert wire.reps[0].game.dealt and wire.reps[1].game.dealt
    return wire, hand


# -- persistence ordering ------------------------------------------------------


def test_secret_and_commit_are_persisted_before_the_commit_is_sent():
    events = replica(0).tick(0.0)
    kinds = [(type(e).__name__, getattr(e, "key", None)) for e in events]
    secret = kinds.index(("Persist", "secret/0"))
    frame = kinds.index(("Persist", "frame/1"))
    sends = [i for i, e in enumerate(events) if isinstance(e, Send)]
    commit_send = next(i for i in sends if events[i].frame == events[frame].data)
    assert secret < frame < commit_send


def test_local_action_is_persisted_before_it_is_sent_and_applied_at_once():
    wire, hand = dealt()
    turn = wire.reps[0].game.turn
    assert turn != 2  # the fixed entropy and SEED give the first turn to a replica
    r = wire.reps[turn]
    played = r.game.last + 1
    events = wire.run(turn, r.act({"n": played}, 0.0))
    persist = next(i for i, e in enumerate(events) if isinstance(e, Persist))
    send = next(i for i, e in enumerate(events) if isinstance(e, Send))
    assert persist < send and events[persist].data == events[send].frame
    applied = [e for e in events if isinstance(e, Applied)]
    assert applied and applied[0].seat == turn and applied[0].action == {"n": played}
    assert r.game.last == played


# -- commit-reveal ---------------------------------------------------------------


def test_round_is_seeded_from_all_seeds_in_seat_order():
    wire, hand = dealt()
    seeded = wire.of(0, RoundSeeded)
    assert len(seeded) == 1 and seeded[0].round == 0
    reveals = [e for e in wire.reps[0].ledger.entries if e.type == "reveal"]
    assert [e.seat for e in reveals] == [0, 1, 2]
    assert seeded[0].seed == combine([bytes.fromhex(e.body["seed"]) for e in reveals])
    assert wire.of(1, RoundSeeded) == seeded
    assert wire.reps[0].transcript_head() == wire.reps[1].transcript_head()


def test_reveal_that_does_not_open_its_commit_names_the_seat():
    wire, hand, state = two_and_a_hand()
    commit = hand.commit(state)
    wire.deliver(commit)
    bad = hand.reveal(state, seed=b"\x33" * 32)
    wire.deliver(bad)
    for seat in (0, 1):
        cheats = wire.of(seat, Cheat)
        assert [c.culprit for c in cheats] == [2]
        assert "does not match its commit" in cheats[0].reason
        assert cheats[0].evidence == (commit, bad)
        assert not wire.of(seat, RoundSeeded)


def test_commit_for_the_wrong_round_names_the_seat():
    wire, hand, state = two_and_a_hand()
    wire.deliver(hand.commit(state, round_no=5))
    assert [c.culprit for c in wire.of(0, Cheat)] == [2]
    assert "round 5" in wire.of(0, Cheat)[0].reason


def test_withheld_reveal_is_reported_as_a_stall_naming_the_seat():
    wire, hand, state = two_and_a_hand()
    wire.deliver(hand.commit(state))
    r = wire.reps[0]
    assert r.waiting_on() == [(2, "reveal for round 0")]
    assert not [e for e in r.tick(1.0) if isinstance(e, Stalled)]
    stalled = [e for e in r.tick(1.0 + FAST.stall) if isinstance(e, Stalled)]
    assert stalled == [Stalled(2, "reveal for round 0")]
    # said once, then again only after stall_repeat (not at every stall interval)
    again = 1.0 + FAST.stall
    assert not [e for e in r.tick(again + FAST.stall) if isinstance(e, Stalled)]
    repeated = [e for e in r.tick(again + FAST.stall_repeat) if isinstance(e, Stalled)]
    assert repeated == [Stalled(2, "reveal for round 0")]


# -- the game's turn structure ---------------------------------------------------


def test_out_of_turn_action_is_a_cheat_and_changes_nothing():
    wire, hand = dealt()
    r = wire.reps[0]
    assert r.game.turn != 2  # a replica's turn (fixed entropy): the hand is out of turn
    before = snapshot(r)
    frame = hand.sign("action", {"n": r.game.last + 5}, r.game.public_hash())
    events = r.receive(frame, 0.0)
    cheats = [e for e in events if isinstance(e, Cheat)]
    assert len(cheats) == 1 and cheats[0].culprit == 2 and "out of turn" in cheats[0].reason
    assert snapshot(r)[0] == before[0] and snapshot(r)[3] == before[3]  # no action applied
    assert r.halted is cheats[0]


def test_illegal_action_names_the_rule_and_the_seat():
    wire, hand = dealt()
    # Let the replicas play until the hand is the one the game waits on.
    for _ in range(6):
        turn = wire.reps[0].game.turn
        if turn == 2:
            break
        r = wire.reps[turn]
        wire.run(turn, r.act({"n": r.game.last + 1}, 0.0))
    r = wire.reps[0]
    assert r.game.turn == 2
    frame = hand.sign("action", {"n": r.game.last}, r.game.public_hash())
    wire.deliver(frame)
    for seat in (0, 1):
        cheats = wire.of(seat, Cheat)
        assert [c.culprit for c in cheats] == [2]
        assert "F4" in cheats[0].reason and cheats[0].evidence == (frame,)


def test_action_on_another_state_waits_instead_of_accusing():
    wire, hand = dealt()
    r = wire.reps[0]
    before = snapshot(r)
    events = r.receive(hand.sign("action", {"n": 99}, "cd" * 32), 0.0)
    assert not [e for e in events if isinstance(e, (Cheat, Rejected))]
    assert r.halted is None and snapshot(r)[0] == before[0]


# -- feeds -----------------------------------------------------------------------


def test_equivocation_keeps_both_frames_as_proof():
    wire, hand, state = two_and_a_hand()
    first = hand.commit(state)
    bound = roster_binding(TABLE, ROSTER)
    second = hand.sign("commit", {"round": 0, "commit": "ee" * 32}, state, seq=1, prev=bound)
    r = wire.reps[0]
    r.receive(first, 0.0)
    events = r.receive(second, 0.0)
    cheat = next(e for e in events if isinstance(e, Cheat))
    assert cheat.culprit == 2 and "equivocation" in cheat.reason
    assert set(cheat.evidence) == {first, second}
    # The proof is passed on so other peers can see it too.
    assert {e.frame for e in events if isinstance(e, Send)} >= {first, second}


def test_equivocation_is_caught_among_early_messages_too():
    r = replica(0)
    hand = Hand(2)
    hand.commit("ab" * 32)
    a = hand.sign("action", {"n": 1}, "ab" * 32)
    b = hand.sign("action", {"n": 2}, "ab" * 32, seq=2, prev=hand.prev)
    r.receive(a, 0.0)  # seq 2 before seq 1: buffered
    events = r.receive(b, 0.0)
    assert [e.culprit for e in events if isinstance(e, Cheat)] == [2]


def test_broken_chain_names_the_author():
    r = replica(0)
    hand = Hand(2)
    r.receive(hand.commit("ab" * 32), 0.0)
    bad = hand.sign("action", {"n": 1}, "ab" * 32, prev="ff" * 32)
    events = r.receive(bad, 0.0)
    cheat = next(e for e in events if isinstance(e, Cheat))
    assert cheat.culprit == 2 and "forked feed" in cheat.reason


def test_duplicates_are_ignored_but_counted():
    r = replica(0)
    frame = Hand(2).commit("ab" * 32)
    r.receive(frame, 0.0)
    assert r.receive(frame, 0.0) == []
    assert r.stats["duplicates"] == 1


def test_gap_is_buffered_and_requested_then_filled_in_order():
    r = replica(0)
    r.tick(0.0)
    hand = Hand(2)
    state = r.game.public_hash()
    first = hand.commit(state)
    second = hand.reveal(state)
    events = r.receive(second, 0.0)
    wants = [e for e in events if isinstance(e, Send)]
    assert len(wants) == 1 and wants[0].to == 2  # the author is asked first
    assert len(r.ledger.feeds[2]) == 0 and r.sync.buffered == 1  # held back, not filed
    r.receive(first, 0.0)
    assert [e.seq for e in r.ledger.feeds[2]] == [1, 2] and r.sync.buffered == 0


def test_buffer_is_bounded():
    r = replica(0)
    hand = Hand(2)
    far = hand.sign("action", {"n": 1}, "ab" * 32, seq=10_000, prev="ab" * 32)
    r.receive(far, 0.0)
    assert r.sync.buffered == 0 and r.stats["dropped_ahead"] == 1


def test_any_peer_answers_a_want_with_the_authors_signed_frames():
    wire, hand, state = two_and_a_hand()
    commit = hand.commit(state)
    wire.deliver(commit, to=[1])
    want = seal(
        identity(0),
        table=TABLE,
        seat=0,
        seq=0,
        prev="",
        state="",
        type="want",
        body={"author": 2, "from": 1, "to": 5},
    )
    events = wire.reps[1].receive(want, 0.0)
    assert [(e.to, e.frame) for e in events if isinstance(e, Send)] == [(0, commit)]


def test_have_with_a_different_digest_triggers_a_check():
    r = replica(0)
    hand = Hand(2)
    r.receive(hand.commit("ab" * 32), 0.0)
    have = seal(
        identity(1),
        table=TABLE,
        seat=1,
        seq=0,
        prev="",
        state="",
        type="have",
        body={"have": {"2": [1, "ee" * 32]}},
    )
    events = r.receive(have, 0.0)
    sends = [e for e in events if isinstance(e, Send)]
    assert sends and sends[-1].to == 1 and r.stats["disputes"] == 1


# -- bad input never raises and never changes state --------------------------------


def _forged() -> bytes:
    frame = bytearray(Hand(1).commit("ab" * 32))
    frame[12] ^= 1
    return bytes(frame)


def _signed(seat: int, payload: dict) -> bytes:
    head = MAGIC + bytes([seat]) + canonical(payload)
    return head + identity(seat).sign(head)


_P = {"table": TABLE, "seq": 1, "prev": "", "state": "", "type": "action", "body": {}}
BAD = {
    "garbage": (b"\x00garbage", None, "garbage"),
    "oversized": (b"ZSY\x01\x01" + b"x" * MAX_FRAME, None, "oversized"),
    "bad signature": (_forged(), None, "bad signature"),
    "unknown sender": (MAGIC + b"\x07" + b"{}" + bytes(64), None, "unknown sender"),
    "wrong table": (_signed(1, {**_P, "table": "elsewhere"}), 1, "wrong table"),
    "unknown type": (_signed(1, {**_P, "type": "teleport"}), 1, "unknown message type"),
    "malformed body": (_signed(1, {**_P, "type": "commit", "body": {"round": 0}}), 1, "malformed"),
    "not bytes": ("a string", None, "must be bytes"),
}


@pytest.mark.parametrize("kind", sorted(BAD))
def test_bad_input_is_rejected_with_a_reason_and_changes_nothing(kind):
    frame, sender, fragment = BAD[kind]
    r = replica(0)
    r.tick(0.0)
    before = snapshot(r)
    events = r.receive(frame, 0.5)
    assert len(events) == 1 and isinstance(events[0], Rejected)
    assert events[0].sender == sender and fragment in events[0].reason
    assert snapshot(r) == before


def test_local_requests_that_are_not_allowed_are_rejected():
    wire, hand = dealt()
    turn = wire.reps[0].game.turn
    assert turn != 2  # a replica moves first (fixed entropy): it has a mover and an idle one
    mover, idle = wire.reps[turn], wire.reps[1 - turn]
    assert "not seat" in idle.act({"n": 999}, 0.0)[0].reason
    illegal = mover.act({"n": mover.game.last}, 0.0)
    assert isinstance(illegal[0], Rejected) and "F4" in illegal[0].reason
    assert isinstance(mover.act({"n": 1.5}, 0.0)[0], Rejected)  # not canonical
    assert isinstance(mover.act(["n"], 0.0)[0], Rejected)
    huge = mover.act({"n": mover.game.last + 1, "note": "x" * 70_000}, 0.0)
    assert isinstance(huge[0], Rejected)  # the game would accept it, the wire cannot carry it
    assert mover.next_seq() == 3  # commit and reveal only: nothing was signed


# -- liveness and lobby ---------------------------------------------------------


def test_heartbeats_drive_peer_state():
    a, b = replica(0), replica(1)
    beat = next(e for e in b.tick(0.0) if isinstance(e, Send) and e.to is None)
    events = a.receive(beat.frame, 0.0)
    assert PeerState(1, True) in events
    assert PeerState(1, False) not in a.tick(1.0)
    assert PeerState(1, False) in a.tick(1.0 + FAST.peer_timeout + 0.1)
    assert PeerState(1, True) in a.receive(b.tick(5.0)[0].frame, 5.0)


def test_hello_reaches_the_other_shell():
    a, b = replica(0), replica(1)
    (send,) = a.hello({"nick": "ann", "curve": identity(0).curve_public.hex()})
    events = b.receive(send.frame, 0.0)
    assert Hello(0, {"nick": "ann", "curve": identity(0).curve_public.hex()}) in events


def test_roster_must_hold_our_own_key():
    with pytest.raises(ValueError):
        Replica(TABLE, 0, identity(1), ROSTER, FakeGame(SEATS), entropy=entropy_for(0))


# -- catch-up after a restart -------------------------------------------------------


def test_restart_from_journal_and_transcript_resumes_the_same_feed():
    wire, hand = dealt()
    for _ in range(2):
        turn = wire.reps[0].game.turn
        if turn == 2:
            wire.deliver(
                hand.sign(
                    "action", {"n": wire.reps[0].game.last + 1}, wire.reps[0].game.public_hash()
                )
            )
        else:
            r = wire.reps[turn]
            wire.run(turn, r.act({"n": r.game.last + 1}, 0.0))
    old = wire.reps[0]
    journal = [(e.key, e.data) for e in wire.of(0, Persist)]
    lines = [old.transcript_header()] + [e.line for e in wire.of(0, Transcribed)]
    fresh = replica(0)
    events = fresh.restore(journal, lines, 1.0)
    assert not [e for e in events if isinstance(e, (Send, Rejected, Cheat, Transcribed))]
    assert fresh.transcript_head() == old.transcript_head()
    assert fresh.next_seq() == old.next_seq()
    assert fresh.game.public_hash() == old.game.public_hash()
    assert len([e for e in events if isinstance(e, Applied)]) == len(wire.of(0, Applied))


def test_restart_never_signs_a_second_commit_for_the_same_round():
    r = replica(0)
    journal = [(e.key, e.data) for e in r.tick(0.0) if isinstance(e, Persist)]
    fresh = Replica(
        TABLE, 0, identity(0), ROSTER, FakeGame(SEATS), entropy=entropy_for(0, "other"), timing=FAST
    )
    fresh.restore(journal, [], 0.0)
    again = fresh.tick(0.1)
    assert not [e for e in again if isinstance(e, Persist)]  # nothing new signed
    assert fresh.next_seq() == 2


def test_restart_with_a_secret_but_no_frame_signs_the_identical_commit():
    r = replica(0)
    events = r.tick(0.0)
    secret = [
        (e.key, e.data) for e in events if isinstance(e, Persist) and e.key.startswith("secret")
    ]
    frame = next(e.data for e in events if isinstance(e, Persist) and e.key == "frame/1")
    fresh = Replica(
        TABLE, 0, identity(0), ROSTER, FakeGame(SEATS), entropy=entropy_for(0, "other"), timing=FAST
    )
    fresh.restore(secret, [], 0.0)
    # a resumed seat signs nothing before the table told how far its own feed got
    assert not [e for e in fresh.tick(0.1) if isinstance(e, Persist)]
    again = []
    for p in (1, 2):  # the others' summaries: nothing of seat 0's feed reached them
        beat = next(e.frame for e in replica(p).tick(0.0) if isinstance(e, Send))
        again += [e for e in fresh.receive(beat, 0.2) if isinstance(e, Persist)]
    assert [e.data for e in again] == [frame]  # same bytes: no equivocation possible


def test_restore_refuses_a_transcript_from_another_table():
    from zsy_lan.protocol import header_line

    r = replica(0)
    events = r.restore([], [header_line("other", ROSTER)], 0.0)
    assert isinstance(events[0], Rejected) and "another table" in events[0].reason
