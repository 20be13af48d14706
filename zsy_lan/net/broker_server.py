"""The broker ``zsy relay`` starts: amqtt in this process, behind a guard that bounds each user.

Why amqtt behind our own listener rather than amqtt's: amqtt bounds nothing per user. Its
``max_connections`` makes the next client *wait*, it buffers a packet of any length (up to
256 MiB) before looking at it, and it reads as fast as a client writes. So we accept the
TCP (and TLS) connections ourselves and hand each to amqtt as an "external" listener's
stream, through :class:`_GuardedReader`, which

* refuses a connection beyond ``max_connections`` in all or ``per_address`` from one address
  (an IPv6 /64 counts as one: :func:`~zsy_lan.protocol.source.address_group`), at once
  with CONNACK "server unavailable", never queued;
* reads one packet at a time and closes the connection whose packet header says more than
  ``max_packet`` bytes, before the body is read;
* reads no faster than ``packets_per_second`` / ``bytes_per_second`` (token buckets, the one
  :class:`~zsy_lan.protocol.bucket.Bucket`): a flooding client is slowed by TCP itself, its
  own socket fills, nobody else's.

What this cannot bound (docs/network.md says so): the number of subscriptions a client makes,
messages queued for a subscriber that reads slowly (amqtt keeps them in memory), and
retained messages (one per topic a client publishes with the retain flag). Offline sessions
of clients that asked to be remembered are forgotten after ``session_expiry`` seconds.

amqtt is the optional ``broker`` extra (``pip install 'zsy-lan[broker]'``): it brings a
dozen packages (pydantic, typer, websockets, argon2...) that a player who never runs a broker
does not need. :func:`amqtt_missing` lets ``zsy relay`` say so in one sentence.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib.util
import logging
import ssl
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from zsy_lan.net.mqtt_wire import PUBLISH, FramingError, parse_header
from zsy_lan.protocol.bucket import Bucket
from zsy_lan.protocol.source import address_group
from zsy_lan.text.i18n import _


class BrokerError(Exception):
    """A broker that cannot start, said in one sentence."""


def amqtt_missing() -> bool:
    """True when the ``broker`` extra (amqtt) is not installed."""
    return importlib.util.find_spec("amqtt") is None


@dataclass(frozen=True)
class BrokerLimits:
    """What one user can take of the broker (defaults: what the former relay allowed one user)."""

    max_connections: int = 256
    per_address: int = 32  # connections from one IP address at once
    max_packet: int = 512 * 1024  # bytes in one MQTT packet (a sealed frame is at most ~256 KiB)
    packets_per_second: float = 2000.0  # per connection, sustained
    packet_burst: float = 4000.0
    bytes_per_second: float = 4 * 1024 * 1024.0
    byte_burst: float = 8 * 1024 * 1024.0
    session_expiry: int = 600  # seconds an offline session is remembered


@dataclass
class BrokerStats:
    """Counters only: the broker keeps no frame."""

    connections: int = 0
    refused: Counter[str] = field(default_factory=Counter)
    packets_in: int = 0
    bytes_in: int = 0
    publishes_in: int = 0  # PUBLISH packets: the frames the players sent through it
    publish_bytes_in: int = 0


def read_password_file(path: Path) -> dict[str, str]:
    """``USER:PASSWORD`` lines (``#`` comments, blank lines skipped) as a dict.

    Plain passwords, because they are for the players to type into their ``mqtt://`` URL
    and the file is the operator's own: the broker keeps them in memory only. For a
    long-lived public broker, run Mosquitto with its own hashed password file instead.
    """
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise BrokerError(
            _("cannot read {path}: {why}").format(path=path, why=exc.strerror or exc)
        ) from None
    users: dict[str, str] = {}
    for n, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        user, sep, password = line.partition(":")
        if not sep or not user or not password:
            raise BrokerError(_("{path}, line {n}: expected USER:PASSWORD").format(path=path, n=n))
        users[user] = password
    if not users:
        raise BrokerError(_("{path} names no user").format(path=path))
    return users


def tls_context(certfile: Path, keyfile: Path) -> ssl.SSLContext:
    """The server side of ``mqtts://``: our certificate, no client certificates asked."""
    ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    try:
        ctx.load_cert_chain(str(certfile), str(keyfile))
    except (OSError, ssl.SSLError) as exc:
        raise BrokerError(
            _("cannot load the certificate {cert} with the key {key}: {why}").format(
                cert=certfile, key=keyfile, why=exc
            )
        ) from None
    return ctx


class _Closed(Exception):
    pass


def _guarded_reader_class():  # type: ignore[no-untyped-def]
    """The guard as an amqtt ``ReaderAdapter`` (amqtt imported only when a broker starts)."""
    from amqtt.adapters import ReaderAdapter

    class GuardedReader(ReaderAdapter):
        """Hands amqtt whole packets of bounded size, no faster than the buckets allow."""

        def __init__(
            self, reader: asyncio.StreamReader, limits: BrokerLimits, stats: BrokerStats
        ) -> None:
            self._reader = reader
            self._limits = limits
            self._stats = stats
            now = time.monotonic()
            self._packets = Bucket(limits.packets_per_second, limits.packet_burst, now)
            self._bytes = Bucket(limits.bytes_per_second, limits.byte_burst, now)
            self._buf = bytearray()
            self._eof = False

        async def _next_packet(self) -> bytes:
            head = bytearray(await self._reader.readexactly(1))
            while (parsed := parse_header(head)) is None:
                head += await self._reader.readexactly(1)
            _, length = parsed
            if length > self._limits.max_packet:
                self._stats.refused["packet too large"] += 1
                raise _Closed
            body = await self._reader.readexactly(length) if length else b""
            return bytes(head) + body

        async def _pace(self, size: int) -> None:
            """Wait until both buckets hold this packet (a packet larger than the burst waits
            for a full bucket, then empties it)."""
            cost = min(float(size), self._bytes.burst)
            while True:
                now = time.monotonic()
                if self._packets.refill(now) >= 1 and self._bytes.refill(now) >= cost:
                    self._packets.take(now)
                    self._bytes.take(now, cost)
                    return
                short = max(1 - self._packets.tokens, 0) / self._packets.rate
                short = max(short, max(cost - self._bytes.tokens, 0) / self._bytes.rate)
                await asyncio.sleep(max(short, 0.001))

        async def read(self, n: int = -1) -> bytes:
            while not self._buf and not self._eof:
                try:
                    packet = await self._next_packet()
                except (asyncio.IncompleteReadError, ConnectionError, FramingError, _Closed):
                    self._eof = True
                    break
                await self._pace(len(packet))
                self._stats.packets_in += 1
                self._stats.bytes_in += len(packet)
                if packet[0] >> 4 == PUBLISH:
                    self._stats.publishes_in += 1
                    self._stats.publish_bytes_in += len(packet)
                self._buf += packet
            if n < 0:
                n = len(self._buf)
            if len(self._buf) < n:
                # amqtt reads exactly what a header promised; a stream that ended short is
                # the end of the connection, as StreamReader.readexactly says it
                from amqtt.errors import NoDataError

                raise NoDataError("connection closed")
            out = bytes(self._buf[:n])
            del self._buf[:n]
            return out

        def feed_eof(self) -> None:
            self._eof = True

    return GuardedReader


#: CONNACK, no session present, return code 3 (server unavailable): MQTT 3.1.1, 3.2
_CONNACK_UNAVAILABLE = bytes([0x20, 0x02, 0x00, 0x03])

#: amqtt loads its plugins by dotted path
_AUTH_PLUGIN = "zsy_lan.net.broker_auth.PasswordAuth"


class EmbeddedBroker:
    """amqtt on ``address:port`` (TLS if ``tls`` is given, users if ``users`` is given).

    ``await start()`` binds and returns the port (``port=0``: any free one); ``await stop()``
    ends every connection. One per event loop.
    """

    def __init__(
        self,
        address: str,
        port: int,
        *,
        limits: BrokerLimits | None = None,
        tls: ssl.SSLContext | None = None,
        users: dict[str, str] | None = None,
    ) -> None:
        self.address = address
        self.port = port
        self.limits = limits or BrokerLimits()
        self.tls = tls
        self.users = users
        self.stats = BrokerStats()
        self._per_address: Counter[str] = Counter()
        self._open = 0
        self._server: asyncio.Server | None = None
        self._broker = None
        self._reader_class = None
        self._handlers: set[asyncio.Task] = set()

    @property
    def connected(self) -> int:
        """Connections open now."""
        return self._open

    def _config(self) -> dict:
        if self.users:
            auth = {_AUTH_PLUGIN: {"users": dict(self.users)}}
        else:
            auth = {"amqtt.plugins.authentication.AnonymousAuthPlugin": {"allow_anonymous": True}}
        return {
            "listeners": {"default": {"type": "external"}},
            "session_expiry_interval": self.limits.session_expiry,
            "plugins": auth,  # no $SYS statistics, no packet log: nothing about the tables
        }

    async def start(self) -> int:
        if amqtt_missing():
            raise BrokerError("amqtt is not installed")
        from amqtt.broker import Broker

        # amqtt's log lines quote what clients sent (client ids, topics) and would reach
        # the operator's terminal raw; what the operator needs is in our own lines
        for name in ("amqtt", "transitions"):
            quiet = logging.getLogger(name)
            quiet.setLevel(logging.CRITICAL)
            quiet.propagate = False
        self._reader_class = _guarded_reader_class()
        self._broker = Broker(self._config())
        await self._broker.start()
        try:
            self._server = await asyncio.start_server(
                self._connected, self.address, self.port, ssl=self.tls, reuse_address=True
            )
        except OSError:
            await self._broker.shutdown()
            raise
        self.port = self._server.sockets[0].getsockname()[1]
        return self.port

    async def _connected(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        from amqtt.adapters import StreamWriterAdapter

        peer = writer.get_extra_info("peername") or ("", 0)
        ip = address_group(peer[0])  # an IPv6 /64 is one address, as for the old relay
        if self._open >= self.limits.max_connections:
            await self._refuse(writer, "broker full")
            return
        if self._per_address[ip] >= self.limits.per_address:
            await self._refuse(writer, "too many from one address")
            return
        self._open += 1
        self._per_address[ip] += 1
        self.stats.connections += 1
        task = asyncio.current_task()
        if task is not None:
            self._handlers.add(task)
        try:
            assert self._broker is not None and self._reader_class is not None
            guarded = self._reader_class(reader, self.limits, self.stats)
            stream = StreamWriterAdapter(writer)
            with contextlib.suppress(Exception):  # one client's failure is its own
                await self._broker.external_connected(guarded, stream, "default")
        finally:
            self._open -= 1
            self._per_address[ip] -= 1
            if not self._per_address[ip]:
                del self._per_address[ip]
            if task is not None:
                self._handlers.discard(task)
            writer.close()

    async def _refuse(self, writer: asyncio.StreamWriter, why: str) -> None:
        """Close at once with CONNACK "server unavailable" (3.1.1 return code 3), so the
        client says "refused" at once instead of waiting for its timeout."""
        self.stats.refused[why] += 1
        with contextlib.suppress(Exception):
            writer.write(_CONNACK_UNAVAILABLE)
            await asyncio.wait_for(writer.drain(), 1)
        writer.close()

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
        if self._broker is not None:
            with contextlib.suppress(Exception):
                await self._broker.shutdown()
        for task in list(self._handlers):
            task.cancel()
        if self._handlers:
            await asyncio.gather(*self._handlers, return_exceptions=True)
        if self._server is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._server.wait_closed(), 2)
        self._server = self._broker = None
