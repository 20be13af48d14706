"""Fixtures for loopback network tests: meshes on 127.0.0.1, always closed."""

from __future__ import annotations

import asyncio
import os
import time

import pytest_asyncio
from mesh_support import FAST_MESH

from zsy_lan.net.transport import CurveKeyPair, Mesh, MeshOptions

LOOPBACK = "127.0.0.1"

FAST = FAST_MESH


@pytest_asyncio.fixture
async def make_mesh():
    """Factory for Mesh peers on 127.0.0.1; every mesh is closed at teardown."""
    meshes: list[Mesh] = []
    threads_before = _native_threads()

    async def factory(keys: CurveKeyPair | None = None, **kwargs) -> Mesh:
        keys = keys or CurveKeyPair.generate()
        kwargs.setdefault("options", FAST)
        mesh = await Mesh.start(LOOPBACK, 0, keys.secret, keys.public, **kwargs)
        meshes.append(mesh)
        return mesh

    yield factory
    t0 = time.monotonic()
    await asyncio.gather(*(m.close() for m in meshes))
    assert time.monotonic() - t0 < 5, "Mesh.close() took too long"
    # every context destroyed: libzmq's I/O and reaper threads are gone
    deadline = time.monotonic() + 2
    while _native_threads() > threads_before and time.monotonic() < deadline:
        await asyncio.sleep(0.02)
    assert _native_threads() <= threads_before, "a ZeroMQ context was left running"


def _native_threads() -> int:
    """OS threads of this process (libzmq threads are invisible to `threading`)."""
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:  # not Linux
        return 0


@pytest_asyncio.fixture
async def fast_options() -> MeshOptions:
    return FAST
