"""One test per hook (``test_hook_<name>``), and the docs check (datasette style).

Every hook of :mod:`zsy_lan.engine.hookspecs` must be documented in
docs/plugins.md under a heading with its exact signature, and must have a
``test_hook_<name>`` here; ``test_every_hook_is_documented_and_tested``
fails otherwise.
"""

from __future__ import annotations

import inspect
import re
import sys
from pathlib import Path

import pytest
from plugin_helpers import make_plugin

from zsy_lan.engine import hookspecs
from zsy_lan.engine.cards import BJ, full_deck, make_card, rank_of
from zsy_lan.engine.combos import ZSY_KINDS, Combo, ComboKind, Play
from zsy_lan.engine.errors import ConfigError, RuleError
from zsy_lan.engine.hookspecs import (
    ComboLimits,
    DealLayout,
    Deck,
    FirstLead,
    Option,
    TableConfig,
    Tribute,
)
from zsy_lan.engine.ruleset import build_rules
from zsy_lan.engine.state import Action, Duty, evolve, with_extra
from zsy_lan.testing import Table

DOCS = Path(__file__).resolve().parents[2] / "docs" / "plugins.md"


def hook_names() -> list[str]:
    return sorted(n for n, f in vars(hookspecs).items()
                  if n.startswith("zsy_") and inspect.isfunction(f))


def test_every_hook_is_documented_and_tested():
    text = DOCS.read_text(encoding="utf-8")
    tests = {n for n in vars(sys.modules[__name__]) if n.startswith("test_hook_")}
    missing_docs, missing_tests = [], []
    for name in hook_names():
        args = ", ".join(inspect.signature(getattr(hookspecs, name)).parameters)
        if f"### `{name}({args})`" not in text:
            missing_docs.append(f"{name}({args})")
        if f"test_hook_{name}" not in tests:
            missing_tests.append(name)
    assert not missing_docs, f"undocumented hooks (docs/plugins.md headings): {missing_docs}"
    assert not missing_tests, f"hooks without a test_hook_<name>: {missing_tests}"


def test_docs_mention_no_unknown_hook():
    text = DOCS.read_text(encoding="utf-8")
    documented = set(re.findall(r"^### `(zsy_\w+)\(", text, re.M))
    assert documented == set(hook_names())


def build(name="t", players=4, variants=(), options=None, **hooks):
    plugin = make_plugin(name, **hooks)
    return build_rules(players, [name, *variants], options, plugins={name: plugin})


# --- one test per hook --------------------------------------------------------------------


def test_hook_zsy_options():
    def zsy_options():
        return [Option("level", "int", 2, "a level", min=1, max=5)]

    r = build(zsy_options=zsy_options, options={"level": "4"})
    assert r.config["options"]["t"] == {"level": 4}
    with pytest.raises(ConfigError, match="t.level"):
        build(zsy_options=zsy_options, options={"level": "9"})


def test_hook_zsy_default_players():
    def zsy_default_players():
        return 5

    assert build(players=None, zsy_default_players=zsy_default_players).players == 5


def test_hook_zsy_supported_players():
    def zsy_supported_players(options):
        return (4,)

    build(zsy_supported_players=zsy_supported_players)
    with pytest.raises(ConfigError, match="plugin 't' does not support 3 players"):
        build(players=3, zsy_supported_players=zsy_supported_players)


def test_hook_zsy_conflicts():
    def zsy_conflicts(table):
        return ["conflicts with no-tribute: needs tribute"] if table.enabled("no-tribute") else []

    build(zsy_conflicts=zsy_conflicts)
    with pytest.raises(ConfigError, match="plugin 't': conflicts with no-tribute"):
        build(variants=["no-tribute"], zsy_conflicts=zsy_conflicts)


def test_hook_zsy_deck():
    def zsy_deck(table):
        return Deck(1, tuple(c for c in full_deck(1) if rank_of(c) < BJ))

    r = build(zsy_deck=zsy_deck)
    assert len(r.deck) == 52 and r.hand_sizes() == (13,) * 4


def test_hook_zsy_deal_layout():
    def zsy_deal_layout(table, deck):
        return DealLayout(kitty=2)

    r = build(zsy_deal_layout=zsy_deal_layout)
    assert r.kitty_size == 2 and sum(r.hand_sizes()) == 52
    t = Table(["t"], plugins={"t": make_plugin("t", zsy_deal_layout=zsy_deal_layout)})
    st = t.deal(0)
    assert len(st.get("secret_kitty")) == 2 and sum(st.counts) == 52


