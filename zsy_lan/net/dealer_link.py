"""One outbound link of the mesh: its DEALER, the monitor that watches the handshake, and the
supervisor that rebuilds it after a refusal.

Why an object of its own: the mesh (:class:`~zsy_lan.net.transport.Mesh`)
decides who it links to and what it does with a frame; keeping one link up (the
CURVE handshake followed on the monitor socket, the back-off after a refused
handshake, the link's state and its events, the direct ping's pong) is this
object's business alone. The mesh hands it what it needs as callables: a fresh
socket, how to close one, where a frame goes, whether the peer is still
admitted, and who hears of a state change.
"""

from __future__ import annotations

import asyncio
import enum
import logging
import time
from collections.abc import Awaitable, Callable, Hashable
from dataclasses import dataclass

import zmq
import zmq.asyncio
from zmq.utils.monitor import parse_monitor_message

log = logging.getLogger("zsy_lan.net.transport")

#: Any hashable label the caller picks for a peer (usually its seat number).
PeerId = Hashable

#: Mesh-level control frames on a direct link (a ping and its pong, only while a relay is
#: attached, for the table's round-trip times). No protocol or lobby frame starts so.
NET_MAGIC = b"ZSYNET\x00"

#: what the monitor of a DEALER reports (the handshake's outcome, a lost connection)
MONITOR_EVENTS = (
    zmq.EVENT_HANDSHAKE_SUCCEEDED
    | zmq.EVENT_HANDSHAKE_FAILED_AUTH
    | zmq.EVENT_HANDSHAKE_FAILED_PROTOCOL
    | zmq.EVENT_HANDSHAKE_FAILED_NO_DETAIL
    | zmq.EVENT_DISCONNECTED
    | zmq.EVENT_MONITOR_STOPPED
)


class LinkState(enum.Enum):
    """State of our outbound link (DEALER) to a peer."""

    CONNECTING = "connecting"
    CONNECTED = "connected"
    DISCONNECTED = "disconnected"
    AUTH_FAILED = "auth_failed"  # the peer's ZAP handler refused our key
    HANDSHAKE_FAILED = "handshake_failed"  # protocol error, e.g. wrong server key
    CLOSED = "closed"


@dataclass(frozen=True)
class LinkEvent:
    """A change of an outbound link, passed to the ``on_link`` callback."""

    peer_id: PeerId
    state: LinkState
    endpoint: str
    detail: str = ""


Sockets = tuple[zmq.asyncio.Socket, zmq.asyncio.Socket]  # a DEALER and its monitor


