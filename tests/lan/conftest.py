"""LAN tests: peers in network namespaces (root only; skipped elsewhere with a reason)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

_HERE = str(Path(__file__).resolve().parent)
if _HERE not in sys.path:  # make the harness importable whatever pytest's import mode
    sys.path.insert(0, _HERE)

import netns  # noqa: E402

_REASON: list[str | None] = []


def _unavailable() -> str | None:
    if not _REASON:
        _REASON.append(netns.unavailable_reason())
    return _REASON[0]


@pytest.fixture
def make_lan():
    """Factory for NetnsLan objects; every one is torn down, even on failure."""
    reason = _unavailable()
    if reason:
        pytest.skip(reason)
    netns.remove_stale()
    before = netns.root_links()
    lans: list[netns.NetnsLan] = []

    def factory(n_peers: int) -> netns.NetnsLan:
        lan = netns.NetnsLan(n_peers)
        lans.append(lan)
        return lan.setup()

    try:
        yield factory
    finally:
        for lan in lans:
            lan.teardown()
    leftovers = [
        ns
        for lan in lans
        for ns in [lan.bridge_ns] + [p.netns for p in lan.peers]
        if ns in netns.list_namespaces()
    ]
    assert not leftovers, f"namespaces left behind: {leftovers}"
    assert netns.root_links() <= before, "a link appeared in the root namespace"


@pytest.fixture
def agent_argv() -> list[str]:
    return [sys.executable, "-u", str(Path(_HERE) / "peer_agent.py")]
