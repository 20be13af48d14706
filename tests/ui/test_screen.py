"""The full-screen table (issue #14), driven with Textual's Pilot on a local table.

Every interaction the issue lists: arrows, space, Enter, p, h, number keys, the
mouse, the typed line, leaving with a confirmation, overlays, the minimum size
and resizing, auto-play and the turn timer's countdown, and a screen that stays
responsive while a bot thinks. No network: a LocalTable is the session.
"""

from __future__ import annotations

import asyncio
import threading

import pytest
from screen_support import first_move, screen_table

from zsy_lan.engine.cards import card_str
from zsy_lan.engine.ruleset import build_rules
from zsy_lan.table.local_table import LocalTable
from zsy_lan.ui.line_mode import hint_list
from zsy_lan.ui.render import Style
from zsy_lan.ui.screen import (
    MIN_COLUMNS,
    MIN_ROWS,
    Confirm,
    HandView,
    ScreenOptions,
    TableApp,
    TextOverlay,
    centre_lines,
    seat_lines,
)

SIZE = (100, 30)


def _app(table, **kw) -> TableApp:
    style = kw.pop("style", Style(color=True))
    options = kw.pop("options", ScreenOptions(clock=lambda: 0.0))
    return TableApp(table, style, kw.pop("assist", None), options)


async def _my_turn(pilot, table) -> None:
    """Start the table inside the app's loop and wait (bounded) until seat 0 must act."""
    if table._bots is None:
        table.start()
    for _i in range(400):
        await pilot.pause(0.02)
        if table.seat in table.game.actors() and not table.game.finished():
            await pilot.pause()
            return
    raise AssertionError("seat 0's turn never came")


def _hand(app: TableApp) -> HandView:
    return app.query_one(HandView)


def _log_text(app: TableApp) -> str:
    """The log as one line (it wraps long lines to its width)."""
    return " ".join(line.text.strip() for line in app.query_one("#log").lines)


def _status(app: TableApp) -> str:
    return str(app.query_one("#status").render())


def _single(table) -> int:
    """A card seat 0 may play alone now (a legal single)."""
    legal = table.game.legal(0)
    return next(a.cards[0] for a in legal if len(a.cards) == 1)


@pytest.mark.asyncio
async def test_arrows_move_space_selects_raised_escape_clears(tmp_path):
    table = screen_table(tmp_path)
    app = _app(table)
    try:
        async with app.run_test(size=SIZE) as pilot:
            await _my_turn(pilot, table)
            hand = _hand(app)
            assert hand.cursor == 0 and not hand.selected
            await pilot.press("right", "right")
            assert hand.cursor == 2
            await pilot.press("left")
            assert hand.cursor == 1
            await pilot.press("space")
            assert hand.selected == {1}
            # the selected card is drawn raised: on the first row, not on the second
            rows = str(hand.render()).split("\n")
            face = card_str(hand.cards[1])
            assert face in rows[0] and face not in rows[1].split()
            await pilot.press("escape")
            assert not hand.selected
            await pilot.press("left", "left")  # wraps round
            assert hand.cursor == len(hand.cards) - 1
    finally:
        await table.close()


@pytest.mark.asyncio
async def test_enter_with_nothing_selected_plays_nothing_and_says_what_to_do(tmp_path):
    table = screen_table(tmp_path)
    app = _app(table)
    try:
        async with app.run_test(size=SIZE) as pilot:
            await _my_turn(pilot, table)
            before = len(table.game.log)
            await pilot.press("enter")
            await pilot.pause()
            assert len(table.game.log) == before
            assert "Select cards with Space" in _status(app)
    finally:
        await table.close()


@pytest.mark.asyncio
async def test_selected_cards_and_enter_play_them(tmp_path):
    table = screen_table(tmp_path)
    app = _app(table)
    try:
        async with app.run_test(size=SIZE) as pilot:
            await _my_turn(pilot, table)
            card = _single(table)
            hand = _hand(app)
            i = hand.cards.index(card)
            await pilot.press(*["right"] * i, "space", "enter")
            await pilot.pause()
            mine = [a for a in table.game.log if a.seat == 0]
            assert mine and mine[-1].cards == (card,)
            assert not hand.selected
    finally:
        await table.close()


