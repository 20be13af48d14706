"""Real multicast mDNS and CURVE-encrypted ZeroMQ across network namespaces.

Host in namespace p0 advertises its table with zeroconf bound to 10.231.0.1;
a joiner in p1 browses (zeroconf bound to 10.231.0.2) and finds it via real
multicast across the bridge, joins through the host's open CURVE lobby, and
the host connects back: frames flow both ways. Then the joiner's bridge port
goes down (a partition): nothing gets through; after it comes back up, frames
flow again.
"""

from __future__ import annotations

import time

import pytest

pytestmark = [pytest.mark.lan, pytest.mark.slow, pytest.mark.timeout(40)]

TABLE = {
    "table_id": "lan-test-table-0001",
    "name": "LAN test table",
    "protocol_version": 1,
    "ruleset_id": "rs-lan-test",
    "variants": ["zheng-shangyou", "no-tribute"],
    "free_seats": 3,
    "seats": 4,
    "fingerprint": "SHA256:lan-test-fingerprint",
}


def recv_until(agent, want: bytes, deadline: float, seen: list | None = None) -> dict | None:
    """Receive until ``want`` arrives (other frames go to ``seen``) or the deadline."""
    while time.monotonic() < deadline:
        r = agent.call(op="recv", timeout=0.3)
        if r.get("timeout"):
            continue
        data = bytes.fromhex(r["data"])
        if data == want:
            return r
        if seen is not None:
            seen.append(data)
    return None


def test_discover_connect_partition_heal(make_lan, agent_argv):
    t_start = time.monotonic()
    lan = make_lan(2)
    h_addr, j_addr = lan.peers[0].address, lan.peers[1].address
    host = lan.spawn_json(0, agent_argv, label="host")
    joiner = lan.spawn_json(1, agent_argv, label="joiner")

    started = host.call(op="start", bind=h_addr, open=True)
    assert started["endpoint"].startswith(f"tcp://{h_addr}:")
    host.call(op="advertise", table=TABLE, interfaces=[h_addr], reply_timeout=15)

    # --- discovery by real multicast across the bridge
    found = joiner.call(op="browse", interfaces=[j_addr], table_id=TABLE["table_id"], timeout=10)[
        "table"
    ]
    assert found is not None, "the joiner never saw the table"
    assert found["endpoint"] == started["endpoint"]
    assert found["curve_key"] == started["key"]
    for k in (
        "name",
        "protocol_version",
        "ruleset_id",
        "variants",
        "free_seats",
        "seats",
        "fingerprint",
    ):
        assert found[k] == TABLE[k], k
    assert found["addresses"] == [h_addr]

    # --- join through the open CURVE lobby, the host connects back
    j = joiner.call(op="start", bind=j_addr)
    joiner.call(op="connect", peer="host", endpoint=found["endpoint"], key=found["curve_key"])
    assert joiner.call(op="wait_connected", peer="host", timeout=5)["ok"]
    assert joiner.call(op="send", peer="host", data=b"join".hex())["ok"]
    r = host.call(op="recv", timeout=5)
    assert r["peer"] == {"guest": j["key"]} and bytes.fromhex(r["data"]) == b"join"
    host.call(op="connect", peer="seat1", endpoint=j["endpoint"], key=j["key"])
    host.call(op="set_open", open=False)
    assert host.call(op="wait_connected", peer="seat1", timeout=5)["ok"]
    assert host.call(op="send", peer="seat1", data=b"welcome".hex())["ok"]
    assert bytes.fromhex(joiner.call(op="recv", timeout=5)["data"]) == b"welcome"
    assert joiner.call(op="send", peer="host", data=b"hello".hex())["ok"]
    r = host.call(op="recv", timeout=5)
    assert r["peer"] == "seat1" and bytes.fromhex(r["data"]) == b"hello"

    # --- partition: the joiner's bridge port goes down
    lan.partition(1)
    joiner.call(op="send", peer="host", data=b"during-1".hex())  # may be taken, then lost
    host.call(op="send", peer="seat1", data=b"during-2".hex())
    # the port has no carrier: a frame that crossed would be there in milliseconds, not 1 s
    assert host.call(op="recv", timeout=1.0).get("timeout"), "a frame crossed the partition"
    assert joiner.call(op="recv", timeout=0.2).get("timeout")

    # --- heal: the links reconnect and frames flow again
    lan.heal(1)
    t_heal = time.monotonic()
    deadline = t_heal + 10
    got = None
    late: list[bytes] = []  # frames sent during the partition may arrive late, or be lost
    while got is None and time.monotonic() < deadline:
        joiner.call(op="send", peer="host", data=b"after".hex(), timeout=0.5)
        got = recv_until(host, b"after", min(deadline, time.monotonic() + 0.5), late)
    assert got is not None and got["peer"] == "seat1", "no frame after healing"
    print(
        f"healed link carried a frame after {time.monotonic() - t_heal:.2f}s; "
        f"frames from the partition that arrived late: {late}"
    )
    assert host.call(op="send", peer="seat1", data=b"back".hex(), timeout=3)["ok"]
    assert recv_until(joiner, b"back", time.monotonic() + 5) is not None

    events = joiner.call(op="events")["events"]
    assert "host:connected" in events
    host.call(op="quit")
    joiner.call(op="quit")
    assert time.monotonic() - t_start < 30
