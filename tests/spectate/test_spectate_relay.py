"""A spectator through the relay (issues #15, #17 and #29): a host with ``--relay`` prints a
watch line that names the relay (an MQTT broker, never its password nor the invitation
secret). Watching through it: tests/relay/test_mqtt_watch.py."""

from __future__ import annotations

import pytest

from zsy_lan.net.broker import BrokerAddress
from zsy_lan.table.reach import TableError
from zsy_lan.table.spectator_desk import watch_line
from zsy_lan.table.watch import split_watch_target

KEY = "A" * 43
RELAY = BrokerAddress("127.0.0.1", 6000)
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
