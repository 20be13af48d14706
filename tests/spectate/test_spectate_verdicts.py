"""A spectator judges the host's record as ``zsy replay`` judges the same bytes.

DESIGN.md "Blame needs proof": a record cut between two lines or inside a step is
unfinished ("the host's record ends at line N"), a line missing or repeated is DAMAGED and
names no seat, and only a signature or a rule proven broken is TAMPERED (with its seat).
The spectator's :class:`~zsy_lan.table.follower.Follower` runs the checks of
``verify_transcript`` (one :class:`~zsy_lan.protocol.transcript.TranscriptChecker`), line by
line, and says the verdict in ``zsy replay``'s words.
"""

from __future__ import annotations

import asyncio
import base64
import json
from pathlib import Path

import pytest
from local_support import play_out_now

from zsy_lan.engine.ruleset import build_rules
from zsy_lan.protocol import Identity
from zsy_lan.protocol.transcript import DAMAGED, TAMPERED, load_entry
from zsy_lan.record.replay import check_record, replay_file
from zsy_lan.table.follower import Follower, FollowError
from zsy_lan.table.local_table import make_local_table
from zsy_lan.table.watch import _follow
from zsy_lan.table.watch_frames import seal_watch


def _local(path: Path, rules, rounds: int, seed: str) -> list[str]:
    """A real record (a local table of bots, open deal): its lines, header first."""
    table = make_local_table(rules, rounds, 0, "easy", path, seed=seed, bot_chat=True)
    play_out_now(table)
    return path.read_text(encoding="utf-8").splitlines()


@pytest.fixture(scope="module")
def records(tmp_path_factory) -> dict[str, list[str]]:
    d = tmp_path_factory.mktemp("verdicts")
    return {
        "open": _local(d / "open.jsonl", build_rules(4), 2, "watch"),
        "ddz": _local(d / "ddz.jsonl", build_rules(3, ["doudizhu"]), 3, "watch-ddz"),
    }


def _replayed(lines: list[str]):
    return check_record(("\n".join(lines) + "\n").encode()).result


def _follow_all(lines: list[str]) -> tuple[Follower, FollowError | None]:
    f = Follower(lines[0])
    try:
        for line in lines[1:]:
            f.add(line)
    except FollowError as exc:
        return f, exc
    return f, None


def _kind(line: str) -> str:
    """A record line's message type, or the action's kind (``play``, ``bid``, ``deal.*``...)."""
    _, frame, _ = load_entry(line)
    msg = json.loads(frame[5:-64])  # magic and version before the body, the signature after
    return str(msg["body"].get("kind", "")) if msg["type"] == "action" else str(msg["type"])


def _cuts_from_scratch(lines: list[str]) -> set[int]:
    """The prefixes (by line count) checked against ``zsy replay`` of that prefix.

    Each is verified from the start, so all of them would cost the square of the record
    (seconds). Checked: every prefix of the first round (cuts in its commits, reveals,
    bids, plays and passes), then, in the later rounds, each cut at the edge of a step that
    is not a play or a pass (its reveals, bids, tribute, deal steps: the cuts inside and
    around them), and the whole record.
    """
    kinds = ["header", *(_kind(line) for line in lines[1:])]
    moves = {"play", "pass"}
    later = next(
        n for n in range(2, len(kinds)) if kinds[n] not in moves and kinds[n - 1] in moves
    )  # the first line of the second round
    edges = {
        n for n in range(later, len(kinds))
        if kinds[n] != kinds[n - 1] and not {kinds[n], kinds[n - 1]} <= moves
    }  # n lines end just before a step begins or just after one ends
    edges |= {
        n for n in range(later + 1, len(kinds))
        if kinds[n - 1] not in moves and kinds[n - 1] != kinds[n - 2]
        and kinds[n] == kinds[n - 1]
    }  # n lines end after the first line of a step of several (a cut inside it)
    return {*range(2, later + 1), *edges, len(lines)}


@pytest.mark.slow  # seconds of CPU: zsy replay's check of prefixes, each from the start
@pytest.mark.parametrize("name", ["open", "ddz"])
def test_every_prefix_the_spectator_holds_ends_where_zsy_replay_says(records, name):
    """Followed line by line, every prefix (cuts inside commit/reveal steps included) reads
    as zsy replay reads it: verified, unfinished, ending at that line, the same pending
    messages and the same head; :func:`_cuts_from_scratch` says which prefixes are held to
    a fresh ``zsy replay``, and every prefix verifies and ends where it is cut."""
    lines = records[name]
    f = Follower(lines[0])
    cut_in_a_step = 0
    scratch = _cuts_from_scratch(lines)
    assert len(scratch) > 40
    for n in range(2, len(lines) + 1):
        f.add(lines[n - 1])
        mine = f.end()
        assert mine.ok and mine.ends_at == n, (n, mine)
        if n in scratch:
            theirs = _replayed(lines[:n])
            assert theirs.ok, (n, theirs.reason)
            assert (mine.ends_at, mine.pending, mine.finished, mine.head) == (
                theirs.ends_at, theirs.pending, theirs.finished, theirs.head
            ), n
        cut_in_a_step += mine.pending > 0
    assert cut_in_a_step >= 4 and f.game.finished()


def _chain_lines(lines: list[str]) -> list[int]:
    return [i for i, line in enumerate(lines) if i and '"aside"' not in line]


