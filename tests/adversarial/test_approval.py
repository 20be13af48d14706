"""Approval cannot be locked or fooled; look-alike names; kicked players (issue #25).

Before: with ``zsy host --approve`` eight guests all named "alice" filled the
waiting list for ever (the real alice was refused), ``accept alice`` answered
"several players are waiting", ``refuse alice`` "nobody of that name", ``who``
listed eight identical lines, and one impostor with a friend's nick was seated
by ``accept alice``. A seat named "hоst" (Cyrillic о) sat beside "host", and a
kicked player came back with a new key and the same nick unnoticed.

The sans-IO tests drive :class:`~zsy_lan.protocol.lobby.HostLobby` with many
signed join frames from fresh identities, as a modified client sends them; the
socket tests run the real lobby (``open_table``) and feed it hand-made signed
frames over CURVE from other loopback source addresses (127.0.0.2, 127.0.0.3:
still 127.0.0.0/8), next to an honest ``join_table``.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
from pathlib import Path

import pytest
import zmq
import zmq.asyncio
from zmq.utils import z85

from zsy_lan.engine.ruleset import build_rules, ruleset_id
from zsy_lan.net.transport import RELAYED, Mesh
from zsy_lan.protocol import Identity
from zsy_lan.protocol.host_lobby import (
    APPROVAL_EXPIRED,
    APPROVAL_TTL,
    MARK_ADDRESS_REMOVED,
    MARK_KNOWN,
    MARK_LIKE_REMOVED,
    MARK_LIKE_SEAT,
    MARK_NOT_KNOWN_KEY,
    MARK_SAME_WAITING,
    MAX_PENDING,
    MAX_PENDING_PER_ADDRESS,
    HostLobby,
)
from zsy_lan.protocol.lobby import Roster, Seat, join_body, open_lobby, seal_lobby
from zsy_lan.record.store import TableStore
from zsy_lan.table.hosting import lobby_command, open_table
from zsy_lan.table.joining import join_table
from zsy_lan.table.reach import NOT_ACCEPTED, NetConfig, parse_join_url, refusal_error
from zsy_lan.text.lookalike import alike_positions, looks_alike, skeleton, unusual_letters

LO = "127.0.0.1"
CYRILLIC_O = "\u043e"  # о
HOST_LOOKALIKE = f"h{CYRILLIC_O}st"


# --------------------------------------------------------------------- sans-IO


def _lobby(approve: bool = True, players: int = 6) -> HostLobby:
    host = Identity.generate()
    rules = build_rules(3, [], {})
    roster = Roster(
        "t1",
        "table",
        1,
        rules.config,
        [Seat(0, host.public_key, host.curve_public, "tcp://127.0.0.1:4000", "host")],
    )
    return HostLobby(host, roster, players, ruleset_id(rules), approve_each=approve)


def _ask(
    lobby: HostLobby, nick: str, address: str = "", ident: Identity | None = None, now: float = 0.0
) -> tuple[Identity, str | None]:
    """A modified guest's join and sit (a fresh identity unless given): the refusal, if any."""
    ident = ident or Identity.generate()
    join = open_lobby(seal_lobby(ident, "join", join_body(ident, nick, "tcp://127.0.0.1:5000")))
    _reply, reason = lobby.on_join(join, now, address)
    if reason is not None:
        return ident, reason
    sit = open_lobby(seal_lobby(ident, "sit", {"ruleset": lobby.ruleset}))
    _reply, _seat, reason = lobby.on_sit(sit, now)
    return ident, reason


def _said(line: str, lobby: HostLobby) -> list[str]:
    """What the host reads after typing ``line`` (no mesh: nobody is sent anything here)."""
    said: list[str] = []
    asyncio.run(lobby_command(line, _NoMesh(), lobby, None, said.append))  # type: ignore[arg-type]
    return said


class _NoMesh:
    """Stands for the host's mesh where a command would tell a guest (sans-IO tests)."""

    def __init__(self) -> None:
        self.sent: list[tuple[object, bytes]] = []

    async def send(self, peer: object, frame: bytes, timeout: float = 0.0) -> bool:
        self.sent.append((peer, frame))
        return True

    def connect_peer(self, *_a: object) -> None:
        return None

    def linked(self, *_a: object) -> bool:
        return False  # no lobby link: start() connects every seat


