"""The engine's refusals in the player's language.

Why a module: the engine and the plugins are pure and never import
:mod:`zsy_lan.text.i18n` (DESIGN.md), so a refused play arrives as English text
with its rule id, ``"9♦ 9♣ is not higher than the last play (ZSY-4.1)"``.
The table shows that reason to the player; :func:`translate` reads the
sentences the engine and the built-in plugins say most (an illegal play, a
card typed wrong, a bid out of turn) and says them again through gettext, with
the cards, seats and rule id as they were. A sentence it does not know (a
third-party plugin's, or one the engine learns later) is shown as it came,
in English: nothing is lost. ``tests/i18n/test_i18n_engine_text.py`` makes
the engine produce each sentence, so a reworded engine message fails there
instead of silently falling back to English.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from zsy_lan.engine.errors import PluginError
from zsy_lan.text.i18n import N_, _
from zsy_lan.text.sanitize import clean

__all__ = ["plugin_failed", "translate"]

# a rule id: RULES.md's (ZSY-4.1, DDZ-2.3) or a plugin's own (B2-3.2: zsy_rule_ids)
_RULE = re.compile(r"(?s)(?P<body>.*) \((?P<rule>[A-Z][A-Z0-9]*-[0-9][0-9.]*[A-Z]?)\)")

# A combination's noun as the engine says it (``straight of 6 cards``): the noun is a
# vocabulary word (zsy_lan.text.words marks them all), the size is said again here.
_SIZED = re.compile(r"(?P<kind>.+) of (?P<n>\d+) cards")


def _kind(noun: str) -> str:
    sized = _SIZED.fullmatch(noun)
    if sized:
        return _("{kind} of {n} cards").format(kind=_(sized["kind"]), n=sized["n"])
    return _(noun)


def _same(value: str) -> str:
    return value


_COUNTS = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight")


def _count(value: str) -> str:
    """The engine's count words (``two``) are the presenter's too: translate them."""
    return _(value) if value in _COUNTS else value


#: (the engine's sentence as a pattern, its message id, how to say each field again).
_SENTENCES: tuple[tuple[re.Pattern[str], str, dict[str, Callable[[str], str]]], ...] = tuple(
    (re.compile(pattern), msgid, converters)
    for pattern, msgid, converters in (
        # engine/round.py: the play phase
        (r"(?P<cards>.+) is not a combination", N_("{cards} is not a combination"), {}),
        (
            r"(?P<cards>.+) is an? (?P<kind>.+); follow with an? (?P<last>.+) or a bomb",
            N_("{cards} is a {kind}; follow with a {last} or a bomb"),
            {"kind": _kind, "last": _kind},
        ),
        (
            r"(?P<cards>.+) is not higher than the last play",
            N_("{cards} is not higher than the last play"),
            {},
        ),
        (r"(?P<cards>.+) does not beat the bomb", N_("{cards} does not beat the bomb"), {}),
        (
            r"the first lead must contain the start card (?P<card>.+)",
            N_("the first lead must contain the start card {card}"),
            {},
        ),
        (
            r"the leader must play: passing is only for following a play",
            N_("the leader must play: passing is only for following a play"),
            {},
        ),
        (r"a play needs at least one card", N_("a play needs at least one card"), {}),
        (r"the same card is named twice", N_("the same card is named twice"), {}),
        (
            r"it is seat (?P<turn>\d+)'s turn, not seat (?P<seat>\d+)'s",
            N_("it is seat {turn}'s turn, not seat {seat}'s"),
            {},
        ),
        (r"the round is over", N_("the round is over"), {}),
        (
            r"seat (?P<seat>\d+) does not hold (?P<cards>.+)",
            N_("seat {seat} does not hold {cards}"),
            {},
        ),
        (r"you do not hold any (?P<rank>\S+)", N_("you do not hold any {rank}"), {}),
        (
            r"you hold only (?P<held>\w+) (?P<rank>\S+), not (?P<asked>\w+)",
            N_("you have only {held} {rank}, not {asked}"),
            {"held": _count, "asked": _count},
        ),
        (r"you do not hold those cards", N_("you do not hold those cards"), {}),
        (
            r"the tribute must be the (?P<n>\d+) highest natural card\(s\): ranks (?P<ranks>.+)",
            N_("the tribute must be the {n} highest natural card(s): ranks {ranks}"),
            {},
        ),
        (
            r"the tribute is (?P<n>\d+) card\(s\), not (?P<m>\d+)",
            N_("the tribute is {n} card(s), not {m}"),
            {},
        ),
        (r"tribute cards are handed face up", N_("tribute cards are handed face up"), {}),
        # engine/cards.py: typing cards
        (
            r"no cards given: type ranks like '3 3' or '10 J Q K A'",
            N_("no cards given: type ranks like '3 3' or '10 J Q K A'"),
            {},
        ),
        (
            r"'(?P<token>.+)' is not a card \(ranks: 3-10 J Q K A 2 BJ RJ; ten also T or 0; "
            r"optional suit D C H S or ♦ ♣ ♥ ♠\)",
            N_(
                "'{token}' is not a card (ranks: 3-10 J Q K A 2 BJ RJ; ten also T or 0; "
                "optional suit D C H S or ♦ ♣ ♥ ♠)"
            ),
            {},
        ),
        (
            r"(?P<card>\S+) is not in this table's deck",
            N_("{card} is not in this table's deck"),
            {},
        ),
        # plugins/doudizhu.py: bidding and doubling
        (
            r"it is seat (?P<turn>\d+)'s turn to bid, not seat (?P<seat>\d+)'s",
            N_("it is seat {turn}'s turn to bid, not seat {seat}'s"),
            {},
        ),
        (
            r"this is the bidding, not the play: type (?P<choices>.+) or 'pass'",
            N_("this is the bidding, not the play: type {choices} or 'pass'"),
            {"choices": lambda s: s.replace("' or '", "' / '")},
        ),
        (
            r"bid (?P<low>\d)-3 or pass, not (?P<value>.+)",
            N_("bid {low}-3 or pass, not {value}"),
            {},
        ),
        (
            r"it is seat (?P<turn>\d+)'s turn to double, not seat (?P<seat>\d+)'s",
            N_("it is seat {turn}'s turn to double, not seat {seat}'s"),
            {},
        ),
        (
            r"a Dou Dizhu match is a multiple of (?P<multiple>\d+) hands, not (?P<rounds>\d+) "
            r"\(or set --option match_multiple=1\)",
            N_(
                "a Dou Dizhu match is a multiple of {multiple} hands, not {rounds} "
                "(or set --option match_multiple=1)"
            ),
            {},
        ),
        # engine/ruleset.py: the table's variants and options
        (
            r"unknown plugin '(?P<name>[^']*)' \(installed: (?P<known>.*); see `zsy plugins`\)",
            N_("unknown plugin '{name}' (installed: {known}; see `zsy plugins`)"),
            {},
        ),
        (
            r"unknown option '(?P<name>[^']*)'; it belongs to plugin '(?P<plugin>[^']*)' "
            r"\(add --variant (?P=plugin)\)",
            N_("unknown option '{name}'; it belongs to plugin '{plugin}' (add --variant {plugin})"),
            {},
        ),
        (
            r"unknown option '(?P<name>[^']*)'; options of this table: none",
            N_("unknown option '{name}'; this table has no options"),
            {},
        ),
        (
            r"unknown option '(?P<name>[^']*)'; options of this table: (?P<names>.+)",
            N_("unknown option '{name}'; options of this table: {names}"),
            {},
        ),
        (
            r"option '(?P<key>[^']*)': there is no plugin '(?P<plugin>[^']*)'",
            N_("option '{key}': there is no plugin '{plugin}'"),
            {},
        ),
        (
            r"option '(?P<option>[^']*)' takes true or false, not (?P<value>.+)",
            N_("option '{option}' takes true or false, not {value}"),
            {},
        ),
        (
            r"option '(?P<option>[^']*)' takes an integer, not (?P<value>.+)",
            N_("option '{option}' takes an integer, not {value}"),
            {},
        ),
        (
            r"option '(?P<option>[^']*)' must be within (?P<low>-?\d+)\.\.(?P<high>-?\d+), "
            r"not (?P<value>.+)",
            N_("option '{option}' must be within {low}..{high}, not {value}"),
            {},
        ),
        (
            r"option '(?P<option>[^']*)' must be one of (?P<choices>.+), not (?P<value>.+)",
            N_("option '{option}' must be one of {choices}, not {value}"),
            {},
        ),
        # engine/ruleset.py and plugin_conflicts.py: a plugin that is broken or contradicts
        # (what comes from the plugin, its error or the disagreement, stays as it came)
        (
            r"plugin '(?P<name>[^']*)' \((?P<source>[^)]*)\) failed to load: (?P<error>.+)",
            N_("plugin '{name}' ({source}) failed to load: {error}"),
            {},
        ),
        (
            r"rules plugin '(?P<name>[^']*)' failed in its (?P<hook>\S+): (?P<error>.+); "
            r"the table cannot be built",
            N_("rules plugin '{name}' failed in its {hook}: {error}; the table cannot be built"),
            {},
        ),
        (
            r"plugins '(?P<a>[^']*)' and '(?P<b>[^']*)' contradict each other: (?P<why>.+); "
            r"enable one of them, or have one declare that it comes after the other "
            r"\(after = \(\"(?P=a)\",\) in '(?P=b)'\)",
            N_(
                "plugins '{a}' and '{b}' contradict each other: {why}; enable one of them, or "
                "have one declare that it comes after the other (after = (\"{a}\",) in '{b}')"
            ),
            {},
        ),
        # engine/cards.py: the legend of what can be typed
        (
            r"Ranks low to high: 3 4 5 6 7 8 9 10 J Q K A 2 BJ RJ\. Ten: 10, T or 0\. "
            r"Black joker: BJ, B, SJ, X, 小王\. Red joker: RJ, R, DJ, 大王\. "
            r"Suits \(optional\): D/♦ C/♣ H/♥ S/♠, e\.g\. 10s or 10♠\.",
            N_(
                "Ranks low to high: 3 4 5 6 7 8 9 10 J Q K A 2 BJ RJ. Ten: 10, T or 0. "
                "Black joker: BJ, B, SJ, X, 小王. Red joker: RJ, R, DJ, 大王. "
                "Suits (optional): D/♦ C/♣ H/♥ S/♠, e.g. 10s or 10♠."
            ),
            {},
        ),
        # plugins/house_rules.py: the single-card tribute
        (r"you can only offer cards you hold", N_("you can only offer cards you hold"), {}),
        (r"you do not hold that card", N_("you do not hold that card"), {}),
        (r"the tribute is your highest card", N_("the tribute is your highest card"), {}),
        (r"pick one of the two offered cards", N_("pick one of the two offered cards"), {}),
    )
)


def plugin_failed(exc: PluginError) -> str:
    """A rules plugin's bug as the one sentence the player reads (the traceback is logged).

    Everything in it comes from the plugin (its name, the exception's text), so
    it is cleaned like anything that did not come from this program.
    """
    error = str(exc).partition(f"its {exc.hook}: ")[2]
    return _(
        "Stopped: the rules plugin '{plugin}' failed in its {hook} ({error}); this is a bug "
        "of that plugin, to report to its authors."
    ).format(plugin=clean(exc.plugin), hook=clean(exc.hook), error=clean(error, 200))


def translate(text: str) -> str:
    """``text`` (an engine or plugin refusal) in the current language, else unchanged.

    The rule id stays as it came: ``… (ZSY-4.1)``. Cards, seat numbers and what
    the player typed are put back as they were.
    """
    found = _RULE.fullmatch(text)
    body, rule = (found["body"], found["rule"]) if found else (text, None)
    for pattern, msgid, converters in _SENTENCES:
        hit = pattern.fullmatch(body)
        if hit is None:
            continue
        fields = {k: converters.get(k, _same)(v) for k, v in hit.groupdict().items()}
        said = _(msgid).format(**fields)
        return _("{reason} ({rule})").format(reason=said, rule=rule) if rule else said
    return text
