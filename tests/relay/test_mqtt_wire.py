"""MQTT framing (zsy_lan/net/mqtt_wire.py): what the guard and the hostile proxy rely on."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from zsy_lan.net.mqtt_wire import (
    MAX_REMAINING,
    PUBLISH,
    FramingError,
    Packet,
    Publish,
    Splitter,
    encode_length,
    parse_header,
)


@given(st.integers(0, MAX_REMAINING))
def test_length_round_trips(n):
    enc = encode_length(n)
    assert 1 <= len(enc) <= 4
    assert parse_header(b"\x30" + enc) == (1 + len(enc), n)


def test_header_incomplete_and_invalid():
    assert parse_header(b"\x30") is None
    assert parse_header(b"\x30\x80") is None  # a continuation byte promises more
    with pytest.raises(FramingError):
        parse_header(b"\x30\xff\xff\xff\xff\x01")
    with pytest.raises(FramingError):
        encode_length(MAX_REMAINING + 1)


@given(
    st.text(min_size=1, max_size=40).filter(lambda t: "\x00" not in t),
    st.binary(max_size=300),
    st.sampled_from([0, 1, 2]),
    st.booleans(),
)
def test_publish_round_trips(topic, payload, qos, retain):
    pub = Publish(topic, payload, qos=qos, packet_id=7 if qos else None, retain=retain)
    packet = Packet(pub.encode())
    assert packet.type == PUBLISH
    assert Publish.decode(packet) == pub


def test_splitter_cuts_a_stream_fed_byte_by_byte():
    stream = b"".join(Publish(f"t/{i}", bytes([i]) * (i * 50)).encode() for i in range(5))
    stream += b"\xc0\x00"  # PINGREQ: no body
    split, got = Splitter(), []
    for i in range(len(stream)):
        got += split.feed(stream[i : i + 1])
    assert b"".join(p.raw for p in got) == stream and split.pending == b""
    assert [Publish.decode(p).topic for p in got[:5]] == [f"t/{i}" for i in range(5)]
    assert got[5].type == 12 and got[5].body == b""


def test_publish_decode_refuses_garbage():
    with pytest.raises(FramingError):
        Publish.decode(Packet(b"\x30\x01\x00"))  # no topic length
    with pytest.raises(FramingError):
        Publish.decode(Packet(b"\x30\x03\x00\x09a"))  # topic longer than the packet
    with pytest.raises(FramingError):
        Publish.decode(Packet(b"\xc0\x00"))  # not a PUBLISH
