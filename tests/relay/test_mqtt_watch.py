"""A spectator through an MQTT broker (issue #29): the host's watch line names the broker
(``relay=mqtt://...``), and ``zsy watch`` with it follows a host whose address it cannot
reach, the whole private-deal record coming through the broker. Loopback only: a real
amqtt broker, the host's address replaced by a dead port."""

from __future__ import annotations

import asyncio
import re
import sys
from pathlib import Path

import aiomqtt
import pytest
from mqtt_broker import LO

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "spectate"))

from relay_support import dead_endpoint  # noqa: E402
from spectate_support import bot_table  # noqa: E402

from zsy_lan.net.broker import BrokerAddress, parse_relay_url  # noqa: E402
from zsy_lan.table.reach import parse_join_url  # noqa: E402
from zsy_lan.table.watch import split_watch_target, watch_table  # noqa: E402


@pytest.mark.slow
@pytest.mark.asyncio
@pytest.mark.timeout(110)
async def test_a_spectator_that_cannot_reach_the_host_watches_through_the_broker(
    tmp_path, amqtt_broker
):
    broker = amqtt_broker()
    carried = [0]
    async with aiomqtt.Client(LO, broker.port, protocol=aiomqtt.ProtocolVersion.V311) as spy:
        await spy.subscribe("zsy/#")

        async def count() -> None:
            async for m in spy.messages:
                carried[0] += len(m.payload)

        counting = asyncio.create_task(count())
        table = await bot_table(
            tmp_path, spectators="open", rounds=2, relay=parse_relay_url(broker.url)
        )
        try:
            said = next(x for x in table.said if "zsy watch" in x)
            url = re.search(r"zsy watch (\S+)", said).group(1)
            base, address, scope = split_watch_target(url)
            assert isinstance(address, BrokerAddress) and address.url == broker.url
            assert scope == table.hosted.roster.table
            # the host's address leads nowhere for this spectator: only the broker carries it
            endpoint, curve = parse_join_url(dead_endpoint() + "#" + base.partition("#")[2])
            before = carried[0]
            shown: list[str] = []
            try:
                outcome = await asyncio.wait_for(
                    watch_table(
                        endpoint, curve, "bob", LO, show=shown.append, relay=address, scope=scope
                    ),
                    90,
                )
            except TimeoutError:  # say how far it got (one clean run in many stalled here)
                game = table.hosted.peer.game
                raise AssertionError(
                    f"still watching after 90 s; the host's match finished: {game.finished()}; "
                    f"through the broker since: {carried[0] - before} bytes; the spectator "
                    f"was shown: {shown[-12:]}; the host said: {table.notices()[-12:]}"
                ) from None
            assert outcome.ok, shown
            f = outcome.follower
            assert f is not None and f.game.finished()
            assert f.head == table.hosted.peer.replica.transcript_head()
            assert any(x.startswith("Match over") for x in shown)
            assert carried[0] - before > 50_000  # the record came through the broker
            assert any("bob is watching" in n for n in table.notices())
        finally:
            counting.cancel()
            await table.close()
