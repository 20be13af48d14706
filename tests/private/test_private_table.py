"""The private deal at the table: replicas over an in-memory network, bots playing.

Whole matches (ZSY with tribute, Dou Dizhu with a hidden or shown kitty, six
players with two decks), privacy of every peer's bytes until the audit, one
adversarial peer per cheat (each caught by every honest peer, culprit named),
a withheld key named by the stall timer, and a crash and restart mid-deal.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from private_support import (  # noqa: E402
    PrivateTable,
    assert_named,
    ddz_rules,
    install,
    run_until_named,
    zsy_rules,
)

from zsy_lan.deal import group  # noqa: E402
from zsy_lan.deal.mental import STOCK, DealPeer  # noqa: E402
from zsy_lan.deal.messages import Open, Pass, from_body  # noqa: E402
from zsy_lan.deal.private_game import PrivateGame  # noqa: E402
from zsy_lan.engine.state import GIVE, RETURN, evolve  # noqa: E402
from zsy_lan.protocol.envelope import open_frame  # noqa: E402
from zsy_lan.protocol.transcript import load_line  # noqa: E402


def assert_clean_finish(t: PrivateTable) -> None:
    assert len(t.heads()) == 1, "replicas disagree"
    results = {tuple(n.game.match.results) for n in t.nodes.values()}
    assert len(results) == 1
    for node in t.nodes.values():
        assert node.game.finished(), (node.seat, node.game.stage)
        assert not node.cheats and node.replica.halted is None
        assert node.game.voids == []
        assert node.game.audits and all(a.ok for a in node.game.audits)


@pytest.mark.parametrize(
    ("rules", "rounds"),
    [
        (zsy_rules(4, scoring="penalty"), 2),
        (ddz_rules(3), 1),
        (ddz_rules(3, show_kitty=True), 1),
        pytest.param(zsy_rules(6), 1, marks=pytest.mark.slow),  # six seats, 108 cards masked
    ],
    ids=["zsy4-tribute-penalty", "ddz3-hidden-kitty", "ddz3-shown-kitty", "zsy6-108"],
)
def test_whole_match_with_the_private_deal(rules, rounds):
    t = PrivateTable(rules, rounds)
    t.run(max_time=120)
    assert_clean_finish(t)
    node = t.nodes[0]
    assert len(node.game.match.results) >= rounds
    # after each audit every peer knows every card, the same on all peers
    cards = {tuple(n.game.audits[-1].slot_cards) for n in t.nodes.values()}
    assert len(cards) == 1 and sorted(next(iter(cards))) == sorted(rules.deck)
    if rules.kitty_size:
        lord = node.game.lord
        kitty = node.game.match.round.get("kitty")
        assert (kitty is not None) == bool(rules.config["options"]["doudizhu"].get("show_kitty"))
        assert lord >= 0


# ------------------------------------------------------------------ privacy


def _frames_of(node) -> list[tuple[int, dict]]:
    out = []
    for line in node.transcript:
        seat, frame = load_line(line)
        env = open_frame(frame, node.replica.roster, node.replica.table)
        out.append((seat, dict(env.body)))
    return out


def _public_and_private(t: PrivateTable):
    """Per seat, the slots it may know now: dealt to it, opened to all, passed to it, its kitty."""
    g0 = t.nodes[0].game
    cfg = g0.cfg
    public = {i for n in t.nodes.values() for i, sl in enumerate(n.game.deal.slots) if sl.public}
    allowed = {s: {i for i, o in enumerate(cfg.layout) if o == s} | public for s in t.nodes}
    for _seat, body in _frames_of(t.nodes[0]):
        if body.get("kind") == RETURN and "deal" in body:
            p = from_body(Pass.TYPE, body["deal"])
            allowed[p.to] |= set(p.slots)
    if g0.lord >= 0:
        allowed[g0.lord] |= set(g0.stock)
    return allowed, public


def test_no_peer_holds_a_card_it_may_not_see_until_the_audit():
    """For a whole match, at the moment the first reveal of each deal is sent: no peer's
    state, transcript, received frames or journal holds a card it was not dealt or shown;
    once the round is audited every peer knows every card."""
    rules = zsy_rules(4)
    t = PrivateTable(rules, 2)
    deals_checked = 0
    seen_lines = {s: 0 for s in t.nodes}
    while not t.done():
        t.run(until=lambda: t.done() or any(n.game.stage == "reveal" for n in t.nodes.values()))
        if t.done():
            break
        deals_checked += 1
        cfg = t.nodes[0].game.cfg
        allowed, public = _public_and_private(t)
        points = cfg.card_points()
        public_cards = {
            sl.card for n in t.nodes.values() for sl in n.game.deal.slots if sl.public
        }
        for s, node in t.nodes.items():
            d = node.game.deal
            # 1. the state: only allowed slots have a known card; the engine knows no other hand
            known = {i for i, sl in enumerate(d.slots) if sl.card is not None}
            assert known <= allowed[s], (s, sorted(known - allowed[s]))
            r = node.game.match.round
            if r is not None:
                assert all(h is None for o, h in enumerate(r.hands) if o != s)
            # 2. bytes: received frames, transcript lines, journal: no card point in clear
            blob = b"\n".join(node.received) + "\n".join(node.transcript).encode()
            blob += b"".join(k.encode() + v for k, v in node.journal)
            for c, pt in zip(cfg.deck, points, strict=True):
                assert pt not in blob and pt.hex().encode() not in blob, (s, c)
            # 3. plaintext card ids appear only where opened to everyone
            for seat, body in _frames_of(node)[seen_lines[s]:]:
                cards = list(body.get("cards", []))
                if isinstance(body.get("deal"), dict):
                    cards += [c for _slot, c in body["deal"].get("cards", [])]
                    assert "claim" not in json.dumps(body["deal"])
                if body.get("kind") == RETURN:
                    assert "cards" not in body  # a face-down return names no card
                for c in cards:
                    assert c in public_cards, (s, seat, body.get("kind"), c)
        # finish the round: after its audit every peer knows every card
        before = {s: len(n.game.audits) for s, n in t.nodes.items()}
        t.run(until=lambda b=before: t.done() or all(len(n.game.audits) > b[s]
                                                  for s, n in t.nodes.items()))
        for node in t.nodes.values():
            rep = node.game.audits[-1]
            assert rep.ok and rep.slot_cards is not None
            assert sorted(rep.slot_cards) == sorted(cfg.deck)
        seen_lines = {s: len(n.transcript) for s, n in t.nodes.items()}
    assert deals_checked >= 2
    assert_clean_finish(t)


def _known(game: PrivateGame) -> dict[int, int | None]:
    return {i: sl.card for i, sl in enumerate(game.deal.slots)}


# ------------------------------------------------------------------ cheats


class Duplicator(DealPeer):
    def _shuffle_points(self, points):
        out = super()._shuffle_points(points)
        out[7] = out[3]
        return out


class Substituter(DealPeer):
    """Puts another card's encoding (masked by itself only) into its shuffle output: the
    slot no longer opens; its owner stops the round and the audit names the substituter."""

    def _shuffle_points(self, points):
        out = super()._shuffle_points(points)
        out[5] = group.mask(self.deck_points[0], self._s)
        return out


class LateDuplicator(DealPeer):
    """Copies a card over another in the last shuffle and hides the extra factor in its
    re-lock: the deal looks fine, two seats hold the same card; only the audit sees it.
    Cheats in the second deal only, so round 1 stays scored."""

    def _shuffle_points(self, points):
        out = super()._shuffle_points(points)
        if self.cfg.round_no == 2:
            self._t = group.scalar_from_int(7)
            out[10] = group.mask(points[self._perm[11]], group.scalar_mul(self._s, self._t))
        return out

    def _relock_points(self, points):
        out = super()._relock_points(points)
        if self.cfg.round_no == 2:
            out[10] = group.unmask(out[10], self._t)
        return out


def test_a_duplicate_point_in_a_shuffle_is_named_at_once():
    t = PrivateTable(zsy_rules(4), 1, factories={1: lambda c, s, r: Duplicator(c, s, rand=r)})
    run_until_named(t, at_once=True)
    assert_named(t, 1, at_once=True)
    assert "same point twice" in t.nodes[0].replica.halted.reason


def test_a_substituted_card_is_named_by_the_audit():
    t = PrivateTable(zsy_rules(4), 1, factories={2: lambda c, s, r: Substituter(c, s, rand=r)})
    run_until_named(t, at_once=False)
    assert_named(t, 2, at_once=False)
    assert t.nodes[0].game.voids[0].step == "shuffle"


def test_a_duplicate_only_the_audit_sees_voids_that_round_and_keeps_the_earlier_one():
    t = PrivateTable(zsy_rules(4), 2, factories={3: lambda c, s, r: LateDuplicator(c, s, rand=r)})
    run_until_named(t, at_once=False)
    assert_named(t, 3, at_once=False)
    for node in t.nodes.values():
        assert node.game.voids[0].round == 2
        assert len(node.game.match.results) == 1  # round 1 still counts
    # the honest peers agree on everything (the cheater's own audit skipped its own
    # steps and disagrees: its next message acts on another state, so it is out)
    honest = [n for n in t.nodes.values() if n.seat != 3]
    assert len({n.replica.transcript_head() for n in honest}) == 1
    assert len({n.game.public_hash() for n in honest}) == 1


def _once(fn):
    state = {"done": False}

    def hook(node, action):
        if state["done"]:
            return action
        out = fn(node, action)
        if out is not action:
            state["done"] = True
            state["seat"] = node.seat
        return out

    hook.state = state  # type: ignore[attr-defined]
    return hook


def test_a_point_outside_the_group_names_its_sender():
    """The next shuffler's masking refuses the point: it stops the round, and every
    peer's audit (which re-computes each step) names the sender; the round is void."""

    def poison(node, action):
        if node.seat == 2 and action["kind"] == "deal.shuffle":
            pts = list(action["deal"]["points"])
            pts[4] = group.add_order2_torsion(bytes.fromhex(pts[4])).hex()
            return {**action, "deal": {**action["deal"], "points": pts}}
        return action

    t = PrivateTable(zsy_rules(4), 1)
    install(t, _once(poison))
    run_until_named(t, at_once=False)
    assert_named(t, 2, at_once=False)
    # seat 3 (the next shuffler) saw it: its masking refused the point, so it stopped the round
    assert any("point rejected" in note for note in t.nodes[3].game.notes[:1])
    assert any("seat 3 stopped the round" in note for note in t.nodes[0].game.notes)
    for node in t.nodes.values():
        if node.seat != 2:
            assert node.game.voids[0].step == "shuffle", node.game.voids
            assert node.replica.halted is None  # a void round, not a halted table


