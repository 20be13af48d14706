"""What a private deal's end-of-round audit checks once every card is known.

During the round nobody can check a claim about a hidden card: a seat that
says it lacks the start card (ZSY-2.1), a tribute said to be the highest
natural cards (ZSY-7.4), any action of a phase whose rules read the hand it
came from (a phase handler's ``audit``: Guandan's tribute and its returns,
GD-6). :class:`AuditEvidence` keeps, per deal, which slots each such claim
was about, and the slots every seat held when the first seat went out
(scoring, ZSY-8.4); once the audit opened every slot it says which rule was
broken, if any, and builds the round with every hand known.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from zsy_lan.deal.audit import AuditReport
from zsy_lan.engine.cards import sort_cards
from zsy_lan.engine.errors import RuleError
from zsy_lan.engine.round import DECK, phase_handler
from zsy_lan.engine.rules import Rules
from zsy_lan.engine.state import Action, RoundState, evolve

__all__ = ["AuditEvidence", "Problem"]

#: (culprit seat or None, step, reason): why a deal is void
Problem = tuple[int | None, str, str]
Slots = tuple[int, ...]


class AuditEvidence:
    """The claims about hidden cards made in one deal, and the hands at the first out."""

    def __init__(self) -> None:
        # (seat, held, the round before, the action, its slots): checked by the phase's audit
        self.acted: list[tuple[int, Slots, RoundState, Action, Slots]] = []
        self.declined: list[tuple[int, Slots, int]] = []  # (seat, held, card): "I lack it"
        self.first_out: tuple[Slots, ...] | None = None  # each seat's slots then

    def declined_lead(self, seat: int, held: Slots, card: int) -> None:
        """``seat`` holding ``held`` said it has no ``card``, the deal's start card (ZSY-2.1,
        or a plugin's ``zsy_deal_lead``)."""
        self.declined.append((seat, held, card % DECK))

    def acted_unseen(
        self, seat: int, held: Slots, before: RoundState, action: Action, slots: Slots
    ) -> None:
        """``seat`` holding ``held`` made ``action`` (its cards: ``slots``) in ``before``'s
        phase, whose handler checks at the audit what the hand allowed (``audit``)."""
        self.acted.append((seat, held, before, action, slots))

    def note_first_out(self, slots_of: Callable[[int], Sequence[int]], n: int) -> None:
        """The first seat went out: keep every seat's slots then (once)."""
        if self.first_out is None:
            self.first_out = tuple(tuple(slots_of(s)) for s in range(n))

    def verdict(
        self,
        rep: AuditReport,
        rules: Rules,
        aborted_by: int | None,
        abort_reason: str,
        finished: bool,
    ) -> Problem | None:
        """Why the deal is void, or None: the audit's first finding, a rule a claim broke,
        an abort without cause (``aborted_by``), or a round that did not finish."""
        problem: Problem | None = None
        if rep.slot_cards is not None and all(f.step == "abort" for f in rep.findings):
            # the rules that needed hidden cards: a lie found there is the cause of any
            # abort (a seat that saw its effect stopped the round: not a false complaint)
            problem = self.broken_rule(rules, rep.slot_cards)
        if problem is None and not rep.ok:
            f = rep.findings[0]
            problem = (f.culprit, f.step, f.reason)
        if problem is None and aborted_by is not None:
            problem = (aborted_by, "abort", "stopped the round without cause")
        if problem is None and not finished:
            problem = (None, "incomplete", abort_reason or "the round did not finish")
        return problem

    def broken_rule(self, rules: Rules, cards: Sequence[int]) -> Problem | None:
        """The first rule a claim broke, now that ``cards`` (by slot) are known."""
        for seat, held, start in self.declined:
            if any(cards[i] % DECK == start for i in held):
                rule = rules.rule_id("ZSY-2.1")
                return (seat, "lead", f"declined the start card although it held it ({rule})")
        for seat, held, before, action, slots in self.acted:
            effective = rules.in_effect(rules, before) if rules.in_effect is not None else rules
            check = getattr(phase_handler(effective, before.phase), "audit", None)
            if check is None:
                continue
            shown = Action(action.kind, seat, tuple(sorted(cards[i] for i in slots)))
            try:
                check(effective, before, shown, tuple(cards[i] for i in held))
            except RuleError as exc:
                cited = exc.cited(rules.rule_ids) if rules.rule_ids else exc
                return (seat, str(before.phase), f"{cited.reason} ({cited.rule})")
        return None

    def opened(
        self,
        r: RoundState,
        cards: Sequence[int],
        slots_of: Callable[[int], Sequence[int]],
        n: int,
    ) -> RoundState:
        """``r`` with every hand known (and the hands at the first out), for scoring."""
        hands = tuple(sort_cards(tuple(cards[i] for i in slots_of(s))) for s in range(n))
        first = None
        if self.first_out is not None:
            first = tuple(sort_cards(tuple(cards[i] for i in slots)) for slots in self.first_out)
        return evolve(r, hands=hands, first_out_hands=first)

