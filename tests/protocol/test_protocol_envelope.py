"""Envelopes: signed over exact bytes, verified before parsed.

DESIGN.md "Messages and the transcript".
"""

from __future__ import annotations

import hashlib

import pytest
from proto_support import TABLE, identity

from zsy_lan.protocol.canonical import canonical
from zsy_lan.protocol.envelope import MAGIC, MAX_FRAME, FrameError, open_frame, seal

ROSTER = {s: identity(s).public_key for s in range(3)}
H = "ab" * 32


def payload(**over):
    base = {"table": TABLE, "seq": 1, "prev": "", "state": H, "type": "action", "body": {"n": 3}}
    base.update(over)
    return base


def raw(seat: int, data: bytes, signer: int | None = None) -> bytes:
    """A validly signed frame around arbitrary payload bytes (what a buggy peer could send)."""
    head = MAGIC + bytes([seat]) + data
    return head + identity(seat if signer is None else signer).sign(head)


def good(**over) -> bytes:
    fields = payload(**over)
    return seal(
        identity(1),
        seat=1,
        **{k: fields[k] for k in ("table", "seq", "prev", "state", "type", "body")},
    )


def test_round_trip_keeps_fields_and_exact_bytes():
    frame = good()
    env = open_frame(frame, ROSTER, TABLE)
    assert (env.seat, env.seq, env.prev, env.state, env.type) == (1, 1, "", H, "action")
    assert env.body == {"n": 3} and env.frame == frame and env.is_feed
    assert env.digest == hashlib.sha256(frame[:-64]).hexdigest()  # signature not included


def test_control_messages_have_no_feed_position():
    frame = seal(
        identity(0),
        table=TABLE,
        seat=0,
        seq=0,
        prev="",
        state="",
        type="heartbeat",
        body={"have": {"0": [0, ""], "1": [2, H]}},
    )
    env = open_frame(frame, ROSTER, TABLE)
    assert not env.is_feed and env.body["have"]["1"] == [2, H]


def expect(frame: bytes, fragment: str, sender: int | None):
    with pytest.raises(FrameError) as info:
        open_frame(frame, ROSTER, TABLE)
    assert fragment in info.value.reason
    assert info.value.sender == sender
    return info.value


def test_garbage_and_short_frames():
    expect(b"", "garbage", None)
    expect(b"\x00" * 200, "garbage", None)
    expect(MAGIC + b"\x01" + b"x" * 10, "garbage", None)


def test_oversized_frames_are_refused_before_any_work():
    expect(good() + b"x" * MAX_FRAME, "oversized", None)


def test_bad_signature_names_the_claim_but_not_a_sender():
    frame = bytearray(good())
    frame[10] ^= 1  # tamper with the payload
    err = expect(bytes(frame), "bad signature", None)
    assert "seat 1" in err.reason
    sig_flip = bytearray(good())
    sig_flip[-1] ^= 1
    expect(bytes(sig_flip), "bad signature", None)
    # Signed by seat 2's key but claiming seat 1: a forgery.
    expect(raw(1, canonical(payload()), signer=2), "bad signature", None)


def test_unknown_sender():
    frame = raw(9, canonical(payload()), signer=0)
    expect(frame, "unknown sender", None)


def test_wrong_table():
    expect(raw(1, canonical(payload(table="other"))), "wrong table", 1)


def test_unknown_type_is_refused_with_its_name():
    expect(raw(1, canonical(payload(type="launch"))), "unknown message type 'launch'", 1)


@pytest.mark.parametrize(
    "data, fragment",
    [
        (b'{"table": "x"}', "not canonical"),
        (b"\xff\xfe", "not canonical"),
        (b'{"a":1.5}', "not canonical"),
        (canonical([1, 2]), "wrong fields"),
        (canonical({**payload(), "extra": 1}), "wrong fields"),
        (canonical(payload(body=[1])), "body is not an object"),
        (canonical(payload(state="nothex")), "bad state hash"),
        (canonical(payload(seq=0)), "seq must be >= 1"),
        (canonical(payload(seq=True)), "seq must be >= 1"),
        (canonical(payload(seq=2, prev="")), "bad prev"),
        (canonical(payload(seq=1, prev=H)), "another roster"),  # issue #25
        (canonical(payload(type="heartbeat", seq=3, body={"have": {}})), "control needs seq 0"),
        (canonical(payload(type="commit", body={"round": 0})), "exactly round, commit"),
        (canonical(payload(type="commit", body={"round": -1, "commit": H})), "64-hex"),
        (canonical(payload(type="reveal", body={"round": 0, "nonce": "00", "seed": H})), "64-hex"),
        (canonical(payload(type="want", seq=0, body={"author": 0, "from": 5, "to": 2})), "range"),
        (canonical(payload(type="want", seq=0, body={"author": 0, "from": 1, "to": 999})), "wider"),
        (canonical(payload(type="have", seq=0, body={"have": {"x": [1, H]}})), "not a seat"),
        (canonical(payload(type="have", seq=0, body={"have": {"01": [1, H]}})), "not a seat"),
        (canonical(payload(type="have", seq=0, body={"have": {"0": [1, "zz"]}})), "bad digest"),
        (canonical(payload(type="have", seq=0, body={"have": {"0": 4}})), "[seq, digest]"),
    ],
)
def test_malformed_but_authentic_frames_name_their_sender(data, fragment):
    expect(raw(1, data), fragment, 1)


def test_seal_refuses_what_receivers_would_refuse():
    with pytest.raises(ValueError, match="unknown message type"):
        good(type="launch")
    with pytest.raises(ValueError):
        good(type="commit", body={"round": 0, "commit": "short"})
    with pytest.raises(TypeError):
        good(body={"n": 1.5})
    with pytest.raises(ValueError, match="exceeds"):
        good(body={"pad": "x" * MAX_FRAME})
