"""Messages of the private deal, with canonical JSON-able bodies.

Each message is a frozen dataclass with a ``TYPE`` (the envelope's type
field) and ``to_body()``, a dict of ints, strings (lowercase hex for points,
scalars and bytes) and lists, with no floats. ``from_body(TYPE, body)``
parses strictly and raises ``MalformedMessage`` naming the sender seat given
by the envelope. ``encode(msg)`` is the canonical byte form (sorted keys, no
whitespace), used for logs and the privacy tests.

The network layer carries ``(TYPE, to_body())`` in its signed envelope and
must check that ``body["sender"]`` equals the envelope's sender seat.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, ClassVar

from zsy_lan.deal.deal_errors import MalformedMessage

MAX_SEATS = 16
MAX_SLOTS = 1024
MAX_REASON = 200

_HEX = re.compile(r"\A(?:[0-9a-f]{2})*\Z")


def _hex(b: bytes) -> str:
    return b.hex()


class _Parser:
    def __init__(self, body: object, sender: int | None, mtype: str) -> None:
        self.sender = sender
        self.mtype = mtype
        if not isinstance(body, dict):
            self.fail("body is not an object")
        self.body: dict[str, Any] = body  # type: ignore[assignment]

    def fail(self, why: str) -> None:
        raise MalformedMessage(f"{self.mtype}: {why}", culprit=self.sender, step="parse")

    def keys(self, *names: str) -> None:
        if set(self.body) != set(names):
            self.fail(f"fields {sorted(self.body)} != {sorted(names)}")

    def int_(self, v: object, lo: int, hi: int, what: str) -> int:
        if type(v) is not int or not lo <= v <= hi:
            self.fail(f"{what} is not an integer in [{lo}, {hi}]")
        assert isinstance(v, int)
        return v

    def bytes_(
        self, v: object, what: str, size: int | None = None, max_size: int = 1 << 16
    ) -> bytes:
        if not isinstance(v, str) or not _HEX.match(v) or len(v) > 2 * max_size:
            self.fail(f"{what} is not lowercase hex")
        assert isinstance(v, str)
        b = bytes.fromhex(v)
        if size is not None and len(b) != size:
            self.fail(f"{what} has {len(b)} bytes, not {size}")
        return b

    def hex_list(
        self, v: object, what: str, item: str, size: int, max_len: int = MAX_SLOTS
    ) -> tuple[bytes, ...]:
        """A list of lowercase hex strings of ``size`` bytes each, parsed in one pass.

        Exactly as strict as ``bytes_`` on each item (a failure re-runs the
        per-item check for its precise message); decks of 54 or 108 points
        are parsed once per message, so the bulk path matters.
        """
        return self.hex_each(self.list_(v, what, max_len), item, size)

    def hex_each(self, items: list[Any], item: str, size: int) -> tuple[bytes, ...]:
        """``bytes_(x, item, size)`` for every x of ``items``, in one pass when all are fine."""
        width = 2 * size
        if all(type(x) is str and len(x) == width for x in items):
            joined = "".join(items)
            try:
                raw = bytes.fromhex(joined)
            except ValueError:
                raw = b""
            # fromhex takes upper case and skips spaces: refuse both (as _HEX does)
            if 2 * len(raw) == len(joined) and joined == joined.lower():
                return tuple(raw[i : i + size] for i in range(0, len(raw), size))
        return tuple(self.bytes_(x, item, size) for x in items)

    def list_(self, v: object, what: str, max_len: int = MAX_SLOTS) -> list[Any]:
        if not isinstance(v, list) or len(v) > max_len:
            self.fail(f"{what} is not a list of at most {max_len} items")
        assert isinstance(v, list)
        return v

    def seat(self, v: object, what: str = "seat") -> int:
        return self.int_(v, 0, MAX_SEATS - 1, what)

    def slot(self, v: object, what: str = "slot") -> int:
        return self.int_(v, 0, MAX_SLOTS - 1, what)

    def str_(self, v: object, what: str, choices: tuple[str, ...] | None = None) -> str:
        if not isinstance(v, str) or len(v) > MAX_REASON:
            self.fail(f"{what} is not a short string")
        assert isinstance(v, str)
        if choices is not None and v not in choices:
            self.fail(f"{what} is not one of {choices}")
        return v

    def increasing(self, values: list[int], what: str) -> None:
        if any(a >= b for a, b in zip(values, values[1:], strict=False)):
            self.fail(f"{what} are not strictly increasing")


@dataclass(frozen=True)
class Commit:
    """Step 1, from every peer before the deck moves.

    ``shuffle_digest`` commits to (shuffle scalar, permutation, nonce);
    ``key_hashes[i]`` commits to the re-lock key of slot i; ``box_pk`` is this
    round's X25519 public key (for face-down passes).
    """

    TYPE: ClassVar[str] = "deal.commit"
    sender: int
    shuffle_digest: bytes
    key_hashes: tuple[bytes, ...]
    box_pk: bytes

    def to_body(self) -> dict[str, Any]:
        return {
            "sender": self.sender,
            "shuffle_digest": _hex(self.shuffle_digest),
            "key_hashes": [_hex(h) for h in self.key_hashes],
            "box_pk": _hex(self.box_pk),
        }

    @classmethod
    def parse(cls, p: _Parser) -> Commit:
        p.keys("sender", "shuffle_digest", "key_hashes", "box_pk")
        return cls(
            sender=p.seat(p.body["sender"], "sender"),
            shuffle_digest=p.bytes_(p.body["shuffle_digest"], "shuffle_digest", 32),
            key_hashes=p.hex_list(p.body["key_hashes"], "key_hashes", "key hash", 32),
            box_pk=p.bytes_(p.body["box_pk"], "box_pk", 32),
        )


@dataclass(frozen=True)
class Shuffle:
    """Step 2: the sender's masked and permuted deck (seat order 0..n-1)."""

    TYPE: ClassVar[str] = "deal.shuffle"
    sender: int
    points: tuple[bytes, ...]

    def to_body(self) -> dict[str, Any]:
        return {"sender": self.sender, "points": [_hex(x) for x in self.points]}

    @classmethod
    def parse(cls, p: _Parser) -> Shuffle:
        p.keys("sender", "points")
        return cls(
            sender=p.seat(p.body["sender"], "sender"),
            points=p.hex_list(p.body["points"], "points", "point", 32),
        )


