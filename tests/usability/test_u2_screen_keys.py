"""The full screen's hand and typed line, as a new player types at them.

Played in tmux (session 7, helper U2): keys that arrive together (a paste, a fast typist,
tmux) after the letter that opened the typed line went to the hand, not the line: "say hi
all" left "ayiall" in the line, the space selected a card and the h asked for a hint;
":gg" then Enter left ":gg" unsent and Enter tried to play the (empty) selection. Typing
"say hi" on the hand sorted it (``s``) and left "ay hi", which the table refused; Escape left
the abandoned text in the line, so the next letter typed was glued to it.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from textual import events
from textual.widgets import Input

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "ui"))
from screen_support import screen_table  # noqa: E402
from test_screen import SIZE, _app, _log_text, _my_turn  # noqa: E402

from zsy_lan.ui.screen import HandView, key_then_line  # noqa: E402

pytestmark = [pytest.mark.timeout(60)]

_CHARS = {"space": " ", "colon": ":", "tab": "\t"}


async def _burst(pilot, app, keys: list[str]) -> None:
    """Send every key before the app handles the first (what a paste or tmux does)."""
    driver = app._driver
    for key in keys:
        char = _CHARS.get(key, key if len(key) == 1 else None)
        event = events.Key(key, char)
        event.set_sender(app)
        driver.send_message(event)
    for _i in range(5):
        await pilot.pause()


async def _wait_log(pilot, app, text: str) -> str:
    for _i in range(100):
        await pilot.pause(0.02)
        if text in _log_text(app):
            break
    return _log_text(app)


@pytest.mark.asyncio
async def test_a_burst_of_keys_after_the_opening_letter_goes_to_the_typed_line(tmp_path):
    table = screen_table(tmp_path)
    app = _app(table)
    try:
        async with app.run_test(size=SIZE) as pilot:
            await _my_turn(pilot, table)
            hand = app.query_one(HandView)
            await _burst(pilot, app, ["w", "h", "o", "space", "a", "l", "l"])
            assert app.query_one("#cmd", Input).value == "who all"
            assert hand.selected == set()  # the space selected no card
            # Enter in the same burst sends the line (it does not play the empty selection)
            app.query_one("#cmd", Input).value = ""
            hand.focus()
            await pilot.pause()
            await _burst(pilot, app, ["colon", "g", "g", "enter"])
            log = await _wait_log(pilot, app, "Good game!")
            assert "» you: Good game!" in log
            assert app.query_one("#cmd", Input).value == ""
            assert 0 in table.game.actors()  # nothing was played
    finally:
        await table.close()


@pytest.mark.asyncio
async def test_say_typed_on_the_hand_is_said_and_the_hand_keeps_its_order(tmp_path):
    table = screen_table(tmp_path)
    app = _app(table)
    try:
        async with app.run_test(size=SIZE) as pilot:
            await _my_turn(pilot, table)
            by_suit = app.style.by_suit
            await pilot.press(*"say", "space", *"hi")
            assert app.query_one("#cmd", Input).value == "ay hi"
            await pilot.press("enter")
            log = await _wait_log(pilot, app, "» you: hi")
            assert "» you: hi" in log
            assert app.style.by_suit == by_suit  # the s that began "say" is not a sort
            assert app.query_one(HandView).has_focus
    finally:
        await table.close()


@pytest.mark.asyncio
async def test_phrases_typed_on_the_hand_lists_the_phrases_and_drops_the_hint(tmp_path):
    table = screen_table(tmp_path)
    app = _app(table)
    try:
        async with app.run_test(size=SIZE) as pilot:
            await _my_turn(pilot, table)
            await pilot.press(*"phrases")  # p opens the typed line (no pass); the word goes on
            assert app.query_one("#cmd", Input).value == "phrases"
            await pilot.press("enter")
            log = await _wait_log(pilot, app, ":gg")
            assert ":gg" in log and "'phrases'" not in log
            assert app.query_one(HandView).selected == set()
            assert 0 in table.game.actors()  # nothing was played
    finally:
        await table.close()


@pytest.mark.asyncio
async def test_escape_in_the_typed_line_clears_it(tmp_path):
    table = screen_table(tmp_path)
    app = _app(table)
    try:
        async with app.run_test(size=SIZE) as pilot:
            await _my_turn(pilot, table)
            await pilot.press("w", "x")
            assert app.query_one("#cmd", Input).value == "wx"
            await pilot.press("escape")
            assert app.query_one(HandView).has_focus
            await pilot.press("w", "h", "o")
            assert app.query_one("#cmd", Input).value == "who"
    finally:
        await table.close()


@pytest.mark.parametrize(
    ("key", "text", "meant"),
    [
        ("s", "ay hi all", "say hi all"),
        ("s", "core", "score"),
        ("s", "ort", "sort"),
        ("h", "elp", "help"),
        ("h", "int", "hint"),
        ("p", "hrases", "phrases"),
        ("ph", "rases", "phrases"),  # p passed (or was refused), h hinted, r opened the line
        ("hs", "ay gg", "say gg"),
        ("ss", "core", "score"),
        ("s", "who", None),  # a sort, then a word of its own
        ("s", "auto", None),
        ("s", "3 3", None),  # cards after a sort stay cards
        ("x", "ay hi", None),  # x is no hand key
        ("", "ay", None),
        (None, "ay", None),
    ],
)
def test_key_then_line_reads_the_word_the_key_began(key, text, meant) -> None:
    assert key_then_line(key, text) == meant


@pytest.mark.asyncio
async def test_a_burst_after_tab_goes_to_the_typed_line(tmp_path):
    table = screen_table(tmp_path)
    app = _app(table)
    try:
        async with app.run_test(size=SIZE) as pilot:
            await _my_turn(pilot, table)
            await _burst(pilot, app, ["tab", "s", "a", "y", "space", "h", "i"])
            assert app.query_one("#cmd", Input).value == "say hi"
            assert app.query_one(HandView).selected == set()  # h was no hint
    finally:
        await table.close()
