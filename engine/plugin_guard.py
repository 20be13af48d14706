"""Naming the rules plugin whose code raised, so one plugin's bug reads as its own.

Why a module: a hook that raises used to surface as a 40-line traceback from
deep in the engine, with nothing telling the player (or the plugin's author)
whose code it was. The ruleset builder compiles every hook into small
callables; here each implementation is wrapped so that an exception it raises
becomes a :class:`~zsy_lan.engine.errors.PluginError` naming the plugin and the
hook in one sentence (the original stays its ``__cause__``, whose traceback
goes to the log). The engine's own typed errors pass through unchanged: a
``RuleError`` from a plugin's phase handler is the rule speaking, not a bug.

What a plugin returns to be called later (a phase handler, a move generator,
the rules-in-effect function) is wrapped the same way. Combination kinds are
not (they sit on move generation's hot path): a fault in one is named after
the plugin module it was raised in
(:func:`zsy_lan.protocol.game_iface.describe_fault`).

A build hook's answer of the wrong type (a deck that is not a ``Deck``) is
refused here too, naming the plugin that gave it (:func:`checked`): the
engine would otherwise fail later, somewhere that names nobody.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import pluggy

from .combos import ComboKind
from .errors import ConfigError, EngineError, PluginError

__all__ = [
    "GuardedPhase",
    "answerer",
    "call_pluggy",
    "checked",
    "guard",
    "guarded_answer",
    "is_kinds",
    "is_teams",
    "nonsense",
]


def guard(
    plugin: str, hook: str, fn: Callable[..., Any], pick: Sequence[int] | None = None
) -> Callable[..., Any]:
    """``fn`` with any non-engine exception it raises turned into a PluginError.

    ``pick``: the positions of the arguments ``fn`` takes (an implementation
    declaring a subset of its hook's arguments); one closure either way, so a
    play-time hook costs one call more than before, not two.
    """
    if pick is None:

        def call(*args: Any, **kwargs: Any) -> Any:
            try:
                return fn(*args, **kwargs)
            except (EngineError, PluginError):
                raise
            except Exception as exc:
                raise PluginError(plugin, hook, exc) from exc

        return call
    idx = tuple(pick)

    def picked(*args: Any) -> Any:
        try:
            return fn(*[args[i] for i in idx])
        except (EngineError, PluginError):
            raise
        except Exception as exc:
            raise PluginError(plugin, hook, exc) from exc

    return picked


class GuardedPhase:
    """A plugin's phase handler whose ``legal`` and ``apply`` name the plugin when they fail."""

    def __init__(self, plugin: str, phase: str, handler: Any) -> None:
        self.handler = handler
        self.legal = guard(plugin, f"'{phase}' phase (legal)", handler.legal)
        self.apply = guard(plugin, f"'{phase}' phase (apply)", handler.apply)

    def __getattr__(self, name: str) -> Any:  # anything else the plugin's handler offers
        return getattr(self.handler, name)


def call_pluggy(pm: pluggy.PluginManager, hook: str, **kwargs: Any) -> Any:
    """``pm.hook.<hook>(**kwargs)``; an implementation that raises is named (PluginError).

    pluggy runs these hooks itself (their wrappers work), so the implementation
    that raised is found in the traceback: the innermost frame running one of
    the hook's implementation functions.
    """
    try:
        return getattr(pm.hook, hook)(**kwargs)
    except (EngineError, PluginError):
        raise
    except Exception as exc:
        codes = {
            impl.function.__code__: impl.plugin_name
            for impl in getattr(pm.hook, hook).get_hookimpls()
            if hasattr(impl.function, "__code__")
        }
        culprit = None
        tb = exc.__traceback__
        while tb is not None:
            culprit = codes.get(tb.tb_frame.f_code, culprit)
            tb = tb.tb_next
        if culprit is None:
            raise
        raise PluginError(culprit, hook, exc) from exc


# --- answers of the wrong type, named ----------------------------------------------


def answerer(pm: pluggy.PluginManager, hook: str, kwargs: Mapping[str, Any]) -> str | None:
    """The plugin whose answer a ``firstresult`` hook returns (pluggy's calling order)."""
    for impl in reversed(_plain_impls(pm, hook)):
        call = guard(impl.plugin_name, hook, impl.function)
        if call(**{a: kwargs[a] for a in impl.argnames}) is not None:
            return str(impl.plugin_name)
    return None


def _plain_impls(pm: pluggy.PluginManager, hook: str) -> list[Any]:
    return [i for i in getattr(pm.hook, hook).get_hookimpls() if not (i.wrapper or i.hookwrapper)]


def nonsense(pm: pluggy.PluginManager, hook: str, kwargs: Mapping[str, Any], what: str) -> str:
    """The refusal for a hook answer of the wrong type, naming the plugin that gave it."""
    who = answerer(pm, hook, kwargs)
    got = getattr(pm.hook, hook)(**kwargs)
    return f"plugin '{who or '?'}': its {hook} returned {got!r:.80}, not {what}"


def checked(value: Any, kind: type | tuple[type, ...], pm: pluggy.PluginManager, hook: str,
             kwargs: Mapping[str, Any], what: str) -> Any:
    """``value`` (the hook's answer) if None or a ``kind``; else a ConfigError naming who."""
    if value is not None and not isinstance(value, kind):
        raise ConfigError(nonsense(pm, hook, kwargs, what))
    return value


def is_kinds(value: Any) -> bool:
    """A sequence of combination kinds (what ``zsy_combo_kinds`` must answer)."""
    return isinstance(value, (tuple, list)) and all(isinstance(k, ComboKind) for k in value)


def guarded_answer(pm: pluggy.PluginManager, hook: str, kwargs: Mapping[str, Any]) -> Any:
    """A ``firstresult`` hook's answer that is a function (move generator, rules in effect),
    wrapped so that it names its plugin when it raises."""
    fn = call_pluggy(pm, hook, **kwargs)
    if fn is None:
        return None
    if not callable(fn):
        raise ConfigError(nonsense(pm, hook, kwargs, "a function"))
    return guard(answerer(pm, hook, kwargs) or "?", f"{hook} function", fn)


def is_teams(teams: Any, players: int) -> bool:
    """Teams of distinct seats of this table (what ``zsy_teams`` must answer)."""
    try:
        seats = [s for team in teams for s in team]
    except TypeError:
        return False
    return all(isinstance(s, int) and 0 <= s < players for s in seats) and len(set(seats)) == len(
        seats
    )