def test_a_wrong_deal_key_names_its_sender():
    def wrong(node, action):
        if node.seat == 0 and action["kind"] == "deal.keys":
            keys = [list(k) for k in action["deal"]["keys"]]
            keys[0][1] = group.scalar_from_int(12345).hex()
            return ("force", {**action, "deal": {**action["deal"], "keys": keys}})
        return action

    t = PrivateTable(zsy_rules(4), 1)
    install(t, _once(wrong))
    run_until_named(t, at_once=True)
    assert_named(t, 0, at_once=True)
    assert "commitment" in t.nodes[1].replica.halted.reason


@pytest.mark.parametrize("how", ["false-claim", "not-owned"])
def test_claiming_a_card_not_owned_names_the_player(how):
    def claim(node, action):
        if action["kind"] != "play":
            return action
        opened = from_body(Open.TYPE, action["deal"], sender=node.seat)
        slot, real = opened.cards[0]
        d = node.game.deal
        if how == "false-claim":
            fake = next(c for c in node.game.rules.deck if c not in action["cards"])
            cards = [[slot, fake]]
            keys = [list(k) for k in action["deal"]["keys"] if k[0] == slot]
        else:
            other = next(i for i, sl in enumerate(d.slots)
                         if sl.owner not in (None, node.seat) and not sl.public)
            fake = real
            cards, keys = [[other, real]], [[other, node.seat, d._keys[other].hex()]]
        body = {"sender": node.seat, "kind": "play", "cards": cards, "keys": keys}
        return ("force", {"kind": "play", "seat": node.seat, "cards": [fake], "deal": body})

    t = PrivateTable(zsy_rules(4), 1)
    hook = _once(claim)
    install(t, hook)
    run_until_named(t, at_once=True)
    assert_named(t, hook.state["seat"], at_once=True)


