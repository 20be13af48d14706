"""Honest runs of the private deal: who opens what, plays, passes, the kitty, the audit."""

from __future__ import annotations

from collections import Counter

import pytest
from deal_helpers import SCENARIOS, ddz_layout, round_robin, stock_layout
from deal_sim import Sim, run_deal, seeded_rand

from zsy_lan.deal import group
from zsy_lan.deal.audit import audit_deal
from zsy_lan.deal.deal_errors import NotReady, ProtocolViolation
from zsy_lan.deal.mental import FACE_UP, STOCK, DealConfig, DealPeer
from zsy_lan.deal.messages import Commit, Keys, Relock, Shuffle, decode, encode


def open_with_what_i_have(peer: DealPeer, slot: int) -> bytes:
    """The best point ``peer`` can compute for ``slot``: every key it knows removed."""
    sl = peer.slots[slot]
    keys = dict(sl.pub_keys)
    keys.update(sl.priv_keys)
    keys[peer.seat] = peer._keys[slot]
    return group.mask(peer.final[slot], group.scalar_inv(group.scalar_product(keys.values())))


@pytest.fixture(scope="module", params=list(SCENARIOS))
def dealt(request):
    n, deck, layout = SCENARIOS[request.param]
    sim = run_deal(n, deck, layout)
    return sim


def test_every_seat_opens_exactly_its_cards(dealt):
    sim = dealt
    layout = sim.cfg.layout
    assert not sim.errors
    seen: Counter[int] = Counter()
    public = sim.peers[0].public_cards()
    for peer in sim.peers:
        assert peer.dealt
        mine = {i for i, o in enumerate(layout) if o == peer.seat}
        assert set(peer.hand()) == mine
        assert peer.public_cards() == public  # face-up cards are the same for all
        assert set(public) == {i for i, o in enumerate(layout) if o == FACE_UP}
        seen.update(peer.hand().values())
        # slots of others: the card is unknown
        for i, o in enumerate(layout):
            if o not in (peer.seat, FACE_UP):
                assert peer.slots[i].card is None
    seen.update(public.values())
    assert seen == Counter(sim.cfg.deck)  # the union is the deck, no duplicate


def test_no_peer_can_open_another_seats_slot(dealt):
    sim = dealt
    for peer in sim.peers:
        for i, o in enumerate(sim.cfg.layout):
            if o >= 0 and o != peer.seat:
                assert open_with_what_i_have(peer, i) not in peer.table
            elif o == peer.seat:
                assert peer.table[open_with_what_i_have(peer, i)] == peer.hand()[i]


def test_audit_passes_and_then_everyone_knows_everything(dealt):
    sim = dealt
    # run the end of round on a copy-free basis: the fixture is module scoped,
    # so reveal only in the last test that uses it
    audits = sim.end_round()
    truth = {}
    for peer in sim.peers:
        truth.update(peer.hand())
    truth.update(sim.peers[0].public_cards())
    for rep in audits.values():
        assert rep.ok, rep.summary()
        assert rep.complete
        assert rep.slot_cards == tuple(truth[i] for i in range(sim.cfg.n_slots))
        for peer in sim.peers:
            assert sorted(rep.dealt[peer.seat]) == sorted(peer.hand().values())
    # a full re-check by an outsider (no self-skip) agrees
    rep = audit_deal(sim.cfg, sim.peers[0].transcript)
    assert rep.ok and rep.slot_cards == audits[0].slot_cards


def test_group_operation_counts_4x54():
    sim = run_deal(4, list(range(54)), round_robin(4, 54))
    total = Counter()
    for ops in sim.ops:
        total.update(ops)
    # 4 shuffle + 4 re-lock steps of 54 masks, plus one unmask per dealt card
    assert total["scalarmult"] == 8 * 54 + 54
    # every deck a peer did not transform is validated: 8 decks x 3 receivers, minus
    # the 7 it transformed (checked by the masking itself)
    assert total["is_valid_point"] == (8 * 3 - 7) * 54


