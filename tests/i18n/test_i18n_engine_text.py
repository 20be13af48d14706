"""An illegal play is refused in the player's language (zsy_lan.text.engine_text).

The engine speaks English with a rule id (it cannot import gettext); these
tests make the real engine refuse real actions and check the table would show
the reason translated, with the cards and the rule id kept, so a reworded
engine sentence is noticed here rather than shown in English.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

import pytest

from zsy_lan.engine.cards import parse_cards_exact, sort_cards
from zsy_lan.engine.errors import ParseError, RuleError
from zsy_lan.engine.round import apply, new_round
from zsy_lan.engine.rules import base_rules
from zsy_lan.engine.state import PASS, PLAY, Action, evolve
from zsy_lan.text.engine_text import translate
from zsy_lan.text.i18n import set_language

R4 = base_rules(4)


@pytest.fixture(autouse=True)
def english_afterwards() -> Iterator[None]:
    yield
    set_language("en")


def _state(hands: list[str], turn: int = 0):
    hs = [sort_cards(parse_cards_exact(h, 1)) for h in hands]
    st = new_round(R4, hs, round_no=2, dealer=(turn - 1) % 4, leader=turn)
    return evolve(st, must_contain=None)


def _refusal(do: Callable[[], object]) -> str:
    with pytest.raises((RuleError, ParseError)) as err:
        do()
    return str(err.value)


HANDS = ["3d 4d 5d 6d 7s 9d 9c", "10d 10c Jd Qd", "3c 4c", "5c 6c"]


def _after_pair_of_tens():
    st = _state(HANDS, turn=1)
    return apply(R4, st, Action(PLAY, 1, parse_cards_exact("10d 10c", 1)))


def _after_queen():
    st = _state(HANDS, turn=1)
    return apply(R4, st, Action(PLAY, 1, parse_cards_exact("Qd", 1)))


REFUSALS: dict[str, Callable[[], object]] = {
    "not a combination": lambda: apply(
        R4, _state(HANDS), Action(PLAY, 0, parse_cards_exact("3d 9d", 1))
    ),
    "wrong kind": lambda: apply(
        R4, _after_pair_of_tens(), Action(PLAY, 2, parse_cards_exact("3c", 1))
    ),
    "not higher": lambda: apply(R4, _after_queen(), Action(PLAY, 2, parse_cards_exact("3c", 1))),
    "leader passes": lambda: apply(R4, _state(HANDS), Action(PASS, 0)),
    "not your turn": lambda: apply(R4, _state(HANDS), Action(PLAY, 1, parse_cards_exact("Qd", 1))),
    "not held": lambda: apply(R4, _state(HANDS), Action(PLAY, 0, parse_cards_exact("Kd", 1))),
    "not a card": lambda: parse_cards_exact("3 Z", 1),
    "no cards": lambda: parse_cards_exact("", 1),
}


@pytest.mark.parametrize("case", sorted(REFUSALS))
def test_the_engines_refusals_are_translated(case: str) -> None:
    english = _refusal(REFUSALS[case])
    set_language("en")
    assert translate(english) == english  # English stays exactly as the engine said it
    set_language("zh")
    chinese = translate(english)
    assert chinese != english, f"no translation for the engine's {english!r}"
    rule = re.search(r"\((ZSY-[0-9.]+)\)$", english)
    if rule is not None:  # the rule id the player can look up stays as it was
        assert rule[1] in chinese
    set_language("de")
    assert translate(english) != english


def test_cards_and_rule_id_survive_translation() -> None:
    english = "9♦ 9♣ is not higher than the last play (ZSY-4.1)"
    set_language("zh")
    said = translate(english)
    assert "9♦ 9♣" in said and "ZSY-4.1" in said and "not higher" not in said


def test_a_sentence_it_does_not_know_is_shown_as_it_came() -> None:
    set_language("es")
    text = "a third-party plugin says no (XYZ-1.2)"
    assert translate(text) == text


def test_the_legend_and_the_tables_configuration_errors_are_translated() -> None:
    from zsy_lan.engine.cards import LEGEND
    from zsy_lan.engine.errors import ConfigError
    from zsy_lan.engine.ruleset import build_rules

    said = []
    for players, variants, options in (
        (4, ["no-such-variant"], {}),
        (4, [], {"show_kitty": "true"}),  # a Dou Dizhu option at a base-game table
        (3, ["doudizhu"], {"show_kitty": "maybe"}),
    ):
        with pytest.raises(ConfigError) as err:
            build_rules(players, variants, options)
        said.append(str(err.value))
    rules = build_rules(3, ["doudizhu"], {})
    rule, message = rules.check_rounds(rules, 4)
    said.append(f"{message} ({rule})")
    set_language("es")
    for english in [LEGEND, *said]:
        assert translate(english) != english, f"no translation for the engine's {english!r}"


def test_zsy_moves_refuses_in_chinese() -> None:
    from click.testing import CliRunner

    from zsy_lan.cli import choose_language, cli

    try:
        result = CliRunner().invoke(cli, ["--lang", "zh", "moves", "--hand", "3 Z"])
    finally:
        choose_language("en")
    assert result.exit_code == 2
    assert "“Z”不是一张牌" in result.output and "Traceback" not in result.output
