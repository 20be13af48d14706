"""End-of-round audit of the private deal: a pure function of the transcript.

Once every seat has published its ``Reveal``, any peer (or ``zsy replay``)
re-checks the whole deal from the messages alone:

1. one commitment, one reveal per seat, no second differing message for a step;
2. every reveal opens its commitment: shuffle scalar, permutation and nonce
   against ``shuffle_digest``; each re-lock key against its ``key_hash``; the
   X25519 private key against the committed public key;
3. every shuffle step: ``out[i] == s_j * in[pi_j[i]]``, every re-lock step:
   ``out[i] == (k_j[i]/s_j) * in[i]`` (each step checked against the deck it
   received, so each fault is pinned on its author); with D_0 computed here,
   this proves the final deck is exactly the expected deck, slot by slot;
4. replaying the rest in order: every published key equals the committed one,
   every opened slot was held by its opener and its claimed card is the card
   in the slot, every pass was made by the holder, decrypts, carries the right
   keys and the true card;
5. if nothing is wrong but a seat stopped the round (``abort``), that seat.

The first finding names the culprit. An auditor may skip re-computing its own
shuffle and re-lock steps (``self_seat``): it made them itself.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from . import group, sealed
from .errors import BadPoint
from .mental import DealConfig, key_hash, shuffle_digest
from .messages import Assign, Commit, Keys, Message, Open, Pass, Relock, Reveal, Shuffle


@dataclass(frozen=True)
class Finding:
    culprit: int | None
    step: str
    reason: str

    def __str__(self) -> str:
        who = f"seat {self.culprit}" if self.culprit is not None else "unknown seat"
        return f"{who} [{self.step}]: {self.reason}"


@dataclass(frozen=True)
class PassRecord:
    giver: int
    receiver: int
    slot: int
    claimed: int | None
    actual: int | None


@dataclass
class AuditReport:
    """Result of ``audit_deal``. ``ok`` iff no finding."""

    findings: list[Finding] = field(default_factory=list)
    complete: bool = False  # every shuffle and re-lock step was made
    slot_cards: tuple[int, ...] | None = None  # card id in each final slot
    dealt: dict[int, list[int]] = field(default_factory=dict)  # seat -> cards dealt to it
    remaining: dict[int, list[int]] = field(default_factory=dict)  # seat -> cards held at the end
    played: list[tuple[int, int, int]] = field(default_factory=list)  # (seat, slot, card)
    passes: list[PassRecord] = field(default_factory=list)
    #: the first seat to reveal (it ended or stopped the round) and its reason; the
    #: engine must check that a reason "end" came when the round was really over
    stopped_by: int | None = None
    stop_reason: str = ""
    scalarmults: int = 0

    @property
    def ok(self) -> bool:
        return not self.findings

    @property
    def culprit(self) -> int | None:
        return self.findings[0].culprit if self.findings else None

    @property
    def step(self) -> str | None:
        return self.findings[0].step if self.findings else None

    def summary(self) -> str:
        if self.ok:
            return "audit passed"
        return "audit failed: " + str(self.findings[0])


def _perm_ok(perm: Sequence[int], m: int) -> bool:
    return len(perm) == m and sorted(perm) == list(range(m))


def audit_deal(
    cfg: DealConfig,
    transcript: Sequence[Message],
    *,
    self_seat: int | None = None,
    table: dict[group.Point, int] | None = None,
) -> AuditReport:
    """Audit a round from its deal messages (in transcript order)."""
    n, m = cfg.n_peers, cfg.n_slots
    rep = AuditReport()
    fail = rep.findings.append
    before = group.COUNTERS["scalarmult"]

    # -- 1. collect the per-seat messages ------------------------------------
    commits: dict[int, Commit] = {}
    shuffles: dict[int, Shuffle] = {}
    relocks: dict[int, Relock] = {}
    reveals: dict[int, Reveal] = {}
    reveal_order: list[Reveal] = []
    rest: list[Message] = []
    for msg in transcript:
        j = msg.sender
        if not 0 <= j < n:
            fail(Finding(None, "transcript", f"message from non-seat {j}"))
            continue
        t = type(msg)
        store: dict | None = {
            Commit: commits,
            Shuffle: shuffles,
            Relock: relocks,
            Reveal: reveals,
        }.get(t)
        if store is None:
            rest.append(msg)
            continue
        if j in store:
            if store[j] != msg:
                fail(Finding(j, t.__name__.lower(), "sent two different messages for one step"))
            continue
        store[j] = msg
        if t is Reveal:
            reveal_order.append(msg)  # type: ignore[arg-type]

    for j in range(n):
        if j not in commits:
            fail(Finding(j, "commit", "sent no commitment"))
        if j not in reveals:
            fail(Finding(j, "reveal", "did not reveal its secrets"))
    if rep.findings:
        return rep

    # -- 2. reveals against commitments ---------------------------------------
    for j in range(n):
        c, r = commits[j], reveals[j]
        if len(c.key_hashes) != m:
            fail(Finding(j, "commit", "commitment has the wrong number of key hashes"))
            continue
        if not group.is_canonical_scalar(r.shuffle_scalar):
            fail(Finding(j, "reveal", "shuffle scalar is not a reduced nonzero scalar"))
            continue
        if not _perm_ok(r.perm, m):
            fail(Finding(j, "reveal", "permutation is not a permutation of the slots"))
            continue
        if len(r.keys) != m or not all(group.is_canonical_scalar(k) for k in r.keys):
            fail(Finding(j, "reveal", "re-lock keys are not M reduced nonzero scalars"))
            continue
        if shuffle_digest(cfg, j, r.shuffle_scalar, r.perm, r.nonce) != c.shuffle_digest:
            fail(Finding(j, "reveal", "shuffle scalar/permutation do not match the commitment"))
            continue
        bad = [i for i in range(m) if key_hash(cfg, j, i, r.keys[i]) != c.key_hashes[i]]
        if bad:
            fail(
                Finding(j, "reveal", f"re-lock key of slot {bad[0]} does not match its commitment")
            )
            continue
        try:
            pk_ok = sealed.box_public(r.box_sk) == c.box_pk
        except ValueError:
            pk_ok = False
        if not pk_ok:
            fail(Finding(j, "reveal", "box key does not match the committed public key"))
    if rep.findings:
        return rep

    # -- 3. shuffle and re-lock steps -----------------------------------------
    if table is not None:
        by_card = {c: p for p, c in table.items()}
        deck0 = [by_card[c] for c in cfg.deck]
    else:
        deck0 = cfg.card_points()
    prev: Sequence[bytes] = deck0
    src = list(range(m))  # deck index of the card in each position
    deck_ok = True
    rep.complete = True
    for relock in (False, True):
        msgs = relocks if relock else shuffles
        name = "relock" if relock else "shuffle"
        for j in range(n):
            if j not in msgs:
                rep.complete = False
                break
            out = msgs[j].points
            r = reveals[j]
            if len(out) != m:
                fail(Finding(j, name, f"{len(out)} points for {m} slots"))
                rep.complete = deck_ok = False
                break
            if j != self_seat or not deck_ok:
                inv_s = group.scalar_inv(r.shuffle_scalar) if relock else b""
                for i in range(m):
                    try:
                        if relock:
                            exp = group.mask(prev[i], group.scalar_mul(r.keys[i], inv_s))
                        else:
                            exp = group.mask(prev[r.perm[i]], r.shuffle_scalar)
                    except BadPoint:
                        # the input was bad; its author has already been named
                        deck_ok = False
                        break
                    if exp != out[i]:
                        what = (
                            f"slot {i} is not its input slot {i} re-locked"
                            if relock
                            else f"slot {i} is not input position {r.perm[i]} masked"
                        )
                        fail(Finding(j, name, what + " (substituted, duplicated or invalid)"))
                        deck_ok = False
                        break
            if not relock:
                src = [src[p] for p in r.perm]
            prev = out
        if not rep.complete:
            break
    rep.scalarmults = group.COUNTERS["scalarmult"] - before

    cards: tuple[int, ...] | None = None
    if rep.complete and deck_ok:
        cards = tuple(cfg.deck[s] for s in src)
        rep.slot_cards = cards
        for i, o in enumerate(cfg.layout):
            if o >= 0:
                rep.dealt.setdefault(o, []).append(cards[i])

    # -- 4. replay keys, opens and passes -------------------------------------
    def key_of(seat: int, slot: int) -> bytes:
        return reveals[seat].keys[slot]

    owner: list[int | None] = [o if o >= 0 else None for o in cfg.layout]
    public = [False] * m
    played = [False] * m
    pub: list[set[int]] = [set() for _ in range(m)]
    deal_from: set[int] = set()
    pass_count: dict[int, int] = {}
    for msg in rest:
        j = msg.sender
        t = type(msg)
        if t is Keys:
            assert isinstance(msg, Keys)
            slots = [i for i, _ in msg.keys]
            if msg.kind == "deal":
                if j in deal_from or tuple(slots) != cfg.deal_key_slots(j):
                    fail(Finding(j, "deal", "published deal keys for the wrong slots"))
                    continue
                deal_from.add(j)
            elif any(not 0 <= i < m or owner[i] is not None or public[i] for i in slots):
                fail(Finding(j, "reveal-stock", "published keys of slots not in the stock"))
                continue
            for i, k in msg.keys:
                if 0 <= i < m and k != key_of(j, i):
                    fail(Finding(j, msg.kind, f"published a wrong key for slot {i}"))
                elif 0 <= i < m:
                    pub[i].add(j)
            for i in slots:
                if 0 <= i < m and len(pub[i]) == n and owner[i] is None:
                    public[i] = True
            if msg.kind == "deal":
                for i in slots:
                    if cfg.layout[i] < 0 and len(pub[i]) == n:
                        public[i] = True
        elif t is Open:
            assert isinstance(msg, Open)
            ok = True
            for i, claim in msg.cards:
                # who may play a public card (a revealed kitty) is the engine's
                # business: assign() is local, so only face-down slots are checked
                if not 0 <= i < m or played[i] or (not public[i] and owner[i] != j):
                    fail(Finding(j, msg.kind, f"opened slot {i} which it did not hold"))
                    ok = False
                    continue
                if cards is not None and cards[i] != claim:
                    fail(
                        Finding(
                            j,
                            msg.kind,
                            f"claimed card {claim} for slot {i}, which holds card {cards[i]}",
                        )
                    )
                    ok = False
            for i, seat, k in msg.keys:
                if not 0 <= i < m or not 0 <= seat < n or k != key_of(seat, i):
                    fail(Finding(j, msg.kind, f"published a wrong key of seat {seat} for slot {i}"))
                    ok = False
            if not ok:
                continue
            for i, claim in msg.cards:
                public[i] = True
                pub[i] = set(range(n))
                if msg.kind == "play":
                    played[i] = True
                    owner[i] = None
                    rep.played.append((j, i, claim))
        elif t is Assign:
            assert isinstance(msg, Assign)
            for i in msg.slots:
                if 0 <= i < m and not played[i]:
                    owner[i] = j
        elif t is Pass:
            assert isinstance(msg, Pass)
            g, to = j, msg.to
            if (
                not 0 <= to < n
                or to == g
                or msg.index != pass_count.get(g, 0)
                or any(not 0 <= i < m or owner[i] != g or public[i] or played[i] for i in msg.slots)
            ):
                fail(Finding(g, "pass", "passed slots it did not hold face down, or out of order"))
                continue
            pass_count[g] = msg.index + 1
            try:
                key = sealed.pass_key(
                    reveals[to].box_sk,
                    commits[g].box_pk,
                    cfg.table_id,
                    cfg.round_no,
                    g,
                    to,
                    msg.index,
                )
                ad = sealed.pass_ad(cfg.table_id, cfg.round_no, g, to, msg.index, msg.slots)
                entries = sealed.unseal(key, ad, msg.box)
            except ValueError as exc:
                fail(Finding(g, "pass", f"pass {msg.index}: {exc}"))
                entries = []
            else:
                if [e[0] for e in entries] != list(msg.slots):
                    fail(Finding(g, "pass", f"pass {msg.index} box lists other slots"))
            by_slot = {e[0]: e for e in entries}
            for i in msg.slots:
                claimed = by_slot[i][1] if i in by_slot else None
                actual = cards[i] if cards is not None else None
                rep.passes.append(PassRecord(g, to, i, claimed, actual))
                if i not in by_slot:
                    continue
                keys = dict(by_slot[i][2])
                need = [s for s in range(n) if s not in pub[i]]
                if sorted(keys) != need or any(keys[s] != key_of(s, i) for s in need):
                    fail(Finding(g, "pass", f"pass of slot {i} carries wrong or missing keys"))
                elif actual is not None and claimed != actual:
                    fail(
                        Finding(
                            g, "pass", f"passed slot {i} as card {claimed}, it holds card {actual}"
                        )
                    )
            for i in msg.slots:
                owner[i] = to

    if cards is not None:
        for i in range(m):
            o = owner[i]
            if o is not None and not played[i]:
                rep.remaining.setdefault(o, []).append(cards[i])

    # -- 5. a stop without a fault ---------------------------------------------
    if reveal_order:
        rep.stopped_by, rep.stop_reason = reveal_order[0].sender, reveal_order[0].reason
    if not rep.findings:
        aborts = [r for r in reveal_order if r.is_abort]
        if aborts:
            first = aborts[0]
            fail(
                Finding(
                    first.sender,
                    "abort",
                    f"stopped the round ({first.reason!r}) but no fault was found",
                )
            )
        elif not rep.complete:
            fail(Finding(None, "incomplete", "the deal did not finish; no fault was found"))
    return rep
