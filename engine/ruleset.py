"""Building a table's :class:`Rules` from its configuration, through pluggy.

``build_rules(players, variants, options)`` finds the installed rule plugins
(entry-point group ``zsy.variants``: built-ins and third-party alike), creates
**one plugin manager for the table** holding exactly the enabled plugins in
canonical order (the game plugin first, then the modifiers sorted by name),
validates players, options and conflicts, and calls the build hooks once to
produce the plain :class:`Rules` value the engine uses. Play-time hooks are
gathered into small callables in the Rules, so pluggy never runs on the hot
path. ``ruleset_id(rules)`` hashes the canonical config: game, players, every
plugin's name and version and every resolved option.

Every refusal is a :class:`ConfigError` naming the plugin and the problem:
unknown plugin, two installed plugins with one name, a plugin that fails to
load or declares bad hooks, conflicting plugins, an unknown, ambiguous,
mistyped or out-of-range option, an unsupported player count.

Option names: ``--option name=value`` when exactly one enabled plugin
declares ``name``; ``--option plugin.name=value`` always works (and is needed
when two enabled plugins declare the same name).
"""

from __future__ import annotations

import importlib.metadata as md
import inspect
import logging
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import pluggy

from . import hookspecs
from .canonical import digest
from .combos import ComboKind
from .errors import ConfigError, PluginError
from .hookspecs import (
    ENTRY_POINT_GROUP,
    OPTION_TYPES,
    PROJECT,
    ComboLimits,
    DealLayout,
    Deck,
    FirstLead,
    Option,
    TableConfig,
    Tribute,
)
from .plugin_conflicts import refuse_contradictions
from .plugin_guard import (
    GuardedPhase,
    call_pluggy,
    checked,
    guard,
    guarded_answer,
    is_kinds,
    is_teams,
    nonsense,
)
from .rules import SCORING_SCHEMES, Rules

log = logging.getLogger(__name__)

DEFAULT_GAME = "zsy"
RULESET_FORMAT = 1


@dataclass(frozen=True)
class PluginInfo:
    """One installed rule plugin, as discovery found it."""

    name: str
    version: str
    description: str
    game: bool
    plugin: Any
    source: str
    options: tuple[Option, ...] = ()
    problem: str | None = None  # set when it cannot be used (load error, name clash)
    after: tuple[str, ...] = ()  # plugins this one comes after (see canonical_order)


@dataclass
class Registry:
    """Installed plugins by name (problems included, so they can be reported)."""

    plugins: dict[str, PluginInfo] = field(default_factory=dict)

    def names(self) -> list[str]:
        """All plugin names, sorted."""
        return sorted(self.plugins)


# --- discovery ---------------------------------------------------------------------


def _ep_source(ep: Any) -> str:
    try:
        dist = getattr(ep, "dist", None)
        if dist is None:
            return f"{ep.value}"
        return f"{dist.metadata['Name']} {dist.version}"
    except Exception:  # noqa: BLE001 - broken metadata names the entry point instead
        return str(getattr(ep, "value", "?"))


def _inspect(name: str, obj: Any, source: str) -> PluginInfo:
    """Check a loaded plugin object's attributes and declared options.

    Never raises: whatever a plugin gets wrong (an attribute that raises,
    options that are not options, the hook specifications imported as its
    own) becomes its ``problem``, one sentence naming it, and the plugin is
    left out of every table while the others work.
    """
    try:
        return _inspected(name, obj, source)
    except Exception as exc:  # noqa: BLE001 - a plugin's attribute may raise anything
        log.info("plugin %r (%s) cannot be inspected", name, source, exc_info=True)
        return PluginInfo(name, "?", "", False, obj, source,
                          problem=f"plugin '{name}' ({source}) cannot be read: {_said(exc)}")


