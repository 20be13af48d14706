"""The private deal at a network table: the engine from one seat's knowledge plus mental poker.

:class:`PrivateGame` is the :class:`~zsy_lan.protocol.GameMachine` a table
with ``deal = "private"`` replicates. It wraps the engine's match, kept from
this seat's knowledge only (other hands ``None``, counts known), and a
:class:`~zsy_lan.deal.DealPeer` holding this seat's secrets. Every deal
message is a feed action in the one signed transcript, so the replica's turn
structure orders the deal too:

========  ================================  ========================================
stage     who acts (``actors()``)           action ``kind`` (``deal`` = message body)
========  ================================  ========================================
seed      the replica's commit-reveal       (protocol commit/reveal; picks the dealer,
                                            Dou Dizhu's first bidder)
commit    every seat, simultaneous          ``deal.commit``
shuffle   seat 0, 1, ... in turn            ``deal.shuffle``
relock    seat 0, 1, ... in turn            ``deal.relock``
keys      every seat, simultaneous          ``deal.keys`` (each opens its own hand)
lead      round 1 of ZSY, or every deal     ``deal.lead``: shows the start card or declines
          a plugin leads by a card: from
          the dealer's left, in turn,
          until one shows
play      the engine's turn                 engine actions; ``play`` and ``give``
                                            carry an ``Open``, ``return`` a sealed
                                            ``Pass`` and no cards
kitty     Dou Dizhu, once a landlord is     ``deal.kitty``: stock keys (all seats when
          chosen; ``Lead(stock=True)``      the kitty is shown, else all but the landlord,
          once the lead card's holder       or but the holder: the first seat dealt when
          is known                          every seat said no); then the round starts
reveal    every seat still owing, simult.   ``deal.reveal`` (end of round), then the audit
========  ================================  ========================================

The stages are :class:`Stage`; every change goes through ``PrivateGame._enter``,
which consults the one table of transitions, :data:`TRANSITIONS` (after the
audit: ``seed`` for the next deal, or ``over``; a table vote may send any deal
under way back to ``seed``).

Any seat the game waits on may instead send ``deal.reveal`` with a reason
``abort: ...`` (it saw something wrong that only it can see: a slot of its
hand that does not open, a lie in a card passed to it); the round then goes
straight to the reveal stage and the audit decides who cheated.

Determinism: ``check``/``apply``/``actors``/``public_hash`` depend only on
the transcript. Local secrets enter in two places only: the messages this
seat authors (:meth:`local_action`, :meth:`prepare`), and what this seat may
privately learn (its own cards, cards passed to it), which never changes the
public state. The seat's secret scalars come from a per-deal 32-byte secret
that the shell persists *before* any message depending on it is sent
(``persist``), so a restarted peer derives the same scalars and never
contradicts what it said.

A fault every peer can see (a point outside the group, a key that does not
match its commitment, a false claim in a play) is raised from :meth:`check`:
the replica halts with a ``Cheat`` naming the sender. A fault only the
audit can see voids the round (recorded in :attr:`voids`); rounds already
scored are kept. Scores are computed after the audit, with every hand known.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from typing import Any

from zsy_lan.deal import deal_notes, group
from zsy_lan.deal.audit import AuditReport
from zsy_lan.deal.deal_errors import DealError
from zsy_lan.deal.deal_notes import (
    audit_passed_note,
    dealt_note,
    problem_note,
    stopped_note,
    void_note,
    vote_void_note,
)
from zsy_lan.deal.deal_round import deal_config, engine_round, seen_twice, with_kitty
from zsy_lan.deal.deal_steps import DealSteps
from zsy_lan.deal.mental import OBSERVER, DealConfig, DealPeer
from zsy_lan.deal.messages import Message, Open, Pass, Reveal
from zsy_lan.deal.round_audit import AuditEvidence
from zsy_lan.deal.seat_secrets import SeatSecrets
from zsy_lan.deal.stages import (
    SIMULTANEOUS,
    TRANSITIONS,
    VOIDABLE,
    Stage,
)
from zsy_lan.engine.canonical import digest
from zsy_lan.engine.errors import EngineError, RuleError
from zsy_lan.engine.game import Game, Void
from zsy_lan.engine.hookspecs import Lead
from zsy_lan.engine.match import deal_lead, finish_round
from zsy_lan.engine.phases import MatchPhase, Phase
from zsy_lan.engine.round import DECK
from zsy_lan.engine.round import apply as apply_round
from zsy_lan.engine.rules import Rules
from zsy_lan.engine.shuffle import choose
from zsy_lan.engine.state import RETURN, Action, RoundState, evolve, with_extra
from zsy_lan.protocol.tail import Tail

__all__ = ["PrivateGame"]


class PrivateGame(Game):
    """The engine plus the private deal, as one GameMachine (see the module doc).

    :meth:`check` raises only the engine's typed errors or a ``DealError`` for
    a message that breaks a rule or the deal (``violations``): those name the
    author. Any other exception is a bug of this seat (the ledger stops it as a
    local fault, nobody is blamed).

    ``seat``: this peer's seat, or ``None`` for an observer (``zsy replay``)
    that holds no secret and learns every card at each audit. ``secrets``:
    per-deal secrets already on disk (after a restart); ``persist(deal_no,
    secret)`` must make a new one durable before returning.
    """

    violations: tuple[type[Exception], ...] = (EngineError, DealError)

    def __init__(
        self,
        rules: Rules,
        rounds: int,
        *,
        table: str,
        seat: int | None,
        secrets: Mapping[int, bytes] | None = None,
        persist: Callable[[int, bytes], None] | None = None,
        entropy: Callable[[int], bytes] = os.urandom,
        deal_factory: Callable[[DealConfig, int, Callable[[int], bytes]], DealPeer] | None = None,
    ) -> None:
        super().__init__(rules, rounds, knows=seat if seat is not None else -1)
        group.self_test()
        self.seat = seat if seat is not None else OBSERVER
        self.n = rules.players
        self.table_id = table
        self.secrets = SeatSecrets(table, self.seat, tuple(rules.deck), secrets, persist, entropy)
        self.steps = DealSteps(self)  # its messages: checked, parsed once, authored
        self._deal_factory = deal_factory or (
            # Points are validated by the peer that uses them (its masking or
            # opening refuses a bad one) and by every peer's audit, not by every
            # peer on receipt: those checks were most of a 6-peer deal's CPU.
            lambda cfg, seat, rand: DealPeer(cfg, seat, rand=rand, eager_validation=False)
        )
        self.stage = Stage.SEED
        self.deal_no = 0
        self.deal: DealPeer | None = None
        self.cfg: DealConfig | None = None
        self.batch: set[int] = set()
        self.dealer = -1
        self.seed = b""
        self.stock: tuple[int, ...] = ()
        self.voids: list[Void] = []  # rounds voided by the audit or a table vote
        # Tails (indices and len stay absolute): retire_history() forgets old rounds
        self.audits: Tail[AuditReport] = Tail()
        self.log: Tail[Action] = Tail()  # type: ignore[assignment]
        self._log_marks: list[int] = []  # len(self.log) at each deal's start
        self.notes: list[str] = []  # for the shell's notices (popped by pop_notes)
        self._fresh_deal()
        self._hash_key: tuple[Any, ...] | None = None
        self._hash = ""
        if self.seat != OBSERVER and not secrets and self.match.phase != MatchPhase.OVER:
            self.secrets.secret_for(1)  # drawn ahead: see SeatSecrets.secret_for
            self.secrets.secret_for(2)
            self.secrets.prefetch(1)  # while the table connects and seeds

    # --- GameMachine ------------------------------------------------------------

    def actors(self) -> tuple[int, ...]:
        """Who the transcript waits on (see the stage table in the module doc)."""
        st = self.stage
        if st in SIMULTANEOUS:
            return tuple(sorted(self.batch))
        if st == Stage.SHUFFLE and self.deal is not None:
            return (len(self.deal.shuffles),)
        if st == Stage.RELOCK and self.deal is not None:
            return (len(self.deal.relocks),)
        if st == Stage.LEAD:
            return (self.lead_order[self.lead_index],)
        if st == Stage.PLAY:
            r = self.match.round
            if r is None or r.turn < 0 or r.phase == Phase.DONE:
                return ()
            return (r.turn,)
        return ()

    def _enter(self, stage: Stage, *, void: bool = False) -> None:
        """Move the deal to ``stage``: the one place the stage changes, checked against
        :data:`TRANSITIONS` (``void``: a table vote sends a deal under way back to SEED).

        Every replica runs the same transitions from the same transcript, so a
        refused one is a bug in this program, never another seat's fault.
        """
        old = self.stage
        allowed = stage is Stage.SEED and old in VOIDABLE if void else stage in TRANSITIONS[old]
        if not allowed:
            raise RuntimeError(f"private deal: no transition from stage {old} to {stage}")
        self.stage = stage

    def needs_seed(self) -> bool:
        """A new deal starts with the replica's commit-reveal seed (dealer, first bidder)."""
        return self.stage == Stage.SEED and self.match.phase != MatchPhase.OVER

    def finished(self) -> bool:
        """Over once the last round is audited and scored."""
        return self.match.phase == MatchPhase.OVER and self.stage in (Stage.SEED, Stage.OVER)

    def start_round(self, seed: bytes) -> None:
        """Set up the next deal: dealer, slot layout, this seat's secrets; stage ``commit``."""
        if self.stage != Stage.SEED:
            raise RuleError("ZSY-1.3", "a round is already in progress")
        m = self.match
        prev = m.results[-1] if m.results else None
        n = self.n
        self.dealer = choose(seed, "dealer", n) if prev is None else prev.order[-1]
        self.seed = bytes(seed)
        self.seeds.append(bytes(seed))
        self._log_marks.append(len(self.log))
        self.deal_no += 1
        self.cfg, self.stock = deal_config(self.rules, self.table_id, self.deal_no, self.dealer)
        self.deal = self._deal_factory(self.cfg, self.seat, self.secrets.rand_for(self.deal_no))
        pre = self.steps.carried(self.deal_no)
        if len(pre) == n:
            # every seat committed in the last deal's reveal: the deck moves at once
            for seat in range(n):
                self.deal.ingest(pre[seat])
            self._enter(Stage.SHUFFLE)
            self.batch = set()
            self.deal.start_first_shuffle()  # seat 0; the others' do nothing
        else:
            self._enter(Stage.COMMIT)
            self.batch = set(range(n))
        self._fresh_deal()

    def _fresh_deal(self) -> None:
        """What a deal under way keeps, as it is before its first message."""
        self.aborted_by: int | None = None  # the seat that stopped the round (abort)
        self.abort_reason = ""
        self.complaint: str | None = None  # what only this seat saw wrong (it will abort)
        self.lead_order: tuple[int, ...] = ()
        self.lead_index, self.lord = 0, -1
        self.lead: Lead | None = None  # this deal's own lead (a plugin's zsy_deal_lead)
        self.lead_card: int | None = None  # the card the lead stage asks about (card % 54)
        self.evidence = AuditEvidence()  # claims about hidden cards, for the audit
        self._live = False  # the engine round of this deal exists

    def can_void_round(self) -> bool:
        """A deal is under way (commitments to last reveal): a table vote may void it."""
        return self.stage in VOIDABLE and self.match.phase != MatchPhase.OVER

    def void_round(self, seat: int, reason: str) -> None:
        """The table voted this deal void: ``seat`` withheld what it owed (a key, a reveal).

        No audit runs (the withheld scalars never came); the deal counts for
        nothing, earlier rounds, totals, the dealer and any tribute owed stand,
        and the next seed starts a new deal (``deal_no + 1``, a fresh secret)
        for the same round number. Deterministic: every replica voids at the
        same transcript position and ends in the same public state.
        """
        if not self.can_void_round():
            raise RuleError("ZSY-8.5", "no deal of this match is under way: nothing to void")
        m = self.match
        round_no = len(m.results) + 1
        self.voids.append(Void(round_no, seat, "vote", reason, self.deal_no, len(self.log)))
        r = m.round if self._live else None
        if r is not None:
            done = with_extra(evolve(r, phase=Phase.DONE, turn=-1), void=f"seat {seat}: {reason}")
            self.match = evolve(m, round=done, phase=MatchPhase.DEAL)
        else:
            self.match = evolve(m, phase=MatchPhase.DEAL)
        self._enter(Stage.SEED, void=True)
        self.batch, self.deal = set(), None
        self._fresh_deal()
        self.steps.forget()
        self.notes.append(vote_void_note(self.rules, round_no, reason))
        if self.seat != OBSERVER:
            self.secrets.secret_for(self.deal_no + 1)  # the next deal's secret, ahead as usual

    def retire_history(self, keep: int) -> None:
        """Memory over long matches: forget the moves and audits of all but the last ``keep`` deals.

        The replica calls it with its retention (``Replica(retain=k)``) once
        per round. What stays: the match (results, totals), the voids, the
        seeds; ``len(self.log)`` and ``len(self.audits)`` still count
        everything (the shell uses them as change counters). The record on
        disk keeps every move, and ``zsy replay`` rebuilds the audits from it.
        """
        if keep < 0 or len(self._log_marks) <= keep:
            return
        self.log.drop(self._log_marks[-(keep + 1)])  # type: ignore[attr-defined]
        del self._log_marks[: -(keep + 1)]
        self.audits.drop(len(self.audits) - keep)

    def check(self, seat: int, action: dict[str, Any] | Action) -> None:
        """Raise (naming the rule or the deal step) unless ``action`` is legal now."""
        if isinstance(action, Action):
            raise RuleError("ZSY-5.1", "a private-deal table needs the prepared action (prepare())")
        self.steps.parse(seat, action)

    def apply(self, seat: int, action: dict[str, Any] | Action) -> None:
        """Apply a checked action: the deal message, then the engine, then the stage."""
        assert isinstance(action, dict)
        kind, msg, act = self.steps.parse(seat, action)
        assert self.deal is not None
        if msg is not None:
            self._ingest(msg)
            if kind == "deal.commit" and seat == self.seat:
                # seat 0's first shuffle depends on nobody: start it once our commitment
                # is out (not before: it would hold up the commitment everyone waits on)
                self.deal.start_first_shuffle()
        if kind == "deal.reveal":
            if "next" in action:
                self.steps.carry_next(seat, action, self.deal_no + 1)
            self._on_reveal(seat, msg)  # type: ignore[arg-type]
            return
        st = self.stage
        if st in (Stage.COMMIT, Stage.KEYS, Stage.KITTY):
            self.batch.discard(seat)
            if not self.batch:
                self._batch_done(st)
        elif st == Stage.SHUFFLE:
            if seat == self.n - 1:
                self._enter(Stage.RELOCK)
        elif st == Stage.RELOCK:
            if seat == self.n - 1:
                self._enter(Stage.KEYS)
                self.batch = set(range(self.n))
        elif st == Stage.LEAD:
            self._on_lead(seat, msg)  # type: ignore[arg-type]
        elif st == Stage.PLAY:
            assert act is not None
            self._on_engine(seat, act, msg)

    def public_hash(self) -> str:
        """The engine's public state plus the deal's stage (all ``actors`` depends on).

        Cached: the replica asks several times per message. The key holds
        everything ``_public_deal`` reads, and the match (an immutable value
        that every change replaces).
        """
        d = self.deal
        key = (
            self.match,
            self.stage,
            self.deal_no,
            tuple(sorted(self.batch)),
            (len(d.shuffles), len(d.relocks)) if d is not None else (0, 0),
            self.lead_index,
            self.aborted_by,
            self.lord,
            len(self.voids),
        )
        cached = self._hash_key
        if cached is None or cached[0] is not key[0] or cached[1:] != key[1:]:
            self._hash = digest({"engine": self.public_json(), "deal": self._public_deal()})
            self._hash_key = key
        return self._hash

    def _public_deal(self) -> dict[str, Any]:
        d = self.deal
        return {
            "stage": self.stage.value,
            "deal_no": self.deal_no,
            "batch": sorted(self.batch),
            "steps": [len(d.shuffles), len(d.relocks)] if d is not None else [0, 0],
            "lead": self.lead_index,
            "aborted_by": self.aborted_by,
            "lord": self.lord,
            "voids": [v.to_json() for v in self.voids],
        }

    # --- for the shell ------------------------------------------------------------

    hidden_hands = True

    def local_action(self) -> dict[str, Any] | None:
        """The deal message this seat owes now, or None (:meth:`DealSteps.author`)."""
        return self.steps.author()

    def prepare(self, action: dict[str, Any]) -> dict[str, Any]:
        """This seat's move with the keys or sealed pass it needs (:meth:`DealSteps.prepare`)."""
        return self.steps.prepare(action)

    def engine_action(self, seat: int, action: dict[str, Any]) -> Action | None:
        """The engine action inside a feed action, as this seat may know it (for narration)."""
        return self.steps.engine_action(seat, action)

    def withholding(self, seat: int, gone: bool) -> bool:
        """What the table waits for from ``seat`` only it can give: a deal step (its
        secrets), or any move once it left (no bot can play a hand nobody else knows)."""
        return self.stage != Stage.PLAY or gone

    def holder_view(self, seat: int) -> RoundState | None:
        """None: nobody but ``seat`` knows its hand, so no bot can hold it."""
        return None

    def wants_decision(self) -> bool:
        """True when this seat must choose a move (a bot or the player), not a deal step."""
        return self.stage == Stage.PLAY and self.complaint is None and self.seat in self.actors()

    def decision_seats(self) -> tuple[int, ...]:
        """Seats whose *choice* the game waits for (the UI's "whose turn")."""
        return self.actors() if self.stage == Stage.PLAY else ()

    def owes(self, seat: int) -> str:
        """What ``seat`` owes now, in English words (logs and tests; :meth:`owed` to say it)."""
        return deal_notes.owes(self.stage) if seat in self.actors() else "nothing"

    def owed(self, seat: int) -> str | None:
        """What ``seat`` owes now, as the English message id the narration translates."""
        return deal_notes.owed(self.stage) if seat in self.actors() else None

    def pop_notes(self) -> list[str]:
        """Things to tell the player since the last call (deal done, audit verdicts)."""
        out, self.notes = self.notes, []
        return out

    def legal(self, seat: int) -> list[Action]:
        """Legal moves of ``seat`` (none during the deal's own steps)."""
        if self.stage != Stage.PLAY:
            return []
        return super().legal(seat)

    # --- parsing and checking -------------------------------------------------------

    def round_step(self, state: RoundState, act: Action) -> RoundState:
        """The engine's round step (one seam, so a test can play a lying peer)."""
        return apply_round(self.rules, state, act)

    # --- applying ---------------------------------------------------------------------

    def _ingest(self, msg: Message) -> None:
        assert self.deal is not None
        try:
            self.deal.ingest(msg)
        except DealError as exc:
            # only this seat can see it (its own hand, a pass to it), or nobody can
            # tell who is at fault: stop the round at its next turn; the audit decides
            self._complain(str(exc))
            return
        if type(msg) in (Open, Pass) and self.complaint is None:
            # a card seen twice (one in my hand, its copy played by another) means a
            # duplicated card in the deck, which only the audit can pin on someone
            twice = seen_twice(self.deal)
            if twice is not None:
                self._complain(f"card {twice} turned up in two slots")

    def _complain(self, why: str) -> None:
        if self.complaint is None:
            self.complaint = why
            self.notes.append(problem_note(self.rules, why))

    def _batch_done(self, st: Stage) -> None:
        if self.aborted_by is not None:
            self._enter_reveal()
            return
        if st == Stage.COMMIT:
            self._enter(Stage.SHUFFLE)
        elif st == Stage.KEYS:
            self._after_keys()
        elif st == Stage.KITTY:
            self._after_kitty()

    def _after_keys(self) -> None:
        """Every hand is open to its holder: the lead declarations, or the engine round."""
        if self.seat != OBSERVER and len(self.match.results) + 1 < self.match.rounds:
            # the next deal's set-up, while the players think (a deciding round
            # or a void deal makes it when it comes, as before)
            self.secrets.prefetch(self.deal_no + 1)
        m = self.match
        self.lead = deal_lead(self.rules, m, self.seed)
        if self.lead is not None:
            led_by_seat = self.lead.seat is not None and not (self.lead.stock and self.stock)
            if self.lead.card is not None and not led_by_seat:
                self.lead_card = self.lead.card % DECK
        elif not m.results and self.rules.start_card_lead:
            self.lead_card = self.rules.lowest_card % DECK  # ZSY-2.1, round 1
        if self.lead_card is not None:
            # whoever holds the card says so in turn from the dealer's left (the audit
            # checks every "no"): nobody can see another seat's hand
            n = self.n
            self.lead_order = tuple((self.dealer + 1 + i) % n for i in range(n))
            self.lead_index = 0
            self._enter(Stage.LEAD)
            return
        self._start_engine_round(leader=None)

    def _start_engine_round(self, leader: int | None) -> None:
        """The engine round from this seat's knowledge (ZSY-2 leader, ZSY-7 duties)."""
        assert self.deal is not None
        state = engine_round(
            self.rules, self.match, self.deal, self.seat,
            dealer=self.dealer, seed=self.seed, leader=leader, lead=self.lead,
        )  # fmt: skip
        self.match = evolve(self.match, phase=MatchPhase.PLAYING, dealer=self.dealer, round=state)
        self._enter(Stage.PLAY)
        self._live = True
        self.notes.append(dealt_note(state, self.seat))

    def _on_lead(self, seat: int, msg: Open | None) -> None:
        assert self.deal is not None
        takes_stock = self.lead is not None and self.lead.stock and bool(self.stock)
        if msg is not None:
            if takes_stock:
                self._stock_to(seat)
                return
            self._start_engine_round(leader=seat)
            return
        assert self.lead_card is not None
        self.evidence.declined_lead(seat, tuple(self.deal.slots_of(seat)), self.lead_card)
        self.lead_index += 1
        if self.lead_index >= len(self.lead_order):
            if takes_stock:  # nobody holds it: it is set aside, the first seat dealt takes it
                self._stock_to(self.lead_order[0])
                return
            self.abort_reason = "nobody showed the start card"
            self._enter_reveal()

    def _stock_to(self, seat: int) -> None:
        """``Lead.stock``: the set-aside cards go to ``seat`` (the lead card's holder, or
        the first seat dealt when the card is set aside), opened to it alone: every
        other seat publishes its keys of them (the kitty stage), then the round starts."""
        self.lord = seat
        self._enter(Stage.KITTY)
        show = self.rules.kitty_shown
        self.batch = set(range(self.n)) if show else {s for s in range(self.n) if s != seat}

    def _on_engine(self, seat: int, act: Action, msg: Message | None) -> None:
        """An engine action (its deal message already applied)."""
        assert self.deal is not None
        r = self.match.round
        assert r is not None
        receiving = isinstance(msg, Pass) and msg.to == self.seat and seat != self.seat
        if act.kind == RETURN and receiving and self.complaint is None:
            assert isinstance(msg, Pass)
            cards = [self.deal.slots[i].card for i in msg.slots]
            if all(c is not None for c in cards):
                act = Action(RETURN, seat, tuple(sorted(c for c in cards if c is not None)))
        if r.phase != Phase.PLAY and isinstance(msg, (Open, Pass)):
            # a tribute step: its rules may read the hand it came from (the audit checks)
            slots = tuple(i for i, _ in msg.cards) if isinstance(msg, Open) else msg.slots
            held = tuple(self.deal.slots_of(seat))
            self.evidence.acted_unseen(seat, held, r, act, tuple(slots))
        new = self.round_step(r, act)
        self.log.append(act)
        self._move_face_up(r, new)
        if new.first_out_hands is not None:
            self.evidence.note_first_out(self.deal.slots_of, self.n)
        had_lord = int(r.get("landlord", -1))
        self.match = evolve(self.match, round=new)
        if new.phase == Phase.DONE:
            self._enter_reveal()
            return
        lord = int(new.get("landlord", -1))
        if lord >= 0 and had_lord < 0 and self.stock:
            self.lord = lord
            show = self.rules.kitty_shown  # the DealLayout's, no option read by name
            self._enter(Stage.KITTY)
            self.batch = set(range(self.n)) if show else {s for s in range(self.n) if s != lord}

    def _move_face_up(self, old: RoundState, new: RoundState) -> None:
        """Face-up cards the rules moved (``tribute_log`` entries with cards) change holder.

        The phase decides who gets a face-up card and when (the engine's give at
        once; Guandan's once every giver has shown, GD-6.1): every peer reads the
        same public log, so every peer's deal assigns the same slots alike.
        """
        assert self.deal is not None
        shown = {c: i for i, c in self.deal.public_cards().items()}
        for _giver, receiver, face_up, _n in new.tribute_log[len(old.tribute_log) :]:
            slots = [shown[c] for c in face_up or () if c in shown]
            mine = set(self.deal.slots_of(receiver))
            move = [i for i in slots if i not in mine]
            if move:
                self.deal.assign(move, receiver)

    def _after_kitty(self) -> None:
        """The kitty goes to the landlord: opened by all (shown) or by the landlord alone."""
        assert self.deal is not None
        self.deal.assign(self.stock, self.lord)
        if not self._live:  # Lead.stock: the lead card's holder took the set-aside cards
            self._start_engine_round(leader=self.lord)
            card, mine = self.lead_card, self.deal.hand().values()
            if self.seat == self.lord and not any(c % DECK == card for c in mine):
                # every seat said it lacks the card, yet it was not set aside: one lied
                self._complain("the set-aside card is not the start card")
            return
        assert self.match.round is not None
        r = with_kitty(self.rules, self.match.round, self.deal, self.seat, self.lord, self.stock)
        self.match = evolve(self.match, round=r)
        self._enter(Stage.PLAY)

    def _on_reveal(self, seat: int, msg: Reveal) -> None:
        if self.stage != Stage.REVEAL:  # an abort
            self.aborted_by = seat
            self.abort_reason = msg.reason
            self.notes.append(stopped_note(self.rules, seat, msg.reason))
            if self.stage in SIMULTANEOUS:
                self.batch.discard(seat)
                if self.batch:
                    return  # the rest of this simultaneous batch still comes in
            self._enter_reveal()
            return
        self.batch.discard(seat)
        if not self.batch:
            self._round_end()

    def _enter_reveal(self) -> None:
        assert self.deal is not None
        self._enter(Stage.REVEAL)
        self.batch = {s for s in range(self.n) if s not in self.deal.reveals}
        if not self.batch:
            self._round_end()

    def _round_end(self) -> None:
        """Every seat revealed: the audit; then the next deal's secret is drawn ahead."""
        self._audit()
        if self.stage == Stage.SEED and self.seat != OBSERVER:
            self.secrets.secret_for(self.deal_no + 1)  # (normally drawn already)
            self.secrets.secret_for(self.deal_no + 2)  # committed to in the next deal's reveal

    # --- the audit and the score ------------------------------------------------------------

    def _audit(self) -> None:
        """Every seat revealed: audit the deal, check the rules that needed hidden cards, score."""
        assert self.deal is not None and self.cfg is not None
        rep = self.deal.audit()
        self.audits.append(rep)
        m = self.match
        r = m.round if self._live else None
        finished = r is not None and r.phase == Phase.DONE
        problem = self.evidence.verdict(
            rep, self.rules, self.aborted_by, self.abort_reason, finished
        )
        round_no = len(m.results) + 1
        if problem is not None:
            self.voids.append(Void(round_no, *problem, self.deal_no, len(self.log)))
            self.notes.append(void_note(self.rules, round_no, problem))
            self.match = evolve(m, phase=MatchPhase.DEAL)
            self._enter(Stage.SEED)
            return
        assert rep.slot_cards is not None and r is not None
        full = self.evidence.opened(r, rep.slot_cards, self.deal.slots_of, self.n)
        self.notes.append(audit_passed_note(self.rules, round_no))
        if full.get("void"):
            self.match = evolve(m, round=full, phase=MatchPhase.DEAL)
        else:
            self.match = finish_round(self.rules, evolve(m, round=full))
        self._enter(Stage.OVER if self.match.phase == MatchPhase.OVER else Stage.SEED)
