"""Canonical encoding: one byte form per value (DESIGN.md "Canonical encoding")."""

from __future__ import annotations

import hashlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from zsy_lan.protocol.canonical import canonical, decode, digest, sha256_hex

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=20,
)


def test_sorted_keys_compact_separators_and_raw_utf8():
    assert canonical({"b": 1, "a": ["é", None, True]}) == '{"a":["é",null,true],"b":1}'.encode()


@pytest.mark.parametrize("value", [1.0, {"a": 0.5}, [1, [2.5]], float("nan")])
def test_floats_are_refused_anywhere(value):
    with pytest.raises(TypeError, match="float"):
        canonical(value)


@pytest.mark.parametrize("value", [{1: "x"}, {"a": {(1, 2): 3}}, b"bytes", {1, 2}])
def test_values_without_a_single_json_form_are_refused(value):
    with pytest.raises(TypeError):
        canonical(value)


@pytest.mark.parametrize(
    "text",
    [
        b'{"b":1,"a":2}',  # unsorted
        b'{"a": 1}',  # whitespace
        b'{"a":1,"a":2}',  # duplicate key: parsers could disagree on which wins
        b'{"a":1.5}',  # float
        b'{"a":NaN}',
        b'{"a":"\\u00e9"}',  # escaped where raw UTF-8 is canonical
        b"\xff\xfe",
        b"",
        b"[" * 5000,
    ],
)
def test_decode_accepts_only_the_canonical_form(text):
    with pytest.raises(ValueError):
        decode(text)


@settings(max_examples=60, deadline=None)
@given(json_values)
def test_decode_inverts_canonical(value):
    assert decode(canonical(value)) == value


def test_hashes_are_sha256_hex():
    assert sha256_hex(b"abc") == hashlib.sha256(b"abc").hexdigest()
    assert digest({"x": 1}) == sha256_hex(b'{"x":1}')
