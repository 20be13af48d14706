"""SVG snapshots of the full-screen table (issue #14): ZSY 4p, Dou Dizhu bidding and play,
partnerships, 6 players, Guandan and Big Two (issue #27), at 80x24 and 120x40, ASCII and
colourless.

Deterministic by construction: fixed seeds (the deal and the bots' choices), a
local table (no network, no keys shown), the countdown's clock frozen, the
terminal's size fixed. Update after a deliberate change of the screen with
``pytest tests/ui/test_screen_snapshots.py --snapshot-update`` and look at the
SVGs in ``__snapshots__/`` before committing them.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from screen_fit import bots_until_seat0, cut_anything, labels_cut_in_every_language
from screen_support import first_move, screen_table

from zsy_lan.ui.line_mode import Assist
from zsy_lan.ui.render import Style
from zsy_lan.ui.screen import ScreenOptions, TableApp


def _app(tmp_path: Path, players: int, variants=(), rounds: int = 1, seed: str = "s1", **kw):
    table = screen_table(tmp_path, players, variants, rounds, seed, kw.pop("options", None))
    style = Style(ascii_suits=kw.pop("ascii_suits", False), color=kw.pop("color", True))
    options = ScreenOptions(clock=lambda: 0.0, four_color=kw.pop("four_color", False))
    app = TableApp(table, style, Assist(timer=kw.pop("timer", None)), options)
    return app, table


def _until_my_turn(table, then: tuple[str, ...] = ()):
    async def run_before(pilot) -> None:
        table.start()
        presses = list(then)
        for _i in range(600):
            await pilot.pause(0.02)
            if 0 in table.game.actors() or table.game.finished():
                if not presses:
                    break
                await pilot.press(presses.pop(0))
        await pilot.pause()
        await table.close()  # the bots stop here (the screen shows what was played)
        assert 0 in table.game.actors(), "the snapshot must show seat 0's turn"

    return run_before


CASES = {
    # name: (players, variants, rounds, seed, keys pressed on seat 0's turns, options)
    "zsy4": (4, (), 1, "s1", (), {}),
    "ddz_bidding": (3, ("doudizhu",), 3, "s1", (), {}),
    "ddz_play": (3, ("doudizhu",), 3, "s1", ("2", "enter"), {}),  # bid 3: landlord, to lead
    "partnerships": (4, ("partnerships",), 1, "s1", (), {}),
    "six": (6, (), 1, "s1", (), {}),
    "zsy4_ascii": (4, (), 1, "s1", (), {"ascii_suits": True}),
    "zsy4_colourless": (4, (), 1, "s1", (), {"color": False}),
    "zsy4_four_colour_timer": (4, (), 1, "s1", ("1",), {"four_color": True, "timer": 30}),
    "guandan": (4, ("guandan",), 1, "s1", (), {}),  # teams and levels (issue #27)
    "big_two": (4, ("big-two",), 1, "s1", (), {}),
}


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_table_snapshot(snap_compare, tmp_path, case, size):
    players, variants, rounds, seed, keys, kw = CASES[case]
    app, table = _app(tmp_path, players, variants, rounds, seed, **kw)
    until = _until_my_turn(table, keys)

    async def run_before(pilot) -> None:
        await until(pilot)
        text = screen_text(app)  # issue #26: no word cut to fit, the footer whole
        assert not _CUT.search(text), text
        assert "Ctrl-Q" in text.splitlines()[-1], text

    assert snap_compare(app, terminal_size=size, run_before=run_before)


def test_snapshot_of_a_window_too_small(snap_compare, tmp_path):
    app, table = _app(tmp_path, 4)
    assert snap_compare(app, terminal_size=(50, 15), run_before=_until_my_turn(table))


def test_snapshot_of_the_help_overlay(snap_compare, tmp_path):
    app, table = _app(tmp_path, 4)
    assert snap_compare(app, terminal_size=(80, 24), run_before=_until_my_turn(table, ("f1",)))


# --- no word cut at 80x24 (issue #26) ------------------------------------------------------

#: an ellipsis with a letter, digit or card before or after it: a word was cut to fit
_CUT = re.compile(r"[\w♦♣♥♠]…|…[\w♦♣♥♠]")


def screen_text(app: TableApp) -> str:
    """The screen as drawn, row by row (what a terminal shows)."""
    return "\n".join(strip.text for strip in app.screen._compositor.render_strips())


VARIANTS = {
    # name: (players, variants, options); 3 to 6 seats (with 6 the seats' frames are the
    # narrowest: where a label fits them, it fits 4 and 5 seats' too). Six seats are walked
    # with partnerships only: their frames carry the base game's titles and the teams too,
    # so the base game's six seats and partnerships' four add nothing (and cost 10 s).
    "zsy3": (3, (), {}),
    "zsy4": (4, (), {}),
    "doudizhu": (3, ("doudizhu",), {"doubling": True, "match_multiple": 1}),
    "partnerships6": (6, ("partnerships",), {}),
    "guandan": (4, ("guandan",), {}),
    "big_two": (4, ("big-two",), {}),
}


def _kind(table) -> tuple[object, ...]:
    """What changes the screen's lines between turns: the phase (bids, doubling, tribute,
    play), leading or beating a play, how many seats are out, the round."""
    view = table.game.view(0)
    return (view.phase, view.trick is None, len(view.finished), view.round_no)


@pytest.mark.slow
@pytest.mark.asyncio
@pytest.mark.parametrize("variant", sorted(VARIANTS))
async def test_no_word_is_cut_at_80x24_through_a_whole_round(tmp_path, variant):
    """A round and the start of the next (titles, teams, stakes, long plays, a seat held by
    a bot and one on auto-play), every seat's move made here and now (no bots' loop): at
    each of seat 0's turns and after a bot's move that shows a new kind of state the
    boxes are read (no border title, subtitle or row wider than its box: Textual
    would cut it with ``…``), and the screen is drawn at the first of seat 0's turns
    of each kind of state (:func:`_kind`) and at the next round's first: no ``…`` inside a
    word anywhere, and the key footer whole (it ends in the way out). The frames' titles
    and subtitles are read in every language at each kind of state and at the two-card
    warning, and once more at 120x40 (zsy_lan/ui/labels.py: none ends in ``…``)."""
    players, variants, options = VARIANTS[variant]
    app, table = _app(tmp_path, players, variants, 2, options=options)
    table.info.seats[1].held_by_bot = True  # the longest labels a seat can carry
    table.info.seats[2].auto_play = True
    drawn: set[tuple[object, ...]] = set()
    read: set[tuple[object, ...]] = set()
    labelled: set[tuple[object, ...]] = set()

    def new_kind() -> list[str]:
        """The boxes read after a bot's move that shows a new kind of state (a seat out...)."""
        if _kind(table) in read:
            return []
        read.add(_kind(table))
        return cut_anything(app)

    async with app.run_test(size=(80, 24)) as pilot:
        table.start()
        table._bots.cancel()  # the seats play below, one move after another
        await pilot.pause()  # the first layout: the boxes' widths
        try:
            while True:
                bots_until_seat0(table, first_move, new_kind)
                assert not cut_anything(app)  # each of seat 0's turns
                warned = len(table.game.view(0).hands[0]) <= 2  # "2 cards LEFT!"
                if _kind(table) not in labelled or warned:
                    labelled.add(_kind(table))
                    assert not labels_cut_in_every_language(app, table)
                if _kind(table) not in drawn or table.game.match.results:
                    drawn.add(_kind(table))
                    await pilot.pause()
                    text = screen_text(app)
                    assert not _CUT.search(text), text
                    assert "Ctrl-Q" in text.splitlines()[-1], text
                if table.game.match.results:  # the next round's first turn (titles, totals)
                    break
                assert await table.submit(app._legal()[0]) is None  # the move "1 Enter" picks
            await pilot.resize_terminal(120, 40)
            await pilot.pause()
            assert not cut_anything(app)
            assert not labels_cut_in_every_language(app, table)
        finally:
            await table.close()
    # Big Two's deal ends when the first seat goes out (B2-4.1): no "seat out" state
    assert len(drawn) >= (2 if variant == "big_two" else 3), drawn
