"""Plugins that cannot break each other (issue #27, part 1).

A broken installed plugin is listed with one sentence and left out while every
other command and table works; a hook that raises names its plugin (one
sentence, never a cheat); two modifiers that contradict each other are
refused when the table is built unless one declares ``after``; play-time hooks
read their options with ``rules.option``.
"""

from __future__ import annotations

import importlib.metadata as md
import re
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner
from plugin_helpers import FakeEntryPoint, make_plugin

from zsy_lan import hookimpl
from zsy_lan.cli import cli
from zsy_lan.engine.errors import ConfigError, EngineError, PluginError, RuleError
from zsy_lan.engine.game import Game
from zsy_lan.engine.hookspecs import FirstLead, Option
from zsy_lan.engine.round import legal_moves
from zsy_lan.engine.ruleset import build_rules, discover, refresh
from zsy_lan.engine.selfplay import play_match
from zsy_lan.engine.state import Action, Duty
from zsy_lan.protocol.game_iface import DEFAULT_VIOLATIONS, describe_fault, is_violation
from zsy_lan.testing import Table

# --- 1. one faulty plugin breaks nothing else -------------------------------------------

BROKEN_SOURCES = {
    # an installed distribution's modules, each broken in one of the ways players met
    "zsy_t_import": "import zsy_t_not_a_module_anywhere\n",
    "zsy_t_none": """
        from zsy_lan import hookimpl
        name, version, description = "t-none", "1.0", "options that are None"

        @hookimpl
        def zsy_options():
            return None
    """,
    "zsy_t_star": """
        from zsy_lan.engine.hookspecs import *  # noqa: F403
        name, version, description = "t-star", "1.0", "the hook specifications as hooks"
    """,
    "zsy_t_raises": """
        from zsy_lan import hookimpl
        name, version, description = "t-raises", "1.0", "options that raise"

        @hookimpl
        def zsy_options():
            raise RuntimeError("no options today")
    """,
    "zsy_t_nonsense": """
        from zsy_lan import hookimpl
        name, version, description = "t-nonsense", "1.0", "options that are not options"

        @hookimpl
        def zsy_options():
            return ["fast=yes"]
    """,
    "zsy_t_unmarked": """
        name, version, description = "t-unmarked", "1.0", "a hook without @hookimpl"

        def zsy_deck(table):
            return None
    """,
}
BROKEN = {  # entry-point name -> module, and what its sentence says
    "t-import": ("zsy_t_import", "failed to load: ModuleNotFoundError"),
    "t-none": ("zsy_t_none", "zsy_options must return a list of Option values, not None"),
    "t-star": ("zsy_t_star", "imports the hook specifications as hooks of its own"),
    "t-raises": ("zsy_t_raises", "its zsy_options failed: RuntimeError: no options today"),
    "t-nonsense": ("zsy_t_nonsense", "zsy_options must return Option values"),
    "t-unmarked": ("zsy_t_unmarked", "its zsy_deck is not marked @hookimpl"),
}


@pytest.fixture
def broken_installed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """A distribution installed on sys.path (a dist-info, no pip) with six broken plugins."""
    for module, source in BROKEN_SOURCES.items():
        (tmp_path / f"{module}.py").write_text(textwrap.dedent(source))
    info = tmp_path / "zsy_t_broken-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: zsy-t-broken\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(
        "[zsy.variants]\n" + "".join(f"{ep} = {mod}\n" for ep, (mod, _) in BROKEN.items())
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    refresh()
    yield
    refresh()


def test_broken_plugins_are_found_with_one_sentence_each(broken_installed):
    names = {ep.name for ep in md.entry_points(group="zsy.variants")}
    assert set(BROKEN) <= names
    reg = discover()
    for name, (_, said) in BROKEN.items():
        problem = reg.plugins[name].problem
        assert problem is not None and said in problem, (name, problem)
        assert f"'{name}'" in problem and "\n" not in problem and "Traceback" not in problem
    assert reg.plugins["zsy"].problem is None and reg.plugins["doudizhu"].problem is None


