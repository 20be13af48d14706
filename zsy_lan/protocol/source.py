"""Who counts as "one address" when a place is bounded per source address.

Why a module of its own: a CURVE or Ed25519 key costs nothing to make and an
address does, so the lobby (guests waiting for the host), the spectator desk and
``zsy relay``'s broker (its connections) bound what one address may hold (issues
#25, #29). They must agree on what "one address" is: an IPv4 address is one; an
IPv6 host usually holds a whole /64 (privacy addresses, SLAAC), so its /64 counts
as one; an IPv4-mapped IPv6 address is its IPv4 address.
"""

from __future__ import annotations

import ipaddress

__all__ = ["address_group"]


def address_group(address: str) -> str:
    """The group ``address`` counts in (``""`` stays ``""``: unknown, counted together)."""
    text = address.strip().strip("[]")
    try:
        ip = ipaddress.ip_address(text.partition("%")[0])
    except ValueError:
        return text
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network((ip, 64), strict=False))
    return str(ip)
