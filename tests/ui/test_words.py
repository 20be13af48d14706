"""The presenter's vocabulary (zsy_lan/text/words.py): every variant in players' words.

Engine names (``fullhouse``, ``triple1``, ``chain``, ``double`` with value 0)
must never reach a player: the combinations, roles, places and actions each
variant fills through ``zsy_vocabulary`` are what players read, translated.
"""

from __future__ import annotations

import gettext
import re

import pytest

from zsy_lan.engine.bots import BOTS
from zsy_lan.engine.combos import Combo
from zsy_lan.engine.errors import ParseError, RuleError
from zsy_lan.engine.game import Game
from zsy_lan.engine.round import legal_actions
from zsy_lan.engine.ruleset import build_rules
from zsy_lan.engine.selfplay import round_seed
from zsy_lan.engine.state import Action, with_extra
from zsy_lan.engine.view import view
from zsy_lan.plugins import doudizhu, guandan, house_rules, partnerships, zsy
from zsy_lan.testing import Table, cards
from zsy_lan.text import i18n, words
from zsy_lan.ui.commands import describe, interpret

ZSY4 = build_rules(4)
DDZ3 = build_rules(3, ["doudizhu"], {"doubling": True})
HOUSE_ALL = {o: True for o, _ in house_rules.OPTIONS if o not in ("three_card_bombs",
                                                                   "single_tribute", "no_jokers")}

# engine names that must never be shown, and the old inverted doubling words
ENGINE_NAMES = re.compile(
    r"\b(fullhouse|jokerbomb|triple1|triple2|chain|pairchain|triplechain|plane|plane1|plane2|"
    r"four2|four22|straightflush)\b|\b(double|redouble) [01]\b|\bbid 0\b|card\(s\)"
)


def ranks(text: str) -> list[int]:
    from zsy_lan.engine.cards import parse_rank_list

    return parse_rank_list(text)


# --- combinations ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "rules,combo,text,expected",
    [
        (ZSY4, Combo("pair", 2, 12), "2 2", "pair of 2s"),  # ZSY-3.1
        (ZSY4, Combo("single", 1, 11), "A", "single A"),
        (ZSY4, Combo("triple", 3, 8), "J J J", "three jacks"),
        (ZSY4, Combo("fullhouse", 5, 6), "9 9 9 4 4", "full house, 9s over 4s"),  # ZSY-3.2
        (ZSY4, Combo("straight", 5, 11), "10 J Q K A", "straight 10 to A"),  # ZSY-3.3
        (ZSY4, Combo("bomb", 4, 6), "9 9 9 9", "bomb of four 9s"),  # ZSY-3.4
        (ZSY4, Combo("jokerbomb", 2, 14), "BJ RJ", "joker bomb"),
        (DDZ3, Combo("rocket", 2, 14), "BJ RJ", "rocket"),  # DDZ-3
        (DDZ3, Combo("chain", 5, 4), "3 4 5 6 7", "straight 3 to 7"),
        (DDZ3, Combo("pairchain", 6, 2), "3 3 4 4 5 5", "pairs 3 to 5"),
        (DDZ3, Combo("triple1", 4, 2), "5 5 5 9", "three 5s with 9"),
        (DDZ3, Combo("triple2", 5, 2), "5 5 5 9 9", "three 5s with a pair of 9s"),
        (DDZ3, Combo("plane", 6, 5), "7 7 7 8 8 8", "airplane 7 to 8"),
        (DDZ3, Combo("plane1", 8, 5), "7 7 7 8 8 8 3 K", "airplane 7 to 8 with wings 3 K"),
        (DDZ3, Combo("plane1", 12, 3), "4 4 4 5 5 5 6 6 6 9 9 9",
         "airplane 4 to 6 with wings 9 9 9"),
        (DDZ3, Combo("plane2", 10, 5), "7 7 7 8 8 8 3 3 K K",
         "airplane 7 to 8 with pair wings 3 3 K K"),
        (DDZ3, Combo("four2", 6, 3), "6 6 6 6 3 K", "four 6s with 3 K"),
        (DDZ3, Combo("four22", 8, 3), "6 6 6 6 3 3 K K", "four 6s with pairs 3 3 K K"),
    ],
)
def test_combination_names(rules, combo, text, expected):
    assert words.combo_name(rules, combo, ranks(text)) == expected


