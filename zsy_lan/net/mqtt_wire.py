"""MQTT 3.1.1 framing: a packet's fixed header and length, and a PUBLISH's topic and payload.

Why this much and no more: the embedded broker's guard (:mod:`zsy_lan.net.broker_server`) must
refuse an over-long packet from its header, before the broker buffers the body, and the
hostile-broker harness of the tests splits a stream into packets to drop, alter, replay or
reorder them while leaving every other byte as it came. Neither needs to understand more of
MQTT than the fixed header (type, flags, remaining length) and, for PUBLISH, the topic.
Clients speak MQTT through a maintained library; nothing here writes a CONNECT.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

#: packet types (MQTT 3.1.1, section 2.2.1)
CONNECT, CONNACK, PUBLISH, PUBACK, SUBSCRIBE, DISCONNECT = 1, 2, 3, 4, 8, 14
#: the largest remaining length four length bytes can say (256 MiB - 1)
MAX_REMAINING = 268_435_455


class FramingError(ValueError):
    """The bytes are not MQTT framing (a fifth length byte, a topic longer than its packet)."""


def encode_length(n: int) -> bytes:
    """The variable-length encoding of a remaining length (1 to 4 bytes)."""
    if not 0 <= n <= MAX_REMAINING:
        raise FramingError(f"remaining length {n} out of range")
    out = bytearray()
    while True:
        n, digit = divmod(n, 128)
        out.append(digit | (0x80 if n else 0))
        if not n:
            return bytes(out)


def parse_header(buf: bytes | bytearray) -> tuple[int, int] | None:
    """``(header_length, remaining_length)`` of the packet at the start of ``buf``.

    ``None`` while the length bytes are still incomplete: a reader can refuse a packet
    from these at most five bytes, whatever the body that follows.
    """
    value, shift = 0, 0
    for i in range(1, 5):
        if i >= len(buf):
            return None
        byte = buf[i]
        value |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return i + 1, value
        shift += 7
    raise FramingError("more than four remaining-length bytes")


@dataclass(frozen=True)
class Packet:
    """One whole packet as it was on the wire."""

    raw: bytes

    @property
    def type(self) -> int:
        return self.raw[0] >> 4

    @property
    def flags(self) -> int:
        return self.raw[0] & 0x0F

    @property
    def body(self) -> bytes:
        """Everything after the fixed header."""
        head = parse_header(self.raw)
        assert head is not None  # a Packet is whole by construction
        return self.raw[head[0] :]


class Splitter:
    """Cuts a byte stream into whole packets; what is left waits for the next ``feed``."""

    def __init__(self) -> None:
        self._buf = bytearray()

    def feed(self, data: bytes) -> list[Packet]:
        self._buf += data
        out: list[Packet] = []
        while True:
            head = parse_header(self._buf)
            if head is None or len(self._buf) < head[0] + head[1]:
                return out
            end = head[0] + head[1]
            out.append(Packet(bytes(self._buf[:end])))
            del self._buf[:end]

    @property
    def pending(self) -> bytes:
        """Bytes of a packet not yet whole."""
        return bytes(self._buf)


@dataclass(frozen=True)
class Publish:
    """A PUBLISH, decoded: what a rule of the hostile harness looks at and rewrites."""

    topic: str
    payload: bytes
    qos: int = 0
    packet_id: int | None = None
    retain: bool = False
    dup: bool = False

    @classmethod
    def decode(cls, packet: Packet) -> Publish:
        if packet.type != PUBLISH:
            raise FramingError(f"packet type {packet.type} is not PUBLISH")
        body = packet.body
        if len(body) < 2:
            raise FramingError("PUBLISH without a topic")
        (n,) = struct.unpack_from("!H", body)
        if 2 + n > len(body):
            raise FramingError("topic longer than its packet")
        try:
            topic = body[2 : 2 + n].decode("utf-8")
        except UnicodeDecodeError:
            raise FramingError("topic is not UTF-8") from None
        qos = (packet.flags >> 1) & 3
        at = 2 + n
        packet_id = None
        if qos:
            if at + 2 > len(body):
                raise FramingError("PUBLISH without its packet id")
            (packet_id,) = struct.unpack_from("!H", body, at)
            at += 2
        return cls(
            topic,
            body[at:],
            qos=qos,
            packet_id=packet_id,
            retain=bool(packet.flags & 1),
            dup=bool(packet.flags & 8),
        )

    def encode(self) -> bytes:
        topic = self.topic.encode("utf-8")
        var = struct.pack("!H", len(topic)) + topic
        if self.qos:
            var += struct.pack("!H", self.packet_id or 1)
        body = var + self.payload
        flags = (8 if self.dup else 0) | (self.qos << 1) | (1 if self.retain else 0)
        first = (PUBLISH << 4) | flags
        return bytes([first]) + encode_length(len(body)) + body
