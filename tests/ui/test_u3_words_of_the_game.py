"""Words of the game (issue #26): a play's cards in the order players say them, and the
Dou Dizhu all-pass redeal told when it happens, in the variant's one word (hand).

A full house reads ``6♦ 6♥ 6♠ 3♣ 3♥ (full house, 6s over 3s)``, never with its pair
first: the main part (the run or the n of a kind) leads, then the kickers; straights
ascend, a wrapped one from its A. The screen's ``last:``, the log, the replay, the
hints and the numbered legal list all go through ``zsy_lan.text.play_order``.
"""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

import pytest

from zsy_lan.engine.cards import card_str
from zsy_lan.engine.combos import Combo
from zsy_lan.engine.ruleset import build_rules
from zsy_lan.engine.state import PLAY, Action
from zsy_lan.testing import cards
from zsy_lan.text import words
from zsy_lan.text.play_order import shown_order
from zsy_lan.ui.render import Style, play_text

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from local_support import play_out_now, spectator_story  # noqa: E402

ZSY4 = build_rules(4)
DDZ3 = build_rules(3, ["doudizhu"], {"doubling": True})
WRAP = build_rules(4, ["house-rules"], {"wrap_straights": True})


def _shown(rules, text: str, combo: Combo | None = None) -> str:
    return " ".join(card_str(c) for c in shown_order(rules, cards(text), combo))


@pytest.mark.parametrize(
    "rules,typed,expected",
    [
        (ZSY4, "3C 3H 6D 6H 6S", "6♦ 6♥ 6♠ 3♣ 3♥"),  # full house: the triple first
        (ZSY4, "AD AH AS 2D 2H", "A♦ A♥ A♠ 2♦ 2♥"),  # pair above the triple: still after
        (DDZ3, "5S AD AH AS", "A♦ A♥ A♠ 5♠"),  # three with one
        (DDZ3, "3D 3C 9D 9C 9H", "9♦ 9♣ 9♥ 3♦ 3♣"),  # three with a pair
        (DDZ3, "3D KD 7D 7C 7H 8D 8C 8H", "7♦ 7♣ 7♥ 8♦ 8♣ 8♥ 3♦ K♦"),  # airplane, wings
        (DDZ3, "3D 3C KD KC 7D 7C 7H 8D 8C 8H", "7♦ 7♣ 7♥ 8♦ 8♣ 8♥ 3♦ 3♣ K♦ K♣"),
        (DDZ3, "3D 4D 6D 6C 6H 6S", "6♦ 6♣ 6♥ 6♠ 3♦ 4♦"),  # four with two
        (DDZ3, "3D 3C KD KC 6D 6C 6H 6S", "6♦ 6♣ 6♥ 6♠ 3♦ 3♣ K♦ K♣"),  # four with pairs
        (ZSY4, "7D 3D 5D 4D 6D", "3♦ 4♦ 5♦ 6♦ 7♦"),  # a straight ascends
        (WRAP, "5D 2C 4D AD 3H", "A♦ 2♣ 3♥ 4♦ 5♦"),  # a wrapped one from its A
        (ZSY4, "9D 9C 9H 9S", "9♦ 9♣ 9♥ 9♠"),  # a bomb
        (DDZ3, "7D 7C 7H 8D 8C 8H 9D 9C 9H 3D 3C 3H", "7♦ 7♣ 7♥ 8♦ 8♣ 8♥ 9♦ 9♣ 9♥ 3♦ 3♣ 3♥"),
        (DDZ3, "RJ BJ", "BJ RJ"),
    ],
)
def test_the_main_part_comes_first(rules, typed, expected):
    assert _shown(rules, typed) == expected


def test_two_candidate_main_parts_follow_the_deciding_rank():
    """Four 3s as the pairs of four 6s (DDZ four with two pairs): the 6s lead, as named."""
    combo = Combo("four22", 8, 3)
    assert _shown(DDZ3, "3D 3C 3H 3S 6D 6C 6H 6S", combo) == "6♦ 6♣ 6♥ 6♠ 3♦ 3♣ 3♥ 3♠"
    name = words.combo_name(DDZ3, combo, [0, 0, 0, 0, 3, 3, 3, 3])
    assert name == "four 6s with pairs 3 3 3 3"