def test_hook_zsy_first_lead():
    def zsy_first_lead(table, deck):
        return FirstLead(required=True, start_card=make_card(0, 3))  # 3♠

    r = build(zsy_first_lead=zsy_first_lead)
    t = Table(["t"], plugins={"t": make_plugin("t", zsy_first_lead=zsy_first_lead)})
    st = t.deal(2)
    assert r.start_card == make_card(0, 3)
    assert st.must_contain == make_card(0, 3) and make_card(0, 3) in st.hands[st.turn]


def test_hook_zsy_combo_kinds():
    def classify(counts, rules):
        nz = [r for r in range(15) if counts[r]]
        if len(nz) == 2 and counts[nz[0]] == 1 and counts[nz[1]] == 1 and nz[1] == nz[0] + 1:
            return Combo("duo", 2, nz[1])
        return None

    def generate(counts, rules, last):
        start = 1 if last is None else last.key + 1
        return iter([Play(Combo("duo", 2, r), (r - 1, r)) for r in range(max(start, 1), 12)
                     if counts[r] and counts[r - 1]])

    duo = ComboKind("duo", classify, generate)

    def zsy_combo_kinds(table, kinds):
        return (*kinds, duo)

    r = build(zsy_combo_kinds=zsy_combo_kinds)
    assert r.kinds[-1] is duo and r.kinds[: len(ZSY_KINDS)] == ZSY_KINDS
    t = Table(["t"], plugins={"t": make_plugin("t", zsy_combo_kinds=zsy_combo_kinds)})
    t.set_hands("3 4 9", "5 6 K", "7 8 A", "10 J 2", leader=0)
    t.play(0, "3 4")
    t.play(1, "5 6")
    t.expect_illegal(2, "A", rule="ZSY-4.1")


def test_hook_zsy_combo_limits():
    def zsy_combo_limits(table, limits):
        return ComboLimits(min_straight=3, straight_top=limits.straight_top, min_bomb=3)

    r = build(zsy_combo_limits=zsy_combo_limits)
    assert r.min_straight == 3 and r.min_bomb == 3
    counts = [0] * 15
    counts[0] = counts[1] = counts[2] = 1
    from zsy_lan.engine.combos import classify

    assert classify(r, counts) == Combo("straight", 3, 2)


def test_hook_zsy_move_generator():
    calls = []

    def zsy_move_generator(table):
        from zsy_lan.engine.combos import legal_plays
        from zsy_lan.engine.rules import base_rules

        base = base_rules(table.players)

        def gen(rules, counts, last):
            calls.append(1)
            return legal_plays(base, counts, last)

        return gen

    t = Table(["t"], plugins={"t": make_plugin("t", zsy_move_generator=zsy_move_generator)})
    t.deal(1)
    assert t.moves(t.state.turn) and calls


def test_hook_zsy_beats():
    def zsy_beats(rules, play, last):
        if play.kind == "single" and last.kind == "pair":
            return play.key == 14  # a red joker beats any pair
        return None

    r = build(zsy_beats=zsy_beats)
    from zsy_lan.engine.combos import beats

    assert beats(r, Combo("single", 1, 14), Combo("pair", 2, 11))
    assert not beats(r, Combo("single", 1, 13), Combo("pair", 2, 11))
    assert beats(r, Combo("pair", 2, 12), Combo("pair", 2, 11))  # None: the base rule


def test_hook_zsy_rules_in_effect():
    import dataclasses

    def zsy_rules_in_effect(table):
        def fn(rules, state):
            if state.get("upside"):
                return dataclasses.replace(rules, beats_override=lambda r, p, last: (
                    p.kind == last.kind and p.length == last.length and p.key < last.key),
                    in_effect=None)
            return rules
        return fn

    t = Table(["t"], plugins={"t": make_plugin("t", zsy_rules_in_effect=zsy_rules_in_effect)})
    t.set_hands("9", "3 K", "4", "5", leader=0)
    t.play(0, "9")
    assert "3" not in t.moves(1)
    t.game.match = evolve(t.match, round=with_extra(t.state, upside=1))
    assert "3" in t.moves(1) and "K" not in t.moves(1)


def test_hook_zsy_card_order():
    from zsy_lan.engine.cards import RANK_OF, card_str
    from zsy_lan.text.play_order import hand_shown

    def zsy_card_order(rules, state):
        return lambda card: (RANK_OF[card] != 12, RANK_OF[card], card)  # 2s first

    t = Table(["t"], plugins={"t": make_plugin("t", zsy_card_order=zsy_card_order)})
    t.set_hands("3 2 A", "4", "5", "6", leader=0)
    shown = hand_shown(t.rules, t.state, t.state.hands[0])
    assert [card_str(c)[:-1] for c in shown] == ["2", "3", "A"]
    assert t.state.hands[0] == tuple(sorted(t.state.hands[0], key=lambda c: (RANK_OF[c], c)))


