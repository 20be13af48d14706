"""The spectator's pieces without a network: its frames, the seat's news of who watches,
the line-by-line verifier refusing a tampered record, the host's watch line."""

from __future__ import annotations

import asyncio
import base64
import json
import time
from pathlib import Path
from types import SimpleNamespace

import pytest
from local_support import followed
from mesh_support import DeskMesh

from zsy_lan.engine.ruleset import build_rules
from zsy_lan.protocol import Identity
from zsy_lan.protocol.lobby import Seat
from zsy_lan.record.replay import replay_file
from zsy_lan.table.follower import Follower, FollowError
from zsy_lan.table.spectator_desk import seat_news, watch_line
from zsy_lan.table.watch_frames import WatchError, open_watch, seal_watch


def _seat_peer(host: Identity, deal: str = "private") -> SimpleNamespace:
    seats = [Seat(0, host.public_key, host.curve_public, "tcp://127.0.0.1:1", "host")]
    q: asyncio.Queue = asyncio.Queue()
    return SimpleNamespace(
        roster=SimpleNamespace(seats=seats, deal=deal), notices=q, changed=asyncio.Event()
    )


def _texts(peer: SimpleNamespace) -> list[str]:
    out = []
    while not peer.notices.empty():
        out.append(peer.notices.get_nowait().text)
    return out


def test_a_seat_hears_who_watches_only_from_the_host_on_its_link():
    host, other = Identity.generate(), Identity.generate()
    peer = _seat_peer(host)
    seat_news(peer, 0, seal_watch(host, "news", {"nick": "bob\x1b[2J", "joined": True}))
    seat_news(peer, 0, seal_watch(host, "news", {"nick": "bob", "joined": False}))
    assert _texts(peer) == ["bob is watching", "bob stopped watching"]  # escape removed
    seat_news(peer, 1, seal_watch(host, "news", {"nick": "x", "joined": True}))  # not seat 0
    seat_news(peer, 0, seal_watch(other, "news", {"nick": "x", "joined": True}))  # not the host
    seat_news(peer, 0, seal_watch(host, "lines", {"at": 0, "lines": []}))  # not news
    assert _texts(peer) == []
    open_peer = _seat_peer(host, deal="open")
    seat_news(open_peer, 0, seal_watch(host, "news", {"nick": "bob", "joined": True}))
    assert _texts(open_peer) == [
        "bob is watching (open deal: spectators see each round after it ends)"
    ]


def test_a_spectator_frame_is_verified_before_it_is_read():
    me = Identity.generate()
    frame = seal_watch(me, "ping", {})
    assert open_watch(frame).author == me.public_key
    bad = frame[:-1] + bytes([frame[-1] ^ 1])
    with pytest.raises(WatchError, match="bad signature"):
        open_watch(bad)
    with pytest.raises(WatchError, match="oversized"):
        open_watch(frame, max_size=10)


def test_the_watch_line_never_carries_the_invitation_secret():
    line = watch_line("tcp://127.0.0.1:5000#" + "A" * 43 + ".SECRET", "open", "open")
    assert "SECRET" not in line and "zsy watch tcp://127.0.0.1:5000#" + "A" * 43 in line
    assert line.endswith("open deal: spectators see each round after it ends")


