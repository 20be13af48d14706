"""Golden replays of whole matches for 3-6 players (regenerate with tests/golden/regen.py).

Replaying each recorded action must give the recorded public hash at every
step: any change to the rules, the shuffle or the encodings shows up here.
"""

import json
from pathlib import Path

import pytest

from zsy_lan.engine.game import Game
from zsy_lan.engine.rules import base_rules
from zsy_lan.engine.state import Action
from zsy_lan.engine.view import public_hash

HERE = Path(__file__).parent
FILES = sorted(HERE.glob("zsy-*.jsonl"))


def test_every_player_count_has_a_golden_file():
    assert [f.name for f in FILES] == [
        "zsy-3p.jsonl",
        "zsy-4p.jsonl",
        "zsy-5p.jsonl",
        "zsy-6p.jsonl",
    ]


@pytest.mark.parametrize("path", FILES, ids=[f.name for f in FILES])
def test_golden_replay(path):
    lines = [json.loads(x) for x in path.read_text().splitlines()]
    head, body, tail = lines[0], lines[1:-1], lines[-1]
    rules = base_rules(head["players"], scoring=head["scoring"])
    game = Game(rules, head["rounds"])
    for n, line in enumerate(body, start=2):
        if "deal" in line:
            game.start_round(bytes.fromhex(line["deal"]))
        else:
            a = Action.from_json(line["action"])
            game.apply(a.seat, a)
        assert public_hash(game.round)[:16] == line["hash"], f"{path.name} diverges at line {n}"
    assert game.finished()
    assert [list(r.order) for r in game.match.results] == tail["result"]["orders"]
    assert list(game.match.winners) == tail["result"]["winners"]
    assert game.public_hash() == tail["result"]["match_hash"]
