"""Cards, decks and the text players type (ZSY-1.2; PLAYERS.md "Terminal")."""

import pytest

from zsy_lan.engine.cards import (
    BJ,
    RJ,
    card_str,
    hand_from_ranks,
    make_card,
    parse_cards_exact,
    parse_rank_list,
    parse_ranks,
    rank_of,
    ranks_str,
    sort_cards,
    suit_of,
)
from zsy_lan.engine.errors import ParseError
from zsy_lan.engine.rules import deck_for


def test_ranks_low_to_high_and_ids():
    assert rank_of(make_card(0, 0)) == 0  # 3♦
    assert rank_of(make_card(12, 3)) == 12  # 2♠
    assert rank_of(52) == BJ and rank_of(53) == RJ
    assert rank_of(54 + 53) == RJ and suit_of(54 + 1) == 1
    assert suit_of(52) is None


@pytest.mark.parametrize(
    "text,ranks",
    [
        ("3 3", [0, 0]),
        ("10 J Q K A", [7, 8, 9, 10, 11]),
        ("T t 0 10", [7, 7, 7, 7]),
        ("33 44 55", [0, 0, 1, 1, 2, 2]),
        ("10JQKA", [7, 8, 9, 10, 11]),
        ("bj rj", [BJ, RJ]),
        ("BJRJ", [BJ, RJ]),
        ("小王 大王", [BJ, RJ]),
        ("X R", [BJ, RJ]),
        ("2, 2", [12, 12]),
    ],
)
def test_parse_what_players_type(text, ranks):
    assert parse_rank_list(text) == ranks


def test_parse_suits_letters_and_symbols():
    assert parse_ranks("10s 10♠ 3d 3♦ Qh") == [(7, 3), (7, 3), (0, 0), (0, 0), (9, 2)]
    assert parse_cards_exact("3d 3c") == (make_card(0, 0), make_card(0, 1))


@pytest.mark.parametrize("text,token", [("3 3 Z", "Z"), ("11", "11"), ("3 4x", "4x"), ("", "")])
def test_bad_tokens_are_named(text, token):
    with pytest.raises(ParseError) as err:
        parse_ranks(text)
    assert err.value.token == token
    if token:
        assert f"'{token}'" in str(err.value)


def test_too_many_copies_for_the_deck():
    with pytest.raises(ParseError, match="too many 3"):
        parse_cards_exact("3 3 3 3 3")
    assert len(parse_cards_exact("3 3 3 3 3", decks=2)) == 5


def test_formatting_round_trips():
    assert card_str(make_card(7, 3)) == "10♠"
    assert card_str(make_card(7, 3), ascii_suits=True) == "10S"
    assert ranks_str([11, 0, BJ]) == "3 A BJ"
    h = hand_from_ranks([0, 0, 7, BJ])
    assert parse_rank_list(" ".join(card_str(c) for c in h)) == [0, 0, 7, BJ]
    assert sort_cards([53, 0, 4]) == (0, 4, 53)


def test_deck_per_player_count():  # ZSY-1.2
    decks, deck = deck_for(3)
    assert decks == 1 and len(deck) == 52
    assert make_card(0, 0) not in deck and make_card(0, 1) not in deck  # 3♦ 3♣ removed
    assert len(deck_for(4)[1]) == 54
    assert deck_for(5)[0] == 2 and len(deck_for(6)[1]) == 108


def test_bare_ranks_take_the_suits_this_deck_holds():  # ZSY-1.2: 3 players have no 3♦ 3♣
    _, deck = deck_for(3)
    want = (make_card(0, 2), make_card(0, 3), make_card(1, 0))  # 3♥ 3♠ 4♦
    assert parse_cards_exact("3 3 4", 1, deck) == want
    with pytest.raises(ParseError, match="too many 3"):
        parse_cards_exact("3 3 3", 1, deck)
    with pytest.raises(ParseError, match="3♦ is not in this table's deck"):
        parse_cards_exact("3D 4", 1, deck)
    assert parse_cards_exact("3 3", 1) == (make_card(0, 0), make_card(0, 1))  # no deck: as before


def test_zsy_moves_reads_bare_ranks_with_the_tables_suits():  # ZSY-1.2
    from click.testing import CliRunner

    from zsy_lan.cli import cli

    res = CliRunner().invoke(cli, ["moves", "--players", "3", "--hand", "3 3 4"])
    assert res.exit_code == 0, res.output
    assert res.output.split("\n")[:3] == ["3", "4", "3 3"]
    res = CliRunner().invoke(cli, ["moves", "--players", "3", "--hand", "3 3 3"])
    assert res.exit_code == 2 and "three 3s, but a 3-player deck holds only two" in res.output
    res = CliRunner().invoke(cli, ["moves", "--players", "3", "--hand", "3C 4"])
    assert res.exit_code == 2 and "3♣, which this table's deck does not hold" in res.output
    assert "Traceback" not in res.output


def test_table_set_hands_deals_the_tables_own_cards():  # ZSY-1.2, ZSY-2.1 D
    from zsy_lan.testing import Table

    t = Table(players=3)
    st = t.set_hands("3 3 4", "5", "6")
    assert st.hands[0] == (make_card(0, 2), make_card(0, 3), make_card(1, 0))
    assert st.turn == 0 and st.must_contain == make_card(0, 2)  # 3♥ leads with 3 players
