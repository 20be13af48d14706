"""Timing the direct links of a mesh without a relay: the round trips ``links`` shows.

Why a module of its own (issue #26): the direct ping (``NET_MAGIC``, answered by
the peer's ROUTER) was sent only by the relay's probe, so at a table without a
relay every round trip read ``?``, and right after a resume too (a new link
starts untimed). This loop pings each direct link that is up once a second
(:data:`PROBE_EVERY`, the relay probe's pace), and a link not timed yet every
:data:`FIRST_EVERY` until its first pong: a seat that just resumed shows its
round trips within a fraction of a second. With a relay attached its probe
times the links (both paths), and this one stays quiet.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

from zsy_lan.net.dealer_link import DealerLink, LinkState
from zsy_lan.net.relay_fallback import FIRST_EVERY, PROBE_EVERY

__all__ = ["probe_direct"]


async def probe_direct(
    links: Callable[[], list[DealerLink]],
    ping: Callable[[DealerLink], None],
    relayed: Callable[[], bool],
) -> None:
    """Ping the direct links that are up, forever (the mesh runs it as a task).

    ``relayed()``: a relay is attached, whose probe times the links instead.
    """
    last: dict[int, float] = {}  # id(link) -> when it was last pinged
    while True:
        now = time.monotonic()
        if not relayed():
            current = links()
            for link in current:
                if link.state is not LinkState.CONNECTED:
                    continue
                every = PROBE_EVERY if link.rtt_direct is not None else FIRST_EVERY
                if now - last.get(id(link), -1e9) >= every:
                    last[id(link)] = now
                    ping(link)
            alive = {id(link) for link in current}
            for key in [k for k in last if k not in alive]:
                del last[key]
        await asyncio.sleep(0.1)
