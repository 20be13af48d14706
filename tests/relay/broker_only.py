"""``zsy`` whose direct links lead nowhere: on loopback, seats that reach each other only
through the relay or broker (issue #29; the namespace tests do it with routes).

Run as ``python broker_only.py ARGS...`` (the arguments of ``zsy``). Every endpoint
the mesh is asked to connect to is replaced by a loopback port that is bound but
never listens (kept bound for the life of the process, so connections are refused
and nothing else takes it); the same endpoint always gets the same dead port, so a
seat that links a peer again finds it linked the same way. The lobby, the match,
a resume: everything between the seats goes through ``--relay``.
"""

from __future__ import annotations

import socket
import sys

from zsy_lan.net.transport import Mesh

_dead: dict[str, tuple[socket.socket, str]] = {}
_local: set[str] = set()  # endpoints of this process's meshes
_real = Mesh.connect_peer
_real_start = Mesh.start.__func__  # type: ignore[attr-defined]


async def start_noted(cls, *args, **kwargs):  # type: ignore[no-untyped-def]
    mesh = await _real_start(cls, *args, **kwargs)
    _local.add(mesh.endpoint)
    return mesh


def _nowhere(endpoint: str) -> str:
    if endpoint not in _dead:
        s = socket.socket()
        s.bind(("127.0.0.1", 0))  # bound, never listening: every connection is refused
        _dead[endpoint] = (s, f"tcp://127.0.0.1:{s.getsockname()[1]}")
    return _dead[endpoint][1]


def connect_nowhere(self: Mesh, peer_id, endpoint: str, server_public_key) -> None:  # type: ignore[no-untyped-def]
    _real(self, peer_id, endpoint if endpoint in _local else _nowhere(endpoint), server_public_key)


Mesh.connect_peer = connect_nowhere  # type: ignore[method-assign]
Mesh.start = classmethod(start_noted)  # type: ignore[method-assign,assignment]

if __name__ == "__main__":
    from zsy_lan.cli import main

    sys.argv[0] = "zsy"
    main()
