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

Each step is one function (``_collect``, ``_check_reveals``, ``_check_deck``,
``_replay``, ``_check_stop``); ``audit_deal`` runs them in order. The first
finding names the culprit. An auditor may skip re-computing its own
shuffle and re-lock steps (``self_seat``): it made them itself.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from zsy_lan.deal import group, sealed
from zsy_lan.deal.deal_errors import BadPoint
from zsy_lan.deal.deck_setup import DealConfig, key_hash, shuffle_digest
from zsy_lan.deal.messages import Assign, Commit, Keys, Message, Open, Pass, Relock, Reveal, Shuffle


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
    """Audit a round from its deal messages (in transcript order).

    The five steps of the module docstring, one function each; a step runs
    only if the ones before it found nothing it depends on.
    """
    rep = AuditReport()
    before = group.COUNTERS["scalarmult"]
    msgs = _collect(cfg, transcript, rep)
    if rep.findings:
        return rep
    _check_reveals(cfg, msgs, rep)
    if rep.findings:
        return rep
    cards = _check_deck(cfg, msgs, rep, self_seat=self_seat, table=table)
    rep.scalarmults = group.COUNTERS["scalarmult"] - before
    _replay(cfg, msgs, cards, rep)
    _check_stop(msgs, rep)
    return rep


@dataclass
class _Messages:
    """The transcript sorted by step: one message per seat for steps 1-3 and 7, the rest."""

    commits: dict[int, Commit] = field(default_factory=dict)
    shuffles: dict[int, Shuffle] = field(default_factory=dict)
    relocks: dict[int, Relock] = field(default_factory=dict)
    reveals: dict[int, Reveal] = field(default_factory=dict)
    reveal_order: list[Reveal] = field(default_factory=list)
    rest: list[Message] = field(default_factory=list)


def _collect(cfg: DealConfig, transcript: Sequence[Message], rep: AuditReport) -> _Messages:
    """Step 1: one commitment and one reveal per seat, no second differing message for a step."""
    n = cfg.n_peers
    fail = rep.findings.append
    out = _Messages()
    per_seat: dict[type, dict[int, Any]] = {
        Commit: out.commits,
        Shuffle: out.shuffles,
        Relock: out.relocks,
        Reveal: out.reveals,
    }
    for msg in transcript:
        j = msg.sender
        if not 0 <= j < n:
            fail(Finding(None, "transcript", f"message from non-seat {j}"))
            continue
        t = type(msg)
        store = per_seat.get(t)
        if store is None:
            out.rest.append(msg)
            continue
        if j in store:
            if store[j] != msg:
                fail(Finding(j, t.__name__.lower(), "sent two different messages for one step"))
            continue
        store[j] = msg
        if isinstance(msg, Reveal):
            out.reveal_order.append(msg)
    for j in range(n):
        if j not in out.commits:
            fail(Finding(j, "commit", "sent no commitment"))
        if j not in out.reveals:
            fail(Finding(j, "reveal", "did not reveal its secrets"))
    return out


def _check_reveals(cfg: DealConfig, msgs: _Messages, rep: AuditReport) -> None:
    """Step 2: every reveal opens its commitment (scalar, permutation, nonce, keys, box key)."""
    m = cfg.n_slots
    fail = rep.findings.append
    for j in range(cfg.n_peers):
        c, r = msgs.commits[j], msgs.reveals[j]
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