def test_zsy_plugins_lists_them_as_broken_and_the_others_as_usual(broken_installed):
    out = CliRunner().invoke(cli, ["plugins"], catch_exceptions=False)
    assert out.exit_code == 0, out.output
    for name, (_, said) in BROKEN.items():
        assert f"{name}: broken, left out of every table" in out.output
        assert said in out.output
    assert "doudizhu 1.1.0 (game)" in out.output and "Traceback" not in out.output
    data = CliRunner().invoke(cli, ["plugins", "--json"], catch_exceptions=False)
    assert data.exit_code == 0


@pytest.mark.parametrize(
    "args",
    [
        ["rules"],
        ["rules", "--variant", "partnerships"],
        ["rules", "--players", "3", "--variant", "doudizhu"],
        ["selfplay", "--rounds", "1", "--variant", "no-tribute"],
    ],
)
def test_every_other_command_and_table_works(broken_installed, args):
    out = CliRunner().invoke(cli, args, catch_exceptions=False)
    assert out.exit_code == 0, out.output


def test_a_table_enabling_a_broken_plugin_is_refused_with_its_reason(broken_installed):
    out = CliRunner().invoke(cli, ["rules", "--variant", "t-none"], catch_exceptions=False)
    assert out.exit_code == 2
    assert "zsy_options must return a list of Option values" in out.output


def test_unknown_plugin_lists_only_usable_ones(broken_installed):
    with pytest.raises(ConfigError) as err:
        build_rules(4, ["nope"])
    assert "t-star" not in str(err.value) and "partnerships" in str(err.value)


# --- 2. a raising hook names its plugin -------------------------------------------------


def _boom(*args):
    raise KeyError("boom")


def test_a_raising_play_time_hook_names_its_plugin_and_hook():
    def zsy_beats(play, last):
        return {}["boom"] if play.kind == "pair" else None

    rules = build_rules(4, ["bad"], plugins={"bad": make_plugin("bad", zsy_beats=zsy_beats)})
    with pytest.raises(PluginError) as err:
        play_match(rules, 1, 0, "greedy")
    assert str(err.value) == "rules plugin 'bad' failed in its zsy_beats: KeyError: 'boom'"
    assert err.value.plugin == "bad" and isinstance(err.value.__cause__, KeyError)
    # a plugin's bug proves nothing against the player: never a violation
    assert not isinstance(err.value, (EngineError, ValueError))
    assert not isinstance(err.value, DEFAULT_VIOLATIONS)
    assert not is_violation(object(), err.value)
    assert describe_fault(err.value).startswith("KeyError: 'boom' in rules plugin 'bad' (")
    assert describe_fault(err.value).endswith(", in its zsy_beats)")


def test_a_raising_build_hook_refuses_the_table_naming_it():
    for hook in ("zsy_deck", "zsy_combo_kinds", "zsy_conflicts", "zsy_vocabulary"):
        plugin = make_plugin("bad", **{hook: _boom})
        with pytest.raises(ConfigError, match=f"rules plugin 'bad' failed in its {hook}: "
                                              "KeyError: 'boom'; the table cannot be built"):
            build_rules(4, ["bad"], plugins={"bad": plugin})


def test_nonsense_answers_refuse_the_table_naming_the_plugin():
    cases = {
        "zsy_deck": (lambda table: "54 cards", "its zsy_deck returned '54 cards', not a Deck"),
        "zsy_combo_kinds": (lambda kinds: [1, 2], "not a sequence of ComboKind"),
        "zsy_teams": (lambda table: [[0, 9]], "its zsy_teams returned [[0, 9]], not teams"),
        "zsy_first_lead": (lambda table: 3, "its zsy_first_lead returned 3, not a FirstLead"),
        "zsy_supported_players": (lambda: 4, "its zsy_supported_players returned 4, not player"),
        "zsy_conflicts": (lambda table: 7, "its zsy_conflicts returned 7, not a list"),
    }
    for hook, (fn, said) in cases.items():
        with pytest.raises(ConfigError, match="plugin 'odd': .*") as err:
            build_rules(4, ["odd"], plugins={"odd": make_plugin("odd", **{hook: fn})})
        assert said in str(err.value)


