"""Issue #26: no frame title on the spectator's screen ends in Textual's ``…``.

The players' screen is checked through a whole round of each variant, 3 to 6 seats,
in every language at 80x24 and 120x40 (tests/ui/test_screen_snapshots.py, the 80x24
walk); ``zsy watch`` has every seat along the top, so its frames are narrower still.
"""

from __future__ import annotations

import pytest
from local_support import play_out
from screen_fit import (
    cut_at_sizes_in_every_language,
    spectator_of,
    until_shown,
)

from zsy_lan.engine.ruleset import build_rules
from zsy_lan.table.local_table import make_local_table
from zsy_lan.ui.render import Style
from zsy_lan.ui.watch_screen import WatchApp


@pytest.mark.slow
@pytest.mark.asyncio
async def test_no_frame_title_nor_word_is_cut_on_the_spectator_s_screen(tmp_path):
    """Six seats along the top of ``zsy watch`` (nobody is "you"): ``asiento 5`` does not
    fit a sixth of 80 columns, ``n.º 5`` does; ``easy-1 [bot]`` is broken between its
    words, not cut; the middle's title as on the players' screen."""
    path = tmp_path / "six.jsonl"
    table = make_local_table(build_rules(6), 1, 0, "easy", path, seed="six-watch", me="a")
    await play_out(table)
    lines = path.read_text(encoding="utf-8").splitlines()
    app = WatchApp(spectator_of(lines[:40]), Style())  # the round under way
    async with app.run_test(size=(80, 24)) as pilot:
        await until_shown(pilot, app, "#seat5")
        assert not await cut_at_sizes_in_every_language(pilot, app)
