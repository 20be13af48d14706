"""The example plugin package (examples/custom-rule): discovery, options, and its own tests.

Runs without installing it (the source folder goes on sys.path and a fake
entry point stands in); when it *is* installed (``.ci/run`` does
``pip install -e examples/custom-rule``) the installed entry point is checked too.
"""

from __future__ import annotations

import importlib.metadata as md
import os
import subprocess
import sys
from pathlib import Path

import pytest

from zsy_lan.engine.ruleset import build_rules, discover, ruleset_id

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "custom-rule"


@pytest.fixture
def plugin(monkeypatch):
    monkeypatch.syspath_prepend(str(EXAMPLE / "src"))
    import zsy_short_straights

    return zsy_short_straights


class EP:
    name = "short-straights"
    value = "zsy_short_straights"
    group = "zsy.variants"
    dist = None

    def __init__(self, obj):
        self.obj = obj

    def load(self):
        return self.obj


def test_found_through_an_entry_point_like_builtins(plugin):
    eps = [*md.entry_points(group="zsy.variants"), EP(plugin)]
    reg = discover(eps)
    assert reg.plugins["short-straights"].problem is None
    rules = build_rules(4, ["short-straights"], {"min_length": "4"}, entry_points=eps)
    assert rules.min_straight == 4
    assert ["short-straights", "1.0.0"] in rules.config["plugins"]
    assert ruleset_id(rules) != ruleset_id(build_rules(4))


def test_pyproject_declares_the_entry_point():
    import tomllib

    data = tomllib.loads((EXAMPLE / "pyproject.toml").read_text())
    eps = data["project"]["entry-points"]["zsy.variants"]
    assert eps == {"short-straights": "zsy_short_straights"}


@pytest.mark.slow  # a second pytest process (~2 s): the example's tests run as its author runs them
def test_example_own_tests_pass():
    """The example's tests, run as its author runs them: ``pytest`` in its folder.

    With no plugin found through entry points: the example needs none but
    ``zsy_lan.testing``, which its conftest names; this suite's own (xdist, textual
    snapshots, hypothesis, ...) are not the example's, and loading them took most of
    this process's ~2 s of CPU. Nor are options given to this run through
    ``PYTEST_ADDOPTS`` (``-n 3`` would name a plugin it does not load).
    """
    env = {key: value for key, value in os.environ.items() if key != "PYTEST_ADDOPTS"}
    proc = subprocess.run(
        [str(Path(sys.executable).parent / "pytest"), "-q", "-p", "no:cacheprovider",
         str(EXAMPLE / "tests")],
        cwd=EXAMPLE, capture_output=True, text=True, timeout=120,
        env={
            **env,
            "PYTHONPATH": str(EXAMPLE / "src"),
            "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
        },
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.mark.skipif(
    not any(ep.name == "short-straights" for ep in md.entry_points(group="zsy.variants")),
    reason="example package not installed (.ci/run installs it)",
)
def test_installed_example_is_listed_by_zsy_plugins():
    from click.testing import CliRunner

    from zsy_lan.cli import cli

    out = CliRunner().invoke(cli, ["plugins"]).output
    assert "short-straights 1.0.0 (modifier)" in out