def test_play_show_pass_and_audit():
    sim = run_deal(4, list(range(54)), round_robin(4, 54), seed=b"flow")
    p0, p1 = sim.peers[0], sim.peers[1]
    # seat 0 shows a card (the start card proof) and plays two
    show_slot, *play_slots = sorted(p0.hand())[:3]
    shown = p0.hand()[show_slot]
    sim.act(0, lambda p: p.open_message([show_slot], "show"))
    for peer in sim.peers:
        assert peer.public_cards()[show_slot] == shown
    played = {i: p0.hand()[i] for i in play_slots}
    sim.act(0, lambda p: p.open_message(play_slots, "play"))
    for peer in sim.peers:
        for i, c in played.items():
            assert peer.public_cards()[i] == c
        assert peer.slots_of(0) == [i for i in range(54) if i % 4 == 0 and i not in played]
    assert show_slot in p0.hand() and not set(played) & set(p0.hand())
    # tribute return: seat 1 passes a card face down to seat 0
    give = sorted(p1.hand())[0]
    card = p1.hand()[give]
    sim.act(1, lambda p: p.pass_message([give], 0))
    assert not sim.errors
    assert p0.hand()[give] == card and give not in p1.hand()
    for peer in sim.peers[2:]:
        assert peer.slots[give].card is None and peer.slots[give].owner == 0
        assert open_with_what_i_have(peer, give) not in peer.table
    # seat 0 plays the received card; everyone checks it
    sim.act(0, lambda p: p.open_message([give], "play"))
    assert not sim.errors
    for peer in sim.peers:
        assert peer.public_cards()[give] == card
    audits = sim.end_round()
    for rep in audits.values():
        assert rep.ok, rep.summary()
        assert [(r.giver, r.receiver, r.slot, r.claimed, r.actual) for r in rep.passes] == [
            (1, 0, give, card, card)
        ]
        assert (0, give, card) in rep.played
        assert sorted(rep.remaining[0]) == sorted(c for i, c in p0.hand().items())


def test_ddz_kitty_in_the_stock_then_revealed_to_the_landlord():
    sim = run_deal(3, list(range(54)), stock_layout())
    kitty = [51, 52, 53]
    for peer in sim.peers:
        assert peer.dealt and all(peer.slots[i].card is None for i in kitty)
        assert len(peer.hand()) == 17
    sim.act_all(lambda p: p.stock_keys_message(kitty))
    assert not sim.errors
    cards = sim.peers[0].public_cards()
    assert set(cards) == set(kitty)
    for peer in sim.peers:
        assert peer.public_cards() == cards
        peer.assign(kitty, 2)  # the landlord takes the kitty
    assert set(kitty) <= set(sim.peers[2].hand())
    sim.act(2, lambda p: p.open_message([52], "play"))
    assert not sim.errors
    audits = sim.end_round()
    assert all(rep.ok for rep in audits.values())


def _transcript_driver(cfg, seed=b""):
    """Peers applying one transcript by hand: verify then ingest, own messages included."""
    peers = [DealPeer(cfg, s, rand=seeded_rand(seed + bytes([s]))) for s in range(cfg.n_peers)]

    def post(msg):
        for p in peers:
            p.verify(msg)
            p.ingest(msg)

    return peers, post


def test_a_hand_driven_transcript_deals_what_the_sim_deals():
    """The table's driver by hand (commit, steps, keys) gives the sim's hands."""
    cfg = DealConfig(b"t", 0, 4, tuple(range(20)), tuple(round_robin(4, 20)))
    peers, post = _transcript_driver(cfg)
    for p in peers:
        post(p.commit_message())
    for _ in range(2 * cfg.n_peers):  # shuffles, then re-locks, in seat order
        (owner,) = [j for j, what in peers[0].waiting_for()]
        post(peers[owner].step_message())
    for p in peers:
        post(p.deal_keys_message())
    assert all(p.dealt for p in peers)
    reference = run_deal(4, range(20), round_robin(4, 20), table_id=b"t", round_no=0, seed=b"")
    for p, q in zip(peers, reference.peers, strict=True):
        assert p.hand() == q.hand()
    assert [type(m) for m in peers[0].transcript] == [type(m) for m in reference.transcript]


