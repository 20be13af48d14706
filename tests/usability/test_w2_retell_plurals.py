"""``zsy replay``'s counts read as words, not "round(s)" (U2 finding 4, retell.py).

"Totals after 1 round(s)" and "5 round(s)": ngettext picks the form, so English reads
"1 round" / "2 rounds" and each catalogue gives its own plural forms.
"""

from __future__ import annotations

import hashlib

from zsy_lan.engine.bots import BOTS
from zsy_lan.engine.game import Game
from zsy_lan.engine.ruleset import build_rules
from zsy_lan.record.retell import retell_lines


def _lines(rounds: int) -> list[str]:
    """A whole ZSY match between greedy bots, retold in English."""
    rules = build_rules(4, [])
    game = Game(rules, rounds)
    bots = [BOTS["greedy"](f"w2:{s}") for s in range(4)]
    for i in range(5000):
        if game.finished():
            break
        if game.needs_seed():
            game.start_round(hashlib.sha256(f"w2-{i}".encode()).digest())
            continue
        seat = game.round.turn
        game.apply(seat, bots[seat].act(rules, game.view(seat), seat))
    assert game.finished()
    return retell_lines(rules, rounds, game.seeds, game.log)


def test_the_totals_count_rounds_in_words() -> None:
    lines = _lines(2)
    totals = [line for line in lines if line.startswith("Totals after")]
    assert [t.split(":")[0] for t in totals] == ["Totals after 1 round", "Totals after 2 rounds"]
    assert not any("(s)" in line for line in lines)