def test_house_rules_names_wrapped_straights_flushes_and_revolutions():  # ZSY-9.6
    r = build_rules(4, ["house-rules"], HOUSE_ALL | {"suit_tiebreak": False})
    assert words.play_name(r, cards("AS 2S 3S 4S 5S", decks=1)) == "straight flush A to 5"
    assert words.play_name(r, cards("AS 2D 3S 4S 5S", decks=1)) == "straight A to 5"
    assert words.play_name(r, cards("5 5 6 6", decks=1)) == "pairs 5 to 6"
    assert words.play_name(r, cards("5 5 5 6 6 6", decks=1)) == "triples 5 to 6"
    assert words.play_name(r, cards("9 9 9 4", decks=1)) == "three 9s with 4"
    assert words.play_name(r, cards("9 9 9 9", decks=1)) == "revolution of four 9s"
    assert words.kind_name(r, "straightflush", plural=True) == "straight flushes"


def test_kind_nouns_singular_and_plural():
    assert words.kind_name(ZSY4, "fullhouse") == "full house"
    assert words.kind_name(ZSY4, "fullhouse", plural=True) == "full houses"
    assert words.kind_name(DDZ3, "plane1") == "airplane with wings"
    assert words.kind_name(DDZ3, "chain", plural=True) == "straights"


# --- roles, places, stakes -------------------------------------------------------------------


def test_place_titles_per_player_count():  # ZSY-6
    r3, r5 = build_rules(3), build_rules(5)
    assert [words.place_title(ZSY4, p) for p in (1, 2, 3, 4)] == [
        "Upstream", "Second-Upstream", "Second-Downstream", "Downstream"]
    assert [words.place_title(r3, p) for p in (1, 2, 3)] == ["Upstream", "2nd", "Downstream"]
    assert [words.place_title(r5, p) for p in range(1, 6)] == [
        "Upstream", "2nd", "3rd", "4th", "Downstream"]


def test_dou_dizhu_has_sides_not_titles():  # DDZ-4.5
    assert words.place_title(DDZ3, 1) is None
    assert words.role_name(DDZ3, "landlord") == "landlord"
    assert words.role_name(DDZ3, "farmer", plural=True) == "farmers"
    assert words.stake_word(DDZ3) == "stake"
    t = Table(["doudizhu"])
    t.deal(1)
    s = with_extra(t.state, landlord=2)
    assert [words.seat_role(DDZ3, s, seat) for seat in range(3)] == ["farmer", "farmer",
                                                                      "landlord"]
    assert words.seat_role(ZSY4, s, 0) is None  # the base game has no sides


def test_partnership_words():  # ZSY-9.1
    r = build_rules(4, ["partnerships"])
    assert words.role_name(r, "team") == "team" and words.role_name(r, "partner") == "partner"
    assert words.place_title(r, 1) == "Upstream"


# --- actions and what players type ----------------------------------------------------------


def doubling_table():
    t = Table(["doudizhu"], options={"doubling": True})
    t.set_hands("3 3 4 4 5 5 6 6 7 7 8 8 9 9 10 10 J", "3 4 5 6 7 8 9 10 J Q K A 2 2 Q K A",
                "3 4 5 6 7 8 9 10 J J Q K A 2 2 BJ RJ", kitty="Q K A", turn=0)
    t.bid(0, 2)
    t.bid(1, 0)
    t.bid(2, 0)
    return t