def test_a_message_before_its_turn_is_not_ready():
    """The table orders the deal; a step before its turn is refused, nothing applied."""
    cfg = DealConfig(b"t", 0, 3, tuple(range(9)), tuple(round_robin(3, 9)))
    peers, post = _transcript_driver(cfg)
    post(peers[0].commit_message())
    early = Shuffle(sender=1, points=tuple(peers[1].deck_points))
    with pytest.raises(NotReady):
        peers[2].verify(early)
    with pytest.raises(ProtocolViolation) as exc:
        peers[2].ingest(early)  # applied anyway: named as out of order
    assert exc.value.culprit == 1 and exc.value.step == "order"


def test_seeded_runs_are_reproducible():
    a = run_deal(3, range(54), ddz_layout(), seed=b"x")
    b = run_deal(3, range(54), ddz_layout(), seed=b"x")
    c = run_deal(3, range(54), ddz_layout(), seed=b"y")
    # the delivery order depends on measured compute times; the contents do not
    assert [sorted(r) for r in a.received] == [sorted(r) for r in b.received]
    assert [sorted(r) for r in a.received] != [sorted(r) for r in c.received]
    assert [p.hand() for p in a.peers] == [p.hand() for p in b.peers]


def test_waiting_for_names_who_owes_what():
    cfg = DealConfig(b"t", 0, 3, tuple(range(9)), tuple(round_robin(3, 9)))
    peers, post = _transcript_driver(cfg)
    post(peers[0].commit_message())
    post(peers[1].commit_message())
    assert peers[0].waiting_for() == [(2, "commit")]
    post(peers[2].commit_message())
    assert peers[0].waiting_for() == [(0, "shuffle")]  # seat 0 shuffles once all committed
    post(peers[0].step_message())
    assert peers[1].waiting_for() == [(1, "shuffle")]


def test_the_first_shuffle_started_early_is_the_same_step():
    """A table starts seat 0's first shuffle on a background thread with the deal; the
    step it then sends is the one it would have computed on the spot."""
    cfg = DealConfig(b"t", 0, 3, tuple(range(54)), tuple(round_robin(3, 54)))
    early = DealPeer(cfg, 0, rand=seeded_rand(b"first"))
    late = DealPeer(cfg, 0, rand=seeded_rand(b"first"))
    early.start_first_shuffle()
    early.start_first_shuffle()  # once
    assert early.step_message() == early.step_message() == late.step_message()
    assert sorted(early.step_message().points) != sorted(early.deck_points)  # masked
    other = DealPeer(cfg, 1, rand=seeded_rand(b"first"))
    other.start_first_shuffle()  # seat 1's step depends on seat 0's: nothing to start
    with pytest.raises(ProtocolViolation):
        other.step_message()


def test_a_second_commitment_is_refused():
    cfg = DealConfig(b"t", 0, 2, tuple(range(4)), (0, 1, 0, 1))
    peers, post = _transcript_driver(cfg)
    commit = peers[0].commit_message()
    assert commit == peers[0].commit_message()  # a builder: same message, nothing changed
    post(commit)
    assert peers[0].started and peers[1].commits[0] == commit
    other = Commit(
        sender=0, shuffle_digest=bytes(32), key_hashes=(bytes(32),) * 4, box_pk=bytes(32)
    )
    for p in peers:
        with pytest.raises(ProtocolViolation) as exc:
            p.verify(other)
        assert exc.value.culprit == 0


def test_second_step_from_the_same_seat_is_refused():
    sim = run_deal(3, range(12), round_robin(3, 12))
    shuffle0 = next(m for m in sim.peers[0].transcript if type(m) is Shuffle)
    bogus = Shuffle(sender=0, points=tuple(reversed(shuffle0.points)))
    with pytest.raises(ProtocolViolation) as exc:
        sim.peers[1].verify(bogus)
    assert exc.value.culprit == 0


