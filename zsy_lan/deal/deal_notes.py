"""What a private deal tells the player, and what a seat it waits on owes, in words.

The game keeps these sentences in its ``notes`` (``PrivateGame.pop_notes``)
for the shell's notices; they are translated where they are made, like every
notice. What a seat owes is an English message id (:data:`~zsy_lan.deal.stages.
OWES`) the narration translates in the reader's language.
"""

from __future__ import annotations

from zsy_lan.deal.mental import OBSERVER
from zsy_lan.deal.round_audit import Problem
from zsy_lan.deal.stages import OWES, Stage
from zsy_lan.engine.rules import Rules
from zsy_lan.engine.state import RoundState
from zsy_lan.text.i18n import N_, _, ngettext
from zsy_lan.text.present import round_or_hand
from zsy_lan.text.sanitize import clean

__all__ = [
    "audit_passed_note",
    "dealt_note",
    "owed",
    "owes",
    "problem_note",
    "stopped_note",
    "vote_void_note",
    "void_note",
]


def owed(stage: Stage) -> str:
    """What the seat the deal waits on owes in ``stage``, as an English message id."""
    return OWES.get(stage, N_("a message"))


def owes(stage: Stage) -> str:
    """:func:`owed` in English, marked when it is a step of the deal (logs and tests)."""
    return OWES.get(stage, "a message") + ("" if stage == Stage.PLAY else " (private deal)")


def dealt_note(state: RoundState, seat: int) -> str:
    """What the player is told when the deal is done (its hand's size)."""
    if seat == OBSERVER:
        return _("private deal done")
    held = len(state.hands[seat] or ())
    return ngettext(
        "private deal done; your hand: {n} card",
        "private deal done; your hand: {n} cards",
        held,
    ).format(n=held)


def problem_note(rules: Rules | None, why: str) -> str:
    """This seat saw something wrong only it can see: it stops the round for the audit."""
    return round_or_hand(
        rules,
        _("private deal problem: {why}; stopping the round for the audit"),
        _("private deal problem: {why}; stopping the hand for the audit"),
    ).format(why=why)


def stopped_note(rules: Rules | None, seat: int, reason: str) -> str:
    """Another seat stopped the round (an abort, with its reason: peer text, cleaned)."""
    return round_or_hand(
        rules,
        _("seat {seat} stopped the round: {reason}"),
        _("seat {seat} stopped the hand: {reason}"),
    ).format(seat=seat, reason=clean(reason))


def vote_void_note(rules: Rules | None, round_no: int, reason: str) -> str:
    """The table voted the deal under way void."""
    return round_or_hand(
        rules,
        _(
            "round {n} is void by the table's vote ({reason}); "
            "earlier rounds stand, the round is dealt again"
        ),
        _(
            "hand {n} is void by the table's vote ({reason}); "
            "earlier hands stand, the hand is dealt again"
        ),
    ).format(n=round_no, reason=reason)


def audit_passed_note(rules: Rules | None, round_no: int) -> str:
    """The audit of the deal found nothing wrong."""
    return round_or_hand(
        rules,
        _("round {n}: the audit of the private deal passed"),
        _("hand {n}: the audit of the private deal passed"),
    ).format(n=round_no)


def void_note(rules: Rules | None, round_no: int, problem: Problem) -> str:
    """What the player is told when the audit makes round ``round_no`` void (Dou Dizhu: the
    hand; its variant's word, as in every void sentence)."""
    culprit, step, reason = problem
    if culprit is not None:
        said = round_or_hand(
            rules,
            _(
                "round {n} is void: the audit names seat {seat} ({step}): {reason}; "
                "earlier rounds stand"
            ),
            _(
                "hand {n} is void: the audit names seat {seat} ({step}): {reason}; "
                "earlier hands stand"
            ),
        )
    else:
        said = round_or_hand(
            rules,
            _(
                "round {n} is void: the audit names an unknown seat ({step}): {reason}; "
                "earlier rounds stand"
            ),
            _(
                "hand {n} is void: the audit names an unknown seat ({step}): {reason}; "
                "earlier hands stand"
            ),
        )
    return said.format(n=round_no, seat=culprit, step=step, reason=reason)