def test_the_log_and_the_table_show_the_same_order():
    """The narration (describe, also the legal list and hints) and the seat's ``last:``."""
    played = cards("3C 3H 6D 6H 6S")
    said = words.action_text(ZSY4, Action(PLAY, 0, played))
    assert said == "6♦ 6♥ 6♠ 3♣ 3♥ (full house, 6s over 3s)"
    style = Style(color=False)
    assert play_text(played, style, ZSY4) == "6♦ 6♥ 6♠ 3♣ 3♥"
    assert play_text(played, style) == "6♦ 6♥ 6♠ 3♣ 3♥"  # without the table's rules too


def _told(table) -> list[str]:
    out = []
    while not table.notices.empty():
        out.append(table.notices.get_nowait().text)
    return out


def test_the_all_pass_redeal_is_told_when_it_happens(tmp_path):
    """DDZ-2.3 at ``zsy play``: the bids, then the redeal, then the same hand dealt again;
    every deal says "hand" (the Dou Dizhu word), never "round"."""
    from zsy_lan.table.local_table import make_local_table

    rules = build_rules(3, ["doudizhu"], {"match_multiple": 1})
    table = make_local_table(rules, 1, 0, "easy", tmp_path / "r.jsonl", seed="s0")
    play_out_now(table)
    told = _told(table)
    redeal = told.index("Everybody passed: hand 1 is dealt again (DDZ-2.3).")
    assert [t.endswith(": pass") for t in told[redeal - 3 : redeal]] == [True] * 3
    assert told[redeal + 1].startswith("Hand 1 dealt; ")
    assert told[redeal + 1].endswith(" bids first.")
    assert not any(t.lower().startswith("round ") for t in told)


def test_a_seated_peer_tells_the_redeal_too(tmp_path):
    """The network table's narration (TablePeer) says the same sentence, once, after the
    last pass, even when its replica applied all three passes before they were told (seen
    by hand on loopback: the redeal was told after the second pass and again after the
    third)."""
    from zsy_lan.protocol import Applied, Identity
    from zsy_lan.protocol.lobby import Roster, Seat
    from zsy_lan.record.store import TableStore
    from zsy_lan.table.peer import TablePeer

    class _NoMesh:
        def send_now(self, seat: int, frame: bytes) -> bool:
            return False

    rules = build_rules(3, ["doudizhu"], {"match_multiple": 1})
    ids = [Identity.from_seed(hashlib.sha256(b"u3-%d" % s).digest()) for s in range(3)]
    seats = [
        Seat(s, ids[s].public_key, ids[s].curve_public, f"tcp://127.0.0.1:{9200 + s}", f"p{s}")
        for s in range(3)
    ]
    roster = Roster("t-u3", "u3", 1, rules.config, seats)
    peer = TablePeer(ids[0], roster, 0, _NoMesh(), TableStore(tmp_path / "s0"))  # type: ignore[arg-type]
    peer.game.start_round(b"\x07" * 32)
    applied = []
    for n in range(3):  # the replica applies the three passes, then the peer tells them
        seat = peer.game.round.turn
        action = Action("bid", seat, (), 0)
        peer.game.apply(seat, action)
        applied.append(Applied(seat, n, action.to_json(), None))
    for ev in applied:
        peer.narration.play(ev)
    told = []
    while not peer.notices.empty():
        told.append(peer.notices.get_nowait().text)
    assert told[-1] == "Everybody passed: hand 1 is dealt again (DDZ-2.3)."
    assert sum("dealt again" in t for t in told) == 1  # once, after the last pass
    assert [t.endswith(": pass") for t in told[-4:-1]] == [True] * 3


# --- the line mode and the seat boxes ---------------------------------------------------------


def _table_screen_support():
    sys.path.insert(0, str(Path(__file__).parent))
    import test_table_screen as support

    return support


def test_the_plain_table_is_printed_once_at_the_start():
    """``--plain`` on the player's first turn: the table, then the prompt; the watcher that
    prints it at each new turn does not print the same table again."""
    import asyncio

    from zsy_lan.ui.line_mode import Assist, run_table

    support = _table_screen_support()
    s = support.FakeSession(build_rules(4))
    s.seat = s.game.actors()[0]
    s.changed.set()  # the watcher sees the turn as begun
    out: list[str] = []

    class Idle(support.ScriptReader):
        async def read(self, prompt):
            await asyncio.sleep(0.2)  # the watcher has run by then
            return await super().read(prompt)

    asyncio.run(run_table(s, Style(width=200), Idle([]), out.append, Assist(remind=None)))
    assert sum(line.startswith("Round 1") for line in out) == 1, out
    assert out.count("Your turn.") == 1


