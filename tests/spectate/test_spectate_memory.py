"""A spectator's memory does not grow with the match, and its verification is not weaker.

The :class:`~zsy_lan.table.follower.Follower` lets the frames of rounds older than the last
``RETAIN_ROUNDS`` leave memory (as a seat's replica does, ``Ledger.retire``) and drops
the story its :class:`~zsy_lan.table.follower.Teller` has told; of an old line it keeps only a
hash and its number. So a line repeated rounds later, or an old message signed again with
other content, is still told exactly as ``zsy replay`` (which keeps everything) tells it.
"""

from __future__ import annotations

import base64

import pytest
from local_support import play_out_now

from zsy_lan.engine.ruleset import build_rules
from zsy_lan.protocol.envelope import open_frame, seal
from zsy_lan.protocol.transcript import DAMAGED, TAMPERED, dump_line, load_entry, load_header
from zsy_lan.record.replay import check_record
from zsy_lan.table.follower import RETAIN_ROUNDS as SPECTATOR_RETAIN
from zsy_lan.table.follower import Follower, FollowError, Teller
from zsy_lan.table.local_table import make_local_table
from zsy_lan.table.peer import RETAIN_ROUNDS

ROUNDS = 5


@pytest.fixture(scope="module")
def match(tmp_path_factory):
    """A 5-round open-deal record of four bots (with their chat), and the seats' identities."""
    path = tmp_path_factory.mktemp("memory") / "long.jsonl"
    table = make_local_table(build_rules(4), ROUNDS, 0, "easy", path, seed="long", bot_chat=True)
    play_out_now(table)
    return path.read_text(encoding="utf-8").splitlines(), table.identities


def _held_frames(f: Follower) -> int:
    """Bytes of signed frames the follower's ledger still holds."""
    led = f.ledger
    feeds = sum(len(env.frame) for feed in led.feeds.values() for env in feed)
    return feeds + sum(len(env.frame) for env in led.entries)


def test_a_spectator_keeps_what_a_seat_keeps():
    assert SPECTATOR_RETAIN == RETAIN_ROUNDS


def test_old_rounds_leave_the_spectator_s_memory(match):
    lines, _ids = match
    everything = Follower(lines[0], retain=None)
    f = Follower(lines[0])
    told = Teller(f)
    said: list[str] = []
    for line in lines[1:]:
        everything.add(line)
        f.add(line)
        said += told.new_lines()
    assert f.head == everything.head and f.game.finished()
    assert f.ledger.entries.base > 0  # the first rounds' messages left memory
    assert _held_frames(f) < _held_frames(everything) * 0.7
    assert f.game.trace == [] and f.chats == []  # told, then dropped
    assert f.trace_base > 0
    assert sum(s.startswith("Round ") for s in said) == ROUNDS  # the whole story was told
    assert sum(s.startswith("Match over. Winner:") for s in said) == 1


def _verdicts(bad: list[str]) -> tuple[FollowError, object]:
    theirs = check_record(("\n".join(bad) + "\n").encode()).result
    f = Follower(bad[0])
    with pytest.raises(FollowError) as err:
        for line in bad[1:]:
            f.add(line)
    assert f.ledger.entries.base > 0  # the old line's round had left memory by then
    return err.value, theirs


def test_a_first_round_line_repeated_at_the_end_is_still_damage(match):
    lines, _ids = match
    first_chain = next(i for i, line in enumerate(lines) if i and '"aside"' not in line)
    mine, theirs = _verdicts([*lines, lines[first_chain]])
    assert (mine.kind, mine.line, mine.culprit, mine.reason) == (
        theirs.kind, theirs.bad_line, theirs.culprit, theirs.reason
    )
    assert mine.kind == DAMAGED and mine.culprit is None and "appears twice" in mine.reason


def test_a_first_round_message_signed_again_otherwise_is_still_that_seat_s_equivocation(match):
    lines, ids = match
    table, roster = load_header(lines[0])
    for line in lines[1:]:
        seat, frame, aside = load_entry(line)
        env = open_frame(frame, roster, table)
        if env.type == "commit" and not aside:
            break
    other = seal(ids[seat], table=table, seat=seat, seq=env.seq, prev=env.prev,
                 state=env.state, type="commit", body={**env.body, "commit": "0" * 64})
    mine, theirs = _verdicts([*lines, dump_line(seat, other)])
    assert (mine.kind, mine.line, mine.culprit, mine.reason) == (
        theirs.kind, theirs.bad_line, theirs.culprit, theirs.reason
    )
    assert mine.kind == TAMPERED and mine.culprit == seat and "equivocation" in mine.reason
    assert base64.b64encode(other).decode() not in line  # another frame, same seq
