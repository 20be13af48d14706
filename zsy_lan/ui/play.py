"""``zsy play``: one human against bots, on the same table screen as a network game.

The table is a :class:`~zsy_lan.table.local_table.LocalTable` (every seat in this
process, signed and recorded like a network table) and the screen is
:func:`zsy_lan.ui.line_mode.run_table`, the very one ``zsy host`` and ``zsy join``
use: the same commands (``who``, ``score``, ``table``, ``auto``, ``rules``...),
the same labelled bots, the same bot levels, and a record ``zsy replay`` reads.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable
from pathlib import Path

from zsy_lan.engine.rules import Rules
from zsy_lan.table.local_table import LocalTable, make_local_table, table_clock
from zsy_lan.text.i18n import _
from zsy_lan.ui.line_mode import Assist, LineReader, PlainReader, Prompt, PromptReader, run_table
from zsy_lan.ui.render import Style, wrap

CTRL_C = "Ctrl-C"  # why the player left, when it was Ctrl-C (the CLI exits 130)


class _CtrlC:
    """A line reader that turns Ctrl-C at the prompt into leaving the table.

    prompt_toolkit raises ``KeyboardInterrupt`` inside the reading task; left
    alone it tears through the event loop and prints a traceback at exit.
    """

    def __init__(self, inner: LineReader) -> None:
        self.inner = inner
        self.pressed = False

    @property
    def show(self) -> Callable[[str], None]:
        """The inner reader's ``show`` (``--plain``): notices start on their own line, not
        glued to the waiting prompt. ``AttributeError`` when it has none, as if absent."""
        return self.inner.show  # type: ignore[attr-defined,no-any-return]

    @property
    def finish(self) -> Callable[[], None]:
        """The inner reader's ``finish`` (``--plain``): no prompt after the last lines.
        ``AttributeError`` when it has none, as if absent."""
        return self.inner.finish  # type: ignore[attr-defined,no-any-return]

    async def read(self, prompt: Prompt) -> str | None:
        try:
            return await self.inner.read(prompt)
        except KeyboardInterrupt:
            self.pressed = True
            return None


def _screen_wanted() -> bool:
    """Whether to show the full screen (Textual is imported only when it may be)."""
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        return False
    from zsy_lan.ui.screen import screen_wanted

    return screen_wanted(plain=False)


async def play_local(
    table: LocalTable,
    style: Style,
    reader: LineReader | None = None,
    print_fn: Callable[[str], None] = print,
    assist: Assist | None = None,
    four_color: bool = False,
) -> str:
    """Run the player's seat until the match ends or they leave; returns why it stopped.

    ``reader`` None: the full-screen table on a terminal large enough
    (:mod:`.screen`), prompt_toolkit on a smaller one, plain lines otherwise. The
    table is closed on every way out (quit, end of input, Ctrl-C), so the
    record on disk ends with the last move played.
    """
    said = _("Local table: {n} players, you are seat {seat}; seed {seed}.").format(
        n=table.rules.players, seat=table.seat, seed=table.seed
    )
    for line in wrap(said, style.columns(), style.wide_ambiguous):  # as the table's lines
        print_fn(line)
    table.start()
    try:
        if reader is not None:
            keys = _CtrlC(reader)
            why = await run_table(table, style, keys, print_fn, assist)
        elif _screen_wanted():  # a terminal large enough: the full-screen table
            from zsy_lan.ui.screen import ScreenOptions, run_screen

            why = await run_screen(table, style, assist, ScreenOptions(four_color=four_color))
            return why
        elif sys.stdin.isatty() and sys.stdout.isatty():
            from prompt_toolkit.patch_stdout import patch_stdout

            keys = _CtrlC(PromptReader())
            with patch_stdout(raw=True):
                why = await run_table(table, style, keys, print_fn, assist)
        else:
            keys = _CtrlC(PlainReader())
            why = await run_table(table, style, keys, print_fn, assist)
        return CTRL_C if keys.pressed else why
    finally:
        await table.close()


def run_local(
    rules: Rules,
    rounds: int,
    seed: str | None,
    level: str,
    me: int,
    record: Path,
    *,
    style: Style,
    plain: bool = False,
    nick: str = "you",
    pace: float = 0.3,
    print_fn: Callable[[str], None] = print,
    timer: float | None = None,
    four_color: bool = False,
    budget: int | None = None,
    bot_chat: bool = True,
) -> str:
    """Play a local match in this terminal; returns why it ended (the caller names the record)."""
    table = make_local_table(rules, rounds, me, level, record, seed=seed, me=nick, pace=pace,
                             budget=budget, bot_chat=bot_chat, clock=table_clock(timer))
    reader: LineReader | None = PlainReader() if plain else None
    if plain:
        style.suit_words = True  # --plain: "10 of spades" reads well in a screen reader
    return asyncio.run(
        play_local(table, style, reader, print_fn, Assist(timer=timer), four_color=four_color)
    )


__all__ = ["play_local", "run_local"]