def test_one_address_holds_only_a_few_waiting_places():
    """Eight "alice"s from one machine: three wait, the rest are told why; others still get in."""
    lobby = _lobby()
    reasons = [_ask(lobby, "alice", "10.0.0.66")[1] for _k in range(8)]
    assert reasons[:MAX_PENDING_PER_ADDRESS] == [None] * MAX_PENDING_PER_ADDRESS
    for reason in reasons[MAX_PENDING_PER_ADDRESS:]:
        assert reason is not None and "from your address" in reason
    assert len(lobby.awaiting()) == MAX_PENDING_PER_ADDRESS
    real, reason = _ask(lobby, "alice", "10.0.0.7")
    assert reason is None  # the real alice waits too, on her own machine
    assert real.public_key in {p.author for p in lobby.awaiting()}


def test_one_machines_ipv6_addresses_count_as_one():
    """Privacy addresses: one machine may take any address of its /64, so the /64 is the unit."""
    lobby = _lobby()
    reasons = [_ask(lobby, "alice", f"2001:db8::{k + 1:x}")[1] for k in range(5)]
    assert reasons[:MAX_PENDING_PER_ADDRESS] == [None] * MAX_PENDING_PER_ADDRESS
    assert all(r is not None and "your address" in r for r in reasons[MAX_PENDING_PER_ADDRESS:])
    assert _ask(lobby, "alice", "2001:db8:0:1::1")[1] is None  # another network
    assert _ask(lobby, "alice", "::ffff:10.0.0.1")[1] is None  # IPv4 on a dual-stack socket


def test_guests_heard_only_through_the_relay_share_one_bucket():
    lobby = _lobby()
    reasons = [_ask(lobby, "far", RELAYED)[1] for _k in range(MAX_PENDING_PER_ADDRESS + 1)]
    assert reasons[-1] is not None and "your address" in reasons[-1]
    assert _ask(lobby, "near", "10.0.0.1")[1] is None  # the LAN's places are not theirs


def test_the_whole_list_is_bounded_and_waiting_guests_expire():
    """Strangers on many addresses can fill the list, but not for ever: each wait ends."""
    lobby = _lobby(players=20)
    for k in range(MAX_PENDING):
        assert _ask(lobby, "alice", f"10.0.0.{k}", now=0.0)[1] is None
    _i, reason = _ask(lobby, "alice", "10.0.1.1", now=APPROVAL_TTL / 2)
    assert reason is not None and "too many players are waiting" in reason
    lobby.expire(APPROVAL_TTL / 2)
    assert len(lobby.awaiting()) == MAX_PENDING and not lobby.expired  # the host may think
    lobby.expire(APPROVAL_TTL + 1)
    assert not lobby.awaiting()
    assert len(lobby.expired) == MAX_PENDING  # for the host to say, and to tell each of them
    _i, reason = _ask(lobby, "alice", "10.0.1.1", now=APPROVAL_TTL + 1)
    assert reason is None


def test_expired_guests_are_told_and_the_host_reads_who(monkeypatch):
    """The lobby loop tells each expired guest to join again, and the host which one left."""
    from zsy_lan.table import hosting

    lobby = _lobby()
    ident, _r = _ask(lobby, "alice", "10.0.0.5")
    lobby.expire(APPROVAL_TTL + 1)
    mesh = _NoMesh()
    said: list[str] = []
    asyncio.run(hosting._let_go_expired(mesh, lobby, said.append))  # type: ignore[arg-type]
    assert said == ["#1 alice stopped waiting: no answer in 10 minutes"]
    (peer, frame), = mesh.sent
    msg = open_lobby(frame)
    assert msg.kind == "refused" and msg.body["reason"] == APPROVAL_EXPIRED
    assert peer.public_key == ident.curve_public  # type: ignore[attr-defined]
    assert not lobby.expired
    # the guest reads one sentence, not "the host refused: the host did not answer ..."
    assert str(refusal_error(msg)).startswith("the host did not answer your request to sit")


def test_who_lists_every_waiting_guest_apart():
    """Eight identical lines before; now a number, a key and an address each, and a mark."""
    lobby = _lobby()
    idents = [_ask(lobby, "alice", f"10.0.0.{k}")[0] for k in range(4)]
    said = _said("who", lobby)
    assert said[0].startswith("seats: 0 host")
    assert "4 players wait" in said[1]
    lines = said[2:]
    assert len(lines) == 4 and len(set(lines)) == 4
    for k, (line, ident) in enumerate(zip(lines, idents, strict=True)):
        assert line.strip().startswith(f"#{k + 1} alice, key {ident.fingerprint}")
        assert f"from 10.0.0.{k}" in line
        assert "another waiting player's name looks the same" in line


