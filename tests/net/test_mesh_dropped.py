"""A mesh dropped without ``close()`` must not hang its process when it is collected.

The context's own destructor closes only the sockets it still sees (not the
ROUTER made on its shadow; in a collection not even its own,
whose weak references are cleared first), leaves monitors running, then waits
for every socket for ever. An error path or a
failed test that lost a mesh left a process that froze at a later garbage
collection (seen in CI: a test stuck in ``Context.__del__`` until its timeout).
The check runs in a child process, so a hang is a failed assertion, not a stuck
suite.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

pytestmark = pytest.mark.timeout(60)

CHILD = textwrap.dedent(
    """
    import asyncio, gc
    from zsy_lan.net.broker import BrokerAddress
    from zsy_lan.net.transport import CurveKeyPair, Mesh

    async def main():
        keys = [CurveKeyPair.generate() for _ in range(2)]
        a = await Mesh.start("127.0.0.1", 0, keys[0].secret, keys[0].public)
        b = await Mesh.start("127.0.0.1", 0, keys[1].secret, keys[1].public)
        a.connect_peer(1, b.endpoint, keys[1].public)
        b.connect_peer(0, a.endpoint, keys[0].public)
        await a.send(1, b"hello", timeout=5)
        assert (await asyncio.wait_for(b.recv(), 5))[1] == b"hello"
        # a relay nobody runs: the link's task exists, the broker never answers
        relay = BrokerAddress("127.0.0.1", 9)
        await a.attach_relay(relay, "tbl", timeout=0.2)
        # returned without close(): the loop ends, its tasks are destroyed

    asyncio.run(main())
    gc.collect()
    print("collected")
    """
)


def test_a_mesh_dropped_unclosed_is_collected_without_hanging():
    try:
        done = subprocess.run(
            [sys.executable, "-c", CHILD], capture_output=True, text=True, timeout=30
        )
    except subprocess.TimeoutExpired:
        pytest.fail("the process hung collecting a mesh that was never closed")
    assert done.returncode == 0, done.stderr[-2000:]
    assert "collected" in done.stdout