@pytest.mark.asyncio
async def test_a_refused_play_gives_the_reason_and_plays_nothing(tmp_path):
    table = screen_table(tmp_path)
    app = _app(table)
    try:
        async with app.run_test(size=SIZE) as pilot:
            await _my_turn(pilot, table)
            hand = _hand(app)
            legal = {tuple(sorted(a.cards)) for a in table.game.legal(0)}
            # two cards that are no legal play together (ZSY-4.1: a combination, or nothing)
            pair = next(
                (i, j)
                for i in range(len(hand.cards))
                for j in range(i + 1, len(hand.cards))
                if tuple(sorted((hand.cards[i], hand.cards[j]))) not in legal
            )
            before = len(table.game.log)
            hand.selected = set(pair)
            await pilot.press("enter")
            await pilot.pause()
            assert len(table.game.log) == before
            assert "try again" in _status(app)
    finally:
        await table.close()


@pytest.mark.asyncio
async def test_p_passes(tmp_path):
    table = screen_table(tmp_path)
    app = _app(table)
    try:
        async with app.run_test(size=SIZE) as pilot:
            await _my_turn(pilot, table)
            assert table.game.view(0).trick is not None  # seed s1: a trick to beat (ZSY-4.3)
            await pilot.press("p", "enter")
            await pilot.pause()
            mine = [a for a in table.game.log if a.seat == 0]
            assert mine and mine[-1].kind == "pass"
    finally:
        await table.close()


@pytest.mark.asyncio
async def test_h_cycles_hints_into_the_selection_and_plays_nothing(tmp_path):
    table = screen_table(tmp_path)
    app = _app(table)
    try:
        async with app.run_test(size=SIZE) as pilot:
            await _my_turn(pilot, table)
            view = table.game.view(0)
            hints = hint_list(table.rules, view, 0, table.game.legal(0))
            before = len(table.game.log)
            await pilot.press("h")
            assert sorted(_hand(app).selected_cards()) == sorted(hints[0].cards)
            assert "Hint (1/" in _status(app)
            await pilot.press("h")
            assert sorted(_hand(app).selected_cards()) == sorted(hints[1].cards)
            assert len(table.game.log) == before
            await pilot.press("enter")
            await pilot.pause()
            assert [a for a in table.game.log if a.seat == 0][-1] == hints[1]
    finally:
        await table.close()


@pytest.mark.asyncio
async def test_number_keys_pick_from_the_legal_list_and_enter_plays(tmp_path):
    table = screen_table(tmp_path)
    app = _app(table)
    try:
        async with app.run_test(size=SIZE) as pilot:
            await _my_turn(pilot, table)
            legal = table.game.legal(0)
            await pilot.press("2")
            assert app.chosen == legal[1]
            assert "1) " in str(app.query_one("#centre").render())  # the list is on screen
            await pilot.press("enter")
            await pilot.pause()
            assert [a for a in table.game.log if a.seat == 0][-1] == legal[1]
    finally:
        await table.close()


@pytest.mark.asyncio
async def test_number_keys_choose_a_bid_in_dou_dizhu(tmp_path):
    """DDZ-2: the bids are moves without cards; a number picks one, Enter bids."""
    table = screen_table(tmp_path, 3, ["doudizhu"], rounds=3)
    app = _app(table)
    try:
        async with app.run_test(size=SIZE) as pilot:
            await _my_turn(pilot, table)
            legal = table.game.legal(0)
            assert all(a.kind in ("bid", "pass") or not a.cards for a in legal)
            await pilot.press("1", "enter")
            await pilot.pause()
            assert [a for a in table.game.log if a.seat == 0][-1] == legal[0]
    finally:
        await table.close()


