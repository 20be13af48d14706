"""Privacy: until the audit, a peer's received bytes show no card it was not dealt or shown."""

from __future__ import annotations

import json

import pytest
from deal_helpers import ddz_layout, round_robin
from deal_sim import Sim

from zsy_lan.deal import group
from zsy_lan.deal.messages import decode


def play_some(sim: Sim) -> dict[int, set[int]]:
    """Deal, show one card, play two, pass one face down (1 -> 0). Returns, per seat,
    the slots whose card it may know before the audit."""
    sim.deal()
    n = sim.n
    known = {s: {i for i, o in enumerate(sim.cfg.layout) if o in (s, -2)} for s in range(n)}
    p0, p1 = sim.peers[0], sim.peers[1]
    show = sorted(p0.hand())[0]
    sim.act(0, lambda p: p.open_message([show], "show"))
    plays = sorted(p0.hand())[1:3]
    sim.act(0, lambda p: p.open_message(plays, "play"))
    give = sorted(p1.hand())[0]
    sim.act(1, lambda p: p.pass_message([give], 0))
    assert not sim.errors
    for s in range(n):
        known[s] |= {show, *plays}
    known[0].add(give)
    return known


@pytest.mark.parametrize(
    ("n", "m", "layout"),
    [(4, 54, round_robin(4, 54)), (3, 54, ddz_layout())],
    ids=["4x54", "3x54-kitty"],
)
def test_received_bytes_hold_no_card_a_peer_was_not_shown(n, m, layout):
    sim = Sim(n, range(m), layout, seed=b"privacy")
    known = play_some(sim)
    truth: dict[int, int] = {}
    for p in sim.peers:
        truth.update({i: p.slots[i].card for i in range(m) if p.slots[i].card is not None})
    assert len(truth) == m
    encodings = {c: group.card_point(sim.cfg.table_id, sim.cfg.round_no, c) for c in range(m)}
    for peer in sim.peers:
        log = b"\n".join(sim.received[peer.seat])
        assert log, "the peer received nothing?"
        may_know = {truth[i] for i in known[peer.seat]}
        # 1. no card encoding at all travels in clear (every deck point is masked)
        for c, pt in encodings.items():
            assert pt.hex().encode() not in log, f"seat {peer.seat} saw card {c} in clear"
            assert pt not in log
        # 2. card ids in clear only in opens (shown / played cards)
        for data in sim.received[peer.seat]:
            msg = decode(data)
            claims = getattr(msg, "cards", ())
            for _slot, card in claims:
                assert card in may_know
        # 3. the secret key of every face-down slot it may not know never reached it
        for i in range(m):
            if i in known[peer.seat]:
                continue
            holder = sim.cfg.layout[i]
            secret = sim.peers[holder]._keys[i]
            assert secret.hex().encode() not in log, f"seat {peer.seat} got the key of slot {i}"
        # 4. its state knows no other card
        for i, sl in enumerate(peer.slots):
            if sl.card is not None:
                assert i in known[peer.seat], f"seat {peer.seat} knows slot {i}"
        # 5. with everything it has, it opens no slot it may not know
        for i in range(m):
            if i in known[peer.seat]:
                continue
            sl = peer.slots[i]
            keys = {**sl.pub_keys, **sl.priv_keys, peer.seat: peer._keys[i]}
            inv = group.scalar_inv(group.scalar_product(keys.values()))
            assert group.mask(peer.final[i], inv) not in peer.table

    # after the reveal, every peer knows everything
    audits = sim.end_round()
    for rep in audits.values():
        assert rep.ok
        assert dict(enumerate(rep.slot_cards)) == truth


def test_the_pass_box_is_opaque_to_third_parties():
    sim = Sim(4, range(54), round_robin(4, 54), seed=b"box")
    sim.deal()
    give = sorted(sim.peers[1].hand())[0]
    card = sim.peers[1].hand()[give]
    sim.act(1, lambda p: p.pass_message([give], 0))
    box_msgs = [json.loads(d) for d in sim.received[2] if b'"deal.pass"' in d]
    assert len(box_msgs) == 1
    body = box_msgs[0]["body"]
    assert set(body) == {"sender", "to", "index", "slots", "box"}
    assert body["slots"] == [give] and body["to"] == 0
    # seat 2 cannot decrypt it with its own box key
    from zsy_lan.deal import sealed

    p2 = sim.peers[2]
    key = sealed.pass_key(p2._box_sk, sim.peers[1].box_pk, b"sim-table", 1, 1, 2, 0)
    ad = sealed.pass_ad(b"sim-table", 1, 1, 0, 0, [give])
    with pytest.raises(ValueError):
        sealed.unseal(key, ad, bytes.fromhex(body["box"]))
    assert sim.peers[0].hand()[give] == card
