"""Lists and sentences joined the language's way (text.i18n.join_*), found at a --lang zh table.

"已连接, 轮到出牌, 剩 13 秒" (the seat panel), "座位 1, 座位 2" (the replay, the history),
"……。 牌桌计时……" (a space after a full stop): ASCII separators glued between Chinese
phrases. A stand-in catalogue plays the part of the Chinese one (the coordinator merges
/work/briefs/tr/Z.json into the real one later).
"""

from __future__ import annotations

import asyncio
import gettext
import hashlib

import pytest

import zsy_lan.text.i18n as i18n
from zsy_lan.engine.bots import BOTS
from zsy_lan.engine.game import Game
from zsy_lan.engine.round import legal_actions
from zsy_lan.engine.ruleset import build_rules
from zsy_lan.record.retell import retell_lines
from zsy_lan.table.local_table import LocalTable
from zsy_lan.text.i18n import join_clauses, join_items, join_phrases, join_sentences
from zsy_lan.ui.render import Style
from zsy_lan.ui.screen import seat_lines

pytestmark = [pytest.mark.timeout(60)]

_ZH = {
    "connected": "已连接",
    "to act": "轮到出牌",
    "{s} s left": "剩 {s} 秒",
    "Round {n} over. Out in order: {places}. Points: {points}.": (
        "第 {n} 局结束。出完顺序：{places}。得分：{points}。"
    ),
    "Totals after {n} round: {totals}.": "{n} 局后总分：{totals}。",
    "  Trick {n}: {moves}; won by {who}.": "  第 {n} 墩：{moves}；{who} 赢得此墩。",
    "passes": "不要",
    "Still your turn (since {at}).": "仍然轮到你（自 {at} 起）。",
}
_ZH_SEPARATORS = {
    ("between list items", ", "): "、",
    ("between short phrases", ", "): "，",
    ("between phrases", "; "): "；",
}


class StandIn(gettext.NullTranslations):
    """A Chinese catalogue of just the words these tests need."""

    def gettext(self, message: str) -> str:
        return _ZH.get(message, message)

    def ngettext(self, singular: str, plural: str, n: int) -> str:
        return _ZH.get(singular, singular if n == 1 else plural)  # zh: one form

    def pgettext(self, context: str, message: str) -> str:
        return _ZH_SEPARATORS.get((context, message), message)


@pytest.fixture
def zh(monkeypatch):
    monkeypatch.setattr(i18n, "_translation", StandIn())


def test_the_joins_use_the_languages_separators(zh) -> None:
    assert join_items(["甲", "乙", "丙"]) == "甲、乙、丙"
    assert join_phrases(["已连接", "轮到出牌"]) == "已连接，轮到出牌"
    assert join_clauses(["甲不要", "乙出 3"]) == "甲不要；乙出 3"
    # no space after a full-width full stop; one after an English sentence left untranslated
    both = join_sentences(["仍然轮到你。", "牌桌计时将替你出牌。"])
    assert both == "仍然轮到你。牌桌计时将替你出牌。"
    assert join_sentences(["Still your turn.", "牌桌计时。"]) == "Still your turn. 牌桌计时。"
    assert join_sentences(["仍然轮到你。", ""]) == "仍然轮到你。"


def test_english_keeps_its_commas_and_spaces() -> None:
    assert join_items(["seat 1", "seat 2"]) == "seat 1, seat 2"
    assert join_phrases(["connected", "to act"]) == "connected, to act"
    assert join_clauses(["a", "b"]) == "a; b"
    assert join_sentences(["One.", "Two."]) == "One. Two."


def _first(rules, view, seat):
    return legal_actions(rules, view, seat)[0]


def test_the_seat_panel_line_is_joined_with_full_width_commas(zh, tmp_path) -> None:
    """The full screen's panel: "轮到出牌，剩 13 秒", not "轮到出牌, 剩 13 秒"."""
    rules = build_rules(4, [])
    nicks = {s: f"bot-{s}" for s in range(1, 4)} | {0: "you"}
    table = LocalTable(
        rules, 1, 0, {s: _first for s in range(1, 4)}, tmp_path / "rec.jsonl",
        seed="s1", nicks=nicks,
    )

    async def go() -> list[str]:
        table.start()
        try:
            for _ in range(500):  # the bots play up to the human seat, which waits
                view = table.game.view(0)
                if view is not None and view.turn == 0:
                    break
                await asyncio.sleep(0.01)
            return seat_lines(table, 0, Style(), left=13)
        finally:
            await table.close()

    panel = asyncio.run(go())
    assert panel[-1] == "轮到出牌，剩 13 秒"  # a local table: no "已连接" (issue #26)
    assert ", " not in panel[-1]


def test_a_replay_line_is_joined_with_full_width_marks(zh) -> None:
    """``zsy replay``: the round's result line lists the seats with 、, the tricks with ；."""
    rules = build_rules(4, [])
    game = Game(rules, 1)
    bots = [BOTS["greedy"](f"z:{s}") for s in range(4)]
    for i in range(3000):
        if game.finished():
            break
        if game.needs_seed():
            game.start_round(hashlib.sha256(f"z-{i}".encode()).digest())
            continue
        seat = game.round.turn
        game.apply(seat, bots[seat].act(rules, game.view(seat), seat))
    assert game.finished()
    lines = retell_lines(rules, 1, game.seeds, game.log)
    result = next(line for line in lines if line.startswith("第 1 局结束"))
    assert "、" in result and ", " not in result
    totals = next(line for line in lines if "局后总分" in line)
    assert "、" in totals and ", " not in totals
    tricks = [line for line in lines if line.startswith("  第 ")]
    assert tricks and not any("; " in line for line in tricks)
    assert any("；" in line for line in tricks)


def test_the_real_chinese_catalogue() -> None:
    """The shipped zh catalogue has its list separators (merged from /work/briefs/tr/Z.json)."""
    try:
        i18n.set_language("zh")
        items, phrases = join_items(["甲", "乙"]), join_phrases(["甲", "乙"])
    finally:
        i18n.set_language("en")
    assert items == "甲、乙"
    assert phrases == "甲，乙"
