"""The sealing half of a mesh's carried path: seal, send, ping, open, blame.

A mesh's fallback path is a link to a carrier it does not trust (an MQTT broker,
:mod:`.mqtt_link`, which moves the bytes). Kept apart from how the bytes move
because this half is where the guarantees are (and what the hostile-broker tests
probe); what goes in and what comes out is judged here once:
frames are sealed end to end (:mod:`.seal`), a sealed ping is answered with a
sealed pong, and a box that does not open, is misaddressed or replayed is
reported to ``on_fault`` as the carrier's doing, never a seat's.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from zsy_lan.net.curve import CurveKeyPair
from zsy_lan.net.seal import DATA, PING, PONG, Sealer, SealFault

__all__ = ["DATA", "PING", "PONG", "RelayStatus", "SealedLink"]


@dataclass
class RelayStatus:
    """What the link knows of its carrier (for the table's ``links`` view and errors)."""

    registered: bool = False
    refused: str = ""  # the carrier's last refusal code ("auth", "tls", "unreachable", ...)
    detail: str = ""


class SealedLink:
    """The sealing half of a carried link; a subclass moves the boxes (:meth:`_transmit`)."""

    def __init__(
        self,
        keypair: CurveKeyPair,
        on_frame: Callable[[bytes, int, bytes], None],
        on_fault: Callable[[str, bytes], None],
    ) -> None:
        self.status = RelayStatus()
        self._keypair = keypair
        self._sealer = Sealer(keypair)
        self._on_frame = on_frame
        self._on_fault = on_fault
        self.sent_frames = 0
        self.received_frames = 0

    def seal(self, dest: bytes, kind: int, body: bytes) -> bytes:
        """The box for ``dest``: only ``dest`` (and we) can open it."""
        return self._sealer.seal(dest, kind, body)

    def send(self, dest: bytes, frame: bytes, kind: int = DATA) -> bool:
        """Seal and hand to the carrier now; ``False`` when it cannot take it now."""
        if not self.status.registered:
            return False
        ok = self._transmit(dest, self.seal(dest, kind, frame))
        if ok:
            self.sent_frames += 1
        return ok

    def ping(self, dest: bytes) -> bool:
        """A sealed ping; its pong tells the round-trip time through the carrier."""
        return self.send(dest, time.monotonic_ns().to_bytes(8, "big"), PING)

    def _transmit(self, dest: bytes, box: bytes) -> bool:
        raise NotImplementedError

    def _arrived(self, src: bytes, box: bytes) -> None:
        """A box the carrier says ``src`` sent: open it, answer a ping, hand on the rest."""
        try:
            kind, body = self._sealer.open(src, box)
        except SealFault as fault:
            self._on_fault(fault.what, src)
            return
        self.received_frames += 1
        if kind == PING:
            self.send(src, body, PONG)
        self._on_frame(src, kind, body)
