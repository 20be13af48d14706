"""A hostile MQTT broker for tests: a proxy in front of a real one, and a client that snoops.

Issue #29 says whoever can publish on a table's topics -- the broker or its other users --
can only drop, delay, replay, reorder, alter or inject, and each is detected and blamed on
the broker, never on a seat. To try that, :class:`HostileProxy` sits between the players
and a real broker (amqtt, or any) and applies :class:`Rule` s to the PUBLISH packets going
either way. It understands exactly as much MQTT 3.1.1 as that takes
(:mod:`zsy_lan.net.mqtt_wire`: fixed header, remaining length, topic): every other packet
(CONNECT, SUBSCRIBE, PUBACK, PINGREQ...) and every PUBLISH no rule takes passes byte for
byte, so the client and the broker still speak to each other. It also keeps every byte it
carried (:attr:`HostileProxy.captured`): the broker's side of the wire, for the test that
no frame holds plaintext.

:class:`Snoop` is the other kind of attacker: an ordinary client of the broker with rights
to subscribe to ``#`` and publish anywhere, which learns the topics in use and replays or
injects on them.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import struct
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from zsy_lan.net.mqtt_wire import PUBLISH, SUBSCRIBE, FramingError, Packet, Publish, Splitter

UP, DOWN = "up", "down"  # client -> broker, broker -> client


def topic_matches(pattern: str, topic: str) -> bool:
    """MQTT filter matching (``+`` one level, ``#`` the rest)."""
    pp, tt = pattern.split("/"), topic.split("/")
    for i, p in enumerate(pp):
        if p == "#":
            return True
        if i >= len(tt) or (p != "+" and p != tt[i]):
            return False
    return len(pp) == len(tt)


@dataclass
class Rule:
    """Which PUBLISH packets a rule takes, and what it does with them.

    ``topic`` is an MQTT filter (default: all); ``direction`` UP, DOWN or None for both;
    ``rate`` the chance of taking a matching packet (from the proxy's seeded generator), or
    ``every`` to take each n-th; ``limit`` how many at most. Subclasses say what is done.
    """

    topic: str = "#"
    direction: str | None = DOWN
    rate: float = 1.0
    every: int = 0
    limit: int | None = None
    seen: int = 0
    taken: int = 0

    def takes(self, direction: str, pub: Publish, rng: random.Random) -> bool:
        if self.direction is not None and direction != self.direction:
            return False
        if not topic_matches(self.topic, pub.topic):
            return False
        if self.limit is not None and self.taken >= self.limit:
            return False
        self.seen += 1
        hit = self.seen % self.every == 0 if self.every else rng.random() < self.rate
        self.taken += hit
        return hit

    def act(self, pub: Publish, raw: bytes, send: Callable[[bytes, float], None]) -> None:
        """``send(packet, after_seconds)`` what goes on instead of ``raw``."""
        raise NotImplementedError

    @property
    def name(self) -> str:
        return type(self).__name__.lower()


class Drop(Rule):
    def act(self, pub, raw, send):  # type: ignore[no-untyped-def]
        pass


@dataclass
class Delay(Rule):
    seconds: float = 0.5

    def act(self, pub, raw, send):  # type: ignore[no-untyped-def]
        send(raw, self.seconds)


def flip_middle(payload: bytes) -> bytes:
    """The payload with one bit of its middle byte flipped (an altered sealed box)."""
    if not payload:
        return b"\x00"
    i = len(payload) // 2
    return payload[:i] + bytes([payload[i] ^ 0x01]) + payload[i + 1 :]


@dataclass
class Alter(Rule):
    change: Callable[[bytes], bytes] = flip_middle

    def act(self, pub, raw, send):  # type: ignore[no-untyped-def]
        altered = Publish(pub.topic, self.change(pub.payload), pub.qos, pub.packet_id, pub.retain)
        send(altered.encode(), 0)


@dataclass
class Replay(Rule):
    """Passes the packet, then sends it again ``copies`` times, ``after`` seconds later."""

    copies: int = 1
    after: float = 0.2

    def act(self, pub, raw, send):  # type: ignore[no-untyped-def]
        send(raw, 0)
        for k in range(self.copies):
            send(raw, self.after * (k + 1))


@dataclass
class Reorder(Rule):
    """Holds a packet until the next one this rule takes has gone (or ``hold`` seconds)."""

    hold: float = 0.5
    _held: list[bytes] = field(default_factory=list)

    def act(self, pub, raw, send):  # type: ignore[no-untyped-def]
        if self._held:
            send(raw, 0)
            send(self._held.pop(), 0)
            return
        self._held.append(raw)

        def late() -> None:
            if self._held and self._held[0] is raw:
                send(self._held.pop(), 0)

        asyncio.get_running_loop().call_later(self.hold, late)


def subscribe_filters(packet: Packet) -> list[str]:
    """The topic filters of a SUBSCRIBE."""
    body, at, out = packet.body, 2, []
    while at + 2 <= len(body):
        (n,) = struct.unpack_from("!H", body, at)
        out.append(body[at + 2 : at + 2 + n].decode("utf-8", "replace"))
        at += 2 + n + 1
    return out


class _Pair:
    """One client's connection and the proxy's own connection to the broker for it."""

    def __init__(self, proxy: HostileProxy, client: tuple, broker: tuple) -> None:
        self.proxy = proxy
        self.client_r, self.client_w = client
        self.broker_r, self.broker_w = broker
        self.filters: list[str] = []
        self.tasks = [
            asyncio.create_task(self._pump(self.client_r, self.broker_w, UP)),
            asyncio.create_task(self._pump(self.broker_r, self.client_w, DOWN)),
        ]

    def subscribed(self, topic: str) -> bool:
        return any(topic_matches(f, topic) for f in self.filters)

    def send(self, writer: asyncio.StreamWriter, data: bytes, after: float) -> None:
        def write() -> None:
            if not writer.is_closing():
                writer.write(data)

        if after > 0:
            asyncio.get_running_loop().call_later(after, write)
        else:
            write()

    async def _pump(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, way: str):  # type: ignore[no-untyped-def]
        split = Splitter()
        try:
            while data := await reader.read(65536):
                self.proxy.captured[way] += data
                for packet in split.feed(data):
                    self._one(packet, writer, way)
                await writer.drain()
        except (ConnectionError, FramingError):
            pass
        finally:
            self.close()

    def _one(self, packet: Packet, writer: asyncio.StreamWriter, way: str) -> None:
        proxy = self.proxy
        if packet.type == SUBSCRIBE and way == UP:
            self.filters += subscribe_filters(packet)
        if packet.type != PUBLISH:
            self.send(writer, packet.raw, 0)
            return
        pub = Publish.decode(packet)
        proxy.publishes[way] += 1
        for rule in proxy.rules:
            if rule.takes(way, pub, proxy.rng):
                proxy.done[rule.name] += 1
                rule.act(pub, packet.raw, lambda data, after: self.send(writer, data, after))
                return
        self.send(writer, packet.raw, 0)

    def close(self) -> None:
        for w in (self.client_w, self.broker_w):
            w.close()


class HostileProxy:
    """Listens on ``listen``; each connection is carried to the broker at ``upstream``."""

    def __init__(
        self,
        upstream: tuple[str, int],
        *,
        listen: tuple[str, int] = ("127.0.0.1", 0),
        rules: Iterable[Rule] = (),
        seed: int = 29,
    ) -> None:
        self.upstream = upstream
        self.listen = listen
        self.rules: list[Rule] = list(rules)
        self.rng = random.Random(seed)
        self.pairs: list[_Pair] = []
        self.captured: dict[str, bytearray] = {UP: bytearray(), DOWN: bytearray()}
        self.publishes: Counter[str] = Counter()
        self.done: Counter[str] = Counter()  # what the rules did, by rule name
        self._server: asyncio.Server | None = None
        self.port = 0

    async def start(self) -> int:
        self._server = await asyncio.start_server(self._accepted, *self.listen)
        self.port = self._server.sockets[0].getsockname()[1]
        return self.port

    async def _accepted(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            broker = await asyncio.open_connection(*self.upstream)
        except OSError:
            writer.close()
            return
        pair = _Pair(self, (reader, writer), broker)
        self.pairs.append(pair)
        await asyncio.gather(*pair.tasks, return_exceptions=True)

    def inject(self, topic: str, payload: bytes) -> int:
        """Send a PUBLISH the broker never sent to every client subscribed to ``topic``."""
        raw = Publish(topic, payload).encode()
        n = 0
        for pair in self.pairs:
            if pair.subscribed(topic) and not pair.client_w.is_closing():
                pair.client_w.write(raw)
                n += 1
        self.done["inject"] += n
        return n

    @property
    def all_bytes(self) -> bytes:
        return bytes(self.captured[UP] + self.captured[DOWN])

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
        for pair in self.pairs:
            pair.close()
            for t in pair.tasks:
                t.cancel()
        for pair in self.pairs:
            await asyncio.gather(*pair.tasks, return_exceptions=True)
        if self._server is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._server.wait_closed(), 2)

    async def __aenter__(self) -> HostileProxy:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()


#: what the zsy MQTT link puts before each box: the sender's key, sealed to the receiver
#: (nacl ``SealedBox``: an ephemeral key, a MAC, the 32-byte key)
SENDER = 32 + 16 + 32


@dataclass
class Forge(Rule):
    """Passes the packet and sends a made-up one after it on the same topic: the same
    sender claim and random bytes for a box (it cannot seal one)."""

    prefix: int = SENDER

    def act(self, pub, raw, send):  # type: ignore[no-untyped-def]
        send(raw, 0)
        box = random.randbytes(max(len(pub.payload) - self.prefix, 48))
        send(Publish(pub.topic, pub.payload[: self.prefix] + box).encode(), 0)


@dataclass
class Misattribute(Rule):
    """Puts the sender claim (the first ``prefix`` bytes) of the previous message on the
    same topic in front of this one's box: the box is then claimed by whoever sent that
    one (another seat, or by chance the same: then nothing changes)."""

    prefix: int = SENDER
    last: dict[str, bytes] = field(default_factory=dict)  # topic -> last claim seen

    def act(self, pub, raw, send):  # type: ignore[no-untyped-def]
        own = pub.payload[: self.prefix]
        other = self.last.get(pub.topic)
        self.last[pub.topic] = own
        if other is None:
            send(raw, 0)
            return
        body = other + pub.payload[self.prefix :]
        send(Publish(pub.topic, body, pub.qos, pub.packet_id).encode(), 0)


#: the mix of ``python hostile_broker.py --hostile`` (issue #17's hostile relay had 22%):
#: each rule takes its share of what the rules before it left
HOSTILE_MIX = (
    (Drop, 0.06),
    (Alter, 0.04),
    (Replay, 0.04),
    (Reorder, 0.03),
    (Misattribute, 0.03),
    (Forge, 0.03),
)


def main(argv: list[str] | None = None) -> None:
    """``python hostile_broker.py LISTEN_IP LISTEN_PORT BROKER_IP BROKER_PORT [--hostile]
    [--capture FILE]``: the proxy as a process (the namespace tests run it in the broker's
    namespace). Prints one line when it listens; on SIGTERM writes every byte it carried to
    FILE and prints what its rules did."""
    import argparse
    import signal

    ap = argparse.ArgumentParser()
    ap.add_argument("listen_ip")
    ap.add_argument("listen_port", type=int)
    ap.add_argument("broker_ip")
    ap.add_argument("broker_port", type=int)
    ap.add_argument("--hostile", action="store_true")
    ap.add_argument("--capture", default=None)
    ap.add_argument("--seed", type=int, default=29)
    args = ap.parse_args(argv)
    rules = [kind(rate=rate) for kind, rate in HOSTILE_MIX] if args.hostile else []

    async def run() -> HostileProxy:
        proxy = HostileProxy(
            (args.broker_ip, args.broker_port),
            listen=(args.listen_ip, args.listen_port),
            rules=rules,
            seed=args.seed,
        )
        await proxy.start()
        print(f"hostile proxy listening on {args.listen_ip}:{proxy.port}", flush=True)
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, stop.set)
        await stop.wait()
        await proxy.stop()
        return proxy

    proxy = asyncio.run(run())
    if args.capture:
        with open(args.capture, "wb") as f:
            f.write(proxy.all_bytes)
    done = ", ".join(f"{k}: {v}" for k, v in sorted(proxy.done.items()))
    print(f"publishes up: {proxy.publishes[UP]}, down: {proxy.publishes[DOWN]}; {done}", flush=True)


if __name__ == "__main__":
    main()