def test_hook_zsy_tribute():
    def zsy_tribute(table, tribute):
        return Tribute(enabled=True, cards=1, second=False)

    r = build(zsy_tribute=zsy_tribute)
    assert (r.tribute, r.tribute_cards, r.second_tribute) == (True, 1, False)


def test_hook_zsy_tribute_duties():
    def zsy_tribute_duties(rules, order):
        return (Duty("give", order[1], order[0], 1), Duty("return", order[0], order[1], 1))

    r = build(zsy_tribute_duties=zsy_tribute_duties)
    from zsy_lan.engine.match import tribute_duties

    assert tribute_duties(r, (2, 0, 1, 3)) == (Duty("give", 0, 2, 1), Duty("return", 2, 0, 1))


def test_hook_zsy_phases():
    class Vote:
        def legal(self, rules, state, seat):
            return [Action("vote", seat, value=1)]

        def apply(self, rules, state, action):
            if action.kind != "vote":
                raise RuleError("X-1", "vote first")
            return evolve(state, phase="play")

    def zsy_phases(table):
        return {"vote": Vote()}

    def zsy_on_deal(rules, state):
        return evolve(state, phase="vote")

    t = Table(["t"], plugins={"t": make_plugin("t", zsy_phases=zsy_phases,
                                               zsy_on_deal=zsy_on_deal)})
    st = t.deal(0)
    assert st.phase == "vote"
    t.expect_illegal(st.turn, Action("pass", st.turn), rule="X-1")
    assert t.act(Action("vote", st.turn, value=1)).phase == "play"
    with pytest.raises(ConfigError, match="both run the 'tribute' phase"):
        other = make_plugin("u", zsy_phases=lambda table: {"tribute": Vote()})
        build_rules(4, ["t", "u"], plugins={"t": make_plugin("t", zsy_phases=lambda table: {
            "tribute": Vote()}), "u": other})


def test_hook_zsy_next_leader():
    def zsy_next_leader(rules, state, winner):
        return (winner + 2) % 4 if (winner + 2) % 4 not in state.finished else None

    t = Table(["t"], plugins={"t": make_plugin("t", zsy_next_leader=zsy_next_leader)})
    t.set_hands("K", "3 4", "5 6", "7 8", leader=0)
    t.play(0, "K")
    t.pass_(1)
    t.pass_(2)
    st = t.pass_(3)
    assert st.turn == 2  # not seat 1, the next active seat


def test_hook_zsy_teams():
    def zsy_teams(table):
        return ((0, 1), (2, 3))

    r = build(zsy_teams=zsy_teams)
    assert r.teams == ((0, 1), (2, 3)) and r.partner_of(0) == (1,)


def test_hook_zsy_on_deal():
    def zsy_on_deal(rules, state):
        return with_extra(state, dealt=1)

    t = Table(["t"], plugins={"t": make_plugin("t", zsy_on_deal=zsy_on_deal)})
    assert t.deal(0).get("dealt") == 1


def test_hook_zsy_on_seed():
    from zsy_lan.engine.shuffle import choose

    def zsy_on_seed(rules, state, seed):
        return with_extra(state, lucky=choose(seed, "lucky", 100))

    t = Table(["t"], plugins={"t": make_plugin("t", zsy_on_seed=zsy_on_seed)})
    a = t.deal(7).get("lucky")
    t2 = Table(["t"], plugins={"t": make_plugin("t", zsy_on_seed=zsy_on_seed)})
    assert a == t2.deal(7).get("lucky") and 0 <= a < 100


def test_hook_zsy_on_play():
    def zsy_on_play(rules, state, action, combo):
        return with_extra(state, plays=state.get("plays", 0) + 1)

    t = Table(["t"], plugins={"t": make_plugin("t", zsy_on_play=zsy_on_play)})
    t.set_hands("3 4", "5 6", "7 8", "9 10", leader=0)
    t.play(0, "3")
    assert t.play(1, "5").get("plays") == 2


def test_hook_zsy_round_over():
    def zsy_round_over(rules, state):
        return True

    t = Table(["t"], rounds=1,
              plugins={"t": make_plugin("t", zsy_round_over=zsy_round_over)})
    t.set_hands("3", "5 6", "7 8", "9 10", leader=0)
    st = t.play(0, "3")
    assert st.phase == "done" and st.finished == (0, 1, 2, 3)


