"""Baseline bots for tests and simulation: uniformly random, and greedy.

Bots decide from a seat's *view* only (``view(state, seat)``: own hand,
counts, public plays) and are deterministic given their seed: their
randomness comes from the documented :class:`HashStream`, never ``random``.
The stronger bots of the bots issue build on the same interface.
"""

from __future__ import annotations

from typing import Protocol

from .cards import BJ, RJ, rank_counts, rank_of
from .combos import classify_cards
from .phases import Phase
from .round import legal_actions, legal_moves, move_action
from .rules import Rules
from .shuffle import HashStream
from .state import PASS, PLAY, RETURN, Action, RoundState


class Bot(Protocol):
    """Anything that picks an action for a seat from that seat's view."""

    def act(self, rules: Rules, state: RoundState, seat: int) -> Action:
        """The chosen action; ``state`` is a view holding only ``seat``'s hand."""
        ...


class RandomBot:
    """Uniformly random among the legal actions (one per distinct rank choice)."""

    def __init__(self, seed: bytes | int = 0) -> None:
        self._stream = HashStream(_seed_bytes(seed, b"random"))

    def act(self, rules: Rules, state: RoundState, seat: int) -> Action:
        """A uniformly random legal action."""
        if state.phase == Phase.PLAY:
            moves = legal_moves(rules, state, seat)
            if moves:
                return move_action(state, seat, moves[self._stream.uniform(len(moves))])
        actions = legal_actions(rules, state, seat)
        if not actions:
            raise ValueError(f"seat {seat} has nothing to do now")
        return actions[self._stream.uniform(len(actions))]


def bomb_ranks(rules: Rules, counts: list[int]) -> set[int]:
    """Ranks whose cards form a bomb in this hand (jokers when the joker bomb is held)."""
    out = {r for r in range(BJ) if counts[r] >= rules.min_bomb}
    if counts[BJ] >= rules.decks and counts[RJ] >= rules.decks:
        out |= {BJ, RJ}
    return out


class GreedyBot:
    """The smallest play that beats the table, never breaking a bomb.

    Leads its lowest combination (longer first at equal key, to shed cards);
    follows with the lowest that beats; passes rather than break a bomb, and
    bombs only when nothing else is left to lead. Returns the lowest cards as
    tribute.
    """

    def __init__(self, seed: bytes | int = 0) -> None:
        self.seed = seed

    def act(self, rules: Rules, state: RoundState, seat: int) -> Action:
        """The greedy choice."""
        if rules.in_effect is not None:  # the rules of this deal (Guandan's level)
            rules = rules.in_effect(rules, state)
        actions = legal_actions(rules, state, seat)
        if not actions:
            raise ValueError(f"seat {seat} has nothing to do now")
        hand = state.hands[seat] or ()
        counts = rank_counts(hand)
        bombs = bomb_ranks(rules, counts)
        if actions[0].kind == RETURN:
            return min(actions, key=lambda a: _return_cost(a, bombs))
        if actions[0].kind != PLAY and actions[0].kind != PASS:
            return actions[0]  # forced (tribute give) or a variant's phase: first is fine
        plays = [a for a in actions if a.kind == PLAY]
        keep = []
        for a in plays:
            ranks = [rank_of(c) for c in a.cards]
            combo = classify_cards(rules, a.cards)
            is_bomb = combo is not None and rules.kind_by_name[combo.kind].bomb
            if is_bomb or not any(r in bombs for r in ranks):
                keep.append((a, combo, is_bomb))
        normal = [(a, c) for a, c, b in keep if not b]
        if normal:
            if state.trick is None:
                return min(normal, key=lambda ac: (ac[1].key, -ac[1].length))[0]
            return min(normal, key=lambda ac: ac[1].key)[0]
        if state.trick is not None:
            return Action(PASS, seat)
        bomb_plays = [(a, c) for a, c, b in keep if b]
        if bomb_plays:
            return min(bomb_plays, key=lambda ac: (ac[1].length, ac[1].key))[0]
        return plays[0]


def _return_cost(action: Action, bombs: set[int]) -> tuple[int, int]:
    ranks = [rank_of(c) for c in action.cards]
    return (sum(1 for r in ranks if r in bombs), sum(ranks))


def _seed_bytes(seed: bytes | int, label: bytes) -> bytes:
    raw = seed if isinstance(seed, bytes) else str(seed).encode()
    return label + b"\x00" + raw


BOTS = {"random": RandomBot, "greedy": GreedyBot}
