"""Interface selection (reads interface tables only; sends nothing)."""

from __future__ import annotations

import pytest

from zsy_lan.net.netif import (
    UnknownInterfaceError,
    interface_addresses,
    list_interfaces,
    select_addresses,
)


def test_loopback_by_name_and_address():
    assert "127.0.0.1" in interface_addresses("lo")
    assert select_addresses("lo") == interface_addresses("lo")
    assert interface_addresses("127.0.0.1") == ["127.0.0.1"]
    lo = [i for i in list_interfaces() if i.name == "lo"]
    assert lo and lo[0].is_loopback and lo[0].is_up


def test_unknown_interface_names_the_existing_ones():
    with pytest.raises(UnknownInterfaceError) as info:
        interface_addresses("zsy-no-such-if0")
    msg = str(info.value)
    assert "zsy-no-such-if0" in msg and "lo (127.0.0.1" in msg


def test_unknown_address():
    with pytest.raises(UnknownInterfaceError, match="no interface has the address"):
        interface_addresses("203.0.113.77")


def test_default_excludes_loopback():
    try:
        addrs = select_addresses(None)
    except UnknownInterfaceError:
        return  # a machine with only loopback
    assert all(not a.startswith("127.") for a in addrs)