def test_the_hint_says_when_passing_is_the_only_move():
    """``h`` with nothing that beats the table: one sentence, not ``Hint (1/1): pass``."""
    from zsy_lan.ui.line_mode import only_pass_hint

    support = _table_screen_support()
    s = support.FakeSession(build_rules(4))
    for _i in range(200):  # play the lowest moves until a seat can only pass
        seat = s.game.actors()[0]
        legal = s.game.legal(seat)
        if all(a.kind == "pass" for a in legal):
            break
        s.step(0 if legal[0].kind != "pass" else 1)
    else:
        raise AssertionError("no seat was left with only a pass")
    s.seat = seat
    said = support.handle(s, "h")
    assert said == ["Hint: nothing you hold beats the last play; passing is your only move."]
    assert only_pass_hint(s.game.legal(seat)) == said[0]
    assert only_pass_hint([Action(PLAY, 0, cards("3D")), Action("pass", 0)]) is None


def test_a_local_table_s_seats_are_not_connected_but_a_network_one_s_are():
    """``zsy play`` has no network: its bots do not say ``connected``; a dropped seat at a
    network table still says ``DISCONNECTED``."""
    from types import SimpleNamespace

    from zsy_lan.table.session import SeatInfo, SessionState
    from zsy_lan.ui.line_mode import link_word

    def session(mode: str):
        return SimpleNamespace(info=SessionState(seats=[SeatInfo()], deal_mode=mode))

    assert link_word(session("local"), SeatInfo(bot=True)) is None
    assert link_word(session("open"), SeatInfo(bot=True)) == "connected"
    assert link_word(session("private"), SeatInfo(connected=False)) == "DISCONNECTED"


def test_a_spectator_reads_the_redeal_and_the_hand_word_too(tmp_path):
    """``zsy watch`` (the record's follower) tells the DDZ-2.3 redeal at the last pass and
    each deal as a hand; plays main part first."""
    from zsy_lan.table.local_table import make_local_table

    rules = build_rules(3, ["doudizhu"], {"match_multiple": 1})
    record = tmp_path / "r.jsonl"
    table = make_local_table(rules, 1, 0, "easy", record, seed="s0", bot_chat=False)
    play_out_now(table)
    told = spectator_story(record.read_text().splitlines())
    redeal = told.index("Everybody passed: hand 1 is dealt again (DDZ-2.3).")
    assert told[redeal - 1].endswith(": pass")
    assert sum(t.startswith("Hand 1 dealt; cards: ") for t in told) == 2
    assert not any(t.startswith("Round ") for t in told)


def test_the_replay_of_a_dou_dizhu_match_says_hand(tmp_path):
    """``zsy replay``: the header counts hands and a hand's last trick ends the hand."""
    from click.testing import CliRunner

    from zsy_lan.cli import cli
    from zsy_lan.table.local_table import make_local_table

    rules = build_rules(3, ["doudizhu"], {"match_multiple": 1})
    record = tmp_path / "r.jsonl"
    table = make_local_table(rules, 1, 0, "easy", record, seed="s0", bot_chat=False)
    play_out_now(table)
    out = CliRunner().invoke(cli, ["--lang", "en", "replay", str(record)]).output
    assert "3 players, 1 hand, " in out, out[:300]
    assert "Everybody passed: the hand is dealt again (DDZ-2.3)." in out
    assert ", and the hand ends." in out and "the round ends" not in out


def test_who_at_zsy_play_has_no_empty_tags(tmp_path):
    """``who`` at a local table: ``seat 0: ana (you)``, the bots ``- bot``, no "connected"."""
    from zsy_lan.table.local_table import make_local_table
    from zsy_lan.ui.line_mode import roster_lines

    table = make_local_table(ZSY4, 1, 0, "easy", tmp_path / "r.jsonl", seed="w", me="ana")
    lines = roster_lines(table)
    assert lines[0] == "  seat 0: ana (you)"
    assert lines[1] == "  seat 1: easy-1 - bot"
    assert not any("connected" in line for line in lines)
