"""A record cut short is unfinished, never tampered (DESIGN.md "Blame needs proof").

A crash, a full disk or an interrupted copy can end a record anywhere: between
two lines, inside a line, and inside a commit/reveal (or any) step whose batch
was being written. Every such prefix of a genuine record verifies as far as it
goes and reads as an unfinished match that ends at its last line. A line missing
in the middle is DAMAGED (no signature proves anything against a seat); only a
signature or a rule proven broken by signed data is TAMPERED, as before.
"""

from __future__ import annotations

import base64
import json
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from local_support import play_out_now

from zsy_lan.engine.ruleset import build_rules
from zsy_lan.protocol import verify_transcript
from zsy_lan.protocol.transcript import (
    DAMAGED,
    TAMPERED,
    TranscriptChecker,
    load_entry,
    load_header,
)
from zsy_lan.record.history import BAD, UNFINISHED, RecordEntry, verify_record
from zsy_lan.record.replay import check_record, replay_file
from zsy_lan.table.local_table import make_local_table
from zsy_lan.text.i18n import current_language, set_language

HERE = Path(__file__).parent

# one xdist worker builds the records (about 2.5 s) once for the whole module, not each
# worker that gets one of its tests
pytestmark = pytest.mark.xdist_group("cut_records")
sys.path.insert(0, str(HERE.parent / "protocol"))
sys.path.insert(0, str(HERE.parent / "private"))


@dataclass
class Rec:
    """A real record's bytes (header first, one line per message, each ending in a newline)."""

    name: str
    data: bytes

    @property
    def lines(self) -> list[bytes]:
        return self.data.splitlines(keepends=True)


def _local(path: Path, rules, rounds: int, seed: str, talk: bool) -> Rec:
    table = make_local_table(rules, rounds, 0, "easy", path, seed=seed, bot_chat=talk)
    # with talk, a chat aside at the start; the bots' phrases come later
    play_out_now(table, (lambda t: t.chat(":hello")) if talk else None)
    return Rec(path.name, path.read_bytes())


def _private(path: Path) -> Rec:
    from private_support import PrivateTable

    from zsy_lan.protocol.lobby import Roster, Seat
    from zsy_lan.table.peer import transcript_header

    rules, rounds = build_rules(4), 2
    t = PrivateTable(rules, rounds)
    t.run(max_time=600)
    assert t.done()
    roster = Roster(t.table, "priv", rounds, rules.config,
                    [Seat(s, k, b"", "", f"p{s}") for s, k in t.roster.items()], deal="private")
    path.write_text("\n".join([transcript_header(roster), *t.nodes[0].transcript]) + "\n")
    return Rec(path.name, path.read_bytes())


@pytest.fixture(scope="module")
def records(tmp_path_factory) -> dict[str, Rec]:
    """Open deal with tribute and chat asides, Dou Dizhu (bids, doubling, kitty), private deal."""
    d = tmp_path_factory.mktemp("cut")
    recs = {
        "open": _local(d / "open.jsonl", build_rules(4), 2, "talk", True),
        "ddz": _local(d / "ddz.jsonl", build_rules(3, ["doudizhu"]), 3, "cut", False),
        "private": _private(d / "private.jsonl"),
    }
    assert b'"aside":true' in recs["open"].data  # chat asides are in it
    told = " ".join(replay_file(d / "open.jsonl").narration).lower()
    assert "tribute" in told  # round 2 begins with a tribute
    return recs


def _prefix(rec: Rec, n: int) -> bytes:
    return b"".join(rec.lines[:n])


def _chain_count(data: bytes) -> int:
    lines = data.splitlines()[1:]
    return sum(1 for line in lines if line.endswith(b"}") and b'"aside"' not in line)


def _assert_unfinished(data: bytes, ends_at: int, whole: bytes):
    """Verified as far as it goes; unfinished unless every move is in (chat may follow the gg).

    Returns the verification's result (each prefix is verified once: it is what costs)."""
    checked = check_record(data)
    r = checked.result
    assert r.ok, (ends_at, r.kind, r.bad_line, r.reason)
    assert r.finished == (_chain_count(data) == _chain_count(whole)), ends_at
    assert r.ends_at == ends_at and r.kind == ""
    return r


def _step_kind(line: bytes) -> str:
    """A record line's message type, or the action's kind (``play``, ``deal.shuffle``...)."""
    _, frame, _ = load_entry(line.decode())
    msg = json.loads(frame[5:-64])  # magic and version before the body, the signature after
    return str(msg["body"].get("kind", "")) if msg["type"] == "action" else str(msg["type"])