@pytest.mark.asyncio
async def test_the_mouse_selects_and_unselects_a_card(tmp_path):
    table = screen_table(tmp_path)
    app = _app(table)
    try:
        async with app.run_test(size=SIZE) as pilot:
            await _my_turn(pilot, table)
            hand = _hand(app)
            _i, at, _w = hand.rows()[0][3]  # the 4th card's column (after the padding of 1)
            await pilot.click(HandView, offset=(1 + at, 1))
            assert hand.selected == {3}
            await pilot.click(HandView, offset=(1 + at, 0))  # raised now: click it up there
            assert hand.selected == set()
    finally:
        await table.close()


@pytest.mark.asyncio
async def test_the_typed_line_plays_cards(tmp_path):
    table = screen_table(tmp_path)
    app = _app(table)
    try:
        async with app.run_test(size=SIZE) as pilot:
            await _my_turn(pilot, table)
            card = _single(table)
            await pilot.press("tab")
            await pilot.press(*card_str(card, ascii_suits=True).lower(), "enter")
            await pilot.pause()
            assert [a for a in table.game.log if a.seat == 0][-1].cards == (card,)
    finally:
        await table.close()


@pytest.mark.asyncio
async def test_a_letter_typed_on_the_hand_starts_the_line_and_q_there_is_a_queen(tmp_path):
    """A single rank letter in the typed line is always a card: q never leaves."""
    table = screen_table(tmp_path)
    app = _app(table)
    try:
        async with app.run_test(size=SIZE) as pilot:
            await _my_turn(pilot, table)
            await pilot.press("q")
            line = app.query_one("#cmd")
            assert app.focused is line and line.value == "q"
            await pilot.press("enter")
            await pilot.pause()
            assert app.is_running and not isinstance(app.screen, Confirm)
            assert "Q is a queen" in _log_text(app) or "queen" in _log_text(app).lower()
            await pilot.press("escape")
            assert app.focused is _hand(app)
    finally:
        await table.close()


@pytest.mark.asyncio
async def test_leaving_asks_first_by_key_and_by_quit(tmp_path):
    table = screen_table(tmp_path)
    app = _app(table)
    try:
        async with app.run_test(size=SIZE) as pilot:
            await _my_turn(pilot, table)
            await pilot.press("ctrl+q", "ctrl+q")  # asked once, however often pressed
            assert isinstance(app.screen, Confirm)
            await pilot.press("n")
            assert not isinstance(app.screen, Confirm) and app.is_running
            assert "You stay" in _status(app)
            await pilot.press("tab", *"quit", "enter")
            await pilot.pause()
            assert isinstance(app.screen, Confirm)
            await pilot.press("y")
            await pilot.pause()
        assert app.return_value == "quit"
    finally:
        await table.close()


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("key", "title", "needle"),
    [
        ("f1", "Help", "Space selects"),
        ("f2", "Score sheet", "No round finished yet."),
        ("f3", "Card counter", "Played this round"),
        ("f4", "Rules", "ZSY"),
        ("f5", "Seats", "seat 1"),
    ],
)
async def test_overlays_open_over_the_table_and_escape_closes(tmp_path, key, title, needle):
    table = screen_table(tmp_path)
    app = _app(table)
    try:
        async with app.run_test(size=SIZE) as pilot:
            await _my_turn(pilot, table)
            await pilot.press(key)
            await pilot.pause()
            assert isinstance(app.screen, TextOverlay)
            assert app.screen.title_text == title
            assert needle in "\n".join(app.screen.lines)
            await pilot.press("escape")
            assert not isinstance(app.screen, TextOverlay)
    finally:
        await table.close()


