"""``zsy demo``: a whole match of bot peers over real sockets on this machine.

Every seat is a real peer (own identity, own CURVE-encrypted ZeroMQ socket
on 127.0.0.1, own replica). The joiners find the host through mDNS bound to
loopback (or by address with ``--no-mdns``). Each writes ``OUT/seat-K.jsonl``;
the demo passes only if all finish with the same transcript head and every
record re-verifies.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from pathlib import Path

from zsy_lan.engine.rules import Rules
from zsy_lan.protocol import Identity
from zsy_lan.record.replay import replay_file
from zsy_lan.record.store import TableStore
from zsy_lan.table.deciders import make_decider
from zsy_lan.table.hosting import open_table
from zsy_lan.table.joining import join_table
from zsy_lan.table.peer import TablePeer
from zsy_lan.table.reach import NetConfig
from zsy_lan.text.i18n import _, deal_word, pgettext

DEMO_TIMEOUT = 600.0


async def run_demo(
    rules: Rules,
    rounds: int,
    out: Path,
    bot_level: str = "easy",
    *,
    echo: Callable[[str], None] = print,
    deal: str = "private",
) -> bool:
    """Play the demo match; returns True when every check passed.

    ``deal``: ``"private"`` (mental poker, the default at every table) or ``"open"``.
    """
    out.mkdir(parents=True, exist_ok=True)
    for old in out.glob("seat-*.jsonl"):
        old.unlink()
    net = NetConfig(address="127.0.0.1", mdns=True, mdns_interfaces=["127.0.0.1"])
    name = f"demo-{time.monotonic_ns() % 100000}"

    def store_for(table: str, seat: int) -> TableStore:
        return TableStore(out / "state" / f"seat-{seat}", out / f"seat-{seat}.jsonl")

    start = time.monotonic()
    host_id = Identity.generate()
    hosting = asyncio.create_task(
        open_table(
            host_id,
            rules,
            rounds,
            name,
            "bot-host",
            lambda t: store_for(t, 0),
            net,
            notify=echo,
            deal=deal,
        )
    )
    joiners = []
    for k in range(1, rules.players):
        ident = Identity.generate()
        joiners.append(asyncio.create_task(_join(ident, name, k, store_for, net, bot_level)))
    hosted = await hosting
    hosted.peer.decider = make_decider(bot_level, host_id.public_key)
    seated = await asyncio.gather(*joiners)
    peers: list[TablePeer] = [hosted.peer] + [p for p, _ in seated]
    meshes = [hosted.mesh] + [m for _, m in seated]
    try:
        await asyncio.wait_for(asyncio.gather(*(p.run() for p in peers)), DEMO_TIMEOUT)
    finally:
        for m in meshes:
            await m.close()
    seconds = time.monotonic() - start
    heads = {p.seat: p.replica.transcript_head() for p in peers}
    finished = all(p.game.finished() for p in peers)
    same = len(set(heads.values())) == 1
    echo(
        _(
            "{peers} peers, {rounds} round(s), {deal} deal, {secs} s; all finished: {finished}; "
            "same transcript head: {same} ({head})"
        ).format(
            peers=len(peers),
            rounds=rounds,
            deal=deal_word(deal),
            secs=f"{seconds:.1f}",
            finished=pgettext("boolean", "yes") if finished else pgettext("boolean", "no"),
            same=pgettext("boolean", "yes") if same else pgettext("boolean", "no"),
            head=heads[0][:16],
        )
    )
    ok = finished and same
    for seat in sorted(heads):
        path = out / f"seat-{seat}.jsonl"
        report = replay_file(path)
        echo(f"  {path}: {report.verdict()}")
        ok = ok and report.ok and report.head == heads[seat]
    m = hosted.peer.game.match
    orders = "; ".join(" ".join(map(str, r.order)) for r in m.results)
    echo(_("Finishing orders: {orders}").format(orders=orders))
    echo(_("Winner: seat(s) {seats}").format(seats=" ".join(map(str, m.winners))))
    echo("DEMO OK" if ok else "DEMO FAILED")
    return ok


async def _join(
    ident: Identity,
    target: str,
    index: int,
    store_for: Callable[[str, int], TableStore],
    net: NetConfig,
    bot_level: str,
) -> tuple[TablePeer, object]:
    """A bot joiner that finds the host by mDNS on loopback."""
    peer, mesh = await join_table(
        ident, target, f"bot-{index}", store_for, net, notify=lambda _: None
    )
    peer.decider = make_decider(bot_level, ident.public_key)
    return peer, mesh
