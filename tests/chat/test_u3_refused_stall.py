"""A seat's refused message is told to the table when it stalls it (session 8, U3 gap 2).

A modified client's over-long chat (or any malformed frame its signature proves) is a
gap in its author's feed at every other seat, so the table comes to wait on that seat
(tests/chat/test_chat_gaps.py proves that at the replicas). Before, the players read
only "waiting for seat 1 (bob) to move" and the reason sat in the log. Now the stall on
that seat is told once per episode as what it is: that seat's message was refused, it
is no cheat, and what the table can do (void at a private-deal table, a bot hold once
the seat leaves at an open one). Nobody else is named; a refused control frame, an
unproven sender or this seat's own refused request is no such stall.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from proto_support import identity

from zsy_lan.engine.ruleset import build_rules
from zsy_lan.protocol.canonical import canonical
from zsy_lan.protocol.envelope import MAGIC
from zsy_lan.protocol.events import Applied, Rejected, Stalled
from zsy_lan.protocol.lobby import Roster, Seat
from zsy_lan.record.store import TableStore
from zsy_lan.table.narration import refused_what
from zsy_lan.table.peer import TablePeer
from zsy_lan.table.session import Notice

pytestmark = [pytest.mark.timeout(60)]

HEX = "ab" * 32
TABLE = "t-u3-refused"
NICKS = ("alice", "b\x1b[2Jo\u202eb", "carol")  # seat 1's nick carries an escape and a bidi mark


class _NoMesh:
    """What a TablePeer needs of a mesh before it starts: nothing is sent here."""

    def connect_peer(self, *_a) -> None:
        pass

    def linked(self, *_a: object) -> bool:
        return False  # no lobby link: start() connects every seat

    def set_handler(self, _h) -> None:
        pass


def _peer(folder: Path, deal: str = "open") -> TablePeer:
    """Seat 0 of a fixed 3-seat table (``deal``: open or private)."""
    ids = [identity(s, "-u3") for s in range(3)]
    seats = [Seat(s, ids[s].public_key, ids[s].curve_public, f"tcp://127.0.0.1:{9400 + s}",
                  NICKS[s]) for s in range(3)]
    roster = Roster(TABLE, "u3", 2, build_rules(3, [], {}).config, seats, deal=deal)
    return TablePeer(ids[0], roster, 0, _NoMesh(), TableStore(folder))  # type: ignore[arg-type]


def _chat_frame(seat: int, body: object, seq: int = 1) -> bytes:
    """A chat frame as a modified client signs it: no check at all before the signature."""
    payload = {"table": TABLE, "seq": seq, "prev": "" if seq == 1 else HEX, "state": HEX,
               "type": "chat", "body": body}
    head = MAGIC + bytes([seat]) + canonical(payload)
    return head + identity(seat, "-u3").sign(head)


def _told(peer: TablePeer) -> list[str]:
    out: list[Notice] = []
    while not peer.notices.empty():
        out.append(peer.notices.get_nowait())
    return [n.text for n in out]


def test_an_over_long_chat_that_stalls_the_table_is_told_once_naming_its_author(tmp_path):
    peer = _peer(tmp_path / "seat0")
    peer._on_frame(1, _chat_frame(1, {"text": "z" * 20_000}))  # refused by open_frame
    peer._on_frame(1, _chat_frame(1, {"text": "z" * 20_000}))  # resent: refused again
    assert _told(peer) == []  # nothing waits on it yet: the log says it, the screen not
    peer._carry_out([Stalled(1, "action")])
    told = _told(peer)
    assert len(told) == 1, told
    text = told[0]
    assert "seat 1 (" in text and "refuses" in text and "chat line longer" in text
    assert "no cheat" in text and "seat 0" not in text and "seat 2" not in text
    assert "\x1b" not in text and "\u202e" not in text  # the nick is cleaned
    # open deal: no void; a bot holds the seat only once it leaves
    assert "void" not in text and "a bot holds it" in text
    # the same wait again (another position): said as any wait, not a second time
    peer.narration._stall_told.clear()
    peer._carry_out([Stalled(1, "action")])
    again = _told(peer)
    assert len(again) == 1 and "refuses" not in again[0] and "waiting for" in again[0]


def test_at_a_private_deal_table_the_void_motion_is_said_when_it_can_be_voted(tmp_path):
    peer = _peer(tmp_path / "seat0", deal="private")
    peer.replica.can_void = lambda: True  # type: ignore[method-assign]  # a round under way
    peer._on_frame(2, _chat_frame(2, {"text": "y" * 5_000}))
    peer._carry_out([Stalled(2, "action")])
    (text,) = _told(peer)
    assert "seat 2 (carol)" in text and "refuses" in text
    assert "Type void" in text and "earlier rounds stand" in text


def test_a_wait_on_another_seat_is_not_blamed_on_the_refused_one(tmp_path):
    peer = _peer(tmp_path / "seat0")
    peer._on_frame(1, _chat_frame(1, {"text": "z" * 20_000}))
    peer._carry_out([Stalled(2, "action")])
    (text,) = _told(peer)
    assert "refuses" not in text and "seat 2 (carol)" in text


@pytest.mark.parametrize(
    "event",
    [
        Rejected(None, "bad signature on a frame claiming seat 1"),  # unproven: maybe forged
        Rejected(0, "illegal: ZSY-4.1"),  # this seat's own request
        Rejected(1, "malformed have from seat 1: bad summary"),  # a control frame: no gap
        Rejected(1, "wrong table from seat 1: 'old' is not 't'"),  # another table's frame
    ],
)
def test_refusals_that_leave_no_gap_keep_the_usual_wait(tmp_path, event):
    peer = _peer(tmp_path / "seat0")
    peer._carry_out([event])
    peer._carry_out([Stalled(1, "action")])
    (text,) = _told(peer)
    assert "refuses" not in text and "waiting for" in text


def test_an_unknown_kind_is_told_only_when_later_messages_wait_behind_it(tmp_path):
    """A type this version does not know may be a control frame of a newer version: the
    stall is put down to it only when that seat's later messages are held behind the gap."""
    peer = _peer(tmp_path / "seat0")
    peer._carry_out([Rejected(1, "unknown message type 'ping2' from seat 1")])
    peer._carry_out([Stalled(1, "action")])
    (text,) = _told(peer)
    assert "refuses" not in text
    peer.narration._stall_told.clear()
    peer.replica.sync.buffer[1][2] = object()  # seq 2 of seat 1 held: seq 1 is the gap
    peer._carry_out([Stalled(1, "action")])
    (text,) = _told(peer)
    assert "a kind of message this version does not know" in text


def test_a_message_of_its_own_applied_ends_the_episode(tmp_path):
    peer = _peer(tmp_path / "seat0")
    peer._on_frame(1, _chat_frame(1, {"text": "z" * 20_000}))
    peer.narration.play(Applied(1, 1, {"kind": "nonsense"}))  # its own message got through
    peer._carry_out([Stalled(1, "action")])
    (text,) = _told(peer)
    assert "refuses" not in text


def test_what_is_shown_is_a_fixed_phrase_never_the_network_reason():
    sly = "unknown message type '\x1b]0;pwned\x07' from seat 1"
    assert refused_what(sly) == "a kind of message this version does not know"
    assert refused_what("malformed chat from seat 1: a chat body of 9000 bytes, over the "
                        "limit of 2048") == "a chat line longer than this version accepts"
    assert refused_what("malformed payload from seat 1: junk") == (
        "a message this version cannot read"
    )
    assert refused_what("malformed want from seat 1: x") is None
