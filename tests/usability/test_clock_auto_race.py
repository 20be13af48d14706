"""The second timeout turns auto-play on at once (found with fast bots on the full screen).

docs/table-settings.md: "After two timeouts in the match your client switches your seat
to auto-play". Auto-play used to be switched on only after the timeout note had been sent
to every other seat (up to 1.5 s); bots that passed meanwhile gave the turn back to a seat
still on the clock, and the player's third turn waited out a third clock.
"""

from __future__ import annotations

import asyncio

from zsy_lan.ui.line_mode import Assist, clock_ran_out


class Announcing:
    """A network seat as :func:`clock_ran_out` sees it: telling the table takes a while."""

    def __init__(self, assist: Assist) -> None:
        self.assist = assist
        self.told: list[tuple[str, bool]] = []  # (event, auto-play on while it was told)

    async def announce(self, event: str) -> None:
        self.told.append((event, self.assist.auto))
        await asyncio.sleep(0.01)  # the note crosses the network


def test_auto_play_is_on_while_the_second_timeout_is_told() -> None:
    assist = Assist(timer=15.0)
    session = Announcing(assist)
    out: list[str] = []

    async def play(why: str) -> bool:
        return True

    async def scenario() -> None:
        await clock_ran_out(session, assist, out.append, play)  # type: ignore[arg-type]
        assert not assist.auto
        await clock_ran_out(session, assist, out.append, play)  # type: ignore[arg-type]

    asyncio.run(scenario())
    assert session.told == [("timeout", False), ("timeout", True), ("auto", True)]
    assert assist.auto and assist.auto_by_clock and assist.timeouts == 2
    assert sum("auto-play" in line for line in out) == 1


def test_a_player_back_during_the_note_is_not_told_auto_play() -> None:
    """Back (a key) while the timeout note is sent: the table is not told "auto" after it,
    and the player read "auto-play is on" before (never a bare "auto-play off")."""
    assist = Assist(timer=15.0, timeouts=1)
    out: list[str] = []

    class BackMeanwhile(Announcing):
        async def announce(self, event: str) -> None:
            await super().announce(event)
            if event == "timeout":
                assist.auto = assist.auto_by_clock = False  # what player_is_back does

    session = BackMeanwhile(assist)

    async def play(why: str) -> bool:
        return True

    asyncio.run(clock_ran_out(session, assist, out.append, play))  # type: ignore[arg-type]
    assert session.told == [("timeout", True)]  # no "auto" after the player is back
    assert sum("auto-play" in line for line in out) == 1  # told when it came on, at once
