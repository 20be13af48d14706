"""The phases of a round and of a match, named in one place.

A round's ``phase`` says which handler moves it (:func:`zsy_lan.engine.round.
phase_handler`): the engine runs ``tribute``, ``play`` and ``done`` itself, a
game plugin registers its own (Dou Dizhu's ``bidding`` and ``doubling``)
through the ``zsy_phases`` hook, and a modifier may take over one of the
engine's (``single_tribute`` runs ``tribute``). Code outside the engine and
the plugins compares a phase only with these names, never with a string it
spelled itself, so a phase is renamed or added in one place.

The values are part of the canonical JSON of every state, so of every state
hash, record and golden replay: they never change.
"""

from __future__ import annotations

from typing import Final

__all__ = ["MatchPhase", "Phase"]


class Phase:
    """A round's phases (``RoundState.phase``)."""

    #: Dou Dizhu's bidding for the landlord (DDZ-2), run by its plugin
    BIDDING: Final = "bidding"
    #: Dou Dizhu's optional doubling (DDZ-6.2), run by its plugin
    DOUBLING: Final = "doubling"
    #: the tribute after a round (ZSY-7): gives, then returns
    TRIBUTE: Final = "tribute"
    #: tricks (ZSY-5)
    PLAY: Final = "play"
    #: the round is over (scored, or void)
    DONE: Final = "done"

    ALL: Final = (BIDDING, DOUBLING, TRIBUTE, PLAY, DONE)


class MatchPhase:
    """A match's phases (``MatchState.phase``)."""

    #: waiting for the next round's seed
    DEAL: Final = "deal"
    #: a round is being played
    PLAYING: Final = "playing"
    #: the match is over
    OVER: Final = "over"

    ALL: Final = (DEAL, PLAYING, OVER)