def _said(exc: BaseException) -> str:
    """An exception as one short line: its type and the first line of its text."""
    text = str(exc).strip().splitlines()[0][:200] if str(exc).strip() else ""
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _inspected(name: str, obj: Any, source: str) -> PluginInfo:
    problem = None
    declared = getattr(obj, "name", None)
    version = getattr(obj, "version", None)
    description = getattr(obj, "description", None) or (getattr(obj, "__doc__", "") or "")
    description = str(description)
    description = description.strip().splitlines()[0] if description.strip() else ""
    after = getattr(obj, "after", ())
    if declared != name:
        problem = (
            f"plugin '{name}' ({source}) declares name {declared!r}; "
            "it must equal its entry-point name"
        )
    elif not isinstance(version, str) or not version:
        problem = f"plugin '{name}' ({source}) has no version string"
    elif not isinstance(after, (tuple, list)) or not all(isinstance(a, str) for a in after):
        problem = f"plugin '{name}' ({source}): 'after' must be a tuple of plugin names"
    else:
        problem = _hook_problem(name, obj, source)
    options: tuple[Option, ...] = ()
    if problem is None:
        try:
            options = _declared_options(name, obj)
        except ConfigError as exc:
            problem = str(exc)
        except Exception as exc:  # noqa: BLE001 - its zsy_options raised
            log.info("plugin %r: zsy_options failed", name, exc_info=True)
            problem = f"plugin '{name}' ({source}): its zsy_options failed: {_said(exc)}"
    return PluginInfo(
        name=name,
        version=str(version or "?"),
        description=description,
        game=bool(getattr(obj, "game", False)),
        plugin=obj,
        source=source,
        options=options,
        problem=problem,
        after=tuple(after) if problem is None else (),
    )


_SPEC_MARK = f"{PROJECT}_spec"
_IMPL_MARK = f"{PROJECT}_impl"


def _hook_problem(name: str, obj: Any, source: str) -> str | None:
    """The specifications imported as hooks, or a hook function not marked ``@hookimpl``.

    ``from zsy_lan.engine.hookspecs import *`` puts every specification in the
    plugin's namespace under a hook's name; pluggy skips them silently, but
    anything reading the plugin by attribute would call the specification (its
    ``zsy_options`` returns None). An unmarked ``zsy_*`` function is a hook
    pluggy would silently never call.
    """
    specs = sorted(
        attr for attr in dir(obj)
        if attr.startswith("zsy_") and hasattr(getattr(obj, attr, None), _SPEC_MARK)
    )
    if specs:
        return (
            f"plugin '{name}' ({source}) imports the hook specifications as hooks of its own "
            f"({', '.join(specs[:3])}{', ...' if len(specs) > 3 else ''}): import only the "
            "names it uses, never `from zsy_lan.engine.hookspecs import *`"
        )
    for attr in sorted(dir(obj)):
        fn = getattr(obj, attr, None)
        if (attr.startswith("zsy_") and hasattr(hookspecs, attr) and callable(fn)
                and getattr(fn, _IMPL_MARK, None) is None):
            return f"plugin '{name}' ({source}): its {attr} is not marked @hookimpl"
    return None


def _declared_options(name: str, obj: Any) -> tuple[Option, ...]:
    fn = getattr(obj, "zsy_options", None)
    if fn is None:
        return ()
    got = fn()
    if not isinstance(got, (list, tuple)):
        raise ConfigError(
            f"plugin '{name}': zsy_options must return a list of Option values, not {got!r:.60}"
        )
    opts = tuple(got)
    seen: set[str] = set()
    for o in opts:
        if not isinstance(o, Option):
            raise ConfigError(f"plugin '{name}': zsy_options must return Option values")
        if not isinstance(o.name, str) or o.name in seen or not o.name or "." in o.name \
                or "=" in o.name:
            raise ConfigError(f"plugin '{name}': bad or repeated option name {o.name!r}")
        seen.add(o.name)
        if o.type not in OPTION_TYPES:
            raise ConfigError(f"plugin '{name}': option '{o.name}' has unknown type {o.type!r}")
        try:
            coerce_option(name, o, o.default)
        except ConfigError as exc:
            raise ConfigError(
                f"plugin '{name}': option '{o.name}' has a bad default: {exc}"
            ) from exc
    return opts


