"""ZeroMQ transport: a CURVE-encrypted full mesh of peers (thin asyncio shell).

This module moves opaque byte frames between peers and knows nothing about
their meaning; the sans-IO protocol (``zsy_lan.protocol``) does the rest.

Shape of the mesh
-----------------
Every peer runs one :class:`Mesh`:

* one **ROUTER** socket, bound to ``tcp://ADDR:PORT`` (port 0 picks a free
  port; :attr:`Mesh.endpoint` reports the bound endpoint). It is a CURVE
  *server*: every inbound connection is encrypted and its client key is
  checked by our own ZAP handler (see "Admission" below).
* one **DEALER** per other peer (:meth:`Mesh.connect_peer`), a CURVE *client*
  that pins the other peer's public key, so it only ever talks to the holder
  of that key. Its routing identity is ``b"Z" + public_key`` (33 bytes; libzmq
  reserves identities that start with a zero byte).

Frames to a roster peer go out on our DEALER to its ROUTER; frames from it
arrive on our ROUTER (and, if it ever answers on its ROUTER, on our DEALER).
The sender of a frame is taken from the CURVE key that the handshake
authenticated (the ZAP ``User-Id`` of the connection), never from a claimed
routing identity; a frame whose routing identity does not match its
authenticated key is dropped. A peer we accepted but never connected to (a
lobby *guest*) is answered over our ROUTER, on the connection it opened.

Admission (CURVE + ZAP) and the lobby
-------------------------------------
Each peer has an X25519 key pair (:class:`CurveKeyPair`, raw 32-byte keys,
z85 only for display/TXT). A minimal ZAP handler (an ``inproc`` REP socket in
the mesh's own context, bound *before* the ROUTER: with no handler libzmq
would accept every CURVE client) admits a client key when

* it is a roster key (:meth:`Mesh.admit` / :meth:`Mesh.connect_peer`), or
* the mesh is in **open admission** (:meth:`Mesh.set_open_admission`), which
  the host uses only while its lobby is open, and the ROUTER holds no more
  connections than the admitted keys plus ``MeshOptions.max_guest_connections``
  (a monitor counts them): libzmq keeps every CURVE session until its client
  goes and cannot close one ROUTER connection, so guests are bounded here.

We chose "open CURVE lobby" over a plain-text lobby: there is only one code
path, all traffic (the join request too) is encrypted, and the joiner
authenticates the host by the CURVE key it got from the mDNS TXT record
(``ck``) or the ``tcp://...`` join URL. Frames from an unknown key in open
admission are delivered with the peer id :class:`Guest` (its key), so the
lobby protocol can seat it (``connect_peer(seat, endpoint, key)`` then maps
the key to the seat) or refuse it. Once the lobby closes
(``set_open_admission(False)``), only roster keys pass the ZAP handshake, and
frames still arriving from a non-roster key on an older connection are
dropped at receive time (libzmq cannot kick one connection off a ROUTER).
Keys can be added at any time (:meth:`Mesh.admit`) when the roster grows.
A refused handshake ends a libzmq session for good (no automatic retry), so
each link has a supervisor task that rebuilds the DEALER with back-off: peers
may connect before the other side has admitted their key.
Binding the CURVE key to the player's Ed25519 identity (a signed key in the
lobby messages) is the protocol's job, not this module's.

Socket options (and why)
------------------------
* ``LINGER=0`` everywhere: closing never waits for unsent data.
* ``ROUTER_MANDATORY=1``: a send to a routing id with no connection raises
  ``EHOSTUNREACH`` (reported as ``False``) instead of vanishing silently.
* ``ROUTER_HANDOVER=1``: a reconnecting peer takes over its stale pipe. Without
  it libzmq silently ignores a reconnect whose identity is still registered
  (seen here: after a dropped connection the DEALER believed it was connected
  and nothing arrived).
* ZMTP heartbeats (``HEARTBEAT_IVL/TIMEOUT/TTL``): a dead TCP link is noticed
  in seconds, not at the next TCP timeout.
* ``RECONNECT_IVL`` / ``RECONNECT_IVL_MAX`` short, ``CONNECT_TIMEOUT``
  bounded: a peer coming back (or a healed partition) is reconnected within
  about a second, not after a SYN back-off of minutes.
* ``IMMEDIATE=1`` on DEALERs: nothing is queued for a peer that is not
  connected, so :meth:`Mesh.send` waits (bounded) for the link and then
  reports ``False`` instead of piling up stale frames.
* ``MAXMSGSIZE`` (256 KiB default) on every socket: libzmq drops an oversized
  frame *and the connection it came on*; the sender reconnects. Our own
  :meth:`Mesh.send` refuses oversized frames up front
  (:class:`FrameTooLargeError`).

Delivery is NOT reliable
------------------------
ZeroMQ does not guarantee delivery across a reconnect: frames in flight (in
kernel buffers, or behind an oversized frame) when a connection drops are
lost, and ``IMMEDIATE`` discards what was queued for it. The protocol layer
numbers its messages and re-sends; this module only promises "each frame
arrives whole, at most once, in order per link, from the key it claims".

Relay fallback
--------------
:meth:`Mesh.attach_relay` adds one more path: a client of an MQTT broker
(:mod:`zsy_lan.net.mqtt_link`; ``zsy relay`` starts one, any other serves too). A link whose direct
connection is up uses it; one whose direct connection has been down for
``MeshOptions.direct_grace``, or whose peer already answers through the
relay, sends through the relay, each frame sealed end to end (a box of the
two peers' CURVE keys). Frames that come through the relay are delivered as
if direct, labelled from the key the box proves; what only the relay can
have done (a box altered, misaddressed, replayed) is counted in
:attr:`Mesh.relay_faults` and reported to ``on_relay_fault``, never charged
to a peer. Links are pinged once a second (``NET_MAGIC`` control frames on a
direct link, sealed pings through the relay) for :meth:`Mesh.link_report`; a
direct link not timed yet sooner, and without a relay too (``link_probe``).

Teardown
--------
:meth:`Mesh.close` cancels its tasks, stops the monitors (monitor sockets
first: a context will not terminate while one is open), then calls
``ctx.destroy(linger=0)``. It never hangs. On Windows, run the loop with
``asyncio.Runner(loop_factory=asyncio.SelectorEventLoop)`` (pyzmq asyncio).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import weakref
from collections import Counter
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import zmq
import zmq.asyncio
from zmq.utils import z85

from zsy_lan.net.broker import BrokerAddress
from zsy_lan.net.curve import (
    DEFAULT_MAX_MESSAGE_SIZE,
    KEY_LEN,
    CurveKeyPair,
    raw_key,
    routing_id_for,
)
from zsy_lan.net.dealer_link import (
    MONITOR_EVENTS,
    NET_MAGIC,
    DealerLink,
    LinkEvent,
    LinkState,
    PeerId,
)
from zsy_lan.net.inbox import CLOSED, Inbox
from zsy_lan.net.link_probe import probe_direct
from zsy_lan.net.relay_fallback import RelayFallback
from zsy_lan.net.zap_gate import ZAP_DOMAIN, ZapGate

if TYPE_CHECKING:
    from zsy_lan.net.mqtt_link import MqttLink

__all__ = [
    "DEFAULT_MAX_MESSAGE_SIZE",
    "RELAYED",
    "CurveKeyPair",
    "FrameTooLargeError",
    "Guest",
    "LinkEvent",
    "LinkState",
    "Mesh",
    "MeshClosedError",
    "MeshOptions",
    "PeerId",
    "TransportError",
    "UnknownPeerError",
    "routing_id_for",
]

log = logging.getLogger(__name__)

ROUTER_BATCH = 64  # frames read per reader callback before the loop runs others
ROUTER_SEND_RETRY = 0.002  # seconds between tries of a ROUTER send that found no room
#: :meth:`Mesh.guest_address` of a guest heard only through the relay.
RELAYED = "relay"
GUEST_ADDRESSES_KEPT = 256  # guest keys whose source address is remembered (Mesh.guest_address)
#: pyzmq's private method that re-arms an asyncio socket after a plain send (Mesh.send_now);
#: tests/net/test_send_now_seam.py fails when the installed pyzmq no longer has it
REARM = "_schedule_remaining_events"



class TransportError(Exception):
    """Base class of transport errors."""


class UnknownPeerError(TransportError):
    """A send or disconnect named a peer the mesh has no link to."""


class FrameTooLargeError(TransportError, ValueError):
    """A frame exceeds the mesh's MAXMSGSIZE; the receiver would drop it."""