def test_accept_and_refuse_by_number_or_key_never_by_a_shared_name():
    lobby = _lobby()
    a1, _r = _ask(lobby, "alice", "10.0.0.1")
    a2, _r = _ask(lobby, "alice", "10.0.0.2")
    a3, _r = _ask(lobby, "alice", "10.0.0.3")
    seat, problem = lobby.approve("alice")
    assert seat is None and problem is not None and "number or the key" in problem
    assert _said("refuse alice", lobby) == [
        "cannot refuse: several waiting players could be meant: type the number or the key "
        "of one (who lists them)"
    ]
    said = _said("refuse 2", lobby)
    assert said == [f"refused #2 alice (key {a2.fingerprint})"]
    assert a2.public_key in lobby.banned
    seat, problem = lobby.approve(a3.fingerprint[:9])  # "1a2b:3c4d", as who shows it
    assert problem is None and seat is not None and seat.key == a3.public_key
    seat, problem = lobby.approve("#1")
    assert problem is None and seat is not None and seat.key == a1.public_key
    assert seat.nick == "alice-2"  # the seated "alice" (a3) keeps the name


def test_a_nick_spelled_like_a_number_or_key_makes_it_ambiguous_not_wrong():
    """An impostor named "1" (or its own key's prefix) cannot take the host's `accept 1`."""
    lobby = _lobby()
    honest, _r = _ask(lobby, "bob", "10.0.0.1")
    _ask(lobby, "1", "10.0.0.2")
    seat, problem = lobby.approve("1")
    assert seat is None and problem is not None and "several" in problem
    fp = honest.fingerprint[:4]
    _ask(lobby, fp, "10.0.0.3")
    seat, problem = lobby.approve(fp)
    assert seat is None and problem is not None and "several" in problem
    seat, _p = lobby.approve(honest.fingerprint)
    assert seat is not None and seat.key == honest.public_key


def test_an_impostor_with_a_friends_nick_is_marked_and_not_accepted_by_name():
    """The host played with alice (her key in `zsy history`): a new key called alice is marked."""
    lobby = _lobby()
    alice = Identity.generate()
    lobby.known = {alice.public_key: "alice"}
    impostor, _r = _ask(lobby, "alice", "10.0.0.9")
    (mark,) = lobby.marks("alice", impostor.public_key, "10.0.0.9")
    assert mark.text == MARK_NOT_KNOWN_KEY and mark.warn
    seat, problem = lobby.approve("alice")
    assert seat is None and problem is not None and "marked" in problem
    said = _said("who", lobby)
    assert "not the key of the 'alice' in your history" in said[-1]
    # the real alice, asking too: known, and told apart from the impostor by key
    _ask(lobby, "alice", "10.0.0.8", ident=alice)
    marks = lobby.marks("alice", alice.public_key, "10.0.0.8")
    assert [m.text for m in marks] == [MARK_SAME_WAITING, MARK_KNOWN]
    seat, _p = lobby.approve(alice.fingerprint)
    assert seat is not None and seat.key == alice.public_key


def test_a_known_player_alone_is_accepted_by_name():
    lobby = _lobby()
    alice = Identity.generate()
    lobby.known = {alice.public_key: "alice"}
    _ask(lobby, "alice", "10.0.0.8", ident=alice)
    assert "known from your history as 'alice'" in _said("who", lobby)[-1]
    seat, problem = lobby.approve("alice")
    assert problem is None and seat is not None and seat.key == alice.public_key


@pytest.mark.parametrize(
    "nick",
    [
        HOST_LOOKALIKE,  # Cyrillic о
        "HOST",  # the same letters in capitals
        "h\u03bfst",  # Greek omicron
        "\uff48\uff4f\uff53\uff54",  # fullwidth ｈｏｓｔ
        "h0st",  # the digit zero
        "H\u039fST",  # capitals, one a Greek Omicron
    ],
)
def test_a_look_alike_of_a_seated_name_is_refused_saying_whose(nick):
    lobby = _lobby(approve=False)
    _i, reason = _ask(lobby, nick, "10.0.0.3")
    assert reason is not None
    assert "looks like the name of seat 0 ('host')" in reason and "--nick" in reason
    assert len(lobby.roster.seats) == 1