@pytest.mark.asyncio
async def test_below_the_minimum_size_a_clear_sentence_and_resizing_back_works(tmp_path):
    table = screen_table(tmp_path)
    app = _app(table)
    try:
        async with app.run_test(size=(50, 15)) as pilot:
            await pilot.pause()
            assert app.screen.has_class("small")
            said = str(app.query_one("#small").render())
            assert f"{MIN_COLUMNS}x{MIN_ROWS}" in said and "50x15" in said
            await pilot.resize_terminal(100, 30)
            await pilot.pause()
            assert not app.screen.has_class("small")
            await _my_turn(pilot, table)
            await pilot.resize_terminal(61, 21)
            await pilot.pause()
            assert not app.screen.has_class("small")
            hand = _hand(app)
            assert sum(len(row) for row in hand.rows()) == len(hand.cards)
            assert all(
                at + w <= hand.content_region.width for row in hand.rows() for _i, at, w in row
            )
    finally:
        await table.close()


@pytest.mark.asyncio
async def test_auto_typed_plays_for_the_player(tmp_path):
    table = screen_table(tmp_path)
    app = _app(table)
    try:
        async with app.run_test(size=SIZE) as pilot:
            await _my_turn(pilot, table)
            before = len([a for a in table.game.log if a.seat == 0])
            await pilot.press("tab", *"auto", "enter")
            for _i in range(300):  # the planner thinks in a worker thread
                await pilot.pause(0.02)
                if len([a for a in table.game.log if a.seat == 0]) > before:
                    break
            assert app.assist.auto
            # at least the move it was typed on; auto-play goes on playing this seat's turns,
            # and one can follow at once (everyone passed: the seat leads again), so a second
            # move may be there by now (CI saw two)
            assert len([a for a in table.game.log if a.seat == 0]) >= before + 1
            assert "auto-play: played" in _log_text(app)
    finally:
        await table.close()


@pytest.mark.asyncio
async def test_the_turn_timer_counts_down_on_a_clock_the_test_holds(tmp_path):
    from zsy_lan.ui.line_mode import Assist

    now = [100.0]
    table = screen_table(tmp_path)
    app = _app(table, assist=Assist(timer=30), options=ScreenOptions(clock=lambda: now[0]))
    try:
        async with app.run_test(size=SIZE) as pilot:
            await _my_turn(pilot, table)
            assert "in 30 seconds" in str(app.query_one("#centre").render())
            now[0] += 12
            app._tick()
            assert "in 18 seconds" in str(app.query_one("#centre").render())
    finally:
        await table.close()


@pytest.mark.asyncio
async def test_the_screen_answers_keys_while_a_bot_is_thinking(tmp_path):
    """Bots think in a worker thread: a bot stuck thinking never freezes the hand."""
    rules = build_rules(4, [])
    gate = threading.Event()
    thinking = threading.Event()

    def slow(rules_, view, seat):
        thinking.set()
        gate.wait(30)
        return first_move(rules_, view, seat)

    deciders = {1: slow, 2: first_move, 3: first_move}

    table = LocalTable(rules, 1, 0, deciders, tmp_path / "rec.jsonl", seed="s2")
    app = _app(table)
    try:
        async with app.run_test(size=SIZE) as pilot:
            table.start()
            for _i in range(200):
                await pilot.pause(0.02)
                if thinking.is_set() or 0 in table.game.actors():
                    break
            if 0 in table.game.actors():  # our turn first: play, then seat 1 thinks
                await pilot.press("1", "enter")
                for _i in range(200):
                    await pilot.pause(0.02)
                    if thinking.is_set():
                        break
            assert thinking.is_set()
            hand = _hand(app)
            start = hand.cursor
            await pilot.press("right", "space")
            assert hand.cursor == (start + 1) % len(hand.cards) and hand.selected
            gate.set()
    finally:
        gate.set()
        await table.close()


