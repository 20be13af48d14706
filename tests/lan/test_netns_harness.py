"""The namespace harness itself: builds a LAN, partitions it, leaves no trace."""

from __future__ import annotations

import sys

import netns
import pytest

pytestmark = [pytest.mark.lan, pytest.mark.timeout(30)]

UDP_SERVER = """
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("10.231.0.1", 40000))
s.settimeout(5)
print('{"ready": true}', flush=True)
data, addr = s.recvfrom(100)
print('{"got": "%s", "from": "%s"}' % (data.decode(), addr[0]), flush=True)
"""

UDP_CLIENT = """
import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.sendto(b"hi", ("10.231.0.1", 40000))
"""


def test_lan_builds_connects_partitions_and_cleans_up(make_lan):
    lan = make_lan(2)
    assert set(lan.namespaces) <= set(netns.list_namespaces())
    out = lan.run(1, ["ip", "-4", "-o", "addr", "show", "dev", "eth0"]).stdout
    assert "10.231.0.2/24" in out
    routes = lan.run(0, ["ip", "route", "show"]).stdout
    assert "224.0.0.0/4 dev eth0" in routes

    server = lan.spawn_json(0, [sys.executable, "-u", "-c", UDP_SERVER], label="udp-server")
    assert server.read(5) == {"ready": True}
    res = lan.run_python(1, UDP_CLIENT)
    assert res.returncode == 0, res.stderr
    assert server.read(5) == {"got": "hi", "from": "10.231.0.2"}

    lan.partition(1)
    assert not lan.port_is_up(1)
    lan.heal(1)
    assert lan.port_is_up(1)

    names = lan.namespaces
    lan.teardown()
    assert not set(names) & set(netns.list_namespaces())