def test_the_refusal_names_the_letters_that_differ():
    _i, reason = _ask(_lobby(approve=False), HOST_LOOKALIKE, "10.0.0.3")
    assert reason is not None and "CYRILLIC SMALL LETTER O" in reason


def test_a_look_alike_seated_between_join_and_sit_is_refused_at_the_sit():
    lobby = _lobby(approve=False)
    ident = Identity.generate()
    join = open_lobby(seal_lobby(ident, "join", join_body(ident, "аna", "tcp://127.0.0.1:5")))
    assert lobby.on_join(join, 0.0, "10.0.0.1")[1] is None
    assert _ask(lobby, "ana", "10.0.0.2")[1] is None  # the real ana sits first
    sit = open_lobby(seal_lobby(ident, "sit", {"ruleset": lobby.ruleset}))
    _reply, seat, reason = lobby.on_sit(sit, 0.0)
    assert seat is None and reason is not None and "seat 1 ('ana')" in reason


def test_the_same_name_twice_is_suffixed_and_the_suffix_is_no_look_alike():
    """The same text is no trick (the second is alice-2); alice-2 must not look like a taken one."""
    lobby = _lobby(approve=False)
    _ask(lobby, "alice", "10.0.0.1")
    _ask(lobby, "alice-2", "10.0.0.2")
    _ask(lobby, "alice", "10.0.0.3")
    nicks = [s.nick for s in lobby.roster.seats]
    assert nicks == ["host", "alice", "alice-2", "alice-3"]
    assert not alike_positions(nicks)


def test_a_kicked_player_back_with_a_new_key_is_marked():
    """Without --approve the host is told when it sits; with it, the waiting line says so."""
    lobby = _lobby(approve=False)
    _ask(lobby, "mallory", "10.0.0.5")
    lobby.remove(lobby.roster.seats[1])
    back, reason = _ask(lobby, f"mall{CYRILLIC_O}ry", "10.0.0.6")
    assert reason is None
    marks = lobby.marks(f"mall{CYRILLIC_O}ry", back.public_key)
    assert [m.text for m in marks] == [MARK_LIKE_REMOVED] and marks[0].warn
    said: list[str] = []
    from zsy_lan.table import hosting

    asyncio.run(
        hosting._seat_joined(_NoMesh(), lobby, lobby.roster.seats[1], None, said.append)  # type: ignore[arg-type]
    )
    assert said[-1].startswith(f"! seat 1 (mall{CYRILLIC_O}ry, key {back.fingerprint})")
    assert "whom you removed" in said[-1] and "kick 1" in said[-1]

    approving = _lobby()
    _ask(approving, "mallory", "10.0.0.5")
    assert approving.refuse("1")[0] is not None
    _ask(approving, "mallory", "10.0.0.7")  # a new key, another address
    line = _said("who", approving)[-1]
    assert "looks like 'mallory', whom you removed, with a new key" in line
    seat, problem = approving.approve("mallory")
    assert seat is None and problem is not None and "marked" in problem
    refused, problem = approving.refuse("mallory")  # refusing the only one harms nobody else
    assert problem is None and refused is not None and refused.nick == "mallory"


def test_a_refused_players_address_is_noted_but_does_not_block():
    """Several players may share a machine or a NAT: the address is a note, not a warning."""
    lobby = _lobby()
    _ask(lobby, "mallory", "10.0.0.5")
    lobby.refuse("mallory")
    ana, _r = _ask(lobby, "ana", "10.0.0.5")
    marks = lobby.marks("ana", ana.public_key, "10.0.0.5")
    assert [(m.text, m.warn) for m in marks] == [(MARK_ADDRESS_REMOVED, False)]
    seat, problem = lobby.approve("ana")
    assert problem is None and seat is not None
    # the name says more than the address: an older removed "mallory" is still found
    lobby.remove(seat)  # ana removed later, from the same address as the one below
    back, _r = _ask(lobby, "mallory", "10.0.0.5")
    marks = lobby.marks("mallory", back.public_key, "10.0.0.5")
    assert [m.text for m in marks] == [MARK_LIKE_REMOVED]


