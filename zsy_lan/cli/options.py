"""Shared command-line options: the table's rules (players, variants, options).

One place so ``moves``, ``selfplay``, ``play``, ``rules`` and ``host`` accept the
same spelling and report the same errors.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import click

from zsy_lan.engine.errors import ConfigError
from zsy_lan.engine.rules import Rules
from zsy_lan.engine.ruleset import build_rules
from zsy_lan.text import words
from zsy_lan.text.engine_text import translate as engine_said
from zsy_lan.text.i18n import _
from zsy_lan.text.sanitize import clean

F = TypeVar("F", bound=Callable[..., Any])


def rules_options() -> Callable[[F], F]:
    """``--players``, ``--variant`` (repeatable) and ``--option k=v`` (repeatable)."""

    def deco(fn: F) -> F:
        fn = click.option(
            "--option",
            "options",
            multiple=True,
            metavar="NAME=VALUE",
            help="A variant option, e.g. --option scoring=penalty (see `zsy plugins`).",
        )(fn)
        fn = click.option(
            "--variant",
            "variants",
            multiple=True,
            metavar="NAME",
            help="Enable a rule variant (repeatable; see `zsy plugins`).",
        )(fn)
        fn = click.option(
            "--players",
            type=click.IntRange(3, 6),
            default=None,
            help="Number of players, 3-6: the game decides its default and the counts it "
            "plays with (`zsy plugins` lists them; 4, Dou Dizhu 3).",
        )(fn)
        return fn

    return deco


def rounds_option(maximum: int = 1000) -> Callable[[F], F]:
    """``--rounds``: the match length; unset means the game's default (see :func:`match_rounds`)."""
    return click.option(
        "--rounds",
        type=click.IntRange(1, maximum),
        default=None,
        help="Rounds in the match (default 5, or the game's nearest valid count: 6 for Dou Dizhu).",
    )


def parse_options(pairs: Sequence[str]) -> dict[str, str]:
    """``["a=1", "b=x"]`` → ``{"a": "1", "b": "x"}``; a malformed pair is a usage error."""
    out: dict[str, str] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name.strip():
            raise click.BadParameter(
                _("'{pair}' is not NAME=VALUE (for example --option scoring=penalty).").format(
                    pair=pair
                ),
                param_hint="--option",
            )
        out[name.strip()] = value.strip()
    return out


def match_rounds(rules: Rules, rounds: int | None) -> int:
    """``--rounds``, or the game's default: 5, or the next count the game accepts (DDZ: 6).

    A game that ends the match itself whatever the count (its ``term:match_end``
    vocabulary entry says how: Guandan) is told to the player who gave ``--rounds``,
    on standard error, instead of the count being dropped without a word.
    """
    if rounds is not None:
        ends = words.term(rules, "term:match_end")
        if ends is not None:
            click.echo(_("{how}: --rounds {n} is not used.").format(how=ends, n=rounds), err=True)
        if rules.check_rounds is not None:
            problem = rules.check_rounds(rules, rounds)
            if problem is not None:
                rule, message = problem
                raise click.BadParameter(engine_said(f"{message} ({rule})"), param_hint="--rounds")
        return rounds
    for n in range(5, 64):
        if rules.check_rounds is None or rules.check_rounds(rules, n) is None:
            return n
    raise click.UsageError(
        _("This game accepts no match length between 5 and 63: give one with --rounds.")
    )


def make_rules(players: int | None, variants: Sequence[str], options: Sequence[str]) -> Rules:
    """Build the rules or fail with a usage error that says what is wrong."""
    try:
        return build_rules(players, list(variants), parse_options(options))
    except ConfigError as exc:  # may quote a plugin's own text (its error): cleaned
        raise click.UsageError(engine_said(clean(str(exc)))) from exc


def pasted_url(target: str | None) -> str | None:
    """A ``tcp://`` line as pasted, without what was copied around it.

    The host prints ``(or: zsy join tcp://...)``: a copy of the line often takes the
    closing bracket, a full stop or the quotes along. None of these can end a table's
    URL (its keys, secret and id are base64url or hex), so they are cut off; a table
    NAME is kept as typed.
    """
    if target is None or not target.strip().startswith("tcp://"):
        return target
    return target.strip().rstrip(")]}>.,;:'\"`").strip()
