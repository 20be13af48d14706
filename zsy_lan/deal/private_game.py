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
lead      round 1 of ZSY: from the dealer's ``deal.lead``: shows a start card or declines
          left, in turn, until one shows
play      the engine's turn                 engine actions; ``play`` and ``give``
                                            carry an ``Open``, ``return`` a sealed
                                            ``Pass`` and no cards
kitty     Dou Dizhu, once a landlord is     ``deal.kitty``: stock keys (all seats when
          chosen                            the kitty is shown, else all but the landlord)
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

import hashlib
import hmac
import os
from collections.abc import Callable, Mapping
from enum import StrEnum
from typing import Any

from zsy_lan.deal import group
from zsy_lan.deal.audit import AuditReport
from zsy_lan.deal.errors import DealError, MalformedMessage, NotReady
from zsy_lan.deal.mental import (
    OBSERVER,
    STOCK,
    DealConfig,
    DealPeer,
    commitment_for,
    prefetch_card_points,
    prefetch_first_shuffle,
)
from zsy_lan.deal.messages import (
    Commit,
    Keys,
    Message,
    Open,
    Pass,
    Relock,
    Reveal,
    Shuffle,
    from_body,
)
from zsy_lan.engine.canonical import digest
from zsy_lan.engine.cards import rank_of, sort_cards
from zsy_lan.engine.errors import EngineError, MalformedAction, RuleError
from zsy_lan.engine.game import Game, Void
from zsy_lan.engine.match import finish_round, tribute_duties
from zsy_lan.engine.phases import MatchPhase, Phase
from zsy_lan.engine.round import DECK, new_round, required_tribute
from zsy_lan.engine.round import apply as apply_round
from zsy_lan.engine.rules import Rules
from zsy_lan.engine.shuffle import choose
from zsy_lan.engine.state import GIVE, PLAY, RETURN, Action, RoundState, evolve, with_extra
from zsy_lan.protocol.ledger import Tail
from zsy_lan.text.i18n import N_, _, ngettext
from zsy_lan.text.sanitize import clean

__all__ = ["PrivateGame", "DEAL_KINDS"]

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
    Stage.LEAD: frozenset({Stage.PLAY, Stage.REVEAL}),
    Stage.PLAY: frozenset({Stage.KITTY, Stage.REVEAL}),
    Stage.KITTY: frozenset({Stage.PLAY, Stage.REVEAL}),
    Stage.REVEAL: frozenset({Stage.SEED, Stage.OVER}),  # after the audit
    Stage.OVER: frozenset(),
}
#: stages a table vote may void (back to SEED)
VOIDABLE = frozenset(TRANSITIONS) - {Stage.SEED, Stage.OVER}
#: stages where every seat in ``batch`` acts at once
_SIMULTANEOUS = (Stage.COMMIT, Stage.KEYS, Stage.KITTY, Stage.REVEAL)
_OWES = {  # English message ids: the narration says them in the player's language (owed)
    Stage.COMMIT: N_("its deal commitment"),
    Stage.SHUFFLE: N_("its shuffle step"),
    Stage.RELOCK: N_("its re-lock step"),
    Stage.KEYS: N_("its deal keys"),
    Stage.LEAD: N_("whether it holds the start card"),
    Stage.KITTY: N_("its keys of the kitty"),
    Stage.REVEAL: N_("its secrets for the end-of-round audit"),
    Stage.PLAY: N_("a move"),
}


