"""A Chinese line wraps between its characters, in the line mode and in the screen's log.

Played in tmux with ``--lang zh`` (session 7, helper U2): the log showed "* " alone on a
line and the sentence below it ("你又超时了：..."), because Rich, and ``render.wrap`` too,
break only at spaces and a Chinese sentence has none.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "ui"))
from screen_support import screen_table  # noqa: E402
from test_screen import _app  # noqa: E402

from zsy_lan.ui.render import text_width, wrap  # noqa: E402

pytestmark = [pytest.mark.timeout(60)]

TIMED_OUT = "* 你又超时了：已开启托管。输入任意内容或按任意键即可取消托管。"


def test_a_chinese_sentence_fills_the_line_it_starts_on() -> None:
    lines = wrap(TIMED_OUT, 46)
    assert lines[0].startswith("* 你又超时了")  # not "*" alone
    assert all(text_width(x) <= 46 for x in lines)
    assert "".join(x.strip() for x in lines).replace(" ", "") == TIMED_OUT.replace(" ", "")


def test_a_closing_mark_never_starts_a_line() -> None:
    # at 14 columns "* 你好你好你好" fills the line and "。" would come next
    lines = wrap("* 你好你好你好。再见", 14)
    assert all(not x.strip().startswith("。") for x in lines)
    assert all(text_width(x) <= 14 for x in lines)


def test_english_still_breaks_only_at_spaces() -> None:
    line = "* Your time ran out again: auto-play is on. Type anything to take over."
    lines = wrap(line, 30)
    assert " ".join(x.strip() for x in lines) == line
    assert all(len(x) <= 30 for x in lines)


@pytest.mark.asyncio
async def test_the_screen_log_wraps_a_chinese_line_between_its_characters(tmp_path) -> None:
    table = screen_table(tmp_path)
    app = _app(table)
    try:
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.pause()
            app.say(TIMED_OUT)
            await pilot.pause()
            lines = [line.text.rstrip() for line in app.query_one("#log").lines]
            assert "*" not in lines  # the star is not left alone on its line
            assert any(x.startswith("* 你又超时了") for x in lines)
    finally:
        await table.close()


def test_a_name_inside_a_chinese_sentence_is_never_split():
    """Issue #26: the log showed ``（no`` / ``rmal-1）``; a Latin name or number in a
    Chinese sentence stays on one row, an opening mark stays with what it opens."""
    from zsy_lan.ui.render import text_width, wrap

    for width in (16, 20, 29):  # 16: "  （normal-5）。" exactly
        rows = wrap("* 第 1 局已发牌；轮到5号座位（normal-5）。", width)
        assert any("normal-5" in row for row in rows), rows
        assert not any(row.rstrip().endswith("（") for row in rows), rows
        assert all(text_width(row) <= width for row in rows)
