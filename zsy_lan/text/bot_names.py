"""The names of the bot levels, and the nicknames of ``zsy play``'s bots, in the player's language.

Why here and not in the bots: the bots and their registry name levels for the
machine (``easy``, ``normal``, ``hard``: the values ``--bot-level`` takes,
which stay English in every language, like every option value). A player
reads the level where a bot is named for them: ``zsy play`` names each bot
by its level and seat (``normal-1``, zh ``普通机器人1``). Those names are made
once, in one language, for a table no other process joins, so they can be
translated where they are made; the nick of a bot at a networked table is
sent to every seat and stays as it is.
"""

from __future__ import annotations

from zsy_lan.text.i18n import NP_, pgettext

__all__ = ["level_name", "local_bot_nick"]

_LEVELS = {
    # TRANSLATORS: a bot's level, as a word a player reads ("--bot-level easy" stays English)
    "easy": NP_("bot level", "easy"),
    # TRANSLATORS: a bot's level (the middle one)
    "normal": NP_("bot level", "normal"),
    # TRANSLATORS: a bot's level (the strongest)
    "hard": NP_("bot level", "hard"),
}


def level_name(level: str) -> str:
    """``level`` as the player's language says it; a level we do not know as it is."""
    msgid = _LEVELS.get(level)
    return pgettext("bot level", msgid) if msgid is not None else level


def local_bot_nick(level: str, seat: int) -> str:
    """The nickname of ``zsy play``'s bot at ``seat``: its level and seat (``hard-2``)."""
    # TRANSLATORS: a bot's nickname in zsy play: its level and its seat ("normal-1");
    # short, no spaces (players may type it: "mute normal-1")
    return pgettext("bot nick", "{level}-{seat}").format(level=level_name(level), seat=seat)