def test_a_waiting_name_like_a_seat_is_marked():
    lobby = _lobby()
    _ask(lobby, "ana", "10.0.0.1")
    lobby.approve("ana")
    ident, _r = _ask(lobby, "ana", "10.0.0.2")  # the same text: it would sit as ana-2
    marks = lobby.marks("ana", ident.public_key, "10.0.0.2")
    assert [m.text for m in marks] == [MARK_LIKE_SEAT]


def test_skeleton_follows_uts39():
    assert skeleton("paypal") == skeleton("p\u0430yp\u0430l")  # Cyrillic а
    assert skeleton("rn") == skeleton("m")  # two letters that read as one
    assert looks_alike("Ilya", "llya") and looks_alike("ALICE", "alice")
    assert not looks_alike("alice", "alicia") and not looks_alike("bob", "bab")
    assert unusual_letters("abc") == ""


def test_the_shipped_data_is_unicodes():
    from importlib import resources

    head = resources.files("zsy_lan.text").joinpath("confusables.txt").read_text("utf-8")[:600]
    assert "Unicode Security Mechanisms for UTS #39" in head
    assert re.search(r"# Version: \d+\.\d+\.\d+", head)


def test_screens_show_keys_for_seats_whose_names_look_alike():
    """A roster this host did not make (a hostile host's, an old resumed one) is not refused:
    the seats that read the same carry their key fingerprint on every line that names them."""
    from zsy_lan.table.session import SeatInfo
    from zsy_lan.ui import line_mode

    class _Session:
        class info:  # noqa: N801 - stands for SessionState
            seats = [
                SeatInfo("host", fingerprint="aaaa:bbbb:cccc:dddd"),
                SeatInfo(HOST_LOOKALIKE, fingerprint="1111:2222:3333:4444"),
                SeatInfo("ana", fingerprint="5555:6666:7777:8888"),
            ]

    names = line_mode._names(_Session())  # type: ignore[arg-type]
    assert names == ["host [key aaaa:bbbb]", f"{HOST_LOOKALIKE} [key 1111:2222]", "ana"]


# ------------------------------------------------------------------ over sockets


class _ModifiedGuest:
    """A guest that speaks the lobby by hand from a loopback source address of its choice."""

    def __init__(self, ctx: zmq.asyncio.Context, url: str, source: str) -> None:
        self.identity = Identity.generate()
        endpoint, host_key = parse_join_url(url)
        self.sock = ctx.socket(zmq.DEALER)
        self.sock.linger = 0
        self.sock.routing_id = b"Z" + self.identity.curve_public
        self.sock.curve_serverkey = z85.encode(host_key)
        self.sock.curve_publickey = z85.encode(self.identity.curve_public)
        self.sock.curve_secretkey = z85.encode(self.identity.curve_secret)
        # libzmq's "source;destination" form: the connection comes from `source`
        self.sock.connect(f"tcp://{source}:0;{endpoint[len('tcp://'):]}")

    async def send(self, kind: str, body: dict) -> None:
        await self.sock.send(seal_lobby(self.identity, kind, body))

    async def ask(self, nick: str, ruleset: str) -> str:
        """Join and sit; the refusal's reason, or ``""`` when it waits for the host."""
        await self.send("join", join_body(self.identity, nick, "tcp://127.0.0.1:9"))
        kind, body = await self.next()
        if kind == "refused":
            return str(body["reason"])
        await self.send("sit", {"ruleset": ruleset})
        with contextlib.suppress(TimeoutError):
            kind, body = await self.next(0.3)
            return str(body.get("reason", kind))
        return ""

    async def next(self, timeout: float = 10.0) -> tuple[str, dict]:
        frame = await asyncio.wait_for(self.sock.recv(), timeout)
        msg = open_lobby(frame)
        return msg.kind, msg.body


async def _host(tmp: Path, lines: list[str], commands: asyncio.Queue[str]) -> tuple:
    rules = build_rules(3, [], {})
    task = asyncio.create_task(
        open_table(
            Identity.generate(),
            rules,
            1,
            "t",
            "host",
            lambda t: TableStore(tmp / "host" / t),
            NetConfig(address=LO, mdns=False),
            notify=lines.append,
            deal="open",
            commands=commands,
            approve=True,
        )
    )
    for _k in range(500):
        url = next((ln for ln in lines if "tcp://" in ln), None)
        if url:
            return task, url[url.index("tcp://") :].rstrip(")"), ruleset_id(rules)
        await asyncio.sleep(0.02)
    raise AssertionError(lines)