def discover(
    entry_points: Iterable[Any] | None = None, extra: Mapping[str, Any] | None = None
) -> Registry:
    """Find rule plugins: ``entry_points`` (default: installed ``zsy.variants``) plus ``extra``.

    ``extra`` maps names to plugin objects that are not installed (tests, the
    plugin author's own fixtures). pluggy would silently skip a second plugin
    with a name already registered; here two different plugins with one name
    are both marked with a problem naming each other, and a table that enables
    that name is refused.
    """
    eps = list(md.entry_points(group=ENTRY_POINT_GROUP)) if entry_points is None else list(
        entry_points
    )
    found: dict[str, list[PluginInfo]] = {}
    for ep in sorted(eps, key=lambda e: (e.name, e.value)):
        source = _ep_source(ep)
        try:
            obj = ep.load()
        except (Exception, SystemExit) as exc:  # a broken third-party plugin: report, go on
            log.info("plugin %r (%s) failed to load", ep.name, source, exc_info=True)
            info = PluginInfo(ep.name, "?", "", False, None, source,
                              problem=f"plugin '{ep.name}' ({source}) failed to load: "
                              f"{_said(exc)}")
        else:
            info = _inspect(ep.name, obj, source)
        found.setdefault(ep.name, []).append(info)
    for name, obj in (extra or {}).items():
        found.setdefault(name, []).append(_inspect(name, obj, "(given directly)"))
    reg = Registry()
    for name, infos in found.items():
        distinct: list[PluginInfo] = []
        for info in infos:  # the same object twice (one distribution seen twice) is no clash
            if not any(d.plugin is info.plugin and d.plugin is not None for d in distinct):
                distinct.append(info)
        if len(distinct) > 1:
            who = " and ".join(f"'{i.source}'" for i in distinct)
            first = distinct[0]
            reg.plugins[name] = PluginInfo(
                first.name, first.version, first.description, first.game, first.plugin,
                first.source, first.options,
                problem=f"plugin name '{name}' is claimed by {who}: uninstall one of them",
            )
        else:
            reg.plugins[name] = distinct[0]
    return reg


@lru_cache(maxsize=1)
def installed() -> Registry:
    """The installed plugins (cached for the process; :func:`refresh` forgets them)."""
    return discover()


def refresh() -> None:
    """Forget the cached discovery (after installing a plugin in the same process)."""
    installed.cache_clear()


# --- options -------------------------------------------------------------------------

_TRUE = {"true", "yes", "on", "1"}
_FALSE = {"false", "no", "off", "0"}


def coerce_option(plugin: str, opt: Option, value: Any) -> Any:
    """``value`` (a string from the command line, or a Python value) as ``opt``'s type."""
    where = f"option '{plugin}.{opt.name}'"
    if opt.type == "bool":
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.strip().lower() in _TRUE | _FALSE:
            return value.strip().lower() in _TRUE
        raise ConfigError(f"{where} takes true or false, not {value!r}")
    if opt.type == "int":
        if isinstance(value, bool):
            raise ConfigError(f"{where} takes an integer, not {value!r}")
        if isinstance(value, str):
            try:
                value = int(value.strip(), 10)
            except ValueError:
                raise ConfigError(f"{where} takes an integer, not {value!r}") from None
        if not isinstance(value, int):
            raise ConfigError(f"{where} takes an integer, not {value!r}")
        if opt.min is not None and value < opt.min or opt.max is not None and value > opt.max:
            raise ConfigError(f"{where} must be within {opt.min}..{opt.max}, not {value}")
        return value
    if opt.type == "choice":
        text = value.strip() if isinstance(value, str) else value
        if text not in opt.choices:
            raise ConfigError(f"{where} must be one of {', '.join(opt.choices)}, not {value!r}")
        return text
    if not isinstance(value, str):
        raise ConfigError(f"{where} takes text, not {value!r}")
    return value


def resolve_options(
    registry: Registry, enabled: Sequence[str], given: Mapping[str, Any]
) -> dict[str, dict[str, Any]]:
    """Each enabled plugin's options: defaults, overridden by ``given`` (coerced, checked)."""
    out: dict[str, dict[str, Any]] = {
        p: {o.name: o.default for o in registry.plugins[p].options} for p in enabled
    }
    for key in sorted(given):
        value = given[key]
        plugin, dot, name = key.partition(".")
        if dot:
            if plugin not in registry.plugins:
                raise ConfigError(f"option '{key}': there is no plugin '{plugin}'")
            if plugin not in enabled:
                raise ConfigError(
                    f"option '{key}' belongs to plugin '{plugin}', which is not enabled "
                    f"(add --variant {plugin})"
                )
            owners = [plugin]
        else:
            name = key
            owners = [p for p in enabled if name in out[p]]
            if not owners:
                elsewhere = [
                    p for p in registry.names()
                    if p not in enabled and any(o.name == name for o in registry.plugins[p].options)
                ]
                hint = (
                    f"; it belongs to plugin '{elsewhere[0]}' (add --variant {elsewhere[0]})"
                    if elsewhere
                    else "; options of this table: "
                    + (", ".join(_all_names(registry, enabled)) or "none")
                )
                raise ConfigError(f"unknown option '{name}'{hint}")
            if len(owners) > 1:
                forms = ", ".join(f"{p}.{name}" for p in owners)
                raise ConfigError(f"option '{name}' is declared by several plugins: write {forms}")
        owner = owners[0]
        decl = next((o for o in registry.plugins[owner].options if o.name == name), None)
        if decl is None:
            its = ", ".join(o.name for o in registry.plugins[owner].options) or "none"
            raise ConfigError(f"plugin '{owner}' has no option '{name}' (its options: {its})")
        out[owner][name] = coerce_option(owner, decl, value)
    return out


