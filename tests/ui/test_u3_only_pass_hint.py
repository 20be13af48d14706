"""Full screen: ``h`` when passing is the only move says so, and Enter then passes
(issue #26; before, the status read ``Hint (1/1): pass Enter plays it.``)."""

from __future__ import annotations

import pytest
from screen_support import screen_table
from test_screen import _my_turn
from test_u3_pass_key import SIZE, _app, _mine, _status  # tests/ui is on sys.path

pytestmark = [pytest.mark.timeout(60)]


@pytest.mark.asyncio
async def test_h_with_only_a_pass_says_so_and_enter_passes(tmp_path, monkeypatch):
    table = screen_table(tmp_path)
    app = _app(table)
    try:
        async with app.run_test(size=SIZE) as pilot:
            await _my_turn(pilot, table)
            legal = app._legal()
            passes = [a for a in legal if a.kind == "pass"]
            assert passes and len(passes) < len(legal)  # a trick to beat, and plays too
            monkeypatch.setattr(app, "_legal", lambda: passes)  # as with nothing that beats
            before = len(_mine(table))
            await pilot.press("h")
            await pilot.pause()
            said = " ".join(_status(app).split())
            assert said == (
                "Hint: nothing you hold beats the last play; passing is your only move. "
                "Enter passes."
            )
            assert len(_mine(table)) == before  # nothing played by the hint itself
            await pilot.press("enter")
            await pilot.pause()
            mine = _mine(table)
            assert len(mine) == before + 1 and mine[-1].kind == "pass"
    finally:
        await table.close()
