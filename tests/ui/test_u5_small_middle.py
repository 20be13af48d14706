"""Issue #26: at 80x24 with six seats, in Spanish, the middle of the table has about
five rows; what does not fit there is counted at the foot of its frame (``+2 líneas
más: escribe table``), never hidden without a sign, and what the turn needs (the play
to beat, whose turn, the moves) comes first and takes every row it needs."""

from __future__ import annotations

import pytest
from screen_fit import bots_until_seat0
from screen_support import first_move
from test_screen_snapshots import _app

from zsy_lan.text.i18n import set_language


@pytest.mark.slow
@pytest.mark.asyncio
async def test_six_seats_in_spanish_at_80x24_hide_nothing_silently(tmp_path):
    set_language("es")
    app, table = _app(tmp_path, 6, (), 1)
    table.info.seats[1].held_by_bot = True  # "[un bot ocupa el asiento]": long lines
    marked = 0
    async with app.run_test(size=(80, 24)) as pilot:
        table.start()
        table._bots.cancel()  # every seat plays here, one move after another
        try:
            for _turn in range(12):
                bots_until_seat0(table, first_move)
                if table.game.finished():
                    break
                await pilot.pause()
                centre = app.query_one("#centre")
                rows = centre.content.plain.split("\n")
                assert len(rows) <= centre.content_region.height, rows
                assert "Te toca." in rows, rows  # the turn's own lines come first
                assert any(r.startswith("Jugadas: 1)") for r in rows), rows
                foot = str(centre.border_subtitle)
                if foot:
                    hidden = int(foot.split()[0])  # "+3 líneas más: escribe table"
                    assert hidden == len(app.centre_rows()) - len(rows), foot
                    assert foot.endswith("escribe table"), foot
                    marked += 1
                else:
                    assert len(app.centre_rows()) == len(rows)
                assert await table.submit(app._legal()[0]) is None
        finally:
            await table.close()
    assert marked, "some turn had more to say than five rows hold"
