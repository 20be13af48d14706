"""The transcript file and ``verify_transcript``: what ``zsy replay`` re-verifies (DESIGN.md)."""

from __future__ import annotations

import base64
import json

import pytest
from proto_support import TABLE, Mesh, identity

from zsy_lan.protocol import (
    dump_line,
    header_line,
    load_header,
    load_line,
    open_frame,
    seal,
    verify_transcript,
)


@pytest.fixture(scope="module")
def game():
    mesh = Mesh(3, seed=7)
    mesh.run()
    node = mesh.nodes[0]
    assert node.replica.game.finished()
    return mesh, node.lines


def test_dump_and_load_line_round_trip():
    assert load_line(dump_line(3, b"\x00\xffabc")) == (3, b"\x00\xffabc")
    for junk in ["", "{}", '{"frame":"!!","seat":1}', '{"frame":"AA==","seat":"1"}', "[1]"]:
        with pytest.raises(ValueError):
            load_line(junk)


def test_header_names_table_and_roster():
    roster = {0: b"\x01" * 32, 1: b"\x02" * 32}
    assert load_header(header_line("t", roster)) == ("t", roster)
    with pytest.raises(ValueError):
        load_header(dump_line(0, b"x"))


def test_a_finished_game_verifies(game):
    mesh, lines = game
    result = verify_transcript(lines, mesh.roster, mesh.new_game)
    assert result.ok and result.finished and result.bad_line is None
    assert result.head == mesh.nodes[0].replica.transcript_head()
    assert result.public_hash == mesh.nodes[0].replica.game.public_hash()
    assert result.messages == len(lines) - 1
    # The header alone is enough to check a file's own consistency.
    assert verify_transcript(lines, None, mesh.new_game).ok


def test_a_prefix_verifies_too(game):
    mesh, lines = game
    result = verify_transcript(lines[:8], mesh.roster, mesh.new_game)
    assert result.ok and not result.finished


def _tamper_frame(line: str) -> str:
    obj = json.loads(line)
    raw = bytearray(base64.b64decode(obj["frame"]))
    raw[20] ^= 1
    obj["frame"] = base64.b64encode(bytes(raw)).decode()
    return json.dumps(obj, sort_keys=True, separators=(",", ":"))


def test_tampered_frame_is_reported_at_its_line(game):
    mesh, lines = game
    bad = list(lines)
    bad[9] = _tamper_frame(bad[9])
    result = verify_transcript(bad, mesh.roster, mesh.new_game)
    assert not result.ok and result.bad_line == 10 and "bad signature" in result.reason


def test_reordered_lines_are_reported(game):
    mesh, lines = game
    bad = list(lines)
    i = len(lines) - 3
    bad[i], bad[i + 1] = bad[i + 1], bad[i]
    result = verify_transcript(bad, mesh.roster, mesh.new_game)
    assert not result.ok and result.bad_line in (i + 1, i + 2)


def test_missing_and_repeated_lines_are_reported(game):
    mesh, lines = game
    dropped = lines[:5] + lines[6:]
    result = verify_transcript(dropped, mesh.roster, mesh.new_game)
    assert not result.ok and result.bad_line is not None and result.bad_line >= 6
    repeated = lines[:6] + [lines[5]] + lines[6:]
    result = verify_transcript(repeated, mesh.roster, mesh.new_game)
    assert not result.ok and result.bad_line == 7 and "twice" in result.reason


def test_wrong_roster_or_no_header_fails_at_line_one(game):
    mesh, lines = game
    other = dict(mesh.roster)
    other[0] = identity(0, "someone else").public_key
    assert verify_transcript(lines, other, mesh.new_game).bad_line == 1
    assert verify_transcript(lines[1:], mesh.roster, mesh.new_game).bad_line == 1
    assert verify_transcript([], mesh.roster, mesh.new_game).bad_line == 1


def test_a_validly_signed_illegal_action_is_found_and_its_author_named(game):
    """A peer rewriting history with its own key still cannot make an illegal play pass."""
    mesh, lines = game
    # Replay to just before the last line, then sign an illegal replacement for it.
    last_seat, last_frame = load_line(lines[-1])
    env = open_frame(last_frame, mesh.roster, TABLE)
    assert env.type == "action"
    forged = seal(
        identity(last_seat),
        table=TABLE,
        seat=last_seat,
        seq=env.seq,
        prev=env.prev,
        state=env.state,
        type="action",
        body={"n": -1},
    )
    bad = lines[:-1] + [dump_line(last_seat, forged)]
    result = verify_transcript(bad, mesh.roster, mesh.new_game)
    assert not result.ok and result.bad_line == len(lines)
    assert result.culprit == last_seat and "F4" in result.reason


def test_garbage_line_is_reported(game):
    mesh, lines = game
    bad = lines[:3] + ["not json"] + lines[3:]
    result = verify_transcript(bad, mesh.roster, mesh.new_game)
    assert not result.ok and result.bad_line == 4