def test_withholding_a_key_is_named_and_the_table_waits():
    def withhold(node, action):
        return None if node.seat == 2 and action["kind"] == "deal.keys" else action

    t = PrivateTable(zsy_rules(4), 1, stall=1.0)
    install(t, withhold)
    t.run(max_time=4.0)
    for node in t.nodes.values():
        assert node.game.stage == "keys"
        assert [s for s, _ in node.replica.waiting_on()] == [2]
        assert node.replica.halted is None and not node.game.voids
        if node.seat != 2:
            assert any(s.waiting_on == 2 for s in node.stalls), node.stalls
            assert node.game.owes(2) == "its deal keys (private deal)"


class LaxGiver(PrivateGame):
    """A peer whose software skips its own ZSY-7.4 check (so it can give a low card)."""

    def round_step(self, state, act):
        if act.kind == GIVE and act.seat == self.seat:
            hidden = evolve(state, hands=tuple(None for _ in state.hands))
            new = super().round_step(hidden, act)
            mine = tuple(c for c in state.hands[self.seat] if c not in act.cards)
            hands = list(new.hands)
            hands[self.seat] = mine
            for s, h in enumerate(state.hands):
                if s != self.seat and h is not None:
                    hands[s] = new.hands[s] if new.hands[s] is not None else h
            return evolve(new, hands=tuple(hands))
        return super().round_step(state, act)


