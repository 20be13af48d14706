"""The table screen in each variant's words, quiet and readable (issue #13).

Dou Dizhu shows its landlord and farmers, bids, stake and kitty (DDZ-2, DDZ-2.4,
DDZ-5.1) and never the base game's titles (ZSY-6.3); partnerships show their teams
(ZSY-9.1); tribute lines name the real giver and receiver (ZSY-7). Lines fit the
terminal, ``--plain`` never glues a notice to its prompt, an idle turn is reminded
once, and leaving a match takes a confirmation.
"""

from __future__ import annotations

import asyncio
import dataclasses
import io
import os

import pytest

from zsy_lan.engine.cards import parse_cards_exact
from zsy_lan.engine.game import Game
from zsy_lan.engine.ruleset import build_rules
from zsy_lan.engine.state import Duty, evolve, with_extra
from zsy_lan.table.session import Notice, SeatInfo, SessionState
from zsy_lan.ui.line_mode import Assist, PlainReader, _handle, render, run_table, score_lines
from zsy_lan.ui.render import (
    Style,
    ambiguous_wide,
    card_text,
    stake_parts,
    table_lines,
    text_width,
    tribute_text,
    wrap,
)

BASE_TITLES = ("Upstream", "Downstream", "place ", "Second-")


class FakeSession:
    """One seat's handle on a Game run in memory (no network)."""

    def __init__(self, rules, seat: int = 0, rounds: int = 3, seed: bytes = b"\x03" * 32):
        self.seat = seat
        self.game = Game(rules, rounds)
        self.game.start_round(seed)
        self.info = SessionState(
            seats=[SeatInfo(nick=f"p{i}") for i in range(rules.players)], table_name="t"
        )
        self.notices: asyncio.Queue[Notice] = asyncio.Queue()
        self.changed = asyncio.Event()
        self.submitted: list = []

    async def submit(self, action):
        self.submitted.append(action)
        self.game.apply(self.seat, action)
        self.changed.set()
        return None

    async def close(self) -> None:
        return None

    def step(self, pick=0) -> None:
        seat = self.game.actors()[0]
        legal = self.game.legal(seat)
        self.game.apply(seat, legal[pick if pick >= 0 else len(legal) + pick])


def handle(session, text: str, style: Style | None = None) -> list[str]:
    out: list[str] = []
    asyncio.run(_handle(session, text, style or Style(), 0, out.append))
    return out


def ddz(**options):
    return build_rules(3, ["doudizhu"], options)


def _bid_to_landlord(session: FakeSession) -> None:
    """Seats bid 1, 2, 3 in turn (DDZ-2.2: a bid of 3 ends the bidding)."""
    for _ in range(3):
        session.step(0)  # the lowest bid above the highest so far


def test_doudizhu_table_names_landlord_farmers_bids_and_stake():
    """DDZ-2, DDZ-5.1: the roles, every bid and the stake are on the table."""
    s = FakeSession(ddz())
    _bid_to_landlord(s)
    text = "\n".join(render(s, Style()))
    lord = s.game.round.get("landlord")
    assert f"seat {lord} " in text and "[landlord]" in text and text.count("[farmer]") == 2
    assert "bid 1" in text and "bid 2" in text and "bid 3" in text
    assert "Stake (DDZ-5.1): 3 = bid 3." in text
    assert "Kitty" not in text  # show_kitty is off: the kitty stays face down
    assert not any(t in text for t in BASE_TITLES)


def test_show_kitty_turns_the_kitty_up_on_the_table():
    """DDZ-2.4 with show_kitty: every seat sees the kitty the landlord took."""
    s = FakeSession(ddz(show_kitty=True), seat=0)
    _bid_to_landlord(s)
    kitty = s.game.round.get("kitty")
    assert kitty and len(kitty) == 3
    line = next(x for x in render(s, Style(ascii_suits=True)) if x.startswith("Kitty"))
    for card in kitty:
        assert card_text(card, Style(ascii_suits=True)) in line


def test_the_stake_counts_bombs_and_doubles():
    """DDZ-5.1: each bomb or rocket doubles the stake; DDZ-6.2: a double is shown."""
    s = FakeSession(ddz(doubling=True))
    _bid_to_landlord(s)
    state = with_extra(s.game.round, bombs=2)
    parts = stake_parts(s.game.rules, state)
    assert parts["stake"] == 3 * 4 and parts["multiplier"] == 4
    farmer = next(x for x in range(3) if x != state.get("landlord"))
    doubles = [0, 0, 0]
    doubles[farmer] = 1
    state = with_extra(state, doubles=tuple(doubles))
    text = "\n".join(table_lines(state, 0, Style(), rules=s.game.rules))
    assert "Stake (DDZ-5.1): 12 = bid 3, x4 for 2 bombs or rockets." in text
    assert f"Doubled (DDZ-6.2) by seat {farmer}" in text


