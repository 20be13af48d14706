"""A seat's decision function when a program plays it: a built-in bot or an external one.

Why a module of its own: the host's bot seats, a resumed bot seat and
``zsy join --bot``/``--bot-cmd`` all make one the same way.
"""

from __future__ import annotations

from collections.abc import Callable

from zsy_lan.table.peer import Decider


def make_decider(level: str, seed: bytes, budget: int | None = None) -> Decider:
    """A bot of ``level`` as a peer's decision function (it sees only its seat's view).

    ``budget``: worlds the ``hard`` level samples per move; at a table its wall
    clock (400 ms) still caps every answer, so a slow machine never stalls a turn.
    """
    from zsy_lan.bots.registry import make_bot

    if budget is not None and level == "hard":
        return make_bot(level, seed, budget=budget).act
    return make_bot(level, seed).act


def external_decider(command: str, seed: bytes, on_error: Callable[[str], None]) -> Decider:
    """``zsy join --bot-cmd``: an external program plays; on failure a built-in bot moves."""
    from zsy_lan.bots.external import ExternalBot, FallbackBot
    from zsy_lan.bots.registry import make_bot

    bot = FallbackBot(
        ExternalBot(command, seed=seed),
        make_bot("normal", seed),
        on_error=lambda exc: on_error(f"{exc}; the built-in normal bot moved instead"),
    )
    return bot.act
