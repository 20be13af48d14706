"""Tests of the short-straights plugin, written the way a plugin author would."""

from __future__ import annotations

import importlib.metadata as md

import pytest
import zsy_short_straights as plugin

from zsy_lan.engine.errors import ConfigError

# Installed (pip install -e .): found through its entry point like any plugin.
# Not installed: handed to the table directly.
INSTALLED = any(ep.name == "short-straights" for ep in md.entry_points(group="zsy.variants"))
PLUGINS = None if INSTALLED else {"short-straights": plugin}


def table(zsy_table, **options):
    return zsy_table(variants=["short-straights"], options=options, plugins=PLUGINS)


def test_three_card_straight_is_a_play(zsy_table):
    t = table(zsy_table)
    t.set_hands("3 4 5 K", "6 7 8 A", "9 9", "2 2", leader=0)
    assert "3 4 5" in t.moves(0)
    t.play(0, "3 4 5")
    t.expect_illegal(1, "A", rule="ZSY-4.1")  # follow with a straight of three
    t.play(1, "6 7 8")
    assert t.state.counts == (1, 1, 2, 2)


def test_length_must_match(zsy_table):  # ZSY-3.3: only against the same length
    t = table(zsy_table)
    t.set_hands("3 4 5 K", "6 7 8 9 A", "9 9", "2 2", leader=0)
    t.play(0, "3 4 5")
    assert "6 7 8 9" not in t.moves(1)


def test_min_length_option(zsy_table):
    t = table(zsy_table, min_length="4")
    t.set_hands("3 4 5 K", "6 7 8 A", "9 9", "2 2", leader=0)
    assert "3 4 5" not in t.moves(0)
    with pytest.raises(ConfigError, match="short-straights.min_length"):
        table(zsy_table, min_length="2")


def test_not_for_doudizhu(zsy_table):
    with pytest.raises(ConfigError, match="short-straights"):
        zsy_table(variants=["doudizhu", "short-straights"], plugins=PLUGINS)


def test_whole_matches_run(zsy_table):
    res = table(zsy_table).selfplay(2, seed=1)
    assert res.winners
