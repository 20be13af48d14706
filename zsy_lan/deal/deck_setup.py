"""What every peer sets up before the private deal: the agreed config, the card points,
a seat's secrets and the hashes its commitment binds, and the pure deck steps.

Why apart from :mod:`.mental`: the audit re-computes every commitment and every
step from these alone, and :class:`.mental.DealPeer` runs the audit at the end;
with them here both import this module and neither imports the other. The
prefetches (card points, seat 0's first shuffle) live here too, since a table
starts them a deal ahead, before any ``DealPeer`` exists.
"""

from __future__ import annotations

import functools
import hashlib
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any

from zsy_lan.deal import group, sealed
from zsy_lan.deal.group import Point, Scalar, hash_parts
from zsy_lan.deal.messages import Commit

#: layout value: the slot stays face down with nobody (a stock, e.g. Dou Dizhu's kitty)
STOCK = -1
#: layout value: the slot is opened to everyone at the deal
FACE_UP = -2
#: seat value of a peer that holds no seat (``zsy replay``, a spectator): it has no
#: secrets, checks everything public and learns every card at the audit
OBSERVER = -1

Rand = Callable[[int], bytes]


@dataclass(frozen=True)
class DealConfig:
    """Everything the peers agree on before the deal (from the lobby and the ruleset).

    ``deck``: card ids in canonical order (the order of D_0);
    ``layout[i]``: who gets final slot i: a seat, ``STOCK`` or ``FACE_UP``.
    """

    table_id: bytes
    round_no: int
    n_peers: int
    deck: tuple[int, ...]
    layout: tuple[int, ...]

    def __post_init__(self) -> None:
        if isinstance(self.table_id, str):
            object.__setattr__(self, "table_id", self.table_id.encode("utf-8"))
        object.__setattr__(self, "deck", tuple(self.deck))
        object.__setattr__(self, "layout", tuple(self.layout))
        if not isinstance(self.table_id, bytes) or not self.table_id:
            raise ValueError("table_id must be non-empty bytes or str")
        if type(self.round_no) is not int or self.round_no < 0:
            raise ValueError("round_no must be a non-negative int")
        if not 2 <= self.n_peers <= 16:
            raise ValueError("n_peers must be in 2..16")
        if not 1 <= len(self.deck) <= 1024:
            raise ValueError("the deck must have 1..1024 cards")
        if any(type(c) is not int or not 0 <= c < 65536 for c in self.deck):
            raise ValueError("card ids must be ints in 0..65535")
        if len(set(self.deck)) != len(self.deck):
            raise ValueError("card ids must be distinct")
        if len(self.layout) != len(self.deck):
            raise ValueError("layout must have one entry per slot")
        if any(v not in (STOCK, FACE_UP) and not 0 <= v < self.n_peers for v in self.layout):
            raise ValueError("layout entries must be seats, STOCK or FACE_UP")

    @property
    def n_slots(self) -> int:
        return len(self.deck)

    def deal_key_slots(self, seat: int) -> tuple[int, ...]:
        """Slots for which ``seat`` publishes its key at the deal."""
        return tuple(i for i, o in enumerate(self.layout) if o not in (seat, STOCK))

    def card_points(self) -> list[Point]:
        """The card points of this deal (prefetched by :func:`prefetch_card_points` or made now)."""
        key = (self.table_id, self.round_no, self.deck)
        with _prefetch_lock:
            ahead = _prefetched.pop(key, None)
        if ahead is not None:
            return list(ahead.result())
        return _card_points(*key)


def _card_points(table_id: bytes, round_no: int, deck: tuple[int, ...]) -> list[Point]:
    return [group.card_point(table_id, round_no, c) for c in deck]


_prefetched: dict[tuple[bytes, int, tuple[int, ...]], Future[list[Point]]] = {}
_prefetch_lock = threading.Lock()
_PREFETCH_KEEP = 4  # deals' worth of prefetched points kept at most


def _keep_newest(ahead: dict[Any, Any]) -> None:
    """Drop the oldest prefetches beyond ``_PREFETCH_KEEP`` (caller holds the lock)."""
    while len(ahead) > _PREFETCH_KEEP:
        del ahead[next(iter(ahead))]


def prefetch_card_points(table_id: bytes | str, round_no: int, deck: Sequence[int]) -> None:
    """Start computing a later deal's card points on a background thread.

    They depend only on the table, the deal number and the deck, all known a
    deal ahead, and are the costliest part of setting up a deal (one
    ``from_uniform`` per card, 3-5 ms per peer) on every peer at once, right
    before its commitment can go out. :meth:`DealConfig.card_points` takes
    them (the same points either way).
    """
    tid = table_id.encode("utf-8") if isinstance(table_id, str) else bytes(table_id)
    key = (tid, int(round_no), tuple(deck))
    with _prefetch_lock:
        if key in _prefetched:
            return
        _prefetched[key] = group.in_background(lambda: _card_points(*key))
        _keep_newest(_prefetched)


def draw_secrets(
    m: int, rand: Rand
) -> tuple[Scalar, tuple[int, ...], bytes, list[Scalar], bytes, bytes]:
    """A seat's secrets for one deal of ``m`` slots, drawn from ``rand`` in a fixed order:
    shuffle scalar, permutation, nonce, the ``m`` re-lock keys, the X25519 key pair."""
    s = group.random_scalar(rand)
    perm = group.random_permutation(m, rand)
    nonce = rand(32)
    keys = [group.random_scalar(rand) for _ in range(m)]
    box_sk, box_pk = sealed.box_keypair(rand)
    return s, perm, nonce, keys, box_sk, box_pk