def close_monitored(sock: zmq.Socket, mon: zmq.Socket | None) -> None:
    """Close ``sock`` with linger 0, its monitor first (monitoring stopped before).

    libzmq's context termination waits for a monitor's undelivered events: a
    monitored socket closed any other way can leave the context unable to end.
    """
    if mon is not None:
        if not sock.closed:
            with contextlib.suppress(zmq.ZMQError):
                sock.disable_monitor()
        mon.close(linger=0)
    if not sock.closed:
        sock.close(linger=0)


def close_sockets(socks: dict[int, tuple[zmq.Socket, zmq.Socket | None]], ctx: zmq.Context) -> None:
    """Close a mesh's monitored and plain sockets, then destroy its context.

    What :meth:`Mesh.close` ends with, and what a mesh dropped without it gets
    when it is collected (a ``weakref.finalize``, which CPython calls before the
    destructors of the same garbage). Left to the context's own destructor, a
    dropped mesh hung its process: that destructor closes only the sockets the
    context made (not the ROUTER made on its shadow), without stopping their
    monitors, and then waits for all of them for ever (seen in CI: a test
    frozen in ``Context.__del__`` at a garbage collection long after another
    test lost a mesh).
    """
    for sock, mon in list(socks.values()):
        with contextlib.suppress(Exception):
            close_monitored(sock, mon)
    socks.clear()
    with contextlib.suppress(Exception):
        ctx.destroy(linger=0)


class MeshClosedError(TransportError):
    """The mesh is closed."""


@dataclass(frozen=True)
class Guest:
    """Peer id of an admitted-by-open-lobby client that is not on the roster."""

    public_key: bytes

    def __repr__(self) -> str:
        return f"Guest({z85.encode(self.public_key).decode()[:10]}…)"


