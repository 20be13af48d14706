"""The core imports nothing from the UI (issue #14): each test fails if a shortcut comes back.

The terminal screens (``zsy_lan/ui``) and the command line (``zsy_lan/cli``) sit on
the session API; the peer, the local table and the record readers narrate in
the sentences of :mod:`zsy_lan.text.present` and read headers with
:mod:`zsy_lan.record.header`, never through ``zsy_lan.ui``. The guard walks the source
(AST), so it also sees an import inside a function, which a fresh interpreter
would not load.
"""

from __future__ import annotations

import ast
import functools
import subprocess
import sys
from pathlib import Path

import pytest

import zsy_lan

SRC = Path(zsy_lan.__file__).resolve().parent

# One worker runs these guards, so each file is parsed once (``_tree``), not once per worker.
pytestmark = pytest.mark.xdist_group("layers")

#: the packages that may import the UI: the UI itself and the command line that starts it
UI_SIDE = ("ui", "cli")


def _tree(path: Path) -> ast.Module:
    """The parsed file, parsed once per run: a dozen guards walk the same ~200 files, and
    parsing them again for each cost seconds. Nothing here changes a tree; a file written
    again (the guards' own tests do) is parsed again."""
    return _parse(path.read_text(encoding="utf-8"))


@functools.cache
def _parse(source: str) -> ast.Module:
    return ast.parse(source)


def _from_module(node: ast.ImportFrom, package: str) -> str:
    """The absolute module a ``from ... import`` names (a relative one resolved in ``package``)."""
    module = node.module or ""
    if not node.level:
        return module
    base = package.split(".")
    base = base[: len(base) - (node.level - 1)]
    return ".".join([*base, module] if module else base)


