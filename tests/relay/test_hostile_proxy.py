"""The hostile-broker harness (hostile_broker.py) against a real broker, with plain clients.

No zsy here: these check that each rule does what it says to the packets it takes and that
everything else crosses the proxy intact, so the table tests built on it can trust it.
"""

from __future__ import annotations

import asyncio
import time

import pytest
from hostile_broker import (
    DOWN,
    UP,
    Alter,
    Delay,
    Drop,
    HostileProxy,
    Reorder,
    Replay,
    topic_matches,
)
from mqtt_clients import Inbox, Snoop, talker

pytestmark = [pytest.mark.timeout(30)]

MSGS = [f"m{i}".encode() for i in range(6)]


async def through(zsy_broker, rules, msgs=MSGS, qos=0, topic="zsy/t", expect=None):  # type: ignore[no-untyped-def]
    """Publish ``msgs`` through a proxy with ``rules``: what the subscriber got (once
    ``expect`` messages came, default all, or nothing more came), and the proxy."""
    async with (
        HostileProxy(("127.0.0.1", zsy_broker.port), rules=rules) as proxy,
        Inbox(proxy.port, "zsy/#") as inbox,
        talker(proxy.port) as out,
    ):
        for m in msgs:
            await out.publish(topic, m, qos=qos)
        await inbox.wait(len(msgs) if expect is None else expect)
        got = await inbox.quiet(0.3)
    return got, proxy


def test_topic_filters_match_as_mqtt_says():
    assert topic_matches("#", "a/b") and topic_matches("a/#", "a/b/c")
    assert topic_matches("a/+/c", "a/b/c") and not topic_matches("a/+", "a/b/c")
    assert not topic_matches("a/b", "a/c")


@pytest.mark.asyncio
async def test_untouched_traffic_crosses_byte_for_byte(zsy_broker):
    got, proxy = await through(zsy_broker, [], qos=1)  # QoS 1: PUBACKs must cross too
    assert got == MSGS
    assert proxy.publishes[UP] == len(MSGS) and proxy.publishes[DOWN] == len(MSGS)
    for m in MSGS:
        assert proxy.captured[UP].count(m) == 1 and proxy.captured[DOWN].count(m) == 1
    assert not proxy.done


@pytest.mark.asyncio
async def test_drop_every_second(zsy_broker):
    got, proxy = await through(zsy_broker, [Drop(every=2)], expect=3)
    assert got == MSGS[0::2] and proxy.done["drop"] == 3


@pytest.mark.asyncio
async def test_drop_on_the_way_up_spares_other_topics(zsy_broker):
    rules = [Drop(topic="zsy/t", direction=UP)]
    got, _ = await through(zsy_broker, rules, topic="zsy/other")
    assert got == MSGS
    got, _ = await through(zsy_broker, rules, expect=0)
    assert got == []


@pytest.mark.asyncio
async def test_delay(zsy_broker):
    async with (
        HostileProxy(("127.0.0.1", zsy_broker.port), rules=[Delay(seconds=0.4)]) as proxy,
        Inbox(proxy.port, "zsy/#") as inbox,
        talker(proxy.port) as out,
    ):
        t0 = time.monotonic()
        await out.publish("zsy/t", b"late")
        await inbox.wait(1)
    assert inbox.payloads == [b"late"] and inbox.got[0][2] - t0 >= 0.39


@pytest.mark.asyncio
async def test_alter_flips_one_bit_of_the_payload(zsy_broker):
    got, _ = await through(zsy_broker, [Alter(limit=1)], msgs=[b"abcdef", b"ghijkl"])
    assert got == [b"abceef", b"ghijkl"]  # "d" ^ 1


@pytest.mark.asyncio
async def test_alter_can_rewrite_the_whole_payload(zsy_broker):
    got, _ = await through(zsy_broker, [Alter(change=lambda p: b"X" * 100)], msgs=[b"a"])
    assert got == [b"X" * 100]  # a longer packet: the length bytes are rewritten too


@pytest.mark.asyncio
async def test_replay(zsy_broker):
    got, proxy = await through(zsy_broker, [Replay(limit=2, copies=2, after=0.05)], expect=10)
    assert list(dict.fromkeys(got)) == MSGS  # each passes first, in order
    assert sorted(got) == sorted(MSGS + MSGS[:2] * 2)
    assert proxy.done["replay"] == 2


@pytest.mark.asyncio
async def test_reorder_swaps_pairs(zsy_broker):
    got, _ = await through(zsy_broker, [Reorder()], msgs=MSGS[:4])
    assert got == [MSGS[1], MSGS[0], MSGS[3], MSGS[2]]


@pytest.mark.asyncio
async def test_reorder_releases_a_lonely_packet(zsy_broker):
    got, _ = await through(zsy_broker, [Reorder(hold=0.1)], msgs=MSGS[:1])
    assert got == MSGS[:1]


@pytest.mark.slow
@pytest.mark.asyncio
async def test_rate_is_seeded(zsy_broker):
    first, _ = await through(zsy_broker, [Drop(rate=0.5)], msgs=MSGS * 3, expect=1)
    again, _ = await through(zsy_broker, [Drop(rate=0.5)], msgs=MSGS * 3, expect=1)
    assert first == again and 0 < len(first) < 18


@pytest.mark.asyncio
async def test_inject_reaches_only_subscribers(zsy_broker):
    async with (
        HostileProxy(("127.0.0.1", zsy_broker.port)) as proxy,
        Inbox(proxy.port, "zsy/a") as a,
        Inbox(proxy.port, "zsy/b") as b,
    ):
        await asyncio.sleep(0.1)  # the SUBSCRIBEs crossed
        assert proxy.inject("zsy/a", b"forged") == 1
        await a.wait(1)
        await b.quiet(0.2)
    assert a.payloads == [b"forged"] and b.payloads == []


@pytest.mark.asyncio
async def test_snoop_learns_topics_and_replays(zsy_broker):
    async with (
        Inbox(zsy_broker.port, "zsy/t") as inbox,
        Snoop("127.0.0.1", zsy_broker.port) as snoop,
        talker(zsy_broker.port) as out,
    ):
        await out.publish("zsy/t", b"one")
        await inbox.wait(1)
        for _ in range(100):
            if snoop.seen:
                break
            await asyncio.sleep(0.01)
        assert snoop.topics == {"zsy/t"}
        await snoop.replay()
        await snoop.inject("zsy/t", b"junk")
        await inbox.wait(3)
    assert inbox.payloads == [b"one", b"one", b"junk"]