@dataclass(frozen=True)
class Relock(Shuffle):
    """Step 3: the deck with the sender's shuffle mask replaced by per-slot keys."""

    TYPE: ClassVar[str] = "deal.relock"


@dataclass(frozen=True)
class Keys:
    """Published re-lock keys: ``kind="deal"`` for every slot dealt to another
    seat or face up (step 4); ``kind="reveal"`` to open stock slots to all."""

    TYPE: ClassVar[str] = "deal.keys"
    sender: int
    kind: str
    keys: tuple[tuple[int, bytes], ...]  # (slot, key), slots increasing

    def to_body(self) -> dict[str, Any]:
        return {
            "sender": self.sender,
            "kind": self.kind,
            "keys": [[slot, _hex(k)] for slot, k in self.keys],
        }

    @classmethod
    def parse(cls, p: _Parser) -> Keys:
        p.keys("sender", "kind", "keys")
        items = p.list_(p.body["keys"], "keys")
        if all(
            type(it) is list and len(it) == 2 and type(it[0]) is int and 0 <= it[0] < MAX_SLOTS
            for it in items
        ):
            slots, hexes = [it[0] for it in items], [it[1] for it in items]
        else:  # the same checks one by one, for the precise complaint
            slots, hexes = [], []
            for item in items:
                it = p.list_(item, "key entry", 2)
                if len(it) != 2:
                    p.fail("key entry is not [slot, key]")
                slots.append(p.slot(it[0]))
                hexes.append(it[1])
        keys = p.hex_each(hexes, "key", 32)
        p.increasing(slots, "key slots")
        return cls(
            sender=p.seat(p.body["sender"], "sender"),
            kind=p.str_(p.body["kind"], "kind", ("deal", "reveal")),
            keys=tuple(zip(slots, keys, strict=True)),
        )