def _all_names(registry: Registry, enabled: Sequence[str]) -> list[str]:
    return [o.name for p in enabled for o in registry.plugins[p].options]


# --- the plugin manager ----------------------------------------------------------------


def canonical_order(registry: Registry, variants: Sequence[str]) -> tuple[str, ...]:
    """The enabled plugins in canonical order: the game first, then the modifiers.

    Modifiers are sorted by name, except that a plugin declaring ``after =
    ("other", ...)`` comes after those of them that are enabled (its fold hooks
    see their result; its ``firstresult`` answers win over theirs). Among the
    modifiers free to go next, the name decides, so the order is the same on
    every peer.
    """
    names: list[str] = []
    for v in variants:
        v = v.strip()
        if v and v not in names:
            names.append(v)
    for v in names:
        if v not in registry.plugins:
            known = ", ".join(n for n in registry.names() if not registry.plugins[n].problem)
            raise ConfigError(f"unknown plugin '{v}' (installed: {known or 'none'}; "
                              "see `zsy plugins`)")
    games = sorted(v for v in names if registry.plugins[v].game)
    if len(games) > 1:
        raise ConfigError(
            f"plugins '{games[0]}' and '{games[1]}' conflict: both are whole games; enable one"
        )
    game = games[0] if games else DEFAULT_GAME
    if game not in registry.plugins:
        raise ConfigError(f"the default game plugin '{DEFAULT_GAME}' is not installed")
    for v in (game, *sorted(names)):
        problem = registry.plugins[v].problem
        if problem:
            raise ConfigError(problem)
    order = (game, *_after_order(registry, sorted(v for v in names if v != game)))
    return order


def _after_order(registry: Registry, modifiers: list[str]) -> list[str]:
    """``modifiers`` (sorted by name) reordered so each comes after those it names in ``after``."""
    waits = {m: {a for a in registry.plugins[m].after if a in modifiers and a != m}
             for m in modifiers}
    out: list[str] = []
    while waits:
        free = [m for m in modifiers if m in waits and not waits[m]]
        if not free:
            stuck = sorted(waits)
            raise ConfigError(
                f"plugins {', '.join(repr(m) for m in stuck)} declare a circular order "
                "(each is 'after' another): one of them must drop its 'after'"
            )
        out.append(free[0])
        del waits[free[0]]
        for rest in waits.values():
            rest.discard(free[0])
    return out


def comes_after(registry: Registry, order: Sequence[str]) -> set[tuple[str, str]]:
    """Pairs ``(a, b)``: enabled ``a`` declared, directly or through others, to come after ``b``."""
    pairs = {(m, a) for m in order for a in registry.plugins[m].after if a in order}
    while True:
        more = {(a, c) for a, b in pairs for b2, c in pairs if b == b2} - pairs
        if not more:
            return pairs
        pairs |= more


def plugin_manager(registry: Registry, order: Sequence[str]) -> pluggy.PluginManager:
    """A fresh plugin manager holding exactly ``order``'s plugins, registered in that order."""
    pm = pluggy.PluginManager(PROJECT)
    pm.add_hookspecs(hookspecs)
    for name in order:
        try:
            pm.register(registry.plugins[name].plugin, name=name)
        except (ValueError, pluggy.PluginValidationError) as exc:
            raise ConfigError(f"plugin '{name}' cannot be registered: {exc}") from exc
    try:
        pm.check_pending()
    except pluggy.PluginValidationError as exc:
        raise ConfigError(f"plugin '{pm.get_name(exc.plugin)}': {exc}") from exc
    return pm