def test_a_tribute_that_is_not_the_highest_card_is_named_by_the_audit():
    def low_give(node, action):
        if action["kind"] != GIVE:
            return action
        d = node.game.deal
        hand = d.hand()
        low = min(hand, key=lambda i: (hand[i] // 4 if hand[i] < 52 else 99, hand[i]))
        n = len(action["cards"])
        slots = sorted([low] + [i for i, _ in from_body(Open.TYPE, action["deal"]).cards][: n - 1])
        if [hand[i] for i in slots] == sorted(action["cards"]):
            return action
        msg = d.open_message(slots, "show")
        return {"kind": GIVE, "seat": node.seat, "cards": sorted(hand[i] for i in slots),
                "deal": msg.to_body()}

    t = PrivateTable(zsy_rules(4), 2, game_cls=LaxGiver)
    hook = _once(low_give)
    install(t, hook)
    run_until_named(t, at_once=False, max_time=120)
    assert hook.state["done"]
    assert_named(t, hook.state["seat"], at_once=False)
    assert t.nodes[0].game.voids[0].step == "tribute"


def test_a_lie_in_a_face_down_return_is_named_by_the_audit():
    def lie(node, action):
        if action["kind"] != RETURN:
            return action
        d = node.game.deal
        real = from_body(Pass.TYPE, action["deal"])
        entries = []
        for i in real.slots:
            claim = next(c for c in node.game.rules.deck if c != d.slots[i].card)
            entries.append((i, claim, sorted(d._hidden_keys_i_know(i).items())))
        msg = d._make_pass(real.to, real.index, list(real.slots), entries)
        return {**action, "deal": msg.to_body()}

    t = PrivateTable(zsy_rules(4), 2)
    hook = _once(lie)
    install(t, hook)
    run_until_named(t, at_once=False, max_time=120)
    assert hook.state["done"]
    assert_named(t, hook.state["seat"], at_once=False)
    assert t.nodes[0].game.voids[0].step == "pass"


# ------------------------------------------------------------------ crash and restart


@pytest.mark.parametrize("stage", ["shuffle", "keys"])
def test_a_peer_restarted_mid_deal_says_the_same_things(stage):
    """Secrets come from the journal's per-deal secret: the restarted peer re-derives the
    very scalars it committed to, and the match finishes with no equivocation."""
    t = PrivateTable(zsy_rules(4), 1)
    t.run(until=lambda: t.nodes[1].game.stage == stage)
    t.crash(1)
    t.run(until=lambda: False, max_time=t.now + 1.0)
    t.restart(1)
    t.run(max_time=120)
    assert_clean_finish(t)


def test_layout_deals_every_slot_and_keeps_the_kitty_in_the_stock():
    t = PrivateTable(ddz_rules(3), 1)
    t.run(until=lambda: t.nodes[0].game.stage == "shuffle")
    cfg = t.nodes[0].game.cfg
    assert cfg.layout.count(STOCK) == 3
    assert [cfg.layout.count(s) for s in range(3)] == [17, 17, 17]


def test_the_table_votes_a_withholding_seat_s_round_void_and_plays_on():
    """DESIGN "The deal": a seat that withholds a key is named; the others can void the round."""
    withholding = {"on": True}

    def withhold(node, action):
        if node.seat == 2 and action["kind"] == "deal.keys" and withholding["on"]:
            return None
        return action

    t = PrivateTable(zsy_rules(4), 1, stall=1.0)
    install(t, withhold)
    t.run(max_time=3.0)
    assert all(node.game.stage == "keys" for node in t.nodes.values())
    assert t.nodes[0].game.can_void_round()
    deal_before = t.nodes[0].game.deal_no
    events = t.nodes[0].replica.move("void", 2, t.now)  # a player typed "void"
    assert not [e for e in events if type(e).__name__ == "Rejected"], events
    t.handle(t.nodes[0], events)
    withholding["on"] = False  # seat 2 plays fairly from the next deal on
    t.run(max_time=120.0)
    for node in t.nodes.values():
        assert node.replica.halted is None
        g = node.game
        assert [(v.round, v.culprit, v.step) for v in g.voids] == [(1, 2, "vote")]
        assert g.finished() and len(g.match.results) == 1  # round 1 was dealt again and played
        assert g.deal_no == deal_before + 1
    assert len(t.heads()) == 1


def test_a_seat_that_came_back_and_never_moves_is_voided_after_its_grace():
    """Issue #26: a seat that resumed is given ``back_grace`` to move, not for ever: the
    host of the test above comes back and its player never chooses; once the grace is over
    the void the joiner moved while it was away carries, and the table goes on."""

    def absent(node, action):
        if node.seat == 0 and not action["kind"].startswith("deal"):
            return None  # the host's player never chooses
        return action

    t = PrivateTable(zsy_rules(4), 1)
    install(t, absent)
    joiner = t.nodes[1]
    t.run(until=lambda: joiner.game.stage == "play" and joiner.game.actors() == (0,))
    for seat in (0, 2, 3):
        t.crash(seat)
    t.run(until=lambda: False, max_time=t.now + 15.0)
    events = joiner.replica.move("void", 0, t.now)
    assert not [e for e in events if type(e).__name__ == "Rejected"], events
    t.handle(joiner, events)
    back = t.now + 5.0
    t.run(until=lambda: False, max_time=back)
    for seat in (0, 2, 3):
        t.restart(seat).act_hook = absent
    grace = joiner.replica.mover.timing.back_grace
    t.run(until=lambda: False, max_time=back + grace - 10.0)
    assert all(node.game.voids == [] for node in t.nodes.values())  # still its grace
    t.run(until=lambda: all(n.game.voids for n in t.nodes.values()), max_time=back + grace + 30.0)
    assert all(len(node.game.voids) == 1 for node in t.nodes.values())


def test_a_host_that_comes_back_keeps_the_round_a_void_was_only_proposed_for():
    """Issue #26: the host (seat 0) and the two bots it runs (seats 2, 3) quit at the host's
    turn; the joiner (seat 1) moves to void the round, which cannot carry without them. They
    resume a minute later and the host takes its time: the bots do not back the void about
    a seat that came back choosing its move, the host is not held back by it, and its move
    declines the motion; the round is played to its end, never voided."""
    release_at = {"t": float("inf")}

    def thinking(node, action):
        if node.seat == 0 and not action["kind"].startswith("deal") and t.now < release_at["t"]:
            return None  # the host's player has not chosen yet
        return action

    t = PrivateTable(zsy_rules(4), 1)
    install(t, thinking)
    joiner = t.nodes[1]
    t.run(until=lambda: joiner.game.stage == "play" and joiner.game.actors() == (0,))
    for seat in (0, 2, 3):
        t.crash(seat)
    t.run(until=lambda: False, max_time=t.now + 15.0)  # gone past the stall timeout
    events = joiner.replica.move("void", 0, t.now)  # the joiner types void
    assert not [e for e in events if type(e).__name__ == "Rejected"], events
    t.handle(joiner, events)
    t.run(until=lambda: False, max_time=t.now + 45.0)
    back = t.now
    release_at["t"] = back + 30.0  # three times the stall timeout to choose a move
    for seat in (0, 2, 3):
        t.restart(seat).act_hook = thinking
    t.run(until=lambda: False, max_time=back + 25.0)
    for node in t.nodes.values():
        assert node.game.voids == [] and node.game.stage == "play", node.seat
    # the bots wait on the host's move; told why when one asks to vote now
    said = t.nodes[2].replica.move("void", 0, t.now)
    assert "came back while the table waited on it" in said[0].reason, said
    t.run(max_time=back + 120.0)
    assert_clean_finish(t)
    for node in t.nodes.values():
        outcomes = [e["outcome"] for e in node.replica.ledger.motions.log if e["seat"] == 0]
        assert outcomes == ["declined"], (node.seat, node.replica.ledger.motions.log)
