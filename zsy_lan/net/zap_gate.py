"""The mesh's door: the ZAP handler that admits a CURVE key, and the guest cap it keeps.

Why an object of its own: who may pass the handshake is one decision (a roster
key always; a stranger's only in open admission and while the ROUTER has room
for guests) with its own sockets (the ``inproc`` ZAP REP socket, the ROUTER's
monitor that counts connections); the mesh (:class:`~zsy_lan.net.transport.Mesh`)
tells it whether a key is on the roster, how many are, and whether the lobby is
open, and counts what it refuses.
"""

from __future__ import annotations

import asyncio
import logging
from collections import Counter
from collections.abc import Callable

import zmq
import zmq.asyncio
from zmq.utils import z85
from zmq.utils.monitor import parse_monitor_message

from zsy_lan.net.curve import KEY_LEN

log = logging.getLogger("zsy_lan.net.transport")

ZAP_ENDPOINT = "inproc://zeromq.zap.01"
ZAP_DOMAIN = b"zsy"


class ZapGate:
    """Answers libzmq's ZAP requests for one mesh's ROUTER (see the transport's "Admission").

    ``on_roster(key)``: the key is admitted; ``roster_size()``: how many keys
    are; ``is_open()``: the mesh is in open admission; ``cap``: guest
    connections allowed beyond the roster (``None``: no cap); ``dropped``: the
    mesh's counter of refused input (``guest_cap``).
    """

    def __init__(
        self,
        *,
        on_roster: Callable[[bytes], bool],
        roster_size: Callable[[], int],
        is_open: Callable[[], bool],
        cap: int | None,
        dropped: Counter[str],
    ) -> None:
        self._on_roster = on_roster
        self._roster_size = roster_size
        self._is_open = is_open
        self._cap = cap
        self._dropped = dropped
        self.zap: zmq.asyncio.Socket | None = None
        self.monitor: zmq.Socket | None = None  # the ROUTER's accepted/disconnected connections
        self._connections: set[int] = set()  # the ROUTER's open connections (their fds)

    def bind(self, zap: zmq.asyncio.Socket) -> None:
        """Serve on ``zap`` (a REP socket the mesh made and will close), bound to libzmq's
        ZAP endpoint: it must be there before the first CURVE handshake."""
        self.zap = zap
        zap.bind(ZAP_ENDPOINT)

    def watch(self, router: zmq.Socket) -> zmq.Socket:
        """Count ``router``'s open connections (for the guest cap); its monitor socket."""
        self.monitor = router.get_monitor_socket(zmq.EVENT_ACCEPTED | zmq.EVENT_DISCONNECTED)
        return self.monitor

    def count_connections(self) -> int:
        """Read the ROUTER monitor's pending events; the number of open connections.

        An accepted connection's event is queued before its handshake reaches
        the ZAP handler, so the count read there includes it.
        """
        mon = self.monitor
        while mon is not None:
            try:
                event = parse_monitor_message(mon.recv_multipart(zmq.NOBLOCK))
            except zmq.Again:
                break
            except zmq.ZMQError:
                break
            if event["event"] == zmq.EVENT_ACCEPTED:
                self._connections.add(event["value"])
            elif event["event"] == zmq.EVENT_DISCONNECTED:
                self._connections.discard(event["value"])
        return len(self._connections)

    async def count_loop(self) -> None:
        """Keep the monitor's queue short (and the count fresh) between handshakes."""
        while True:
            self.count_connections()
            await asyncio.sleep(0.5)

    def guest_room(self) -> bool:
        """True while a non-roster key may still pass the handshake (open admission).

        libzmq cannot close one connection of a ROUTER, and it keeps each CURVE
        session until the client goes (about 40 kB each): so the cap is put
        where a connection is admitted. Roster keys are never refused by it.
        """
        if self._cap is None:
            return True
        return self.count_connections() <= self._roster_size() + self._cap

    async def serve(self) -> None:
        """Answer ZAP requests for ever: a roster key passes, a guest while there is room."""
        assert self.zap is not None
        while True:
            msg = await self.zap.recv_multipart()
            rid = msg[1] if len(msg) > 1 else b""
            status, text, user = b"400", b"refused", b""
            try:
                if len(msg) >= 7 and msg[0] == b"1.0" and msg[5] == b"CURVE":
                    key = msg[6]
                    known = len(key) == KEY_LEN and self._on_roster(key)
                    guest = len(key) == KEY_LEN and self._is_open() and not known
                    if known or (guest and self.guest_room()):
                        status, text, user = b"200", b"OK", z85.encode(key)
                    elif guest:
                        self._dropped["guest_cap"] += 1
                        log.debug("ZAP refused a guest from %s: too many connections", msg[3])
                    else:
                        log.debug("ZAP refused key from %s", msg[3])
            except Exception:
                log.exception("ZAP handler error")
            await self.zap.send_multipart([b"1.0", rid, status, text, user, b""])
