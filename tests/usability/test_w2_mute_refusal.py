"""``mute 99`` is refused like every other refusal at the table: with ``! `` (U2 finding 8).

It answered "no other seat is called '99': ..." bare, while every other refused line at the
table starts with "! ". Through ``chat_answer``, as the table's line reader prints it.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from zsy_lan.engine.ruleset import build_rules
from zsy_lan.protocol.chat import chat_command
from zsy_lan.table.chat_desk import chat_answer
from zsy_lan.table.local_table import make_local_table


def _answer(tmp_path: Path, typed: str) -> list[str]:
    rules = build_rules(3, [], {})
    table = make_local_table(rules, 1, 0, "easy", tmp_path / "r.jsonl", seed="w2", bot_chat=False)
    cmd = chat_command(typed)
    assert cmd is not None
    return asyncio.run(chat_answer(table, cmd))


def test_mute_of_no_seat_is_marked_as_a_refusal(tmp_path: Path) -> None:
    for typed in ("mute 99", "unmute nobody", "mute 0"):  # seat 0 is the player's own
        said = _answer(tmp_path, typed)
        assert len(said) == 1 and said[0].startswith("! no other seat is called"), said


def test_a_mute_that_works_is_not_marked(tmp_path: Path) -> None:
    said = _answer(tmp_path, "mute 1")
    assert len(said) == 1 and not said[0].startswith("! ")
