"""The values the state machines pass around: actions, round and match states.

All frozen dataclasses holding only ints, strings, tuples and ``None``, so a
state is hashable, cheap to copy with :func:`dataclasses.replace`, and has one
canonical JSON form (:func:`round_to_json` / :func:`round_from_json`).

A hand is a sorted tuple of card ids, or ``None`` when this replica does not
know it (a seat's own view, or a peer in the private deal): only the count in
``counts`` is known then.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any, NamedTuple, TypeVar

from .canonical import PLAIN_TYPES
from .combos import Combo
from .errors import MalformedAction

Hand = tuple[int, ...]
T = TypeVar("T")

# Action kinds of the base game; variant plugins add their own (``bid``, ``double``).
PLAY = "play"
PASS = "pass"
GIVE = "give"
RETURN = "return"


class Action(NamedTuple):
    """One thing a seat does (a NamedTuple: built on every decision, so it must be cheap).

    ``cards`` are the cards played or handed over; ``value`` carries numbers
    (a bid, a doubling choice). A face-down ``return`` seen by someone who may
    not see it has ``hidden=True``, no cards and ``value`` = how many cards.
    """

    kind: str
    seat: int
    cards: tuple[int, ...] = ()
    value: int = 0
    hidden: bool = False

    def to_json(self) -> dict[str, Any]:
        """Canonical JSON form (only non-default fields besides kind and seat)."""
        out: dict[str, Any] = {"kind": self.kind, "seat": self.seat}
        if self.cards:
            out["cards"] = list(self.cards)
        if self.value:
            out["value"] = self.value
        if self.hidden:
            out["hidden"] = True
        return out

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Action:  # noqa: D102
        """Parse the JSON form; raises ``MalformedAction`` (a ValueError) if malformed."""
        if not isinstance(data, dict):
            raise MalformedAction("an action is a JSON object")
        unknown = set(data) - {"kind", "seat", "cards", "value", "hidden"}
        if unknown:
            raise MalformedAction(f"unknown action field(s): {', '.join(sorted(unknown))}")
        kind, seat = data.get("kind"), data.get("seat")
        cards = data.get("cards", [])
        value = data.get("value", 0)
        hidden = data.get("hidden", False)
        if not isinstance(kind, str) or not kind:
            raise MalformedAction("action 'kind' must be a non-empty string")
        if not _is_int(seat) or seat < 0:
            raise MalformedAction("action 'seat' must be a non-negative integer")
        if not isinstance(cards, list) or not all(_is_int(c) and 0 <= c < 108 for c in cards):
            raise MalformedAction("action 'cards' must be a list of card ids 0..107")
        if not _is_int(value):
            raise MalformedAction("action 'value' must be an integer")
        if not isinstance(hidden, bool):
            raise MalformedAction("action 'hidden' must be true or false")
        return cls(kind, seat, tuple(cards), value, hidden)


def _is_int(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


@dataclass(frozen=True)
class Duty:
    """A pending tribute step (ZSY-7): ``giver`` hands ``n`` cards to ``receiver``.

    ``kind`` is ``give`` (face up, the highest natural cards) or ``return``
    (face down, any cards of the giver's choice).
    """

    kind: str
    giver: int
    receiver: int
    n: int


@dataclass(frozen=True)
class RoundState:
    """One round (hand) of a match.

    ``phase`` is ``tribute``, ``play`` or ``done`` (variants add phases such as
    ``bidding``). ``trick`` holds the play to beat (``None`` when the next
    play leads); ``seat_last`` is each seat's last move in the current trick
    (``None`` nothing yet, ``()`` passed). ``first_out`` freezes the hands,
    counts and play counts when the Upstream went out (ZSY-8.4).

    ``log`` is the round's public play log: one ``(seat, cards)`` per play or
    pass of the play phase, in order (``()`` for a pass), kept by the round
    machine. It lets a bot infer hidden hands from who passed or played what
    in earlier tricks while still deciding from the view alone (a seat taken
    over mid-round sees the same log). It is derived from the actions, so it
    is left out of equality, of the canonical JSON (:func:`round_to_json`,
    :func:`public_json`) and so of every state and public hash: records and
    golden replays of earlier versions verify unchanged, and peers of the
    version before it still agree on every hash. ``round_to_json(...,
    log=True)`` adds it where a reader wants it (the stdio bot protocol).
    """

    players: int
    round_no: int
    dealer: int
    phase: str
    hands: tuple[Hand | None, ...]
    counts: tuple[int, ...]
    turn: int
    leader: int
    trick: Hand | None = None
    trick_seat: int = -1
    trick_combo: Combo | None = None
    passes: int = 0
    seat_last: tuple[Hand | None, ...] = ()
    finished: tuple[int, ...] = ()
    plays_made: tuple[int, ...] = ()
    played: Hand = ()
    must_contain: int | None = None
    duties: tuple[Duty, ...] = ()
    tribute_log: tuple[tuple[int, int, Hand | None, int], ...] = ()
    first_out_hands: tuple[Hand | None, ...] | None = None
    first_out_counts: tuple[int, ...] | None = None
    first_out_plays: tuple[int, ...] | None = None
    extra: tuple[tuple[str, Any], ...] = ()
    log: tuple[tuple[int, Hand], ...] = field(default=(), compare=False)

    def get(self, key: str, default: Any = None) -> Any:
        """A variant's extra field (``extra`` is a sorted tuple of pairs)."""
        for k, v in self.extra:
            if k == key:
                return v
        return default

    @property
    def active(self) -> tuple[int, ...]:
        """Seats still holding cards, in seat order."""
        finished = self.finished
        if not finished:
            return tuple(range(self.players))
        return tuple([s for s in range(self.players) if s not in finished])


def evolve(state: T, **changes: Any) -> T:
    """A copy of a frozen state with ``changes``: :func:`dataclasses.replace` without its cost.

    ``replace`` re-runs ``__init__`` (about 15 µs for this many fields); the
    state machines make several copies per action, so this copies the instance
    dict instead. Only for classes without ``__post_init__`` (the states).

    Like ``replace`` it refuses a field the class does not have: a misspelled
    name would otherwise add an attribute no hash or JSON form ever sees, and
    the intended field would silently keep its old value.
    """
    d = state.__dict__.copy()  # dict.copy() is the cheapest way to copy the fields
    if not changes.keys() <= d.keys():
        unknown = ", ".join(sorted(changes.keys() - d.keys()))
        raise TypeError(f"{type(state).__name__} has no field {unknown}")
    d.update(changes)
    new = _new(type(state))
    _setattr(new, "__dict__", d)
    return new


def fresh_copy(state: T) -> tuple[T, dict[str, Any]]:
    """A copy of ``state`` and its field dict, for hot paths that set many fields.

    Set fields by assigning into the dict *before* the copy escapes (it is a
    frozen value afterwards); cheaper than :func:`evolve` with many keywords.
    """
    d = state.__dict__.copy()
    new = _new(type(state))
    _setattr(new, "__dict__", d)
    return new, d


_new = object.__new__
_setattr = object.__setattr__


def with_extra(state: RoundState, **updates: Any) -> RoundState:
    """A copy of ``state`` with variant extra fields set (kept sorted, canonical)."""
    merged = dict(state.extra)
    merged.update(updates)
    return evolve(state, extra=tuple(sorted(merged.items())))


def _freeze(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(_freeze(v) for v in value)
    return value


def _thaw(value: Any, flat_ok: bool = False) -> Any:
    """JSON form of a frozen value; ``flat_ok`` keeps flat tuples as they are.

    A tuple of plain values encodes to the same canonical bytes as the list,
    so hashing (:func:`public_json` with ``for_hash``) skips the copies.
    """
    t = type(value)
    if t is tuple:
        if flat_ok and all(type(v) in PLAIN_TYPES for v in value):
            return value
        return [_thaw(v, flat_ok) for v in value]
    if t in PLAIN_TYPES:
        return value
    if isinstance(value, Combo):
        return [value.kind, value.length, value.key]
    if isinstance(value, Duty):
        return {"kind": value.kind, "giver": value.giver, "receiver": value.receiver, "n": value.n}
    if isinstance(value, tuple):
        return [_thaw(v, flat_ok) for v in value]
    return value


def round_to_json(
    state: RoundState, skip: tuple[str, ...] = (), *, flat_ok: bool = False, log: bool = False
) -> dict[str, Any]:
    """The canonical JSON form of a round state (full information), minus fields ``skip``.

    The play log (``RoundState.log``) is not part of the canonical form (it
    would change every hash of earlier versions); ``log=True`` adds it as
    ``"log": [[seat, [cards]], ...]`` for readers outside the hashes.
    """
    out: dict[str, Any] = {}
    if log:
        out["log"] = [[seat, list(cards)] for seat, cards in state.log]
    for name in _FIELD_NAMES:
        if name in skip:
            continue
        v = getattr(state, name)
        if name == "extra":
            out["extra"] = {k: _thaw(x, flat_ok) for k, x in v}
        else:
            out[name] = _thaw(v, flat_ok)
    return out


def round_from_json(data: dict[str, Any]) -> RoundState:
    """Inverse of :func:`round_to_json`."""
    kw: dict[str, Any] = {}
    for f in fields(RoundState):
        if f.name not in data:
            continue
        v = data[f.name]
        if f.name == "trick_combo":
            kw[f.name] = None if v is None else Combo(*v)
        elif f.name == "duties":
            kw[f.name] = tuple(Duty(**d) for d in v)
        elif f.name == "extra":
            kw[f.name] = tuple(sorted((k, _freeze(x)) for k, x in v.items()))
        elif f.name == "log":
            kw[f.name] = _log_from_json(v)
        else:
            kw[f.name] = _freeze(v)
    return RoundState(**kw)


def _log_from_json(data: Any) -> tuple[tuple[int, Hand], ...]:
    """The play log from ``[[seat, [cards]], ...]``; ``ValueError`` if malformed (it may
    come from outside, e.g. a stdio bot's observation)."""
    if not isinstance(data, list):
        raise ValueError("'log' must be a list of [seat, cards]")
    out = []
    for entry in data:
        if (
            not isinstance(entry, list) or len(entry) != 2 or not _is_int(entry[0])
            or not isinstance(entry[1], list) or not all(_is_int(c) for c in entry[1])
        ):
            raise ValueError("a 'log' entry is [seat, [card ids]]")
        out.append((entry[0], tuple(entry[1])))
    return tuple(out)


PUBLIC_HIDDEN_FIELDS = ("hands", "first_out_hands")
# the canonical (hashed) fields: all but the play log (see RoundState); fields() is slow
_FIELD_NAMES = tuple(f.name for f in fields(RoundState) if f.name != "log")


def public_json(state: RoundState, *, for_hash: bool = False) -> dict[str, Any]:
    """What every seat knows: the full form minus hands and face-down tribute cards.

    ``for_hash=True`` leaves flat tuples as tuples: the same canonical bytes,
    built faster, for the state hash every replica computes after every action.
    """
    out = round_to_json(state, PUBLIC_HIDDEN_FIELDS, flat_ok=for_hash)
    hidden_extra = {k for k, _ in state.extra if k.startswith("secret_")}
    out["extra"] = {k: v for k, v in out["extra"].items() if k not in hidden_extra}
    return out
