"""What a seated peer tells its player: waits told once, tribute to its real receiver.

An idle table must not fill the screen: the replica reports a stalled seat every
minute, the peer tells each wait once (with since when) and never reminds the
player of their own turn (the table's prompt shows it). Tribute (ZSY-7) is told
with the seat that really receives the cards.
"""

from __future__ import annotations

import asyncio
import hashlib
from dataclasses import replace
from pathlib import Path

import pytest

from zsy_lan.engine.ruleset import build_rules
from zsy_lan.engine.state import Action, evolve
from zsy_lan.protocol import Applied, Identity, Stalled
from zsy_lan.protocol.lobby import Roster, Seat
from zsy_lan.record.store import TableStore
from zsy_lan.table.peer import TablePeer

pytestmark = [pytest.mark.timeout(60)]


class _NoMesh:
    def send_now(self, seat: int, frame: bytes) -> bool:
        return False


def _peer(tmp_path: Path, players: int = 4, seat: int = 0, variants=()) -> TablePeer:
    rules = build_rules(players, list(variants), {})
    ids = [Identity.from_seed(hashlib.sha256(b"narr-%d" % s).digest()) for s in range(players)]
    seats = [
        Seat(s, ids[s].public_key, ids[s].curve_public, f"tcp://127.0.0.1:{9100 + s}", f"p{s}")
        for s in range(players)
    ]
    roster = Roster("t-narr", "narr", 3, rules.config, seats)
    return TablePeer(ids[seat], roster, seat, _NoMesh(), TableStore(tmp_path / f"s{seat}"))  # type: ignore[arg-type]


def _drain(q: asyncio.Queue) -> list[str]:  # type: ignore[type-arg]
    out = []
    while not q.empty():
        out.append(q.get_nowait().text)
    return out


def test_a_wait_is_told_once_and_our_own_turn_never(tmp_path):
    peer = _peer(tmp_path)
    for _ in range(3):  # the replica repeats its stall report every minute
        peer._handle([Stalled(peer.seat, "play")])
        peer._handle([Stalled(2, "action")])
    told = _drain(peer.notices)
    assert not any("waiting for you" in t or "reminder" in t for t in told)
    waits = [t for t in told if t.startswith("waiting for seat 2 (p2)")]
    assert len(waits) == 1 and waits[0].startswith("waiting for seat 2 (p2) to move, since ")


@pytest.mark.parametrize("hidden", [False, True])
def test_a_return_to_another_seat_is_not_told_as_coming_to_us(tmp_path, hidden):
    """ZSY-7: seat 1 returns to seat 3; seat 0 reads 'to seat 3', never 'to you'.

    A face-down return seen from outside carries no cards (``hidden``): it used
    to read "returns to you" at every seat.
    """
    peer = _peer(tmp_path)
    peer.game.start_round(b"\x05" * 32)
    r = peer.game.round
    given = r.hands[1][:2]
    # the round as it is right after seat 1 returned two cards to seat 3
    peer.game.match = replace(peer.game.match, round=evolve(r, tribute_log=((1, 3, None, 2),)))
    action = Action("return", 1, (), 2, hidden=True) if hidden else Action("return", 1, given)
    peer.narration.play(Applied(1, 5, action.to_json(), None))
    text = _drain(peer.notices)[-1]
    assert "seat 1 (p1) returns 2 cards to seat 3 (p3), face down" in text
    assert "to you" not in text


def test_a_private_round_told_again_on_a_resume_says_private_deal(tmp_path):
    """A resumed private-deal seat is told its round's seeding again once its game has already
    replayed past the deal (stage ``play``): the sentence is still the private deal's, never
    "dealt (open deal)" with a hand it read from its own view (issue #23, found by hand)."""
    from zsy_lan.deal.stages import Stage
    from zsy_lan.protocol import RoundSeeded

    rules = build_rules(4, [], {})
    ids = [Identity.from_seed(hashlib.sha256(b"narr-%d" % s).digest()) for s in range(4)]
    seats = [
        Seat(s, ids[s].public_key, ids[s].curve_public, f"tcp://127.0.0.1:{9100 + s}", f"p{s}")
        for s in range(4)
    ]
    roster = Roster("t-narr", "narr", 3, rules.config, seats, deal="private")
    peer = TablePeer(ids[0], roster, 0, _NoMesh(), TableStore(tmp_path / "s0"))  # type: ignore[arg-type]
    peer.game.stage = Stage.PLAY  # as after a resume's catch-up: the deal is done
    peer.narration.dealt(RoundSeeded(0, b"\x05" * 32))
    told = _drain(peer.notices)
    assert told == ["shuffling and dealing (private deal: mental poker)"]
