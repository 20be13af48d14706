"""Canonical JSON for the protocol: the engine's one encoder, under the protocol's names.

The protocol signs and hashes exactly the bytes the engine's state hashes use
(:mod:`zsy_lan.engine.canonical`); on input it accepts only that form
(``decode``, the engine's one decoder, is strict), so a signed message has one
byte form. ``digest`` is the engine's ``digest`` (one name per function: there
is no second name for it).
"""

from __future__ import annotations

from zsy_lan.engine.canonical import decode, digest, sha256_hex
from zsy_lan.engine.canonical import encode as canonical

__all__ = ["canonical", "decode", "digest", "sha256_hex"]
