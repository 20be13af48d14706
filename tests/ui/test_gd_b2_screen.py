"""Guandan's and Big Two's table on screen (issue #27): teams and levels at a glance.

Guandan counts levels, not points: each seat's frame shows its team's level at its
foot where other games show points (the hand's frame too), and the middle's title the
level the deal is played at with its two wild ♥ (GD-1.2, GD-2.2), at 80x24 as at
120x40, in every language, nothing cut; a spectator (``zsy watch``) sees the same.
Big Two's table keeps its points and fits as well.
"""

from __future__ import annotations

import pytest
from screen_fit import (
    LANGUAGES,
    bots_until_seat0,
    cut_anything,
    cut_at_sizes_in_every_language,
    cut_labels,
    cut_rows,
    spectator_of,
    until_shown,
)
from screen_support import first_move, screen_table

from zsy_lan.engine.ruleset import build_rules
from zsy_lan.engine.state import RoundState
from zsy_lan.table.local_table import LocalTable
from zsy_lan.text.i18n import set_language
from zsy_lan.ui.labels import deal_level_label, level_forms, round_titles, team_level
from zsy_lan.ui.line_mode import Assist
from zsy_lan.ui.render import Style
from zsy_lan.ui.screen import ScreenOptions, TableApp
from zsy_lan.ui.watch_screen import WatchApp


def _app(table: LocalTable) -> TableApp:
    return TableApp(table, Style(), Assist(), ScreenOptions(clock=lambda: 0.0))


def _labels(app) -> dict[str, tuple[str, str]]:
    """Every frame's (title, foot) on the table, by the frame's id."""
    return {
        w.id: (str(w.border_title or ""), str(w.border_subtitle or ""))
        for w in app.query("#table *")
        if w.id
    }


@pytest.mark.asyncio
@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
async def test_guandan_shows_each_team_s_level_and_the_deal_s_wild_cards(tmp_path, size):
    table = screen_table(tmp_path, variants=["guandan"])
    app = _app(table)
    async with app.run_test(size=size) as pilot:
        table.start()
        table._bots.cancel()  # the seats play below, here and now
        await pilot.pause()
        try:
            bots_until_seat0(table, first_move)
            await pilot.pause()
            assert not cut_anything(app)
            labels = _labels(app)
            for frame in ("seat1", "seat2", "seat3", "handbox"):
                assert labels[frame][1] == "level 2", labels  # not "0 points"
            assert labels["centre"][0].endswith("level 2, 2♥ wild"), labels
            assert "team B" in str(app.query_one("#seat1").content)
            for lang in LANGUAGES:
                set_language(lang)
                app.show_table()
                assert not cut_labels(app), (lang, cut_labels(app))
                assert not cut_rows(app), (lang, cut_rows(app))
                said = _labels(app)
                assert said["seat1"][1] == level_forms(2)[0], (lang, said)
                assert said["centre"][0].endswith(deal_level_label(table.rules, _view(table))), (
                    lang, said)
        finally:
            set_language("en")
            await table.close()


def _view(table):
    return table.game.view(0)


@pytest.mark.asyncio
@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
async def test_big_two_keeps_its_points_and_nothing_is_cut(tmp_path, size):
    table = screen_table(tmp_path, variants=["big-two"])
    app = _app(table)
    async with app.run_test(size=size) as pilot:
        table.start()
        table._bots.cancel()
        await pilot.pause()
        try:
            bots_until_seat0(table, first_move)
            await pilot.pause()
            labels = _labels(app)
            assert labels["handbox"][1] == "0 points", labels
            assert "level" not in labels["centre"][0], labels
            for lang in LANGUAGES:
                set_language(lang)
                assert not cut_anything(app), (lang, cut_anything(app))
        finally:
            set_language("en")
            await table.close()


def test_a_team_s_level_and_the_deal_s_level_are_read_from_the_round():
    rules = build_rules(4, ["guandan"])
    state = RoundState(
        players=4, round_no=3, dealer=0, phase="play", hands=(None,) * 4, counts=(27,) * 4,
        turn=0, leader=0, extra=(("deal_level", 12), ("team_levels", (12, 5))),
    )
    assert [team_level(rules, state, s) for s in range(4)] == [12, 5, 12, 5]
    assert level_forms(12) == ["level Q", "lv Q"]
    assert deal_level_label(rules, state) == "level Q, Q♥ wild"
    assert deal_level_label(rules, state, ascii_only=True) == "level Q, QH wild"
    # a round without levels (partnerships), or a game without teams: nothing to show
    plain = RoundState(**{**state.__dict__, "extra": ()})
    assert team_level(build_rules(4, ["partnerships"]), plain, 0) is None
    assert team_level(build_rules(4), state, 0) is None
    assert deal_level_label(rules, plain) is None
    # the table's name goes first, then the dealer; the deal's level stays to the last
    assert round_titles("friday", "Round 3 - dealer seat 0", "level Q, Q♥ wild", 3) == [
        "friday: Round 3 - dealer seat 0, level Q, Q♥ wild",
        "Round 3 - dealer seat 0, level Q, Q♥ wild",
        "friday: Round 3, level Q, Q♥ wild",
        "Round 3, level Q, Q♥ wild",
        "friday: level Q, Q♥ wild",
        "level Q, Q♥ wild",
    ]
    assert round_titles(None, "Watching", None) == ["Watching"]


@pytest.mark.asyncio
async def test_a_spectator_of_guandan_sees_the_levels_too(tmp_path):
    table = screen_table(tmp_path, variants=["guandan"])
    table.start()
    table._bots.cancel()
    try:
        bots_until_seat0(table, first_move)
        assert table._act(0, first_move(table.rules, table.replicas[0].game.view(0), 0)) is None
        bots_until_seat0(table, first_move)
    finally:
        await table.close()
    lines = table.record.read_text(encoding="utf-8").splitlines()
    app = WatchApp(spectator_of(lines), Style())
    async with app.run_test(size=(80, 24)) as pilot:
        await until_shown(pilot, app, "#seat3")
        app.show_table()
        labels = _labels(app)
        assert [labels[f"seat{s}"][1] for s in range(4)] == ["level 2"] * 4, labels
        assert labels["centre"][0].endswith("level 2, 2♥ wild"), labels
        assert "team A" in str(app.query_one("#seat0").content)
        assert not await cut_at_sizes_in_every_language(pilot, app)