def test_doubling_reads_and_types_the_right_way_round():  # DDZ-6.2
    t = doubling_table()
    legal = t.legal(1)
    assert [describe(a, rules=t.rules) for a in legal] == ["no double", "double"]
    assert interpret("double", t.rules, t.state, 1, legal) == Action("double", 1, value=1)
    assert interpret("no double", t.rules, t.state, 1, legal) == Action("double", 1, value=0)
    assert interpret("Double", t.rules, t.state, 1, legal).value == 1
    assert interpret("p", t.rules, t.state, 1, legal).value == 0
    assert interpret("double 1", t.rules, t.state, 1, legal).value == 1  # kind and value
    t.act(interpret("double", t.rules, t.state, 1, legal))
    t.act(interpret("no double", t.rules, t.state, 2, t.legal(2)))
    legal = t.legal(0)  # the landlord is offered the redouble
    assert [describe(a, rules=t.rules) for a in legal] == ["no redouble", "redouble"]
    assert interpret("redouble", t.rules, t.state, 0, legal) == Action("redouble", 0, value=1)


def test_actions_read_right_even_without_their_table():  # a record's actions (zsy replay)
    assert describe(Action("double", 1, value=0)) == "no double"
    assert describe(Action("double", 1, value=1)) == "double"
    assert describe(Action("redouble", 0, value=0)) == "no redouble"
    assert describe(Action("bid", 0, value=0)) == "pass"
    assert describe(Action("bid", 0, value=2)) == "bid 2"
    assert describe(Action("return", 0, value=2, hidden=True)) == "return 2 cards face down"
    assert describe(Action("give", 0, value=1, hidden=True)) == "give 1 card face down"


def test_bidding_words():  # DDZ-2.1
    t = Table(["doudizhu"])
    t.set_hands("3 3 4 4 5 5 6 6 7 7 8 8 9 9 10 10 J", "3 4 5 6 7 8 9 10 J Q K A 2 2 Q K A",
                "3 4 5 6 7 8 9 10 J J Q K A 2 2 BJ RJ", kitty="Q K A", turn=0)
    legal = t.legal(0)
    assert [describe(a, rules=t.rules) for a in legal] == ["bid 1", "bid 2", "bid 3", "pass"]
    assert interpret("bid 2", t.rules, t.state, 0, legal) == Action("bid", 0, value=2)
    assert interpret("pass", t.rules, t.state, 0, legal) == Action("bid", 0, value=0)
    with pytest.raises(ParseError, match="bid 1, bid 2, bid 3"):
        interpret("bid", t.rules, t.state, 0, legal)  # which bid? say so, do not guess


def test_a_play_names_its_combination():  # ZSY-3
    t = Table()
    t.set_hands("9 9 4 5", "6", "7", "8", leader=0)
    a = interpret("9 9", t.rules, t.state, 0, t.legal(0))
    assert describe(a, rules=t.rules) == "9♦ 9♣ (pair of 9s)"
    assert describe(a, ascii_suits=True) == "9D 9C"


def test_you_do_not_hold_says_how_many_you_hold():  # ZSY-5.1
    t = Table()
    t.set_hands("3 4 5 6", "7", "8", "9", leader=0)
    with pytest.raises(RuleError) as exc:
        interpret("3 3", t.rules, t.state, 0, t.legal(0))
    assert "you hold only one 3, not two" in str(exc.value)
    with pytest.raises(RuleError, match="you hold no kings"):
        interpret("K", t.rules, t.state, 0, t.legal(0))
    with pytest.raises(RuleError, match="you hold only one 3, not two"):  # the engine too
        t.play(0, "3 3")


def test_a_wrong_kind_is_refused_in_players_words():  # ZSY-4.1
    t = Table()
    t.set_hands("9 9 9 4 4 5", "10 10 10 6 6 7 8 9 J Q", "7", "8", leader=0)
    t.play(0, "9 9 9 4 4")
    err = t.expect_illegal(1, "6 7 8 9 10", rule="ZSY-4.1")
    assert "full house" in str(err) and "fullhouse" not in str(err)


# --- translation --------------------------------------------------------------------------------


class _German(gettext.NullTranslations):
    TEXTS = {"pair of {ranks}": "Paar {ranks}", "2s": "Zweien", "no double": "nicht doppeln",
             "three {ranks}": "drei {ranks"}  # a broken translation

    def gettext(self, message):
        return self.TEXTS.get(message, message)