def test_a_raising_phase_handler_names_its_plugin_but_its_rule_errors_stay_rules():
    class Vote:
        def legal(self, rules, state, seat):
            return [Action("vote", seat, value=1)]

        def apply(self, rules, state, action):
            if action.value == 2:
                raise RuleError("X-1", "vote once")
            raise ZeroDivisionError("division by zero")

    t = Table(["v"], plugins={"v": make_plugin(
        "v", zsy_phases=lambda table: {"vote": Vote()},
        zsy_on_deal=lambda rules, state: state.__class__(**{**state.__dict__, "phase": "vote"}),
    )})
    st = t.deal(0)
    t.expect_illegal(st.turn, Action("vote", st.turn, value=2), rule="X-1")
    with pytest.raises(PluginError, match="rules plugin 'v' failed in its 'vote' phase"):
        t.act(Action("vote", st.turn, value=1))


def test_a_raising_move_generator_names_its_plugin():
    def zsy_move_generator(table):
        def generate(rules, counts, last):
            raise IndexError("no such rank")

        return generate

    rules = build_rules(4, ["gen"], plugins={"gen": make_plugin(
        "gen", zsy_move_generator=zsy_move_generator)})
    game = Game(rules, 1)
    game.start_round(b"\0" * 32)
    st = game.round
    with pytest.raises(PluginError, match="'gen' failed in its zsy_move_generator function"):
        legal_moves(rules, st, st.turn)


def test_selfplay_says_one_sentence_and_no_traceback(monkeypatch):
    bad = make_plugin("bad", zsy_on_play=lambda rules, state, action, combo: _boom())
    eps = list(md.entry_points(group="zsy.variants")) + [FakeEntryPoint("bad", bad)]
    monkeypatch.setattr("zsy_lan.engine.ruleset.md.entry_points", lambda group: eps)
    refresh()
    try:
        out = CliRunner().invoke(cli, ["selfplay", "--rounds", "1", "--variant", "bad"])
    finally:
        refresh()
    assert out.exit_code == 1
    assert out.output.strip() == (
        "Stopped: the rules plugin 'bad' failed in its zsy_on_play (KeyError: 'boom'); "
        "this is a bug of that plugin, to report to its authors."
    )


# --- 3. contradicting plugins -----------------------------------------------------------


def _says(verdict):
    def zsy_beats(play, last):
        if play.kind == "single" and last.kind == "pair":
            return verdict
        return None

    return zsy_beats


def _pair(a, b, **extra_a):
    pa, pb = make_plugin("aa", zsy_beats=a), make_plugin("bb", zsy_beats=b)
    for key, value in extra_a.items():
        setattr(pa, key, value)
    return {"aa": pa, "bb": pb}


def test_two_beats_that_disagree_are_refused_with_an_example():
    with pytest.raises(ConfigError) as err:
        build_rules(4, ["aa", "bb"], plugins=_pair(_says(True), _says(False)))
    text = str(err.value)
    assert text.startswith("plugins 'aa' and 'bb' contradict each other: they disagree on "
                           "whether single(")
    assert "(aa: yes; bb: no)" in text and "after = (" in text


def test_beats_that_agree_or_answer_different_questions_load():
    build_rules(4, ["aa", "bb"], plugins=_pair(_says(True), _says(True)))
    build_rules(4, ["aa", "bb"], plugins=_pair(_says(True), _says(None)))


def test_after_declares_the_order_and_the_later_plugin_wins():
    plugins = _pair(_says(True), _says(False), after=("bb",))
    rules = build_rules(4, ["bb", "aa"], plugins=plugins)
    assert [n for n, _ in rules.config["plugins"]] == ["zsy", "bb", "aa"]  # not by name
    from zsy_lan.engine.combos import Combo

    assert rules.beats_override(rules, Combo("single", 1, 0), Combo("pair", 2, 5)) is True
    # the order of the flags never matters
    assert build_rules(4, ["aa", "bb"], plugins=plugins).config == rules.config


