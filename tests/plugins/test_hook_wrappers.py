"""Wrappers on hooks the table compiles are refused at build time, naming the plugin.

Play-time hooks (``zsy_beats``, ``zsy_on_play``, ...) and the folded build
hooks are turned into plain callables once, so pluggy's wrapper protocol never
runs for them: a ``wrapper=True`` generator used to be called as a plain
implementation and its generator object (truthy) answered ``zsy_beats`` (a 3
beat a K, ZSY-4.1). Hooks pluggy itself calls keep honouring wrappers.
"""

from __future__ import annotations

import types

import pytest

from zsy_lan import hookimpl
from zsy_lan.engine.cards import RANK_NAMES
from zsy_lan.engine.combos import Combo, beats
from zsy_lan.engine.errors import ConfigError
from zsy_lan.engine.ruleset import build_rules


def _plugin(name: str, **impls: object) -> types.ModuleType:
    mod = types.ModuleType(f"test_plugin_{name}")
    mod.name = name
    mod.version = "0.1"
    mod.description = f"test plugin {name}"
    mod.game = False
    for hook, fn in impls.items():
        setattr(mod, hook, fn)
    return mod


def _key(rank: str) -> int:
    return RANK_NAMES.index(rank)


def test_wrapper_on_zsy_beats_is_refused_naming_the_plugin() -> None:
    @hookimpl(wrapper=True)
    def zsy_beats(rules, play, last):  # a 3 beats anything, said through a wrapper
        result = yield
        return True if result is None else result

    plug = _plugin("cheeky", zsy_beats=zsy_beats)
    with pytest.raises(ConfigError, match=r"plugin 'cheeky': its zsy_beats is a wrapper"):
        build_rules(4, ["cheeky"], plugins={"cheeky": plug})


def test_old_style_hookwrapper_is_refused_too() -> None:
    @hookimpl(hookwrapper=True)
    def zsy_on_play(rules, state, action, combo):
        yield

    plug = _plugin("oldstyle", zsy_on_play=zsy_on_play)
    with pytest.raises(ConfigError, match=r"plugin 'oldstyle'.*hookwrapper=True"):
        build_rules(4, ["oldstyle"], plugins={"oldstyle": plug})


def test_a_plain_zsy_beats_still_compiles() -> None:
    @hookimpl
    def zsy_beats(rules, play, last):
        return None

    rules = build_rules(4, ["plain"], plugins={"plain": _plugin("plain", zsy_beats=zsy_beats)})
    three, king = Combo("single", 1, _key("3")), Combo("single", 1, _key("K"))
    assert not beats(rules, three, king)  # ZSY-4.1: the base rule decides
    assert beats(rules, king, three)


def test_wrapper_on_a_hook_pluggy_calls_is_honoured() -> None:
    @hookimpl(wrapper=True)
    def zsy_scoring(table):
        result = yield
        return result  # observes, changes nothing

    rules = build_rules(4, ["watch"], plugins={"watch": _plugin("watch", zsy_scoring=zsy_scoring)})
    assert rules.scoring == build_rules(4).scoring