class DealerLink:
    """Our DEALER to one peer's ROUTER, kept up by its own supervisor task.

    ``new_socket()`` makes a configured DEALER (not connected) and its monitor;
    ``close_socket(sock, mon)`` closes such a pair; ``deliver(peer_id, frame)``
    takes each frame read; ``drop(reason, detail)`` counts one refused;
    ``admitted()`` says whether the peer's key still maps to this link;
    ``on_link`` hears each :class:`LinkEvent`.
    """

    def __init__(
        self,
        peer_id: PeerId,
        endpoint: str,
        public_key: bytes,
        sockets: Sockets,
        *,
        new_socket: Callable[[], Sockets],
        close_socket: Callable[[zmq.asyncio.Socket, zmq.asyncio.Socket], None],
        deliver: Callable[[PeerId, bytes], Awaitable[None]],
        drop: Callable[[str, object], None],
        admitted: Callable[[], bool],
        on_link: Callable[[LinkEvent], None] | None,
        reconnect_ivl_ms: int,
        reconnect_ivl_max_ms: int,
    ) -> None:
        self.peer_id = peer_id
        self.endpoint = endpoint
        self.public_key = public_key
        self.socket, self.monitor = sockets
        self.state = LinkState.CONNECTING
        self.connected = asyncio.Event()
        self.supervisor: asyncio.Task | None = None
        # A plain (non-asyncio) view of ``socket`` for send_now, and which socket it views.
        self.plain: zmq.Socket | None = None
        self.plain_of: zmq.asyncio.Socket | None = None
        # since when the direct link is down (the relay takes over after a grace, see
        # Mesh.attach_relay) and its round-trip time (seconds)
        self.down_since = time.monotonic()
        self.rtt_direct: float | None = None
        self._new_socket = new_socket
        self._close_socket = close_socket
        self._deliver = deliver
        self._drop = drop
        self._admitted = admitted
        self._on_link = on_link
        self._reconnect_ivl_ms = reconnect_ivl_ms
        self._reconnect_ivl_max_ms = reconnect_ivl_max_ms

    def start(self) -> None:
        """Run the supervisor (the first ``connect`` was the caller's) and say CONNECTING."""
        self.supervisor = asyncio.create_task(self._supervise(), name=f"zsy-link-{self.peer_id}")
        self.emit(LinkState.CONNECTING)

    def plain_socket(self) -> zmq.Socket | None:
        """The plain view of the current socket (None once it is closed)."""
        sock = self.socket
        if sock.closed:
            return None
        if self.plain_of is not sock:  # a rebuilt link has a new socket
            self.plain, self.plain_of = zmq.Socket.shadow(sock.underlying), sock
        return self.plain

    async def _supervise(self) -> None:
        """Run the link: connect, read, watch the handshake; rebuild it after a refusal.

        libzmq reconnects by itself after a lost TCP connection, but a CURVE
        handshake failure (e.g. the peer's ZAP handler did not know our key
        yet because its roster update is still on the way) ends the session
        for good. We then build a fresh DEALER and retry with back-off.
        """
        delay = self._reconnect_ivl_ms / 1000
        first = True
        while True:
            sock, mon = self.socket, self.monitor
            reader = asyncio.create_task(self._read(sock))
            try:
                if not first:  # the first connect() happened in connect_peer
                    await asyncio.sleep(delay)
                    delay = min(delay * 2, max(self._reconnect_ivl_max_ms / 1000, 0.05) * 2)
                    try:
                        sock.connect(self.endpoint)
                    except zmq.ZMQError as exc:
                        log.warning("reconnect to %s failed: %s", self.endpoint, exc)
                        ok = False
                    else:
                        ok = await self._watch(mon)
                else:
                    ok = await self._watch(mon)
                first = False
            finally:
                reader.cancel()
                await asyncio.wait([reader], timeout=1.0)
            if ok:  # monitor stopped: the link is being closed
                return
            # Handshake refused: swap in a fresh socket first so that a send
            # in progress moves over to it, then drop the old one.
            self.socket, self.monitor = self._new_socket()
            self._close_socket(sock, mon)

    async def _watch(self, mon: zmq.asyncio.Socket) -> bool:
        """Follow monitor events; False when the handshake failed, True when stopped."""
        while True:
            msg = await mon.recv_multipart()
            try:
                ev = parse_monitor_message(msg)
            except Exception:
                continue
            kind = ev["event"]
            if kind == zmq.EVENT_MONITOR_STOPPED:
                return True
            if kind == zmq.EVENT_HANDSHAKE_SUCCEEDED:
                self.connected.set()
                self.emit(LinkState.CONNECTED)
            elif kind == zmq.EVENT_DISCONNECTED:
                self.connected.clear()
                if self.state is LinkState.CONNECTED:
                    self.emit(LinkState.DISCONNECTED)
            elif kind == zmq.EVENT_HANDSHAKE_FAILED_AUTH:
                self.connected.clear()
                self.emit(LinkState.AUTH_FAILED, f"ZAP status {ev['value']}")
                return False
            else:  # HANDSHAKE_FAILED_PROTOCOL / NO_DETAIL, e.g. a wrong server key
                self.connected.clear()
                self.emit(LinkState.HANDSHAKE_FAILED, str(ev["value"]))
                return False

    async def _read(self, sock: zmq.asyncio.Socket) -> None:
        while True:
            frames = await sock.recv_multipart()
            if len(frames) != 1:
                self._drop("multipart", len(frames))
                continue
            if not self._admitted():
                self._drop("revoked", "")
                continue
            if frames[0].startswith(NET_MAGIC):  # the pong of our direct ping
                body = frames[0][len(NET_MAGIC) :]
                if len(body) == 9 and body[0] == 1:
                    sent = int.from_bytes(body[1:], "big")
                    self.rtt_direct = max(time.monotonic_ns() - sent, 0) / 1e9
                continue
            await self._deliver(self.peer_id, frames[0])

    def emit(self, state: LinkState, detail: str = "") -> None:
        """Enter ``state`` and tell ``on_link`` (a repeated state is said once)."""
        if self.state is state and state is not LinkState.CONNECTING:
            return
        if self.state is LinkState.CONNECTED:
            self.down_since = time.monotonic()  # the relay takes over after direct_grace
        self.state = state
        if self._on_link is None:
            return
        try:
            self._on_link(LinkEvent(self.peer_id, state, self.endpoint, detail))
        except Exception:
            log.exception("on_link callback failed")

    async def close(self) -> None:
        """Stop the supervisor and close the socket (the mesh forgets the link)."""
        if self.supervisor is not None:
            self.supervisor.cancel()
            await asyncio.wait([self.supervisor], timeout=1.0)
        self._close_socket(self.socket, self.monitor)
        self.connected.clear()
