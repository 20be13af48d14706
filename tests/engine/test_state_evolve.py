"""``evolve`` copies a frozen state cheaply; a misspelled field name is refused, not ignored."""

from __future__ import annotations

import pytest
from engine_helpers import position

from zsy_lan.engine.canonical import digest
from zsy_lan.engine.ruleset import build_rules
from zsy_lan.engine.state import RoundState, evolve, public_json


def deal_state() -> RoundState:
    return position(build_rules(3), ["3 4 5", "6 7 8", "9 10 J"])


def test_evolve_sets_a_real_field() -> None:
    st = deal_state()
    new = evolve(st, turn=(st.turn + 1) % st.players)
    assert new.turn == (st.turn + 1) % st.players
    assert st.turn != new.turn  # the original is untouched


def test_evolve_refuses_a_misspelled_field() -> None:
    st = deal_state()
    before = digest(public_json(st))
    with pytest.raises(TypeError, match="no field trun"):
        evolve(st, trun=1)
    # and nothing half-applied anywhere
    assert digest(public_json(st)) == before
    assert "trun" not in st.__dict__


def test_every_evolve_call_in_the_code_names_real_fields() -> None:
    """Static check of every ``evolve(x, name=...)`` in the engine, plugins and zsy_lan,
    also on paths no test reaches: each keyword is a field of a state class."""
    import ast
    import dataclasses
    from pathlib import Path

    import zsy_lan
    from zsy_lan.engine.match import MatchState, RoundResult
    from zsy_lan.engine.state import Duty

    fields = {
        f.name
        for cls in (RoundState, MatchState, RoundResult, Duty)
        for f in dataclasses.fields(cls)
    }
    root = Path(zsy_lan.__file__).resolve().parent
    sources = [*root.rglob("*.py"), *(root.parent / "engine").glob("*.py")]
    sources += list((root.parent / "plugins").glob("*.py"))
    calls, bad = 0, []
    for path in sources:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            fn = getattr(node, "func", None)
            name = getattr(fn, "id", None) or getattr(fn, "attr", None)
            if isinstance(node, ast.Call) and name == "evolve":
                calls += 1
                bad += [f"{path.name}:{node.lineno} {k.arg}" for k in node.keywords
                        if k.arg is not None and k.arg not in fields]
    assert calls >= 40  # the scan found the call sites
    assert not bad, bad
