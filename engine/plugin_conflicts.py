"""Refusing two modifiers that answer the same question differently, when the table is built.

Why: a ``firstresult`` hook takes the first answer in canonical order, so two
modifiers that disagree (two ``zsy_beats`` with different verdicts on one
pair of plays) used to load silently and the one whose name sorts last won.
A player reading one plugin's rules would then be refused by the other's.
Here each such pair is refused with an example of the disagreement, unless
one of the two declared the order (``after = ("other",)``: "where we differ,
mine wins"; docs/plugins.md, "Plugins that answer the same question").

How disagreement is found, deterministically and cheaply (only when two or
more modifiers implement the same hook; the game plugin is meant to be
overridden and is never compared):

* build hooks that answer a value (deck, deal layout, first lead, teams,
  scoring, default players): each modifier's answer for this table, compared;
* ``zsy_move_generator`` and ``zsy_rules_in_effect`` answer a function that
  cannot be compared: two modifiers answering either one conflict;
* ``zsy_beats``: every pair of a fixed probe set of plays (for each kind and
  length the rules can make from a whole deck: the lowest, a middle and the
  highest), compared where both answer;
* ``zsy_tribute_duties``: every finishing order of the table's seats.

(``zsy_check_rounds`` needs no probe: any plugin's refusal of a match length
stands, whatever the others answer.)

Limits: the probes are samples (two ``zsy_beats`` that differ only on plays
outside the set load), and the hooks that read a round or a match
(``zsy_next_leader``, ``zsy_round_over``, ``zsy_score_round``,
``zsy_match_score``, ``zsy_deal_lead``, ``zsy_match_over``) are not probed:
a plugin that answers them should declare a conflict (``zsy_conflicts``) or
an order with the modifiers it knows to answer them too.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

import pluggy

from .cards import rank_of
from .combos import Combo, Play
from .errors import ConfigError
from .hookspecs import Deck, TableConfig
from .plugin_guard import guard

if TYPE_CHECKING:
    from .rules import Rules

__all__ = ["probe_plays", "refuse_contradictions"]

#: build hooks whose answers are plain values, compared as they are
VALUE_HOOKS = (
    "zsy_default_players",
    "zsy_deck",
    "zsy_deal_layout",
    "zsy_first_lead",
    "zsy_teams",
    "zsy_scoring",
)
#: build hooks whose answers are functions: two modifiers answering one conflict
FUNCTION_HOOKS = ("zsy_move_generator", "zsy_rules_in_effect")
#: how many plays of one kind a probe takes from its generator before sampling them
PROBE_TAKE = 400


def refuse_contradictions(
    pm: pluggy.PluginManager, table: TableConfig, rules: Rules, ordered: set[tuple[str, str]]
) -> None:
    """Raise :class:`ConfigError` for the first pair of modifiers found to disagree.

    ``ordered`` holds ``(a, b)`` when ``a`` declared it comes after ``b``
    (directly or through others): such a pair may disagree, ``a`` wins.
    """
    modifiers = table.plugins[1:]
    deck = Deck(rules.decks, rules.deck)
    kwargs = {"table": table, "deck": deck}
    for hook in VALUE_HOOKS:
        impls = _modifier_impls(pm, hook, modifiers)
        if len(impls) > 1:
            answers = {n: _norm(call(**{a: kwargs[a] for a in args})) for n, args, call in impls}
            _compare(hook, answers, ordered, "answers")
    for hook in FUNCTION_HOOKS:
        impls = _modifier_impls(pm, hook, modifiers)
        if len(impls) > 1:
            answers = {
                n: None if call(**{a: kwargs[a] for a in args}) is None else "a function"
                for n, args, call in impls
            }
            given = [n for n, v in answers.items() if v is not None]
            for a, b in itertools.combinations(given, 2):
                if (a, b) not in ordered and (b, a) not in ordered:
                    raise ConfigError(_refusal(a, b, f"both replace {hook}"))
    play_args = {"rules": rules}
    beats = _modifier_impls(pm, "zsy_beats", modifiers)
    if len(beats) > 1:
        plays = probe_plays(rules)
        _probe(beats, ordered, "zsy_beats", (
            ({**play_args, "play": p, "last": q}, f"whether {_say(p)} beats {_say(q)}")
            for p in plays for q in plays
        ), lambda v: "yes" if v else "no")
    duties = _modifier_impls(pm, "zsy_tribute_duties", modifiers)
    if len(duties) > 1:
        _probe(duties, ordered, "zsy_tribute_duties", (
            ({**play_args, "order": order}, f"the tribute after the finishing order {order}")
            for order in itertools.permutations(range(rules.players))
        ), repr)


def _modifier_impls(
    pm: pluggy.PluginManager, hook: str, modifiers: Sequence[str]
) -> list[tuple[str, tuple[str, ...], Callable[..., Any]]]:
    """``(plugin, argument names, guarded function)`` of each modifier implementing ``hook``."""
    caller = getattr(pm.hook, hook, None)
    if caller is None:
        return []
    out = []
    for impl in caller.get_hookimpls():
        if impl.plugin_name in modifiers and not (impl.wrapper or impl.hookwrapper):
            call = guard(impl.plugin_name, hook, impl.function)
            out.append((impl.plugin_name, tuple(impl.argnames), call))
    out.sort(key=lambda t: modifiers.index(t[0]))
    return out


def _compare(hook: str, answers: dict[str, Any], ordered: set[tuple[str, str]], verb: str) -> None:
    given = [(n, v) for n, v in answers.items() if v is not None]
    for (a, va), (b, vb) in itertools.combinations(given, 2):
        if va != vb and (a, b) not in ordered and (b, a) not in ordered:
            raise ConfigError(
                _refusal(a, b, f"their {hook} {verb} differ ({a}: {va!r:.60}; {b}: {vb!r:.60})")
            )


def _probe(
    impls: list[tuple[str, tuple[str, ...], Callable[..., Any]]],
    ordered: set[tuple[str, str]],
    hook: str,
    cases: Iterable[tuple[dict[str, Any], str]],
    said: Callable[[Any], str],
) -> None:
    pairs = [
        (x, y) for x, y in itertools.combinations(impls, 2)
        if (x[0], y[0]) not in ordered and (y[0], x[0]) not in ordered
    ]
    if not pairs:
        return
    for kwargs, question in cases:
        answers = {n: _norm(call(**{a: kwargs[a] for a in args})) for n, args, call in impls}
        for (a, _, _), (b, _, _) in pairs:
            va, vb = answers[a], answers[b]
            if va is not None and vb is not None and va != vb:
                raise ConfigError(_refusal(
                    a, b, f"they disagree on {question} ({a}: {said(va)}; {b}: {said(vb)})"
                ))


def _refusal(a: str, b: str, why: str) -> str:
    return (
        f"plugins '{a}' and '{b}' contradict each other: {why}; enable one of them, "
        f"or have one declare that it comes after the other (after = (\"{a}\",) in '{b}')"
    )


def _norm(value: Any) -> Any:
    """Lists as tuples (an answer's container type is no disagreement)."""
    if isinstance(value, (list, tuple)):
        return tuple(_norm(v) for v in value)
    return value


def _say(combo: Combo) -> str:
    return f"{combo.kind}({combo.length} cards, key {combo.key})"


def probe_plays(rules: Rules) -> list[Combo]:
    """A fixed, representative set of plays: per kind and length, the lowest, a middle
    and the highest the rules can make from their whole deck (at most the first
    :data:`PROBE_TAKE` plays a kind generates are looked at)."""
    counts = [0] * 15
    for card in rules.deck:
        counts[rank_of(card)] += 1
    hand = tuple(sorted(rules.deck))
    found: dict[tuple[str, int], set[Combo]] = {}
    sources: list[Iterable[Play]] = [
        kind.generate(hand, rules, None) for kind in rules.kinds if kind.cards
    ]
    if rules.move_generator is not None:  # the game's own generator: one call, all kinds
        sources.append(rules.move_generator(rules, counts, None))
    else:
        sources += [kind.generate(counts, rules, None) for kind in rules.kinds if not kind.cards]
    for source in sources:
        for play in itertools.islice(source, PROBE_TAKE if rules.move_generator is None else None):
            found.setdefault((play.combo.kind, play.combo.length), set()).add(play.combo)
    out: list[Combo] = []
    for key in sorted(found):
        combos = sorted(found[key], key=lambda c: c.key)
        for pick in {0, len(combos) // 2, len(combos) - 1}:
            out.append(combos[pick])
    return sorted(set(out))
