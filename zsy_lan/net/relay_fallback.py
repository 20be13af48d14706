"""A mesh's second path: its link to a relay, and when a peer's frames take it.

Why an object of its own: the mesh (:class:`~zsy_lan.net.transport.Mesh`)
knows its direct links; everything about the relay path (the
:class:`~zsy_lan.net.mqtt_link.MqttLink` to an MQTT broker, ``zsy relay``'s or any
other; who answers through it and how fast; which lobby guests came through it;
when a link has been down long enough to use it) lives here, keyed by the
peers' CURVE keys. The mesh asks it (:meth:`RelayFallback.via`,
:meth:`RelayFallback.alive`) and gives it one callable, ``deliver``, for the
frames that come through the relay.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from zsy_lan.net.broker import BrokerAddress
from zsy_lan.net.curve import CurveKeyPair
from zsy_lan.net.dealer_link import DealerLink, LinkState, PeerId
from zsy_lan.net.seal import DATA, PONG
from zsy_lan.net.sealed_link import RelayStatus

if TYPE_CHECKING:
    from zsy_lan.net.mqtt_link import MqttLink

#: seconds between pings of a link (through the relay when direct is down)
PROBE_EVERY = 1.0
#: seconds between pings of a link with no round trip yet (a new link: ``links`` soon shows one)
FIRST_EVERY = 0.2
#: a peer answering through the relay this recently (seconds) is reachable there
RELAY_ALIVE = 4.0
#: lobby guests heard through the relay, answered through it (a relay can make keys up)
RELAY_GUESTS_KEPT = 64


class RelayFallback:
    """The relay path of one mesh: its link, who answers through it, and the guests it brought.

    ``deliver(key, frame)`` gets each frame a peer sent through the relay (the
    mesh labels it as if direct); ``linked(key)`` says whether ``key`` is one of
    the mesh's linked peers (only those are timed, so a relay making keys up
    cannot grow the tables); ``on_fault(what, key)`` gets what only a relay can
    have done. ``grace``: seconds a direct link may be down before its frames
    go through the relay.
    """

    def __init__(
        self,
        keypair: CurveKeyPair,
        address: BrokerAddress,
        scope: str,
        *,
        grace: float,
        deliver: Callable[[bytes, bytes], None],
        linked: Callable[[bytes], bool],
        on_fault: Callable[[str, bytes], None],
        max_frame: int,
    ) -> None:
        self.grace = grace
        self._deliver = deliver
        self._linked = linked
        #: peer key -> when it last answered through the relay (monotonic seconds)
        self.heard: dict[bytes, float] = {}
        #: peer key -> its last round-trip time through the relay (seconds)
        self.rtt: dict[bytes, float] = {}
        #: lobby guests heard through the relay (key -> when), answered through it
        self.guests: dict[bytes, float] = {}
        from zsy_lan.net.mqtt_link import MqttLink  # (aiomqtt only for a table that uses one)

        self.link: MqttLink = MqttLink(
            keypair,
            address,
            scope,
            on_frame=self._on_frame,
            on_fault=on_fault,
            max_frame=max_frame,
        )

    @property
    def status(self) -> RelayStatus:
        """The link's connection to the broker (connected, or why not)."""
        return self.link.status

    def alive(self, key: bytes) -> bool:
        """The peer answered through the relay lately: it is reachable there."""
        return time.monotonic() - self.heard.get(key, -1e9) < RELAY_ALIVE

    def via(self, key: bytes, down_since: float) -> bool:
        """Frames for the peer go through the relay now (its direct link, down since
        ``down_since``, has been down long enough, or the peer answers here already)."""
        if not self.link.status.registered:
            return False
        if self.alive(key):
            return True
        return time.monotonic() - down_since >= self.grace

    def send(self, key: bytes, frame: bytes) -> bool:
        """Seal ``frame`` to ``key`` and hand it to the relay (``False``: not now)."""
        return self.link.send(key, frame)

    def ping(self, key: bytes) -> bool:
        """A sealed ping to ``key`` through the relay (its pong times the path)."""
        return self.link.ping(key)

    def note_guest(self, key: bytes) -> None:
        """A lobby guest spoke through the relay: answer it there (bounded)."""
        if key not in self.guests and len(self.guests) >= RELAY_GUESTS_KEPT:
            del self.guests[next(iter(self.guests))]  # a relay can make keys up
        self.guests[key] = time.monotonic()

    def forget(self, key: bytes) -> None:
        """The mesh dropped its link to ``key``: a new link starts untimed."""
        self.heard.pop(key, None)
        self.rtt.pop(key, None)

    def close(self) -> None:
        self.link.close()

    async def probe(
        self, links: Callable[[], list[DealerLink]], ping_direct: Callable[[DealerLink], None]
    ) -> None:
        """Ping each link on the path it uses, once a second: ``ping_direct`` on a direct
        link that is up, a sealed ping through the relay while it is down or the peer
        answers here (the mesh runs it as a task)."""
        last: dict[PeerId, float] = {}
        while True:
            now = time.monotonic()
            for link in links():
                direct = link.state is LinkState.CONNECTED
                timed = (link.rtt_direct if direct else self.rtt.get(link.public_key)) is not None
                if now - last.get(link.peer_id, -1e9) < (PROBE_EVERY if timed else FIRST_EVERY):
                    continue
                last[link.peer_id] = now
                if link.state is LinkState.CONNECTED:
                    ping_direct(link)
                if link.state is not LinkState.CONNECTED or self.alive(link.public_key):
                    self.ping(link.public_key)
            await asyncio.sleep(0.1)

    def _on_frame(self, key: bytes, kind: int, body: bytes) -> None:
        """An opened box from the relay: a frame (delivered as if direct), a ping or a pong."""
        linked = self._linked(key)
        if linked:
            self.heard[key] = time.monotonic()
        if kind == PONG and linked and len(body) == 8:
            self.rtt[key] = max(time.monotonic_ns() - int.from_bytes(body, "big"), 0) / 1e9
            return
        if kind == DATA:
            self._deliver(key, body)