async def _line(lines: list[str], pattern: str, timeout: float = 10.0) -> str:
    for _k in range(int(timeout / 0.02)):
        hit = next((ln for ln in lines if re.search(pattern, ln)), None)  # noqa: B023
        if hit:
            return hit
        await asyncio.sleep(0.02)
    raise AssertionError(f"no {pattern!r} in {lines}")


@pytest.mark.slow
@pytest.mark.asyncio
@pytest.mark.timeout(60)
async def test_strangers_on_one_address_cannot_lock_the_list_and_the_real_alice_is_seated(
    tmp_path,
):
    """The brief's attack over real sockets: fake "alice"s from 127.0.0.2 take their three
    places and no more; the real alice (an honest zsy join) waits too, `accept alice` is
    ambiguous, `who` tells them apart, and accepting her key seats her."""
    lines: list[str] = []
    commands: asyncio.Queue[str] = asyncio.Queue()
    task, url, ruleset = await _host(tmp_path, lines, commands)
    ctx = zmq.asyncio.Context()
    joiner = None
    try:
        fakes = [_ModifiedGuest(ctx, url, "127.0.0.2") for _k in range(MAX_PENDING_PER_ADDRESS + 2)]
        reasons = [await f.ask("alice", ruleset) for f in fakes]
        assert reasons[:MAX_PENDING_PER_ADDRESS] == [""] * MAX_PENDING_PER_ADDRESS
        assert all("from your address" in r for r in reasons[MAX_PENDING_PER_ADDRESS:]), reasons
        ask = await _line(lines, r"alice asks to sit down: type accept 1 or refuse 1")
        assert f"key {fakes[0].identity.fingerprint}, from 127.0.0.2" in ask
        alice = Identity.generate()
        told: list[str] = []  # what the real alice reads: her key, to tell the host
        joiner = asyncio.create_task(
            join_table(
                alice,
                url,
                "alice",
                lambda t, s: TableStore(tmp_path / "alice" / t),
                NetConfig(address=LO, mdns=False),
                notify=told.append,
            )
        )
        await _line(lines, r"alice asks to sit down: type accept 4 ")
        assert any(f"Your key is {alice.fingerprint}" in t for t in told), told
        commands.put_nowait("accept alice")
        await _line(lines, r"cannot accept: several waiting players")
        commands.put_nowait("who")
        await _line(lines, r"^  #4 alice, key")  # the last line of who's list
        waiting = [ln for ln in lines if re.match(r"  #\d alice, key", ln)]
        assert len(waiting) == 4 and len(set(waiting)) == 4
        assert f"#4 alice, key {alice.fingerprint}, from 127.0.0.1" in waiting[-1]
        commands.put_nowait(f"accept {alice.fingerprint[:9]}")
        await _line(lines, r"alice sat down at seat 1")
        commands.put_nowait("refuse #2")
        await _line(lines, r"refused #2 alice")
        kind, body = await fakes[1].next()
        assert kind == "refused" and body["reason"] == NOT_ACCEPTED
    finally:
        ctx.destroy(linger=0)
        task.cancel()
        with contextlib.suppress(BaseException):
            await task
        if joiner is not None:
            joiner.cancel()
            with contextlib.suppress(BaseException):
                await joiner


@pytest.mark.slow
@pytest.mark.asyncio
@pytest.mark.timeout(60)
async def test_a_guest_still_waiting_when_the_table_fills_is_told_it_is_full(tmp_path):
    """Two real "alice"s are accepted by number while a third waits: the table fills, the
    third is refused ("the table is full") instead of waiting for an answer that never
    comes, and the host is not warned about the seats it chose for the look-alike that
    still waits (that mark belongs to the waiting guest)."""
    lines: list[str] = []
    commands: asyncio.Queue[str] = asyncio.Queue()
    task, url, ruleset = await _host(tmp_path, lines, commands)
    ctx = zmq.asyncio.Context()
    joiners: list[asyncio.Task] = []
    try:
        for k in (1, 2):
            joiners.append(asyncio.create_task(join_table(
                Identity.generate(), url, "alice",
                lambda t, s, k=k: TableStore(tmp_path / f"alice{k}" / t),
                NetConfig(address=LO, mdns=False), notify=lambda _t: None,
            )))
            await _line(lines, rf"alice asks to sit down: type accept {k} ")
        late = _ModifiedGuest(ctx, url, "127.0.0.2")
        assert await late.ask("alice", ruleset) == ""
        await _line(lines, r"alice asks to sit down: type accept 3 ")
        commands.put_nowait("accept 1")
        commands.put_nowait("accept 2")
        await _line(lines, r"The table is full: dealing")
        kind, body = await late.next()
        assert (kind, body["reason"]) == ("refused", "the table is full")
        assert not [ln for ln in lines if ln.startswith("! seat")], lines
    finally:
        ctx.destroy(linger=0)
        for t in (task, *joiners):
            t.cancel()
            with contextlib.suppress(BaseException):
                await t