def _every_cut(rec: Rec):
    """(n, verdict) for every line boundary n: the record as if it ended after line n.

    Verifying each prefix from the start is quadratic (the private deal's proofs are what
    cost), so the lines go through one :class:`TranscriptChecker`, built with the game
    ``check_record`` builds, and its :meth:`~TranscriptChecker.end` (the verdict on the
    lines so far, as a spectator following a growing record gets it) is read after each.
    :func:`verify_transcript` is that same checker fed a whole prefix and then ended, so
    this is each prefix's verdict; :func:`_from_scratch_cuts` holds ``check_record`` to it.
    """
    whole = check_record(rec.data)
    lines = [line.decode().rstrip("\n") for line in rec.lines]
    table, roster = load_header(lines[0])
    checker = TranscriptChecker(table, roster, whole.factory())
    for n in range(1, len(lines)):
        if n > 1:
            assert checker.add(lines[n - 1]) is None, n
        yield n, checker.end()


def _from_scratch_cuts(rec: Rec) -> set[int]:
    """The boundaries ``check_record`` verifies from scratch as well: the first and the last
    line of each kind (header, commit, reveal, each ``deal.*`` step, tribute, play, pass...),
    so every step's edge is cut in both deals and at the round's end, and every third line
    boundary among the first 30 (the steps inside the first deal)."""
    kinds = ["header", *(_step_kind(line) for line in rec.lines[1:])]
    first: dict[str, int] = {}
    last: dict[str, int] = {}
    for n in range(1, len(rec.lines)):
        first.setdefault(kinds[n - 1], n)
        last[kinds[n - 1]] = n
    return {*first.values(), *last.values(), *range(1, min(30, len(rec.lines)), 3)}


def _assert_every_cut_unfinished(rec: Rec) -> int:
    """Every line boundary of ``rec`` verifies as an unfinished record ending there.

    Returns how many of the cuts fell inside a commit/reveal (or any) step."""
    scratch = _from_scratch_cuts(rec)
    pending = 0
    for n, r in _every_cut(rec):
        assert r.ok, (n, r.kind, r.bad_line, r.reason)
        assert r.finished == (_chain_count(_prefix(rec, n)) == _chain_count(rec.data)), n
        assert r.ends_at == n and r.kind == "", n
        pending += r.pending > 0
        if n in scratch:
            got = _assert_unfinished(_prefix(rec, n), n, rec.data)
            assert (got.head, got.pending, got.messages) == (r.head, r.pending, r.messages), n
    assert len(scratch) >= 10
    return pending


@pytest.mark.slow  # soak: every line boundary of a whole record
@pytest.mark.parametrize("name", ["open", "ddz"])
def test_every_line_boundary_prefix_verifies_as_unfinished(records, name):
    rec = records[name]
    pending = _assert_every_cut_unfinished(rec)
    # the cuts inside a commit/reveal step (messages that wait for the rest of their batch):
    # the ones zsy replay called "TAMPERED ... never becomes applicable" before
    assert pending >= 4
    assert check_record(rec.data).result.finished


@pytest.mark.slow  # soak: every line boundary of a whole record
def test_every_line_boundary_prefix_of_a_private_deal_verifies_as_unfinished(records):
    """Every boundary: inside and at the edge of each commit, reveal and ``deal.*`` step of
    both deals, the tribute, every play and pass, and the round's end."""
    rec = records["private"]
    kinds = {_step_kind(line) for line in rec.lines[1:]}
    assert {"deal.shuffle", "deal.reveal", "reveal", "return"} <= kinds  # 2 deals, tribute
    assert _assert_every_cut_unfinished(rec) >= 4


def _motion_meshes():
    from test_protocol_motions import _held_then_back, dropped_at_its_turn, until_judged

    held = dropped_at_its_turn(rounds=2, per_round=6)
    held.crash(2)
    until_judged(held, 2)
    held.move(0, "hold", 2)
    held.run(limit=60)
    return {
        "held": held,  # votes as asides, proxies by the holder
        "released": _held_then_back(voided_own_move=False),  # a release, the seat plays again
        "voided": _held_then_back(voided_own_move=True),  # a voided own move as an aside
    }


