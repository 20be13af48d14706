"""Every snippet of docs/plugins.md runs (issue #27): complete modules, loaded as plugins.

Each Python block is executed as a module of its own. A block with hooks is
then a plugin (named ``doc-<n>`` unless it names itself): a table is built
with it (at a Dou Dizhu table when the block says it is Dou Dizhu's own) and
a short match is played by bots. The "Testing a plugin" block is run as the
test it is, with the anatomy block's plugin.
"""

from __future__ import annotations

import importlib.metadata as md
import re
import sys
import types
from pathlib import Path

import pytest

from zsy_lan.engine.ruleset import build_rules
from zsy_lan.engine.selfplay import play_match
from zsy_lan.testing import Table

DOC = Path(__file__).resolve().parents[2] / "docs" / "plugins.md"
BLOCKS = re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)
BUILTINS = {"zsy", "doudizhu", "partnerships", "doubled-tribute", "no-tribute", "house-rules"}


def builtin_entry_points() -> list:
    """The built-in plugins only: an installed example of the same name must not clash."""
    return [ep for ep in md.entry_points(group="zsy.variants") if ep.name in BUILTINS]


def load(i: int, source: str) -> types.ModuleType:
    module = types.ModuleType(f"doc_snippet_{i}")
    exec(compile(source, f"{DOC.name} block {i}", "exec"), module.__dict__)  # noqa: S102
    if not hasattr(module, "name"):
        module.name, module.version, module.description = f"doc-{i}", "0.0", "a docs snippet"
    return module


def is_plugin(module: types.ModuleType) -> bool:
    return any(k.startswith("zsy_") and callable(v) for k, v in vars(module).items())


def test_the_page_has_its_snippets():
    assert len(BLOCKS) >= 25
    assert all("import" in b for b in BLOCKS), [b[:60] for b in BLOCKS if "import" not in b]


@pytest.mark.parametrize("i", range(len(BLOCKS)), ids=lambda i: f"block{i}")
def test_every_snippet_runs(i, monkeypatch):
    source = BLOCKS[i]
    if "pytest_plugins" in source:  # "Testing a plugin": the anatomy plugin, tested
        anatomy = load(0, BLOCKS[0])
        monkeypatch.setitem(sys.modules, "zsy_three_card_straights", anatomy)
        test = load(i, source)
        test.test_three_card_straight(lambda *a, **kw: Table(*a, **kw))
        return
    module = load(i, source)
    if not is_plugin(module):
        return
    ddz = "at a Dou Dizhu table" in source
    variants = ["doudizhu", module.name] if ddz else [module.name]
    rules = build_rules(
        None if ddz else 4, variants, {}, plugins={module.name: module},
        entry_points=builtin_entry_points(),
    )
    play_match(rules, 3, f"docs-{i}", "random")
