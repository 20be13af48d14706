"""The catalogues: every player-facing string has a translation in zh, de and es.

Issue #13 ("Languages"): a test fails when a string is missing from a catalogue.
These read the code as it is now (a fresh Babel extraction over zsy_lan/, the
same one ``python tools/i18n_tools.py update`` writes to zsy.pot), so a newly
wrapped ``_("...")`` fails here until it is translated; docs/translating.md
says how to fix that.
"""

from __future__ import annotations

import io

import pytest

pytest.importorskip("babel", reason="Babel comes with the test extra: pip install -e '.[test]'")

import i18n_tools  # noqa: E402
from babel.messages.catalog import Catalog  # noqa: E402
from i18n_tools import TARGETS  # noqa: E402


@pytest.fixture(scope="module")
def template() -> Catalog:
    return i18n_tools.extract()


def test_the_extraction_finds_the_program_strings(template: Catalog) -> None:
    ids = {m.id if isinstance(m.id, str) else m.id[0] for m in template if m.id}
    # a _() call, an N_() vocabulary word, and a click help text (docstring and option)
    assert "The game's language: en, zh, de or es (default: ZSY_LANG, else the locale)." in ids
    assert "Zheng Shangyou (争上游) and Dou Dizhu in the terminal, peer to peer on a LAN." in ids
    assert len(ids) > 50


@pytest.mark.parametrize("lang", TARGETS)
def test_every_message_has_a_translation(lang: str, template: Catalog) -> None:
    gaps = i18n_tools.missing(lang, template)
    assert not gaps, (
        f"{len(gaps)} message(s) have no {lang} translation; run "
        f"`python tools/i18n_tools.py update` and translate them "
        f"(docs/translating.md). First ones: {gaps[:10]}"
    )


@pytest.mark.parametrize("lang", TARGETS)
def test_compiled_catalogue_matches_its_source(lang: str) -> None:
    assert not i18n_tools.stale_mo(lang), (
        f"{i18n_tools.mo_path(lang)} differs from its .po: "
        "run `python tools/i18n_tools.py compile`"
    )


@pytest.mark.parametrize("lang", TARGETS)
def test_translations_keep_the_placeholders(lang: str) -> None:
    problems = i18n_tools.placeholder_problems(lang)
    assert not problems, "\n".join(problems)


# --- the checks themselves can fail -------------------------------------------------


def _catalog(lang: str, entries: dict[object, object]) -> Catalog:
    cat = Catalog(locale=lang, domain="zsy", fuzzy=False)
    for mid, text in entries.items():
        cat.add(mid, text)
    return cat


def test_missing_reports_absent_empty_and_fuzzy(monkeypatch: pytest.MonkeyPatch) -> None:
    template = _catalog("de", {"a": None, "b": None, "c": None, "d": None, ("e", "es"): None})
    have = _catalog("de", {"a": "A", "b": "", "d": "D", ("e", "es"): ("E", "")})
    have["d"].flags.add("fuzzy")
    monkeypatch.setattr(i18n_tools, "read_catalog", lambda lang: have)
    assert i18n_tools.missing("de", template) == ["b", "c", "d", "e"]


def test_placeholder_check_catches_a_renamed_or_lost_field(monkeypatch: pytest.MonkeyPatch) -> None:
    have = _catalog(
        "de",
        {
            "{name} passes": "{nom} passt",
            "{name} leads": "{name} spielt aus",
            "{a} and {b}": "nur {a}",
            ("one card", "{n} cards"): ("eine Karte", "{n} Karten"),
            ("{n} point", "{n} points"): ("{n} Punkt", "Punkte"),
        },
    )
    monkeypatch.setattr(i18n_tools, "read_catalog", lambda lang: have)
    problems = i18n_tools.placeholder_problems("de")
    assert len(problems) == 3
    assert any("{name} passes" in p for p in problems)
    assert any("{a} and {b}" in p for p in problems)
    assert any("{n} points" in p for p in problems)


def test_placeholders_reads_brace_and_percent_fields() -> None:
    assert i18n_tools.placeholders("{who} plays {cards} {{literal}} 50%% %(x)s") == [
        "%(x)s",
        "{cards}",
        "{who}",
    ]


def test_a_stale_mo_is_noticed(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    from babel.messages.mofile import write_mo

    def mo(cat: Catalog) -> bytes:
        buf = io.BytesIO()
        write_mo(buf, cat)
        return buf.getvalue()

    shipped = tmp_path / "zsy.mo"
    shipped.write_bytes(mo(_catalog("de", {"a": "A"})))
    monkeypatch.setattr(i18n_tools, "mo_path", lambda lang: shipped)
    monkeypatch.setattr(i18n_tools, "mo_bytes", lambda lang: mo(_catalog("de", {"a": "A2"})))
    assert i18n_tools.stale_mo("de")
    monkeypatch.setattr(i18n_tools, "mo_bytes", lambda lang: mo(_catalog("de", {"a": "A"})))
    assert not i18n_tools.stale_mo("de")


def test_click_help_extractor_reads_docstrings_and_help_texts() -> None:
    source = b'''
import click
from zsy_lan.text.i18n import _

@click.command()
@click.option("--x", help="""  An option's help,
    over two lines.""")
def cmd(x):
    """Do a thing.

    More words.\f
    Not shown."""
    print(_("a message {n}").format(n=1))

def not_a_command():
    """Internal docstring."""
'''
    found = [
        m
        for _line, _func, m, _c in i18n_tools.extract_cli(
            io.BytesIO(source), i18n_tools.KEYWORDS, (), {}
        )
    ]
    assert "a message {n}" in found
    assert "Do a thing.\n\nMore words." in found
    assert "An option's help,\nover two lines." in found
    assert "Internal docstring." not in found


def test_an_untranslated_plural_stays_english_instead_of_empty(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import gettext

    have = _catalog("de", {("{n} card", "{n} cards"): ("", ""), ("{n} bomb", "{n} bombs"): None})
    have.add(("{n} pass", "{n} passes"), ("{n} Passe", "{n} Passen"))
    monkeypatch.setattr(i18n_tools, "read_catalog", lambda lang: have)
    compiled = gettext.GNUTranslations(io.BytesIO(i18n_tools.mo_bytes("de")))
    assert compiled.ngettext("{n} card", "{n} cards", 3) == "{n} cards"
    assert compiled.ngettext("{n} pass", "{n} passes", 3) == "{n} Passen"
