"""A remote-controlled peer for LAN tests: JSON lines on stdin, replies on stdout.

Run inside a network namespace by ``netns.NetnsLan.spawn_json``. Every
request is ``{"id": N, "op": ..., ...}`` and gets exactly one reply with the
same id (``{"error": ...}`` on failure). Binary data travels as hex. The
agent exits on ``quit`` or when stdin closes, closing its mesh and zeroconf.

Ops: start, advertise, browse, connect, admit, set_open, send, recv,
wait_connected, quit.
"""

from __future__ import annotations

import asyncio
import json
import sys

from zsy_lan.net.discovery import Advertiser, TableBrowser, TableInfo
from zsy_lan.net.transport import CurveKeyPair, Guest, Mesh, MeshOptions

LAN_OPTIONS = MeshOptions(
    heartbeat_ivl_ms=300,
    heartbeat_timeout_ms=1200,
    heartbeat_ttl_ms=2400,
    reconnect_ivl_ms=50,
    reconnect_ivl_max_ms=400,
    connect_timeout_ms=500,
    send_timeout=1.0,
)


def _peer_json(peer: object) -> object:
    if isinstance(peer, Guest):
        return {"guest": peer.public_key.hex()}
    return peer


def _peer_from_json(value: object) -> object:
    if isinstance(value, dict) and "guest" in value:
        return Guest(bytes.fromhex(value["guest"]))
    return value


def _table_json(t: TableInfo) -> dict:
    return {
        "table_id": t.table_id,
        "name": t.name,
        "protocol_version": t.protocol_version,
        "ruleset_id": t.ruleset_id,
        "variants": list(t.variants),
        "free_seats": t.free_seats,
        "seats": t.seats,
        "fingerprint": t.fingerprint,
        "port": t.port,
        "curve_key": t.curve_key.hex(),
        "addresses": list(t.addresses),
        "endpoint": t.endpoint,
        "instance": t.instance,
    }


class Agent:
    def __init__(self) -> None:
        self.mesh: Mesh | None = None
        self.keys = CurveKeyPair.generate()
        self.adv: Advertiser | None = None
        self.events: list[str] = []

    async def handle(self, cmd: dict) -> dict:
        op = cmd["op"]
        if op == "start":
            self.mesh = await Mesh.start(
                cmd["bind"],
                cmd.get("port", 0),
                self.keys.secret,
                open_admission=cmd.get("open", False),
                options=LAN_OPTIONS,
                on_link=lambda e: self.events.append(f"{e.peer_id}:{e.state.value}"),
            )
            return {"endpoint": self.mesh.endpoint, "key": self.keys.public.hex()}
        if op == "advertise":
            assert self.mesh is not None
            t = cmd["table"]
            table = TableInfo(
                table_id=t["table_id"],
                name=t["name"],
                protocol_version=t["protocol_version"],
                ruleset_id=t["ruleset_id"],
                variants=tuple(t["variants"]),
                free_seats=t["free_seats"],
                seats=t["seats"],
                fingerprint=t["fingerprint"],
                port=self.mesh.port,
                curve_key=self.keys.public,
                addresses=tuple(cmd["interfaces"]),
            )
            self.adv = Advertiser(cmd["interfaces"])
            await self.adv.register(table)
            return {"instance": self.adv.instance}
        if op == "browse":
            async with TableBrowser(cmd["interfaces"]) as browser:
                found = await browser.wait_for(
                    lambda t: t.table_id == cmd["table_id"], cmd.get("timeout", 10)
                )
            return {"table": _table_json(found) if found else None}
        assert self.mesh is not None, "start first"
        if op == "connect":
            self.mesh.connect_peer(cmd["peer"], cmd["endpoint"], bytes.fromhex(cmd["key"]))
            return {}
        if op == "admit":
            self.mesh.admit(cmd["peer"], bytes.fromhex(cmd["key"]))
            return {}
        if op == "set_open":
            self.mesh.set_open_admission(cmd["open"])
            return {}
        if op == "wait_connected":
            ok = await self.mesh.wait_connected(cmd["peer"], cmd.get("timeout", 5))
            return {"ok": ok}
        if op == "send":
            ok = await self.mesh.send(
                _peer_from_json(cmd["peer"]), bytes.fromhex(cmd["data"]), cmd.get("timeout")
            )
            return {"ok": ok}
        if op == "recv":
            try:
                peer, frame = await asyncio.wait_for(self.mesh.recv(), cmd.get("timeout", 5))
            except TimeoutError:
                return {"timeout": True}
            return {"peer": _peer_json(peer), "data": frame.hex()}
        if op == "events":
            return {"events": self.events}
        raise ValueError(f"unknown op {op!r}")

    async def close(self) -> None:
        if self.adv is not None:
            await self.adv.close()
        if self.mesh is not None:
            await self.mesh.close()


async def main() -> None:
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    agent = Agent()
    try:
        while line := await reader.readline():
            cmd = json.loads(line)
            try:
                reply = {} if cmd["op"] == "quit" else await agent.handle(cmd)
            except Exception as exc:  # report, keep serving
                reply = {"error": f"{type(exc).__name__}: {exc}"}
            reply["id"] = cmd.get("id")
            sys.stdout.write(json.dumps(reply) + "\n")
            sys.stdout.flush()
            if cmd["op"] == "quit":
                break
    finally:
        await asyncio.wait_for(agent.close(), 10)


if __name__ == "__main__":
    asyncio.run(main())
