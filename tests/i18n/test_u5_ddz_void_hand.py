"""Issue #26: Dou Dizhu says hand throughout, the void hints, votes and notices too,
and the private deal's notes (a hand stopped for the audit, audited, voided).

Every sentence about voiding a round has its Dou Dizhu twin that says hand
(zsy_lan.text.present.round_or_hand picks it), and the twin is translated with the
language's word for a Dou Dizhu hand (docs/translating.md: 局, Spiel, mano)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

from zsy_lan.engine.ruleset import build_rules
from zsy_lan.text.i18n import set_language
from zsy_lan.text.present import round_or_hand

LOCALE = Path(__file__).resolve().parents[2] / "zsy_lan" / "locale"
#: where the table's seats, the narration and zsy replay speak
SAYERS = ("zsy_lan/table/", "zsy_lan/text/", "zsy_lan/record/")
UNIT = re.compile(r"\b(rounds?|hands?)\b")
#: the base game's word for a round, which a Dou Dizhu sentence must not use
ROUND_WORD = {"de": re.compile(r"Runde"), "es": re.compile(r"\bronda"), "zh": None}


def _void_msgids(lang: str) -> dict[str, str]:
    """The void sentences of the table's seats, its narration and ``zsy replay``'s
    (zsy_lan/table, text, record), and every note of the private deal (a round stopped,
    audited, voided)."""
    with open(LOCALE / lang / "LC_MESSAGES" / "zsy.po", "rb") as f:
        catalog = read_po(f)

    def wanted(m) -> bool:
        paths = [path for path, _n in m.locations]
        notes = any(p.endswith("deal/deal_notes.py") for p in paths)
        table = any(p.startswith(SAYERS) for p in paths)
        return (table and "void" in m.id.lower()) or (notes and bool(UNIT.search(m.id)))

    return {
        m.id: m.string
        for m in catalog
        if isinstance(m.id, str) and not m.context and wanted(m)
    }


def test_each_void_sentence_about_a_round_has_a_hand_twin():
    ids = _void_msgids("de")
    rounds = [i for i in ids if re.search(r"\brounds?\b", i)]
    assert len(rounds) >= 15
    for msgid in rounds:
        twin = re.sub(r"\brounds\b", "hands", re.sub(r"\bround\b", "hand", msgid))
        assert twin in ids, msgid


@pytest.mark.parametrize("lang", ["de", "es", "zh"])
def test_the_hand_twins_say_the_dou_dizhu_word(lang):
    ids = _void_msgids(lang)
    twins = {i: s for i, s in ids.items() if re.search(r"\bhands?\b", i)}
    assert len(twins) >= 15
    for msgid, text in twins.items():
        assert text, msgid
        word = ROUND_WORD[lang]
        if word is not None:
            assert not word.search(text), (msgid, text)
    if lang == "zh":
        assert all("局" in t for t in twins.values() if "本" in t)


@pytest.mark.parametrize(
    ("lang", "ddz", "zsy"),
    [
        ("en", "void this hand", "void this round"),
        ("de", "dieses Spiel", "diese Runde"),
        ("es", "esta mano", "esta ronda"),
        ("zh", "局", "局"),
    ],
)
def test_a_void_hint_in_each_language(lang, ddz, zsy):
    set_language(lang)
    from zsy_lan.text.i18n import _

    def hint(rules):
        return round_or_hand(
            rules,
            _("(type void to vote to void this round; earlier rounds stand)"),
            _("(type void to vote to void this hand; earlier hands stand)"),
        )

    assert ddz in hint(build_rules(3, ["doudizhu"]))
    assert zsy in hint(build_rules(4))