def _check_deck(
    cfg: DealConfig,
    msgs: _Messages,
    rep: AuditReport,
    *,
    self_seat: int | None,
    table: dict[group.Point, int] | None,
) -> tuple[int, ...] | None:
    """Step 3: re-compute every shuffle and re-lock step; the card in each final slot.

    Each step is checked against the deck it received, so each fault is pinned
    on its author. Returns the card of every final slot (and fills ``dealt``),
    or ``None`` if the deal did not finish or a step was wrong.
    """
    n, m = cfg.n_peers, cfg.n_slots
    fail = rep.findings.append
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
        steps: dict[int, Shuffle] | dict[int, Relock] = msgs.relocks if relock else msgs.shuffles
        name = "relock" if relock else "shuffle"
        for j in range(n):
            if j not in steps:
                rep.complete = False
                break
            out = steps[j].points
            r = msgs.reveals[j]
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
    if not (rep.complete and deck_ok):
        return None
    cards = tuple(cfg.deck[s] for s in src)
    rep.slot_cards = cards
    for i, o in enumerate(cfg.layout):
        if o >= 0:
            rep.dealt.setdefault(o, []).append(cards[i])
    return cards


@dataclass
class _Board:
    """What the replay of step 4 knows about each slot so far."""

    cfg: DealConfig
    msgs: _Messages
    cards: tuple[int, ...] | None
    rep: AuditReport
    owner: list[int | None]
    public: list[bool]
    played: list[bool]
    pub: list[set[int]]  # seats whose key of the slot is public
    deal_from: set[int] = field(default_factory=set)
    pass_count: dict[int, int] = field(default_factory=dict)

    def key_of(self, seat: int, slot: int) -> bytes:
        return self.msgs.reveals[seat].keys[slot]

    def fail(self, finding: Finding) -> None:
        self.rep.findings.append(finding)


def _replay(
    cfg: DealConfig, msgs: _Messages, cards: tuple[int, ...] | None, rep: AuditReport
) -> None:
    """Step 4: replay keys, opens, assignments and passes in order; who holds what at the end."""
    m = cfg.n_slots
    board = _Board(
        cfg=cfg,
        msgs=msgs,
        cards=cards,
        rep=rep,
        owner=[o if o >= 0 else None for o in cfg.layout],
        public=[False] * m,
        played=[False] * m,
        pub=[set() for _ in range(m)],
    )
    for msg in msgs.rest:
        if isinstance(msg, Keys):
            _replay_keys(board, msg)
        elif isinstance(msg, Open):
            _replay_open(board, msg)
        elif isinstance(msg, Assign):
            for i in msg.slots:
                if 0 <= i < m and not board.played[i]:
                    board.owner[i] = msg.sender
        elif isinstance(msg, Pass):
            _replay_pass(board, msg)
    if cards is not None:
        for i in range(m):
            o = board.owner[i]
            if o is not None and not board.played[i]:
                rep.remaining.setdefault(o, []).append(cards[i])


def _replay_keys(b: _Board, msg: Keys) -> None:
    """Every published key equals the committed one, and only for slots it may publish."""
    j, n, m = msg.sender, b.cfg.n_peers, b.cfg.n_slots
    slots = [i for i, _ in msg.keys]
    if msg.kind == "deal":
        if j in b.deal_from or tuple(slots) != b.cfg.deal_key_slots(j):
            b.fail(Finding(j, "deal", "published deal keys for the wrong slots"))
            return
        b.deal_from.add(j)
    elif any(not 0 <= i < m or b.owner[i] is not None or b.public[i] for i in slots):
        b.fail(Finding(j, "reveal-stock", "published keys of slots not in the stock"))
        return
    for i, k in msg.keys:
        if 0 <= i < m and k != b.key_of(j, i):
            b.fail(Finding(j, msg.kind, f"published a wrong key for slot {i}"))
        elif 0 <= i < m:
            b.pub[i].add(j)
    for i in slots:
        if 0 <= i < m and len(b.pub[i]) == n and b.owner[i] is None:
            b.public[i] = True
    if msg.kind == "deal":
        for i in slots:
            if b.cfg.layout[i] < 0 and len(b.pub[i]) == n:
                b.public[i] = True