@dataclass(frozen=True)
class MeshOptions:
    """Socket tuning. Defaults suit a LAN; tests shorten the heartbeats."""

    heartbeat_ivl_ms: int = 1000
    heartbeat_timeout_ms: int = 3000
    heartbeat_ttl_ms: int = 6000
    reconnect_ivl_ms: int = 100
    reconnect_ivl_max_ms: int = 1000
    connect_timeout_ms: int = 1000
    max_message_size: int = DEFAULT_MAX_MESSAGE_SIZE
    send_timeout: float = 2.0  # seconds a send may wait for a link / HWM room
    inbox_size: int = 10_000  # received frames buffered before back-pressure
    #: In open admission, a non-roster key passes the handshake only while the ROUTER
    #: holds fewer connections than the admitted keys plus this (None: no cap).
    max_guest_connections: int | None = 32
    #: A connection that has not finished its CURVE handshake by then is closed.
    handshake_ivl_ms: int = 5000
    #: With a relay attached: seconds a link's direct connection may be down before its
    #: frames go through the relay (the direct link is preferred whenever it is up).
    direct_grace: float = 1.0


class Mesh:
    """One peer's end of the CURVE mesh. Create with :meth:`Mesh.start`."""

    def __init__(self) -> None:  # use Mesh.start()
        self._user_keys: dict[str, bytes] = {}
        self._ctx: zmq.asyncio.Context | None = None
        self._router: zmq.Socket | None = None  # plain socket: read by _on_router_readable
        self._paused: asyncio.Task | None = None  # inbox full: the frame waiting for room
        self._gate: ZapGate | None = None  # the ZAP handler (admission, guest cap)
        self._keypair: CurveKeyPair | None = None
        self._options = MeshOptions()
        self._on_link: Callable[[LinkEvent], None] | None = None
        self._open = False
        self._closed = False
        self._key_to_peer: dict[bytes, PeerId] = {}
        self._peer_to_key: dict[PeerId, bytes] = {}
        self._links: dict[PeerId, DealerLink] = {}
        self._tasks: list[asyncio.Task] = []
        self._inbox = Inbox(0, self._drop)  # replaced, bounded, in start()
        self.endpoint = ""
        #: Counters of refused input by reason (e.g. "unadmitted", "bad_routing_id").
        self.dropped: Counter[str] = Counter()
        self._relay: RelayFallback | None = None  # the fallback path (attach_relay)
        # every socket of the context that it may not close alone: see close_sockets
        self._socks: dict[int, tuple[zmq.Socket, zmq.Socket | None]] = {}
        self._finalizer: weakref.finalize | None = None
        #: What the relay did that only a relay can do (boxes altered, misaddressed, replayed).
        self.relay_faults: Counter[str] = Counter()
        self.on_relay_fault: Callable[[str, PeerId], None] | None = None
        #: Source IP address of each guest key's last frame (:meth:`guest_address`), bounded.
        self._guest_addresses: dict[bytes, str] = {}

    # ------------------------------------------------------------------ setup
    @classmethod
    async def start(
        cls,
        bind_addr: str,
        port: int,
        secret_key: bytes | str,
        public_key: bytes | str | None = None,
        *,
        open_admission: bool = False,
        options: MeshOptions | None = None,
        on_link: Callable[[LinkEvent], None] | None = None,
    ) -> Mesh:
        """Bind the ROUTER on ``tcp://bind_addr:port`` (0 = any free port) and start.

        ``secret_key``/``public_key`` are this peer's CURVE keys (raw 32 bytes
        or z85); the public key is derived when omitted and checked when
        given. ``on_link`` is called (in the loop) for every
        :class:`LinkEvent` of an outbound link.
        """
        self = cls()
        kp = CurveKeyPair.from_secret(secret_key)
        if public_key is not None and raw_key(public_key) != kp.public:
            raise ValueError("public_key does not belong to secret_key")
        self._keypair = kp
        self._options = options or MeshOptions()
        self._on_link = on_link
        self._open = open_admission
        self._inbox = Inbox(self._options.inbox_size, self._drop)
        self._ctx = zmq.asyncio.Context()
        # a mesh dropped without close() must not hang its process: see close_sockets
        self._finalizer = weakref.finalize(self, close_sockets, self._socks, self._ctx)
        try:
            # The ZAP handler must exist before the first CURVE handshake.
            self._gate = gate = ZapGate(
                on_roster=self._key_to_peer.__contains__,
                roster_size=self._key_to_peer.__len__,
                is_open=lambda: self._open,
                cap=self._options.max_guest_connections,
                dropped=self.dropped,
            )
            zap = self._ctx.socket(zmq.REP)
            zap.linger = 0
            self._socks[id(zap)] = (zap, None)
            gate.bind(zap)
            self._tasks.append(asyncio.create_task(gate.serve(), name="zsy-zap"))

            # A plain (not asyncio) socket on the same context: frames are read in
            # the loop's reader callback, with no Future per frame (see _on_router_readable).
            r = zmq.Context.shadow(self._ctx.underlying).socket(zmq.ROUTER)
            self._router = r
            self._common_options(r)
            r.router_mandatory = 1
            r.router_handover = 1
            r.curve_server = 1
            r.curve_secretkey = z85.encode(kp.secret)
            r.curve_publickey = z85.encode(kp.public)
            r.zap_domain = ZAP_DOMAIN
            r.handshake_ivl = self._options.handshake_ivl_ms
            # counts the ROUTER's open connections, for the guest cap (see ZapGate)
            self._socks[id(r)] = (r, None)
            self._socks[id(r)] = (r, gate.watch(r))
            self._tasks.append(asyncio.create_task(gate.count_loop(), name="zsy-count"))
            if ":" in bind_addr:
                r.ipv6 = 1
                host = f"[{bind_addr}]"
            else:
                host = bind_addr
            r.bind(f"tcp://{host}:{port if port else '*'}")
            self.endpoint = r.last_endpoint.decode()
            loop = asyncio.get_running_loop()
            loop.add_reader(r.getsockopt(zmq.FD), self._on_router_readable)
            loop.call_soon(self._on_router_readable)  # anything queued before the reader
            probe = probe_direct(
                lambda: list(self._links.values()),
                self._ping_direct,
                lambda: self._relay is not None,
            )
            self._tasks.append(asyncio.create_task(probe, name="zsy-probe-direct"))
        except BaseException:
            await self.close()
            raise
        log.debug("mesh bound %s", self.endpoint)
        return self

    def _common_options(self, s: zmq.Socket) -> None:
        o = self._options
        s.linger = 0
        s.maxmsgsize = o.max_message_size
        s.heartbeat_ivl = o.heartbeat_ivl_ms
        s.heartbeat_timeout = o.heartbeat_timeout_ms
        s.heartbeat_ttl = o.heartbeat_ttl_ms

    # ------------------------------------------------------------- properties
    @property
    def public_key(self) -> bytes:
        assert self._keypair is not None
        return self._keypair.public

    @property
    def port(self) -> int:
        return int(self.endpoint.rsplit(":", 1)[1])

    @property
    def options(self) -> MeshOptions:
        return self._options

    @property
    def closed(self) -> bool:
        return self._closed

    @property
    def open_admission(self) -> bool:
        return self._open

    @property
    def peers(self) -> list[PeerId]:
        """Peers with an outbound link (those :meth:`broadcast` sends to)."""
        return list(self._links)

    def link_state(self, peer_id: PeerId) -> LinkState:
        link = self._links.get(peer_id)
        if link is None:
            raise UnknownPeerError(f"no link to peer {peer_id!r}")
        return link.state

    def is_connected(self, peer_id: PeerId) -> bool:
        """The peer is reachable: its direct link is up, or it answers through the relay."""
        link = self._links.get(peer_id)
        if link is None:
            return False
        return link.state is LinkState.CONNECTED or self._relay_alive(link)

    async def wait_connected(self, peer_id: PeerId, timeout: float) -> bool:
        """Wait until ``peer_id`` is reachable (see :meth:`is_connected`)."""
        link = self._links.get(peer_id)
        if link is None:
            raise UnknownPeerError(f"no link to peer {peer_id!r}")
        if self._relay is None:
            try:
                await asyncio.wait_for(link.connected.wait(), timeout)
            except TimeoutError:
                return False
            return True
        deadline = time.monotonic() + timeout
        while not self.is_connected(peer_id):
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(link.connected.wait(), min(left, 0.05))
        return True

    # -------------------------------------------------------------- admission
    def guest_address(self, key: bytes) -> str:
        """The source IP address a guest's (CURVE ``key``) last frame came from; ``""``: unknown.

        The host's lobby bounds what one address may hold (waiting places), so a
        stranger with many fresh keys on one machine cannot take them all. A guest
        heard only through the relay has no address of its own here: :data:`RELAYED`.
        """
        return self._guest_addresses.get(key, "")

    def set_open_admission(self, open_: bool) -> None:
        """Admit any CURVE client (lobby open) or only roster keys (lobby closed)."""
        self._open = bool(open_)

    def admit(self, peer_id: PeerId, public_key: bytes | str) -> None:
        """Admit ``public_key`` on our ROUTER and label its frames ``peer_id``."""
        self._check_open()
        if isinstance(peer_id, Guest):
            raise ValueError("a roster peer id cannot be a Guest")
        key = raw_key(public_key)
        other = self._key_to_peer.get(key)
        if other is not None and other != peer_id:
            raise ValueError(f"key already admitted for peer {other!r}")
        old = self._peer_to_key.get(peer_id)
        if old is not None and old != key:
            del self._key_to_peer[old]
        self._key_to_peer[key] = peer_id
        self._peer_to_key[peer_id] = key

    def revoke(self, peer_id: PeerId) -> None:
        """Stop admitting ``peer_id``'s key; its frames are dropped from now on."""
        key = self._peer_to_key.pop(peer_id, None)
        if key is not None:
            self._key_to_peer.pop(key, None)

    def peer_for_key(self, public_key: bytes) -> PeerId | None:
        return self._key_to_peer.get(raw_key(public_key))

    # ------------------------------------------------------------------ links
    def linked(self, peer_id: PeerId, public_key: bytes | str) -> bool:
        """True when ``peer_id`` has a link to ``public_key`` already, at whatever address.

        A joiner reached the host at the address its player typed (``localhost``, an
        overlay's address, a forwarded port); the roster names the address the host
        bound. Both lead to the same key: the link that works is kept
        (:meth:`connect_peer` to that key again does nothing).
        """
        link = self._links.get(peer_id)
        return link is not None and link.public_key == raw_key(public_key)

    def connect_peer(self, peer_id: PeerId, endpoint: str, server_public_key: bytes | str) -> None:
        """Admit the peer's key and open a DEALER to its ROUTER at ``endpoint``.

        Returns at once; the link connects (and reconnects) in the background.
        Use :meth:`wait_connected` or the ``on_link`` callback to know when.
        """
        self._check_open()
        key = raw_key(server_public_key)
        if self.linked(peer_id, key):  # the same peer, maybe at another address
            return
        if peer_id in self._links:
            raise ValueError(f"peer {peer_id!r} already linked; disconnect_peer first")
        if not endpoint.startswith("tcp://"):
            raise ValueError(f"endpoint must be tcp://ADDR:PORT, got {endpoint!r}")
        if isinstance(peer_id, Guest):
            raise ValueError("a roster peer id cannot be a Guest")
        other = self._key_to_peer.get(key)
        if other is not None and other != peer_id:
            raise ValueError(f"key already admitted for peer {other!r}")
        sock, mon = self._new_dealer(key, endpoint)
        try:
            sock.connect(endpoint)  # a malformed endpoint raises here, to the caller
        except zmq.ZMQError as exc:
            self._close_dealer(sock, mon)
            raise ValueError(f"cannot connect to {endpoint!r}: {exc}") from exc
        self.admit(peer_id, key)  # checked above: cannot fail
        link = DealerLink(
            peer_id,
            endpoint,
            key,
            (sock, mon),
            new_socket=lambda: self._new_dealer(key, endpoint),
            close_socket=self._close_dealer,
            deliver=self._inbox.put,
            drop=self._drop,
            admitted=lambda: self._key_to_peer.get(key) == peer_id,
            on_link=self._on_link,
            reconnect_ivl_ms=self._options.reconnect_ivl_ms,
            reconnect_ivl_max_ms=self._options.reconnect_ivl_max_ms,
        )
        self._links[peer_id] = link
        link.start()

    def _new_dealer(
        self, server_key: bytes, endpoint: str
    ) -> tuple[zmq.asyncio.Socket, zmq.asyncio.Socket]:
        """A configured DEALER (not yet connected) and its monitor socket."""
        assert self._ctx is not None and self._keypair is not None
        o = self._options
        d = self._ctx.socket(zmq.DEALER)
        try:
            self._common_options(d)
            d.routing_id = routing_id_for(self._keypair.public)
            d.immediate = 1
            d.reconnect_ivl = o.reconnect_ivl_ms
            d.reconnect_ivl_max = o.reconnect_ivl_max_ms
            d.connect_timeout = o.connect_timeout_ms
            d.curve_serverkey = z85.encode(server_key)
            d.curve_publickey = z85.encode(self._keypair.public)
            d.curve_secretkey = z85.encode(self._keypair.secret)
            if endpoint.startswith("tcp://["):
                d.ipv6 = 1
            mon = d.get_monitor_socket(MONITOR_EVENTS)
        except BaseException:
            d.close(linger=0)
            raise
        self._socks[id(d)] = (d, mon)
        return d, mon

    def _close_dealer(self, sock: zmq.asyncio.Socket, mon: zmq.asyncio.Socket) -> None:
        self._socks.pop(id(sock), None)
        close_monitored(sock, mon)

    async def disconnect_peer(self, peer_id: PeerId, *, revoke: bool = True) -> None:
        """Close the outbound link to ``peer_id`` (and by default revoke its key)."""
        link = self._links.pop(peer_id, None)
        if revoke:
            self.revoke(peer_id)
        if link is None:
            if not revoke:
                raise UnknownPeerError(f"no link to peer {peer_id!r}")
            return
        await link.close()
        if self._relay is not None:
            self._relay.forget(link.public_key)
        link.emit(LinkState.CLOSED)

    # ------------------------------------------------------------------ relay
    async def attach_relay(
        self,
        address: BrokerAddress,
        scope: str,
        *,
        timeout: float = 5.0,
    ) -> str:
        """Use the MQTT broker at ``address`` as every link's fallback, for table ``scope``
        (its topics are derived from it, :func:`~zsy_lan.net.broker.inbox_topic`).

        Waits up to ``timeout`` for the connection and returns
        ``""`` when connected, else why not: ``"auth"``, ``"tls"``, ``"not_authorized"``
        or ``"unreachable"``; the link keeps trying either way. Frames through it are
        sealed end to end (:mod:`zsy_lan.net.seal`).
        """
        self._check_open()
        assert self._keypair is not None
        if self._relay is not None:
            raise TransportError("a relay is already attached to this mesh")
        o = self._options
        self._relay = relay = RelayFallback(
            self._keypair,
            address,
            scope,
            grace=o.direct_grace,
            deliver=self._from_relay,
            linked=self._linked,
            on_fault=self._on_relay_fault,
            max_frame=o.max_message_size + 512,
        )
        relay.link.start()
        probe = relay.probe(lambda: list(self._links.values()), self._ping_direct)
        self._tasks.append(asyncio.create_task(probe, name="zsy-probe"))
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            st = relay.status
            if st.registered or st.refused:
                return st.refused
            await asyncio.sleep(0.02)
        return relay.status.refused or "unreachable"

    @property
    def relay(self) -> MqttLink | None:
        """The relay link (``None`` without a relay)."""
        return self._relay.link if self._relay is not None else None

    def _via_relay(self, link: DealerLink) -> bool:
        """Frames for ``link`` go through the relay now (its direct link is down long enough)."""
        return self._relay is not None and self._relay.via(link.public_key, link.down_since)

    def _relay_alive(self, link: DealerLink) -> bool:
        return self._relay is not None and self._relay.alive(link.public_key)

    def _ping_direct(self, link: DealerLink) -> None:
        """A ping on ``link``'s direct connection; its pong times the direct path."""
        self.send_now(link.peer_id, NET_MAGIC + b"\x00" + time.monotonic_ns().to_bytes(8, "big"))

    def _linked(self, key: bytes) -> bool:
        """``key`` is a peer this mesh has a link to (the relay times only those)."""
        peer = self._key_to_peer.get(key)
        return peer is not None and peer in self._links

    def _from_relay(self, key: bytes, frame: bytes) -> None:
        """A frame a peer sent through the relay: delivered as if direct."""
        if self._closed:
            return
        peer = self._key_to_peer.get(key)
        if peer is None:
            if not self._open:
                self._drop("unadmitted")
                return
            assert self._relay is not None
            self._relay.note_guest(key)
            peer = Guest(key)
            self._remember_guest_address(key, RELAYED)  # no address of its own here
        if not self._inbox.put_now(peer, frame):  # the protocol asks again for what is missing
            self._drop("inbox_full")

    def _on_relay_fault(self, what: str, key: bytes) -> None:
        """A box the relay altered, misaddressed or replayed: the relay's doing, not a seat's."""
        self.relay_faults[what] += 1
        peer = self._key_to_peer.get(key, Guest(key) if len(key) == KEY_LEN else None)
        n = self.relay_faults[what]
        if n & (n - 1) == 0:  # the 1st, 2nd, 4th, 8th...: a flood cannot fill the log
            log.warning(
                "the relay %s a frame (claimed sender %r): dropped (%d so far)", what, peer, n
            )
        if self.on_relay_fault is not None:
            try:
                self.on_relay_fault(what, peer)
            except Exception:
                log.exception("on_relay_fault callback failed")

    def link_report(self) -> dict[PeerId, tuple[str, float | None]]:
        """Each linked peer's path now (``direct``, ``relay`` or ``down``) and its RTT (s)."""
        out: dict[PeerId, tuple[str, float | None]] = {}
        for peer_id, link in self._links.items():
            if link.state is LinkState.CONNECTED:
                out[peer_id] = ("direct", link.rtt_direct)
            elif self._relay is not None and self._relay.alive(link.public_key):
                out[peer_id] = ("relay", self._relay.rtt.get(link.public_key))
            else:
                out[peer_id] = ("down", None)
        return out

    # ------------------------------------------------------------------- send
    async def send(self, peer_id: PeerId, frame: bytes, timeout: float | None = None) -> bool:
        """Send one frame to ``peer_id``; ``True`` once libzmq has taken it.

        Waits at most ``timeout`` seconds (default ``options.send_timeout``)
        for the link to be up and to have room; returns ``False`` when the
        peer is unreachable in that time. Raises :class:`UnknownPeerError`
        for a peer with no link and no admitted connection,
        :class:`FrameTooLargeError` for a frame above ``max_message_size``,
        :class:`MeshClosedError` after :meth:`close`. ``True`` does not mean
        delivered: see the module docs.
        """
        self._check_open()
        frame = bytes(frame)
        if len(frame) > self._options.max_message_size:
            raise FrameTooLargeError(
                f"frame of {len(frame)} bytes exceeds {self._options.max_message_size}"
            )
        if timeout is None:
            timeout = self._options.send_timeout
        link = self._links.get(peer_id)
        if link is None:
            key = peer_id.public_key if isinstance(peer_id, Guest) else None
            if key is None:
                key = self._peer_to_key.get(peer_id)
            if key is None:
                raise UnknownPeerError(f"no link to peer {peer_id!r}; connect_peer first")
            if self._relay is not None and key in self._relay.guests:
                return self._relay.send(key, frame)  # a guest that came through the relay
            return await self._send_router([routing_id_for(key), frame], timeout)
        deadline = time.monotonic() + timeout
        if self._relay is not None:  # the direct link if it is up, else (after a grace) the relay
            while link.state is not LinkState.CONNECTED:
                if self._via_relay(link):
                    return self._relay.send(link.public_key, frame)
                left = deadline - time.monotonic()
                if left <= 0 or self._closed:
                    return False
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(link.connected.wait(), min(left, 0.05))
        while True:
            sock = link.socket
            ok = await self._send_on(sock, [frame], max(deadline - time.monotonic(), 0))
            # A refused handshake swaps the link's socket; carry on with the new one.
            if ok or sock is link.socket or time.monotonic() >= deadline or self._closed:
                return ok

    def send_now(self, peer_id: PeerId, frame: bytes) -> bool:
        """Hand one frame to libzmq at once if it can take it without waiting.

        It goes through a plain view of the link's socket: one C call, where
        the asyncio socket's send builds a Future and polls (about 50 us more
        per peer here, and the author sends to every peer before the last
        receiver can start).

        ``False`` when it cannot right now (link not up, queue full, unknown
        peer, oversized frame, mesh closed): the caller then uses :meth:`send`,
        which waits. Use it only when no :meth:`send` to the same peer is still
        pending, or the frames may overtake each other.
        """
        if self._closed or len(frame) > self._options.max_message_size:
            return False
        link = self._links.get(peer_id)
        if link is None:
            return False
        if link.state is not LinkState.CONNECTED and self._via_relay(link):
            assert self._relay is not None
            return self._relay.send(link.public_key, frame)
        plain = link.plain_socket()
        if plain is None:
            return False
        # libzmq's descriptor is edge-triggered and a send may consume its edge:
        # the asyncio socket must look again, as its own send would (its receiver
        # must not miss a message that came meanwhile). That takes pyzmq's private
        # _schedule_remaining_events (tests/net/test_send_now_seam.py fails when a
        # pyzmq lacks it); without it the waiting send() is the correct path.
        rearm = getattr(link.socket, REARM, None)
        if rearm is None:
            return False
        try:
            plain.send(frame, zmq.DONTWAIT)
        except zmq.ZMQError:
            return False
        rearm()
        return True

    async def _send_on(self, sock: zmq.asyncio.Socket, parts: list[bytes], timeout: float) -> bool:
        try:
            fut = sock.send_multipart(parts)
        except zmq.ZMQError as exc:
            return self._send_failed(exc)
        try:
            done, _ = await asyncio.wait([fut], timeout=timeout)
        except asyncio.CancelledError:
            fut.cancel()
            raise
        if not done:
            fut.cancel()
            return False
        if fut.cancelled():  # the socket was closed under us
            if self._closed:
                raise MeshClosedError("mesh closed during send")
            return False
        exc = fut.exception()
        if exc is None:
            return True
        if isinstance(exc, zmq.ZMQError):
            return self._send_failed(exc)
        raise exc

    def _send_failed(self, exc: zmq.ZMQError) -> bool:
        if self._closed:
            raise MeshClosedError("mesh closed during send") from exc
        log.debug("send failed: %s", exc)
        return False

    async def broadcast(self, frame: bytes, timeout: float | None = None) -> dict[PeerId, bool]:
        """Send ``frame`` to every linked peer concurrently; result per peer."""
        peers = list(self._links)
        results = await asyncio.gather(*(self.send(p, frame, timeout) for p in peers))
        return dict(zip(peers, results, strict=True))

    # ---------------------------------------------------------------- receive
    async def recv(self) -> tuple[PeerId, bytes]:
        """Next ``(peer_id, frame)``; raises :class:`MeshClosedError` once closed."""
        if self._closed and self._inbox.queue.empty():
            raise MeshClosedError("mesh closed")
        item = await self._inbox.get()
        if item is CLOSED:
            raise MeshClosedError("mesh closed")
        return item  # type: ignore[return-value]

    async def __aiter__(self) -> AsyncIterator[tuple[PeerId, bytes]]:
        while True:
            try:
                yield await self.recv()
            except MeshClosedError:
                return

    def set_handler(self, handler: Callable[[PeerId, bytes], None] | None) -> None:
        """Hand every frame received from now on to ``handler`` instead of the inbox.

        The handler runs synchronously in the receiving task, one task switch
        and one queue sooner than :meth:`recv` (the table's play latency is a
        sum of such hops on a busy machine). It must not block; an exception
        in it is logged and the frame counted as dropped. Frames already in the
        inbox stay there for :meth:`recv`. ``None`` goes back to the inbox.
        """
        self._inbox.handler = handler

    def _drop(self, reason: str, detail: object = "") -> None:
        self.dropped[reason] += 1
        log.debug("dropped frame (%s) %s", reason, detail)

    def _on_router_readable(self) -> None:
        """Read what the ROUTER has, synchronously, in the loop's reader callback.

        libzmq's descriptor is edge-triggered: it only says the socket's state
        may have changed, so the callback drains until ``EVENTS`` shows no
        input (a batch at a time, then it yields to the loop and goes on). A
        frame costs no Future, no task switch and no extra callbacks: on a
        busy machine those were a third of a received frame's cost.
        """
        sock = self._router
        if sock is None or self._closed or self._paused is not None:
            return
        for _ in range(ROUTER_BATCH):
            try:
                if not sock.getsockopt(zmq.EVENTS) & zmq.POLLIN:
                    return
                frames = sock.recv_multipart(zmq.NOBLOCK, copy=False)
            except zmq.Again:
                return
            except zmq.ZMQError as exc:
                if not self._closed:
                    log.warning("router receive failed: %s", exc)
                return
            try:
                if not self._route(frames):
                    return  # the inbox is full: _resume_router reads on once it has room
            except Exception:  # never let one bad frame stop the receiver
                log.exception("router receive error")
        asyncio.get_running_loop().call_soon(self._on_router_readable)  # more: after others

    def _route(self, frames: list[zmq.Frame]) -> bool:
        """Check one received message's sender and deliver it; False: paused (inbox full)."""
        if len(frames) != 2:
            self._drop("multipart", len(frames))
            return True
        ident = frames[0].bytes
        try:
            user = frames[1].get("User-Id")
            key = self._user_keys.get(user)
            if key is None:  # decoded once per connection key, not per frame
                key = self._user_keys[user] = z85.decode(user)
        except (zmq.ZMQError, ValueError, TypeError):
            self._drop("no_user_id")
            return True
        if len(key) != KEY_LEN or ident != b"Z" + key:
            self._drop("bad_routing_id", ident[:8])
            return True
        peer = self._key_to_peer.get(key)
        if peer is None:
            if not self._open:
                self._drop("unadmitted")
                return True
            peer = Guest(key)
            self._note_guest_address(key, frames[1])
        frame = frames[1].bytes
        if frame.startswith(NET_MAGIC):  # a ping on a direct link: answer on that connection
            if len(frame) == len(NET_MAGIC) + 9 and frame[len(NET_MAGIC)] == 0:
                pong = NET_MAGIC + b"\x01" + frame[len(NET_MAGIC) + 1 :]
                with contextlib.suppress(zmq.ZMQError):
                    self._router.send_multipart([ident, pong], zmq.DONTWAIT)  # type: ignore[union-attr]
            return True
        return self._deliver_now(peer, frame)

    def _note_guest_address(self, key: bytes, frame: zmq.Frame) -> None:
        """Remember where a guest's frame came from (libzmq's ``Peer-Address`` of it)."""
        try:
            address = str(frame.get("Peer-Address"))
        except (zmq.ZMQError, ValueError, TypeError, UnicodeDecodeError):
            return
        self._remember_guest_address(key, address)

    def _remember_guest_address(self, key: bytes, address: str) -> None:
        """Keep ``key``'s address, newest last; the oldest of too many keys is forgotten."""
        self._guest_addresses.pop(key, None)
        self._guest_addresses[key] = address
        if len(self._guest_addresses) > GUEST_ADDRESSES_KEPT:
            del self._guest_addresses[next(iter(self._guest_addresses))]

    def _deliver_now(self, peer_id: PeerId, frame: bytes) -> bool:
        """Hand a frame to the handler or the inbox; False when the inbox is full.

        A full inbox pauses reading (libzmq then holds further frames and
        pushes back on the senders) until :meth:`recv` has made room; the frame
        in hand waits for it too, so nothing is dropped.
        """
        if self._inbox.put_now(peer_id, frame):
            return True
        self._paused = asyncio.create_task(self._resume_router(peer_id, frame))
        return False

    async def _resume_router(self, peer_id: PeerId, frame: bytes) -> None:
        await self._inbox.queue.put((peer_id, frame))
        self._paused = None
        self._on_router_readable()

    async def _send_router(self, parts: list[bytes], timeout: float) -> bool:
        """Send on the ROUTER (to a guest): without waiting, retried until ``timeout``."""
        sock = self._router
        assert sock is not None
        deadline = time.monotonic() + timeout
        loop = asyncio.get_running_loop()
        while True:
            if self._closed:
                raise MeshClosedError("mesh closed during send")
            try:
                sock.send_multipart(parts, flags=zmq.DONTWAIT)
                return True
            except zmq.Again:
                pass  # no room yet (high-water mark): wait a little
            except zmq.ZMQError as exc:
                return self._send_failed(exc)
            finally:
                # a send can consume the descriptor's edge: look for input again
                loop.call_soon(self._on_router_readable)
            if time.monotonic() >= deadline:
                return False
            await asyncio.sleep(ROUTER_SEND_RETRY)

    # ------------------------------------------------------------------ close
    def _check_open(self) -> None:
        if self._closed:
            raise MeshClosedError("mesh closed")

    async def close(self) -> None:
        """Tear everything down; idempotent and never hangs."""
        if self._closed:
            return
        self._closed = True
        tasks = list(self._tasks)
        if self._paused is not None:
            tasks.append(self._paused)
        tasks.extend(link.supervisor for link in self._links.values() if link.supervisor)
        for t in tasks:
            t.cancel()
        if tasks:
            await asyncio.wait(tasks, timeout=1.0)
        for link in self._links.values():
            self._close_dealer(link.socket, link.monitor)  # monitor sockets first
            link.state = LinkState.CLOSED
        self._links.clear()
        if self._relay is not None:
            self._relay.close()
        r = self._router
        if r is not None and not r.closed:
            with contextlib.suppress(Exception):  # the loop may be closing as well
                asyncio.get_running_loop().remove_reader(r.getsockopt(zmq.FD))
        if self._finalizer is not None:
            self._finalizer()  # close_sockets, once
        self._inbox.close()

    async def __aenter__(self) -> Mesh:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()