async def _demo_record(out: Path) -> Path:
    """``zsy demo --players 3 --rounds 1 --deal open`` without mDNS: three bot peers over
    real sockets on loopback, the joiners (bot-1, bot-2) sitting down by the host's join URL
    instead of finding its name (a name lookup listens seconds, and mDNS on loopback is
    shared with the other xdist worker). Returns the host's record."""
    from zsy_lan.record.store import TableStore
    from zsy_lan.table.deciders import make_decider
    from zsy_lan.table.hosting import open_table
    from zsy_lan.table.joining import join_table
    from zsy_lan.table.reach import NetConfig

    net = NetConfig(address="127.0.0.1", mdns=False)

    def store_for(table: str, seat: int) -> TableStore:
        return TableStore(out / "state" / f"seat-{seat}", out / f"seat-{seat}.jsonl")

    said: list[str] = []
    ready = asyncio.Event()

    def notify(text: str) -> None:
        said.append(text)
        if "zsy join" in text:
            ready.set()

    host_id = Identity.generate()
    hosting = asyncio.create_task(open_table(
        host_id, build_rules(3, [], {}), 1, "demo", "bot-host", lambda t: store_for(t, 0),
        net, notify=notify, deal="open",
    ))
    await asyncio.wait_for(ready.wait(), 20)
    url = next(line for line in said if "zsy join" in line).rsplit(" ", 1)[-1].rstrip(")")

    async def join(k: int):
        ident = Identity.generate()
        peer, mesh = await join_table(ident, url, f"bot-{k}", store_for, net,
                                      notify=lambda _l: None)
        peer.decider = make_decider("easy", ident.public_key)
        return peer, mesh

    seated = await asyncio.wait_for(asyncio.gather(join(1), join(2)), 30)
    hosted = await asyncio.wait_for(hosting, 30)
    hosted.peer.decider = make_decider("easy", host_id.public_key)
    peers = [hosted.peer] + [p for p, _m in seated]
    try:
        await asyncio.wait_for(asyncio.gather(*(p.run() for p in peers)), 60)
    finally:
        for m in [hosted.mesh] + [m for _p, m in seated]:
            await m.close()
    heads = {p.replica.transcript_head() for p in peers}
    assert all(p.game.finished() for p in peers) and len(heads) == 1
    report = replay_file(out / "seat-0.jsonl")
    assert report.ok and report.head == heads.pop()
    return out / "seat-0.jsonl"


