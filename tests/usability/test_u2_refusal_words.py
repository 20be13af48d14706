"""A refused play is said in the player's language, without the replica's "illegal: ".

Played with ``zsy --lang de play --plain`` (session 7, helper U2): "! illegal: the leader
must play: passing is only for following a play (ZSY-5.1) - versuch es noch einmal";
the seat's replica puts "illegal: " before the engine's sentence, and the translation of
engine sentences (zsy_lan.text.engine_text) did not know the sentence with it.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "ui"))
from screen_support import screen_table  # noqa: E402

from zsy_lan.engine.cards import rank_of  # noqa: E402
from zsy_lan.engine.round import PLAY  # noqa: E402
from zsy_lan.engine.state import Action  # noqa: E402
from zsy_lan.text.i18n import set_language  # noqa: E402
from zsy_lan.ui.line_mode import refusal  # noqa: E402

pytestmark = [pytest.mark.timeout(60)]


def test_the_leaders_pass_is_said_in_german() -> None:  # ZSY-5.1
    set_language("de")
    try:
        said = refusal(
            "illegal: the leader must play: passing is only for following a play (ZSY-5.1)"
        )
    finally:
        set_language("en")
    assert "illegal" not in said and "leader" not in said
    assert said.endswith("(ZSY-5.1)")


@pytest.mark.asyncio
async def test_a_refused_play_at_a_table_is_said_in_german(tmp_path) -> None:  # ZSY-3.5
    table = screen_table(tmp_path)
    try:
        table.start()  # the bots play up to seat 0's turn
        for _i in range(400):
            if 0 in table.game.actors():
                break
            await asyncio.sleep(0.02)
        assert 0 in table.game.actors()
        hand = table.game.view(0).hands[0]
        low = hand[0]
        far = next(c for c in hand if abs(rank_of(c) - rank_of(low)) > 1)
        reason = await table.submit(Action(PLAY, 0, (low, far)))
        assert reason is not None and reason.startswith("illegal: ")  # the replica's words
        set_language("de")
        said = refusal(reason)
        assert "illegal" not in said and "keine Kombination" in said
    finally:
        set_language("en")
        await table.close()
