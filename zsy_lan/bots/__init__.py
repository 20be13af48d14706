"""Bots for every variant: levels ``easy``/``normal``/``hard``, hints, and external programs.

Public API::

    make_bot(level, seed) -> Bot        # bot.choose(Observation) -> Action
    Observation.of(rules, view, seat)   # what a bot decides from (a seat's view)
    hints(rules, view, seat)            # legal actions best-first (the UI's hint key)
    ExternalBot(command)                # a program speaking the JSON-lines protocol

A bot also answers the engine's ``act(rules, view, seat)`` so it can play
:func:`zsy_lan.engine.selfplay.play_match` directly.
"""

from __future__ import annotations

from zsy_lan.bots.base import Bot, Observation, side_of
from zsy_lan.bots.external import ExternalBot, ExternalBotError, FallbackBot
from zsy_lan.bots.planner import NormalBot, hints
from zsy_lan.bots.registry import BASELINES, DEFAULT_LEVEL, LEVELS, EasyBot, level_names, make_bot
from zsy_lan.bots.search import HardBot

__all__ = [
    "BASELINES",
    "DEFAULT_LEVEL",
    "LEVELS",
    "Bot",
    "EasyBot",
    "ExternalBot",
    "ExternalBotError",
    "FallbackBot",
    "HardBot",
    "NormalBot",
    "Observation",
    "hints",
    "level_names",
    "make_bot",
    "side_of",
]
