"""Adversarial peers: each cheat is caught by every honest peer's audit, culprit named."""

from __future__ import annotations

import dataclasses

import deal_ref25519 as ref
import pytest
from deal_helpers import round_robin
from deal_sim import Sim, run_deal

from zsy_lan.deal import group
from zsy_lan.deal.audit import audit_deal
from zsy_lan.deal.deal_errors import BadPoint, CheatDetected, DealError
from zsy_lan.deal.mental import DealPeer
from zsy_lan.deal.messages import Keys, Open, Relock, Reveal, Shuffle

N, M = 4, 54
DECK = list(range(M))
LAYOUT = round_robin(N, M)


def assert_caught(sim: Sim, cheater: int, step: str, *, immediate: set[int] | None = None):
    """Every honest seat's audit names ``cheater`` at ``step``; seats in
    ``immediate`` also refused the cheat at once, naming the cheater."""
    honest = [s for s in range(sim.n) if s != cheater]
    audits = sim.end_round(honest)
    for seat in honest:
        rep = audits[seat]
        assert not rep.ok, f"seat {seat}'s audit missed the cheat"
        assert rep.culprit == cheater, f"seat {seat}: {rep.summary()}"
        assert rep.step == step, f"seat {seat}: {rep.summary()}"
    for seat in immediate or ():
        errs = sim.errors.get(seat)
        assert errs, f"seat {seat} did not notice at once"
        assert errs[0].culprit == cheater, f"seat {seat}: {errs[0]}"
    # the honest seats' immediate errors never blame an honest seat
    for seat, errs in sim.errors.items():
        for err in errs:
            assert err.culprit in (cheater, None), f"seat {seat} blamed {err.culprit}: {err}"
    return audits


# ------------------------------------------------------------------ shuffle step


class Substituter(DealPeer):
    """Puts card 0's encoding, masked with its own scalar only, into its shuffle output.

    For seat 0 that is the honest point of card 0 again: a duplicate point,
    refused at once. For a later seat the slot no longer opens to a card: its
    owner notices but cannot tell who did it; the audit does.
    """

    def _shuffle_points(self, points):
        out = super()._shuffle_points(points)
        # slot 5, unless this seat's own permutation already put card 0 there (1 deal in 54):
        # then the "substitute" would be the honest point and there would be no cheat to catch
        slot = 6 if self._perm[5] == 0 else 5
        out[slot] = group.mask(self.deck_points[0], self._s)
        return out


class Duplicator(DealPeer):
    def _shuffle_points(self, points):
        out = super()._shuffle_points(points)
        out[7] = out[3]
        return out


class LastShufflerDuplicator(DealPeer):
    """The last shuffler copies one card over another, with an extra factor t on the
    copy (so all points stay distinct), and removes t again in its re-lock step.
    The deal completes with no error: only the audit can see it."""

    def _shuffle_points(self, points):
        out = super()._shuffle_points(points)
        self._t = group.scalar_from_int(7)
        out[10] = group.mask(points[self._perm[11]], group.scalar_mul(self._s, self._t))
        return out

    def _relock_points(self, points):
        out = super()._relock_points(points)
        out[10] = group.unmask(out[10], self._t)
        return out


class FirstRelockerDuplicator(DealPeer):
    """The first re-locker re-locks a copy of slot 2 as slot 6 (with slot 6's key):
    slot 6 opens to slot 2's card and no point repeats."""

    def _relock_points(self, points):
        out = super()._relock_points(points)
        out[6] = group.mask(points[2], group.scalar_mul(self._keys[6], group.scalar_inv(self._s)))
        return out


@pytest.mark.parametrize("cheater", [0, 1, 2, 3])
def test_substituting_a_card_in_the_shuffle_is_caught_by_the_audit(cheater):
    sim = run_deal(N, DECK, LAYOUT, peer_factories={cheater: Substituter})
    assert sim.errors  # noticed, but only seat 0's cheat can be pinned at once
    assert_caught(sim, cheater, "shuffle", immediate={1, 2, 3} if cheater == 0 else None)


@pytest.mark.parametrize(
    ("cls", "cheater", "step"),
    [(LastShufflerDuplicator, N - 1, "shuffle"), (FirstRelockerDuplicator, 0, "relock")],
)
def test_an_unseen_duplicate_is_caught_by_the_audit(cls, cheater, step):
    sim = run_deal(N, DECK, LAYOUT, peer_factories={cheater: cls})
    # the deal goes through and every seat sees a plausible hand...
    assert not sim.errors and all(p.dealt for p in sim.peers)
    cards = [c for p in sim.peers for c in p.hand().values()]
    assert len(set(cards)) == M - 1  # ...but one card is there twice, one is gone
    assert_caught(sim, cheater, step)