def test_the_centre_holds_the_trick_and_no_seat_or_hand_lines(tmp_path):
    table = screen_table(tmp_path)

    async def go():
        table.start()
        for _i in range(400):
            if 0 in table.game.actors():
                break
            await asyncio.sleep(0.02)
        try:
            lines = centre_lines(table, Style(ascii_suits=True))
            assert lines[0].startswith("Round 1")
            assert any(line.startswith("To beat:") for line in lines)
            assert not any(line.startswith("Your hand") for line in lines)
            assert not any("last:" in line for line in lines)
            assert any("local match" in line for line in lines)  # the deal mode is always said
            panel = seat_lines(table, 1, Style(ascii_suits=True))
            assert panel[0] == "bot-1 [bot]"
            assert panel[1].endswith("cards")
            assert "connected" not in " ".join(panel)  # zsy play: no network (issue #26)
            table.info.deal_mode = "open"
            assert seat_lines(table, 1, Style(ascii_suits=True))[-1] == "connected"
        finally:
            await table.close()

    asyncio.run(go())


def test_seat_panels_warn_of_one_or_two_cards_in_words():
    """PLAYERS.md: the one/two-card warning is a word, never colour alone."""
    from zsy_lan.ui.render import count_text

    assert "LEFT!" in count_text(1) and "LEFT!" in count_text(2)


def test_colour_never_draws_the_whole_screen_without_colour(tmp_path, monkeypatch):
    """--color never (Style.detect decides, as in the line mode): Textual's no-colour
    filter; with colour there is none."""
    from textual.filter import Monochrome, NoColor

    def plain(app):
        return any(isinstance(f, NoColor) for f in app.get_line_filters())

    monkeypatch.delenv("NO_COLOR", raising=False)
    table = screen_table(tmp_path)
    never = Style.detect("never", ascii_suits=False)
    assert plain(TableApp(table, never))
    assert not any(isinstance(f, Monochrome) for f in TableApp(table, never).get_line_filters())
    always = Style.detect("always", ascii_suits=False)
    assert not plain(TableApp(table, always))
    monkeypatch.setenv("NO_COLOR", "1")  # --color always wins over NO_COLOR, as in line mode
    assert not plain(TableApp(table, always))
    auto = Style.detect("auto", ascii_suits=False)  # NO_COLOR alone: no colour
    assert plain(TableApp(table, auto))


@pytest.mark.asyncio
async def test_no_colour_leaves_no_grey_and_no_background_on_the_screen(tmp_path):
    """Issue #26: NO_COLOR drew 256-colour greys on a dark background. Every segment of
    the drawn screen now has the terminal's own colours; the cursor is still reversed."""
    table = screen_table(tmp_path)
    app = _app(table, style=Style(color=False))
    try:
        async with app.run_test(size=(80, 24)) as pilot:
            await _my_turn(pilot, table)
            await pilot.press("h")  # a selection, the status line: every kind of drawing
            await pilot.pause()
            filters = app.get_line_filters()
            reversed_seen = False
            for strip in app.screen._compositor.render_strips():
                for f in filters:
                    strip = strip.apply_filter(f, app.screen.styles.background)
                for seg in strip:
                    style = seg.style
                    if style is None:
                        continue
                    assert style.color is None or style.color.is_default, (seg.text, style)
                    assert style.bgcolor is None or style.bgcolor.is_default, (seg.text, style)
                    reversed_seen |= bool(style.reverse)
            assert reversed_seen, "the cursor is drawn reversed, not by colour"
    finally:
        await table.close()


def test_the_four_colour_deck_gives_each_suit_its_colour():
    from zsy_lan.engine.cards import make_card
    from zsy_lan.ui.screen import card_colour

    suits = [card_colour(make_card(5, s), True) for s in range(4)]
    assert len(set(suits)) == 4  # diamonds, clubs, hearts, spades all differ
    classic = [card_colour(make_card(5, s), False) for s in range(4)]
    assert classic[0] == classic[2] == "red" and classic[1] == classic[3] == ""


def test_a_dropped_or_held_seat_says_so_in_words(tmp_path):
    table = screen_table(tmp_path)
    table.info.seats[2].connected = False
    table.info.seats[2].held_by_bot = True
    panel = seat_lines(table, 2, Style())
    assert "DISCONNECTED" in panel[-1] and "[bot holding]" in panel[0]