def test_a_circular_order_is_refused():
    plugins = _pair(_says(True), _says(False), after=("bb",))
    plugins["bb"].after = ("aa",)
    with pytest.raises(ConfigError, match="declare a circular order"):
        build_rules(4, ["aa", "bb"], plugins=plugins)


def test_a_bad_after_makes_the_plugin_broken():
    odd = make_plugin("odd")
    odd.after = "bb"
    assert "'after' must be a tuple" in discover([], {"odd": odd}).plugins["odd"].problem


def test_value_hooks_that_differ_are_refused():
    a = make_plugin("aa", zsy_first_lead=lambda table: FirstLead(start_card=2))
    b = make_plugin("bb", zsy_first_lead=lambda table: FirstLead(start_card=3))
    with pytest.raises(ConfigError, match="'aa' and 'bb' contradict each other: their "
                                          "zsy_first_lead answers differ"):
        build_rules(4, ["aa", "bb"], plugins={"aa": a, "bb": b})
    b.after = ("aa",)
    assert build_rules(4, ["aa", "bb"], plugins={"aa": a, "bb": b}).start_card == 3


def test_two_move_generators_are_refused():
    def gen(table):
        return lambda rules, counts, last: []

    plugins = {"aa": make_plugin("aa", zsy_move_generator=gen),
               "bb": make_plugin("bb", zsy_move_generator=gen)}
    with pytest.raises(ConfigError, match="both replace zsy_move_generator"):
        build_rules(4, ["aa", "bb"], plugins=plugins)


def test_tribute_duties_are_probed_over_every_finishing_order():
    def duties(n):
        return lambda rules, order: (Duty("give", order[-1], order[0], n),
                                     Duty("return", order[0], order[-1], n))

    plugins = {"aa": make_plugin("aa", zsy_tribute_duties=duties(1)),
               "bb": make_plugin("bb", zsy_tribute_duties=duties(2))}
    with pytest.raises(ConfigError, match="disagree on the tribute after the finishing order"):
        build_rules(4, ["aa", "bb"], plugins=plugins)


def test_the_game_plugin_is_meant_to_be_overridden():
    # house rules' 3♥ replaces the game's start card: no contradiction
    assert build_rules(4, ["house-rules"], {"start_3h": True}).start_card is not None


# --- 4. options at play time ------------------------------------------------------------


def test_rules_option_reads_a_plugins_resolved_option():
    def zsy_options():
        return [Option("bonus", "int", 1, "points for going out", min=0, max=5)]

    seen = []

    def zsy_on_play(rules, state, action, combo):
        seen.append(rules.option("bonusy", "bonus"))

    plugin = make_plugin("bonusy", zsy_options=zsy_options, zsy_on_play=zsy_on_play)
    rules = build_rules(4, ["bonusy"], {"bonus": "3"}, plugins={"bonusy": plugin})
    assert rules.option("bonusy", "bonus") == 3 and rules.option("zsy", "scoring") == "ranking"
    assert rules.options_of("bonusy") == {"bonus": 3} and rules.options_of("nope") == {}
    with pytest.raises(KeyError, match="no option 'malus' of plugin 'bonusy'"):
        rules.option("bonusy", "malus")
    play_match(rules, 1, 0, "greedy")
    assert set(seen) == {3}


def test_built_in_plugins_use_the_accessor_not_the_config():
    """Options are read with rules.option / options_of; a plugin may keep keys of its own in
    the config (Guandan stamps the level its derived rules play at), never dig out options."""
    plugins = Path(__file__).resolve().parents[2] / "plugins"
    digging = re.compile(r"""config(\[|\.get\()\s*["']options["']""")
    for source in plugins.glob("*.py"):
        assert not digging.search(source.read_text()), source.name


def test_hookimpl_is_the_one_plugins_import():
    assert hookimpl is __import__("zsy_lan").hookimpl