def _adapt(impl: Any, spec: Sequence[str], hook: str) -> Callable[..., Any]:
    """An implementation called positionally with the spec's arguments (it may declare a
    subset), any exception it raises naming its plugin (:func:`plugin_guard.guard`)."""
    names = list(impl.argnames)
    pick = None if names == list(spec) else [spec.index(a) for a in names]
    return guard(impl.plugin_name, hook, impl.function, pick)


#: hooks pluggy itself calls (``pm.hook.<name>(...)``), so its wrappers work there;
#: every other hook is read implementation by implementation (:func:`_impls`)
CALLED_THROUGH_PLUGGY = frozenset(
    {
        "zsy_default_players",
        "zsy_deck",
        "zsy_deal_layout",
        "zsy_first_lead",
        "zsy_teams",
        "zsy_scoring",
        "zsy_move_generator",
        "zsy_rules_in_effect",
    }
)


def _impls(pm: pluggy.PluginManager, hook: str) -> list[Any]:
    """A hook's implementations in canonical (registration) order.

    The callers compile them into plain callables (play-time hooks run without
    pluggy) or fold them one by one, so pluggy's wrapper machinery never runs
    for these hooks: a ``wrapper``/``hookwrapper`` implementation would be
    called as if it were plain (a generator, truthy, where a result belongs).
    Refused here, at table build, with the plugin's name.
    """
    impls = list(getattr(pm.hook, hook).get_hookimpls())
    for impl in impls:
        if impl.wrapper or impl.hookwrapper:
            kind = "hookwrapper=True" if impl.hookwrapper else "wrapper=True"
            raise ConfigError(
                f"plugin '{impl.plugin_name}': its {hook} is a wrapper ({kind}), but {hook} "
                "is compiled when the table is built and cannot be wrapped; make it a plain "
                "@hookimpl (tryfirst=True or trylast=True choose its place)"
            )
    return impls


def _refuse_wrappers(pm: pluggy.PluginManager) -> None:
    """Check every hook read without pluggy, also those no code path reaches for this table."""
    for name in sorted(vars(hookspecs)):
        known = getattr(pm.hook, name, None) is not None
        if name.startswith("zsy_") and name not in CALLED_THROUGH_PLUGGY and known:
            _impls(pm, name)


def _spec_args(pm: pluggy.PluginManager, hook: str) -> list[str]:
    spec = getattr(pm.hook, hook).spec
    assert spec is not None
    return list(spec.argnames)


def _first(pm: pluggy.PluginManager, hook: str) -> Callable[..., Any] | None:
    """A play-time firstresult hook as one callable (pluggy's order), or None if unused."""
    impls = _impls(pm, hook)
    if not impls:
        return None
    spec = _spec_args(pm, hook)
    fns = [_adapt(i, spec, hook) for i in reversed(impls)]
    if len(fns) == 1:
        return fns[0]

    def call(*args: Any) -> Any:
        for fn in fns:
            result = fn(*args)
            if result is not None:
                return result
        return None

    return call


def _chain(pm: pluggy.PluginManager, hook: str) -> Callable[..., Any] | None:
    """A play-time state hook chained in canonical order (each sees the previous state)."""
    impls = _impls(pm, hook)
    if not impls:
        return None
    spec = _spec_args(pm, hook)
    fns = [_adapt(i, spec, hook) for i in impls]

    def call(rules: Rules, state: Any, *rest: Any) -> Any:
        for fn in fns:
            new = fn(rules, state, *rest)
            if new is not None:
                state = new
        return state

    return call


# --- building the rules ---------------------------------------------------------------


def build_rules(
    players: int | None = None,
    variants: Sequence[str] = (),
    options: Mapping[str, Any] | None = None,
    *,
    plugins: Mapping[str, Any] | None = None,
    entry_points: Iterable[Any] | None = None,
) -> Rules:
    """The rules for a table of ``players`` (``None``: the game's default), variants, options.

    ``plugins`` adds plugin objects that are not installed (for tests and
    plugin authors); ``entry_points`` replaces the installed entry points.
    Raises :class:`ConfigError` naming the plugin and the problem; a build
    hook that raises refuses the table the same way (its traceback is logged).
    """
    if plugins is None and entry_points is None:
        registry = installed()
    else:
        registry = discover(entry_points, plugins)
    order = canonical_order(registry, variants)
    try:
        return _build(registry, order, players, options)
    except PluginError as exc:
        log.info("%s (the table is refused)", exc, exc_info=exc.cause)
        raise ConfigError(f"{exc}; the table cannot be built") from exc