def test_the_full_screen_is_not_used_for_plain_or_a_pipe(monkeypatch):
    from zsy_lan.ui import screen

    assert screen.screen_wanted(plain=True) is False
    monkeypatch.setattr("sys.stdin.isatty", lambda: False, raising=False)
    assert screen.screen_wanted(plain=False) is False


@pytest.mark.slow
@pytest.mark.asyncio
async def test_the_match_over_shows_the_score_sheet_and_enter_leaves(tmp_path):
    from zsy_lan.ui.line_mode import Assist

    table = screen_table(tmp_path)
    # auto-play only brings the end: without its pause before each of ~40 moves
    app = _app(table, assist=Assist(auto=True, auto_pause=0.0))
    try:
        async with app.run_test(size=SIZE) as pilot:
            table.start()
            for _i in range(1500):
                await pilot.pause(0.02)
                if isinstance(app.screen, TextOverlay):
                    break
            assert table.game.finished()
            assert app.screen.title_text.startswith("Match over")
            assert any("Score sheet" in line for line in app.screen.lines)
            await pilot.press("enter")
            await pilot.pause()
        assert app.return_value == "match over"
    finally:
        await table.close()


@pytest.mark.asyncio
async def test_s_sorts_by_suit_c_and_question_mark_open_the_counter_and_the_list(tmp_path):
    from zsy_lan.engine.cards import suit_of

    table = screen_table(tmp_path)
    app = _app(table)
    try:
        async with app.run_test(size=SIZE) as pilot:
            await _my_turn(pilot, table)
            log_before = _log_text(app)
            await pilot.press("right", "space")
            picked = _hand(app).selected_cards()
            await pilot.press("s")
            await pilot.pause()
            suits = [suit_of(c) for c in _hand(app).cards if suit_of(c) is not None]
            assert suits == sorted(suits)  # grouped by suit now
            assert _hand(app).selected_cards() == picked  # the selection stays on its card
            assert _log_text(app) == log_before  # no table reprinted into the log
            await pilot.press("c")
            await pilot.pause()
            assert isinstance(app.screen, TextOverlay) and app.screen.title_text == "Card counter"
            await pilot.press("escape", "question_mark")
            await pilot.pause()
            assert app.screen.title_text == "Your legal moves"
            assert any(line.strip().startswith("#1") for line in app.screen.lines)
    finally:
        await table.close()


def test_a_terminal_too_small_gets_the_line_mode_and_one_sentence(monkeypatch, capsys):
    import os

    from zsy_lan.ui import screen

    monkeypatch.setattr("sys.stdin.isatty", lambda: True, raising=False)
    monkeypatch.setattr("sys.stdout.isatty", lambda: True, raising=False)
    monkeypatch.setenv("TERM", "xterm-256color")
    monkeypatch.setattr(screen.shutil, "get_terminal_size", lambda *a: os.terminal_size((50, 15)))
    assert screen.screen_wanted(plain=False) is False
    said = capsys.readouterr().out
    assert "50x15" in said and f"{MIN_COLUMNS}x{MIN_ROWS}" in said and "line mode" in said
    monkeypatch.setattr(screen.shutil, "get_terminal_size", lambda *a: os.terminal_size((80, 24)))
    assert screen.screen_wanted(plain=False) is True


@pytest.mark.asyncio
async def test_a_stopped_table_is_left_without_asking(tmp_path):
    table = screen_table(tmp_path)
    app = _app(table)
    try:
        async with app.run_test(size=SIZE) as pilot:
            await _my_turn(pilot, table)
            table.info.stopped = "the table stopped: a test"
            await pilot.press("ctrl+q")
            await pilot.pause()
        assert app.return_value == "quit"
    finally:
        await table.close()


@pytest.mark.asyncio
async def test_ascii_and_cjk_wide_suits_keep_every_line_in_letters(tmp_path):
    """--ascii: the log's narration too; a CJK terminal (wide ♠♥♣) gets letters, since
    Textual lays the symbols out as one column and the frames would break."""
    table = screen_table(tmp_path)
    app = _app(table, style=Style(color=True, wide_ambiguous=True))
    assert app.style.ascii_suits
    try:
        async with app.run_test(size=SIZE) as pilot:
            await _my_turn(pilot, table)
            log = _log_text(app)
            assert "seat 1 (bot-1):" in log
            assert not any(sym in log for sym in "♠♥♣♦")
    finally:
        await table.close()


