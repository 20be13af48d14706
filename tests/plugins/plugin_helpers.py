"""Build throwaway rule plugins for tests (module objects, like real plugins)."""

from __future__ import annotations

import types
from typing import Any

from zsy_lan import hookimpl


def make_plugin(name: str, version: str = "0.1", game: bool = False, **hooks: Any) -> Any:
    """A plugin module ``name`` whose hooks are the given functions (marked as hookimpls)."""
    mod = types.ModuleType(f"test_plugin_{name.replace('-', '_')}")
    mod.name = name
    mod.version = version
    mod.description = f"test plugin {name}"
    mod.game = game
    for hook, fn in hooks.items():
        fn.__name__ = hook
        setattr(mod, hook, hookimpl(fn))
    return mod


class FakeDist:
    """Enough of an importlib.metadata Distribution for discovery messages."""

    def __init__(self, name: str, version: str = "1.0") -> None:
        self.metadata = {"Name": name}
        self.version = version


class FakeEntryPoint:
    """An entry point that loads a given object (no installation needed)."""

    def __init__(
        self, name: str, obj: Any, dist: str = "somepkg", value: str | None = None
    ) -> None:
        self.name = name
        self.value = value or f"{dist}.{name}"
        self.group = "zsy.variants"
        self.dist = FakeDist(dist)
        self._obj = obj

    def load(self) -> Any:
        if isinstance(self._obj, Exception):
            raise self._obj
        return self._obj