def test_message_codec_round_trip_and_strictness():
    sim = run_deal(3, range(12), ddz_layout()[:9] + [FACE_UP] * 3, seed=b"c")
    sim.act(0, lambda p: p.open_message([0], "play"))
    for data in sim.received[1]:
        msg = decode(data)
        assert encode(msg) == data
    relock = next(m for m in sim.peers[1].transcript if type(m) is Relock)
    assert decode(encode(relock)) == relock and type(decode(encode(relock))) is Relock
    keys = next(m for m in sim.peers[1].transcript if type(m) is Keys)
    body = keys.to_body()
    from zsy_lan.deal.deal_errors import MalformedMessage
    from zsy_lan.deal.messages import from_body

    bad_bodies = [
        {**body, "extra": 1},
        {**body, "sender": True},
        {**body, "sender": 1.0},
        {**body, "kind": "steal"},
        {**body, "keys": [[1, "AB" * 32]]},
        {**body, "keys": [[2, "ab" * 32], [1, "ab" * 32]]},
        {**body, "keys": [[1, "ab" * 31]]},
        "not a dict",
    ]
    for bad in bad_bodies:
        with pytest.raises(MalformedMessage) as exc:
            from_body(Keys.TYPE, bad, sender=keys.sender)
        assert exc.value.culprit == keys.sender
    with pytest.raises(MalformedMessage):
        from_body(Keys.TYPE, body, sender=(keys.sender + 1) % 3)  # envelope mismatch
    with pytest.raises(MalformedMessage):
        from_body("deal.nope", body, sender=0)
    with pytest.raises(MalformedMessage):
        decode(b"\xff\xfe")


@pytest.mark.parametrize(
    "spoil",
    [
        lambda h: h.upper(),
        lambda h: " " + h[1:],
        lambda h: h[:62] + " a",
        lambda h: h[:63] + "g",
        lambda h: h[:63] + "\u00e9",
        lambda h: h[:62],
        lambda h: h + "00",
        lambda h: 7,
    ],
    ids=["upper", "space", "inner-space", "not-hex", "non-ascii", "short", "long", "int"],
)
def test_a_deck_or_key_list_with_one_bad_hex_item_is_refused(spoil):
    """Decks, key hashes and keys are parsed in one pass: as strict as item by item."""
    from zsy_lan.deal.deal_errors import MalformedMessage
    from zsy_lan.deal.messages import from_body

    sim = run_deal(3, range(12), ddz_layout()[:9] + [FACE_UP] * 3, seed=b"h")
    t = sim.peers[1].transcript
    shuffle = next(m for m in t if type(m) is Shuffle)
    commit = next(m for m in t if type(m) is Commit)
    keys = next(m for m in t if type(m) is Keys)
    for msg, field in ((shuffle, "points"), (commit, "key_hashes"), (keys, "keys")):
        body = msg.to_body()
        assert from_body(msg.TYPE, body, sender=msg.sender) == msg
        items = list(body[field])
        for at in (0, len(items) - 1):
            spoiled = list(items)
            if field == "keys":
                spoiled[at] = [items[at][0], spoil(items[at][1])]
            else:
                spoiled[at] = spoil(items[at])
            with pytest.raises(MalformedMessage) as exc:
                from_body(msg.TYPE, {**body, field: spoiled}, sender=msg.sender)
            assert exc.value.culprit == msg.sender


def test_stock_slots_stay_closed_to_everyone():
    sim = Sim(3, range(54), stock_layout())
    sim.deal()
    for peer in sim.peers:
        for i in (51, 52, 53):
            assert not peer.slots[i].pub_keys
            assert open_with_what_i_have(peer, i) not in peer.table


def test_config_validation():
    with pytest.raises(ValueError):
        DealConfig(b"t", 0, 1, (0, 1), (0, 0))
    with pytest.raises(ValueError):
        DealConfig(b"t", 0, 2, (0, 0), (0, 1))
    with pytest.raises(ValueError):
        DealConfig(b"t", 0, 2, (0, 1), (0, 2))
    with pytest.raises(ValueError):
        DealConfig(b"", 0, 2, (0, 1), (0, 1))
    cfg = DealConfig("table", 0, 2, [0, 1, 2], [0, STOCK, FACE_UP])
    assert cfg.table_id == b"table" and cfg.deal_key_slots(0) == (2,)
    assert cfg.deal_key_slots(1) == (0, 2)


