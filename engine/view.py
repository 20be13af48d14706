"""What a seat may know, and the hashes that let peers compare states.

``view(state, seat)`` keeps the seat's own hand and everything public (counts,
plays, face-up tribute cards) and forgets other hands. The round machine runs
on such views too, so a replica that only knows its own hand reaches the same
:func:`public_hash` as a full-information one, action for action (actions are
passed through :func:`view_action` first, which hides face-down tribute
cards from seats that are not part of the exchange).
"""

from __future__ import annotations

from .canonical import digest
from .state import RETURN, Action, RoundState, evolve, public_json, round_to_json


def view(state: RoundState, seat: int) -> RoundState:
    """``state`` as ``seat`` may know it (``seat = -1``: a spectator, no hands)."""
    hands = tuple(h if s == seat else None for s, h in enumerate(state.hands))
    first = state.first_out_hands
    if first is not None:
        first = tuple(h if s == seat else None for s, h in enumerate(first))
    extra = tuple((k, v) for k, v in state.extra if not k.startswith("secret_"))
    return evolve(state, hands=hands, first_out_hands=first, extra=extra)


def view_action(state: RoundState, action: Action, seat: int) -> Action:
    """``action`` as ``seat`` sees it: a face-down return is hidden from outsiders (ZSY-7.1)."""
    if action.kind != RETURN or action.hidden or not state.duties:
        return action
    duty = state.duties[0]
    if seat in (duty.giver, duty.receiver):
        return action
    return Action(RETURN, action.seat, (), len(action.cards), True)


def public_hash(state: RoundState) -> str:
    """SHA-256 of the public part of a round: equal on every replica that saw the same actions."""
    return digest(public_json(state, for_hash=True))


def state_hash(state: RoundState) -> str:
    """SHA-256 of the full state (hands included)."""
    return digest(round_to_json(state))
