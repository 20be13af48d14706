"""Chat on the full-screen table: the typed line takes say/:phrase/mute like the line mode."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "ui"))
from screen_support import screen_table  # noqa: E402
from test_screen import SIZE, _app, _log_text, _my_turn, _status  # noqa: E402


async def _type(pilot, app, text: str) -> None:
    await pilot.press("tab")
    app.query_one("#cmd").value = text
    await pilot.press("enter")
    await pilot.pause()


@pytest.mark.asyncio
async def test_say_and_a_phrase_show_in_the_log_set_apart(tmp_path):
    table = screen_table(tmp_path)
    app = _app(table)
    try:
        async with app.run_test(size=SIZE) as pilot:
            await _my_turn(pilot, table)
            await _type(pilot, app, "say hi all \x1b[2J")
            await _type(pilot, app, ":gg")
            for _i in range(50):
                await pilot.pause(0.02)
                if "Good game!" in _log_text(app):
                    break
            log = _log_text(app)
            assert "» you: hi all" in log and "» you: Good game!" in log
            assert "\x1b" not in log
            await _type(pilot, app, "mute bot-2")
            assert "bot-2" in _status(app) and table.chat_room.muted == {2}
            table._pump([(2, table.replicas[2].chat({"text": "hidden line"}, 0.0))])
            table._pump([(3, table.replicas[3].chat({"text": "shown line"}, 0.0))])
            for _i in range(50):
                await pilot.pause(0.02)
                if "shown line" in _log_text(app):
                    break
            assert "» bot-3: shown line" in _log_text(app)
            assert "hidden line" not in _log_text(app)
            assert 0 in table.game.actors()  # chat took no turn
    finally:
        await table.close()