@pytest.mark.asyncio
async def test_the_typed_line_takes_a_whole_play_like_10_j_q_k_a(tmp_path):
    """Dou Dizhu, seat 0 bids 3 and leads (DDZ-2.3): a straight typed by ranks is played."""
    from zsy_lan.engine.cards import RANK_NAMES, rank_of

    table = screen_table(tmp_path, 3, ["doudizhu"], rounds=3)
    app = _app(table)
    try:
        async with app.run_test(size=SIZE) as pilot:
            await _my_turn(pilot, table)
            bid3 = next(a for a in table.game.legal(0) if a.kind == "bid" and a.value == 3)
            await pilot.press(str(table.game.legal(0).index(bid3) + 1), "enter")
            await _my_turn(pilot, table)
            assert table.game.view(0).phase == "play"
            longest = max(table.game.legal(0), key=lambda a: len(set(map(rank_of, a.cards))))
            ranks = " ".join(RANK_NAMES[r] for r in sorted({rank_of(c) for c in longest.cards}))
            assert len(longest.cards) >= 5 and len(set(map(rank_of, longest.cards))) >= 5
            await pilot.press("tab", *ranks, "enter")
            await pilot.pause()
            played = [a for a in table.game.log if a.seat == 0][-1]
            assert sorted(map(rank_of, played.cards)) == sorted(map(rank_of, longest.cards))
    finally:
        await table.close()


@pytest.mark.asyncio
async def test_one_reminder_in_the_log_when_the_turn_drags_on(tmp_path):
    from zsy_lan.ui.line_mode import Assist

    table = screen_table(tmp_path)
    app = _app(table, assist=Assist(remind=0.2))
    try:
        async with app.run_test(size=SIZE) as pilot:
            await _my_turn(pilot, table)
            for _i in range(100):
                await pilot.pause(0.02)
                if "Still your turn" in _log_text(app):
                    break
            assert _log_text(app).count("Still your turn") == 1
            assert table.seat in table.game.actors()  # a reminder plays nothing
    finally:
        await table.close()


@pytest.mark.asyncio
async def test_the_tribute_return_is_chosen_on_the_hand_zsy_7(tmp_path):
    """ZSY-7: in round 2 seat 0 (seed s3) receives the tribute and returns a card of its
    choice, face down: the middle says so, and Space + Enter return the selected card."""
    table = screen_table(tmp_path, 4, (), rounds=2, seed="s3")
    table.start()
    for _i in range(3000):  # round 1, every seat on the first legal move (bounded polling)
        r = table.game.round
        if r is not None and r.round_no == 2 and r.phase == "tribute":
            break
        if 0 in table.game.actors():
            await table.submit(first_move(table.rules, table.game.view(0), 0))
        else:
            await asyncio.sleep(0.01)
    r = table.game.round
    assert r is not None and (r.round_no, r.phase) == (2, "tribute"), (r.round_no, r.phase)
    app = _app(table)
    try:
        async with app.run_test(size=SIZE) as pilot:
            await _my_turn(pilot, table)
            view = table.game.view(0)
            assert view.phase == "tribute" and view.duties[0].kind == "return"
            centre = str(app.query_one("#centre").render()).replace("\n  ", " ")
            assert "you return a card of your choice, face down" in centre
            hand = _hand(app)
            card = hand.cards[0]
            await pilot.press("home", "space", "enter")
            await pilot.pause()
            mine = [a for a in table.game.log if a.seat == 0][-1]
            assert mine.kind == "return" and mine.cards == (card,)
    finally:
        await table.close()