def _build(
    registry: Registry, order: tuple[str, ...], players: int | None,
    options: Mapping[str, Any] | None,
) -> Rules:
    pm = plugin_manager(registry, order)
    _refuse_wrappers(pm)
    opts = resolve_options(registry, order, dict(options or {}))
    if players is None:
        players = call_pluggy(pm, "zsy_default_players") or 4
        if isinstance(players, bool) or not isinstance(players, int):
            raise ConfigError(nonsense(pm, "zsy_default_players", {}, "a player count"))
    for impl in _impls(pm, "zsy_supported_players"):
        supported = _supported(impl, opts[impl.plugin_name])
        if supported is not None and players not in supported:
            counts = ", ".join(str(n) for n in supported)
            raise ConfigError(
                f"plugin '{impl.plugin_name}' does not support {players} players "
                f"(it plays with {counts}{_count_hint(registry, impl, opts, players)})"
            )
    if not 3 <= players <= 6:
        raise ConfigError(f"{players} players: the table needs 3 to 6 (ZSY-1.1)")
    table = TableConfig(game=order[0], players=players, plugins=order, options=opts)
    problems = []
    for impl in _impls(pm, "zsy_conflicts"):
        said = guard(impl.plugin_name, "zsy_conflicts", impl.function)(table) or ()
        if isinstance(said, str) or not isinstance(said, (tuple, list)):
            said = [f"its zsy_conflicts returned {said!r:.80}, not a list of messages"]
        for msg in said:
            problems.append(f"plugin '{impl.plugin_name}': {msg}")
    if problems:
        raise ConfigError("; ".join(problems))
    rules = _assemble(pm, registry, table)
    refuse_contradictions(pm, table, rules, comes_after(registry, order))
    return rules


def _fold_checked(pm: pluggy.PluginManager, hook: str, table: TableConfig, value: Any,
                  ok: Callable[[Any], bool], what: str) -> Any:
    """A fold hook, each answer checked as it comes (naming the plugin that answers wrong)."""
    for impl in _impls(pm, hook):
        new = _adapt(impl, _spec_args(pm, hook), hook)(table, value)
        if new is not None:
            if not ok(new):
                raise ConfigError(
                    f"plugin '{impl.plugin_name}': its {hook} returned {new!r:.80}, not {what}"
                )
            value = new
    return value


def _supported(impl: Any, options: Mapping[str, Any]) -> tuple[int, ...] | None:
    """A plugin's ``zsy_supported_players`` answer for its ``options`` (None: any count);
    one that raises or is no list of counts names the plugin."""
    call = guard(impl.plugin_name, "zsy_supported_players", impl.function)
    got = call(**({"options": options} if impl.argnames else {}))
    if got is None:
        return None
    if not (isinstance(got, (tuple, list, range)) and all(isinstance(n, int) for n in got)):
        raise ConfigError(f"plugin '{impl.plugin_name}': its zsy_supported_players "
                          f"returned {got!r:.80}, not player counts")
    return tuple(got)


def player_counts(info: PluginInfo) -> tuple[tuple[int, ...] | None, int | None]:
    """A plugin's player counts with its default options, and its default count, for
    listings (``zsy plugins``); ``(None, None)`` where it does not say (or cannot)."""
    obj = info.plugin
    defaults = {o.name: o.default for o in info.options}
    counts: tuple[int, ...] | None = None
    default: int | None = None
    try:
        fn = getattr(obj, "zsy_supported_players", None)
        if fn is not None:
            got = fn(defaults) if inspect.signature(fn).parameters else fn()
            counts = None if got is None else tuple(int(n) for n in got)
        fn = getattr(obj, "zsy_default_players", None)
        if fn is not None:
            got = fn()
            default = None if got is None else int(got)
    except Exception:  # a listing never fails on one plugin (the table build reports it)
        return None, None
    return counts, default


def _count_hint(
    registry: Registry, impl: Any, opts: Mapping[str, Mapping[str, Any]], players: int
) -> str:
    """``; 3 with --option bigtwo.three_players=true`` when another value of one of the
    plugin's own yes/no or choice options supports ``players`` (Big Two's three-player
    option): the player learns how to get the table they asked for."""
    plugin = impl.plugin_name
    for opt in registry.plugins[plugin].options:
        values = (True, False) if opt.type == "bool" else opt.choices
        for value in values:
            if value == opts[plugin][opt.name]:
                continue
            supported = _supported(impl, {**opts[plugin], opt.name: value})
            if supported is None or players in supported:
                shown = str(value).lower() if isinstance(value, bool) else value
                return f"; {players} with --option {plugin}.{opt.name}={shown}"
    return ""


