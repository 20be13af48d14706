"""Pick the network interfaces a peer binds to and advertises on.

zsy never guesses silently: ``--interface NAME`` selects exactly that
interface's IPv4 address(es); without it, a real user gets every non-loopback
interface that is up and has an IPv4 address. Tests and manual runs on a
development machine always pass ``lo`` (or an address inside a network
namespace the test created), so nothing is ever sent on a real interface.

The addresses returned here are what ``zsy_lan.net.discovery`` binds zeroconf to
(``interfaces=[...]``) and what ``zsy_lan.net.transport.Mesh`` binds its ROUTER to.
Interface enumeration uses ``ifaddr`` (a zeroconf dependency, portable); the
up/loopback flags come from ``SIOCGIFFLAGS`` where available (Linux), falling
back to "has an address" / "is 127.0.0.0/8" elsewhere.
"""

from __future__ import annotations

import ipaddress
import socket
import struct
from collections.abc import Sequence
from dataclasses import dataclass

import ifaddr

__all__ = [
    "Interface",
    "UnknownInterfaceError",
    "default_addresses",
    "interface_addresses",
    "list_interfaces",
    "select_addresses",
]

_IFF_UP = 0x1
_IFF_LOOPBACK = 0x8
_SIOCGIFFLAGS = 0x8913


class UnknownInterfaceError(LookupError):
    """The named interface does not exist or has no IPv4 address."""


@dataclass(frozen=True)
class Interface:
    """One network interface with its IPv4 addresses."""

    name: str
    ipv4: tuple[str, ...]
    is_up: bool
    is_loopback: bool


def _flags(name: str) -> int | None:
    """Interface flags via SIOCGIFFLAGS, or None where unsupported."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not Linux/Unix
        return None
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            req = struct.pack("16sH14x", name.encode()[:15], 0)
            res = fcntl.ioctl(s.fileno(), _SIOCGIFFLAGS, req)
    except OSError:
        return None
    return struct.unpack("16sH14x", res)[1]


def list_interfaces() -> list[Interface]:
    """Every interface ifaddr reports, with IPv4 addresses and flags, sorted by name."""
    result: list[Interface] = []
    for adapter in ifaddr.get_adapters():
        v4 = tuple(ip.ip for ip in adapter.ips if ip.is_IPv4 and isinstance(ip.ip, str))
        flags = _flags(adapter.name)
        if flags is None:
            is_up = bool(v4)
            is_loop = bool(v4) and all(ipaddress.IPv4Address(a).is_loopback for a in v4)
        else:
            is_up = bool(flags & _IFF_UP)
            is_loop = bool(flags & _IFF_LOOPBACK)
        result.append(Interface(adapter.name, v4, is_up, is_loop))
    result.sort(key=lambda i: i.name)
    return result


def _describe(interfaces: Sequence[Interface]) -> str:
    parts = []
    for i in interfaces:
        addrs = ",".join(i.ipv4) or "no IPv4"
        state = "up" if i.is_up else "down"
        parts.append(f"{i.name} ({addrs}; {state})")
    return ", ".join(parts) or "none"


def interface_addresses(name: str) -> list[str]:
    """IPv4 addresses of the interface ``name``.

    ``name`` may also be an IPv4 address that belongs to one of the
    interfaces (handy for ``--interface 10.0.0.5``). Raises
    :class:`UnknownInterfaceError` naming the interfaces that do exist when
    the name is unknown, the interface is down, or it has no IPv4 address.
    """
    interfaces = list_interfaces()
    try:
        addr = ipaddress.IPv4Address(name)
    except ValueError:
        addr = None
    if addr is not None:
        for i in interfaces:
            if str(addr) in i.ipv4:
                return [str(addr)]
        raise UnknownInterfaceError(
            f"no interface has the address {name}; interfaces: {_describe(interfaces)}"
        )
    for i in interfaces:
        if i.name == name:
            if not i.ipv4:
                raise UnknownInterfaceError(
                    f"interface {name!r} has no IPv4 address; interfaces: {_describe(interfaces)}"
                )
            if not i.is_up:
                raise UnknownInterfaceError(
                    f"interface {name!r} is down; interfaces: {_describe(interfaces)}"
                )
            return list(i.ipv4)
    raise UnknownInterfaceError(f"unknown interface {name!r}; interfaces: {_describe(interfaces)}")


def default_addresses() -> list[str]:
    """IPv4 addresses of every up, non-loopback interface (the real-user default).

    Never used by tests: they pass ``lo`` / ``127.0.0.1`` or a namespace address.
    """
    out: list[str] = []
    for i in list_interfaces():
        if i.is_up and not i.is_loopback:
            out.extend(a for a in i.ipv4 if not ipaddress.IPv4Address(a).is_loopback)
    return out


def select_addresses(interface: str | None = None) -> list[str]:
    """Resolve the ``--interface`` option: that interface, or the default set.

    Raises :class:`UnknownInterfaceError` when nothing usable is found, with
    the list of existing interfaces in the message.
    """
    if interface is not None:
        return interface_addresses(interface)
    addrs = default_addresses()
    if not addrs:
        raise UnknownInterfaceError(
            "no up non-loopback IPv4 interface found; pass --interface "
            f"(interfaces: {_describe(list_interfaces())})"
        )
    return addrs