class SecretStream:
    """A deterministic byte source keyed by a secret (HMAC-SHA256 in counter mode).

    The deal peer draws its scalars, permutation, nonce and box key from it in
    a fixed order, so the same persisted secret always gives the same secrets.
    """

    def __init__(self, secret: bytes) -> None:
        self._secret = secret
        self._ctr = 0
        self._buf = b""

    def __call__(self, n: int) -> bytes:
        while len(self._buf) < n:
            ctr = self._ctr.to_bytes(8, "big")
            self._buf += hmac.new(self._secret, ctr, hashlib.sha256).digest()
            self._ctr += 1
        out, self._buf = self._buf[:n], self._buf[n:]
        return out


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
        self._secrets = dict(secrets or {})
        self._persist = persist
        self._entropy = entropy
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
        self.aborted_by: int | None = None
        self.abort_reason = ""
        self.lead_order: tuple[int, ...] = ()
        self.lead_index = 0
        self.dealer = -1
        self.seed = b""
        self.stock: tuple[int, ...] = ()
        self.lord = -1
        self.complaint: str | None = None  # what only this seat saw wrong (it will abort)
        self.voids: list[Void] = []  # rounds voided by the audit or a table vote
        # Tails (indices and len stay absolute): retire_history() forgets old rounds
        self.audits: Tail[AuditReport] = Tail()
        self.log: Tail[Action] = Tail()  # type: ignore[assignment]
        self._log_marks: list[int] = []  # len(self.log) at each deal's start
        self.notes: list[str] = []  # for the shell's notices (popped by pop_notes)
        self._gives: list[tuple[int, int, tuple[int, ...], tuple[int, ...]]] = []
        self._declined: list[tuple[int, tuple[int, ...]]] = []
        self._first_out: tuple[tuple[int, ...], ...] | None = None
        self._live = False  # the engine round of this deal exists
        # each deal body is parsed once: check() and apply() get the same body object
        # (by identity), and a body this seat authored comes back from its own signed
        # frame equal to what it built (by value, own seat only)
        self._parsed: dict[int, tuple[object, str, int, Message]] = {}
        self._own: dict[str, tuple[dict[str, Any], Message]] = {}
        self._hash_key: tuple[Any, ...] | None = None
        self._hash = ""
        # commitments for deal ``_next_for``, carried by the previous deal's reveals
        self._next_for = 0
        self._next_commits: dict[int, Commit] = {}
        if self.seat != OBSERVER and not self._secrets and self.match.phase != MatchPhase.OVER:
            self._secret_for(1)  # drawn ahead: see _secret_for
            self._secret_for(2)
            self._prefetch(1)  # while the table connects and seeds

    # --- GameMachine ------------------------------------------------------------

    def actors(self) -> tuple[int, ...]:
        """Who the transcript waits on (see the stage table in the module doc)."""
        st = self.stage
        if st in _SIMULTANEOUS:
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
        deck = tuple(self.rules.deck)
        k = self.rules.kitty_size
        body = len(deck) - k
        layout = tuple((self.dealer + 1 + i) % n if i < body else STOCK for i in range(len(deck)))
        self.stock = tuple(range(body, len(deck)))
        self.cfg = DealConfig(self.table_id, self.deal_no, n, deck, layout)
        self.deal = self._deal_factory(self.cfg, self.seat, self._rand_for(self.deal_no))
        pre = self._next_commits if self._next_for == self.deal_no else {}
        self._next_for, self._next_commits = 0, {}
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
        self.aborted_by, self.abort_reason, self.complaint = None, "", None
        self.lead_order, self.lead_index, self.lord = (), 0, -1
        self._gives, self._declined, self._first_out = [], [], None
        self._live = False

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
        self.aborted_by, self.abort_reason, self.complaint = None, "", None
        self.lead_order, self.lead_index, self.lord = (), 0, -1
        self._gives, self._declined, self._first_out = [], [], None
        self._live = False
        self._parsed.clear()
        self.notes.append(
            _(
                "round {n} is void by the table's vote ({reason}); "
                "earlier rounds stand, the round is dealt again"
            ).format(n=round_no, reason=reason)
        )
        if self.seat != OBSERVER:
            self._secret_for(self.deal_no + 1)  # the next deal's secret, ahead as usual

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

    def _prefetch(self, deal_no: int) -> None:
        """Start a later deal's card points (and seat 0's first shuffle) in the background."""
        prefetch_card_points(self.table_id, deal_no, self.rules.deck)
        if self.seat == 0:
            prefetch_first_shuffle(self.table_id, deal_no, self.rules.deck, self._rand_for(deal_no))

    def _rand_for(self, deal_no: int) -> Callable[[int], bytes]:
        if self.seat == OBSERVER:
            return os.urandom  # an observer's "secrets" are never used
        return SecretStream(self._secret_for(deal_no))

    def _secret_for(self, deal_no: int) -> bytes:
        """The seat's secret of a deal: drawn and made durable the first time it is needed.

        The next deal's secret is drawn ahead (at construction for the first
        deal, at each audit for the next one), so the fsync that makes it
        durable is not on the deal's critical path: nothing is sent from it
        until that deal starts, and a restarted seat finds it in the journal.
        """
        secret = self._secrets.get(deal_no)
        if secret is None:
            secret = self._entropy(32)
            if self._persist is not None:
                self._persist(deal_no, secret)  # durable before anything depends on it
            self._secrets[deal_no] = secret
        return secret

    def check(self, seat: int, action: dict[str, Any] | Action) -> None:
        """Raise (naming the rule or the deal step) unless ``action`` is legal now."""
        if isinstance(action, Action):
            raise RuleError("ZSY-5.1", "a private-deal table needs the prepared action (prepare())")
        self._parse(seat, action)

    def apply(self, seat: int, action: dict[str, Any] | Action) -> None:
        """Apply a checked action: the deal message, then the engine, then the stage."""
        assert isinstance(action, dict)
        kind, msg, act = self._parse(seat, action)
        assert self.deal is not None
        if msg is not None:
            self._ingest(msg)
            if kind == "deal.commit" and seat == self.seat:
                # seat 0's first shuffle depends on nobody: start it once our commitment
                # is out (not before: it would hold up the commitment everyone waits on)
                self.deal.start_first_shuffle()
        if kind == "deal.reveal":
            if "next" in action:
                if self._next_for != self.deal_no + 1:
                    self._next_for, self._next_commits = self.deal_no + 1, {}
                self._next_commits[seat] = self._next_commit(seat, action)
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

    def local_action(self) -> dict[str, Any] | None:
        """The deal message this seat owes now, or None (nothing owed, or a player's choice).

        The shell authors it at once whenever the replica says this seat can
        act, before asking a bot or a player: deal steps are not choices.
        """
        s = self.seat
        if s == OBSERVER or s not in self.actors() or self.deal is None:
            return None
        st, d = self.stage, self.deal
        if self.complaint is not None and st != Stage.REVEAL and self.aborted_by is None:
            msg: Message = d.reveal_message(f"abort: {self.complaint}")
            return self._with_next({"kind": "deal.reveal", "seat": s, "deal": self._body(msg)})
        if st == Stage.COMMIT:
            return {"kind": "deal.commit", "seat": s, "deal": self._body(d.commit_message())}
        if st in (Stage.SHUFFLE, Stage.RELOCK):
            return {"kind": f"deal.{st}", "seat": s, "deal": self._body(d.step_message())}
        if st == Stage.KEYS:
            return {"kind": "deal.keys", "seat": s, "deal": self._body(d.deal_keys_message())}
        if st == Stage.KITTY:
            return {
                "kind": "deal.kitty",
                "seat": s,
                "deal": self._body(d.stock_keys_message(self.stock)),
            }
        if st == Stage.LEAD:
            start = self.rules.lowest_card % DECK
            mine = [i for i, c in sorted(d.hand().items()) if c % DECK == start]
            if not mine:
                return {"kind": "deal.lead", "seat": s}
            return {
                "kind": "deal.lead",
                "seat": s,
                "deal": self._body(d.open_message(mine[:1], "show")),
            }
        if st == Stage.REVEAL:
            reason = "end" if self.aborted_by is None else f"reply to seat {self.aborted_by}"
            if self.aborted_by is None and self.abort_reason:
                reason = f"reply: {self.abort_reason}"
            body = self._body(d.reveal_message(reason))
            return self._with_next({"kind": "deal.reveal", "seat": s, "deal": body})
        return None

    def _with_next(self, reveal: dict[str, Any]) -> dict[str, Any]:
        """A reveal carrying this seat's commitment for the next deal (``next``).

        Once every seat's reveal of a deal carried one, the next deal skips its
        commit stage: the deck moves as soon as the seed is known, one round
        trip sooner. The commitment binds the secrets drawn from the next deal's
        secret (drawn two deals ahead, so it is durable long before this), and
        the next deal's audit checks them against it like any commitment.
        """
        no = self.deal_no + 1
        cfg = DealConfig(self.table_id, no, self.n, tuple(self.rules.deck), self.cfg.layout)
        commit = commitment_for(cfg, self.seat, self._rand_for(no))
        return {**reveal, "next": commit.to_body()}

    def _next_commit(self, seat: int, action: dict[str, Any]) -> Commit:
        """The ``next`` commitment of a reveal, checked: well-formed, the sender's, M hashes."""
        body = action["next"]
        if not isinstance(body, dict):
            raise MalformedMessage(
                "next: a commitment is a JSON object", culprit=seat, step="commit"
            )
        commit = from_body(Commit.TYPE, body, sender=seat)
        assert isinstance(commit, Commit)
        if len(commit.key_hashes) != len(self.rules.deck):
            raise MalformedMessage(
                f"next: {len(commit.key_hashes)} key hashes for {len(self.rules.deck)} slots",
                culprit=seat,
                step="commit",
            )
        return commit

    hidden_hands = True

    def dealing(self) -> bool:
        """True while the table waits on a step of the deal itself, not on a player's choice."""
        return self.stage != Stage.PLAY

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

    def prepare(self, action: dict[str, Any]) -> dict[str, Any]:
        """This seat's engine action with the deal message it needs (its keys, a sealed pass).

        Raises ``ValueError`` when the action cannot be made (a card not in
        the hand, a face-up card returned face down).
        """
        act = Action.from_json(action)
        if self.stage != Stage.PLAY or self.deal is None or act.seat != self.seat:
            raise ValueError("no move is due from this seat now")
        if act.kind == PLAY:
            return {
                **act.to_json(),
                "deal": self._body(self.deal.open_message(self._slots_of_cards(act.cards), "play")),
            }
        if act.kind == GIVE:
            return {
                **act.to_json(),
                "deal": self._body(self.deal.open_message(self._slots_of_cards(act.cards), "show")),
            }
        if act.kind == RETURN:
            r = self.match.round
            assert r is not None and r.duties
            slots = self._slots_of_cards(act.cards)
            if any(self.deal.slots[i].public for i in slots):
                raise ValueError("a card everybody has seen cannot be returned face down")
            msg = self.deal.pass_message(slots, r.duties[0].receiver)
            body = Action(RETURN, act.seat, (), len(act.cards), True).to_json()
            return {**body, "deal": self._body(msg)}
        return act.to_json()

    def _slots_of_cards(self, cards: tuple[int, ...]) -> list[int]:
        """My slots holding ``cards`` (card ids are unique in a deck, copies included)."""
        assert self.deal is not None
        where = {c: i for i, c in self.deal.hand().items()}
        missing = [c for c in cards if c not in where]
        if missing:
            raise ValueError(f"cards {missing} are not in this seat's hand")
        return [where[c] for c in cards]

    def engine_action(self, seat: int, action: dict[str, Any]) -> Action | None:
        """The engine action inside a feed action, as this seat may know it (for narration)."""
        kind = action.get("kind")
        if not isinstance(kind, str) or kind.startswith("deal."):
            return None
        try:
            act = Action.from_json({k: v for k, v in action.items() if k != "deal"})
        except ValueError:
            return None
        if kind == RETURN and self.deal is not None and isinstance(action.get("deal"), dict):
            slots = action["deal"].get("slots", [])
            cards = [self.deal.slots[i].card for i in slots if 0 <= i < len(self.deal.slots)]
            if cards and all(c is not None for c in cards):
                return Action(RETURN, seat, tuple(sorted(c for c in cards if c is not None)))
        return act

    def owes(self, seat: int) -> str:
        """What ``seat`` owes now, in words (for the stall notice)."""
        if seat not in self.actors():
            return "nothing"
        return _OWES.get(self.stage, "a message") + (
            "" if self.stage == Stage.PLAY else " (private deal)"
        )

    def owed(self, seat: int) -> str | None:
        """What ``seat`` owes now, as the English message id the narration translates
        (``None``: nothing). :meth:`owes` is the same in English for logs and tests."""
        if seat not in self.actors():
            return None
        return _OWES.get(self.stage, N_("a message"))

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

    def _parse(
        self, seat: int, action: dict[str, Any]
    ) -> tuple[str, Message | None, Action | None]:
        """Check ``action`` by ``seat`` now; returns (kind, deal message, engine action)."""
        if not isinstance(action, dict):
            raise MalformedAction("an action is a JSON object")
        kind = action.get("kind")
        if action.get("seat") != seat:
            raise RuleError("ZSY-5.1", f"seat {seat} cannot act for seat {action.get('seat')}")
        if seat not in self.actors():
            raise RuleError("ZSY-5.1", f"seat {seat} does not act now ({self.stage} stage)")
        d = self.deal
        if d is None:
            raise RuleError("ZSY-1.3", "no deal in progress")
        if isinstance(kind, str) and kind in DEAL_KINDS:
            allowed = (
                {"kind", "seat", "deal", "next"}
                if kind == "deal.reveal"
                else {"kind", "seat", "deal"}
            )
            if set(action) - allowed:
                raise MalformedAction(f"unknown fields in a {kind} action")
            if kind == "deal.reveal":
                if "next" in action:
                    self._next_commit(seat, action)  # well-formed, or a cheat now
                if self.stage != Stage.REVEAL:
                    msg = self._deal_msg(seat, action, Reveal)
                    if not msg.is_abort:  # type: ignore[union-attr]
                        raise RuleError("DEAL", "only an abort may stop the round early")
                else:
                    msg = self._deal_msg(seat, action, Reveal)
                self._verify(msg)
                return kind, msg, None
            expect = {
                Stage.COMMIT: "deal.commit",
                Stage.SHUFFLE: "deal.shuffle",
                Stage.RELOCK: "deal.relock",
                Stage.KEYS: "deal.keys",
                Stage.KITTY: "deal.kitty",
                Stage.LEAD: "deal.lead",
            }
            if expect.get(self.stage) != kind:
                raise RuleError("DEAL", f"{kind} during the {self.stage} stage")
            if kind == "deal.lead":
                if "deal" not in action:
                    return kind, None, None
                msg = self._deal_msg(seat, action, Open)
                start = self.rules.lowest_card % DECK
                if msg.kind != "show" or len(msg.cards) != 1 or msg.cards[0][1] % DECK != start:  # type: ignore[union-attr]
                    raise RuleError("ZSY-2.1", "a lead declaration shows one start card or nothing")
                self._verify(msg)
                return kind, msg, None
            msg = self._deal_msg(seat, action, DEAL_KINDS[kind])
            if kind == "deal.keys" and msg.kind != "deal":  # type: ignore[union-attr]
                raise RuleError("DEAL", "deal keys must be of kind 'deal'")
            stock = self.stock
            if kind == "deal.kitty" and (
                msg.kind != "reveal" or tuple(i for i, _ in msg.keys) != stock  # type: ignore[union-attr]
            ):
                raise RuleError("DDZ-2.4", "kitty keys must cover exactly the kitty")
            self._verify(msg)
            return kind, msg, None
        if self.stage != Stage.PLAY:
            raise RuleError("DEAL", f"{kind!r} during the {self.stage} stage")
        engine = {k: v for k, v in action.items() if k != "deal"}
        act = Action.from_json(engine)
        r = self.match.round
        assert r is not None
        msg = None
        if act.kind in (PLAY, GIVE):
            msg = self._deal_msg(seat, action, Open)
            want = "play" if act.kind == PLAY else "show"
            claimed = sorted(c for _, c in msg.cards)  # type: ignore[union-attr]
            if msg.kind != want or claimed != sorted(act.cards):  # type: ignore[union-attr]
                raise RuleError("DEAL", f"the {act.kind} names other cards than it opens")
            self._verify(msg)
        elif act.kind == RETURN:
            msg = self._deal_msg(seat, action, Pass)
            if not act.hidden or act.cards or not r.duties:
                raise RuleError("ZSY-7.1", "a return is face down: no cards, hidden, a value")
            if msg.to != r.duties[0].receiver or len(msg.slots) != act.value:  # type: ignore[union-attr]
                raise RuleError("ZSY-7.1", "the sealed pass does not match the return")
            self._verify(msg)
            act = self._return_as_known(seat, msg)  # type: ignore[arg-type]
        elif "deal" in action:
            raise MalformedAction(f"a {act.kind} carries no deal message")
        self._round_apply(r, act)  # raises RuleError if illegal
        return act.kind, msg, act

    def _round_apply(self, state: RoundState, act: Action) -> RoundState:
        """The engine's round step (one seam, so a test can play a lying peer)."""
        return apply_round(self.rules, state, act)

    def _deal_msg(self, seat: int, action: dict[str, Any], cls: type) -> Message:
        body = action.get("deal")
        hit = self._parsed.get(id(body))
        if hit is not None and hit[0] is body and hit[1] == cls.TYPE and hit[2] == seat:
            return hit[3]
        own = self._own.get(cls.TYPE) if seat == self.seat else None
        if own is not None and own[0] == body:
            msg = own[1]
        else:
            msg = from_body(cls.TYPE, body, sender=seat)
            if not isinstance(msg, cls):
                raise MalformedAction(f"expected a {cls.TYPE} message")
        self._parsed[id(body)] = (body, cls.TYPE, seat, msg)  # keeps body alive: ids stay unique
        if len(self._parsed) > 8:
            del self._parsed[next(iter(self._parsed))]
        return msg

    def _body(self, msg: Message) -> dict[str, Any]:
        """``msg.to_body()``, remembered so this seat's own message is not parsed again."""
        self._own[msg.TYPE] = (msg.to_body(), msg)  # its own copy: the caller may change theirs
        return msg.to_body()

    def _verify(self, msg: Message) -> None:
        assert self.deal is not None
        try:
            self.deal.verify(msg)
        except NotReady:
            raise RuleError("DEAL", f"{msg.TYPE} before its turn") from None
        except DealError as exc:
            raise RuleError("DEAL", f"private deal, {exc.step or 'deal'}: {exc.reason}") from None

    def _return_as_known(self, seat: int, msg: Pass) -> Action:
        """The return as this seat knows it: cards for the giver, hidden for the rest.

        (The receiver learns the cards when it opens the pass, in ``apply``.)
        """
        assert self.deal is not None
        if seat == self.seat:
            cards = [self.deal.slots[i].card for i in msg.slots]
            return Action(RETURN, seat, tuple(sorted(c for c in cards if c is not None)))
        return Action(RETURN, seat, (), len(msg.slots), True)

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
            seen: set[int] = set()
            for sl in self.deal.slots:
                if sl.card is not None:
                    if sl.card in seen:
                        self._complain(f"card {sl.card} turned up in two slots")
                        break
                    seen.add(sl.card)

    def _complain(self, why: str) -> None:
        if self.complaint is None:
            self.complaint = why
            self.notes.append(
                _("private deal problem: {why}; stopping the round for the audit").format(why=why)
            )

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
            self._prefetch(self.deal_no + 1)
        m = self.match
        if not m.results and self.rules.start_card_lead:
            n = self.n
            self.lead_order = tuple((self.dealer + 1 + i) % n for i in range(n))
            self.lead_index = 0
            self._enter(Stage.LEAD)
            return
        self._start_engine_round(leader=None)

    def _start_engine_round(self, leader: int | None) -> None:
        """The engine round from this seat's knowledge (ZSY-2 leader, ZSY-7 duties)."""
        assert self.deal is not None
        m = self.match
        prev = m.results[-1] if m.results else None
        n = self.n
        counts = [len(self.deal.slots_of(s)) for s in range(n)]
        hands: list[tuple[int, ...] | None] = [None] * n
        if self.seat != OBSERVER:
            hands[self.seat] = sort_cards(tuple(self.deal.hand().values()))
        if prev is None:
            state = new_round(
                self.rules, hands, round_no=1, dealer=self.dealer, leader=leader, counts=counts
            )
        else:
            state = new_round(
                self.rules,
                hands,
                round_no=len(m.results) + 1,
                dealer=self.dealer,
                leader=prev.order[0],
                duties=tribute_duties(self.rules, prev.order),
                counts=counts,
            )
        if self.rules.on_seed is not None:
            state = self.rules.on_seed(self.rules, state, self.seed)
        self.match = evolve(m, phase=MatchPhase.PLAYING, dealer=self.dealer, round=state)
        self._enter(Stage.PLAY)
        self._live = True
        if self.seat == OBSERVER:
            self.notes.append(_("private deal done"))
        else:
            held = len(hands[self.seat] or ())
            self.notes.append(
                ngettext(
                    "private deal done; your hand: {n} card",
                    "private deal done; your hand: {n} cards",
                    held,
                ).format(n=held)
            )

    def _on_lead(self, seat: int, msg: Open | None) -> None:
        assert self.deal is not None
        if msg is not None:
            self._start_engine_round(leader=seat)
            return
        self._declined.append((seat, tuple(self.deal.slots_of(seat))))
        self.lead_index += 1
        if self.lead_index >= len(self.lead_order):
            self.abort_reason = "nobody showed the start card"
            self._enter_reveal()

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
        if act.kind == GIVE and isinstance(msg, Open):
            duty = r.duties[0]
            slots = tuple(i for i, _ in msg.cards)
            held = tuple(self.deal.slots_of(seat))
            self._gives.append((seat, duty.n, held, slots))
            self.deal.assign(slots, duty.receiver)
        new = self._round_apply(r, act)
        self.log.append(act)
        if self._first_out is None and new.first_out_hands is not None:
            self._first_out = tuple(tuple(self.deal.slots_of(s)) for s in range(self.n))
        had_lord = int(r.get("landlord", -1))
        self.match = evolve(self.match, round=new)
        if new.phase == Phase.DONE:
            self._enter_reveal()
            return
        lord = int(new.get("landlord", -1))
        if lord >= 0 and had_lord < 0 and self.stock:
            self.lord = lord
            show = self._show_kitty()
            self._enter(Stage.KITTY)
            self.batch = set(range(self.n)) if show else {s for s in range(self.n) if s != lord}

    def _show_kitty(self) -> bool:
        return self.rules.kitty_shown  # the rules say so (DealLayout.kitty_shown), no option name

    def _after_kitty(self) -> None:
        """The kitty goes to the landlord: opened by all (shown) or by the landlord alone."""
        assert self.deal is not None
        self.deal.assign(self.stock, self.lord)
        r = self.match.round
        assert r is not None
        hands = list(r.hands)
        if self.seat == self.lord:
            hands[self.lord] = sort_cards(tuple(self.deal.hand().values()))
        r = evolve(r, hands=tuple(hands))
        if self._show_kitty():
            cards = [self.deal.slots[i].card for i in self.stock]
            if all(c is not None for c in cards):
                r = with_extra(r, kitty=sort_cards(tuple(c for c in cards if c is not None)))
        self.match = evolve(self.match, round=r)
        self._enter(Stage.PLAY)

    def _on_reveal(self, seat: int, msg: Reveal) -> None:
        if self.stage != Stage.REVEAL:  # an abort
            self.aborted_by = seat
            self.abort_reason = msg.reason
            self.notes.append(
                _("seat {seat} stopped the round: {reason}").format(
                    seat=seat, reason=clean(msg.reason)
                )
            )
            if self.stage in _SIMULTANEOUS:
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
            self._secret_for(self.deal_no + 1)  # (normally drawn already)
            self._secret_for(self.deal_no + 2)  # committed to in the next deal's reveal

    # --- the audit and the score ------------------------------------------------------------

    def _audit(self) -> None:
        """Every seat revealed: audit the deal, check the rules that needed hidden cards, score."""
        assert self.deal is not None and self.cfg is not None
        rep = self.deal.audit()
        self.audits.append(rep)
        problem: tuple[int | None, str, str] | None = None
        if not rep.ok:
            f = rep.findings[0]
            problem = (f.culprit, f.step, f.reason)
        else:
            problem = self._rule_checks(rep)
        m = self.match
        r = m.round if self._live else None
        if problem is None and self.aborted_by is not None:
            problem = (self.aborted_by, "abort", "stopped the round without cause")
        if problem is None and (r is None or r.phase != Phase.DONE):
            problem = (None, "incomplete", self.abort_reason or "the round did not finish")
        round_no = len(m.results) + 1
        if problem is not None:
            culprit, step, reason = problem
            self.voids.append(Void(round_no, culprit, step, reason, self.deal_no, len(self.log)))
            said = (
                _(
                    "round {n} is void: the audit names seat {seat} ({step}): {reason}; "
                    "earlier rounds stand"
                )
                if culprit is not None
                else _(
                    "round {n} is void: the audit names an unknown seat ({step}): {reason}; "
                    "earlier rounds stand"
                )
            )
            self.notes.append(said.format(n=round_no, seat=culprit, step=step, reason=reason))
            self.match = evolve(m, phase=MatchPhase.DEAL)
            self._enter(Stage.SEED)
            return
        assert rep.slot_cards is not None and r is not None
        cards = rep.slot_cards
        assert self.deal is not None
        hands = tuple(
            sort_cards(tuple(cards[i] for i in self.deal.slots_of(s))) for s in range(self.n)
        )
        first = None
        if self._first_out is not None:
            first = tuple(sort_cards(tuple(cards[i] for i in slots)) for slots in self._first_out)
        full = evolve(r, hands=hands, first_out_hands=first)
        self.notes.append(_("round {n}: the audit of the private deal passed").format(n=round_no))
        if full.get("void"):
            self.match = evolve(m, round=full, phase=MatchPhase.DEAL)
        else:
            self.match = finish_round(self.rules, evolve(m, round=full))
        self._enter(Stage.OVER if self.match.phase == MatchPhase.OVER else Stage.SEED)

    def _rule_checks(self, rep: AuditReport) -> tuple[int | None, str, str] | None:
        """Rules that needed hidden cards, checked once every card is known."""
        cards = rep.slot_cards
        if cards is None:
            return None
        start = self.rules.lowest_card % DECK
        for seat, held in self._declined:
            if any(cards[i] % DECK == start for i in held):
                return (seat, "lead", "declined the start card although it held it (ZSY-2.1)")
        for giver, n, held, given in self._gives:
            need = required_tribute(tuple(cards[i] for i in held), n)
            got = sorted(rank_of(cards[i]) for i in given)
            if got != need:
                return (giver, "tribute", "did not give its highest natural card(s) (ZSY-7.4)")
        return None
