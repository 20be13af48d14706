"""The private deal's stages and the deal messages each one takes.

:class:`Stage` is where a private deal is (``PrivateGame.stage``, a string in
its public hash: the values never change); :data:`TRANSITIONS` is every
change it may make, checked in one place (``PrivateGame._enter``). Code
outside the deal compares a stage only with these names.
"""

from __future__ import annotations

from enum import StrEnum

from zsy_lan.deal.messages import Commit, Keys, Open, Relock, Reveal, Shuffle
from zsy_lan.text.i18n import N_

__all__ = ["DEAL_KINDS", "OWES", "SIMULTANEOUS", "Stage", "TRANSITIONS", "VOIDABLE"]

#: action kinds that carry a deal message and no engine action
DEAL_KINDS = {
    "deal.commit": Commit,
    "deal.shuffle": Shuffle,
    "deal.relock": Relock,
    "deal.keys": Keys,
    "deal.kitty": Keys,
    "deal.reveal": Reveal,
    "deal.lead": Open,
}


class Stage(StrEnum):
    """Where the private deal is (the module doc's table); a string in the public hash."""

    SEED = "seed"
    COMMIT = "commit"
    SHUFFLE = "shuffle"
    RELOCK = "relock"
    KEYS = "keys"
    LEAD = "lead"
    PLAY = "play"
    KITTY = "kitty"
    REVEAL = "reveal"
    OVER = "over"


#: every stage change, in one place (``PrivateGame._enter`` refuses any other). Any
#: stage of a deal under way may also go back to SEED: a table vote voids the deal.
TRANSITIONS: dict[Stage, frozenset[Stage]] = {
    Stage.SEED: frozenset({Stage.COMMIT, Stage.SHUFFLE}),  # SHUFFLE: all committed ahead
    Stage.COMMIT: frozenset({Stage.SHUFFLE, Stage.REVEAL}),
    Stage.SHUFFLE: frozenset({Stage.RELOCK, Stage.REVEAL}),
    Stage.RELOCK: frozenset({Stage.KEYS, Stage.REVEAL}),
    Stage.KEYS: frozenset({Stage.LEAD, Stage.PLAY, Stage.REVEAL}),
    Stage.LEAD: frozenset({Stage.PLAY, Stage.KITTY, Stage.REVEAL}),  # KITTY: Lead.stock
    Stage.PLAY: frozenset({Stage.KITTY, Stage.REVEAL}),
    Stage.KITTY: frozenset({Stage.PLAY, Stage.REVEAL}),
    Stage.REVEAL: frozenset({Stage.SEED, Stage.OVER}),  # after the audit
    Stage.OVER: frozenset(),
}
#: stages a table vote may void (back to SEED)
VOIDABLE = frozenset(TRANSITIONS) - {Stage.SEED, Stage.OVER}
#: stages where every seat in ``batch`` acts at once
SIMULTANEOUS = (Stage.COMMIT, Stage.KEYS, Stage.KITTY, Stage.REVEAL)
OWES = {  # English message ids: the narration says them in the player's language (owed)
    Stage.COMMIT: N_("its deal commitment"),
    Stage.SHUFFLE: N_("its shuffle step"),
    Stage.RELOCK: N_("its re-lock step"),
    Stage.KEYS: N_("its deal keys"),
    Stage.LEAD: N_("whether it holds the start card"),
    Stage.KITTY: N_("its keys of the kitty"),
    Stage.REVEAL: N_("its secrets for the end-of-round audit"),
    Stage.PLAY: N_("a move"),
}
