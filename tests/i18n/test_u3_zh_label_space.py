"""Chinese: no space between Chinese text and the seat label after it (session 8, U3 gap 4).

The full screen's centre read "等待 2号座位（carol）。" and the prompt "还没轮到你：等待 2号座位…":
the msgstrs put a space before ``{who}``/``{seat}`` as if the label began with Latin text,
but a Chinese seat label ("2号座位（carol）", "你") is a Chinese word. W2's test
(tests/usability/test_w2_zh_seat_label.py) covers the space *after* a label; this one the
space *before* it. The sentences are the catalogue's (the code formats a label into a
msgstr, it adds no space), so the fix is the catalogue's, through /work/briefs/tr/U3.json,
which the coordinator applied: the tests check the shipped catalogue. German, Spanish and
English keep their spaces: only zh msgstrs change.
"""

from __future__ import annotations

import re

import pytest
from i18n_tools import read_catalog

import zsy_lan.text.i18n as i18n
from zsy_lan.text.i18n import _
from zsy_lan.ui.render import seat_label

CJK = "[\u4e00-\u9fff\u3000-\u303f\uff00-\uffef]"
#: placeholders that always hold a seat label ("2号座位（carol）", "你")
LABEL = r"\{(?:who|turn|holder|run_by|mover|movers)\}"
#: placeholders that hold a seat number (any, before 号), or a label or a number when a
#: Chinese word follows (的, 赢...) or the sentence's punctuation does; ``{host}`` before
#: punctuation is a key fingerprint, which keeps its space
SEAT = (
    r"\{[a-z_]+\}(?=号)|\{(?:seat|seats|host)\}(?=[\u4e00-\u9fff])"
    r"|\{seat\}(?=[\u3000-\u303f])"
)
SPACED = re.compile(CJK + " (?:" + LABEL + "|" + SEAT + ")")


@pytest.fixture
def zh():
    i18n.set_language("zh")
    try:
        waiting = _("Waiting for {seat}.")
        assert waiting != "等待 {seat}。", "the zh catalogue still has its space (U3.json)"
        yield
    finally:
        i18n.set_language("en")


def test_no_chinese_msgstr_puts_a_space_before_a_seat_label(zh) -> None:
    bad = []
    for message in read_catalog("zh"):
        if not message.id or message.fuzzy:
            continue
        forms = message.string if isinstance(message.string, tuple) else (message.string,)
        bad += [form for form in forms if SPACED.search(form)]
    assert bad == []


def test_the_centre_and_the_prompt_read_as_one_word(zh) -> None:
    label = seat_label(2, ["a", "b", "carol", "d"], 0)
    assert _("Waiting for {seat}.").format(seat=label) == "等待2号座位（carol）。"
    line = _("Not your turn: waiting for {who}. (help, who, score work any time)")
    assert line.format(who=label).startswith("还没轮到你：等待2号座位（carol）。")
    moving = _("waiting for {who} to move, since {since}").format(who=label, since="10:07:19")
    assert moving == "从 10:07:19 起等待2号座位（carol）出牌"  # the time keeps its spaces


@pytest.mark.parametrize(
    ("lang", "want"),
    [("en", "Waiting for seat 2 (carol)."), ("de", "Warte auf "), ("es", "Esperando al ")],
)
def test_other_languages_keep_their_space(lang, want) -> None:
    i18n.set_language(lang)
    try:
        label = seat_label(2, ["a", "b", "carol", "d"], 0)
        text = _("Waiting for {seat}.").format(seat=label)
        assert text.startswith(want) and " " + label in text, text
    finally:
        i18n.set_language("en")
