"""Chat gaps left by issue #15 (session 7): an over-long signed chat frame, the order of
the lines said after the match, and mutes kept across a resume (docs/chat.md).

A modified peer could sign a chat body up to the frame cap (64 KiB): no reader ever
showed it, but every seat kept it in its record. The envelope now refuses a chat body
over ``MAX_CHAT_BODY`` bytes, named as its author's (the signature proves it is
theirs), while the longest line an honest client can send still passes.
"""

from __future__ import annotations

import asyncio
import base64
import errno
import json
import os
import stat
from pathlib import Path

import pytest
from proto_support import TABLE, Mesh, identity

from zsy_lan.engine.ruleset import build_rules
from zsy_lan.protocol import open_frame, seal, verify_transcript
from zsy_lan.protocol.canonical import canonical, sha256_hex
from zsy_lan.protocol.chat import MAX_TEXT, body_for
from zsy_lan.protocol.clock_notes import clock_body
from zsy_lan.protocol.envelope import MAGIC, MAX_CHAT_BODY, Envelope, FrameError
from zsy_lan.protocol.lobby import Roster, Seat
from zsy_lan.record.replay import replay_file
from zsy_lan.record.store import TableStore
from zsy_lan.table.chat_desk import MUTES_FILE
from zsy_lan.table.local_table import make_local_table
from zsy_lan.table.peer import TablePeer
from zsy_lan.table.session import Notice

pytestmark = [pytest.mark.timeout(120)]


def run(coro):
    return asyncio.new_event_loop().run_until_complete(coro)

ROSTER = {s: identity(s).public_key for s in range(3)}
HEX = "ab" * 32


def signed(seat: int, body: object, *, seq: int = 7, prev: str = HEX, table: str = TABLE) -> bytes:
    """A chat frame as a modified client signs it: no check at all before the signature."""
    payload = {"table": table, "seq": seq, "prev": prev, "state": HEX, "type": "chat",
               "body": body}
    head = MAGIC + bytes([seat]) + canonical(payload)
    return head + identity(seat).sign(head)


# --- the envelope -------------------------------------------------------------------


@pytest.mark.parametrize("size", [MAX_CHAT_BODY + 1, 10_000, 60_000])
def test_an_over_long_chat_body_is_refused_and_named_as_its_authors(size):
    """Before: any object up to the frame cap was accepted (and kept in every record)."""
    frame = signed(1, {"text": "x" * (size - len('{"text":""}'))})
    assert len(canonical({"text": "x" * (size - 11)})) == size
    with pytest.raises(FrameError) as err:
        open_frame(frame, ROSTER, TABLE)
    assert err.value.sender == 1  # signed: it is seat 1's own misbehaviour, nobody else's
    assert err.value.reason.startswith("malformed chat from seat 1")
    assert f"{size} bytes" in err.value.reason and str(MAX_CHAT_BODY) in err.value.reason
    # an honest client refuses to sign it in the first place (seal checks what open_frame does)
    with pytest.raises(ValueError, match="over the limit"):
        seal(identity(1), table=TABLE, seat=1, seq=7, prev=HEX, state=HEX, type="chat",
             body={"text": "x" * size})
    # any shape counts, not only text: padding in another key is refused the same way
    with pytest.raises(FrameError, match="malformed chat from seat 2"):
        open_frame(signed(2, {"phrase": "gg", "pad": ["y" * 100] * 40}), ROSTER, TABLE)


@pytest.mark.parametrize(
    "typed",
    [
        "\U0001d11e" * MAX_TEXT,  # 200 characters of 4-byte UTF-8: the most bytes
        '"' * MAX_TEXT,  # escaped in JSON: 2 bytes each
        "\\" * MAX_TEXT,
        "\u4e2d" * MAX_TEXT,
        "x" * MAX_TEXT,
    ],
)
def test_the_longest_honest_line_passes_with_every_field_at_its_largest(typed):
    body = body_for(typed)
    assert len(body["text"]) == MAX_TEXT
    assert len(canonical(body)) <= 811 < MAX_CHAT_BODY
    # every other field as large as an honest seat makes it: a long table id, a late seq
    table = "t" * 64
    frame = seal(identity(2), table=table, seat=2, seq=10**9, prev=HEX, state=HEX,
                 type="chat", body=body)
    env = open_frame(frame, ROSTER, table)
    assert env.body == body