@pytest.mark.asyncio
@pytest.mark.timeout(30)
async def test_the_mesh_tells_where_a_guest_came_from():
    """The address the lobby bounds is the connection's source, not what the guest claims."""
    from zsy_lan.net.transport import CurveKeyPair

    host_kp = CurveKeyPair.generate()
    host = await Mesh.start(LO, 0, host_kp.secret, open_admission=True)
    ctx = zmq.asyncio.Context()
    try:
        guest = CurveKeyPair.generate()
        d = ctx.socket(zmq.DEALER)
        d.linger = 0
        d.routing_id = b"Z" + guest.public
        d.curve_serverkey = z85.encode(host.public_key)
        d.curve_publickey = z85.encode(guest.public)
        d.curve_secretkey = z85.encode(guest.secret)
        d.connect(f"tcp://127.0.0.3:0;{host.endpoint[len('tcp://'):]}")
        await d.send(b"hello")
        peer, _frame = await asyncio.wait_for(host.recv(), 10)
        assert peer.public_key == guest.public  # type: ignore[union-attr]
        assert host.guest_address(guest.public) == "127.0.0.3"
        assert host.guest_address(b"\0" * 32) == ""
        assert RELAYED == "relay"  # what a guest heard only through the relay shows
    finally:
        ctx.destroy(linger=0)
        await host.close()


def test_the_keys_the_host_knows_come_from_verified_network_records():
    """Bots, the host's own key, `zsy play`'s keys and records that do not verify are left out;
    the last nick a key had is the one the waiting list names."""
    from zsy_lan.record.history import (
        BAD,
        FINISHED,
        History,
        RecordEntry,
        SeatResult,
        known_players,
    )

    me, a, b, c = (Identity.generate().public_key.hex() for _k in range(4))

    def record(status: str, mtime: float, seats: list[tuple[str, str, bool]], local: bool = False):
        entry = RecordEntry(
            path=f"/r{mtime}", size=1, digest="d", status=status, local=local,
            seats=[SeatResult(n, k, nick, bot) for n, (k, nick, bot) in enumerate(seats)],
        )
        entry.mtime = mtime
        return entry

    history = History(
        records=[
            record(FINISHED, 2.0, [(me, "me", False), (a, "alice", False), (b, "bot:easy", True)]),
            record(FINISHED, 1.0, [(me, "me", False), (a, "ally", False)]),  # older nick
            record(BAD, 3.0, [(me, "me", False), (c, "carol", False)]),  # does not verify
            record(FINISHED, 4.0, [(c, "carl", False)], local=True),  # zsy play
        ],
        matches=[],
        unfinished=[],
        me_key=me,
    )
    assert known_players(history) == {bytes.fromhex(a): "alice"}


def test_the_data_tool_keeps_unicodes_header_and_the_two_columns():
    """tools/confusables_data.py: what the package ships from Unicode's file (regenerated
    when Unicode publishes a new version)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "confusables_data", Path(__file__).parents[2] / "tools" / "confusables_data.py"
    )
    assert spec is not None and spec.loader is not None
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    sample = (
        "\ufeff# confusables.txt\n# Version: 17.0.0\n#\n"
        "043E ;\t006F ;\tMA\t# ( о → o ) CYRILLIC SMALL LETTER O → LATIN SMALL LETTER O\t# \n\n"
        "FB01 ;\t0066 0069 ;\tMA\t#* ( ﬁ → fi ) LATIN SMALL LIGATURE FI\t# \n"
    )
    lines = tool.compact(sample).splitlines()
    assert lines[:2] == ["# confusables.txt", "# Version: 17.0.0"]
    assert lines[-2:] == ["043E;006F", "FB01;0066 0069"]
    with pytest.raises(ValueError):
        tool.compact("# nothing here\n")
