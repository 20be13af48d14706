"""A peer's link to a relay: the fallback path of a :class:`~zsy_lan.net.transport.Mesh`.

One plain DEALER (CURVE client pinning the relay's key, routing id
``b"Z" + our CURVE key`` like the mesh's own DEALERs) connects to the relay
(:mod:`zsy_lan.net.relay`) and registers in the table's scope. A frame for a
peer whose direct link is not up is **sealed end to end** before it leaves
(:mod:`zsy_lan.net.seal`, judged on the way back by
:class:`~zsy_lan.net.sealed_link.SealedLink`): the relay holds no key that opens
a box, and a box that does not open, is misaddressed or replayed is the relay's
doing, counted and reported as such, never charged to a seat.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable

import zmq
from zmq.utils import z85

from zsy_lan.net.curve import CurveKeyPair
from zsy_lan.net.relay import FROM, HELLO, NO, OK, TO, RelayAddress
from zsy_lan.net.seal import DATA, PING, PONG
from zsy_lan.net.sealed_link import RelayStatus, SealedLink
from zsy_lan.text.sanitize import clean

__all__ = ["DATA", "PING", "PONG", "RelayLink", "RelayStatus"]

log = logging.getLogger("zsy.relay")

#: Seconds between registrations while not registered / once registered (the relay
#: forgets a member after 30 s of silence, and a restarted relay knows nobody).
HELLO_RETRY = 1.0
HELLO_REFRESH = 5.0
#: Seconds before a registration libzmq could not take is tried again: the socket is
#: ``immediate``, so until its connection (and CURVE handshake) is up a hello is not
#: queued but refused; waiting HELLO_RETRY for that cost every attach a second.
HELLO_UNSENT_RETRY = 0.05


class RelayLink(SealedLink):
    """Our DEALER to the relay: registers, moves boxes. Driven by the mesh's loop."""

    def __init__(
        self,
        ctx: zmq.Context,
        keypair: CurveKeyPair,
        address: RelayAddress,
        scope: str,
        *,
        mode: str = "open",
        ticket: bytes = b"",
        on_frame: Callable[[bytes, int, bytes], None],
        on_fault: Callable[[str, bytes], None],
        heartbeat_ivl_ms: int = 1000,
        heartbeat_timeout_ms: int = 3000,
        reconnect_ivl_ms: int = 100,
        reconnect_ivl_max_ms: int = 1000,
        max_frame: int = 0,
    ) -> None:
        super().__init__(keypair, on_frame, on_fault)
        self.address = address
        self.scope = scope.encode()
        self.mode = mode
        #: the host's scope ticket (protocol/scope_ticket.py): only with it may ``open`` create
        self.ticket = ticket
        self._last_hello = -1e9
        self._hello_sent = False  # libzmq took the last hello (it may be on its way)
        s = zmq.Context.shadow(ctx.underlying).socket(zmq.DEALER)
        self._sock: zmq.Socket | None = s
        s.linger = 0
        s.routing_id = b"Z" + keypair.public
        s.immediate = 1  # nothing queues for a relay that is not there: the protocol resends
        s.sndhwm = 1000
        s.heartbeat_ivl = heartbeat_ivl_ms
        s.heartbeat_timeout = heartbeat_timeout_ms
        s.heartbeat_ttl = heartbeat_timeout_ms * 2
        s.reconnect_ivl = reconnect_ivl_ms
        s.reconnect_ivl_max = reconnect_ivl_max_ms
        if max_frame:
            s.maxmsgsize = max_frame
        s.curve_serverkey = z85.encode(address.key)
        s.curve_publickey = z85.encode(keypair.public)
        s.curve_secretkey = z85.encode(keypair.secret)
        if address.endpoint.startswith("tcp://["):
            s.ipv6 = 1
        try:
            s.connect(address.endpoint)
        except zmq.ZMQError:
            s.close(linger=0)
            self._sock = None
            raise

    # ---------------------------------------------------------------- driving
    def start(self) -> None:
        """Read the socket in the running loop's reader callback."""
        assert self._sock is not None
        loop = asyncio.get_running_loop()
        loop.add_reader(self._sock.getsockopt(zmq.FD), self.readable)
        loop.call_soon(self.readable)
        self.hello()

    def tick(self) -> None:
        """Register when due (called about every 100 ms by the mesh)."""
        if self.status.registered:
            wait = HELLO_REFRESH
        else:
            wait = HELLO_RETRY if self._hello_sent else HELLO_UNSENT_RETRY
        if time.monotonic() - self._last_hello >= wait:
            self.hello()

    @property
    def socket(self) -> zmq.Socket | None:
        """The DEALER to the relay (None once closed): its mesh closes it if dropped."""
        return self._sock

    def hello(self) -> None:
        self._last_hello = time.monotonic()
        parts = [HELLO, self.scope, self.mode.encode()]
        if self.ticket and self.mode == "open":
            parts.append(self.ticket)
        self._hello_sent = self._raw(parts)

    def set_mode(self, mode: str) -> None:
        """``open`` once seated: after a relay restart the host's seat brings the table back
        (a seat without the host's ticket registers once the host has)."""
        self.mode = mode

    def close(self) -> None:
        s, self._sock = self._sock, None
        if s is None or s.closed:
            return
        with contextlib.suppress(Exception):  # the loop may be closing as well
            asyncio.get_running_loop().remove_reader(s.getsockopt(zmq.FD))
        s.close(linger=0)

    # ------------------------------------------------------------------ send
    def _transmit(self, dest: bytes, box: bytes) -> bool:
        return self._raw([TO, dest, box])

    def _raw(self, parts: list[bytes]) -> bool:
        s = self._sock
        if s is None:
            return False
        try:
            s.send_multipart(parts, zmq.DONTWAIT)
        except zmq.ZMQError:
            return False
        finally:  # a send can consume the descriptor's edge: look for input again
            with contextlib.suppress(RuntimeError):
                asyncio.get_running_loop().call_soon(self.readable)
        return True

    # --------------------------------------------------------------- receive
    def readable(self) -> None:
        s = self._sock
        if s is None:
            return
        for _ in range(64):
            try:
                if not s.getsockopt(zmq.EVENTS) & zmq.POLLIN:
                    return
                msg = s.recv_multipart(zmq.NOBLOCK)
            except zmq.ZMQError:
                return
            try:
                self._handle(msg)
            except Exception:  # noqa: BLE001 - never let one message stop the reader
                log.exception("relay link: a message could not be handled")
        with contextlib.suppress(RuntimeError):
            asyncio.get_running_loop().call_soon(self.readable)

    def _handle(self, msg: list[bytes]) -> None:
        verb = msg[0] if msg else b""
        if verb == FROM and len(msg) == 3:
            self._arrived(msg[1], msg[2])
        elif verb == OK:
            if not self.status.registered:
                log.info("registered at relay %s", self.address.endpoint)
            self.status = RelayStatus(registered=True)
        elif verb == NO and len(msg) >= 2:
            code = clean(msg[1].decode("ascii", "replace"), 20)  # the relay's words are data
            detail = clean(msg[2].decode("utf-8", "replace"), 200) if len(msg) > 2 else ""
            if code == "unregistered":  # a restarted relay: register again at once
                self.status = RelayStatus()
                if time.monotonic() - self._last_hello >= 0.2:  # not once per refused box
                    self.hello()
            elif code in (
                "full", "unknown", "table_full", "malformed", "address_full", "unproven"
            ):
                self.status = RelayStatus(False, code, detail)
            else:
                log.debug("relay said %s %s", code, detail)