def test_the_longest_honest_line_reaches_every_seat_through_the_replicas():
    mesh = Mesh(3, seed=3, max_delay=0.01, per_round=40)
    while mesh.now < 0.5:
        mesh.step()
    body = body_for("\U0001d11e" * MAX_TEXT)
    node = mesh.nodes[2]
    events = node.replica.chat(body, mesh.now)
    assert not [e for e in events if type(e).__name__ == "Rejected"], events
    mesh.handle(node, events)
    for _ in range(20):
        mesh.step()
    for s in (0, 1):
        feed = mesh.nodes[s].replica.ledger.feeds[2]
        assert any(env.type == "chat" and env.body == body for env in feed)
        assert not mesh.nodes[s].rejected


def test_notes_and_phrases_pass():
    for body in ({"phrase": "well-played"}, clock_body("timeout"), clock_body("back")):
        frame = seal(identity(0), table=TABLE, seat=0, seq=1, prev="", state=HEX,
                     type="chat", body=body)
        assert open_frame(frame, ROSTER, TABLE).body == body


# --- what the table does then ----------------------------------------------------------


def _slip_in(mesh: Mesh, seat: int, body: dict) -> bytes:
    """The modified ``seat`` files an over-long chat in its own feed and sends it to all."""
    r = mesh.nodes[seat].replica
    frame = signed(seat, body, seq=r.next_seq(), prev=r.ledger.last_digest(seat) or "")
    payload = json.loads(frame[len(MAGIC) + 1 : -64])
    env = Envelope(TABLE, seat, payload["seq"], payload["prev"], payload["state"], "chat",
                   body, frame, sha256_hex(frame[:-64]))
    mesh.handle(mesh.nodes[seat], r._file(env, mesh.now, relay=False))  # its own client takes it
    mesh.post(seat, None, frame, reliable=True)
    return frame


def test_the_authors_feed_stops_at_the_refused_frame_and_the_table_waits_on_it():
    """The refused frame leaves a gap in its author's feed at every other seat: nothing the
    author signs after it can be filed, so the table waits on that seat as on any seat
    that stopped answering (``Stalled`` names it; docs/chat.md, "Limits"). Nobody halts,
    nobody else is named, and no record keeps the frame."""
    mesh = Mesh(3, seed=5, max_delay=0.01, per_round=40)
    while mesh.now < 0.6:  # the deal is done and play is under way
        mesh.step()
    bad_seq = mesh.nodes[1].replica.next_seq()
    frame = _slip_in(mesh, 1, {"text": "z" * 20_000})
    mesh.run(limit=mesh.now + 20)
    others = [mesh.nodes[0], mesh.nodes[2]]
    for node in others:
        r = node.replica
        assert not node.cheats and r.halted is None
        named = {e.sender for e in node.rejected if "chat" in e.reason}
        assert named == {1}, node.rejected  # the author, and only the author
        assert all("over the limit" in e.reason for e in node.rejected if e.sender == 1)
        # its feed here ends just before the refused frame; its later messages wait
        assert r.ledger.next_seq(1) == bad_seq
        assert not any(base64.b64encode(frame).decode() in line for line in node.lines)
        # the table waits on seat 1 and says so (once per stall timeout)
        assert any(s.waiting_on == 1 for s in node.stalled), node.stalled
        assert not r.game.finished()
    # the author's own (modified) replica went on, alone
    author = mesh.nodes[1]
    assert author.replica.ledger.next_seq(1) > bad_seq + 1
    # its record holds the frame (an aside before its next move): that record names it
    where = next(n for n, line in enumerate(author.lines, 1)
                 if base64.b64encode(frame).decode() in line)
    verdict = verify_transcript(author.lines, mesh.roster, mesh.new_game)
    assert not verdict.ok and verdict.bad_line == where and verdict.culprit == 1
    assert "malformed chat from seat 1" in verdict.reason
    assert verify_transcript(mesh.nodes[0].lines, mesh.roster, mesh.new_game).ok