@pytest.mark.slow
@pytest.mark.timeout(120)
def test_the_follower_verifies_each_line_and_names_a_tampered_one(tmp_path):
    """The same record `zsy replay` accepts is followed to the same head; one changed byte
    in a seat's frame is named at its line, as zsy replay --verify names it."""
    record = asyncio.run(_demo_record(tmp_path))
    lines = record.read_text().splitlines()
    f = followed(lines)
    assert f.game.finished()
    # the read-only words of zsy watch: the table as the seats see it (no "you"), the seats
    from zsy_lan.cli.watch_cmds import answer
    from zsy_lan.ui.render import Style

    style = Style.detect("never", True)
    half = followed(lines, len(lines) * 2 // 3)
    table = answer("table", half, style)
    assert table[0].startswith("Round 1") and "(you)" not in "\n".join(table)
    # every seat's count and last play ("12 cards; last: 3♦", "1 card LEFT!; last: pass")
    assert sum("; last:" in t for t in table) == 3
    who = answer("who", half, style)  # the joiners sit in the order they came
    assert who[0] == "  seat 0: bot-host"
    assert [w[:10] for w in who[1:]] == ["  seat 1: ", "  seat 2: "]
    assert sorted(w[10:] for w in who[1:]) == ["bot-1", "bot-2"]
    assert answer("3 3", half, style) == [
        "A spectator does not play: type table, who or q (stops watching)."
    ]
    assert answer("table", None, style)[0].startswith("Nothing to show yet")
    obj = json.loads(lines[8])
    raw = bytearray(base64.b64decode(obj["frame"]))
    raw[20] ^= 1
    obj["frame"] = base64.b64encode(bytes(raw)).decode()
    g = Follower(lines[0])
    with pytest.raises(FollowError) as err:
        for line in [*lines[1:8], json.dumps(obj, separators=(",", ":"))]:
            g.add(line)
    assert err.value.line == 9


@pytest.mark.asyncio
@pytest.mark.timeout(30)
async def test_the_host_answers_a_spectator_at_the_table_with_accept_or_refuse():
    """During the match the host's typed accept/refuse/watchers reach the spectator desk
    (line mode and the full screen share ui.table._handle); other words do not."""
    from zsy_lan.table.reach import start_mesh
    from zsy_lan.table.spectator_desk import SpectatorDesk, _Seen
    from zsy_lan.table.watch_frames import Watcher
    from zsy_lan.ui.line_mode import _handle
    from zsy_lan.ui.render import Style

    host = Identity.generate()
    mesh = await start_mesh(host, "127.0.0.1", 0)
    try:
        desk = SpectatorDesk(host, "ask", mesh, lambda _t: None)
        bob, eve = Identity.generate(), Identity.generate()
        for who, ident in (("bob", bob), ("eve", eve)):
            desk.seen[ident.curve_public] = _Seen(
                ident.curve_public, ident.public_key, who, "asking"
            )
        session = SimpleNamespace(spectators=desk, game=None, seat=0)
        said: list[str] = []
        style = Style.detect("never", True)
        await _handle(session, "accept bob", style, 0, said.append)
        await _handle(session, "refuse eve", style, 0, said.append)
        await _handle(session, "watchers", style, 0, said.append)
        assert said == ["* bob may watch", "* refused eve", "* watching: bob"]
        assert mesh.peer_for_key(bob.curve_public) == Watcher(bob.curve_public)
        assert eve.curve_public in desk.banned and eve.public_key in desk.banned
        assert desk.command("accept nobody-here") is None  # left to --approve's accept
    finally:
        await mesh.close()


@pytest.mark.asyncio
async def test_the_desk_streams_the_record_from_its_start_and_starts_over_after_a_rewind(
    tmp_path,
):
    from zsy_lan.record.store import write_private
    from zsy_lan.table.spectator_desk import SpectatorDesk, _Seen
    from zsy_lan.table.watch_frames import Watcher

    host, bob = Identity.generate(), Identity.generate()
    mesh = DeskMesh()
    record = tmp_path / "transcript.jsonl"
    record.write_text("header\nline-1\nline-2\nline-3\n")
    peer = SimpleNamespace(
        store=SimpleNamespace(transcript_path=record), roster=SimpleNamespace(seats=[]),
        seat=0, notices=asyncio.Queue(), changed=asyncio.Event(),
    )
    desk = SpectatorDesk(host, "open", mesh, lambda _t: None)
    desk.attach(peer)
    key = bob.curve_public
    desk.seen[key] = _Seen(key, bob.public_key, "bob", "watching", last=time.monotonic())
    mesh.admit(Watcher(key), key)

    def got() -> list[tuple[str, dict]]:
        out = [(open_watch(f).kind, open_watch(f).body) for _p, f in mesh.sent]
        mesh.sent.clear()
        return out

    await desk.pump()
    assert got() == [("lines", {"at": 0, "lines": ["header", "line-1", "line-2", "line-3"]})]
    with record.open("a") as fh:
        fh.write("line-4\nline-5 half")  # a line still being written is not sent
    await desk.pump()
    assert got() == [("lines", {"at": 28, "lines": ["line-4"]})]
    write_private(record, b"header\nline-1\nother-2\n")  # the table rewound its record
    await desk.pump()
    assert got() == [  # in this order: the spectator starts over from the reset
        ("reset", {}),
        ("lines", {"at": 0, "lines": ["header", "line-1", "other-2"]}),
    ]


@pytest.mark.asyncio
async def test_a_spectator_that_lost_a_batch_gets_it_again_after_two_pings(tmp_path):
    """libzmq can lose frames when a link drops: the spectator's pings say what it holds,
    and the same position twice while more was sent makes the host send again from there."""
    from zsy_lan.table.spectator_desk import SpectatorDesk, _Seen
    from zsy_lan.table.watch_frames import Watcher

    host, bob = Identity.generate(), Identity.generate()
    mesh = DeskMesh()
    record = tmp_path / "transcript.jsonl"
    record.write_text("header\nline-1\n")
    peer = SimpleNamespace(
        store=SimpleNamespace(transcript_path=record), roster=SimpleNamespace(seats=[]),
        seat=0, notices=asyncio.Queue(), changed=asyncio.Event(),
    )
    desk = SpectatorDesk(host, "open", mesh, lambda _t: None)
    desk.attach(peer)
    key = bob.curve_public
    desk.seen[key] = _Seen(key, bob.public_key, "bob", "watching", last=time.monotonic())
    mesh.admit(Watcher(key), key)
    await desk.pump()
    assert len(mesh.sent) == 1  # the batch "at 0" (say it was lost on the way)
    mesh.sent.clear()
    ping = seal_watch(bob, "ping", {"at": 0})
    desk.on_frame(Watcher(key), ping)
    await desk.pump()
    assert mesh.sent == []  # once is no proof: the batch may still be on its way
    desk.on_frame(Watcher(key), ping)
    await desk.pump()
    assert [open_watch(f).body for _p, f in mesh.sent] == [
        {"at": 0, "lines": ["header", "line-1"]}
    ]
    mesh.sent.clear()
    desk.on_frame(Watcher(key), seal_watch(bob, "ping", {"at": 14}))  # it holds all: quiet
    desk.on_frame(Watcher(key), seal_watch(bob, "ping", {"at": 14}))
    await desk.pump()
    assert mesh.sent == [] and desk.misbehaviour == []


def test_who_lists_the_spectators_a_seat_heard_of_and_the_host_s_desk_knows():
    from zsy_lan.table.spectator_desk import SpectatorDesk, _Seen, watcher_nicks

    host = Identity.generate()
    peer = _seat_peer(host)
    assert watcher_nicks(peer) == []
    seat_news(peer, 0, seal_watch(host, "news", {"nick": "bob", "joined": True}))
    seat_news(peer, 0, seal_watch(host, "news", {"nick": "ann", "joined": True}))
    seat_news(peer, 0, seal_watch(host, "news", {"nick": "bob", "joined": False}))
    assert watcher_nicks(peer) == ["ann"]
    desk = SpectatorDesk(host, "open", DeskMesh(), lambda _t: None)
    desk.seen[b"k"] = _Seen(b"k", b"", "carl", "watching")
    desk.seen[b"j"] = _Seen(b"j", b"", "dora", "asking")
    assert watcher_nicks(SimpleNamespace(spectators=desk)) == ["carl"]


def test_the_who_command_names_the_spectators_after_the_seats():
    from zsy_lan.table.session import SeatInfo
    from zsy_lan.ui.line_mode import roster_lines

    session = SimpleNamespace(
        game=SimpleNamespace(rules=build_rules(4, [], {})), seat=0,
        info=SimpleNamespace(seats=[SeatInfo(nick=n) for n in ("ann", "b", "c", "d")]),
    )
    assert not any("watching" in line for line in roster_lines(session))
    session.watching_nicks = ["bob"]
    lines = roster_lines(session)
    assert lines[-1] == "  watching: bob" and len(lines) == 5


@pytest.mark.asyncio
@pytest.mark.parametrize("typed", ["q", "Q", "quit", "exit"])
async def test_one_word_stops_watching_in_both_modes(typed: str) -> None:
    """Issue #26: the full screen's key is ``q`` and the log said ``quit``. Every sentence
    now says ``q``, and typed in line mode it stops watching (``quit`` still does)."""
    from zsy_lan.table import watch

    commands: asyncio.Queue[str] = asyncio.Queue()
    commands.put_nowait(typed)
    shown: list[str] = []
    out = await watch._follow(  # noqa: SLF001 - the loop the typed words reach
        None,  # type: ignore[arg-type]  # nothing is sent before the typed word is read
        Identity.generate(),
        b"",
        shown.append,
        None,
        None,
        None,
        5.0,
        commands,
    )
    assert out.why == "quit" and shown == []