@dataclass(frozen=True)
class Open:
    """Step 5: the owner opens slots to everyone, claiming their cards.

    ``kind="play"`` removes the slots from the hand, ``"show"`` keeps them
    (face up: the start card's proof, a face-up tribute). ``keys`` holds every
    key of those slots that is not public yet, as (slot, seat of the key, key).
    """

    TYPE: ClassVar[str] = "deal.open"
    sender: int
    kind: str
    cards: tuple[tuple[int, int], ...]  # (slot, claimed card id), slots increasing
    keys: tuple[tuple[int, int, bytes], ...]  # (slot, seat, key), sorted

    def to_body(self) -> dict[str, Any]:
        return {
            "sender": self.sender,
            "kind": self.kind,
            "cards": [[s, c] for s, c in self.cards],
            "keys": [[s, seat, _hex(k)] for s, seat, k in self.keys],
        }

    @classmethod
    def parse(cls, p: _Parser) -> Open:
        p.keys("sender", "kind", "cards", "keys")
        cards = []
        for item in p.list_(p.body["cards"], "cards"):
            it = p.list_(item, "card entry", 2)
            if len(it) != 2:
                p.fail("card entry is not [slot, card]")
            cards.append((p.slot(it[0]), p.int_(it[1], 0, 65535, "card")))
        p.increasing([s for s, _ in cards], "card slots")
        keys = []
        for item in p.list_(p.body["keys"], "keys"):
            it = p.list_(item, "key entry", 3)
            if len(it) != 3:
                p.fail("key entry is not [slot, seat, key]")
            keys.append((p.slot(it[0]), p.seat(it[1]), p.bytes_(it[2], "key", 32)))
        if keys != sorted(keys) or len({(s, t) for s, t, _ in keys}) != len(keys):
            p.fail("keys are not sorted and unique")
        return cls(
            sender=p.seat(p.body["sender"], "sender"),
            kind=p.str_(p.body["kind"], "kind", ("play", "show")),
            cards=tuple(cards),
            keys=tuple(keys),
        )


@dataclass(frozen=True)
class Pass:
    """Step 6: face-down pass of slots to seat ``to``.

    Everyone learns that the slots changed hands; ``box`` (ChaCha20-Poly1305
    under a key derived from X25519(sender, to)) carries the claimed cards and
    the keys the receiver needs, for the receiver only. ``index`` counts the
    sender's passes in this round (0, 1, ...).
    """

    TYPE: ClassVar[str] = "deal.pass"
    sender: int
    to: int
    index: int
    slots: tuple[int, ...]
    box: bytes

    def to_body(self) -> dict[str, Any]:
        return {
            "sender": self.sender,
            "to": self.to,
            "index": self.index,
            "slots": list(self.slots),
            "box": _hex(self.box),
        }

    @classmethod
    def parse(cls, p: _Parser) -> Pass:
        p.keys("sender", "to", "index", "slots", "box")
        slots = [p.slot(s) for s in p.list_(p.body["slots"], "slots")]
        p.increasing(slots, "slots")
        return cls(
            sender=p.seat(p.body["sender"], "sender"),
            to=p.seat(p.body["to"], "to"),
            index=p.int_(p.body["index"], 0, 1 << 16, "index"),
            slots=tuple(slots),
            box=p.bytes_(p.body["box"], "box"),
        )


