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
