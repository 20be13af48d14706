"""Full screen: a word that starts with p is never a pass (session 8, helper U3, gap 1).

Before: on the player's turn a ``p`` on the hand passed at once, so a player who began
typing "phrases", "play 3 3" or a chat line on the hand passed by accident (the docs
said to start such a line with Tab). Now ``p`` opens the typed line like any other
letter: ``p`` then Enter passes (two keys, and the status line says so), anything
typed after the ``p`` goes on as the word. Passing itself is ZSY-4.3.
"""

from __future__ import annotations

import pytest
from screen_support import screen_table
from test_screen import _my_turn  # tests/ui is on sys.path (pytest's rootdir insertion)
from textual.widgets import Input

from zsy_lan.table.local_table import LocalTable
from zsy_lan.ui.render import Style
from zsy_lan.ui.screen import HandView, ScreenOptions, TableApp

SIZE = (100, 30)

pytestmark = [pytest.mark.timeout(60)]


def _app(table: LocalTable) -> TableApp:
    return TableApp(table, Style(color=True), None, ScreenOptions(clock=lambda: 0.0))


def _mine(table: LocalTable) -> list:
    return [a for a in table.game.log if a.seat == 0]


def _status(app: TableApp) -> str:
    return str(app.query_one("#status").render())


@pytest.mark.asyncio
async def test_p_alone_passes_nothing_until_enter_and_says_enter_passes(tmp_path):
    table = screen_table(tmp_path)
    app = _app(table)
    try:
        async with app.run_test(size=SIZE) as pilot:
            await _my_turn(pilot, table)
            assert table.game.view(0).trick is not None  # a trick to beat: pass is legal
            before = len(_mine(table))
            await pilot.press("p")
            await pilot.pause()
            assert len(_mine(table)) == before, "a lone p passed without Enter"
            assert app.query_one("#cmd", Input).value == "p"
            assert "Enter passes" in _status(app)
            await pilot.press("enter")
            await pilot.pause()
            mine = _mine(table)
            assert len(mine) == before + 1 and mine[-1].kind == "pass"
            assert "Enter passes" not in _status(app)  # the hint does not outlive the pass
            assert app.query_one(HandView).has_focus  # the keys are the hand's again
    finally:
        await table.close()


@pytest.mark.asyncio
async def test_phrases_typed_on_the_hand_lists_the_phrases_and_never_passes(tmp_path):
    table = screen_table(tmp_path)
    app = _app(table)
    try:
        async with app.run_test(size=SIZE) as pilot:
            await _my_turn(pilot, table)
            before = len(_mine(table))
            await pilot.press(*"phrases")
            assert app.query_one("#cmd", Input).value == "phrases"
            assert "Enter passes" not in _status(app)  # the word went on: no pass to confirm
            await pilot.press("enter")
            await pilot.pause()
            assert len(_mine(table)) == before, "typing phrases passed"
            assert table.seat in table.game.actors()  # still seat 0's turn
            assert "gg" in _status(app).lower() or "phrase" in _status(app).lower()
    finally:
        await table.close()


@pytest.mark.asyncio
async def test_p_then_escape_takes_the_pass_back(tmp_path):
    table = screen_table(tmp_path)
    app = _app(table)
    try:
        async with app.run_test(size=SIZE) as pilot:
            await _my_turn(pilot, table)
            before = len(_mine(table))
            await pilot.press("p", "escape")
            await pilot.pause()
            assert len(_mine(table)) == before
            assert app.query_one("#cmd", Input).value == ""
            assert "Enter passes" not in _status(app)
            assert app.query_one(HandView).has_focus
            await pilot.press("enter")  # Enter on the hand with nothing selected plays nothing
            await pilot.pause()
            assert len(_mine(table)) == before
    finally:
        await table.close()


@pytest.mark.asyncio
async def test_play_typed_on_the_hand_is_no_pass(tmp_path):
    """``play 3 3`` is no command: it is refused as a line, and the turn stays the player's."""
    table = screen_table(tmp_path)
    app = _app(table)
    try:
        async with app.run_test(size=SIZE) as pilot:
            await _my_turn(pilot, table)
            before = len(_mine(table))
            await pilot.press(*"play", "space", "3", "space", "3", "enter")
            await pilot.pause()
            assert not any(a.kind == "pass" for a in _mine(table)[before:])
    finally:
        await table.close()


@pytest.mark.asyncio
async def test_the_footer_and_the_help_say_p_then_enter(tmp_path):
    table = screen_table(tmp_path)
    app = _app(table)
    try:
        async with app.run_test(size=(200, 40)) as pilot:
            await pilot.pause()
            footer = str(app.query_one("#keys").render())
            assert "p Enter pass" in footer and "p pass" not in footer
            await pilot.press("f1")
            await pilot.pause()
            help_text = str(app.screen.query_one("Static").render())
            assert "p then Enter passes" in help_text
    finally:
        await table.close()
