"""Building a table's :class:`Rules` from its configuration.

The plugin issue replaces the body of :func:`build_rules` with the pluggy
plugin manager (one per table, enabled variants in canonical order); callers
only ever use this function and :func:`ruleset_id`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .canonical import digest
from .errors import ConfigError
from .rules import Rules, base_rules


def build_rules(
    players: int | None = None,
    variants: Sequence[str] = (),
    options: Mapping[str, Any] | None = None,
) -> Rules:
    """The rules for a table of ``players`` (``None``: the game's default) with variants and options."""
    if variants:
        raise ConfigError(f"unknown variant(s): {', '.join(variants)} (no plugins are installed)")
    opts = dict(options or {})
    if opts:
        raise ConfigError(f"unknown option(s): {', '.join(sorted(opts))}")
    return base_rules(4 if players is None else players)


def ruleset_id(rules: Rules) -> str:
    """A short stable id of the exact rules (hash of the canonical config)."""
    return digest(rules.config)[:16]
