"""The relay's table scopes (issue #25): strangers cannot take them all.

Sixty-four fresh keys from eight addresses used to take every ``--max-tables``
scope of a relay, with made-up table ids, and every real host was refused.
Now (``zsy_lan/net/relay.py``):

* a scope is opened only with its host's ticket (``protocol/scope_ticket.py``):
  the host's identity signs the table's name and nonce, from which the table
  id is derived, so a made-up id, another host's id (read off a watch line)
  or a ticket replayed for another scope opens nothing;
* one host key holds one scope; one address (an IPv6 /64) a few;
* a scope no box has passed through for ``scope_idle_after`` gives way to a
  new host when the relay is full; a scope in use never does.

The attackers are modified clients: raw CURVE DEALERs connecting from other
loopback addresses and sending hand-made registrations; the real host is a
:class:`~zsy_lan.net.transport.Mesh` attaching the relay as ``zsy host`` does.
"""

from __future__ import annotations

import secrets

import pytest
import zmq
from zmq.utils import z85

from zsy_lan.net.relay import FROM, HELLO, NO, OK, TO, Relay, RelayLimits
from zsy_lan.net.transport import CurveKeyPair, Mesh
from zsy_lan.protocol import Identity
from zsy_lan.protocol.lobby import table_id_for
from zsy_lan.protocol.scope_ticket import TICKET_MAGIC, make_ticket
from zsy_lan.protocol.signed import seal_signed
from zsy_lan.table.relay_join import refusal_text

LO = "127.0.0.1"
pytestmark = [pytest.mark.timeout(60)]


class Clock:
    """The relay's clock, moved by the test."""

    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


@pytest.fixture
def relay_at():
    made: list[Relay] = []

    def start(clock: Clock | None = None, **limits) -> Relay:
        relay = Relay(
            CurveKeyPair.generate(), limits=RelayLimits(**limits), clock=clock or Clock()
        )
        relay.bind(LO, 0)
        relay.start_thread()
        made.append(relay)
        return relay

    yield start
    for relay in made:
        relay.stop()


def ticket(name: str = "t", host: Identity | None = None) -> tuple[bytes, bytes, Identity]:
    """(table id, its host's ticket, the host) for a fresh table."""
    host = host or Identity.generate()
    nonce = secrets.token_bytes(8)
    return table_id_for(host.public_key, name, nonce).encode(), make_ticket(host, name, nonce), host


def dealer(ctx: zmq.Context, relay: Relay, source: str) -> tuple[zmq.Socket, bytes]:
    """A modified client: a fresh CURVE key, a raw DEALER from ``source`` (loopback)."""
    keys = CurveKeyPair.generate()
    s = ctx.socket(zmq.DEALER)
    s.linger = 0
    s.rcvtimeo = 10_000
    s.routing_id = b"Z" + keys.public
    s.curve_serverkey = z85.encode(relay.keypair.public)
    s.curve_publickey = z85.encode(keys.public)
    s.curve_secretkey = z85.encode(keys.secret)
    s.connect(f"tcp://{source}:0;{relay.endpoint[len('tcp://') :]}")
    return s, keys.public


def hello(s: zmq.Socket, *parts: bytes) -> list[bytes]:
    s.send_multipart([HELLO, *parts])
    return s.recv_multipart()[:2]


@pytest.mark.asyncio
async def test_64_fresh_keys_from_8_addresses_leave_room_for_a_real_host(relay_at):
    relay = relay_at()  # the defaults: --max-tables 64
    ctx = zmq.Context()
    host = await Mesh.start(LO, 0, CurveKeyPair.generate().secret)
    try:
        answers = []
        for a in range(8):
            for _k in range(8):
                s, _key = dealer(ctx, relay, f"127.0.0.{10 + a}")
                scope, tk, _h = ticket(f"flood{a}")
                answers.append(hello(s, scope, b"open", tk)[0])
        assert answers.count(OK) == 8 * relay.limits.tables_per_address == 16
        assert len(relay.tables) == 16 < relay.limits.max_tables
        scope, tk, _h = ticket("kitchen")
        assert await host.attach_relay(relay.address(LO), scope.decode(), ticket=tk) == ""
        assert scope in relay.tables
    finally:
        ctx.destroy(linger=0)
        await host.close()


