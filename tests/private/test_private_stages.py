"""The private deal's stages: one enum, one transition table the code consults (issue #18).

Every stage change goes through ``PrivateGame._enter``, which refuses any
pair not in ``TRANSITIONS``; the module doc's table names the same stages.
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from private_support import PrivateTable, ddz_rules, zsy_rules  # noqa: E402

import zsy_lan.deal.private_game as pg  # noqa: E402
from zsy_lan.deal.private_game import PrivateGame  # noqa: E402
from zsy_lan.deal.stages import TRANSITIONS, Stage  # noqa: E402


def test_every_stage_has_its_row_and_is_reachable() -> None:
    assert set(TRANSITIONS) == set(Stage)
    seen, todo = {Stage.SEED}, [Stage.SEED]
    while todo:
        for nxt in TRANSITIONS[todo.pop()]:
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    assert seen == set(Stage)


def test_the_module_doc_table_names_the_same_stages() -> None:
    doc = pg.__doc__ or ""
    rows = set(re.findall(r"^([a-z]+)\s{2,}", doc, re.M)) - {"stage"}
    assert rows == {s.value for s in Stage} - {"over"}


def test_the_stage_is_set_in_one_place() -> None:
    """Only ``__init__`` (the start) and ``_enter`` (every change) assign ``self.stage``."""
    tree = ast.parse(Path(pg.__file__).read_text(encoding="utf-8"))
    setters = set()
    for fn in ast.walk(tree):
        if not isinstance(fn, ast.FunctionDef):
            continue
        for node in ast.walk(fn):
            targets = node.targets if isinstance(node, ast.Assign) else []
            for t in targets:
                elts = t.elts if isinstance(t, ast.Tuple) else [t]
                if any(isinstance(e, ast.Attribute) and e.attr == "stage" for e in elts):
                    setters.add(fn.name)
    assert setters == {"__init__", "_enter"}


def test_a_transition_not_in_the_table_is_refused() -> None:
    t = PrivateTable(zsy_rules(4), 1)
    game = t.nodes[0].game
    assert game.stage is Stage.SEED
    with pytest.raises(RuntimeError, match="no transition from stage seed to play"):
        game._enter(Stage.PLAY)
    assert game.stage is Stage.SEED


@pytest.mark.parametrize(
    "rules", [zsy_rules(4), ddz_rules(3)], ids=["zsy4-lead", "ddz3-kitty"]
)
def test_a_whole_round_walks_the_table(rules, monkeypatch) -> None:
    """The stages a real round goes through, each change an edge of ``TRANSITIONS``."""
    walked: list[tuple[Stage, Stage]] = []
    enter = PrivateGame._enter

    def spy(self: PrivateGame, stage: Stage, **kw) -> None:
        old = self.stage
        enter(self, stage, **kw)
        if self.seat == 0:
            walked.append((old, stage))

    monkeypatch.setattr(PrivateGame, "_enter", spy)
    t = PrivateTable(rules, 1)
    t.run(max_time=120)
    assert t.nodes[0].game.finished()
    assert all(new in TRANSITIONS[old] for old, new in walked)
    path = [walked[0][0]] + [new for _, new in walked]
    assert path[:4] == [Stage.SEED, Stage.COMMIT, Stage.SHUFFLE, Stage.RELOCK]
    assert Stage.KEYS in path and Stage.PLAY in path and Stage.REVEAL in path
    assert path[-1] is Stage.OVER
    if rules.kitty_size:
        assert Stage.KITTY in path  # DDZ-2.4
    else:
        assert Stage.LEAD in path  # ZSY-2.1: round 1 starts with the start card


def test_the_private_deal_answers_the_shells_questions_like_the_open_one() -> None:
    """The one game surface (protocol.game_iface.TableGame): while the deal's own steps
    are due nobody may choose; in play the seat to act may, and nobody else can hold a
    seat (no bot knows its hand)."""
    t = PrivateTable(zsy_rules(4), 1)
    game = t.nodes[0].game
    assert game.hidden_hands and game.withholding(1, gone=False)
    assert game.holder_view(1) is None and game.decision_seats() == ()
    t.run(until=lambda: all(n.game.stage is Stage.PLAY for n in t.nodes.values()))
    r = game.round
    assert r is not None and not game.withholding(1, gone=False)
    turn = r.turn
    assert not game.withholding(turn, gone=False) and game.withholding(turn, gone=True)
    assert game.decision_seats() == (turn,) and game.owed(turn) == "a move"
    may = game.may(turn)  # seat 0's game: legal moves only when it is seat 0's own turn
    assert may.turn and list(may.legal) == game.legal(turn) and bool(may.legal) == (turn == 0)
    assert not game.may((turn + 1) % 4).turn