def _assemble(pm: pluggy.PluginManager, registry: Registry, table: TableConfig) -> Rules:
    t = {"table": table}
    deck = checked(call_pluggy(pm, "zsy_deck", table=table), Deck, pm, "zsy_deck", t, "a Deck")
    if deck is None:
        raise ConfigError(f"plugin '{table.game}' provides no deck (zsy_deck)")
    td = {"table": table, "deck": deck}
    layout: DealLayout = checked(
        call_pluggy(pm, "zsy_deal_layout", **td), DealLayout, pm, "zsy_deal_layout", td,
        "a DealLayout",
    ) or DealLayout()
    first: FirstLead = checked(
        call_pluggy(pm, "zsy_first_lead", **td), FirstLead, pm, "zsy_first_lead", td, "a FirstLead"
    ) or FirstLead()
    if first.start_card is not None and first.start_card not in deck.cards:
        raise ConfigError("the start card is not in this table's deck (ZSY-2.1)")
    kinds: tuple[ComboKind, ...] = tuple(
        _fold_checked(pm, "zsy_combo_kinds", table, (), is_kinds, "a sequence of ComboKind")
    )
    if not kinds:
        raise ConfigError(f"plugin '{table.game}' provides no combination kinds (zsy_combo_kinds)")
    limits: ComboLimits = _fold_checked(
        pm, "zsy_combo_limits", table, ComboLimits(),
        lambda v: isinstance(v, ComboLimits), "a ComboLimits",
    )
    tribute: Tribute = _fold_checked(
        pm, "zsy_tribute", table, Tribute(enabled=False),
        lambda v: isinstance(v, Tribute), "a Tribute",
    )
    phases: dict[str, Any] = {}
    owner: dict[str, str] = {}
    for impl in _impls(pm, "zsy_phases"):
        got = guard(impl.plugin_name, "zsy_phases", impl.function)(table) or {}
        if not isinstance(got, Mapping):
            raise ConfigError(
                f"plugin '{impl.plugin_name}': its zsy_phases returned {got!r:.80}, not a mapping"
            )
        for phase, handler in got.items():
            if phase in phases:
                raise ConfigError(
                    f"plugins '{owner[phase]}' and '{impl.plugin_name}' conflict: "
                    f"both run the '{phase}' phase"
                )
            if not (callable(getattr(handler, "legal", None))
                    and callable(getattr(handler, "apply", None))):
                raise ConfigError(
                    f"plugin '{impl.plugin_name}': its '{phase}' phase handler has no "
                    "legal and apply methods"
                )
            phases[phase] = GuardedPhase(impl.plugin_name, phase, handler)
            owner[phase] = impl.plugin_name
    teams = call_pluggy(pm, "zsy_teams", table=table)
    if teams is not None and not is_teams(teams, table.players):
        raise ConfigError(nonsense(pm, "zsy_teams", t, "teams of seats"))
    scoring = checked(call_pluggy(pm, "zsy_scoring", table=table), str, pm, "zsy_scoring", t,
                       "a scheme name") or "ranking"
    if scoring not in SCORING_SCHEMES:
        raise ConfigError(f"unknown scoring scheme '{scoring}' ({', '.join(SCORING_SCHEMES)})")
    config = {
        "format": RULESET_FORMAT,
        "game": table.game,
        "players": table.players,
        "plugins": [[n, registry.plugins[n].version] for n in table.plugins],
        "options": {p: dict(sorted(table.options[p].items())) for p in table.plugins},
    }
    return Rules(
        players=table.players,
        decks=deck.decks,
        deck=tuple(deck.cards),
        kinds=kinds,
        kitty_size=layout.kitty,
        kitty_shown=layout.kitty_shown,
        min_straight=limits.min_straight,
        straight_top=limits.straight_top,
        min_bomb=limits.min_bomb,
        start_card=first.start_card,
        start_card_lead=first.required,
        tribute=tribute.enabled,
        tribute_cards=tribute.cards,
        second_tribute=tribute.second,
        scoring=scoring,
        teams=None if teams is None else tuple(tuple(t) for t in teams),
        beats_override=_first(pm, "zsy_beats"),
        next_leader=_first(pm, "zsy_next_leader"),
        phase_handlers=phases or None,
        on_deal=_chain(pm, "zsy_on_deal"),
        on_play=_chain(pm, "zsy_on_play"),
        on_seed=_chain(pm, "zsy_on_seed"),
        round_over=_first(pm, "zsy_round_over"),
        tribute_duties=_first(pm, "zsy_tribute_duties"),
        score_round=_first(pm, "zsy_score_round"),
        match_score=_first(pm, "zsy_match_score"),
        move_generator=guarded_answer(pm, "zsy_move_generator", t),
        in_effect=guarded_answer(pm, "zsy_rules_in_effect", t),
        card_order=_first(pm, "zsy_card_order"),
        check_rounds=_first(pm, "zsy_check_rounds"),
        deal_lead=_first(pm, "zsy_deal_lead"),
        deal_over=_deal_over(pm),
        match_over=_first(pm, "zsy_match_over"),
        rule_ids=_rule_ids(pm, table),
        config=config,
        vocabulary=_vocabulary(pm, table),
    )


