"""Deal commitments carried by the previous deal's reveals (``next``).

Every seat's reveal of a deal carries its commitment for the next deal; when
all of them did, the next deal skips its commit stage and the deck moves as
soon as the seed is known. The next deal's audit holds each seat to that
commitment like to any other. (Deal protocol: docs/private-deal.md.)
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from private_support import (  # noqa: E402
    PrivateTable,
    assert_named,
    install,
    run_until_named,
    zsy_rules,
)

from zsy_lan.deal.messages import Commit  # noqa: E402


def deal_kinds(node) -> list[str]:
    """The deal message kinds in the node's transcript, in order."""
    return [
        str(env.body.get("kind"))
        for env in node.replica.ledger.entries
        if env.type == "action" and str(env.body.get("kind", "")).startswith("deal.")
    ]


def reveals(node) -> list[dict]:
    return [
        env.body
        for env in node.replica.ledger.entries
        if env.type == "action" and env.body.get("kind") == "deal.reveal"
    ]


def test_the_second_deal_needs_no_commit_stage():
    t = PrivateTable(zsy_rules(4), 2)
    t.run(max_time=120)
    for node in t.nodes.values():
        assert node.game.finished() and not node.cheats and node.game.voids == []
        assert all(a.ok for a in node.game.audits) and len(node.game.audits) == 2
        kinds = deal_kinds(node)
        assert kinds.count("deal.commit") == 4  # the first deal's only
        first_reveal = kinds.index("deal.reveal")
        assert "deal.commit" not in kinds[first_reveal:]
        assert all("next" in body for body in reveals(node))
    # the commitments the second deal was audited against are the ones carried by the reveals
    node = t.nodes[2]
    carried = {body["seat"]: body["next"] for body in reveals(node)[:4]}
    used = [m for m in node.game.deal.transcript if isinstance(m, Commit)]
    assert [m.sender for m in used] == [0, 1, 2, 3]
    assert all(m.to_body() == carried[m.sender] for m in used)
    assert len(t.heads()) == 1


def test_a_reveal_without_a_next_commitment_means_a_commit_stage():
    def drop_next(node, action):
        if node.seat == 1 and action.get("kind") == "deal.reveal":
            return {k: v for k, v in action.items() if k != "next"}
        return action

    t = PrivateTable(zsy_rules(4), 2)
    install(t, drop_next)
    t.run(max_time=120)
    for node in t.nodes.values():
        assert node.game.finished() and not node.cheats and node.game.voids == []
        assert deal_kinds(node).count("deal.commit") == 8  # both deals commit


def test_a_next_commitment_the_seat_does_not_keep_is_named_in_the_next_deal():
    """Seat 3 commits (in its reveal) to a key it will not use: as soon as it publishes
    that key in deal 2, every peer sees it does not match and names seat 3."""

    def lie(node, action):
        if node.seat != 3:
            return action
        if action.get("kind") == "deal.reveal" and "next" in action:
            nxt = dict(action["next"])
            nxt["key_hashes"] = ["00" * 32] + list(nxt["key_hashes"][1:])  # slot 0's key
            return {**action, "next": nxt}
        if action.get("kind") == "deal.keys" and node.game.deal_no == 2:
            return ("force", action)  # its own replica would refuse it: sign it anyway
        return action

    t = PrivateTable(zsy_rules(4), 2)
    install(t, lie)
    run_until_named(t, at_once=True)
    assert_named(t, 3, at_once=True)
    for node in t.nodes.values():
        if node.seat != 3:
            assert len(node.game.match.results) == 1  # the first round stands
            assert "slot 0 does not match its commitment" in node.replica.halted.reason


def test_a_malformed_next_commitment_is_refused_naming_the_sender():
    def short(node, action):
        if node.seat == 0 and action.get("kind") == "deal.reveal" and "next" in action:
            nxt = dict(action["next"])
            nxt["key_hashes"] = nxt["key_hashes"][:10]
            return ("force", {**action, "next": nxt})
        return action

    t = PrivateTable(zsy_rules(4), 2)
    install(t, short)
    run_until_named(t, at_once=True)
    assert_named(t, 0, at_once=True)
    assert all("key hashes" in n.replica.halted.reason for n in t.nodes.values() if n.seat)