def _module_name(path: Path, root: Path = SRC) -> str:
    """``zsy_lan.table.peer`` for ``zsy_lan/table/peer.py``; ``zsy_lan.ui`` for its __init__."""
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imported(path: Path, root: Path = SRC) -> list[tuple[int, str]]:
    """Every module ``path`` imports, as absolute names (relative imports resolved)."""
    name = _module_name(path, root)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out = []
    for node in ast.walk(_tree(path)):
        if isinstance(node, ast.Import):
            out.extend((node.lineno, a.name) for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            module = _from_module(node, package)
            out.append((node.lineno, module))
            # ``from . import ui`` / ``from zsy_lan import ui``: the names may be modules
            out.extend((node.lineno, f"{module}.{a.name}") for a in node.names)
    return out


def _ui_imports(path: Path, root: Path = SRC) -> list[str]:
    """Where ``path`` imports ``zsy_lan.ui`` or one of its modules."""
    where = path.relative_to(root.parent)
    found: list[str] = []
    flagged: set[tuple[int, str]] = set()
    for line, mod in _imported(path, root):
        if mod != "zsy_lan.ui" and not mod.startswith("zsy_lan.ui."):
            continue
        if (line, mod.rpartition(".")[0]) not in flagged:  # not ``x.describe`` after ``x``
            found.append(f"{where}:{line} imports {mod}")
        flagged.add((line, mod))
    return found


def _core_files() -> list[Path]:
    """Every module of zsy_lan outside the UI side (the engine and plugins included)."""
    return sorted(p for p in SRC.rglob("*.py") if p.relative_to(SRC).parts[0] not in UI_SIDE)


def test_the_core_imports_nothing_from_the_ui() -> None:
    """No module outside zsy_lan/ui and zsy_lan/cli imports zsy_lan.ui, not even lazily."""
    files = _core_files()
    names = {_module_name(p) for p in files}
    assert {"zsy_lan.table.peer", "zsy_lan.table.local_table", "zsy_lan.record.replay"} <= names
    findings = [f for p in files for f in _ui_imports(p)]
    assert not findings, "\n".join(findings)


def test_the_guard_sees_every_form_of_ui_import(tmp_path: Path) -> None:
    """The imports peer.py, replay.py and local_session.py had before would all be caught."""
    root = tmp_path / "zsy_lan"
    (root / "bots").mkdir(parents=True)
    probe = root / "probe.py"
    probe.write_text(
        "from .ui.commands import describe\n"
        "from . import ui\n"
        "import zsy_lan.ui.render\n"
        "def auto():\n    from .ui.line_mode import hint_list\n",
        encoding="utf-8",
    )
    deep = root / "bots" / "deep.py"
    deep.write_text("from ..ui import render\nfrom ..uiwords import x\n", encoding="utf-8")
    found = _ui_imports(probe, root)
    assert [f.split(" imports ")[1] for f in found] == [
        "zsy_lan.ui.commands",
        "zsy_lan.ui",
        "zsy_lan.ui.render",
        "zsy_lan.ui.line_mode",
    ]
    # ``..uiwords`` is not the UI; ``..ui`` from a subpackage is
    assert [f.split(" imports ")[1] for f in _ui_imports(deep, root)] == ["zsy_lan.ui"]


def test_record_readers_do_not_import_the_peer() -> None:
    """``zsy replay`` and ``zsy retell`` read a header without loading the network peer."""
    for mod in ("record/replay.py", "record/retell.py"):
        imported = [m for _line, m in _imported(SRC / mod)]
        assert "zsy_lan.table.peer" not in imported, mod
        assert not any(m.startswith("zsy_lan.table.peer.") for m in imported), mod


def test_importing_the_core_loads_no_ui_module() -> None:
    """In a fresh interpreter the peer, the local table and the record readers load no UI."""
    code = (
        "import importlib, sys\n"
        "for m in ('zsy_lan.table.peer', 'zsy_lan.table.local_table',\n"
        "          'zsy_lan.record.replay', 'zsy_lan.record.retell',\n"
        "          'zsy_lan.table.hosting', 'zsy_lan.deal.private_game'):\n"
        "    importlib.import_module(m)\n"
        "print(','.join(sorted(m for m in sys.modules if m.startswith('zsy_lan.ui'))))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert out.stdout.strip() == ""


def test_one_function_each_for_the_core_and_the_ui() -> None:
    """The UI re-uses the core's sentences, hint list and header, never a second copy."""
    from zsy_lan.record import header as record
    from zsy_lan.table import session
    from zsy_lan.text import present
    from zsy_lan.ui import commands, render
    from zsy_lan.ui import line_mode as table

    assert commands.describe is present.describe
    for name in ("round_over_text", "tribute_text", "dealt_text", "stake_text", "place_titles"):
        assert getattr(render, name) is getattr(present, name), name
    assert table.hint_list is session.hint_list
    assert callable(record.transcript_header) and callable(record.game_from_header)


# --- TablePeer: one method per replica event; narration and holding apart -----------------


def test_every_replica_event_has_its_own_method() -> None:
    """``_handle`` was one 180-line if/elif chain; now a table names one method per event type.

    A new event type the peer forgets to carry out fails here instead of being ignored.
    """
    from typing import get_args

    from zsy_lan.protocol.events import Event, Hello
    from zsy_lan.table.peer import TablePeer

    handled = set(TablePeer._ON_EVENT)
    assert handled == set(get_args(Event)) - {Hello}  # a Hello is the lobby's, not the peer's
    for kind, on in TablePeer._ON_EVENT.items():
        assert callable(on) and on is getattr(TablePeer, on.__name__), kind.__name__


#: the seated peer's components (issue #23): each its own class, none a base of the peer
PEER_PARTS = {
    "narration": "Narrator",
    "holding": "SeatHolder",
    "chat_desk": "ChatDesk",
    "clock": "ClockNotes",
    "seat_bot": "SeatBot",
    "outbox": "Outbox",
    "seat_view": "SeatView",
}


def _classes(path: Path) -> dict[str, ast.ClassDef]:
    tree = _tree(path)
    return {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}


def test_the_peer_is_a_small_core_that_wires_its_components() -> None:
    """No mixins: TablePeer has no base class and owns one object per concern (issue #23).

    None of the components reads the peer: their modules import no peer, and the
    peer's class (and each component's) stays under about 700 lines.
    """
    from zsy_lan.table.peer import TablePeer

    assert TablePeer.__bases__ == (object,)
    table = SRC / "table"
    for module, name in PEER_PARTS.items():
        path = table / f"{module}.py"
        cls = _classes(path)[name]
        assert not cls.bases, f"{name} is a component, not a mixin"
        assert cls.end_lineno is not None and cls.end_lineno - cls.lineno < 700, name
        assert "zsy_lan.table.peer" not in {m for _line, m in _imported(path)}, module
    peer = _classes(table / "peer.py")["TablePeer"]
    assert peer.end_lineno is not None and peer.end_lineno - peer.lineno < 700
    lengths = {
        n.name: (n.end_lineno or n.lineno) - n.lineno + 1
        for n in peer.body
        if isinstance(n, ast.FunctionDef)
    }
    assert lengths["_carry_out"] <= 25, lengths["_carry_out"]
    assert max(v for k, v in lengths.items() if k not in ("__init__", "_wire")) <= 40, lengths


# --- no import cycles between files (issue #23) ---------------------------------------------

#: where each top-level package of the installed tree lives in the checkout
TREES = {
    "zsy_lan": SRC,
    "zsy_lan.engine": SRC.parent / "engine",
    "zsy_lan.plugins": SRC.parent / "plugins",
}


def _is_type_checking(node: ast.AST) -> bool:
    """``if TYPE_CHECKING:``: a block the interpreter never runs.

    Its imports only name types for the checker (every annotation is a string under
    ``from __future__ import annotations``), so they load nothing and order nothing: they are
    left out of the graph. Its ``else:`` branch does run and is walked.
    """
    return isinstance(node, ast.If) and ast.unparse(node.test) in (
        "TYPE_CHECKING",
        "typing.TYPE_CHECKING",
    )


def _walk_run(tree: ast.AST) -> list[ast.AST]:
    """Every node of ``tree`` that can run: functions' bodies included, TYPE_CHECKING not."""
    found, todo = [], [tree]
    while todo:
        node = todo.pop()
        found.append(node)
        todo.extend(node.orelse if _is_type_checking(node) else ast.iter_child_nodes(node))
    return found


def _files_of(trees: dict[str, Path]) -> dict[str, Path]:
    """Module name to file, for every ``.py`` under each tree (a package is its __init__)."""
    files: dict[str, Path] = {}
    for package, root in trees.items():
        for path in sorted(root.rglob("*.py")):
            parts = [package, *path.relative_to(root).with_suffix("").parts]
            if f"{parts[0]}.{parts[1]}" in trees and package != f"{parts[0]}.{parts[1]}":
                continue  # a nested tree mapped on its own
            if parts[-1] == "__init__":
                parts.pop()
            files[".".join(parts)] = path
    return files


def _import_graph(trees: dict[str, Path]) -> dict[str, set[str]]:
    """Which file of the tree each file imports, lazy imports inside functions included.

    ``import a.b`` and ``from a import b`` (``b`` a module) import the file ``a/b.py``;
    ``from a import name`` (``name`` not a module) imports ``a/__init__.py``. The parent
    packages the interpreter runs on the way are not counted: every import of a sub-module
    runs them, so counting them would tie each re-exporting __init__ to its own modules.
    """
    files = _files_of(trees)
    graph: dict[str, set[str]] = {}
    for name, path in files.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        out: set[str] = set()
        for node in _walk_run(_tree(path)):
            if isinstance(node, ast.Import):
                out.update(a.name for a in node.names if a.name in files)
            elif isinstance(node, ast.ImportFrom):
                module = _from_module(node, package)
                for alias in node.names:
                    sub = f"{module}.{alias.name}"
                    if sub in files:
                        out.add(sub)
                    elif module in files:
                        out.add(module)
        out.discard(name)
        graph[name] = out
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[str]:
    """Every import cycle, one line each: ``a -> b -> a``.

    For each import edge ``a -> b`` whose target leads back to ``a``, the shortest way back
    closes a cycle; each cycle is named once, starting at its smallest module.
    """
    found: set[tuple[str, ...]] = set()
    for start in sorted(graph):
        for first in sorted(graph[start]):
            came: dict[str, str] = {first: ""}  # breadth first from ``first`` back to ``start``
            todo = [first]
            while todo and start not in came:
                ahead = []
                for here in todo:
                    for there in sorted(graph[here] - came.keys()):
                        came[there] = here
                        ahead.append(there)
                todo = ahead
            if start not in came:
                continue
            path, here = [], came[start]
            while here:
                path.append(here)
                here = came[here]
            cycle = [start, *reversed(path)]
            low = cycle.index(min(cycle))
            found.add(tuple(cycle[low:] + cycle[:low]))
    return [" -> ".join([*c, c[0]]) for c in sorted(found)]


def test_no_import_cycles_between_files() -> None:
    """No file of zsy_lan (engine and plugins included) imports itself round a loop.

    A cycle kept alive by an import inside a function works only by the order the modules
    happen to load in, and ties two rooms into one; each one found is named here.
    """
    graph = _import_graph(TREES)
    assert {"zsy_lan.table.peer", "zsy_lan.net.transport", "zsy_lan.engine.rules"} <= set(graph)
    assert "zsy_lan.engine.combos" in graph["zsy_lan.engine.rules"]
    cycles = _cycles(graph)
    assert not cycles, "import cycles between files:\n" + "\n".join(cycles)


def test_the_cycle_guard_sees_lazy_and_package_imports(tmp_path: Path) -> None:
    """A tiny fake tree: a lazy import, a ``from pkg import module`` and an __init__ re-export."""
    root = tmp_path / "zsy_lan"
    (root / "net").mkdir(parents=True)
    (root / "__init__.py").write_text("", encoding="utf-8")
    (root / "net" / "__init__.py").write_text("from .link import Link\n", encoding="utf-8")
    (root / "net" / "link.py").write_text(
        "def dial():\n    from zsy_lan import peer\n", encoding="utf-8"
    )
    (root / "peer.py").write_text("from zsy_lan.net import Link\n", encoding="utf-8")
    (root / "typed.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from . import peer\n"
        "else:\n    from .net import link\n",
        encoding="utf-8",
    )
    (root / "calm.py").write_text("import zsy_lan.typed\n", encoding="utf-8")
    graph = _import_graph({"zsy_lan": root})
    assert graph["zsy_lan.net.link"] == {"zsy_lan.peer"}
    assert graph["zsy_lan.peer"] == {"zsy_lan.net"}
    assert graph["zsy_lan.net"] == {"zsy_lan.net.link"}
    assert graph["zsy_lan.typed"] == {"zsy_lan.net.link"}  # the TYPE_CHECKING block runs never
    assert _cycles(graph) == ["zsy_lan.net -> zsy_lan.net.link -> zsy_lan.peer -> zsy_lan.net"]
    (root / "calm.py").write_text("def later():\n    import zsy_lan.calm2\n", encoding="utf-8")
    (root / "calm2.py").write_text("from . import calm\n", encoding="utf-8")
    assert _cycles(_import_graph({"zsy_lan": root})) == [
        "zsy_lan.calm -> zsy_lan.calm2 -> zsy_lan.calm",
        "zsy_lan.net -> zsy_lan.net.link -> zsy_lan.peer -> zsy_lan.net",
    ]



# --- the rooms of the house, in layers (issue #23; docs/architecture.md) ------------------

#: each package of zsy_lan and the packages it may import (its own always): the layers of
#: docs/architecture.md. ``engine`` and ``plugins`` are zsy_lan.engine and zsy_lan.plugins.
MAY_IMPORT: dict[str, set[str]] = {
    "text": {"engine"},
    "protocol": {"engine", "text"},
    "deal": {"engine", "protocol", "text"},
    "record": {"engine", "protocol", "deal", "text"},
    "net": {"protocol", "text"},
    "bots": {"engine"},
    "table": {"engine", "protocol", "deal", "record", "net", "text", "bots"},
    "ui": {"engine", "protocol", "table", "text", "bots"},
    "cli": {"engine", "protocol", "deal", "record", "net", "text", "bots", "table", "ui",
            "runtime", "plugins"},
    "runtime": {"record", "text"},
    "testing": {"engine"},
    "engine": set(),
    "plugins": {"engine"},
}


def _room(module: str) -> str:
    """``zsy_lan.table.peer`` -> ``table``; ``zsy_lan.runtime`` -> ``runtime``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "zsy_lan"


def _layer_breaks(graph: dict[str, set[str]]) -> list[str]:
    """Every import from one package into another that its layer may not reach."""
    found = []
    for source, targets in sorted(graph.items()):
        room = _room(source)
        if room == "zsy_lan":
            continue  # zsy_lan/__init__.py: the hookimpl marker only
        for target in sorted(targets):
            there = _room(target)
            if there not in (room, "zsy_lan") and there not in MAY_IMPORT.get(room, set()):
                found.append(f"{source} imports {target} ({room} may not reach {there})")
    return found


def test_every_package_imports_only_the_layers_below_it() -> None:
    """net knows bytes, record reads what lasts, table wires them: none reaches up.

    A record reader that needed the seated peer, or the mesh that needed a table, would
    tie two rooms into one again (the settings, the lobby and the clock notes' format sit in
    protocol/ because the net, the record and the table all read them).
    """
    graph = _import_graph(TREES)
    rooms = {_room(m) for m in graph} - {"zsy_lan"}
    assert rooms == set(MAY_IMPORT), rooms ^ set(MAY_IMPORT)
    breaks = _layer_breaks(graph)
    assert not breaks, "\n".join(breaks)


def test_the_layer_guard_names_an_import_that_reaches_up() -> None:
    """A record module importing the peer is named; a table module importing the record is not."""
    graph = {
        "zsy_lan.record.replay": {"zsy_lan.table.peer", "zsy_lan.protocol.ledger"},
        "zsy_lan.table.peer": {"zsy_lan.record.store"},
    }
    assert _layer_breaks(graph) == [
        "zsy_lan.record.replay imports zsy_lan.table.peer (record may not reach table)"
    ]

# --- one game surface, phases named by the engine (issue #23) ---------------------------

#: the one module that may ask whether a game is the private deal: its own
PRIVATE_DEAL = Path("zsy_lan/deal/private_game.py")
#: the names a phase or a stage goes by (``state.phase``, ``game.stage``, a local ``phase``)
PHASE_NAMES = ("phase", "stage")


def _isinstance_private(tree: ast.AST) -> list[int]:
    """Lines of ``isinstance(x, PrivateGame)`` (any spelling: ``m.PrivateGame``, a subclass
    named ``...PrivateGame``, inside a tuple of classes)."""

    def names_private(node: ast.expr) -> bool:
        if isinstance(node, ast.Tuple):
            return any(names_private(e) for e in node.elts)
        name = node.id if isinstance(node, ast.Name) else getattr(node, "attr", "")
        return isinstance(name, str) and name.endswith("PrivateGame")

    return [
        n.lineno
        for n in ast.walk(tree)
        if isinstance(n, ast.Call)
        and isinstance(n.func, ast.Name)
        and n.func.id == "isinstance"
        and len(n.args) == 2
        and names_private(n.args[1])
    ]


def _is_phase(node: ast.expr) -> bool:
    name = node.id if isinstance(node, ast.Name) else getattr(node, "attr", None)
    return isinstance(node, (ast.Name, ast.Attribute)) and name in PHASE_NAMES


def _is_text(node: ast.expr | ast.pattern) -> bool:
    """A string literal, or a tuple/list/set of them (``phase in ("play", "done")``)."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str)
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return any(_is_text(e) for e in node.elts)
    if isinstance(node, ast.MatchValue):
        return _is_text(node.value)
    if isinstance(node, ast.MatchOr):
        return any(_is_text(p) for p in node.patterns)
    return False


def _phase_text_compares(tree: ast.AST) -> list[int]:
    """Lines comparing a phase or stage with a string literal (==, !=, in, not in, match)."""
    found = []
    for n in ast.walk(tree):
        if isinstance(n, ast.Compare):
            sides = [n.left, *n.comparators]
            if any(
                (_is_phase(a) and _is_text(b)) or (_is_text(a) and _is_phase(b))
                for a, b in zip(sides, sides[1:], strict=False)
            ):
                found.append(n.lineno)
        elif isinstance(n, ast.Match) and _is_phase(n.subject):
            found += [c.pattern.lineno for c in n.cases if _is_text(c.pattern)]
    return found


def _zsy_files() -> list[tuple[Path, ast.AST]]:
    """Every module of zsy_lan (the engine and plugins install from engine/ and plugins/)."""
    return [
        (p.relative_to(SRC.parent), _tree(p)) for p in sorted(SRC.rglob("*.py"))
    ]


def test_nothing_outside_the_private_deal_asks_which_deal_it_is() -> None:
    """The open and the private deal answer the same surface (protocol.game_iface.TableGame):
    no ``isinstance(..., PrivateGame)`` outside deal/private_game.py."""
    found = [
        f"{path}:{line}"
        for path, tree in _zsy_files()
        if path != PRIVATE_DEAL
        for line in _isinstance_private(tree)
    ]
    assert not found, "asks which deal it is:\n" + "\n".join(found)


def test_no_phase_or_stage_is_compared_with_a_string_outside_the_engine() -> None:
    """Phases are named in engine/phases.py (stages by the private deal's ``Stage``): nothing
    in zsy_lan compares one with a string it spelled itself, the bots included."""
    found = [f"{path}:{line}" for path, tree in _zsy_files() for line in _phase_text_compares(tree)]
    assert not found, "compares a phase or stage with a string:\n" + "\n".join(found)


def test_the_deal_and_phase_guards_catch_what_they_forbid() -> None:
    """Each guard fails on an example of what it forbids, and passes its allowed forms."""
    caught = ast.parse(
        "isinstance(g, PrivateGame)\n"
        "isinstance(g, private_game.PrivateGame)\n"
        "isinstance(g, (Game, TracingPrivateGame))\n"
        "isinstance(g, Game)\n"
    )
    assert sorted(_isinstance_private(caught)) == [1, 2, 3]
    compares = ast.parse(
        'view.phase == "play"\n'
        'self.game.stage != "play"\n'
        'phase in ("play", "done")\n'
        '"over" == m.phase\n'
        "state.phase == Phase.DONE\n"
        'x.kind == "play"\n'
        "match state.phase:\n"
        '    case "bidding":\n'
        "        pass\n"
        "    case Phase.PLAY:\n"
        "        pass\n"
    )
    assert sorted(_phase_text_compares(compares)) == [1, 2, 3, 4, 8]


def test_both_deals_implement_the_one_game_surface() -> None:
    """Every method of the shell's game surface exists on the open and the private deal."""
    from zsy_lan.deal.private_game import PrivateGame
    from zsy_lan.engine.game import Game
    from zsy_lan.protocol.game_iface import TableGame

    surface = [n for n in vars(TableGame) if not n.startswith("_")]
    surface += list(TableGame.__annotations__)
    assert {"may", "prepare", "withholding", "hidden_hands", "voids"} <= set(surface)
    for game in (Game, PrivateGame):
        for name in surface:
            assert name in ("voids",) or hasattr(game, name), (game.__name__, name)


def test_no_private_name_is_probed_with_getattr() -> None:
    """``getattr(session, "_back_owed")`` and the like read another object's private state;
    a session offers a method on its protocol instead (zsy_lan/table/session.py).

    Probes of a library's objects (click's, a terminal driver's) are not the table's.
    """
    found = []
    for path in sorted(SRC.rglob("*.py")):
        for node in ast.walk(_tree(path)):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id in ("getattr", "hasattr", "setattr")
                and len(node.args) >= 2
                and isinstance(node.args[0], ast.Name)
                and node.args[0].id in ("session", "peer", "self", "table", "seat")
                and isinstance(node.args[1], ast.Constant)
                and isinstance(node.args[1].value, str)
                and node.args[1].value.startswith("_")
                and not node.args[1].value.startswith("__")
            ):
                found.append(f"{path.relative_to(SRC)}:{node.lineno} {node.args[1].value}")
    assert found == []
