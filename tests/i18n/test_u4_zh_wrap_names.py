"""A Chinese line never wraps inside a name (issue #26: ``（no`` above ``rmal-1）``).

Chinese may break between any two characters, but a nick, a card or a number in a
Chinese line is one word: ``render.wrap`` moves such a cut to before the name (and
before the ``（`` that opens it).
"""

from __future__ import annotations

import pytest

from zsy_lan.ui.render import text_width, wrap

LINE = "轮到2号座位（normal-1）出牌，请等待3号座位（hard-3）出牌。"


@pytest.mark.parametrize("width", range(16, 40))
def test_a_name_in_a_chinese_line_stays_whole(width: int) -> None:
    lines = wrap(LINE, width)
    assert all(text_width(x) <= width for x in lines)
    assert "".join(x.strip() for x in lines) == LINE
    joined = "\n".join(lines)
    for name in ("（normal-1）", "（hard-3）"):
        assert name in joined  # whole, on one line, with its brackets
    assert not any(x.rstrip().endswith("（") for x in lines)


def test_a_name_wider_than_the_line_is_still_cut_to_fit() -> None:
    lines = wrap("等待（" + "x" * 30 + "）出牌", 12)
    assert all(text_width(x) <= 12 for x in lines)
    assert "".join(x.strip() for x in lines) == "等待（" + "x" * 30 + "）出牌"


def test_cards_as_words_are_a_chinese_list() -> None:
    """``--plain`` names the cards: in Chinese they are enumerated with 、, not ", "."""
    from zsy_lan.text import i18n
    from zsy_lan.ui.render import suits_as_words

    assert suits_as_words("3♦ 3♥ 5♣") == "3 of diamonds, 3 of hearts, 5 of clubs"
    try:
        i18n.set_language("zh")
        assert suits_as_words("3♦ 3♥ 5♣") == "方块3、红桃3、梅花5"
    finally:
        i18n.set_language("en")


def test_a_chinese_name_in_a_german_line_is_never_split() -> None:
    """Found watching in German: "Platz 0 (安" ended a row and "娜) 13" began the next. A
    short Chinese word (a name) in a Latin sentence moves down whole, as any word does."""
    line = "Runde 1 gegeben; Karten: Platz 0 (安娜) 13, Platz 1 (Bot:normal) 14"
    for width in range(24, 60):
        rows = wrap(line, width)
        assert all(text_width(r) <= width for r in rows), (width, rows)
        assert any("(安娜)" in r for r in rows), (width, rows)
