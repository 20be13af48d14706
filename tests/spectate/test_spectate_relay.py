"""A spectator through the relay (issues #15 and #17): a host with ``--relay`` prints a watch
line that names the relay (never the invitation secret); ``zsy watch`` with it registers at
the relay in the table's scope and watches a host whose address it cannot reach. Loopback
only: the relay runs in a thread here, the host's address is replaced by a dead port."""

from __future__ import annotations

import asyncio
import re
import socket
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from spectate_support import LO, bot_table  # noqa: E402

from zsy_lan.net.relay import Relay, RelayAddress  # noqa: E402
from zsy_lan.net.transport import CurveKeyPair  # noqa: E402
from zsy_lan.table.reach import TableError, parse_join_url  # noqa: E402
from zsy_lan.table.spectator_desk import watch_line  # noqa: E402
from zsy_lan.table.watch import split_watch_target, watch_table  # noqa: E402

KEY = "A" * 43
RELAY = RelayAddress("127.0.0.1", 6000, bytes(range(32)))
RELAY_LINE = f",relay={RELAY.url},table=abc123"


def test_the_watch_line_keeps_the_relay_part_and_drops_the_invitation_secret():
    line = watch_line(f"tcp://127.0.0.1:5000#{KEY}.SECRET{RELAY_LINE}", "ask", "private")
    assert "SECRET" not in line
    assert f"zsy watch tcp://127.0.0.1:5000#{KEY}{RELAY_LINE} " in line
    base, relay, scope = split_watch_target(f"tcp://127.0.0.1:5000#{KEY}{RELAY_LINE}")
    assert base == f"tcp://127.0.0.1:5000#{KEY}" and scope == "abc123"
    assert relay == RELAY
    assert split_watch_target("friday") == ("friday", None, "")
    with pytest.raises(TableError, match="not relay=... or table="):
        split_watch_target(f"tcp://127.0.0.1:5000#{KEY},nonsense")


def _dead_endpoint() -> str:
    with socket.socket() as s:
        s.bind((LO, 0))
        return f"tcp://{LO}:{s.getsockname()[1]}"


@pytest.mark.slow
@pytest.mark.asyncio
@pytest.mark.timeout(110)
async def test_a_spectator_that_cannot_reach_the_host_watches_through_the_relay(tmp_path):
    relay = Relay(CurveKeyPair.generate())
    relay.bind(LO, 0)
    relay.start_thread()
    try:
        table = await bot_table(tmp_path, spectators="open", rounds=2, relay=relay.address(LO))
        try:
            said = next(x for x in table.said if "zsy watch" in x)
            url = re.search(r"zsy watch (\S+)", said).group(1)
            base, address, scope = split_watch_target(url)
            assert address is not None and scope == table.hosted.roster.table
            assert base.partition("#")[0] == table.endpoint
            # the host's address leads nowhere for this spectator: only the relay can carry it
            endpoint, curve = parse_join_url(_dead_endpoint() + "#" + base.partition("#")[2])
            before = relay.stats.forwarded_bytes
            shown: list[str] = []
            outcome = await asyncio.wait_for(
                watch_table(endpoint, curve, "bob", LO, show=shown.append, relay=address,
                            scope=scope),
                90,
            )
            assert outcome.ok, shown
            f = outcome.follower
            assert f is not None and f.game.finished()
            assert f.head == table.hosted.peer.replica.transcript_head()
            assert shown[0].startswith("Watching table 'watched' (private deal)")
            assert any(x.startswith("Match over") for x in shown)
            # the record came through the relay: a private-deal record is hundreds of KB, batched
            # into few frames (count bytes, not frames); pings are tiny
            assert relay.stats.forwarded_bytes - before > 50_000
            assert any("bob is watching" in n for n in table.notices())
        finally:
            await table.close()
    finally:
        relay.stop()
