"""Chat lines in the record reach the spectator (issue #15): verified with the rest, judged
and cleaned as at a seat (zsy_lan.protocol.chat.read), quick phrases in the spectator's language,
told in their place among the moves, a flood named once; a catch-up shows what live did."""

from __future__ import annotations

import asyncio
from pathlib import Path

from zsy_lan.engine.ruleset import build_rules
from zsy_lan.table.follower import Follower, Teller
from zsy_lan.table.local_table import make_local_table


def _record_with_chat(path: Path) -> None:
    """``zsy play`` (four seats, bots) with chat before the first move: a line with escape
    sequences, two quick phrases, a flood from seat 2 and a body no reader accepts."""
    rules = build_rules(4)

    async def play() -> None:
        table = make_local_table(rules, 1, 0, "easy", path, seed="watch-chat", me="alice",
                                 bot_chat=False)
        table.start()
        await table.chat("hello \x1b[2Jspectators\u202e")
        table._pump([(1, table.replicas[1].chat({"phrase": "luck"}, 0.0))])
        table._pump([(3, table.replicas[3].chat({"phrase": "no-such-phrase"}, 0.0))])
        for i in range(12):
            table._pump([(2, table.replicas[2].chat({"text": f"spam {i}"}, 0.0))])
        await asyncio.wait_for(table.run_bots_only(), 60)
        await table.close()

    asyncio.new_event_loop().run_until_complete(play())


def _told(lines: list[str], live: bool) -> list[str]:
    f = Follower(lines[0])
    teller = Teller(f)
    out: list[str] = []
    for line in lines[1:]:
        f.add(line)
        if live:  # a batch per line, as while following live
            out += teller.new_lines()
    return out + teller.new_lines()  # a catch-up: the whole record in one batch


def test_a_spectator_sees_the_chat_in_its_place_judged_and_cleaned(tmp_path: Path):
    record = tmp_path / "r.jsonl"
    _record_with_chat(record)
    lines = record.read_text().splitlines()
    told = _told(lines, live=True)
    chat = [t for t in told if t.startswith("» ")]
    assert "» alice: hello spectators" in chat  # cleaned: no escape, no bidi override
    assert "» easy-1: Good luck, have fun!" in chat  # a quick phrase, in the reader's language
    assert not any("no-such-phrase" in t for t in told)  # dropped, as a seat drops it
    spam = [t for t in chat if "spam" in t]
    assert 1 <= len(spam) < 12  # a seat's share, then hidden ...
    floods = [t for t in told if "flooding the chat" in t]
    assert floods == ["* easy-2 is flooding the chat; their extra lines are hidden"]  # ... once
    assert not any("\x1b" in t or "\u202e" in t for t in told)
    # in their place: a line is told just before its author's next move in the record
    first_play = next(i for i, t in enumerate(told) if t.startswith("seat 1 (easy-1): "))
    assert told.index("» easy-1: Good luck, have fun!") < first_play
    # a spectator catching up from the whole record is told the same
    assert _told(lines, live=False) == told
