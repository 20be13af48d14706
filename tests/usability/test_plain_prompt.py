"""The line mode's prompt tells the truth after a notice (found playing with --plain).

The prompt carries the table clock ("[your turn, 12 s left] > ", "[Alice: 5 s left] > ",
docs/table-settings.md). ``PlainReader`` printed it again after every notice, but as the
text it had when the line was asked for: after the turn passed to someone else, the player
still read "[your turn, 7 s left]", and on their turn a bare "> " or another seat's countdown.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import os

from zsy_lan.ui.line_mode import PlainReader


def test_plain_prompt_is_made_anew_after_a_notice() -> None:
    """A notice (the turn moved on) is followed by the prompt as it reads now, not as before."""
    rfd, wfd = os.pipe()
    stdin = os.fdopen(rfd, "r")
    stdout = io.StringIO()
    reader = PlainReader(stdin=stdin, stdout=stdout)
    state = {"text": "[your turn, 7 s left] > "}

    async def scenario() -> str | None:
        task = asyncio.create_task(reader.read(lambda: state["text"]))
        for _ in range(100):
            if stdout.getvalue():
                break
            await asyncio.sleep(0.01)
        state["text"] = "[Alice: 15 s left] > "  # the clock played for us; Alice acts now
        reader.show("* you: pass")
        await asyncio.sleep(0.01)
        os.write(wfd, b"who\n")
        return await asyncio.wait_for(task, 5)

    try:
        assert asyncio.run(scenario()) == "who"
    finally:
        os.close(wfd)
        stdin.close()
    assert stdout.getvalue() == "[your turn, 7 s left] > \n* you: pass\n[Alice: 15 s left] > "


def test_plain_prompt_as_text_is_unchanged() -> None:
    """A prompt given as plain text is printed again as it is."""
    rfd, wfd = os.pipe()
    stdin = os.fdopen(rfd, "r")
    stdout = io.StringIO()
    reader = PlainReader(stdin=stdin, stdout=stdout)

    async def scenario() -> str | None:
        task = asyncio.create_task(reader.read("> "))
        for _ in range(100):
            if stdout.getvalue():
                break
            await asyncio.sleep(0.01)
        reader.show("* note")
        await asyncio.sleep(0.01)
        os.write(wfd, b"p\n")
        return await asyncio.wait_for(task, 5)

    try:
        assert asyncio.run(scenario()) == "p"
    finally:
        os.close(wfd)
        stdin.close()
    assert stdout.getvalue() == "> \n* note\n> "


def test_the_prompt_left_on_screen_when_the_table_stops_ends_its_line() -> None:
    """The match ends while the prompt waits: "Bye..." is not glued to "> " (seen as
    "> Bye (match over). The game record: ...")."""
    rfd, wfd = os.pipe()
    stdin = os.fdopen(rfd, "r")
    stdout = io.StringIO()
    reader = PlainReader(stdin=stdin, stdout=stdout)

    async def scenario() -> None:
        task = asyncio.create_task(reader.read("> "))
        for _ in range(100):
            if stdout.getvalue():
                break
            await asyncio.sleep(0.01)
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task

    try:
        asyncio.run(scenario())
    finally:
        os.close(wfd)
        stdin.close()
    assert stdout.getvalue() == "> \n"


def test_zsy_play_plain_notices_start_on_their_own_line() -> None:
    """``zsy play --plain`` wraps its reader for Ctrl-C; the table found no ``show`` on the
    wrapper and printed notices glued to the prompt ("[your turn, 52 s left] > * Still
    your turn ...")."""
    from zsy_lan.ui.play import _CtrlC

    rfd, wfd = os.pipe()
    stdin = os.fdopen(rfd, "r")
    stdout = io.StringIO()
    keys = _CtrlC(PlainReader(stdin=stdin, stdout=stdout))
    show = getattr(keys, "show", None)
    assert show is not None

    async def scenario() -> str | None:
        task = asyncio.create_task(keys.read("> "))
        for _ in range(100):
            if stdout.getvalue():
                break
            await asyncio.sleep(0.01)
        show("* Still your turn (since 06:02:33).")
        await asyncio.sleep(0.01)
        os.write(wfd, b"p\n")
        return await asyncio.wait_for(task, 5)

    try:
        assert asyncio.run(scenario()) == "p"
    finally:
        os.close(wfd)
        stdin.close()
    assert stdout.getvalue() == "> \n* Still your turn (since 06:02:33).\n> "
    assert getattr(_CtrlC(object()), "show", None) is None  # a reader without one: none