def test_each_seat_s_own_stake_as_paid_double_and_redouble_ddz_6_2():
    """Issue #26: the table stake hid the x4 a farmer who doubled against a redouble
    pays; each seat's own stake is shown, the landlord's the sum of the farmers'."""
    from zsy_lan.ui.render import seat_stakes, stake_short
    from zsy_lan.ui.screen import seat_score

    s = FakeSession(ddz(doubling=True))
    _bid_to_landlord(s)
    state = with_extra(s.game.round, bombs=1)  # table stake 3 x2 = 6
    lord = int(state.get("landlord"))
    farmers = [x for x in range(3) if x != lord]
    doubles = [0, 0, 0]
    doubles[farmers[0]] = 1
    assert seat_stakes(s.game.rules, with_extra(state, doubles=tuple(doubles))) == {
        farmers[0]: (12, 2), farmers[1]: (6, 1), lord: (18, 1)
    }
    doubles[lord] = 1  # the landlord redoubles: the doubled farmer's stake x4
    state = with_extra(state, doubles=tuple(doubles))
    own = seat_stakes(s.game.rules, state)
    assert own == {farmers[0]: (24, 4), farmers[1]: (6, 1), lord: (30, 1)}
    assert stake_short(*own[farmers[0]]) == "stake 24 (×4)"
    assert stake_short(*own[farmers[0]], ascii_only=True) == "stake 24 (x4)"
    assert stake_short(*own[farmers[1]]) == "stake 6"
    assert seat_stakes(s.game.rules, with_extra(state, landlord=-1)) == {}  # still bidding
    s.game.match = dataclasses.replace(s.game.match, round=state)
    assert seat_score(s, farmers[0]) == ["stake 24 (×4), total 0", "stake 24 (×4), 0"]


def test_the_stakes_shown_are_the_stakes_paid_at_the_end_of_the_hand():
    """Issue #26, "as paid": both farmers double, the landlord redoubles; the stakes the
    seats showed are what the hand's score (the plugin's DDZ-5.2) makes them pay."""
    from zsy_lan.ui.render import seat_stakes

    s = FakeSession(ddz(doubling=True))
    _bid_to_landlord(s)
    while s.game.round.phase == "doubling":
        s.step(-1)  # double, then redouble
    assert s.game.round.get("doubles") == (1, 1, 1)
    while not s.game.match.results:
        s.step(0)
    shown = seat_stakes(s.game.rules, s.game.round)
    paid = s.game.match.results[-1].points
    assert [stake for stake, _factor in (shown[x] for x in range(3))] == [abs(p) for p in paid]
    lord = int(s.game.round.get("landlord"))
    assert all(shown[x][1] == 4 for x in range(3) if x != lord)


def test_zsy_seats_show_their_running_points():
    """Issue #26: the base game's running totals without the score sheet (F2)."""
    from zsy_lan.ui.render import seat_stakes
    from zsy_lan.ui.screen import seat_score

    s = FakeSession(build_rules(4))
    assert seat_stakes(s.game.rules, s.game.round) == {}
    s.game.match = dataclasses.replace(s.game.match, totals=(3, 0, -1, 1))
    assert [seat_score(s, x)[0] for x in range(4)] == [
        "3 points", "0 points", "-1 points", "1 point"
    ]


def test_a_finished_doudizhu_hand_shows_stakes_and_no_base_titles():
    """DDZ-5.2 on the score sheet: stakes won and lost; no Upstream (ZSY-6.3 is not DDZ)."""
    s = FakeSession(ddz())
    _bid_to_landlord(s)
    while s.game.match.phase == "playing":
        s.step(0)
    assert s.game.match.results
    text = "\n".join(render(s, Style()) + score_lines(s))
    assert "stakes won" in text and "lost" in text and "landlord" in text
    assert not any(t in text for t in BASE_TITLES), text
    points = s.game.match.results[0].points
    for seat, p in enumerate(points):
        assert f"total {p:+d}" in score_lines(s)[1 + seat]


