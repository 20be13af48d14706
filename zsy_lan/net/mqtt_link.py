"""A peer's link to an MQTT broker: the fallback path of a mesh, through infrastructure
people already run (issue #29).

:class:`~zsy_lan.net.relay_fallback.RelayFallback` drives it, so direct links are
still used wherever they work and the broker carries only what they cannot.

How it speaks: MQTT 3.1.1 (every broker takes it; amqtt refuses MQTT 5) through
aiomqtt, a clean session under a random client id (nothing of the table in
it), no last will (there is nothing a will could say that the broker should
hold), nothing retained. Each peer subscribes to its own inbox topic
(:func:`~zsy_lan.net.broker.inbox_topic`: a hash of the table scope and its
key) and publishes a frame for a peer to that peer's inbox as
``sealed sender (80) | box``: the box sealed end to end
(:mod:`~zsy_lan.net.seal`), and in front of it our CURVE key in an anonymous
``SealedBox`` to the peer, so that whoever reads the topics (on a public broker,
anyone subscribed to ``#``) learns neither who writes nor, from the keys, who
plays at several tables. The key in front is only a claim: the box opens
with the claimed sender's key or it is the broker's doing (altered or
misattributed), never a seat's; replays and reordering fail the box's counter.

QoS 0: the protocol asks again for what is missing (have/want, the lobby's
repeats), and QoS 1's at-least-once would deliver honest duplicates that look
exactly like a broker's replays.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import socket
import ssl
from collections.abc import Callable

import aiomqtt
from nacl.exceptions import CryptoError
from nacl.public import PrivateKey, PublicKey, SealedBox
from paho.mqtt.client import MQTTv311

from zsy_lan.net.broker import BrokerAddress, inbox_topic
from zsy_lan.net.curve import KEY_LEN, CurveKeyPair
from zsy_lan.net.seal import HEADER
from zsy_lan.net.sealed_link import RelayStatus, SealedLink
from zsy_lan.text.sanitize import clean

__all__ = ["MqttLink", "classify"]

log = logging.getLogger("zsy.relay")
#: the MQTT client's own log (a full incoming queue, say), one line per text per minute
client_log = logging.getLogger("zsy.relay.mqtt")


class _Sparse(logging.Filter):
    """Lets each distinct message through once a minute: what a flood through the broker
    makes the client say cannot fill the log."""

    def __init__(self) -> None:
        super().__init__()
        self._last: dict[str, float] = {}

    def filter(self, record: logging.LogRecord) -> bool:
        now, text = record.created, str(record.msg)
        if now - self._last.get(text, -1e9) < 60:
            return False
        if len(self._last) > 64:
            self._last.clear()
        self._last[text] = now
        return True


client_log.addFilter(_Sparse())

#: seconds a connection attempt (TCP, TLS, CONNACK) may take
CONNECT_TIMEOUT = 5.0
#: MQTT keep-alive (seconds): a broker gone silent is noticed within about 1.5 times this
KEEPALIVE = 10
#: seconds between attempts to reach the broker again, growing to the second figure
RETRY_FIRST, RETRY_MOST = 0.5, 5.0
#: messages queued each way before the client drops (a flood through the broker stays bounded)
QUEUED = 1000
#: publishes handed to the client and not yet written
PENDING_MOST = 1000
#: CONNACK codes (3.1.1's 4 and 5, and the MQTT 5 reason codes paho maps them to) that
#: mean "not these credentials"
AUTH_CODES = {4, 5, 134, 135}
#: CONNACK codes that mean "not now, not you in particular": 3.1.1's 3 (server
#: unavailable, what zsy relay's broker answers when it is full or has as many
#: connections from this address as it allows) and MQTT 5's busy, quota, rate
BUSY_CODES = {3, 136, 137, 151, 159}
NACL_OVERHEAD = 24 + 16  # nonce and MAC of a box
#: the sender's key sealed to the receiver: an ephemeral public key, the MAC, the key
SENDER_LEN = 32 + 16 + KEY_LEN


def classify(exc: BaseException) -> tuple[str, str]:
    """``(code, detail)`` for a failed connection: ``auth``, ``busy``, ``tls`` or
    ``unreachable``."""
    if isinstance(exc, aiomqtt.MqttCodeError):
        rc = getattr(exc.rc, "value", exc.rc)
        if rc in AUTH_CODES:
            return "auth", ""
        if rc in BUSY_CODES:
            return "busy", ""
    text = clean(str(exc), 200)
    lowered = text.lower()
    if isinstance(exc, ssl.SSLError) or "ssl" in lowered or "certificate" in lowered:
        return "tls", text
    return "unreachable", text


class MqttLink(SealedLink):
    """Our client at the broker: subscribes to our inbox, publishes boxes to the peers'."""

    def __init__(
        self,
        keypair: CurveKeyPair,
        address: BrokerAddress,
        scope: str,
        *,
        on_frame: Callable[[bytes, int, bytes], None],
        on_fault: Callable[[str, bytes], None],
        max_frame: int = 0,
    ) -> None:
        super().__init__(keypair, on_frame, on_fault)
        self.address = address
        self.scope = scope
        self._inbox = inbox_topic(scope, keypair.public)
        self._to_me = SealedBox(PrivateKey(keypair.secret))
        self._largest = SENDER_LEN + NACL_OVERHEAD + HEADER + max_frame if max_frame else 0
        self._client: aiomqtt.Client | None = None
        self._task: asyncio.Task[None] | None = None
        self._pending: set[asyncio.Task[None]] = set()

    # ---------------------------------------------------------------- driving
    def start(self) -> None:
        """Connect (and keep connecting) in a task of the running loop."""
        self._task = asyncio.get_running_loop().create_task(self._run(), name="zsy-mqtt")

    def close(self) -> None:
        self._client = None
        self.status = RelayStatus()
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
        for t in list(self._pending):
            t.cancel()

    def _tls(self) -> ssl.SSLContext | None:
        if not self.address.tls:
            return None
        ca = self.address.secret()[1]
        try:
            return ssl.create_default_context(cafile=ca or None)
        except (OSError, ValueError) as exc:  # a guest's $ZSY_RELAY_CA that is not one
            why = getattr(exc, "strerror", None) or str(exc)
            raise ssl.SSLError(f"cannot use the certificate file {ca}: {why}") from None

    def _new_client(self) -> aiomqtt.Client:
        password, _ca = self.address.secret()
        return aiomqtt.Client(
            self.address.host,
            self.address.port,
            username=self.address.user or None,
            password=password or None,
            identifier="zsy-" + secrets.token_hex(8),  # nothing of the table or the seat
            protocol=MQTTv311,
            clean_session=True,
            keepalive=KEEPALIVE,
            timeout=CONNECT_TIMEOUT,
            tls_context=self._tls(),
            max_queued_incoming_messages=QUEUED,
            max_queued_outgoing_messages=QUEUED,
            # paho leaves Nagle on: a second small frame then waited for the broker's
            # delayed ACK (40 ms on Linux), 17x the direct latency in bench_relay.py
            socket_options=((socket.IPPROTO_TCP, socket.TCP_NODELAY, 1),),
            logger=client_log,
        )

    async def _run(self) -> None:
        wait = RETRY_FIRST
        while True:
            try:
                async with self._new_client() as client:
                    granted = await client.subscribe(self._inbox, qos=0)
                    if any(getattr(g, "value", g) >= 128 for g in granted):
                        self.status = RelayStatus(False, "not_authorized", "")
                        await asyncio.sleep(RETRY_MOST)
                        continue
                    self._client = client
                    self.status = RelayStatus(registered=True)
                    log.info("registered at relay %s", self.address.endpoint)
                    wait = RETRY_FIRST
                    async for message in client.messages:
                        payload = message.payload
                        if isinstance(payload, bytes | bytearray):
                            self._message(bytes(payload))
            except asyncio.CancelledError:
                raise
            except (aiomqtt.MqttError, OSError, ssl.SSLError, ValueError) as exc:
                code, detail = classify(exc)
                if self.status.registered:
                    log.warning("lost the broker %s: %s", self.address.endpoint, detail)
                self.status = RelayStatus(False, code, detail)
            finally:
                self._client = None
            await asyncio.sleep(wait)
            wait = min(wait * 2, RETRY_MOST)

    # ------------------------------------------------------------------ send
    def _transmit(self, dest: bytes, box: bytes) -> bool:
        client = self._client
        if client is None or len(self._pending) >= PENDING_MOST:
            return False
        topic = inbox_topic(self.scope, dest)
        sender = bytes(SealedBox(PublicKey(dest)).encrypt(self._keypair.public))
        task = asyncio.get_running_loop().create_task(self._publish(client, topic, sender + box))
        self._pending.add(task)
        task.add_done_callback(self._pending.discard)
        return True

    @staticmethod
    async def _publish(client: aiomqtt.Client, topic: str, payload: bytes) -> None:
        with contextlib.suppress(aiomqtt.MqttError):  # lost: the protocol asks again
            await client.publish(topic, payload, qos=0, retain=False)

    # --------------------------------------------------------------- receive
    def _message(self, payload: bytes) -> None:
        """A message on our inbox: ``sealed sender | box`` (anyone with publish rights
        may have written it; what does not open is the broker's doing)."""
        if len(payload) < SENDER_LEN + NACL_OVERHEAD + HEADER or (
            self._largest and len(payload) > self._largest
        ):
            self._on_fault("misaddressed", b"")
            return
        try:
            src = self._to_me.decrypt(payload[:SENDER_LEN])
        except (CryptoError, ValueError, TypeError):
            self._on_fault("altered", b"")
            return
        self._arrived(src, payload[SENDER_LEN:])
