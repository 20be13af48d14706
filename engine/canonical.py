"""Canonical bytes and hashes: one byte form for every replicated value.

Sorted keys, compact separators, UTF-8, and no floats (a float's text form is
not guaranteed identical across platforms, and rounding would split peers).
``state_hash`` and friends are SHA-256 over these bytes, hex encoded.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any


def _check(value: Any, path: str = "$") -> None:
    if isinstance(value, float):
        raise TypeError(f"float at {path}: canonical encoding allows no floats")
    if isinstance(value, dict):
        for k, v in value.items():
            if not isinstance(k, str):
                raise TypeError(f"non-string key {k!r} at {path}")
            _check(v, f"{path}.{k}")
    elif isinstance(value, list | tuple):
        for i, v in enumerate(value):
            _check(v, f"{path}[{i}]")
    elif not (value is None or isinstance(value, bool | int | str)):
        raise TypeError(f"{type(value).__name__} at {path} has no canonical encoding")


def encode(value: Any) -> bytes:
    """The canonical bytes of a JSON-like value (dicts, lists, str, int, bool, None)."""
    _check(value)
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def decode(data: bytes) -> Any:
    """Inverse of :func:`encode` (tuples come back as lists)."""
    return json.loads(data.decode())


def digest(value: Any) -> str:
    """Hex SHA-256 of the canonical encoding."""
    return hashlib.sha256(encode(value)).hexdigest()