def test_a_scope_needs_its_own_host_s_ticket(relay_at):
    relay = relay_at()
    ctx = zmq.Context()
    try:
        scope, tk, host = ticket("kitchen")  # the real table; its id is on its watch line
        eve = Identity.generate()
        s, _key = dealer(ctx, relay, "127.0.0.20")
        assert hello(s, scope, b"open") == [NO, b"unknown"]  # no ticket: only join
        assert hello(s, b"made-up-id", b"open") == [NO, b"unknown"]
        # eve signs the real table's id with her own key: the id is not derived from it
        nonce = secrets.token_bytes(8).hex()
        body = {"table": scope.decode(), "name": "kitchen", "nonce": nonce}
        forged = seal_signed(TICKET_MAGIC, eve, "scope", body)
        assert hello(s, scope, b"open", forged) == [NO, b"unproven"]
        # the host's real ticket with one byte of the signature changed
        assert hello(s, scope, b"open", tk[:-1] + bytes([tk[-1] ^ 1])) == [NO, b"unproven"]
        # eve's own valid ticket replayed for the real table's scope
        _other, eve_ticket, _e = ticket("kitchen", eve)
        assert hello(s, scope, b"open", eve_ticket) == [NO, b"unproven"]
        assert hello(s, scope, b"open", b"x" * 5000)[0] == NO  # oversized: malformed
        assert relay.tables == {}
        # the host opens it; then a seat without a ticket registers in it
        h, _k = dealer(ctx, relay, "127.0.0.21")
        assert hello(h, scope, b"open", tk) == [OK, scope]
        assert hello(s, scope, b"open") == [OK, scope]
        assert relay.hosts[scope] == host.public_key
        text = refusal_text("unproven", relay.address(LO))
        assert "proof" in text and "update zsy-lan" in text
    finally:
        ctx.destroy(linger=0)


def test_one_host_key_holds_one_scope(relay_at):
    relay = relay_at()
    ctx = zmq.Context()
    try:
        first, tk1, host = ticket("one")
        second, tk2, _h = ticket("two", host)
        s, _k = dealer(ctx, relay, "127.0.0.30")
        assert hello(s, first, b"open", tk1) == [OK, first]
        t, _k = dealer(ctx, relay, "127.0.0.31")  # the same host key, another connection
        assert hello(t, second, b"open", tk2) == [OK, second]
        assert list(relay.tables) == [second]  # its older scope is given up
        assert relay.stats.dropped["scope_replaced"] == 1
    finally:
        ctx.destroy(linger=0)


def test_idle_scopes_give_way_to_a_new_host_but_used_ones_never(relay_at):
    clock = Clock()
    relay = relay_at(clock, max_tables=2, scope_idle_after=600.0, idle_after=10_000.0)
    ctx = zmq.Context()
    try:
        squat, tk, _h = ticket("squat")
        s, _k = dealer(ctx, relay, "127.0.0.40")
        assert hello(s, squat, b"open", tk) == [OK, squat]
        # a table in use: two seats and a box between them
        used, tk_used, _h = ticket("used")
        a, _ka = dealer(ctx, relay, "127.0.0.41")
        b, kb = dealer(ctx, relay, "127.0.0.42")
        assert hello(a, used, b"open", tk_used) == [OK, used]
        assert hello(b, used, b"join") == [OK, used]
        late, tk_late, _h = ticket("late")
        h, _k = dealer(ctx, relay, "127.0.0.43")
        assert hello(h, late, b"open", tk_late) == [NO, b"full"]  # nothing idle yet
        clock.t += 500
        a.send_multipart([TO, kb, b"box"])  # the used table talks; the squatter keeps alive
        assert b.recv_multipart()[0] == FROM
        assert hello(s, squat, b"open", tk) == [OK, squat]  # a keep-alive is not use
        clock.t += 200  # the squatter: 700 s without a box; the used table: 200 s
        assert hello(h, late, b"open", tk_late) == [OK, late]
        assert set(relay.tables) == {used, late}
        assert relay.stats.dropped["scope_idle"] == 1
        # the squatter comes back: the relay is full of tables in use
        assert hello(s, squat, b"open", tk) == [NO, b"full"]
    finally:
        ctx.destroy(linger=0)


def test_an_ipv6_network_counts_as_one_address():
    """Loopback has no second IPv6 address to connect from: the registrations of four
    addresses of one /64 are handed to the relay as its socket loop would."""
    relay = Relay(CurveKeyPair.generate())  # not bound: only its bookkeeping is looked at
    sent: list[list[bytes]] = []
    relay._send = lambda parts: sent.append(parts) or True  # type: ignore[method-assign]
    for i in range(4):
        scope, tk, _h = ticket(f"v6-{i}")
        key = CurveKeyPair.generate().public
        relay._hello(b"Z" + key, key, scope, b"open", f"2001:db8::{i + 1}", tk)  # noqa: SLF001
    assert [p[1] for p in sent] == [OK, OK, NO, NO]
    assert sent[-1][2] == b"address_full"
    assert set(relay.openers.values()) == {"2001:db8::/64"}