def test_at_a_table_with_void_the_others_can_void_the_round_it_stalls():
    """The documented answer at a private-deal table (motions ``void``): once the table has
    waited the stall timeout on the author, the others vote the round void; the next
    deal waits on the author's commitment, which is stuck behind the same gap."""
    mesh = Mesh(3, seed=9, max_delay=0.01, voidable=True, motions=("void",), rounds=3)
    mesh.asleep.add(1)  # seat 1's bot holds its move until the frame is out
    mesh.wait_on(1)
    bad_seq = mesh.nodes[1].replica.next_seq()
    _slip_in(mesh, 1, {"text": "z" * 5_000})
    mesh.asleep.discard(1)
    for _ in range(20):
        mesh.step()  # seat 1 moves (after the refused frame): nobody can file the move
    assert all(mesh.nodes[s].replica.ledger.next_seq(1) == bad_seq for s in (0, 2))
    assert mesh.nodes[1].replica.ledger.next_seq(1) == bad_seq + 2
    end = mesh.now + 30
    while any(mesh.nodes[s].replica.motion_wait("void", 1, mesh.now) > 0 for s in (0, 2)):
        assert mesh.now < end, "the others never judged seat 1 stalled"
        mesh.step()
    assert not [e for e in mesh.move(0, "void", 1) if type(e).__name__ == "Rejected"]
    for _ in range(40):
        mesh.step()  # seat 2 joins by itself (its own clock passed too)
    for s in (0, 2):
        node = mesh.nodes[s]
        assert not node.cheats and node.replica.halted is None
        assert [v[1] for v in node.replica.game.voids] == [1], "the stalled round stands"
        assert node.replica.awaited() == [1]  # the next deal waits on seat 1 again


# --- the lines said after the match -----------------------------------------------------


def _tail_start(lines: list[str]) -> int:
    """Index of the first line after the record's last chain line (the asides at its end)."""
    return max(i for i, line in enumerate(lines) if i > 0 and '"aside"' not in line) + 1


def test_two_seats_replays_tell_the_lines_said_after_the_match_in_one_order(tmp_path: Path):
    """Chat said after its author's last move reaches each seat's record in that seat's
    arrival order, so the records' tails differ; the heads (the hash chain) do not, and
    ``zsy replay`` tells those lines in one order on every seat: by the position their
    signed state gives, then seat by seat, each seat's in the order it said them.
    Before: each replay told them in its own file's order."""
    rules = build_rules(4)
    record = tmp_path / "seat0.jsonl"

    async def go() -> None:
        table = make_local_table(rules, 1, 0, "easy", record, seed="tail", bot_chat=False)
        table.start()
        await asyncio.wait_for(table.run_bots_only(), 60)
        assert table.game.finished()
        for seat, body in ((3, {"text": "gg all"}), (1, {"phrase": "gg"}),
                           (3, {"text": "again?"}), (2, {"phrase": "thanks"})):
            table._pump([(seat, table.replicas[seat].chat(body, 0.0))])
        await table.chat("bye now")
        await table.close()

    run(go())
    lines = record.read_text().splitlines()
    tail = _tail_start(lines)
    assert len(lines) - tail == 5, "the lines said after the match are not at the record's end"
    # another seat got the same lines in another order: seat 1's gg first, ours in between
    other = lines[:tail] + [lines[tail + 1], lines[-1], lines[tail + 3], lines[tail],
                            lines[tail + 2]]
    record_b = tmp_path / "seat2.jsonl"
    record_b.write_text("\n".join(other) + "\n")
    a, b = replay_file(record), replay_file(record_b)
    assert a.ok and b.ok, (a.verdict(), b.verdict())
    assert a.head == b.head  # the chain is the same: history counts the match once
    said_a = [line for line in a.narration if "» " in line]
    assert said_a == [line for line in b.narration if "» " in line]
    assert a.narration == b.narration
    # seat by seat after the end, each seat's lines in the order it said them
    assert [line.split("» ", 1)[1] for line in said_a[-5:]] == [
        "seat 0 (you): bye now", "seat 1 (easy-1): Good game!", "seat 2 (easy-2): Thanks!",
        "seat 3 (easy-3): gg all", "seat 3 (easy-3): again?",
    ]