def test_a_game_without_titles_never_says_upstream_on_the_score_sheet():
    """Issue #27: a plugin's vocabulary turns the titles off (``places: none``); the score
    sheet and the round's narration said "Upstream" all the same."""
    import types

    from zsy_lan import hookimpl
    from zsy_lan.text.present import round_over_text

    plugin = types.SimpleNamespace(
        name="untitled", version="1.0", description="no titles",
        zsy_vocabulary=hookimpl(lambda table: {"places": "none"}),
    )
    rules = build_rules(4, ["untitled"], plugins={"untitled": plugin})
    s = FakeSession(rules)
    while s.game.match.phase == "playing":
        s.step(0)
    sheet = "\n".join(score_lines(s))
    told = round_over_text(rules, s.game.match, lambda seat: f"seat {seat}")
    assert "out first" in sheet and "Rounds out first" in told
    for text in (sheet, told):
        assert not any(t in text for t in BASE_TITLES), text
    base = FakeSession(build_rules(4))
    while base.game.match.phase == "playing":
        base.step(0)
    assert "Upstream" in "\n".join(score_lines(base))


def test_partnerships_show_the_teams_at_the_table_and_on_the_score_sheet():
    """ZSY-9.1: seats 0 and 2 against 1 and 3."""
    s = FakeSession(build_rules(4, ["partnerships"]))
    table = "\n".join(render(s, Style()))
    assert "team A: seat 0 (you), seat 2 (p2)" in table
    assert "team B: seat 1 (p1), seat 3 (p3)" in table
    while s.game.match.phase == "playing":
        s.step(0)
    sheet = "\n".join(score_lines(s))
    assert "team A - seat 0 (you), seat 2 (p2):" in sheet and "[team B]" in sheet


@pytest.mark.parametrize(
    ("kind", "me", "expected", "banned"),
    [
        ("return", 0, "seat 1 (p1) returns 2 cards to seat 3 (p3), face down", "to you"),
        ("return", 3, "seat 1 (p1) returns 2♠ 2♥ to you, face down", "seat 3"),
        ("return", 1, "you return", "you returns"),
        ("give", 0, "seat 3 (p3) gives 2♠ 2♥ to seat 1 (p1) (tribute)", "you"),
    ],
)
def test_tribute_narration_names_the_real_giver_and_receiver(kind, me, expected, banned):
    """ZSY-7: 'returns to you' only when the cards come to this seat."""
    who = {0: "seat 0 (p0)", 1: "seat 1 (p1)", 2: "seat 2 (p2)", 3: "seat 3 (p3)"}
    giver, receiver = (1, 3) if kind == "return" else (3, 1)
    cards = "2♠ 2♥" if kind == "give" or me in (giver, receiver) else ""
    text = tribute_text(kind, giver, receiver, me, lambda s: "you" if s == me else who[s], cards, 2)
    assert expected in text
    assert banned not in text


def test_the_tribute_duty_line_names_both_seats_in_whole_sentences():
    """ZSY-7: the pending step on the table says who gives or returns to whom."""
    s = FakeSession(build_rules(4))
    state = evolve(s.game.round, phase="tribute", duties=(Duty("return", 0, 2, 2),))
    text = "\n".join(table_lines(state, 0, Style(), names=["a", "b", "c", "d"]))
    assert "you return 2 cards of your choice, face down, to seat 2 (c)." in text
    other = "\n".join(table_lines(state, 1, Style(), names=["a", "b", "c", "d"]))
    assert "seat 0 (a) returns 2 cards of their choice, face down, to seat 2 (c)." in other
    assert "you returns" not in text + other


def test_the_counter_shows_the_unseen_cards_by_rank():
    s = FakeSession(build_rules(4))
    out = "\n".join(handle(s, "c"))
    line = next(x for x in out.splitlines() if x.startswith("Not seen yet"))
    counted = sum(int(part.split(":")[1]) for part in line.split(": ", 1)[1].split())
    view = s.game.view(0)
    assert counted == sum(view.counts) - view.counts[0]  # the others' cards, nothing played yet


def test_rules_command_prints_the_rules_in_effect():
    s = FakeSession(ddz(show_kitty=True))
    out = handle(s, "rules")
    assert out and any("doudizhu" in line.lower() or "dou dizhu" in line.lower() for line in out)


def test_q_at_the_table_is_a_queen_never_leaving():
    s = FakeSession(build_rules(4))
    out: list[str] = []
    _, leave = asyncio.run(_handle(s, "Q", Style(), 0, out.append))
    assert not leave
    _, leave = asyncio.run(_handle(s, "q", Style(), 0, out.append))
    assert not leave