def test_every_prefix_of_records_with_motions_verifies_as_unfinished():
    for name, mesh in _motion_meshes().items():
        lines = mesh.nodes[0].lines
        assert any('"aside":true' in line for line in lines), name
        assert verify_transcript(lines, mesh.roster, mesh.new_game).finished, name
        pending = 0
        for n in range(1, len(lines)):
            r = verify_transcript(lines[:n], mesh.roster, mesh.new_game)
            assert r.ok and not r.finished and r.ends_at == n, (name, n, r.kind, r.reason)
            pending += r.pending > 0
        assert pending, name


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_a_cut_inside_a_line_leaves_that_line_out_and_the_rest_verifies(records, data):
    rec = records[data.draw(st.sampled_from(["open", "ddz", "private"]))]
    lines = rec.lines
    first = len(lines[0])  # the header whole (a cut inside it leaves no record at all)
    last = len(rec.data) - len(lines[-1])  # not the whole last line: that one is finished
    cut = data.draw(st.integers(first, last - 1))
    head = rec.data[:cut]
    whole = head.count(b"\n")
    rest = head[head.rfind(b"\n") + 1 :]  # what is left of the line the cut fell in
    complete = rest.endswith(b"}") and rest == rec.lines[whole].rstrip(b"\n")
    _assert_unfinished(head, whole + complete, rec.data)  # cut just before its newline: whole
    assert check_record(head).torn == (bool(rest) and not complete)


def test_zsy_replay_words_a_cut_inside_a_step_as_unfinished(records, tmp_path):
    rec = records["open"]
    n = next(n for n in range(2, len(rec.lines)) if check_record(_prefix(rec, n)).result.pending)
    path = tmp_path / "cut.jsonl"
    path.write_bytes(_prefix(rec, n) + rec.lines[n][:17])  # and a torn line after it
    report = replay_file(path)
    said = report.verdict()
    assert report.ok and report.torn and report.pending
    assert f"unfinished match: the record ends at line {n}" in said
    assert "cut short there" in said and "TAMPERED" not in said
    assert report.to_json()["ends_at"] == n


def test_a_last_line_cut_inside_a_character_is_a_torn_line_not_a_foreign_file(records):
    rec = records["open"]
    head = _prefix(rec, 9) + '{"frame":"é'.encode()[:-1]  # half of a two-byte character
    with pytest.raises(UnicodeDecodeError):
        head.decode()
    _assert_unfinished(head, 9, rec.data)
    assert check_record(head).torn


# -- damage and tampering: still named, and kept apart ------------------------------------------


def _flip(line: bytes) -> bytes:
    obj = json.loads(line)
    raw = bytearray(base64.b64decode(obj["frame"]))
    raw[20] ^= 1
    obj["frame"] = base64.b64encode(bytes(raw)).decode()
    return json.dumps(obj, sort_keys=True, separators=(",", ":")).encode() + b"\n"


def _chain_seats(rec: Rec) -> list[tuple[int, int]]:
    """(index in lines, seat) of each chain line."""
    out = []
    for i, line in enumerate(rec.lines[1:], start=1):
        seat, _frame, aside = load_entry(line.decode())
        if not aside:
            out.append((i, seat))
    return out


def test_a_flipped_byte_in_a_signed_line_is_still_tampered(records):
    rec = records["ddz"]
    bad = list(rec.lines)
    bad[30] = _flip(bad[30])
    r = check_record(b"".join(bad)).result
    assert not r.ok and r.kind == TAMPERED and r.bad_line == 31 and "bad signature" in r.reason
    # cut right after it: still the signature, not a cut
    r = check_record(b"".join(bad[:31])).result
    assert not r.ok and r.kind == TAMPERED and r.bad_line == 31


def test_swapped_lines_of_two_seats_are_out_of_place_and_name_nobody(records):
    """The order of the lines is nobody's signed word: swapped lines are DAMAGED (#25)."""
    rec = records["ddz"]
    seats = _chain_seats(rec)
    pairs = zip(seats[40:], seats[41:], strict=False)
    i = next(i for (i, s), (j, t) in pairs if s != t and j == i + 1)
    bad = list(rec.lines)
    bad[i], bad[i + 1] = bad[i + 1], bad[i]
    r = check_record(b"".join(bad)).result
    assert not r.ok and r.kind == DAMAGED and "out of order" in r.reason
    assert r.culprit is None and r.bad_line in (i + 1, i + 2)


