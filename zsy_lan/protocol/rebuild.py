"""Rebuilding after a motion: replay every feed into a fresh game, and say what changed.

docs/protocol.md, "Resolution": only the seat voted about (or a held seat that
came back) can have applied a message a carried motion later voids. Such a
replica notices (``Ledger.diverged``), replays every feed into a fresh ledger
and game, and tells its shell to cut the transcript file back where the new
order departs from what it wrote. Why a module of its own: it is the one place
a replica swaps its ledger, and what it tells again (only the lines, proofs and
what the motions newly decided, not the whole history) is a rule of its own.
"""

from __future__ import annotations

from collections.abc import Sequence

from zsy_lan.protocol.envelope import Envelope
from zsy_lan.protocol.events import Aside, Cheat, Event, Motion, Rewound, Transcribed
from zsy_lan.protocol.game_iface import GameMachine
from zsy_lan.protocol.ledger import Ledger

__all__ = ["replay", "retold", "written_before"]

Saved = Sequence[tuple[bool, bytes, Envelope]]  # the record read back: (aside?, frame, env)


def written_before(
    old: Ledger, saved: Saved | None, on_disk: list[tuple[bool, bytes]]
) -> list[tuple[bool, bytes]]:
    """What the transcript file holds: the record read back, or what ``old`` wrote and more."""
    if saved is not None:
        return [(aside, frame) for aside, frame, _ in saved]
    written = [(aside, frame) for aside, _, frame in old.file_lines()]
    return written + on_disk[len(written) :]


def replay(old: Ledger, game: GameMachine, saved: Saved | None) -> Ledger:
    """A fresh ledger over ``game`` with every feed of ``old`` filed again, in seat order.

    ``saved``: the record read back, for what already left memory (it comes first).
    """
    ledger = Ledger(old.table, old.roster, game, old.seat)
    for _, _, env in saved or ():  # what left memory, from the record, then the rest
        ledger.add(env)
    for s in old.roster:
        for env in old.feeds[s]:
            ledger.add(env)
    return ledger


def retold(events: list[Event], old: Ledger) -> list[Event]:
    """The history is not told again: only the lines, proofs and what motions newly decided."""
    return [
        e
        for e in events
        if isinstance(e, (Transcribed, Aside, Rewound, Cheat))
        or (
            isinstance(e, Motion)
            and e.outcome != "open"
            and (e.at, e.seat, e.motion) not in old.motions.resolved
        )
    ]