def test_duplicating_a_card_in_the_shuffle_is_caught_at_once_and_by_the_audit():
    cheater = 1
    sim = run_deal(N, DECK, LAYOUT, peer_factories={cheater: Duplicator})
    assert_caught(sim, cheater, "shuffle", immediate={0, 2, 3})


class RelockCheat(DealPeer):
    """Re-locks slot 9 with a key other than the committed one."""

    def _relock_points(self, points):
        out = super()._relock_points(points)
        out[9] = group.mask(out[9], group.scalar_from_int(2))
        return out


def test_a_wrong_relock_is_caught():
    cheater = 2
    sim = run_deal(N, DECK, LAYOUT, peer_factories={cheater: RelockCheat})
    # slot 9 belongs to seat 1: it cannot open it (the deck is corrupt, culprit unknown yet)
    assert [e.culprit for e in sim.errors[1]] == [None]
    assert_caught(sim, cheater, "relock")


# ------------------------------------------------------------------ points outside the group


def _poison(kind: str, good: bytes) -> bytes:
    if kind == "order2":
        return group.add_order2_torsion(good)
    if kind == "torsion8":
        return ref.encode(ref.add(ref.decode(good), ref.decode(ref.torsion_points()[1])))
    if kind == "identity":
        return group.IDENTITY
    if kind == "small":
        return ref.torsion_points()[3]
    if kind == "noncanonical":
        return (ref.P + 1).to_bytes(32, "little")  # y = 1 + p
    if kind == "junk":
        for i in range(256):  # a 32-byte string that is not on the curve
            cand = bytes([i]) * 32
            if ref.decode(cand) is None:
                return cand
    raise AssertionError(kind)


@pytest.mark.parametrize(
    "kind", ["order2", "torsion8", "identity", "small", "noncanonical", "junk"]
)
def test_a_point_outside_the_group_names_the_sender(kind):
    cheater = 1

    def tamper(peer, msg):
        if type(msg) is Shuffle:
            pts = list(msg.points)
            pts[4] = _poison(kind, pts[4])
            return Shuffle(sender=msg.sender, points=tuple(pts))
        return msg

    sim = run_deal(N, DECK, LAYOUT, tamper={cheater: tamper})
    # seat 2 (masking it) and seats 0 and 3 (validating it) all refuse it at once
    for seat in (0, 2, 3):
        assert isinstance(sim.errors[seat][0], BadPoint)
    assert_caught(sim, cheater, "shuffle", immediate={0, 2, 3})


def test_a_bad_point_in_the_last_relock_names_the_sender():
    cheater = N - 1

    def tamper(peer, msg):
        if type(msg) is Relock:
            pts = list(msg.points)
            pts[0] = group.add_order2_torsion(pts[0])
            return Relock(sender=msg.sender, points=tuple(pts))
        return msg

    sim = run_deal(N, DECK, LAYOUT, tamper={cheater: tamper})
    assert_caught(sim, cheater, "relock", immediate={0, 1, 2})


def test_lazy_validation_still_catches_a_bad_point_when_it_is_used():
    cheater = 1

    def tamper(peer, msg):
        if type(msg) is Shuffle:
            pts = list(msg.points)
            pts[4] = group.add_order2_torsion(pts[4])
            return Shuffle(sender=msg.sender, points=tuple(pts))
        return msg

    sim = run_deal(N, DECK, LAYOUT, tamper={cheater: tamper}, eager_validation=False)
    assert isinstance(sim.errors[2][0], BadPoint) and sim.errors[2][0].culprit == cheater
    assert_caught(sim, cheater, "shuffle", immediate={2})


# ------------------------------------------------------------------ keys


def test_a_wrong_deal_key_is_caught_at_once_and_by_the_audit():
    cheater = 2

    def tamper(peer, msg):
        if type(msg) is Keys and msg.kind == "deal":
            keys = list(msg.keys)
            keys[3] = (keys[3][0], group.random_scalar())
            return dataclasses.replace(msg, keys=tuple(keys))
        return msg

    sim = run_deal(N, DECK, LAYOUT, tamper={cheater: tamper})
    audits = assert_caught(sim, cheater, "deal", immediate={0, 1, 3})
    assert "wrong key" in audits[0].findings[0].reason
    assert all(isinstance(sim.errors[s][0], CheatDetected) for s in (0, 1, 3))


def test_a_wrong_key_in_a_play_is_caught():
    cheater = 1
    sim = run_deal(N, DECK, LAYOUT)
    slot = sorted(sim.peers[cheater].hand())[0]
    card = sim.peers[cheater].hand()[slot]
    forged = Open(
        sender=cheater,
        kind="play",
        cards=((slot, card),),
        keys=((slot, cheater, group.random_scalar()),),
    )
    sim.act(cheater, lambda p: [forged])
    assert_caught(sim, cheater, "play", immediate={0, 2, 3})


