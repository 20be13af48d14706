"""What a seat may do now, as the shell asks it: the UI never reads a phase name.

The terminal UI and the bots' drivers used to work out from ``state.phase``
what a typed ``p`` means or which kind of action a set of selected cards is.
They ask here instead (or the game's ``may(seat)``), so a phase is read in the
engine and the plugins only (see :mod:`zsy_lan.engine.phases`).
"""

from __future__ import annotations

from dataclasses import dataclass

from .phases import Phase
from .state import PASS, PLAY, Action, Duty, RoundState

__all__ = [
    "Options",
    "cards_make",
    "decline",
    "in_tricks",
    "options",
    "over",
    "to_act",
    "tribute_duty",
    "word_turn",
]

#: action kinds whose value 0 is a variant's "no" (a bid of 0, no double, no redouble)
_DECLINES = ("pass", "bid", "double", "redouble")


@dataclass(frozen=True)
class Options:
    """What ``seat`` may do now: the one answer the UI needs for a turn.

    ``turn``: the game waits on this seat's choice (not on a step a peer signs
    by itself, like the private deal's). ``legal``: its legal actions.
    ``cards_make``: the action kind a set of cards picked now makes (``play``;
    ``give`` or ``return`` during the tribute). ``words``: the choices are words
    (a bid, a double), not cards. ``decline``: what "pass" means now, if anything.
    """

    seat: int
    turn: bool
    legal: tuple[Action, ...] = ()
    cards_make: str = PLAY
    words: bool = False
    decline: Action | None = None


def cards_make(state: RoundState) -> str:
    """The action kind a set of cards makes in ``state``: the tribute duty's, else a play."""
    if state.phase == Phase.TRIBUTE and state.duties:
        return state.duties[0].kind
    return PLAY


def decline(state: RoundState, seat: int, legal: list[Action] | tuple[Action, ...]) -> Action:
    """What "pass" means for ``seat`` now: in tricks the pass; elsewhere the variant's own
    "no" among ``legal`` (a bid of 0, no double, no redouble), else the plain pass."""
    if state.phase != Phase.PLAY:
        for a in legal:
            if a.kind in _DECLINES and a.value == 0 and not a.cards:
                return a
    return Action(PASS, seat)


def word_turn(state: RoundState) -> bool:
    """True when the round is in a phase of its own variant (bidding, doubling) or the tribute:
    not tricks and not over (the choices there may be words, not cards)."""
    return state.phase not in (Phase.PLAY, Phase.DONE)


def in_tricks(state: RoundState) -> bool:
    """True during the tricks (ZSY-5): a play or a pass is what the seat to act does."""
    return state.phase == Phase.PLAY


def tribute_duty(state: RoundState) -> Duty | None:
    """The tribute duty being paid now (ZSY-7), or None outside the tribute."""
    if state.phase == Phase.TRIBUTE and state.duties:
        return state.duties[0]
    return None


def over(state: RoundState) -> bool:
    """True when the round is over (scored or void)."""
    return state.phase == Phase.DONE


def to_act(state: RoundState, seat: int) -> bool:
    """True when the round waits on ``seat`` (its turn, and the round not over)."""
    return state.turn == seat and state.phase != Phase.DONE


def options(state: RoundState | None, seat: int, turn: bool, legal: list[Action]) -> Options:
    """The :class:`Options` of ``seat`` from its view, whether it is its turn, and its moves."""
    if state is None:
        return Options(seat, False)
    return Options(
        seat,
        turn,
        tuple(legal),
        cards_make(state),
        word_turn(state),
        decline(state, seat, legal) if turn else None,
    )
