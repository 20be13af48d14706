"""The plugin system: discovery, canonical order, options, refusals, ruleset ids."""

from __future__ import annotations

import importlib.metadata as md

import pluggy
import pytest
from plugin_helpers import FakeEntryPoint, make_plugin

from zsy_lan.engine.errors import ConfigError
from zsy_lan.engine.hookspecs import Option
from zsy_lan.engine.rules import base_rules
from zsy_lan.engine.ruleset import (
    build_rules,
    canonical_order,
    discover,
    installed,
    plugin_manager,
    ruleset_id,
)

BUILTINS = ["doubled-tribute", "doudizhu", "house-rules", "no-tribute", "partnerships", "zsy"]


def installed_eps():
    return list(md.entry_points(group="zsy.variants"))


def test_builtins_are_entry_points_like_third_party():
    names = {ep.name for ep in installed_eps()}
    assert set(BUILTINS) <= names
    reg = installed()
    for n in BUILTINS:
        info = reg.plugins[n]
        assert info.problem is None and info.version and info.description


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_base_game_without_variants_equals_base_rules(players):  # ZSY-1..8
    r, b = build_rules(players), base_rules(players)
    for f in ("players", "decks", "deck", "kinds", "kitty_size", "min_straight", "straight_top",
              "min_bomb", "start_card", "tribute", "tribute_cards", "second_tribute", "scoring",
              "teams", "start_card_lead"):
        assert getattr(r, f) == getattr(b, f), f
    assert r.beats_override is None and r.move_generator is None and r.in_effect is None


def test_default_players():
    assert build_rules().players == 4
    assert build_rules(None, ["doudizhu"]).players == 3


def test_canonical_order_game_first_then_modifiers_by_name():
    reg = installed()
    assert canonical_order(reg, ["partnerships", "doubled-tribute"]) == (
        "zsy", "doubled-tribute", "partnerships")
    assert canonical_order(reg, ["no-tribute", "zsy", "no-tribute"]) == ("zsy", "no-tribute")


def test_one_plugin_manager_per_table_with_exactly_the_enabled_plugins():
    reg = installed()
    order = canonical_order(reg, ["partnerships", "doubled-tribute"])
    pm = plugin_manager(reg, order)
    assert [pm.get_name(p) for p in pm.get_plugins()] != []
    assert sorted(pm.get_name(p) for p in pm.get_plugins()) == sorted(order)
    # pluggy calls in reverse registration order: modifiers (by name, last first) then the game
    impls = pm.hook.zsy_conflicts.get_hookimpls()
    assert [i.plugin_name for i in impls] == ["zsy", "doubled-tribute", "partnerships"]
    assert pm is not plugin_manager(reg, order)


def test_order_of_variants_does_not_change_the_rules():
    a = build_rules(4, ["partnerships", "doubled-tribute"], {"scoring": "penalty"})
    b = build_rules(4, ["doubled-tribute", "partnerships"], {"zsy.scoring": "penalty"})
    assert ruleset_id(a) == ruleset_id(b)
    assert a.tribute_cards == b.tribute_cards == 3


def test_ruleset_id_depends_on_plugins_versions_options_players():
    base = ruleset_id(build_rules(4))
    assert base == ruleset_id(build_rules(4))  # stable
    assert base != ruleset_id(build_rules(5))
    assert base != ruleset_id(build_rules(4, ["no-tribute"]))
    assert base != ruleset_id(build_rules(4, options={"scoring": "penalty"}))
    # explicit default == implicit default: the id hashes resolved options
    assert base == ruleset_id(build_rules(4, options={"scoring": "ranking"}))
    v1 = make_plugin("extra", version="1.0")
    v2 = make_plugin("extra", version="2.0")
    id1 = ruleset_id(build_rules(4, ["extra"], plugins={"extra": v1}))
    id2 = ruleset_id(build_rules(4, ["extra"], plugins={"extra": v2}))
    assert id1 != id2
    cfg = build_rules(4, ["extra"], plugins={"extra": v1}).config
    assert ["extra", "1.0"] in cfg["plugins"]


def test_unknown_plugin_is_refused_naming_it():
    with pytest.raises(ConfigError, match="unknown plugin 'nope'"):
        build_rules(4, ["nope"])


def test_two_games_conflict():
    with pytest.raises(ConfigError, match="'doudizhu' and 'zsy' conflict"):
        build_rules(3, ["zsy", "doudizhu"])


def test_declared_conflicts_name_both_plugins():
    with pytest.raises(ConfigError, match="no-tribute.*doubled-tribute"):
        build_rules(4, ["no-tribute", "doubled-tribute"])
    with pytest.raises(ConfigError, match="partnerships"):
        build_rules(4, ["doudizhu", "partnerships"])


def test_third_party_name_clash_is_detected():
    # pluggy would silently skip the second registration: discovery refuses it instead
    impostor = make_plugin("doudizhu", version="9.9")
    eps = installed_eps() + [FakeEntryPoint("doudizhu", impostor, dist="evil-ddz")]
    with pytest.raises(ConfigError, match="'doudizhu' is claimed by .*evil-ddz"):
        build_rules(3, ["doudizhu"], entry_points=eps)
    # tables that do not use the clashing name still open
    build_rules(4, [], entry_points=eps)