# ------------------------------------------------------------------ claims


def test_opening_a_slot_with_a_false_claim_is_caught():
    cheater = 3
    sim = run_deal(N, DECK, LAYOUT)
    p = sim.peers[cheater]
    slot = sorted(p.hand())[0]
    real = p.hand()[slot]
    fake = next(c for c in DECK if c != real)
    forged = Open(
        sender=cheater, kind="play", cards=((slot, fake),), keys=((slot, cheater, p._keys[slot]),)
    )
    sim.act(cheater, lambda _: [forged])
    for seat in (0, 1, 2):
        assert f"opens to card {real}" in sim.errors[seat][0].reason
    assert_caught(sim, cheater, "play", immediate={0, 1, 2})


def test_claiming_a_card_it_does_not_hold_is_caught():
    cheater = 2
    sim = run_deal(N, DECK, LAYOUT)
    victim_slot = sorted(sim.peers[0].hand())[0]
    card = sim.peers[0].hand()[victim_slot]  # even the right card does not help
    forged = Open(
        sender=cheater,
        kind="play",
        cards=((victim_slot, card),),
        keys=((victim_slot, 0, group.random_scalar()),),
    )
    sim.act(cheater, lambda _: [forged])
    for seat in (0, 1, 3):
        assert "does not hold" in sim.errors[seat][0].reason
    assert_caught(sim, cheater, "play", immediate={0, 1, 3})


# ------------------------------------------------------------------ tribute


class TributeLiar(DealPeer):
    """Passes a slot claiming it is another card (the lie is in the sealed box)."""

    lie = "claim"

    def pass_message(self, slots, to):
        (slot,) = slots
        real = self.slots[slot].card
        claim = next(c for c in self.cfg.deck if c != real) if self.lie == "claim" else real
        keys = {self.seat: self._keys[slot]}
        if self.lie == "key":
            keys = {self.seat: group.random_scalar()}
        entries = [(slot, claim, sorted(keys.items()))]
        return self._make_pass(to, self.pass_count.get(self.seat, 0), [slot], entries)


@pytest.mark.parametrize("lie", ["claim", "key"])
def test_lying_in_the_tribute_is_caught(lie):
    cheater, receiver = 0, 3

    class Liar(TributeLiar):
        pass

    Liar.lie = lie
    sim = run_deal(N, DECK, LAYOUT, peer_factories={cheater: Liar})
    slot = sorted(sim.peers[cheater].hand())[0]
    sim.act(cheater, lambda p: p.pass_message([slot], receiver))
    # only the receiver can tell at once; the others saw the slot change hands
    assert set(sim.errors) == {receiver}
    audits = assert_caught(sim, cheater, "pass", immediate={receiver})
    if lie == "claim":
        (rec,) = audits[1].passes
        assert rec.claimed != rec.actual and rec.giver == cheater


def test_an_honest_pass_that_the_receiver_calls_a_lie_blames_the_receiver():
    """A false complaint: the receiver aborts although the pass was right."""
    sim = run_deal(N, DECK, LAYOUT)
    slot = sorted(sim.peers[0].hand())[0]
    sim.act(0, lambda p: p.pass_message([slot], 3))
    sim.act(3, lambda p: p.reveal_message("abort: the pass was a lie"))
    honest = [0, 1, 2]
    audits = sim.end_round(honest)
    for s in honest:
        assert audits[s].culprit == 3 and audits[s].step == "abort"
        assert audits[s].stopped_by == 3 and audits[s].stop_reason.startswith("abort")


# ------------------------------------------------------------------ reveal


def test_revealing_other_secrets_than_committed_is_caught():
    cheater = 1

    def tamper(peer, msg):
        if type(msg) is Reveal:
            keys = list(msg.keys)
            keys[0] = group.random_scalar()
            return dataclasses.replace(msg, keys=tuple(keys))
        return msg

    sim = run_deal(N, DECK, LAYOUT, tamper={cheater: tamper})
    assert_caught(sim, cheater, "reveal")


def test_withholding_the_reveal_is_named():
    sim = run_deal(N, DECK, LAYOUT)
    sim.tamper[2] = lambda peer, msg: None if type(msg) is Reveal else msg
    sim.end_round([])
    for s in (0, 1, 3):
        assert not sim.peers[s].audit_ready
        rep = audit_deal(sim.cfg, sim.peers[s].transcript, self_seat=s)
        assert rep.culprit == 2 and rep.step == "reveal"


def test_errors_name_the_culprit():
    err = DealError("x", culprit=1, step="shuffle")
    assert str(err) == "seat 1 [shuffle]: x" and err.culprit == 1
