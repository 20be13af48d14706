"""One import namespace: engine/ and plugins/ install as zsy_lan.engine / zsy_lan.plugins
(STYLE.md "Layout and packaging"); generic top-level names must not leak."""

import importlib.util

import zsy_lan.engine
import zsy_lan.plugins


def test_engine_is_not_a_top_level_package():
    # ``import engine`` must not reach the repository's engine/ (as it would under
    # ``python -m pytest``); a namespace spec for a tests/ folder of that name is harmless.
    for name in ("engine", "plugins"):
        spec = importlib.util.find_spec(name)
        assert spec is None or spec.origin is None, f"'import {name}' resolves to {spec.origin}"


def test_namespace_maps_to_the_repository_folders():
    assert zsy_lan.engine.__file__.replace("\\", "/").endswith("engine/__init__.py")
    assert zsy_lan.plugins.__file__.replace("\\", "/").endswith("plugins/__init__.py")


def test_engine_does_not_import_the_program():
    import ast
    from pathlib import Path

    root = Path(zsy_lan.engine.__file__).parent
    for path in root.glob("*.py"):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module:
                assert not node.module.startswith("zsy_lan") or node.module.startswith(
                    "zsy_lan.engine"
                ), f"{path.name} imports {node.module}"
                assert node.level <= 1, f"{path.name} reaches outside the engine"
            if isinstance(node, ast.Import):
                for alias in node.names:
                    assert alias.name.split(".")[0] not in ("random", "zmq", "asyncio", "socket")
