"""Issue #26: no frame title on the table ends in Textual's ``…``.

A border title or subtitle wider than its frame is cut by Textual (``asien…``,
``Tu mano (¡QUEDAN 2 cartas!, Segundo Corrie…``); the screen picks a form that fits
(zsy_lan/ui/labels.py). Checked for 3 to 6 seats, every variant and every language
at 80x24 through a round and the next one's first turn, at each new kind of state
(phase, a trick to lead or to beat, seats out: places, teams, stakes) and the two-card
warning, with auto-play and three-digit totals; then at 120x40, where every frame is
wider.
"""

from __future__ import annotations

import dataclasses

import pytest
from screen_fit import bots_until_seat0, cut_labels, cut_rows
from test_screen_snapshots import _app, _kind, first_move

from zsy_lan.text.i18n import set_language

CONFIGS = {
    # name: (players, variants, options)
    "zsy3": (3, (), {}),
    "zsy4": (4, (), {}),
    "zsy5": (5, (), {}),
    "zsy6": (6, (), {}),
    "partnerships4": (4, ("partnerships",), {}),
    "partnerships6": (6, ("partnerships",), {}),
    "doudizhu": (3, ("doudizhu",), {"doubling": True, "match_multiple": 1}),
}


LANGUAGES = ("en", "zh", "de", "es")


def _labels_cut(app, table) -> list[str]:
    """The labels as the table shows them now in each language, with and without
    auto-play on, and with every total at three digits (the widest a long match reaches)."""
    game = table.game
    real = game.match
    wrong = []
    try:
        game.match = dataclasses.replace(real, totals=tuple(-188 for _t in real.totals))
        for lang in LANGUAGES:
            set_language(lang)
            for auto in (False, True):
                app.assist.auto = auto
                app.show_table()
                wrong += [f"{lang}: {cut}" for cut in cut_labels(app)]
    finally:
        game.match = real
        app.assist.auto = False
        set_language("en")
    return wrong


@pytest.mark.slow
@pytest.mark.asyncio
@pytest.mark.parametrize("config", sorted(CONFIGS))
async def test_no_frame_title_is_cut(tmp_path, config):
    players, variants, options = CONFIGS[config]
    app, table = _app(tmp_path, players, variants, 2, options=options)
    table.info.seats[1].held_by_bot = True
    async with app.run_test(size=(80, 24)) as pilot:
        table.start()
        table._bots.cancel()  # every seat plays here, one move after another
        await pilot.pause()  # the first layout: the frames' widths
        seen: set[tuple[object, ...]] = set()
        try:
            while True:
                bots_until_seat0(table, first_move)
                warned = len(table.game.view(0).hands[0]) <= 2  # "2 cards LEFT!"
                if _kind(table) not in seen or warned:
                    seen.add(_kind(table))
                    assert not _labels_cut(app, table)
                if table.game.match.results:
                    break
                assert await table.submit(app._legal()[0]) is None
            await pilot.resize_terminal(120, 40)
            await pilot.pause()
            assert not _labels_cut(app, table)
        finally:
            await table.close()


@pytest.mark.slow
@pytest.mark.asyncio
async def test_no_frame_title_is_cut_on_the_spectator_s_screen(tmp_path):
    """Six seats along the top of ``zsy watch`` (nobody is "you"): ``asiento 5`` does not
    fit a sixth of 80 columns, ``n.º 5`` does; the middle's title as on the players'."""
    from local_support import play_out

    from zsy_lan.engine.ruleset import build_rules
    from zsy_lan.table.follower import Follower, Teller
    from zsy_lan.table.local_table import make_local_table
    from zsy_lan.ui.render import Style
    from zsy_lan.ui.watch_screen import WatchApp, WatchSession

    path = tmp_path / "six.jsonl"
    table = make_local_table(build_rules(6), 1, 0, "easy", path, seed="six-watch", me="a")
    await play_out(table)
    lines = path.read_text(encoding="utf-8").splitlines()
    session = WatchSession()
    follower = Follower(lines[0])
    for line in lines[1:40]:  # the round under way
        follower.add(line)
    for text in Teller(follower).new_lines():
        session.show(text)
    session.follow(follower)
    app = WatchApp(session, Style())
    async with app.run_test(size=(80, 24)) as pilot:
        for _i in range(50):
            await pilot.pause(0.02)
            if app.query("#seat5"):
                break
        for size in ((80, 24), (120, 40)):
            await pilot.resize_terminal(*size)
            await pilot.pause()
            for lang in LANGUAGES:
                set_language(lang)
                app.show_table()
                assert not cut_labels(app), (lang, size, cut_labels(app))
                assert not cut_rows(app), (lang, size, cut_rows(app))
        set_language("en")