@dataclass(frozen=True)
class Reveal:
    """Step 7: all of the sender's secrets of the round, for the audit.

    ``reason`` is ``"end"`` at the end of a round, ``"reply"`` when answering
    another peer's reveal, and ``"abort: ..."`` when the sender stops the round
    (it saw something wrong, or refuses to go on).
    """

    TYPE: ClassVar[str] = "deal.reveal"
    sender: int
    reason: str
    shuffle_scalar: bytes
    perm: tuple[int, ...]
    nonce: bytes
    keys: tuple[bytes, ...]
    box_sk: bytes

    def to_body(self) -> dict[str, Any]:
        return {
            "sender": self.sender,
            "reason": self.reason,
            "shuffle_scalar": _hex(self.shuffle_scalar),
            "perm": list(self.perm),
            "nonce": _hex(self.nonce),
            "keys": [_hex(k) for k in self.keys],
            "box_sk": _hex(self.box_sk),
        }

    @property
    def is_abort(self) -> bool:
        return self.reason.startswith("abort")

    @classmethod
    def parse(cls, p: _Parser) -> Reveal:
        p.keys("sender", "reason", "shuffle_scalar", "perm", "nonce", "keys", "box_sk")
        return cls(
            sender=p.seat(p.body["sender"], "sender"),
            reason=p.str_(p.body["reason"], "reason"),
            shuffle_scalar=p.bytes_(p.body["shuffle_scalar"], "shuffle_scalar", 32),
            perm=tuple(p.slot(x, "perm entry") for x in p.list_(p.body["perm"], "perm")),
            nonce=p.bytes_(p.body["nonce"], "nonce", 32),
            keys=p.hex_list(p.body["keys"], "keys", "key", 32),
            box_sk=p.bytes_(p.body["box_sk"], "box_sk", 32),
        )


@dataclass(frozen=True)
class Assign:
    """Not a wire message: a note in a peer's own deal transcript that a rule of
    the game handed ``slots`` to seat ``sender`` (a kitty to the landlord, a
    face-up tribute to its receiver). Every peer records it alike, at the same
    point, so the audit can follow each slot to its holder."""

    TYPE: ClassVar[str] = "deal.assign"
    sender: int
    slots: tuple[int, ...]


Message = Commit | Shuffle | Relock | Keys | Open | Pass | Reveal | Assign

MESSAGE_TYPES: dict[str, type] = {
    cls.TYPE: cls for cls in (Commit, Shuffle, Relock, Keys, Open, Pass, Reveal)
}


def from_body(mtype: str, body: object, *, sender: int | None = None) -> Message:
    """Parse a message body strictly; ``sender`` is the envelope's seat (for blame)."""
    cls = MESSAGE_TYPES.get(mtype)
    if cls is None:
        raise MalformedMessage(f"unknown deal message type {mtype!r}", culprit=sender, step="parse")
    msg = cls.parse(_Parser(body, sender, mtype))
    if sender is not None and msg.sender != sender:
        raise MalformedMessage(
            f"body sender {msg.sender} differs from envelope sender", culprit=sender, step="parse"
        )
    return msg


def encode(msg: Message) -> bytes:
    """Canonical bytes of a message (type and body)."""
    return json.dumps(
        {"type": msg.TYPE, "body": msg.to_body()},
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=True,
    ).encode("ascii")


def decode(data: bytes, *, sender: int | None = None) -> Message:
    """Inverse of ``encode``, strict: only the exact bytes ``encode`` makes are accepted."""
    try:
        obj = json.loads(data)
    except (ValueError, UnicodeDecodeError) as exc:
        raise MalformedMessage("not JSON", culprit=sender, step="parse") from exc
    if (
        not isinstance(obj, dict)
        or set(obj) != {"type", "body"}
        or not isinstance(obj["type"], str)
    ):
        raise MalformedMessage("not a deal message", culprit=sender, step="parse")
    msg = from_body(obj["type"], obj["body"], sender=sender)
    # strict like the protocol's decode: one message, one accepted byte form
    if encode(msg) != data:
        raise MalformedMessage("not in canonical form", culprit=sender, step="parse")
    return msg
