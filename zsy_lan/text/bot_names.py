"""The names of the bot levels, and the nicknames of ``zsy play``'s bots, in the player's language.

Why here and not in the bots: the bots and their registry name levels for the
machine (``easy``, ``normal``, ``hard``: the values ``--bot-level`` takes,
which stay English in every language, like every option value). A player
reads the level where a bot is named for them: ``zsy play`` names each bot
by its level and seat (``normal-1``, zh ``普通机器人1``). Those names are made
once, in one language, for a table no other process joins, so they can be
translated where they are made. The nick of a bot at a networked table
(``bot:normal``, made by the host that runs it) is sent to every seat as it
is, and each seat shows it in its own language (:func:`shown_nick`).
"""

from __future__ import annotations

import re

from zsy_lan.text.i18n import NP_, pgettext

__all__ = ["level_name", "local_bot_nick", "shown_nick"]

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


_HOSTED_BOT = re.compile(r"bot:(easy|normal|hard)(-[0-9]+)?")  # the host numbers a second one


def shown_nick(nick: str, bot: bool) -> str:
    """A seat's nick as this player reads it: a hosted bot's ``bot:normal`` in their language.

    Only a seat the roster marks as a bot is renamed, so a person who calls
    themselves ``bot:hard`` keeps their name.
    """
    match = _HOSTED_BOT.fullmatch(nick) if bot else None
    if match is None:
        return nick
    # TRANSLATORS: the nick of a bot a host runs at a networked table ("bot:normal")
    shown = pgettext("bot nick", "bot:{level}").format(level=level_name(match.group(1)))
    return shown + (match.group(2) or "")