def test_hook_zsy_scoring():
    def zsy_scoring(table):
        return "cardcount"

    assert build(zsy_scoring=zsy_scoring).scoring == "cardcount"


def test_hook_zsy_score_round():
    def zsy_score_round(rules, state):
        return tuple(10 if s == state.finished[0] else 0 for s in range(state.players))

    t = Table(["t"], rounds=1, plugins={"t": make_plugin("t", zsy_score_round=zsy_score_round)})
    res = t.selfplay(1, seed=3)
    assert sorted(res.points[0]) == [0, 0, 0, 10]


def test_hook_zsy_match_score():
    def zsy_match_score(rules, match):
        return tuple(-u for u in match.upstreams)  # fewest rounds as Upstream wins

    t = Table(["t"], rounds=3,
              plugins={"t": make_plugin("t", zsy_match_score=zsy_match_score)})
    res = t.selfplay(3, seed=1)
    assert all(res.upstreams[w] == min(res.upstreams) for w in res.winners)


def test_hook_zsy_check_rounds():
    def zsy_check_rounds(rules, rounds):
        return ("X-9", "even matches only") if rounds % 2 else None

    t = Table(["t"], rounds=2,
              plugins={"t": make_plugin("t", zsy_check_rounds=zsy_check_rounds)})
    with pytest.raises(RuleError) as exc:
        Table(["t"], rounds=3,
              plugins={"t": make_plugin("t", zsy_check_rounds=zsy_check_rounds)})
    assert exc.value.rule == "X-9" and t.match.rounds == 2


def test_hook_zsy_vocabulary():
    from zsy_lan.text import words

    def zsy_vocabulary(table):
        return {"kind:single": "lone card", "play:single": "lone {rank}", "stake": "beans"}

    r = build(zsy_vocabulary=zsy_vocabulary)
    assert r.vocabulary["kind:single"] == "lone card"
    assert words.combo_name(r, Combo("single", 1, 6)) == "lone 9"
    assert words.kind_name(r, "pair") == "pair"  # the game's words stay where not replaced
    assert words.stake_word(r) == "beans"


def test_table_config_helpers():
    tc = TableConfig("zsy", 4, ("zsy", "x"), {"zsy": {"scoring": "ranking"}, "x": {}})
    assert tc.opt("zsy", "scoring") == "ranking" and tc.enabled("x") and not tc.enabled("y")


# --- across deals (tests/plugins/test_across_deals.py proves them with whole plugins) ---------


def test_hook_zsy_deal_lead():
    from zsy_lan.engine.hookspecs import Lead

    def zsy_deal_lead(rules, match, seed):
        assert len(seed) == 32  # the deal's shared seed (a seat drawn by lot)
        return Lead(card=make_card(1, 3))  # 4♠, every deal

    t = Table(["t", "no-tribute"], plugins={"t": make_plugin("t", zsy_deal_lead=zsy_deal_lead)})
    for seed in (1, 2):
        t.deal(seed)
        holder = next(s for s, h in enumerate(t.state.hands) if make_card(1, 3) in h)
        assert t.state.turn == holder and t.state.must_contain == make_card(1, 3)
        t.play_out("greedy")


def test_hook_zsy_deal_over():
    def zsy_deal_over(match):
        return {"t.deals": match.get("t.deals", 0) + 1, "t.last": list(match.results[-1].order)}

    t = Table(["t"], plugins={"t": make_plugin("t", zsy_deal_over=zsy_deal_over)})
    t.deal(1)
    t.play_out("greedy")
    assert t.match.get("t.deals") == 1 and t.match.get("t.last") == t.match.results[-1].order
    assert t.game.public_json()["extra"]["t.deals"] == 1


def test_hook_zsy_match_over():
    def zsy_match_over(match):
        return (0, 2) if len(match.results) == 2 else ()

    t = Table(["t"], rounds=1, plugins={"t": make_plugin("t", zsy_match_over=zsy_match_over)})
    for seed in (1, 2):
        t.deal(seed)
        t.play_out("greedy")
    assert t.match.phase == "over" and t.match.winners == (0, 2) and len(t.match.results) == 2


def test_hook_zsy_rule_ids():
    r = build(zsy_rule_ids=lambda table: {"ZSY-4.1": "T-4"})
    t = Table(["t"], plugins={"t": make_plugin("t", zsy_rule_ids=lambda: {"ZSY-4.1": "T-4"})})
    t.set_hands("5 K", "4 A", "6 Q", "7 J", leader=0)
    t.play(0, "5")
    t.expect_illegal(1, "4", rule="T-4")
    assert r.rule_id("ZSY-4.1") == "T-4"