def test_a_line_from_another_table_is_still_tampered(records):
    host, other = records["open"], records["ddz"]
    bad = host.lines[:20] + [other.lines[5]] + host.lines[20:]
    r = check_record(b"".join(bad)).result
    assert not r.ok and r.kind == TAMPERED and r.bad_line == 21


def test_a_line_missing_in_the_middle_is_damaged_not_tampered(records, tmp_path):
    """Blame needs proof: a lost line proves nothing against the seat whose line it was."""
    rec = records["open"]
    chain = [i for i, _s in _chain_seats(rec)]
    gone = chain[len(chain) // 2]
    bad = rec.lines[:gone] + rec.lines[gone + 1 :]
    r = check_record(b"".join(bad)).result
    assert not r.ok and r.kind == DAMAGED and r.culprit is None and r.bad_line > gone
    path = tmp_path / "damaged.jsonl"
    path.write_bytes(b"".join(bad))
    said = replay_file(path).verdict()
    assert said.startswith(f"DAMAGED at line {r.bad_line}: by there a line is missing")
    assert "nothing in it proves that a seat cheated" in said and "TAMPERED" not in said


def test_a_line_written_twice_is_damaged_and_names_no_seat(records):
    rec = records["ddz"]
    bad = rec.lines[:12] + [rec.lines[11]] + rec.lines[12:]
    r = check_record(b"".join(bad)).result
    assert not r.ok and r.kind == DAMAGED and r.culprit is None and r.bad_line == 13
    assert "appears twice" in r.reason


def test_a_batch_with_a_line_missing_in_its_middle_is_damaged(records):
    """A cut step ends with the first messages of its batch, in slot order; a gap is damage."""
    rec = records["open"]
    n = next(
        n for n in range(3, len(rec.lines))
        if check_record(_prefix(rec, n)).result.pending >= 2
    )
    bad = rec.lines[: n - 2] + rec.lines[n - 1 : n]  # the batch's first line gone
    r = check_record(b"".join(bad)).result
    assert not r.ok and r.kind == DAMAGED and r.culprit is None


# -- zsy history: the same verdicts, put in words when shown -----------------------------------


def test_history_counts_a_cut_record_as_unfinished(records, tmp_path):
    rec = records["private"]
    n = next(n for n in range(3, len(rec.lines)) if check_record(_prefix(rec, n)).result.pending)
    entry = verify_record(tmp_path / "r.jsonl", _prefix(rec, n) + rec.lines[n][:9])
    assert entry.status == UNFINISHED and entry.reason == ""


def test_history_stores_the_reason_structured_and_words_it_when_shown(records, tmp_path):
    rec = records["ddz"]
    bad = list(rec.lines)
    bad[30] = _flip(bad[30])
    entry = verify_record(tmp_path / "t.jsonl", b"".join(bad))
    assert entry.status == BAD and entry.kind == TAMPERED and entry.line == 31
    cached = json.dumps(entry.to_cache())
    assert "line 31" not in cached and "TAMPERED" not in cached  # no English sentence stored
    again = RecordEntry.from_cache(json.loads(cached))
    english = again.why()
    assert english.startswith("TAMPERED or invalid at line 31") and "bad signature" in english
    was = current_language()
    try:
        set_language("de")
        german = again.why()
    finally:
        set_language(was)
    assert german != english and "31" in german and "bad signature" in german

    chain = [i for i, _s in _chain_seats(rec)]
    gone = chain[len(chain) // 2]
    cut_out = b"".join(rec.lines[:gone] + rec.lines[gone + 1 :])
    damaged = verify_record(tmp_path / "d.jsonl", cut_out)
    assert damaged.status == BAD and damaged.kind == DAMAGED and damaged.culprit == -1
    assert damaged.why().startswith(f"DAMAGED at line {damaged.line}")

    foreign = verify_record(tmp_path / "f.jsonl", b"\xff\xfe not text")
    assert foreign.status == BAD and "not UTF-8" in foreign.why()


def test_a_record_cut_inside_its_header_says_so(records, tmp_path):
    rec = records["open"]
    for cut in (1, len(rec.lines[0]) // 2, len(rec.lines[0]) - 2):
        with pytest.raises(ValueError, match="ends inside its first line"):
            check_record(rec.data[:cut])
        entry = verify_record(tmp_path / "h.jsonl", rec.data[:cut])
        assert "ends inside its first line" in entry.why() and "TAMPERED" not in entry.why()