def test_same_object_twice_is_not_a_clash():
    from zsy_lan.plugins import no_tribute

    eps = installed_eps() + [FakeEntryPoint("no-tribute", no_tribute, dist="zsy-lan-copy")]
    assert build_rules(4, ["no-tribute"], entry_points=eps).tribute is False


def test_plugin_that_fails_to_load_is_reported():
    eps = installed_eps() + [FakeEntryPoint("broken", ImportError("no module named x"))]
    reg = discover(eps)
    assert "failed to load" in reg.plugins["broken"].problem
    with pytest.raises(ConfigError, match="broken.*failed to load"):
        build_rules(4, ["broken"], entry_points=eps)
    build_rules(4, [], entry_points=eps)


def test_plugin_name_must_match_entry_point():
    eps = installed_eps() + [FakeEntryPoint("alias", make_plugin("real-name"))]
    with pytest.raises(ConfigError, match="declares name 'real-name'"):
        build_rules(4, ["alias"], entry_points=eps)


def test_misspelled_hook_is_refused():
    bad = make_plugin("typo")
    from zsy_lan import hookimpl

    def zsy_dekc(table):
        return None

    bad.zsy_dekc = hookimpl(zsy_dekc)
    with pytest.raises(ConfigError, match="typo"):
        build_rules(4, ["typo"], plugins={"typo": bad})


def test_wrong_hook_signature_is_refused():
    def zsy_deck(table, nonsense):
        return None

    bad = make_plugin("sig", zsy_deck=zsy_deck)
    with pytest.raises(ConfigError, match="sig"):
        build_rules(4, ["sig"], plugins={"sig": bad})
    assert pluggy  # the error class comes from pluggy's validation


# --- options ----------------------------------------------------------------------------


def test_option_coercion_by_type():
    r = build_rules(3, ["doudizhu"], {"show_kitty": "yes", "match_multiple": "1"})
    assert r.config["options"]["doudizhu"] == {
        "show_kitty": True, "doubling": False, "match_multiple": 1}
    r = build_rules(4, [], {"two_in_straights": "false"})
    assert r.straight_top == 11


@pytest.mark.parametrize(
    "opts,match",
    [
        ({"show_kitty": "maybe"}, "doudizhu.show_kitty' takes true or false"),
        ({"match_multiple": "x"}, "takes an integer"),
        ({"match_multiple": "0"}, "within 1..12"),
        ({"match_multiple": "13"}, "within 1..12"),
        ({"nonsense": "1"}, "unknown option 'nonsense'"),
        ({"house-rules.pair_chains": "1"}, "not enabled"),
        ({"nobody.x": "1"}, "no plugin 'nobody'"),
        ({"doudizhu.nope": "1"}, "plugin 'doudizhu' has no option 'nope'"),
    ],
)
def test_bad_options_are_refused_naming_the_plugin(opts, match):
    with pytest.raises(ConfigError, match=match):
        build_rules(3, ["doudizhu"], opts)


def test_choice_option_out_of_range():
    with pytest.raises(ConfigError, match="zsy.scoring' must be one of ranking, penalty, cardc"):
        build_rules(4, [], {"scoring": "golf"})


def test_option_of_a_plugin_not_enabled_gives_a_hint():
    with pytest.raises(ConfigError, match="belongs to plugin 'doudizhu'"):
        build_rules(4, [], {"show_kitty": "true"})


def test_ambiguous_bare_option_needs_the_plugin_prefix():
    def opts():
        return [Option("scoring", "bool", False, "clashes with zsy.scoring")]

    other = make_plugin("other", zsy_options=opts)
    with pytest.raises(ConfigError, match="zsy.scoring, other.scoring"):
        build_rules(4, ["other"], {"scoring": "penalty"}, plugins={"other": other})
    r = build_rules(4, ["other"], {"zsy.scoring": "penalty", "other.scoring": "true"},
                    plugins={"other": other})
    assert r.scoring == "penalty" and r.config["options"]["other"] == {"scoring": True}


def test_bad_option_declarations_are_refused():
    def opts():
        return [Option("n", "int", "three", "bad default")]

    with pytest.raises(ConfigError, match="bad default"):
        build_rules(4, ["bad"], plugins={"bad": make_plugin("bad", zsy_options=opts)})

    def opts2():
        return [Option("n", "float", 1, "bad type")]

    with pytest.raises(ConfigError, match="unknown type"):
        build_rules(4, ["bad"], plugins={"bad": make_plugin("bad", zsy_options=opts2)})


def test_player_count_the_variant_does_not_support():
    with pytest.raises(ConfigError, match="plugin 'partnerships' does not support 5 players"):
        build_rules(5, ["partnerships"])
    with pytest.raises(ConfigError, match="'house-rules' does not support 3"):
        build_rules(3, ["house-rules"], {"no_jokers": "true"})


def test_python_values_are_accepted_too():
    r = build_rules(3, ["doudizhu"], {"doubling": True, "match_multiple": 3})
    assert r.config["options"]["doudizhu"]["doubling"] is True
    with pytest.raises(ConfigError):
        build_rules(3, ["doudizhu"], {"match_multiple": True})