def test_plain_suits_are_words():
    card = parse_cards_exact("10s", 1)[0]
    assert card_text(card, Style(suit_words=True)) == "10 of spades"


def test_wrapped_lines_fit_the_width_counting_wide_suits():
    line = "Your hand (20): " + " ".join(["10♠", "J♥", "Q♣", "K♦", "A♠"] * 4)
    for wide in (False, True):
        lines = wrap(line, 30, wide)
        assert len(lines) > 1
        assert all(text_width(x, wide) <= 30 for x in lines)
        assert " ".join(x.strip() for x in lines) == line
    assert text_width("♠♥♣♦", True) == 7  # ♦ is not ambiguous width
    assert text_width("小王") == 4


def test_ambiguous_width_follows_the_locale_or_the_override():
    assert ambiguous_wide({"LANG": "zh_CN.UTF-8"})
    assert ambiguous_wide({"LC_ALL": "ja_JP.UTF-8", "LANG": "en_US.UTF-8"})
    assert not ambiguous_wide({"LANG": "de_DE.UTF-8"})
    assert ambiguous_wide({"LANG": "en_US.UTF-8", "ZSY_WIDE_SUITS": "1"})
    assert not ambiguous_wide({"LANG": "ko_KR.UTF-8", "ZSY_WIDE_SUITS": "0"})


class ScriptReader:
    """Typed lines one by one; ``None`` (end of input) once they run out or ``wait_for`` shows."""

    def __init__(self, lines, out: list[str] | None = None, wait_for: str | None = None):
        self.lines = list(lines)
        self.prompts: list[str] = []
        self.out = out
        self.wait_for = wait_for

    async def read(self, prompt) -> str | None:
        self.prompts.append(prompt() if callable(prompt) else prompt)
        if self.lines:
            return self.lines.pop(0)
        if self.wait_for is not None and self.out is not None:
            for _ in range(200):  # bounded: at most ~4 s
                if any(self.wait_for in line for line in self.out):
                    break
                await asyncio.sleep(0.02)
            await asyncio.sleep(0.2)  # room for a second (wrong) reminder
        return None


def _my_turn_session() -> FakeSession:
    s = FakeSession(build_rules(4))
    s.seat = s.game.actors()[0]
    return s


def test_help_is_wrapped_to_the_terminal_width():
    s = _my_turn_session()
    out: list[str] = []
    why = asyncio.run(run_table(s, Style(width=40), ScriptReader(["help"]), out.append, Assist()))
    assert why == "end of input"
    assert any("quit to leave" in x or "quit" in x for x in out)
    assert all(text_width(x) <= 40 for x in out), [x for x in out if text_width(x) > 40]


def test_an_idle_turn_is_reminded_once_with_the_timer_countdown():
    """No repeated "the table is waiting for you": one reminder, with since when and the timer."""
    s = _my_turn_session()
    s.changed.set()  # the watcher sees the turn begin
    out: list[str] = []
    reader = ScriptReader([], out, wait_for="Still your turn")
    assist = Assist(timer=60.0, remind=0.05)
    asyncio.run(run_table(s, Style(width=200), reader, out.append, assist))
    reminders = [x for x in out if "Still your turn" in x]
    assert len(reminders) == 1
    assert "since " in reminders[0] and "plays the hint for you in 60 seconds" in reminders[0]
    assert not s.submitted  # the timer has not run out
    assert not any("waiting for you" in x for x in out)


def test_the_prompt_says_whose_turn_with_the_countdown():
    s = _my_turn_session()
    s.changed.set()
    out: list[str] = []

    class Later(ScriptReader):
        async def read(self, prompt):
            for _ in range(100):
                if "Your turn." in out:
                    break
                await asyncio.sleep(0.01)
            return await super().read(prompt)

    reader = Later([""], out)
    asyncio.run(run_table(s, Style(), reader, out.append, Assist(timer=30.0, remind=None)))
    assert any(p.startswith("[your turn, ") and "s left]" in p for p in reader.prompts)


@pytest.mark.parametrize(("answer", "why"), [("yes", "quit"), ("no", "end of input")])
def test_quit_during_a_match_asks_first(answer, why):
    s = FakeSession(build_rules(4))
    out: list[str] = []
    got = asyncio.run(run_table(s, Style(), ScriptReader(["quit", answer]), out.append))
    assert got == why
    assert any("Leave the table while the match is on?" in x for x in out)
    if answer == "no":
        assert "You stay at the table." in out


