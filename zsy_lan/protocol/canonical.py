"""Canonical JSON for the protocol: the engine's one encoder, under the protocol's names.

The protocol signs and hashes exactly the bytes the engine's state hashes use
(:mod:`zsy_lan.engine.canonical`); on input it accepts only that form
(``decode`` is the strict parser), so a signed message has one byte form.
"""

from __future__ import annotations

from ..engine.canonical import decode_strict as decode
from ..engine.canonical import digest as hash_obj
from ..engine.canonical import encode as canonical
from ..engine.canonical import sha256_hex

__all__ = ["canonical", "decode", "sha256_hex", "hash_obj"]