def _deal_over(pm: pluggy.PluginManager) -> Callable[[Rules, Any], Any] | None:
    """``zsy_deal_over`` chained in canonical order, each plugin's updates merged (and
    checked) in turn under its name (:func:`~zsy_lan.engine.match.merge_extra`)."""
    from .match import merge_extra

    impls = _impls(pm, "zsy_deal_over")
    if not impls:
        return None
    spec = _spec_args(pm, "zsy_deal_over")
    fns = [(i.plugin_name, _adapt(i, spec, "zsy_deal_over")) for i in impls]

    def call(rules: Rules, match: Any) -> Any:
        for plugin, fn in fns:
            updates = fn(rules, match)
            if updates is not None:
                match = merge_extra(match, updates, plugin)
        return match

    return call


def _rule_ids(pm: pluggy.PluginManager, table: TableConfig) -> dict[str, str]:
    """The plugins' own rule ids (engine id -> theirs), merged in canonical order."""
    ids: dict[str, str] = {}
    for impl in _impls(pm, "zsy_rule_ids"):
        call = guard(impl.plugin_name, "zsy_rule_ids", impl.function)
        got = call(**({"table": table} if impl.argnames else {}))
        if got is not None and not isinstance(got, Mapping):
            raise ConfigError(f"plugin '{impl.plugin_name}': its zsy_rule_ids returned "
                              f"{got!r:.80}, not a mapping")
        for engine_id, own in (got or {}).items():
            if not (isinstance(engine_id, str) and isinstance(own, str) and own.strip()):
                raise ConfigError(
                    f"plugin '{impl.plugin_name}': zsy_rule_ids maps rule ids to rule ids "
                    f"(text), not {engine_id!r} to {own!r}"
                )
            ids[engine_id] = own.strip()
    return ids


def _vocabulary(pm: pluggy.PluginManager, table: TableConfig) -> dict[str, str]:
    """The plugins' words merged in canonical order (a later plugin's entry wins)."""
    words: dict[str, str] = {}
    for impl in _impls(pm, "zsy_vocabulary"):
        call = guard(impl.plugin_name, "zsy_vocabulary", impl.function)
        got = call(**({"table": table} if impl.argnames else {}))
        if not isinstance(got, Mapping):
            continue
        for key, text in got.items():
            if isinstance(key, str) and isinstance(text, str):
                words[key] = text
    return words


def ruleset_id(rules: Rules) -> str:
    """A short stable id of the exact rules (hash of the canonical config)."""
    return digest(rules.config)[:16]


def table_config(rules: Rules) -> dict[str, Any]:
    """The canonical config a ruleset id is computed from (a copy)."""
    return dict(rules.config)


def rules_from_config(config: Mapping[str, Any]) -> Rules:
    """Rebuild a table's rules from its canonical config (:func:`table_config`'s inverse)
    with the plugins installed here; a malformed config is a :class:`ConfigError`."""
    try:
        names = [n for n, _ in config["plugins"]]
        options = {
            f"{p}.{k}": v for p, opts in config.get("options", {}).items() for k, v in opts.items()
        }
        return build_rules(int(config["players"]), names, options)
    except (KeyError, TypeError, ValueError) as exc:
        if isinstance(exc, ConfigError):
            raise
        raise ConfigError(f"malformed table config: {exc}") from None
