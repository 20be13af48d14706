"""Chat at a table: the line mode's words, notices set apart, zsy play's bots, the record.

A local table (``zsy play``) is the same seam as a network seat: each seat its
own replica, chat signed into its author's feed, the record verified by
``zsy replay``.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from zsy_lan.engine.ruleset import build_rules
from zsy_lan.record.replay import replay_file
from zsy_lan.table.local_table import make_local_table
from zsy_lan.table.session import Notice
from zsy_lan.ui.line_mode import _handle
from zsy_lan.ui.render import Style


def drain(table) -> list[Notice]:
    out = []
    while not table.notices.empty():
        out.append(table.notices.get_nowait())
    return out


def run(coro):
    return asyncio.new_event_loop().run_until_complete(coro)


def test_say_phrases_mute_at_the_line_mode_table(tmp_path: Path):
    rules = build_rules(4)
    table = make_local_table(rules, 1, 0, "easy", tmp_path / "r.jsonl", seed="c1", me="alice",
                             bot_chat=False)

    async def go() -> None:
        table.start()
        said: list[str] = []
        style = Style.detect("never", True)
        await _handle(table, "say hello all", style, 0, said.append)
        await _handle(table, "chat \x1b[2Jclean\u202e", style, 0, said.append)
        await _handle(table, ":gg", style, 0, said.append)
        assert said == []  # sent: the lines come back as chat notices
        chats = [n.text for n in drain(table) if n.kind == "chat"]
        assert chats == ["alice: hello all", "alice: clean", "alice: Good game!"]
        await _handle(table, "say :nosuch", style, 0, said.append)
        assert said[-1].startswith("! ") and "phrases" in said[-1]
        await _handle(table, "phrases", style, 0, said.append)
        assert any(":well-played" in line for line in said)
        await _handle(table, "mute easy-1", style, 0, said.append)
        assert "easy-1" in said[-1] and table.chat_room.muted == {1}
        table._pump([(1, table.replicas[1].chat({"text": "psst"}, 0.0))])
        table._pump([(2, table.replicas[2].chat({"text": "hi from 2"}, 0.0))])
        chats = [n.text for n in drain(table) if n.kind == "chat"]
        assert chats == ["easy-2: hi from 2"]  # seat 1 is muted here
        await _handle(table, "unmute", style, 0, said.append)
        assert table.chat_room.muted == set()
        await _handle(table, "mute nobody", style, 0, said.append)
        assert "no other seat" in said[-1]
        await _handle(table, "help", style, 0, said.append)
        assert any("say TEXT" in line and "mute" in line for line in said)
        await table.close()

    run(go())


def test_a_card_word_is_still_a_card_not_chat(tmp_path: Path):
    rules = build_rules(4)
    table = make_local_table(rules, 1, 0, "easy", tmp_path / "r.jsonl", seed="c2",
                             bot_chat=False)

    async def go() -> None:
        table.start()
        said: list[str] = []
        # a queen the player does not hold, or a move out of turn: a card answer, never chat
        await _handle(table, "q", Style.detect("never", True), 0, said.append)
        assert said and all("chat" not in line.lower() for line in said)
        assert not [n for n in drain(table) if n.kind == "chat"]
        await table.close()

    run(go())


def test_chat_never_changes_the_local_match_and_replay_tells_it_in_place(tmp_path: Path):
    rules = build_rules(4)

    async def play(record: Path, chat: bool):
        table = make_local_table(rules, 1, 0, "easy", record, seed="same", bot_chat=False)
        table.start()
        if chat:
            await table.chat("before the first move \x1b]0;x\x07")
            for s in (1, 2):
                table._pump([(s, table.replicas[s].chat({"phrase": "luck"}, 0.0))])
        await asyncio.wait_for(table.run_bots_only(), 60)
        await table.close()
        return table

    quiet = run(play(tmp_path / "a.jsonl", False))
    loud = run(play(tmp_path / "b.jsonl", True))
    assert loud.game.public_hash() == quiet.game.public_hash()
    assert [r.order for r in loud.game.match.results] == [r.order for r in quiet.game.match.results]
    report = replay_file(tmp_path / "b.jsonl")
    assert report.ok, report.verdict()
    lines = report.narration
    said = [i for i, line in enumerate(lines) if "»" in line]
    assert len(said) == 3
    told = " | ".join(lines[i] for i in said)
    assert "before the first move" in told and "\x1b" not in told
    assert told.count("Good luck, have fun!") == 2
    first_trick = next(i for i, line in enumerate(lines) if "Trick 1" in line)
    assert max(said) < first_trick  # said before the first move: told before the first trick


def test_bots_say_a_few_phrases_decided_by_the_seed(tmp_path: Path):
    rules = build_rules(4)

    async def play(record: Path, bot_chat: bool) -> list[str]:
        table = make_local_table(rules, 2, 0, "easy", record, seed="talk", bot_chat=bot_chat)
        table.start()
        await table.chat(":hello")
        await asyncio.wait_for(table.run_bots_only(), 60)
        await table.close()
        return [n.text for n in drain(table) if n.kind == "chat"]

    a = run(play(tmp_path / "a.jsonl", True))
    b = run(play(tmp_path / "b.jsonl", True))
    quiet = run(play(tmp_path / "c.jsonl", False))
    assert a == b  # the same seed, the same words
    assert quiet == ["you: Hello!"]  # --quiet-bots: only the player's own line
    bot_lines = [line for line in a if not line.startswith("you:")]
    assert bot_lines, a
    assert len(bot_lines) <= 1 + 3 + 2 * 3  # a hello, the gg, at most one nice per round each
    # the record has every line, those said after the last move (gg) at its end
    report = replay_file(tmp_path / "a.jsonl")
    assert report.ok, report.verdict()
    told = [line.split("» ", 1)[1] for line in report.narration if "» " in line]
    assert len(told) == len(a)
    assert any("Good game!" in line for line in a) == any("Good game!" in t for t in told)
    over = next(i for i, line in enumerate(report.narration) if line.startswith("Match over"))
    assert all(i < over for i, line in enumerate(report.narration) if "» " in line)


def test_a_chat_flood_is_hidden_and_named_flooding_never_cheating(tmp_path: Path):
    rules = build_rules(4)
    table = make_local_table(rules, 1, 0, "easy", tmp_path / "r.jsonl", seed="c3",
                             bot_chat=False)

    async def go() -> None:
        table.start()
        drain(table)
        for i in range(30):
            table._pump([(1, table.replicas[1].chat({"text": f"spam {i} \x1b[2J"}, 0.0))])
        table._pump([(2, table.replicas[2].chat({"text": "x" * 10_240}, 0.0))])
        notices = drain(table)
        chats = [n.text for n in notices if n.kind == "chat"]
        assert chats == [f"easy-1: spam {i}" for i in range(6)]  # the burst, cleaned
        floods = [n.text for n in notices if "flooding the chat" in n.text]
        assert floods == ["easy-1 is flooding the chat; their extra lines are hidden"]
        assert not any("cheat" in n.text.lower() for n in notices)
        assert table.info.stopped is None and table.replicas[0].halted is None
        await table.close()

    run(go())


def test_a_line_said_before_leaving_zsy_play_is_in_its_record(tmp_path: Path):
    """The player says something and quits before their next move: the record still has it."""
    rules = build_rules(4)
    record = tmp_path / "r.jsonl"
    table = make_local_table(rules, 1, 0, "easy", record, seed="c4", bot_chat=False)

    async def go() -> None:
        table.start()
        assert await table.chat("bye for now") is None
        await table.close()

    run(go())
    report = replay_file(record)
    assert report.ok, report.verdict()
    assert any("» " in line and "bye for now" in line for line in report.narration)