def test_prefetched_card_points_are_the_points_made_on_the_spot():
    """DealConfig.card_points takes a prefetch for its table, deal and deck only."""
    from zsy_lan.deal import deck_setup

    deck = tuple(range(54))
    cfg = DealConfig("prefetch-table", 7, 4, deck, tuple(i % 4 for i in range(54)))
    fresh = deck_setup._card_points(cfg.table_id, 7, deck)
    deck_setup.prefetch_card_points("prefetch-table", 7, deck)
    deck_setup.prefetch_card_points("prefetch-table", 8, deck)  # another deal: not taken for 7
    assert cfg.card_points() == fresh
    assert (b"prefetch-table", 7, deck) not in deck_setup._prefetched  # used once
    assert (b"prefetch-table", 8, deck) in deck_setup._prefetched
    other = DealConfig("prefetch-table", 8, 4, deck, cfg.layout)
    assert other.card_points() == deck_setup._card_points(cfg.table_id, 8, deck)
    assert other.card_points() != fresh  # card points change with the deal


def _stream(label: str):
    """A seat's secret source for one deal, as the table derives it from the deal's secret."""
    from zsy_lan.deal.seat_secrets import SecretStream

    return SecretStream(label.encode().ljust(32, b"."))


def test_seat_0s_first_shuffle_made_ahead_is_used_only_with_its_own_secrets():
    from zsy_lan.deal import deck_setup

    deck = tuple(range(54))
    layout = tuple(round_robin(4, 54))
    cfg = DealConfig("ahead-table", 3, 4, deck, layout)
    deck_setup.prefetch_first_shuffle("ahead-table", 3, deck, _stream("a"))
    peer = DealPeer(cfg, 0, rand=_stream("a"))
    peer.start_first_shuffle()
    points = deck_setup._card_points(cfg.table_id, 3, deck)
    made = peer._first_shuffle.result()
    assert made == deck_setup.shuffle_step(points, peer._s, peer._perm, sender=3)
    assert (b"ahead-table", 3, deck) not in deck_setup._prefetched_shuffles  # taken
    # made ahead from other secrets (another table in this process): not used
    cfg4 = DealConfig("ahead-table", 4, 4, deck, layout)
    deck_setup.prefetch_first_shuffle("ahead-table", 4, deck, _stream("b"))
    other = DealPeer(cfg4, 0, rand=_stream("c"))
    other.start_first_shuffle()
    points4 = deck_setup._card_points(cfg4.table_id, 4, deck)
    assert other._first_shuffle.result() == deck_setup.shuffle_step(
        points4, other._s, other._perm, sender=3
    )


def test_one_driver_the_tables():
    """DealPeer has no second driver, and the sim runs the table's: every peer verifies
    and ingests every message of the one transcript, in order, its own included."""
    for gone in ("receive", "start", "play", "show", "reveal", "reveal_stock", "pass_face_down"):
        assert not hasattr(DealPeer, gone), gone
    calls: list[tuple[str, int, object]] = []

    class Watched(DealPeer):
        def verify(self, msg):
            calls.append(("verify", self.seat, msg))
            super().verify(msg)

        def ingest(self, msg):
            calls.append(("ingest", self.seat, msg))
            super().ingest(msg)

    sim = run_deal(3, range(12), round_robin(3, 12), peer_factories={s: Watched for s in range(3)})
    assert not sim.errors and all(p.dealt for p in sim.peers)
    for seat, peer in enumerate(sim.peers):
        seen = [m for what, s, m in calls if s == seat and what == "ingest"]
        checked = [m for what, s, m in calls if s == seat and what == "verify"]
        assert seen == checked == sim.transcript == peer.transcript
