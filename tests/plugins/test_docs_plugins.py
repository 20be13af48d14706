"""Every snippet of docs/plugins.md runs (issue #27): complete modules, loaded as plugins.

Each Python block is executed as a module of its own. A block with hooks is
then a plugin (named ``doc-<n>`` unless it names itself): a table is built
with it, with the ``--variant``/``--players`` its comments tell the reader to
try it with ("try it with --variant doudizhu"), and a short match is played by
bots (a plugin that ends the match itself plays until the action budget). The
"Testing a plugin" block is run as the test it is, with the anatomy block's
plugin.
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
    defaults = {"name": f"doc-{i}", "version": "0.0", "description": "a docs snippet"}
    for attr, value in defaults.items():
        if not hasattr(module, attr):
            setattr(module, attr, value)
    return module


def try_with(source: str) -> tuple[list[str], int | None]:
    """The variants and player count a block's comments say to try it with."""
    said = " ".join(line for line in source.splitlines() if line.lstrip().startswith("#"))
    players = re.search(r"--players (\d)", said)
    return re.findall(r"--variant ([\w-]+)", said), int(players[1]) if players else None


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
    variants, players = try_with(source)
    rules = build_rules(
        players, [*variants, module.name], {}, plugins={module.name: module},
        entry_points=builtin_entry_points(),
    )
    if rules.match_over is None:
        play_match(rules, 3, f"docs-{i}", "random")
        return
    try:  # the plugin ends the match when its own state says so: maybe not in this sample
        play_match(rules, 3, f"docs-{i}", "random", max_actions=1500)
    except RuntimeError as exc:
        assert "action budget" in str(exc)