def test_plain_reader_never_glues_a_notice_to_the_prompt():
    """--plain: a notice arriving while the prompt waits starts its own line; the prompt follows."""
    rfd, wfd = os.pipe()
    stdin = os.fdopen(rfd, "r")
    stdout = io.StringIO()
    reader = PlainReader(stdin=stdin, stdout=stdout)

    async def scenario() -> str | None:
        task = asyncio.create_task(reader.read("> "))
        for _ in range(100):
            if stdout.getvalue():
                break
            await asyncio.sleep(0.01)
        reader.show("* seat 1 (p1): 3♠")
        reader.show("* seat 2 (p2): pass")  # a burst: one prompt after it, not one per line
        await asyncio.sleep(0.01)
        os.write(wfd, b"p\n")
        return await asyncio.wait_for(task, 5)

    try:
        assert asyncio.run(scenario()) == "p"
    finally:
        os.close(wfd)
        stdin.close()
    assert stdout.getvalue() == "> \n* seat 1 (p1): 3♠\n* seat 2 (p2): pass\n> "
    reader.show("* after")  # the line was read (the terminal echoed its Enter): a plain line
    assert stdout.getvalue().endswith("> * after\n")


def test_plain_style_writes_every_suit_as_a_word():
    """--plain: the hand, the table and the narration name suits in words, cards comma-separated."""
    s = _my_turn_session()
    s.notices.put_nowait(Notice("play", "seat 1 (p1): 10♠ J♥"))
    out: list[str] = []
    reader = ScriptReader([], out, wait_for="of hearts")
    asyncio.run(run_table(s, Style(suit_words=True, width=400), reader, out.append, Assist()))
    text = "\n".join(out)
    assert "* seat 1 (p1): 10 of spades, J of hearts" in text
    assert not any(sym in text for sym in "♠♥♣♦"), text


def test_a_choice_that_becomes_ours_without_a_move_starts_our_turn():
    """Private deal: after the last bid the kitty is revealed by deal steps; only then is the
    farmer's double a choice. The screen must show the turn then (auto-play used to stall)."""
    s = _my_turn_session()
    deciding = {"now": False}
    s.game.decision_seats = lambda: (s.seat,) if deciding["now"] else ()
    s.changed.set()  # the screen first sees the table while the deal step is still due
    out: list[str] = []

    class Reveal(ScriptReader):
        async def read(self, prompt):
            if not self.prompts:
                deciding["now"] = True  # the deal step lands: no move, same turn
                s.changed.set()
            return await super().read(prompt)

    reader = Reveal([], out, wait_for="Still your turn")
    asyncio.run(run_table(s, Style(width=200), reader, out.append, Assist(remind=0.05)))
    assert out.count("Your turn.") == 2  # the first screen, then the turn as it began
    assert any("Still your turn" in x for x in out)


def test_a_spring_doubles_the_stake_and_the_hand_over_line_says_why():
    """DDZ-5.1: the landlord went out before any farmer played: a spring, x2."""
    from types import SimpleNamespace

    from zsy_lan.engine.match import RoundResult
    from zsy_lan.ui.render import round_over_text

    s = FakeSession(ddz())
    _bid_to_landlord(s)
    while s.game.match.phase == "playing":
        s.step(0)
    done = s.game.match.round
    lord = done.get("landlord")
    spring = evolve(
        done, finished=(lord,), plays_made=tuple(4 if x == lord else 0 for x in range(3))
    )
    parts = stake_parts(s.game.rules, spring)
    assert parts["spring"] and parts["stake"] == 3 * 2 ** parts["bombs"] * 2
    points = tuple(2 * parts["stake"] if x == lord else -parts["stake"] for x in range(3))
    match = SimpleNamespace(
        results=(RoundResult(1, (lord,), points),), totals=points, round=spring, upstreams=(0,) * 3
    )
    text = round_over_text(s.game.rules, match, lambda x: f"seat {x}")
    assert "the landlord wins" in text and "x2 for the spring" in text
    assert "Upstream" not in text


def test_a_new_deal_is_told_in_the_variant_s_words():
    from zsy_lan.ui.render import dealt_text

    s = FakeSession(ddz())
    r = s.game.round
    assert dealt_text(s.game.rules, r, lambda x: f"seat {x}") == (
        f"hand 1 dealt (open deal); seat {r.turn} bids first"
    )
    base = FakeSession(build_rules(4))
    assert dealt_text(base.game.rules, base.game.round, str).startswith("round 1 dealt")