def _replay_open(b: _Board, msg: Open) -> None:
    """Every opened slot was held by its opener, and its claimed card is the card in it."""
    j, n, m, cards = msg.sender, b.cfg.n_peers, b.cfg.n_slots, b.cards
    ok = True
    for i, claim in msg.cards:
        # who may play a public card (a revealed kitty) is the engine's
        # business: assign() is local, so only face-down slots are checked
        if not 0 <= i < m or b.played[i] or (not b.public[i] and b.owner[i] != j):
            b.fail(Finding(j, msg.kind, f"opened slot {i} which it did not hold"))
            ok = False
            continue
        if cards is not None and cards[i] != claim:
            b.fail(
                Finding(
                    j,
                    msg.kind,
                    f"claimed card {claim} for slot {i}, which holds card {cards[i]}",
                )
            )
            ok = False
    for i, seat, k in msg.keys:
        if not 0 <= i < m or not 0 <= seat < n or k != b.key_of(seat, i):
            b.fail(Finding(j, msg.kind, f"published a wrong key of seat {seat} for slot {i}"))
            ok = False
    if not ok:
        return
    for i, claim in msg.cards:
        b.public[i] = True
        b.pub[i] = set(range(n))
        if msg.kind == "play":
            b.played[i] = True
            b.owner[i] = None
            b.rep.played.append((j, i, claim))


def _replay_pass(b: _Board, msg: Pass) -> None:
    """Every pass was made by the holder, decrypts, carries the right keys and the true card."""
    cfg, n, m, cards = b.cfg, b.cfg.n_peers, b.cfg.n_slots, b.cards
    g, to = msg.sender, msg.to
    if (
        not 0 <= to < n
        or to == g
        or msg.index != b.pass_count.get(g, 0)
        or any(not 0 <= i < m or b.owner[i] != g or b.public[i] or b.played[i] for i in msg.slots)
    ):
        b.fail(Finding(g, "pass", "passed slots it did not hold face down, or out of order"))
        return
    b.pass_count[g] = msg.index + 1
    try:
        key = sealed.pass_key(
            b.msgs.reveals[to].box_sk,
            b.msgs.commits[g].box_pk,
            cfg.table_id,
            cfg.round_no,
            g,
            to,
            msg.index,
        )
        ad = sealed.pass_ad(cfg.table_id, cfg.round_no, g, to, msg.index, msg.slots)
        entries = sealed.unseal(key, ad, msg.box)
    except ValueError as exc:
        b.fail(Finding(g, "pass", f"pass {msg.index}: {exc}"))
        entries = []
    else:
        if [e[0] for e in entries] != list(msg.slots):
            b.fail(Finding(g, "pass", f"pass {msg.index} box lists other slots"))
    by_slot = {e[0]: e for e in entries}
    for i in msg.slots:
        claimed = by_slot[i][1] if i in by_slot else None
        actual = cards[i] if cards is not None else None
        b.rep.passes.append(PassRecord(g, to, i, claimed, actual))
        if i not in by_slot:
            continue
        keys = dict(by_slot[i][2])
        need = [s for s in range(n) if s not in b.pub[i]]
        if sorted(keys) != need or any(keys[s] != b.key_of(s, i) for s in need):
            b.fail(Finding(g, "pass", f"pass of slot {i} carries wrong or missing keys"))
        elif actual is not None and claimed != actual:
            b.fail(Finding(g, "pass", f"passed slot {i} as card {claimed}, it holds card {actual}"))
    for i in msg.slots:
        b.owner[i] = to


def _check_stop(msgs: _Messages, rep: AuditReport) -> None:
    """Step 5: who stopped the round; a stop (or an unfinished deal) without a fault is named."""
    order = msgs.reveal_order
    if order:
        rep.stopped_by, rep.stop_reason = order[0].sender, order[0].reason
    if rep.findings:
        return
    aborts = [r for r in order if r.is_abort]
    if aborts:
        first = aborts[0]
        rep.findings.append(
            Finding(
                first.sender,
                "abort",
                f"stopped the round ({first.reason!r}) but no fault was found",
            )
        )
    elif not rep.complete:
        rep.findings.append(
            Finding(None, "incomplete", "the deal did not finish; no fault was found")
        )
