"""Text rendering of an engine view: the table as a few plain lines.

The UI never holds game state: it renders a seat's *view* (own hand, counts,
each seat's last move in the trick, whose turn) into lines that work in any
terminal and with screen readers (no box drawing; colour is optional and
never carries meaning alone: every suit keeps its letter or symbol, and
warnings are words). ``ascii_suits`` prints ``10S`` instead of ``10♠``
(♠♥♣ are "ambiguous width" in East Asian locales).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass

from ..engine.cards import (
    LEGEND,
    RANK_NAMES,
    card_str,
    rank_counts,
    rank_of,
    sort_cards,
    suit_of,
)
from ..engine.state import RoundState

_RED = "\x1b[31m"
_BOLD = "\x1b[1m"
_RESET = "\x1b[0m"


@dataclass
class Style:
    """How to draw cards: suits as ASCII letters, colour on or off, sort order."""

    ascii_suits: bool = False
    color: bool = False
    by_suit: bool = False

    @classmethod
    def detect(cls, color: str = "auto", ascii_suits: bool | None = None) -> Style:
        """Honour ``--color never|always|auto`` and ``NO_COLOR``; ASCII suits if not UTF-8."""
        if color == "always":
            use = True
        elif color == "never" or os.environ.get("NO_COLOR"):
            use = False
        else:
            use = os.isatty(1) and os.environ.get("TERM", "") not in ("", "dumb")
        if ascii_suits is None:
            import sys

            enc = (getattr(sys.stdout, "encoding", None) or "").lower()
            ascii_suits = "utf" not in enc
        return cls(ascii_suits=ascii_suits, color=use)


def card_text(card: int, style: Style) -> str:
    """One card, coloured red for hearts/diamonds/red joker when colour is on."""
    text = card_str(card, ascii_suits=style.ascii_suits)
    if style.color and (suit_of(card) in (0, 2) or rank_of(card) == 14):
        return f"{_RED}{text}{_RESET}"
    return text


def hand_text(cards: Sequence[int], style: Style) -> str:
    """A hand sorted by rank (or by suit with ``style.by_suit``)."""
    ordered = sort_cards(cards)
    if style.by_suit:
        ordered = tuple(sorted(ordered, key=lambda c: (suit_of(c) is None, suit_of(c) or 0)))
    return " ".join(card_text(c, style) for c in ordered)


def play_text(cards: Sequence[int] | None, style: Style) -> str:
    """A seat's last move in the trick: cards, ``pass`` or ``-``."""
    if cards is None:
        return "-"
    if not cards:
        return "pass"
    return " ".join(card_text(c, style) for c in sort_cards(cards))


def count_text(n: int) -> str:
    """A card count with the one-and-two-cards-left warning players expect."""
    if n == 0:
        return "out"
    if n <= 2:
        return f"{n} card{'s' if n > 1 else ''} LEFT!"
    return f"{n} cards"


def seat_label(seat: int, names: Sequence[str] | None, me: int) -> str:
    """``seat 2 (ana)``, with ``you`` for the viewer."""
    name = names[seat] if names and seat < len(names) else ""
    who = "you" if seat == me else name
    return f"seat {seat}" + (f" ({who})" if who else "")


def table_lines(
    state: RoundState,
    me: int,
    style: Style,
    names: Sequence[str] | None = None,
    titles: dict[int, str] | None = None,
) -> list[str]:
    """The table as ``me`` sees it: every seat's count and last move, the trick, the turn."""
    lines = [f"Round {state.round_no} - dealer seat {state.dealer}"]
    for s in range(state.players):
        marker = ">" if s == state.turn else " "
        title = f" [{titles[s]}]" if titles and s in titles else ""
        place = ""
        if s in state.finished and state.phase != "done":
            place = f" finished #{state.finished.index(s) + 1}"
        lines.append(
            f"{marker} {seat_label(s, names, me)}{title}: {count_text(state.counts[s])}"
            f"{place}; last: {play_text(state.seat_last[s] if state.seat_last else None, style)}"
        )
    if state.phase == "tribute" and state.duties:
        d = state.duties[0]
        giver = "you" if d.giver == me else f"seat {d.giver}"
        receiver = "you" if d.receiver == me else f"seat {d.receiver}"
        if d.kind == "give":
            lines.append(
                f"Tribute (ZSY-7): {giver} must give the {d.n} highest card(s) "
                f"(no jokers) face up to {receiver}."
            )
        else:
            lines.append(f"Tribute (ZSY-7): {giver} returns {d.n} card(s) of choice to {receiver}.")
    if state.trick is not None:
        combo = state.trick_combo
        kind = f" ({combo.kind})" if combo else ""
        lines.append(f"To beat: {play_text(state.trick, style)}{kind} by seat {state.trick_seat}")
    elif state.phase == "play":
        lines.append(f"New trick: seat {state.turn} leads")
    hand = state.hands[me] if 0 <= me < len(state.hands) else None
    if hand is not None:
        lines.append(f"Your hand ({len(hand)}): {hand_text(hand, style)}")
    if state.phase == "done":
        order = " ".join(str(s) for s in state.finished)
        lines.append(f"Round over. Finishing order (first out first): {order}")
    elif state.turn == me:
        lines.append("Your turn.")
    elif state.turn >= 0:
        lines.append(f"Waiting for {seat_label(state.turn, names, me)}.")
    return lines


def counter_text(state: RoundState) -> str:
    """A card counter: how many of each rank have been played this round."""
    counts = rank_counts(state.played)
    return " ".join(f"{RANK_NAMES[r]}:{counts[r]}" for r in range(15) if counts[r])


HELP = (
    "Type cards to play (3 3, 10 J Q K A, 33 44 55, BJ RJ), p to pass, "
    "? to list legal plays (then #2 plays the second), h for a hint, "
    "c for the card counter, s to sort by suit/rank, l for the legend, q to quit.\n" + LEGEND
)
