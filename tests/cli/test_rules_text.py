"""The rules in effect as a player reads them: ``text.rules_text.rules_lines`` and ``zsy rules``.

Each line carries its RULES.md id; options change the lines they affect;
a third-party plugin without text still shows its name, version and options.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from zsy_lan.cli import cli
from zsy_lan.engine.ruleset import build_rules, ruleset_id
from zsy_lan.text import rules_text
from zsy_lan.text.rules_text import rules_lines

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "custom-rule" / "src"


def _line(lines: list[str], rule: str) -> str:
    found = [x for x in lines if x.startswith(rule + " ")]
    assert found, f"no {rule} line in:\n" + "\n".join(lines)
    return found[0]


def test_every_line_names_a_rule_and_the_header_the_ruleset():
    rules = build_rules(4)
    lines = rules_lines(rules)
    assert ruleset_id(rules) in lines[0]
    assert all(re.match(r"(ZSY|DDZ)-\d", x) for x in lines[1:])


def test_zsy_3_3_straights_follow_the_two_in_straights_option():
    on = _line(rules_lines(build_rules(4)), "ZSY-3.3")
    off = _line(rules_lines(build_rules(4, [], {"two_in_straights": "false"})), "ZSY-3.3")
    assert "5 or more consecutive ranks" in on
    assert "(this table: the 2 may end a straight, J-Q-K-A-2)" in on
    assert "no 2 in straights" in off and on != off


def test_deck_and_first_lead_follow_the_player_count():
    """ZSY-1.2: 3 players play without 3♦ 3♣; ZSY-2.1: so 3♥ starts."""
    three = rules_lines(build_rules(3))
    assert "52 cards" in _line(three, "ZSY-1.2") and "3♦ 3♣ removed" in _line(three, "ZSY-1.2")
    assert "holder of 3♥" in _line(three, "ZSY-2.1")
    six = rules_lines(build_rules(6))
    assert "108 cards from 2 deck(s)" in _line(six, "ZSY-1.2")
    assert "all four jokers" in _line(six, "ZSY-3.4")


def test_scoring_options_change_the_zsy_8_line():
    assert _line(rules_lines(build_rules(4)), "ZSY-8.1").startswith("ZSY-8.1 Scoring: ranking")
    assert "penalty points" in _line(rules_lines(build_rules(4, [], {"scoring": "penalty"})),
                                     "ZSY-8.2")
    three = rules_lines(build_rules(3, [], {"scoring": "cardcount"}))
    assert any("With 3 players" in x for x in three if x.startswith("ZSY-8.3"))


def test_tribute_modifiers_change_the_tribute_lines():
    """ZSY-7.1 two cards; ZSY-9.2 three; ZSY-9.3 none."""
    base = _line(rules_lines(build_rules(4)), "ZSY-7.1")
    assert "their 2 highest cards" in base
    doubled = rules_lines(build_rules(4, ["doubled-tribute"]))
    assert "their 3 highest cards" in _line(doubled, "ZSY-7.1")
    assert _line(doubled, "ZSY-9.2")
    none = rules_lines(build_rules(4, ["no-tribute"]))
    assert "none at this table" in _line(none, "ZSY-7")
    assert not any(x.startswith("ZSY-7.1") for x in none)


def test_house_rules_list_the_options_that_are_on_and_change_the_bomb_line():
    plain = rules_lines(build_rules(4, ["house-rules"]))
    assert "none of its options is on" in _line(plain, "ZSY-9.6")
    lines = rules_lines(build_rules(4, ["house-rules"], {"three_card_bombs": "true",
                                                         "pair_chains": "true"}))
    house = [x for x in lines if x.startswith("ZSY-9.6")]
    assert len(house) == 2 and any("Three of a kind is a bomb" in x for x in house)
    assert "3 or more cards of one rank" in _line(lines, "ZSY-3.4")
    assert "run of pairs" in _line(lines, "ZSY-3")


def test_partnerships_show_the_teams():
    assert "(0+2+4 v 1+3+5)" in _line(rules_lines(build_rules(6, ["partnerships"])), "ZSY-9.1")


def test_dou_dizhu_lines_follow_its_options_and_player_count():
    base = rules_lines(build_rules(None, ["doudizhu"]))
    assert "17 each and 3 face-down kitty cards" in _line(base, "DDZ-1")
    assert "not shown" in _line(base, "DDZ-2.4")
    assert not any(x.startswith(("DDZ-6.2", "DDZ-6.3", "ZSY-")) for x in base)
    shown = rules_lines(build_rules(None, ["doudizhu"], {"show_kitty": "true",
                                                         "doubling": "true"}))
    assert "shown to everyone first" in _line(shown, "DDZ-2.4")
    assert "(this table: on)" in _line(shown, "DDZ-6.2")
    four = rules_lines(build_rules(4, ["doudizhu"]))
    assert "25 each and 8 face-down kitty cards" in _line(four, "DDZ-1")
    assert _line(four, "DDZ-6.3")


@pytest.mark.parametrize(
    "args",
    [(4, [], {}), (None, ["doudizhu"], {}), (4, ["house-rules"], {"triple_single": "true"})],
)
def test_no_engine_names_reach_the_player(args):
    text = "\n".join(rules_lines(build_rules(*args)))
    for engine_name in ("fullhouse", "triple1", "triple2", "four2", "plane1", "jokerbomb"):
        assert engine_name not in text


def test_a_third_party_plugin_without_text_shows_name_version_and_options(monkeypatch):
    monkeypatch.syspath_prepend(str(EXAMPLE))
    import zsy_short_straights

    rules = build_rules(4, ["short-straights"], {"min_length": "4"},
                        plugins={"short-straights": zsy_short_straights})
    lines = rules_lines(rules)
    assert "Plugin short-straights 1.0.0: it has no rules text; its options: min_length=4." in lines
    # what it changes still shows where the compiled rules say so (ZSY-3.3)
    assert "4 or more consecutive ranks" in _line(lines, "ZSY-3.3")
    sys.modules.pop("zsy_short_straights", None)


def test_every_line_goes_through_the_translation(monkeypatch):
    monkeypatch.setattr(rules_text, "_", lambda s: "T:" + s)
    lines = rules_lines(build_rules(4, ["partnerships"]))
    assert all(x.startswith("T:") for x in lines)


def test_zsy_rules_prints_the_lines():
    res = CliRunner().invoke(cli, ["rules", "--option", "two_in_straights=false"])
    assert res.exit_code == 0
    assert res.output.splitlines() == rules_lines(build_rules(4, [], {"two_in_straights": "false"}))
    assert "no 2 in straights" in res.output
    assert "two_in_straights = false" not in res.output  # not a dump of option values


def test_tribute_lines_follow_teams_single_tribute_and_the_big_table_option():
    """ZSY-9.1 partnerships: only the losing team gives; ZSY-9.6 single-card tribute;
    ZSY-7.2 option: the second tribute with 5-6 players."""
    teams = rules_lines(build_rules(4, ["partnerships"]))
    assert "only the losing team gives" in _line(teams, "ZSY-7.1")
    single = rules_lines(build_rules(4, ["house-rules"], {"single_tribute": "true"}))
    assert "single-card tribute" in _line(single, "ZSY-7")
    assert not any(x.startswith("ZSY-7.1") for x in single)
    five = rules_lines(build_rules(5))
    assert not any(x.startswith("ZSY-7.2") for x in five)
    big = rules_lines(build_rules(5, [], {"second_tribute_big": "true"}))
    assert "with 5 players" in _line(big, "ZSY-7.2")
    assert "Second-Downstream" not in _line(big, "ZSY-7.2")


def test_a_third_party_plugin_can_give_its_own_rules_text():
    """Its vocabulary's ``rules:<name>`` lines stand in the plugin's place (cleaned)."""
    import types

    from zsy_lan import hookimpl

    mod = types.ModuleType("zsy_test_texts")
    mod.name, mod.version, mod.description = "told-rule", "0.2.0", "a rule with words"

    @hookimpl
    def zsy_vocabulary():
        return {"rules:told-rule": "TR-1 Jokers are wild.\n\nTR-2 No\x1b[31m colour codes."}

    mod.zsy_vocabulary = zsy_vocabulary
    lines = rules_lines(build_rules(4, ["told-rule"], plugins={"told-rule": mod}))
    assert lines[-2:] == ["TR-1 Jokers are wild.", "TR-2 No colour codes."]  # escape gone
    assert not any("has no rules text" in x for x in lines)
