"""After a halt the proof is kept and re-checked (issue #12; docs/protocol.md, "On disk").

A real equivocation (seat 1 signs two different messages for one seq) reaches
a real :class:`TablePeer`: it halts, and the proof frames are written beside
its transcript (``evidence.jsonl``) exactly as signed. ``zsy replay`` reports
them, and ``zsy replay --verify`` checks their signatures against the
record's roster and says what they prove; a forged proof frame is caught. An
illegal play (ZSY-4.1: cards the seat does not hold) is proven by replaying
the record with the kept frame.
"""

from __future__ import annotations

import base64
import json
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

sys.path.insert(0, str(Path(__file__).parent))

from test_storage import Table, identities, twin_of  # noqa: E402

from zsy_lan.cli import cli  # noqa: E402
from zsy_lan.engine.state import Action  # noqa: E402
from zsy_lan.protocol import seal  # noqa: E402
from zsy_lan.record.replay import replay_file  # noqa: E402

pytestmark = [pytest.mark.timeout(60), pytest.mark.asyncio]


def _seat1_frames(t: Table) -> list[bytes]:
    """Seat 1's own feed frames, in seq order (as the peer filed them)."""
    return [e.frame for e in t.peer.replica.ledger.feeds[1]]


def _illegal_play(t: Table) -> bytes:
    """Seat 1's next message, signed and chained: a play of one of seat 0's cards (seat 1
    holds none of those ids), ZSY-4.1's illegal play."""
    r1 = t.others[0]
    mine = t.peer.game.round.hands[0]
    return seal(
        identities()[1],
        table=t.roster.table,
        seat=1,
        seq=r1.ledger.next_seq(1),
        prev=r1.ledger.last_digest(1),
        state=r1.game.public_hash(),
        type="action",
        body=Action("play", 1, (mine[0],)).to_json(),
    )


async def _equivocated(tmp_path: Path) -> tuple[Table, bytes, bytes]:
    t = Table(tmp_path / "seat0")
    t.start()
    t.play(8)
    first = _seat1_frames(t)[-1]
    second = twin_of(t, first)
    t.peer._on_frame(1, second)
    assert t.peer.replica.halted is not None and t.peer.replica.halted.culprit == 1
    assert t.peer.fault is None  # another seat's cheat: not a local fault
    await t.close()
    return t, first, second


async def test_the_proof_of_an_equivocation_is_kept_as_the_exact_signed_bytes(tmp_path):
    t, first, second = await _equivocated(tmp_path)
    path = tmp_path / "seat0" / "evidence.jsonl"
    assert path.exists(), "the proof of the cheat was not kept"
    assert oct(path.stat().st_mode & 0o777) == "0o600"
    recs = [json.loads(line) for line in path.read_text().splitlines()]
    assert {base64.b64decode(r["frame"]) for r in recs} == {first, second}
    assert all(r["culprit"] == 1 and "equivocation" in r["reason"] for r in recs)
    # handled again (a resume re-reports the cheat): not written twice
    t.store.save_evidence(1, recs[0]["reason"], (first, second))
    assert len(path.read_text().splitlines()) == 2


async def test_zsy_replay_reports_and_verifies_the_kept_proof(tmp_path):
    await _equivocated(tmp_path)
    record = tmp_path / "seat0" / "transcript.jsonl"
    report = replay_file(record)
    assert report.ok  # the record itself is sound: the cheat never entered it
    [check] = report.evidence
    assert check.culprit == 1 and check.signed and check.frames == 2
    assert check.proves.startswith("equivocation: seat 1 signed two different messages")
    res = CliRunner().invoke(cli, ["replay", "--verify", str(record)])
    assert res.exit_code == 0, res.output
    assert "Evidence kept after the halt" in res.output and "naming seat 1" in res.output
    assert "signatures valid; proves: equivocation: seat 1" in res.output
    plain = CliRunner().invoke(cli, ["replay", str(record)])
    assert "Evidence kept after the halt" in plain.output and "proves:" not in plain.output
    as_json = CliRunner().invoke(cli, ["replay", "--json", str(record)])
    assert json.loads(as_json.output)["evidence"][0]["proves"].startswith("equivocation")


async def test_a_forged_proof_frame_is_caught(tmp_path):
    """Someone edits evidence.jsonl to frame seat 1: the signature no longer holds."""
    await _equivocated(tmp_path)
    path = tmp_path / "seat0" / "evidence.jsonl"
    recs = [json.loads(line) for line in path.read_text().splitlines()]
    raw = bytearray(base64.b64decode(recs[1]["frame"]))
    raw[-70] ^= 0x01  # one byte of the signed part
    recs[1]["frame"] = base64.b64encode(bytes(raw)).decode()
    path.write_text("".join(json.dumps(r) + "\n" for r in recs))
    record = tmp_path / "seat0" / "transcript.jsonl"
    [check] = replay_file(record).evidence
    assert not check.signed and "not genuine" in check.problem
    res = CliRunner().invoke(cli, ["replay", "--verify", str(record)])
    assert res.exit_code == 1 and "NOT GENUINE" in res.output


async def test_an_illegal_play_is_proven_by_replaying_the_record_with_it(tmp_path):
    """ZSY-4.1: a play of cards the seat does not hold, signed by seat 1, halts the table;
    the kept frame, replayed after the record, names seat 1 again."""
    t = Table(tmp_path / "seat0")
    t.start()
    for _ in range(30):
        t.play(1)
        r1 = t.others[0]
        if r1.can_act() and r1.game.round is not None and r1.game.legal(1):
            break
    r1 = t.others[0]
    assert r1.can_act()
    frame = _illegal_play(t)
    t.peer._on_frame(1, frame)
    halted = t.peer.replica.halted
    assert halted is not None and halted.culprit == 1
    await t.close()
    record = tmp_path / "seat0" / "transcript.jsonl"
    [check] = replay_file(record).evidence
    assert check.signed and check.culprit == 1
    assert check.proves == halted.reason
    res = CliRunner().invoke(cli, ["replay", "--verify", str(record)])
    assert res.exit_code == 0 and "proves:" in res.output


async def test_damaged_evidence_file_is_one_clear_line(tmp_path):
    await _equivocated(tmp_path)
    (tmp_path / "seat0" / "evidence.jsonl").write_bytes(b"\xff\xfenot json\n")
    res = CliRunner().invoke(
        cli, ["replay", "--verify", str(tmp_path / "seat0" / "transcript.jsonl")]
    )
    assert res.exit_code == 1
    assert "evidence.jsonl is damaged" in res.output and "Traceback" not in res.output
