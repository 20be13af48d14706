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
not (they sit on move generation's hot path): :func:`plugin_in_traceback`
finds their owner from the traceback instead, by the plugin's module.
"""

from __future__ import annotations

import types
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import pluggy

from .errors import EngineError, PluginError

__all__ = [
    "GuardedPhase",
    "call_pluggy",
    "guard",
    "module_owners",
    "plugin_in_traceback",
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


def module_owners(plugins: Mapping[str, Any]) -> dict[str, str]:
    """Module name -> plugin name, for every plugin given as a module (or an object of one).

    A plugin module ``pkg`` owns ``pkg`` and, when it is a package, ``pkg.*``
    (a real plugin keeps its hooks in submodules as often as not).
    """
    out: dict[str, str] = {}
    for name, obj in plugins.items():
        module = obj.__name__ if isinstance(obj, types.ModuleType) else type(obj).__module__
        if module and module not in ("builtins", "types"):
            out[module] = name
    return out


def plugin_in_traceback(exc: BaseException, owners: Mapping[str, str]) -> str | None:
    """The plugin whose module holds the innermost frame of ``exc``'s traceback, or None."""
    found = None
    tb = exc.__traceback__
    while tb is not None:
        module = str(tb.tb_frame.f_globals.get("__name__", ""))
        for prefix, plugin in owners.items():
            if module == prefix or module.startswith(prefix + "."):
                found = plugin
                break
        tb = tb.tb_next
    return found


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