def _same_verdict(bad: list[str]) -> FollowError:
    """The spectator's verdict on ``bad`` is zsy replay's: kind, line, seat and words."""
    theirs = _replayed(bad)
    _f, err = _follow_all(bad)
    assert not theirs.ok
    assert err is not None, theirs.reason
    assert (err.kind, err.line, err.culprit, err.reason) == (
        theirs.kind, theirs.bad_line, theirs.culprit, theirs.reason
    )
    return err


def test_a_line_missing_in_the_middle_is_damage_that_names_no_seat(records, tmp_path):
    lines = records["open"]
    gone = _chain_lines(lines)[len(_chain_lines(lines)) // 2]
    bad = lines[:gone] + lines[gone + 1 :]
    err = _same_verdict(bad)
    assert err.kind == DAMAGED and err.culprit is None
    path = tmp_path / "damaged.jsonl"
    path.write_text("\n".join(bad) + "\n")
    assert err.verdict() == replay_file(path).verdict()  # the very words of zsy replay
    assert err.verdict().startswith(f"DAMAGED at line {err.line}: by there a line is missing")
    assert "TAMPERED" not in err.verdict()


def test_a_line_written_twice_is_damage_that_names_no_seat(records):
    lines = records["ddz"]
    err = _same_verdict(lines[:12] + [lines[11]] + lines[12:])
    assert err.kind == DAMAGED and err.culprit is None and err.line == 13
    assert "appears twice" in err.reason  # before: "seat N's seq M appears twice" blamed N


def test_a_changed_signature_is_tampering_by_that_seat(records):
    lines = records["open"]
    obj = json.loads(lines[9])
    raw = bytearray(base64.b64decode(obj["frame"]))
    raw[-3] ^= 1  # inside the signature
    obj["frame"] = base64.b64encode(bytes(raw)).decode()
    bad = [*lines[:9], json.dumps(obj, separators=(",", ":")), *lines[10:]]
    err = _same_verdict(bad)
    assert err.kind == TAMPERED and err.line == 10
    assert err.verdict().startswith("TAMPERED or invalid at line 10")


# -- the watch ends: how the spectator says it --------------------------------------------------


class _HostLink:
    """What ``_follow`` uses of a Mesh: the host's frames queued in advance, sends dropped."""

    def __init__(self, frames: list[bytes]) -> None:
        self.q: asyncio.Queue[tuple[int, bytes]] = asyncio.Queue()
        for frame in frames:
            self.q.put_nowait((0, frame))

    async def recv(self) -> tuple[int, bytes]:
        return await self.q.get()

    async def send(self, peer_id, frame, timeout=None) -> bool:
        return True

    def is_connected(self, peer_id) -> bool:
        return True


def _watch(lines: list[str], then: str = "bye") -> tuple[bool, list[str]]:
    """A spectator receives ``lines`` in two batches from a host that then says ``then``."""
    host, me = Identity.generate(), Identity.generate()
    half = len(lines) // 2
    frames, at = [], 0
    for batch in (lines[:half], lines[half:]):
        frames.append(seal_watch(host, "lines", {"at": at, "lines": batch}))
        at += sum(len(line.encode()) + 1 for line in batch)
    frames.append(seal_watch(host, then, {"reason": "the host left the table"}))
    shown: list[str] = []

    async def go():
        return await asyncio.wait_for(
            _follow(_HostLink(frames), me, host.public_key, shown.append, None, None,
                    None, 30.0),
            20,
        )

    outcome = asyncio.run(go())
    return outcome.ok, shown


def test_a_host_whose_record_stops_inside_a_step_ends_at_that_line_and_blames_nobody(records):
    """The host crashed while writing a step's batch: the spectator says where its record
    ends (unfinished), as zsy replay says of the same bytes, never that anything is wrong."""
    lines = records["ddz"]
    n = next(n for n in range(3, len(lines)) if _replayed(lines[:n]).pending >= 2)
    ok, shown = _watch(lines[:n])
    assert ok, shown
    assert (
        f"Everything received verified; the host's record ends at line {n} "
        "(the match is unfinished)." in shown
    )
    assert any(s.startswith("(The last 2 messages are genuine but wait") for s in shown), shown
    assert not any(s.startswith("!") or "TAMPERED" in s or "DAMAGED" in s for s in shown)


def test_a_host_whose_last_step_lost_a_line_shows_damage_naming_no_seat(records):
    """The last batch misses its first line: zsy replay calls these bytes DAMAGED; so does
    the spectator when the host goes, and its watch fails (exit status 1) without a seat."""
    lines = records["ddz"]
    n = next(n for n in range(3, len(lines)) if _replayed(lines[:n]).pending >= 2)
    bad = lines[: n - 2] + lines[n - 1 : n]
    theirs = _replayed(bad)
    assert not theirs.ok and theirs.kind == DAMAGED
    ok, shown = _watch(bad)
    assert not ok
    said = [s for s in shown if s.startswith("!")]
    assert said == [
        f"! the table's record does not verify: DAMAGED at line {theirs.bad_line}: by there a "
        f"line is missing, repeated or out of place ({theirs.reason}). The record verifies up "
        "to it; nothing in it proves that a seat cheated."
    ]


def test_a_host_whose_record_ends_between_lines_says_where(records):
    lines = records["open"]
    n = next(n for n in range(len(lines) // 2, len(lines)) if not _replayed(lines[:n]).pending)
    ok, shown = _watch(lines[:n])
    assert ok and shown[-1] == (
        f"Everything received verified; the host's record ends at line {n} "
        "(the match is unfinished)."
    )