# --- mutes kept across a resume ---------------------------------------------------------


class _NoMesh:
    """What a TablePeer needs of a mesh before it starts: nothing is sent here."""

    def connect_peer(self, *_a) -> None:
        pass

    def linked(self, *_a: object) -> bool:
        return False  # no lobby link: start() connects every seat

    def set_handler(self, _h) -> None:
        pass


def _seat(folder: Path, seat: int = 0) -> TablePeer:
    """Seat ``seat`` of one fixed 3-seat table, its files in ``folder`` (a new process each
    call: what ``zsy join`` builds when it resumes a seat from its table folder)."""
    ids = [identity(s, "-mutes") for s in range(3)]
    seats = [Seat(s, ids[s].public_key, ids[s].curve_public, f"tcp://127.0.0.1:{9300 + s}",
                  ("alice", "bob", "carol")[s]) for s in range(3)]
    roster = Roster("t-mutes", "mutes", 2, build_rules(3, [], {}).config, seats)
    return TablePeer(ids[seat], roster, seat, _NoMesh(), TableStore(folder))  # type: ignore[arg-type]


def _notices(peer: TablePeer) -> list[Notice]:
    out = []
    while not peer.notices.empty():
        out.append(peer.notices.get_nowait())
    return out


def test_mutes_survive_a_resume(tmp_path: Path):
    """Before: a resumed seat heard everybody again (mutes lived in memory only)."""
    first = _seat(tmp_path / "seat0")
    assert "bob's chat is hidden" in first.mute("bob")
    assert "carol's chat is hidden" in first.mute("2")
    saved = tmp_path / "seat0" / MUTES_FILE
    assert json.loads(saved.read_text()) == {"muted": [1, 2]}
    assert stat.S_IMODE(saved.stat().st_mode) == 0o600  # the table folder's files are private
    first.unmute("carol")
    again = _seat(tmp_path / "seat0")
    assert again.chat_room.muted == {1}
    told = [n.text for n in _notices(again)]
    assert told == ["Still muted here, as before you left: bob. Type unmute to hear them again."]
    assert again.chat_desk.hear(1, {"text": "psst"}, again._now()) is False  # still hidden
    assert again.chat_desk.hear(2, {"text": "hi"}, again._now()) is True
    again.unmute("")
    assert _seat(tmp_path / "seat0").chat_room.muted == set()


def test_no_mutes_file_is_no_mutes_and_says_nothing(tmp_path: Path):
    peer = _seat(tmp_path / "fresh")
    assert peer.chat_room.muted == set() and _notices(peer) == []


@pytest.mark.parametrize(
    "content",
    [
        b"{not json",
        b"\xff\xfe",
        b'{"muted": "bob"}',
        b'{"muted": [0]}',  # our own seat
        b'{"muted": [7]}',  # no such seat
        b'{"muted": [true]}',
        b"[1, 2]",
        b"",
    ],
)
def test_a_damaged_mutes_file_is_said_locally_and_ignored(tmp_path: Path, content: bytes):
    folder = tmp_path / "seat0"
    folder.mkdir()
    (folder / MUTES_FILE).write_bytes(content)
    peer = _seat(folder)  # never raises
    assert peer.chat_room.muted == set()
    told = _notices(peer)
    assert len(told) == 1 and told[0].kind == "error"
    assert MUTES_FILE in told[0].text and "nobody is muted now" in told[0].text
    assert "cheat" not in told[0].text
    # muting again replaces the damaged file
    peer.mute("bob")
    assert _seat(folder).chat_room.muted == {1}


def test_a_mutes_file_that_cannot_be_written_keeps_the_mute_and_says_so(tmp_path, monkeypatch):
    import zsy_lan.record.store as store_mod

    def full(_fd: int, _data: bytes) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    peer = _seat(tmp_path / "seat0")
    monkeypatch.setattr(store_mod, "write_all", full)
    answer = peer.mute("bob")
    assert answer.startswith("bob's chat is hidden") and "not kept if you resume" in answer
    assert peer.chat_room.muted == {1}
    assert not (tmp_path / "seat0" / MUTES_FILE).exists()
    assert not (tmp_path / "seat0" / (MUTES_FILE + ".tmp")).exists()