@pytest.mark.asyncio
@pytest.mark.parametrize("seat_of_fault", ["bot", "replica"])
async def test_a_local_table_stops_cleanly_naming_the_plugin(tmp_path, seat_of_fault):
    """``zsy play``: a plugin raising while a bot weighs its moves, or while the replicas
    apply a play, stops the table with one sentence naming it (it used to hang silently)."""
    import asyncio

    from zsy_lan.engine.round import legal_actions
    from zsy_lan.table.local_table import LocalTable

    def zsy_on_play(rules, state, action, combo):
        if seat_of_fault == "replica":
            raise KeyError("boom")

    def zsy_beats(play, last):
        if seat_of_fault == "bot":
            raise KeyError("boom")

    rules = build_rules(4, ["bad"], plugins={"bad": make_plugin(
        "bad", zsy_on_play=zsy_on_play, zsy_beats=zsy_beats)})

    def first(rules, view, seat):
        return legal_actions(rules, view, seat)[0]

    table = LocalTable(rules, 1, 0, {s: first for s in (1, 2, 3)}, tmp_path / "rec.jsonl",
                       seed="s", bot_chat=False)
    table.start()
    try:
        if 0 in table.game.actors():  # the player leads: play the first legal move
            table._act(0, table.game.legal(0)[0])
        for _ in range(200):
            if table.info.stopped:
                break
            await asyncio.sleep(0.01)
        stopped = table.info.stopped
        assert stopped and "'bad'" in stopped and "KeyError: 'boom'" in stopped, stopped
        assert "cheat" not in stopped or "not a cheat" in stopped
    finally:
        await table.close()


def test_the_new_sentences_are_said_in_the_players_language():
    from zsy_lan.text.engine_text import plugin_failed, translate
    from zsy_lan.text.i18n import set_language

    said = []
    for plugins in (
        {"bad": make_plugin("bad", zsy_deck=_boom)},
        _pair(_says(True), _says(False)),
    ):
        with pytest.raises(ConfigError) as err:
            build_rules(4, list(plugins), plugins=plugins)
        said.append(str(err.value))
    failed = PluginError("bad", "zsy_beats", KeyError("boom"))
    try:
        set_language("de")
        assert translate(said[0]).startswith("Regel-Plugin „bad“ ist in seinem zsy_deck")
        assert translate(said[1]).startswith("die Plugins „aa“ und „bb“ widersprechen sich")
        set_language("zh")
        assert plugin_failed(failed).startswith("已停止：规则插件“bad”在其 zsy_beats 中出错")
    finally:
        set_language("en")


@pytest.mark.asyncio
async def test_a_bot_seat_stops_on_a_plugins_bug_instead_of_thinking_again():
    """At a network table the bot's seat met the same PluginError on every retry and the
    table waited on it for ever; now the seat's ``plugin_failed`` stops it (a local fault)."""
    import asyncio
    import types

    from zsy_lan.table.seat_bot import SeatBot

    told: list[object] = []
    bot = SeatBot(
        types.SimpleNamespace(seat=1, game=None), build_rules(4),
        decider=lambda: None, can_act=lambda: True, payload=dict, act=lambda p: [],
        look_again=lambda: told.append("thinks again"), live=lambda: True,
        plugin_failed=told.append,
    )
    fut = asyncio.get_running_loop().create_future()
    failed = PluginError("bad", "zsy_beats", KeyError("boom"))
    fut.set_exception(failed)
    bot._decided(fut, (0, 0))
    assert told == [failed]


def test_a_broken_plugins_own_text_is_cleaned_before_it_is_shown(monkeypatch):
    def zsy_options():
        raise RuntimeError("\x1b]0;pwned\x07 no options")

    bad = make_plugin("evil", zsy_options=zsy_options)
    eps = list(md.entry_points(group="zsy.variants")) + [FakeEntryPoint("evil", bad)]
    monkeypatch.setattr("zsy_lan.engine.ruleset.md.entry_points", lambda group: eps)
    refresh()
    try:
        listed = CliRunner().invoke(cli, ["plugins"], catch_exceptions=False).output
        refused = CliRunner().invoke(cli, ["rules", "--variant", "evil"]).output
    finally:
        refresh()
    for out in (listed, refused):
        assert "its zsy_options failed: RuntimeError" in out and "\x1b" not in out, out
