"""Canonical bytes and hashes: the one byte form every replicated value has.

Two peers must produce identical bytes for equal values on any machine and any
supported Python, or their hashes (and so their transcripts) diverge: sorted
keys, compact separators, UTF-8 without escaping, and no floats (their text
form is not stable enough to hash). Object keys must be strings, because
``json`` would silently turn ``1`` into ``"1"`` and the value would not survive
a round trip. ``digest`` and friends are SHA-256 over these bytes, hex encoded, and
``decode`` accepts only these bytes. The replication protocol signs exactly
these bytes too (it re-exports these functions under the same names, except
``encode``, which it calls ``canonical``).
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

PLAIN_TYPES = (str, int, bool, type(None))  # scalars with one canonical form


def _check(obj: Any, path: str = "$") -> None:
    """Refuse values that have no single canonical form (floats, odd keys, odd types).

    Hot (every state hash): containers of plain values are checked in one pass
    before any recursion.
    """
    t = type(obj)
    if t in PLAIN_TYPES:
        return
    if t is list or t is tuple:
        for x in obj:  # plain values and flat lists (cards, seats, hands) in one pass
            tx = type(x)
            if tx in PLAIN_TYPES:
                continue
            if (tx is list or tx is tuple) and all(type(y) in PLAIN_TYPES for y in x):
                continue
            break
        else:
            return
    elif t is dict and all(type(k) is str and type(v) in PLAIN_TYPES for k, v in obj.items()):
        return
    if obj is None or isinstance(obj, bool | int | str):
        return
    if isinstance(obj, float):
        raise TypeError(f"floats are not canonical (at {path})")
    if isinstance(obj, list | tuple):
        for i, item in enumerate(obj):
            _check(item, f"{path}[{i}]")
        return
    if isinstance(obj, dict):
        for key, value in obj.items():
            if not isinstance(key, str):
                raise TypeError(f"object keys must be str, got {type(key).__name__} (at {path})")
            _check(value, f"{path}.{key}")
        return
    raise TypeError(f"{type(obj).__name__} is not canonical JSON (at {path})")


_dumps = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode


def encode(value: Any) -> bytes:
    """The canonical bytes of a JSON-like value; ``TypeError`` on floats or odd types."""
    _check(value)
    return _dumps(value).encode()


def _no_float(text: str) -> Any:
    raise ValueError(f"floats are not canonical: {text}")


def _no_constant(text: str) -> Any:
    raise ValueError(f"{text} is not JSON")


# One decoder for every parse: ``json.loads`` with hooks builds a new
# decoder (and its scanner) per call, which was a third of a frame's parse.
_strict_decoder = json.JSONDecoder(parse_float=_no_float, parse_constant=_no_constant)


def decode(data: bytes) -> Any:
    """Parse bytes that must already be canonical; raises ``ValueError`` otherwise.

    The only decoder: there is no lenient twin, so every module that parses
    replicated bytes (the protocol re-exports this one) refuses the same inputs.

    Requiring the canonical form on input (not just producing it) means one
    value has exactly one accepted byte form: no duplicate keys, no whitespace
    games, no floats, so two parsers can never disagree about a signed message.
    """
    try:
        text = data.decode("utf-8")
        obj = _strict_decoder.decode(text)
        # Parsed JSON with floats and constants refused has only canonical types and
        # string keys, so the re-encoding needs no _check walk (this runs per frame).
        again = _dumps(obj).encode()
    except (ValueError, TypeError, RecursionError) as exc:
        raise ValueError(f"not canonical JSON: {exc}") from None
    if again != data:
        raise ValueError("not canonical JSON: not in canonical form")
    return obj


def sha256_hex(data: bytes) -> str:
    """Hex SHA-256 of ``data``."""
    return hashlib.sha256(data).hexdigest()


def digest(value: Any) -> str:
    """Hex SHA-256 of the canonical encoding."""
    return sha256_hex(encode(value))


def digest_built(value: Any) -> str:
    """:func:`digest` of a value built from canonical types only, without the type walk.

    For the engine's own public state, hashed after every action: it is made
    of ints, strings, bools, None, lists, tuples and str-keyed dicts by
    construction (a property test holds :func:`encode` to that), and the walk
    was a third of the hash's cost. Anything from outside goes through
    :func:`digest`.
    """
    return sha256_hex(_dumps(value).encode())
