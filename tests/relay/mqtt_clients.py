"""Plain aiomqtt clients for the broker tests: one that collects what it hears, one that talks."""

from __future__ import annotations

import asyncio
import time

import aiomqtt

from zsy_lan.net.mqtt_wire import encode_length


class Inbox:
    """A client subscribed to ``topic`` that keeps every ``(topic, payload, time)`` it hears."""

    def __init__(self, port: int, topic: str = "#", host: str = "127.0.0.1", **kw) -> None:  # type: ignore[no-untyped-def]
        self.client = aiomqtt.Client(host, port, **kw)
        self.topic = topic
        self.got: list[tuple[str, bytes, float]] = []
        self._task: asyncio.Task | None = None

    async def __aenter__(self) -> Inbox:
        await self.client.__aenter__()
        await self.client.subscribe(self.topic)

        async def listen() -> None:
            async for m in self.client.messages:
                self.got.append((str(m.topic), bytes(m.payload), time.monotonic()))

        self._task = asyncio.create_task(listen())
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
        await self.client.__aexit__(None, None, None)

    @property
    def payloads(self) -> list[bytes]:
        return [p for _, p, _ in self.got]

    async def wait(self, n: int, timeout: float = 5.0) -> list[bytes]:
        """At least ``n`` messages, or what there is after ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        while len(self.got) < n and time.monotonic() < deadline:
            await asyncio.sleep(0.01)
        return self.payloads

    async def wait_for(self, payload: bytes, timeout: float = 5.0) -> list[bytes]:
        """Until ``payload`` came, or ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        while payload not in self.payloads and time.monotonic() < deadline:
            await asyncio.sleep(0.01)
        return self.payloads

    async def quiet(self, seconds: float = 0.3) -> list[bytes]:
        """What there is once nothing more came for ``seconds``."""
        last = -1
        while last != len(self.got):
            last = len(self.got)
            await asyncio.sleep(seconds)
        return self.payloads


def talker(port: int, host: str = "127.0.0.1", **kw) -> aiomqtt.Client:  # type: ignore[no-untyped-def]
    return aiomqtt.Client(host, port, **kw)


def raw_connect(client_id: str, username: str = "", password: str = "") -> bytes:
    """An MQTT 3.1.1 CONNECT (clean session, keep-alive 60 s), for a raw socket that
    misbehaves where a library would not let it."""

    def field(text: str) -> bytes:
        data = text.encode()
        return len(data).to_bytes(2, "big") + data

    flags = 0x02 | (0x80 if username else 0) | (0x40 if password else 0)
    body = b"\x00\x04MQTT\x04" + bytes([flags]) + b"\x00\x3c" + field(client_id)
    body += (field(username) if username else b"") + (field(password) if password else b"")
    return b"\x10" + encode_length(len(body)) + body


class Snoop(Inbox):
    """Another user of the broker: subscribes to ``#``, keeps what it sees, publishes back
    (here, not in hostile_broker.py: the proxy runs alone and never needs aiomqtt)."""

    def __init__(self, host: str, port: int, **auth: str) -> None:
        super().__init__(port, "#", host, **auth)

    @property
    def seen(self) -> list[tuple[str, bytes]]:
        """``(topic, payload)`` of every message it heard, in order."""
        return [(t, p) for t, p, _ in self.got]

    @property
    def topics(self) -> set[str]:
        return {t for t, _, _ in self.got}

    async def replay(self, count: int | None = None) -> int:
        """Publish again what it saw (the first ``count``), topic and payload as they were."""
        todo = self.seen[:count] if count is not None else self.seen
        for topic, payload in todo:
            await self.client.publish(topic, payload)
        return len(todo)

    async def inject(self, topic: str, payload: bytes) -> None:
        await self.client.publish(topic, payload)