@pytest.mark.asyncio
async def test_a_drawing_fault_is_said_in_the_log_and_the_screen_goes_on(tmp_path, monkeypatch):
    """A local fault: one sentence, no traceback, never blamed on a seat; the next change
    draws again."""
    table = screen_table(tmp_path)
    app = _app(table)
    try:
        async with app.run_test(size=SIZE) as pilot:
            await _my_turn(pilot, table)
            real = app._centre_text
            calls = []

            def broken():
                calls.append(1)
                if len(calls) == 1:
                    raise ValueError("boom")
                return real()

            monkeypatch.setattr(app, "_centre_text", broken)
            table.changed.set()
            await pilot.pause()
            assert "could not draw a change (boom)" in _log_text(app)
            assert app.is_running
            table.changed.set()
            await pilot.pause()
            assert len(calls) == 2
    finally:
        await table.close()


@pytest.mark.asyncio
async def test_keys_reach_the_hand_after_a_resize_below_the_minimum_and_back(tmp_path):
    """Issue #26: shrunk below 60x20 (the table hidden) and grown back, the hand had no
    focus and took no keys until Tab and Enter. Focus survives any resize."""
    table = screen_table(tmp_path)
    app = _app(table)
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            await _my_turn(pilot, table)
            for small in ((59, 19), (40, 10)):
                await pilot.resize_terminal(*small)
                await pilot.pause()
                assert app.screen.has_class("small")
                await pilot.resize_terminal(120, 40)
                await pilot.pause()
                assert not app.screen.has_class("small")
                hand = _hand(app)
                assert app.focused is hand
                await pilot.press("h")
                assert hand.selected, "h put a hint in the selection"
                await pilot.press("escape")
                assert not hand.selected
                at = hand.cursor
                await pilot.press("right", "space")
                assert hand.selected == {(at + 1) % len(hand.cards)}
                await pilot.press("escape")
            # under an overlay (help) too: closed after the resize, the hand has the keys
            await pilot.press("f1")
            await pilot.pause()
            await pilot.resize_terminal(59, 19)
            await pilot.pause()
            await pilot.resize_terminal(120, 40)
            await pilot.pause()
            await pilot.press("escape")
            await pilot.pause()
            assert not isinstance(app.screen, TextOverlay)
            assert app.focused is _hand(app)
            # a letter still opens the typed line, and Escape brings the keys home
            await pilot.press("x")
            assert app.focused is app.query_one("#cmd")
            await pilot.press("escape")
            assert app.focused is _hand(app)
    finally:
        await table.close()


def test_rows_break_between_units_never_inside_one():
    """Issue #26: a frame too narrow cut words with ``…``; rows now break at plain spaces
    only, tags and phrases glued, and only a unit wider than a row is cut."""
    from zsy_lan.ui.screen import fit_rows, glue_phrases, glue_tags, key_rows

    assert fit_rows(glue_tags("ana [bot holding]"), 13) == ["ana", "[bot holding]"]
    assert fit_rows(glue_phrases("13 cards, Second-Upstream, team A"), 22) == [
        "13 cards,",
        "Second-Upstream,",
        "team A",
    ]
    # a glued tag wider than the whole row (Spanish, six seats): broken at its own spaces
    held = "bot-1 [un bot ocupa el asiento]"
    rows = fit_rows(glue_tags(held), 13)
    assert " ".join(rows).split() == held.split()
    assert all(len(r) <= 13 for r in rows), rows
    moves = "Moves: 1)\u00a06♦   2)\u00a010♣"
    assert fit_rows(moves, 14, "  ") == ["Moves: 1) 6♦", "  2) 10♣"]
    cut = fit_rows("abcdefghij", 6)  # wider than a row: cut, nothing lost
    assert all(len(r) <= 6 for r in cut) and "".join(cut).replace(" ", "") == "abcdefghij"
    for width in (58, 78, 118):
        rows = key_rows(width)
        assert 1 <= len(rows) <= 2 and all(len(r) <= width for r in rows)
        assert rows[-1].endswith("Ctrl-Q leave")  # the way out is always in the footer