def commitment(
    cfg: DealConfig,
    seat: int,
    s: bytes,
    perm: Sequence[int],
    nonce: bytes,
    keys: Sequence[bytes],
    box_pk: bytes,
) -> Commit:
    """The ``Commit`` that binds these secrets (step 1), as ``DealPeer.commit_message`` sends."""
    return Commit(
        sender=seat,
        shuffle_digest=shuffle_digest(cfg, seat, s, perm, nonce),
        key_hashes=tuple(key_hash(cfg, seat, i, k) for i, k in enumerate(keys)),
        box_pk=box_pk,
    )


def commitment_for(cfg: DealConfig, seat: int, rand: Rand) -> Commit:
    """The commitment ``DealPeer(cfg, seat, rand=rand)`` makes, without setting up the deal.

    A commitment reads only the table, the deal number and the deck size from
    ``cfg`` (never the layout, which waits for the deal's seed), and the
    secrets are drawn from ``rand`` in the order :class:`DealPeer` draws them:
    so a table can send it a deal ahead, inside the previous deal's reveal.
    """
    s, perm, nonce, keys, _, box_pk = draw_secrets(cfg.n_slots, rand)
    return commitment(cfg, seat, s, perm, nonce, keys, box_pk)


_Ahead = tuple[bytes, tuple[int, ...], list[Point]]  # (scalar, permutation, first shuffle)
_prefetched_shuffles: dict[tuple[bytes, int, tuple[int, ...]], Future[_Ahead]] = {}


def prefetch_first_shuffle(
    table_id: bytes | str, round_no: int, deck: Sequence[int], rand: Rand
) -> None:
    """Seat 0: compute a later deal's first shuffle now, on the background thread.

    It depends only on that deal's card points and seat 0's secrets (drawn
    from ``rand`` as :class:`DealPeer` draws them), not on the seed, so a table
    computes it while the players think; it still goes out only once every
    commitment is in. One thread: nothing waits on it yet. A ``DealPeer`` for
    that deal uses it only if its own scalar and permutation are the same.
    """
    tid = table_id.encode("utf-8") if isinstance(table_id, str) else bytes(table_id)
    key = (tid, int(round_no), tuple(deck))

    def work() -> _Ahead:
        with _prefetch_lock:
            points_ahead = _prefetched.get(key)  # left for DealConfig.card_points to take
        points = list(points_ahead.result()) if points_ahead else _card_points(*key)
        s, perm, *_ = draw_secrets(len(key[2]), rand)
        return s, perm, [group.mask(points[i], s) for i in perm]

    with _prefetch_lock:
        if key in _prefetched_shuffles:
            return
        _prefetched_shuffles[key] = group.in_background(work)
        _keep_newest(_prefetched_shuffles)


def take_first_shuffle(cfg: DealConfig) -> Future[_Ahead] | None:
    """The first shuffle :func:`prefetch_first_shuffle` started for this deal (taken once)."""
    with _prefetch_lock:
        return _prefetched_shuffles.pop((cfg.table_id, cfg.round_no, cfg.deck), None)


def perm_bytes(perm: Sequence[int]) -> bytes:
    """A permutation as the bytes its commitment hashes (two bytes per slot)."""
    return b"".join(int(x).to_bytes(2, "big") for x in perm)


def shuffle_digest(
    cfg: DealConfig, seat: int, s: bytes, perm: Sequence[int], nonce: bytes
) -> bytes:
    """The hash a commitment binds a seat's shuffle scalar and permutation with."""
    return hash_parts(
        b"zsy-deal-shuffle", cfg.table_id, cfg.round_no, seat, nonce, s, perm_bytes(perm)
    )


def key_hash(cfg: DealConfig, seat: int, slot: int, key: bytes) -> bytes:
    """``hash_parts(b"zsy-deal-key", table_id, round_no, seat, slot, key)``.

    Hot (every published key is checked against it, the audit checks them
    all): the constant prefix is encoded once per deal.
    """
    if type(seat) is not int or type(slot) is not int or seat < 0 or slot < 0:
        return hash_parts(b"zsy-deal-key", cfg.table_id, cfg.round_no, seat, slot, key)
    key = bytes(key)
    return hashlib.sha256(
        _key_prefix(cfg.table_id, cfg.round_no)
        + seat.to_bytes(8, "big")
        + _EIGHT
        + slot.to_bytes(8, "big")
        + len(key).to_bytes(4, "big")
        + key
    ).digest()


_EIGHT = (8).to_bytes(4, "big")


@functools.lru_cache(maxsize=32)
def _key_prefix(table_id: bytes, round_no: int) -> bytes:
    """``encode_parts`` of the key hash up to the seat's length prefix."""
    return group.encode_parts(b"zsy-deal-key", table_id, round_no) + _EIGHT


def shuffle_step(
    points: Sequence[bytes], s: bytes, perm: Sequence[int], *, sender: int | None
) -> list[Point]:
    """``out[i] = s * points[perm[i]]``; a bad input point names ``sender``."""
    return group.mask_each([points[p] for p in perm], [s] * len(perm), sender=sender)


def relock_step(
    points: Sequence[bytes], s: bytes, keys: Sequence[bytes], *, sender: int | None
) -> list[Point]:
    """``out[i] = (keys[i] / s) * points[i]``."""
    inv_s = group.scalar_inv(s)
    mul = group.scalar_mul
    if len(points) != len(keys):
        raise ValueError("one key per point")
    return group.mask_each(points, [mul(k, inv_s) for k in keys], sender=sender)
