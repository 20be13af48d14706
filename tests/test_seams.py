"""Guards on the seams between layers (issue #18): each test fails if a shortcut comes back."""

from __future__ import annotations

import ast
import importlib
import json
from pathlib import Path

import pytest

import zsy_lan
import zsy_lan.engine.canonical as engine_canonical
import zsy_lan.protocol as protocol
from zsy_lan.deal.errors import MalformedMessage
from zsy_lan.deal.messages import Commit, decode, encode

SRC = Path(zsy_lan.__file__).resolve().parent

# (``zsy_lan.protocol.canonical`` the attribute is the encode function, not the module)
protocol_canonical = importlib.import_module("zsy_lan.protocol.canonical")

# --- one name per thing ---------------------------------------------------------------------


def test_one_digest_one_decode() -> None:
    """The protocol re-exports the engine's functions under the same names, no second name."""
    assert protocol_canonical.digest is engine_canonical.digest
    assert protocol_canonical.decode is engine_canonical.decode
    assert protocol.digest is engine_canonical.digest
    for mod in (engine_canonical, protocol_canonical, protocol):
        assert not hasattr(mod, "hash_obj")
        assert not hasattr(mod, "decode_strict")


@pytest.mark.parametrize("data", [b'{"a": 1}', b'{"b":1,"a":2}', b'{"a":"\\u00e9"}'])
def test_engine_decode_is_strict(data: bytes) -> None:
    """The engine's decode used to accept any spacing and order; now it is the strict one."""
    with pytest.raises(ValueError, match="not canonical"):
        engine_canonical.decode(data)


def _commit() -> Commit:
    return Commit(
        sender=1, shuffle_digest=b"\x01" * 32, key_hashes=(b"\x02" * 32,), box_pk=b"\x03" * 32
    )


def test_deal_decode_is_strict_too() -> None:
    msg = _commit()
    data = encode(msg)
    assert decode(data, sender=1) == msg
    loose = json.dumps(json.loads(data), indent=1).encode()  # same value, other bytes
    assert loose != data
    with pytest.raises(MalformedMessage, match="canonical"):
        decode(loose, sender=1)


# --- the audit in five steps ----------------------------------------------------------------


def _function_lengths(path: Path) -> dict[str, int]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {
        node.name: (node.end_lineno or node.lineno) - node.lineno + 1
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef)
    }


def test_audit_is_five_step_functions() -> None:
    """``audit_deal`` was one 289-line function; now it calls one function per step."""
    lengths = _function_lengths(SRC / "deal" / "audit.py")
    for step in ("_collect", "_check_reveals", "_check_deck", "_replay", "_check_stop"):
        assert step in lengths, f"audit step {step} is missing"
    assert lengths["audit_deal"] <= 40
    assert max(lengths.values()) <= 80, lengths