def test_words_go_through_the_catalogue(monkeypatch):
    monkeypatch.setattr(i18n, "_translation", _German())
    assert words.combo_name(ZSY4, Combo("pair", 2, 12), ranks("2 2")) == "Paar Zweien"
    assert words.combo_name(ZSY4, Combo("triple", 3, 12), ranks("2 2 2")) == "three Zweien"
    legal = doubling_table().legal(1)
    assert describe(legal[0], rules=DDZ3) == "nicht doppeln"
    # players may type the translated words, or the English ones
    assert words.match_action(DDZ3, "nicht doppeln", legal) == legal[0]
    assert words.match_action(DDZ3, "no double", legal) == legal[0]


def test_every_builtin_text_is_listed_for_translation():
    """G's catalogues extract words.py: every English text a built-in plugin gives is there."""
    listed = {v for terms in words.BUILTIN_TERMS.values() for v in terms.values()}
    for module in (zsy, doudizhu, house_rules, partnerships, guandan):
        got = dict(module.VOCABULARY) if hasattr(module, "VOCABULARY") else {}
        if module is partnerships:
            got = dict(partnerships.zsy_vocabulary())
        assert got, module.name
        for key, text in got.items():
            assert text in listed, (module.name, key, text)
            mine = words.BUILTIN_TERMS["zsy"] | words.BUILTIN_TERMS[module.name]
            assert mine.get(key) == text, (module.name, key)


def test_a_third_party_template_typo_does_not_crash():
    r = build_rules(4)
    object.__setattr__(r, "vocabulary", {**r.vocabulary, "play:pair": "pair {nope} {ranks}"})
    assert words.combo_name(r, Combo("pair", 2, 0), [0, 0]) == "pair {nope} 3s"


# --- whole matches: no engine name anywhere ----------------------------------------------------

VARIANTS = [
    ("zsy-4", 4, [], {}),
    ("zsy-3", 3, [], {}),
    ("zsy-6-partners", 6, ["partnerships"], {}),
    ("house-rules", 4, ["house-rules"], HOUSE_ALL),
    ("house-tiebreak-triples", 4, ["house-rules"],
     {"suit_tiebreak": True, "three_card_bombs": True, "single_tribute": True,
      "straight_flush": True}),
    ("ddz-3", 3, ["doudizhu"], {"doubling": True, "show_kitty": True}),
    ("ddz-4", 4, ["doudizhu"], {"doubling": True, "match_multiple": 1}),
]


@pytest.mark.parametrize("name,players,variants,options", VARIANTS, ids=[v[0] for v in VARIANTS])
def test_no_engine_name_in_a_whole_match(name, players, variants, options):
    """Every legal action offered and every action taken, described, across a match."""
    rules = build_rules(players, variants, options)
    game = Game(rules, 3)
    bots = [BOTS["random"](f"words:{s}") for s in range(players)]
    seen_kinds: set[str] = set()
    index = actions = 0
    for _ in range(20_000):
        if game.finished():
            break
        if game.needs_seed():
            game.start_round(round_seed(name, index))
            index += 1
            continue
        state = game.match.round
        seat = state.turn
        for a in legal_actions(rules, state, seat):
            text = describe(a, rules=rules)
            assert not ENGINE_NAMES.search(text), (a, text)
        action = bots[seat].act(rules, view(state, seat), seat)
        game.apply(seat, action)
        after = game.match.round
        if action.kind == "play" and after is not None and after.trick_combo is not None:
            combo = after.trick_combo
            seen_kinds.add(combo.kind)
            text = describe(action, rules=rules)
            assert not ENGINE_NAMES.search(text), (action, text)
            assert "(" in text or len(action.cards) == 1, text  # the combination is named
        hidden = Action(action.kind, action.seat, value=len(action.cards), hidden=True)
        if action.cards and action.kind != "play":
            assert not ENGINE_NAMES.search(describe(hidden, rules=rules))
        actions += 1
    else:
        raise AssertionError("the match did not end")
    assert len(seen_kinds) >= 3 and actions > 2 * players, (seen_kinds, actions)
