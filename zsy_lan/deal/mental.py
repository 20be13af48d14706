"""The private deal (elliptic-curve SRA mental poker) as a sans-IO state machine.

One ``DealPeer`` per seat. It never touches a socket or a clock, and it has
one driver, the one the table runs: every deal message, in the order of the
table's one transcript (own messages included), is checked with ``verify``
and applied with ``ingest``; the ``*_message`` builders make the message this
seat owes, changing nothing. Who owes what is the driver's business (the
table's ``PrivateGame``, or ``sim.Sim`` in tests and the benchmark). See
docs/private-deal.md for the protocol, the messages and what each peer learns.

Notation: n seats, M slots (``len(cfg.deck)``), card point ``P_c``
(``group.card_point``). Seat j holds a shuffle scalar ``s_j``, a permutation
``pi_j`` of range(M) and per-slot re-lock keys ``k_j[0..M-1]``.

1. ``Commit``: every seat commits to (s_j, pi_j, nonce) and to each k_j[i].
2. ``Shuffle`` in seat order: ``D_{j+1}[i] = s_j * D_j[pi_j[i]]``, D_0 = the
   card points in deck order.
3. ``Relock`` in seat order: ``R_{j+1}[i] = (k_j[i] / s_j) * R_j[i]``, R_0 =
   D_n. Finally slot i holds ``(prod_j k_j[i]) * P_card``.
4. ``Keys(kind="deal")``: every seat publishes k_j[i] for every slot dealt to
   another seat and every face-up slot. Only the owner lacks nobody's key.
5. ``Open``: the owner publishes its key (and any other still secret key) and
   claims the card; everyone opens the slot and checks the claim.
6. ``Pass``: the owner seals the slot's secret keys and the card to the
   receiver (X25519 + ChaCha20-Poly1305); everyone sees the new owner.
7. ``Reveal``: every secret of the round, then ``audit.audit_deal``.

Published keys are the keys themselves (not their inverses): they are what the
commitments bind, so each one is checked at once against its hash, and an
opener inverts one product instead of n keys.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from concurrent.futures import Future
from dataclasses import dataclass, field

from zsy_lan.deal import group, sealed
from zsy_lan.deal.audit import AuditReport, audit_deal
from zsy_lan.deal.deal_errors import (
    CheatDetected,
    DealError,
    MalformedMessage,
    NotReady,
    ProtocolViolation,
)
from zsy_lan.deal.deck_chain import DeckChain
from zsy_lan.deal.deck_setup import (
    FACE_UP,
    OBSERVER,
    STOCK,
    DealConfig,
    Rand,
    commitment,
    commitment_for,
    draw_secrets,
    key_hash,
    prefetch_card_points,
    prefetch_first_shuffle,
    relock_step,
    shuffle_digest,
    shuffle_step,
    take_first_shuffle,
)
from zsy_lan.deal.group import Point
from zsy_lan.deal.messages import Assign, Commit, Keys, Message, Open, Pass, Relock, Reveal, Shuffle


@dataclass
class Slot:
    """What one peer knows about one slot."""

    owner: int | None  # seat that holds it face down or face up; None: stock/unowned/played
    public: bool = False  # opened to everyone
    played: bool = False
    card: int | None = None  # known to this peer
    pub_keys: dict[int, bytes] = field(default_factory=dict)  # published to all
    priv_keys: dict[int, bytes] = field(default_factory=dict)  # received in a pass


class DealPeer:
    """One seat's side of the private deal. Sans-IO: ``verify`` and ``ingest`` every message.

    ``rand`` is the source of this peer's own secrets (default ``os.urandom``);
    tests pass a seeded generator. ``eager_validation`` validates every point
    of every deck message on receipt, also the decks this peer does not
    transform (those it does transform are validated by the masking itself),
    and refuses a bad one in :meth:`verify`. Without it (the table's choice:
    those validations were most of a 6-peer deal's CPU), only the peer that
    transforms a deck next, or opens a slot, validates those points; a bad
    one is then its private finding, raised by :meth:`ingest` after the deck
    is recorded, and the audit (which re-computes every step) names the
    sender to every peer.
    """

    def __init__(
        self,
        cfg: DealConfig,
        seat: int,
        *,
        rand: Rand = os.urandom,
        eager_validation: bool = True,
    ) -> None:
        group.self_test()
        if not 0 <= seat < cfg.n_peers and seat != OBSERVER:
            raise ValueError("seat out of range")
        self.cfg = cfg
        self.seat = seat
        self.n = cfg.n_peers
        self.m = cfg.n_slots
        self.eager_validation = eager_validation
        self._rand = rand
        # the encoded deck and the lookup table (computed by every peer itself)
        self.deck_points: list[Point] = cfg.card_points()
        self.table: dict[Point, int] = dict(zip(self.deck_points, cfg.deck, strict=True))
        if len(self.table) != self.m:  # pragma: no cover - hash collision
            raise group.PrimitiveUnavailable("card points collide")
        # own secrets
        self._s, self._perm, self._nonce, self._keys, self._box_sk, self.box_pk = draw_secrets(
            self.m, rand
        )
        # replicated state
        self.commits: dict[int, Commit] = {}
        #: the deck through every seat's shuffle and re-lock (steps 2-3)
        self.deck = DeckChain(
            self.n,
            self.m,
            seat,
            shuffle=self._shuffle_points,
            relock=self._relock_points,
            revealed=lambda: self.revealed,
            eager_validation=eager_validation,
        )
        self.slots: list[Slot] = [Slot(owner=o if o >= 0 else None) for o in cfg.layout]
        self.deal_keys_from: set[int] = set()
        self.pass_count: dict[int, int] = {}
        self.reveals: dict[int, Reveal] = {}
        self.transcript: list[Message] = []
        self.started = False  # my commitment is in the transcript
        self.revealed = False  # my reveal is in the transcript
        # the last message verify() passed, and the state version it was checked on:
        # ingest() of that very message on that very state does not check it again
        self._version = 0
        self._checked: tuple[Message, int] | None = None
        self._first_shuffle: Future[list[Point]] | None = None

    # ------------------------------------------------------------ state

    @property
    def shuffles(self) -> list[tuple[Point, ...]]:
        """The shuffled decks so far (seat j's output at index j)."""
        return self.deck.shuffles

    @property
    def relocks(self) -> list[tuple[Point, ...]]:
        """The re-locked decks so far (seat j's output at index j)."""
        return self.deck.relocks

    @property
    def final(self) -> tuple[Point, ...] | None:
        """The deck after the last re-lock: slot i holds ``(prod_j k_j[i]) * P_card``."""
        return self.deck.final

    @property
    def dealt(self) -> bool:
        """Every slot dealt to me or face up has been opened."""
        if self.final is None:
            return False
        return all(
            sl.card is not None
            for sl, o in zip(self.slots, self.cfg.layout, strict=True)
            if o in (self.seat, FACE_UP)
        )

    def hand(self) -> dict[int, int]:
        """slot -> card id of the slots I hold and know (face down or shown), not played."""
        return {
            i: sl.card
            for i, sl in enumerate(self.slots)
            if sl.owner == self.seat and not sl.played and sl.card is not None
        }

    def public_cards(self) -> dict[int, int]:
        """slot -> card id of every slot opened to everyone (face up, shown, played)."""
        return {i: sl.card for i, sl in enumerate(self.slots) if sl.public and sl.card is not None}

    def slots_of(self, seat: int) -> list[int]:
        """Slots held by ``seat`` (not played): everyone knows these, not the cards."""
        return [i for i, sl in enumerate(self.slots) if sl.owner == seat and not sl.played]

    def waiting_for(self) -> list[tuple[int, str]]:
        """Who owes what right now (for the network layer's timeouts)."""
        if self.reveals or self.revealed:
            return [(j, "reveal") for j in range(self.n) if j not in self.reveals]
        missing = [(j, "commit") for j in range(self.n) if j not in self.commits]
        if missing:
            return missing
        if len(self.shuffles) < self.n:
            return [(len(self.shuffles), "shuffle")]
        if len(self.relocks) < self.n:
            return [(len(self.relocks), "relock")]
        out = [(j, "deal keys") for j in range(self.n) if j not in self.deal_keys_from]
        for i, sl in enumerate(self.slots):
            if sl.owner is None and not sl.public and sl.pub_keys:
                out += [
                    (j, f"reveal key for slot {i}") for j in range(self.n) if j not in sl.pub_keys
                ]
        return out

    @property
    def audit_ready(self) -> bool:
        return len(self.reveals) == self.n

    # ------------------------------------------------------------ local rule steps

    def assign(self, slots: Iterable[int], seat: int) -> None:
        """Hand slots to ``seat`` by a rule of the game (local: every peer calls it alike).

        Allowed for public cards not yet played (a revealed kitty, a face-up
        tribute changing hands) and for stock slots whose keys every other
        seat has published (a kitty seen only by the landlord: the new holder
        opens it with its own key). An ``Assign`` note goes into this peer's
        deal transcript so the audit follows the slots to their holder.
        """
        slots = sorted(set(slots))
        if not 0 <= seat < self.n:
            raise ValueError("bad seat")
        for i in slots:
            sl = self._slot(i)
            stock_to_seat = (
                sl.owner is None
                and not sl.public
                and not sl.played
                and sorted(sl.pub_keys) == [j for j in range(self.n) if j != seat]
            )
            if sl.played or not (sl.public or stock_to_seat):
                raise ValueError(f"slot {i} cannot be assigned")
        self._version += 1
        for i in slots:
            self.slots[i].owner = seat
        self.transcript.append(Assign(sender=seat, slots=tuple(slots)))
        for i in slots:
            self._try_open(i)

    def _make_pass(
        self,
        to: int,
        index: int,
        slots: list[int],
        entries: list[tuple[int, int, list[tuple[int, bytes]]]],
    ) -> Pass:
        key = sealed.pass_key(
            self._box_sk,
            self.commits[to].box_pk,
            self.cfg.table_id,
            self.cfg.round_no,
            self.seat,
            to,
            index,
        )
        ad = sealed.pass_ad(self.cfg.table_id, self.cfg.round_no, self.seat, to, index, slots)
        return Pass(
            sender=self.seat,
            to=to,
            index=index,
            slots=tuple(slots),
            box=sealed.seal(key, ad, entries),
        )

    def audit(self) -> AuditReport:
        """Audit the whole round from my transcript (needs every seat's Reveal)."""
        return audit_deal(self.cfg, self.transcript, self_seat=self.seat, table=self.table)

    # ------------------------------------------------ the driver: one transcript
    #
    # A network table orders every deal message in one signed transcript and
    # applies them there, own messages included: ``verify`` (no state change)
    # when the table checks a message, ``ingest`` when it applies it, and the
    # ``*_message`` builders, which sign nothing and change nothing, when this
    # seat owes a message. No automatic replies: the driver decides who owes what.

    def verify(self, msg: Message) -> None:
        """Check one transcript message now, without changing what is known publicly.

        Raises ``DealError`` naming the culprit (or ``NotReady`` if it comes
        too early for the deal). Only public facts are checked; what only this
        peer can see (its own slot not opening, a lie in a pass to it) shows
        up in :meth:`ingest`. If this peer transforms the deck next, its step
        is computed here (which also validates every input point) and kept.
        A message verified again on the same state is not checked twice.
        """
        checked = self._checked
        if checked is not None and checked[0] is msg and checked[1] == self._version:
            return
        self._verify(msg, msg.sender == self.seat)
        self._checked = (msg, self._version)

    def ingest(self, msg: Message) -> None:
        """Apply one message in transcript order (own or another seat's); no replies.

        A ``DealError`` raised here is private knowledge (the public state has
        already moved on): a slot dealt to this peer that does not open, a
        face-down pass to it that lies. The table should stop the round.
        """
        own = msg.sender == self.seat
        checked = self._checked
        self._checked = None
        try:
            if checked is not None and checked[0] is msg and checked[1] == self._version:
                self._mutate(msg, own)  # verify() passed it on this very state
            else:
                self._apply(msg)
        except NotReady:
            raise ProtocolViolation(
                f"{msg.TYPE} before its turn", culprit=msg.sender, step="order"
            ) from None
        except DealError:
            self.transcript.append(msg)  # it is in the table's transcript all the same
            raise
        self.transcript.append(msg)
        self._version += 1
        if own:
            if type(msg) is Shuffle or type(msg) is Relock:
                self.deck.stepped()
            if type(msg) is Commit:
                self.started = True
            if type(msg) is Reveal:
                self.revealed = True

    def keep(self, msg: Message) -> None:
        """Record ``msg`` in my deal transcript without checking or applying it.

        For a driver that refused ``msg`` (:meth:`verify` raised) or that stopped
        applying messages after a fault: the audit reads the whole transcript,
        so the fault is still pinned on its author. A ``Reveal`` is applied
        (the audit needs every seat's secrets).
        """
        self.transcript.append(msg)
        self._version += 1
        if type(msg) is Reveal and msg.sender not in self.reveals:
            self.reveals[msg.sender] = msg  # type: ignore[assignment]
            if msg.sender == self.seat:
                self.revealed = True

    def commit_message(self) -> Commit:
        """My commitment (step 1)."""
        return commitment(
            self.cfg, self.seat, self._s, self._perm, self._nonce, self._keys, self.box_pk
        )

    def step_message(self) -> Shuffle | Relock:
        """My shuffle or re-lock step, whichever the deck waits for from me."""
        if len(self.shuffles) < self.n:
            if len(self.shuffles) != self.seat:
                raise ProtocolViolation("not my shuffle step", step="shuffle")
            if self.seat == 0:
                if self._first_shuffle is None:
                    self.start_first_shuffle()
                assert self._first_shuffle is not None
                pts = list(self._first_shuffle.result())
            else:
                pts = self.deck.take_step(self._shuffle_points, self.shuffles[-1])
            return Shuffle(sender=self.seat, points=tuple(pts))
        if len(self.relocks) != self.seat:
            raise ProtocolViolation("not my re-lock step", step="relock")
        prev = self.relocks[-1] if self.relocks else self.shuffles[-1]
        points = self.deck.take_step(self._relock_points, prev)
        return Relock(sender=self.seat, points=tuple(points))

    def start_first_shuffle(self, *, background: bool = True) -> None:
        """Seat 0: start computing the first shuffle now, on a background thread.

        It depends on nobody (the card points, this seat's scalar and
        permutation), so a table starts it with the deal and it is ready when
        the last commitment comes in; ``step_message`` takes its result.
        ``background=False`` computes it here, on the calling thread (the
        simulation measures each peer's CPU time on its own thread).
        """
        if self.seat != 0 or self._first_shuffle is not None:
            return
        deck = list(self.deck_points)
        ahead = None
        if type(self)._shuffle_points is DealPeer._shuffle_points:  # (not a test's cheater)
            ahead = take_first_shuffle(self.cfg)

        def first() -> list[Point]:
            if ahead is not None:  # (queued before this on the same thread: done by now)
                s, perm, out = ahead.result()
                if s == self._s and perm == self._perm:
                    return out
            return self._shuffle_points(deck)

        if background:
            self._first_shuffle = group.in_background(first)
        else:
            done: Future[list[Point]] = Future()
            done.set_result(first())
            self._first_shuffle = done

    def deal_keys_message(self) -> Keys:
        """My keys for every slot dealt to another seat or face up (step 4)."""
        return self._deal_keys_message()

    def stock_keys_message(self, slots: Iterable[int]) -> Keys:
        """My keys of stock slots (a kitty opened to all, or to its new holder)."""
        slots = sorted(set(slots))
        return Keys(sender=self.seat, kind="reveal", keys=tuple((i, self._keys[i]) for i in slots))

    def open_message(self, slots: Iterable[int], kind: str) -> Open:
        """Open my slots to everyone: ``kind`` ``play`` or ``show`` (checked, not applied)."""
        slots = sorted(set(slots))
        if not slots:
            raise ValueError("nothing to open")
        cards, keys = [], []
        for i in slots:
            sl = self._slot(i)
            if sl.owner != self.seat or sl.played or sl.card is None:
                raise ValueError(f"slot {i} is not a card in my hand")
            if kind == "show" and sl.public:
                raise ValueError(f"slot {i} is already face up")
            cards.append((i, sl.card))
            if not sl.public:
                keys += [(i, j, k) for j, k in sorted(self._hidden_keys_i_know(i).items())]
        return Open(sender=self.seat, kind=kind, cards=tuple(cards), keys=tuple(keys))

    def pass_message(self, slots: Iterable[int], to: int) -> Pass:
        """Hand my face-down slots to ``to`` (sealed to it alone); not applied."""
        slots = sorted(set(slots))
        if not 0 <= to < self.n or to == self.seat:
            raise ValueError("bad receiver")
        entries = []
        for i in slots:
            sl = self._slot(i)
            if sl.owner != self.seat or sl.public or sl.played or sl.card is None:
                raise ValueError(f"slot {i} is not a face-down card of mine")
            entries.append((i, sl.card, sorted(self._hidden_keys_i_know(i).items())))
        return self._make_pass(to, self.pass_count.get(self.seat, 0), slots, entries)

    def reveal_message(self, reason: str) -> Reveal:
        """All my secrets of the round (step 7), for the audit."""
        return Reveal(
            sender=self.seat,
            reason=reason[:200],
            shuffle_scalar=self._s,
            perm=self._perm,
            nonce=self._nonce,
            keys=tuple(self._keys),
            box_sk=self._box_sk,
        )

    # ------------------------------------------------------------ internals

    def _slot(self, i: int) -> Slot:
        if type(i) is not int or not 0 <= i < self.m:
            raise ValueError(f"no slot {i}")
        return self.slots[i]

    def _hidden_seats(self, i: int) -> list[int]:
        """Seats whose key of slot i is not public."""
        pub = self.slots[i].pub_keys
        return [j for j in range(self.n) if j not in pub]

    def _hidden_keys_i_know(self, i: int) -> dict[int, bytes]:
        sl = self.slots[i]
        out = {}
        for j in self._hidden_seats(i):
            if j == self.seat:
                out[j] = self._keys[i]
            elif j in sl.priv_keys:
                out[j] = sl.priv_keys[j]
            else:
                raise ValueError(f"I do not know seat {j}'s key of slot {i}")
        return out

    def _check_key(self, seat: int, slot: int, key: bytes, *, blame: int, step: str) -> bytes:
        group.validate_scalar(key, sender=blame, what=f"key of seat {seat} for slot {slot}")
        if key_hash(self.cfg, seat, slot, key) != self.commits[seat].key_hashes[slot]:
            raise CheatDetected(
                f"key of seat {seat} for slot {slot} does not match its commitment",
                culprit=blame,
                step=step,
            )
        return key

    def _open_point(self, i: int, keys: dict[int, bytes]) -> Point:
        assert self.final is not None
        k = group.scalar_product(keys[j] for j in range(self.n))
        return group.mask(self.final[i], group.scalar_inv(k), sender=self.n - 1)

    def _open_with(self, i: int, extra: dict[int, bytes], *, step: str) -> int:
        """Open slot i with its public keys plus ``extra``; the card id or a DealError."""
        keys = dict(self.slots[i].pub_keys)
        keys.update(extra)
        if len(keys) != self.n:
            raise NotReady
        card = self.table.get(self._open_point(i, keys))
        if card is None:
            raise DealError(
                f"slot {i} does not open to a card although every key matches its "
                f"commitment: the deck is corrupt (the audit names who)",
                step=step,
            )
        return card

    def _try_open(self, i: int) -> None:
        sl = self.slots[i]
        if sl.card is not None:
            return
        if sl.owner == self.seat and len(sl.pub_keys) == self.n - 1:
            sl.card = self._open_with(i, {self.seat: self._keys[i]}, step="open")
        elif sl.owner is None and len(sl.pub_keys) == self.n:
            sl.card = self._open_with(i, {}, step="open")
            sl.public = True

    # -- applying messages: _verify (checks, no state change) then _mutate;
    # -- both raise NotReady if the message is too early

    def _apply(self, msg: Message) -> None:
        own = msg.sender == self.seat
        self._verify(msg, own)
        self._mutate(msg, own)

    def _verify(self, msg: Message, own: bool) -> None:
        t = type(msg)
        if t is Commit:
            self._verify_commit(msg)  # type: ignore[arg-type]
        elif t is Shuffle or t is Relock:
            self.deck.verify(msg, own, len(self.commits))  # type: ignore[arg-type]
        elif t is Keys:
            self._verify_keys(msg)  # type: ignore[arg-type]
        elif t is Open:
            self._verify_open(msg, own)  # type: ignore[arg-type]
        elif t is Pass:
            self._verify_pass(msg)  # type: ignore[arg-type]
        elif t is Reveal:
            self._verify_reveal(msg)  # type: ignore[arg-type]
        else:
            raise MalformedMessage(f"unknown message {t.__name__}", culprit=msg.sender)

    def _mutate(self, msg: Message, own: bool) -> None:
        self._version += 1
        t = type(msg)
        if t is Commit:
            self.commits[msg.sender] = msg  # type: ignore[assignment]
        elif t is Shuffle or t is Relock:
            self.deck.apply(msg, own)  # type: ignore[arg-type]
        elif t is Keys:
            self._mutate_keys(msg)  # type: ignore[arg-type]
        elif t is Open:
            self._mutate_open(msg)  # type: ignore[arg-type]
        elif t is Pass:
            self._mutate_pass(msg)  # type: ignore[arg-type]
        elif t is Reveal:
            self._apply_reveal(msg)  # type: ignore[arg-type]

    def _verify_commit(self, msg: Commit) -> None:
        if msg.sender in self.commits:
            raise ProtocolViolation("second commitment", culprit=msg.sender, step="commit")
        if len(msg.key_hashes) != self.m:
            raise MalformedMessage(
                f"{len(msg.key_hashes)} key hashes for {self.m} slots",
                culprit=msg.sender,
                step="commit",
            )

    def _shuffle_points(self, points: list[Point]) -> list[Point]:
        """My shuffle step (an adversarial test peer overrides it)."""
        return shuffle_step(points, self._s, self._perm, sender=self._prev_seat())

    def _relock_points(self, points: list[Point]) -> list[Point]:
        """My re-lock step (an adversarial test peer overrides it)."""
        return relock_step(points, self._s, self._keys, sender=self._prev_seat())

    def _prev_seat(self) -> int:
        return (self.seat - 1) % self.n

    def _verify_keys(self, msg: Keys) -> None:
        j = msg.sender
        if self.final is None or j not in self.commits:
            raise NotReady
        slots = [i for i, _ in msg.keys]
        if any(not 0 <= i < self.m for i in slots):
            raise MalformedMessage("slot out of range", culprit=j, step="keys")
        if msg.kind == "deal":
            if j in self.deal_keys_from:
                raise ProtocolViolation("second deal key release", culprit=j, step="deal")
            if tuple(slots) != self.cfg.deal_key_slots(j):
                raise ProtocolViolation("deal keys for the wrong slots", culprit=j, step="deal")
        else:
            for i in slots:
                sl = self.slots[i]
                if sl.owner is not None or sl.played or j in sl.pub_keys:
                    raise ProtocolViolation(
                        f"reveal key for slot {i} which is not in the stock",
                        culprit=j,
                        step="reveal-stock",
                    )
        for i, k in msg.keys:
            self._check_key(j, i, k, blame=j, step=msg.kind)

    def _mutate_keys(self, msg: Keys) -> None:
        j = msg.sender
        if msg.kind == "deal":
            self.deal_keys_from.add(j)
        for i, k in msg.keys:
            self.slots[i].pub_keys[j] = k
        for i, _ in msg.keys:
            self._try_open(i)

    def _verify_open(self, msg: Open, own: bool) -> None:
        j = msg.sender
        if self.final is None or len(self.deal_keys_from) < self.n:
            raise NotReady
        slots = [i for i, _ in msg.cards]
        if not slots:
            raise MalformedMessage("opens no slot", culprit=j, step=msg.kind)
        for i in slots:
            if not 0 <= i < self.m:
                raise MalformedMessage("slot out of range", culprit=j, step=msg.kind)
            sl = self.slots[i]
            if sl.owner != j or sl.played:
                raise CheatDetected(
                    f"opens slot {i} which it does not hold", culprit=j, step=msg.kind
                )
            if msg.kind == "show" and sl.public:
                raise ProtocolViolation(f"slot {i} is already face up", culprit=j, step="show")
        given: dict[int, dict[int, bytes]] = {}
        for i, seat, k in msg.keys:
            if i not in slots or self.slots[i].public:
                raise ProtocolViolation(
                    f"key for slot {i} that it does not open", culprit=j, step=msg.kind
                )
            given.setdefault(i, {})[seat] = k
        for i, claim in msg.cards:
            sl = self.slots[i]
            if sl.public:
                if sl.card != claim:
                    raise CheatDetected(
                        f"claims slot {i} is card {claim}, it is {sl.card}",
                        culprit=j,
                        step=msg.kind,
                    )
                continue
            keys = given.get(i, {})
            if sorted(keys) != self._hidden_seats(i):
                raise ProtocolViolation(
                    f"slot {i}: keys of seats {sorted(keys)}, needed {self._hidden_seats(i)}",
                    culprit=j,
                    step=msg.kind,
                )
            if not own:
                for seat, k in keys.items():
                    self._check_key(seat, i, k, blame=j, step=msg.kind)
            card = self._open_with(i, keys, step=msg.kind)
            if card != claim:
                raise CheatDetected(
                    f"claims slot {i} is card {claim}, it opens to card {card}",
                    culprit=j,
                    step=msg.kind,
                )

    def _mutate_open(self, msg: Open) -> None:
        given: dict[int, dict[int, bytes]] = {}
        for i, seat, k in msg.keys:
            given.setdefault(i, {})[seat] = k
        for i, claim in msg.cards:
            sl = self.slots[i]
            sl.pub_keys.update(given.get(i, {}))
            sl.card = claim
            sl.public = True
            if msg.kind == "play":
                sl.played = True
                sl.owner = None

    def _verify_pass(self, msg: Pass) -> None:
        g = msg.sender
        if self.final is None or len(self.deal_keys_from) < self.n:
            raise NotReady
        if msg.index != self.pass_count.get(g, 0):
            raise ProtocolViolation(f"pass index {msg.index} out of order", culprit=g, step="pass")
        if not 0 <= msg.to < self.n or msg.to == g:
            raise ProtocolViolation("pass to a bad seat", culprit=g, step="pass")
        if not msg.slots:
            raise MalformedMessage("passes no slot", culprit=g, step="pass")
        for i in msg.slots:
            if not 0 <= i < self.m:
                raise MalformedMessage("slot out of range", culprit=g, step="pass")
            sl = self.slots[i]
            if sl.owner != g or sl.played or sl.public:
                raise CheatDetected(
                    f"passes slot {i} which it does not hold face down", culprit=g, step="pass"
                )

    def _mutate_pass(self, msg: Pass) -> None:
        """Move the slots; the receiver then opens them, and raises if the giver lied.

        The public part (new holder, pass count) is done first, so a receiver
        that catches a lie stays in step with everybody else.
        """
        g = msg.sender
        self.pass_count[g] = msg.index + 1
        for i in msg.slots:
            sl = self.slots[i]
            sl.owner = msg.to
            if g != self.seat:
                sl.card = None  # (the giver still knows the card; it is no longer its own)
        if msg.to == self.seat:
            received = self._unseal_pass(msg)
            for i in msg.slots:
                self.slots[i].card, self.slots[i].priv_keys = received[i][0], received[i][1]

    def _unseal_pass(self, msg: Pass) -> dict[int, tuple[int, dict[int, bytes]]]:
        g = msg.sender
        try:
            key = sealed.pass_key(
                self._box_sk,
                self.commits[g].box_pk,
                self.cfg.table_id,
                self.cfg.round_no,
                g,
                self.seat,
                msg.index,
            )
            ad = sealed.pass_ad(
                self.cfg.table_id, self.cfg.round_no, g, self.seat, msg.index, msg.slots
            )
            entries = sealed.unseal(key, ad, msg.box)
        except ValueError as exc:
            raise CheatDetected(f"pass box: {exc}", culprit=g, step="pass") from exc
        if [e[0] for e in entries] != list(msg.slots):
            raise CheatDetected("pass box lists other slots", culprit=g, step="pass")
        out = {}
        for i, claim, keys in entries:
            kd = dict(keys)
            if len(kd) != len(keys) or sorted(kd) != self._hidden_seats(i):
                raise CheatDetected(
                    f"pass of slot {i} lacks the keys needed to open it", culprit=g, step="pass"
                )
            for seat, k in kd.items():
                self._check_key(seat, i, k, blame=g, step="pass")
            card = self._open_with(i, kd, step="pass")
            if card != claim:
                raise CheatDetected(
                    f"passes slot {i} as card {claim}, it opens to card {card}",
                    culprit=g,
                    step="pass",
                )
            out[i] = (card, kd)
        return out

    def _verify_reveal(self, msg: Reveal) -> None:
        old = self.reveals.get(msg.sender)
        if old is not None and old != msg:
            raise ProtocolViolation("second reveal", culprit=msg.sender, step="reveal")

    def _apply_reveal(self, msg: Reveal) -> None:
        self._version += 1
        if msg.sender in self.reveals:
            if self.reveals[msg.sender] == msg:
                return
            raise ProtocolViolation("second reveal", culprit=msg.sender, step="reveal")
        self.reveals[msg.sender] = msg

    def _deal_keys_message(self) -> Keys:
        return Keys(
            sender=self.seat,
            kind="deal",
            keys=tuple((i, self._keys[i]) for i in self.cfg.deal_key_slots(self.seat)),
        )


# the set-up names stay importable from here too (the table's deal and older callers
# read them from this module); they live in deck_setup
__all__ = [
    "DealConfig",
    "DealPeer",
    "FACE_UP",
    "OBSERVER",
    "STOCK",
    "commitment_for",
    "key_hash",
    "prefetch_card_points",
    "prefetch_first_shuffle",
    "relock_step",
    "shuffle_digest",
    "shuffle_step",
]
