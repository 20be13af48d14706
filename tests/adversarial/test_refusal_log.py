"""Quiet refusals (issue #25): a brute force of invite secrets cannot fill the host's log.

The attack: a guest guesses the invitation's secret as fast as the lobby answers.
Each wrong secret wrote one log line (about 23 KB/s). Now the host logs the first
few refusals of each source (address where the mesh knows it, else key) in a
minute, then one line per source and reason when the minute is over: "997 more
wrong invite secrets from key ... in the last minute"; single lines are capped
for all sources together and sources beyond a bound are pooled, so fresh keys buy
no lines back. Every refused guest still gets its clear refusal at once.

The host side is the real lobby code (``HostLobby`` and ``hosting._lobby_frame``)
fed join frames a modified guest signs by hand; the clock is the test's.
"""

from __future__ import annotations

import logging
from typing import Any

import pytest

from zsy_lan.engine.ruleset import build_rules, ruleset_id
from zsy_lan.net.transport import Guest
from zsy_lan.protocol import Identity
from zsy_lan.protocol.host_lobby import HostLobby
from zsy_lan.protocol.lobby import Roster, Seat, join_body, open_lobby, seal_lobby
from zsy_lan.protocol.table_settings import INVITE_REFUSAL
from zsy_lan.table import hosting
from zsy_lan.table.refusal_log import EVERY, FIRST, LINES, OTHERS, SOURCES, RefusalLog

pytestmark = [pytest.mark.timeout(60)]

SECRET = "the-real-secret-0123456789"
GUESSES = 300


class _Mesh:
    """The host's mesh as the lobby uses it: what it sends, and (optionally) addresses."""

    def __init__(self, addresses: dict[bytes, str] | None = None) -> None:
        self.sent: list[tuple[Any, bytes]] = []
        self.addresses = addresses

    async def send(self, peer: Any, frame: bytes, timeout: float | None = None) -> None:
        self.sent.append((peer, frame))

    def guest_address(self, key: bytes) -> str:
        return (self.addresses or {}).get(key, "")


class _Clock:
    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


def _lobby() -> HostLobby:
    host = Identity.generate()
    rules = build_rules(3, [], {})
    roster = Roster("t-refusals", "table", 1, rules.config,
                    [Seat(0, host.public_key, host.curve_public, "tcp://127.0.0.1:4000", "host")])
    return HostLobby(host, roster, 3, ruleset_id(rules), invite=SECRET)


def _guess(guest: Identity, n: int) -> bytes:
    """A join the modified guest signs with its ``n``-th guess of the secret."""
    body = join_body(guest, "guesser", "tcp://127.0.0.1:5000", invite=f"guess-{n:06d}")
    return seal_lobby(guest, "join", body)


def _lines(caplog) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.getMessage().startswith("lobby: ")]


async def _try(mesh, lobby, refused, guest: Identity, n: int) -> None:
    await hosting._lobby_frame(mesh, lobby, None, lambda _line: None, refused,
                               Guest(guest.curve_public), _guess(guest, n))


@pytest.mark.asyncio
async def test_a_brute_force_from_one_guest_is_logged_as_a_count(caplog):
    caplog.set_level(logging.INFO, logger="zsy.table")
    clock, mesh, lobby = _Clock(), _Mesh(), _lobby()
    told: list[str] = []
    refused = hosting._Refusals(told.append, now=clock)
    guest = Identity.generate()
    for n in range(GUESSES):
        await _try(mesh, lobby, refused, guest, n)
        clock.t += 0.02  # 50 guesses a second, for 6 s
    # every guess got its clear refusal at once
    assert len(mesh.sent) == GUESSES
    reasons = {open_lobby(frame).body["reason"] for _peer, frame in mesh.sent}
    assert reasons == {INVITE_REFUSAL}
    # the log: the first few, then nothing until the minute is over
    lines = _lines(caplog)
    assert len(lines) == FIRST, lines
    assert all("refused a player from key " in x and "by invitation" in x for x in lines)
    clock.t += EVERY
    refused.log.flush(clock.t)  # the lobby's loop does this every pass
    lines = _lines(caplog)
    key = guest.curve_public.hex()[:12]
    assert lines[FIRST:] == [
        f"lobby: {GUESSES - FIRST} more wrong invite secrets from key {key} in the last minute"
    ]
    assert sum(len(x) for x in lines) < 600  # was one line (about 100 bytes) per guess
    # the host's terminal: one notice per 5 s, the next says how many more (as before)
    assert len(told) == 2 and "invitation" in told[0] and "more refusals, in the log" in told[1]
    # the next minute starts afresh: the first few logged again
    await _try(mesh, lobby, refused, guest, 1001)
    assert len(_lines(caplog)) == FIRST + 2


@pytest.mark.asyncio
async def test_fresh_keys_buy_no_lines_back(caplog):
    """A guest with a new key (a new connection) per guess: single lines stay capped
    for all sources together, and sources past the bound are pooled in one count."""
    caplog.set_level(logging.INFO, logger="zsy.table")
    clock, mesh, lobby = _Clock(), _Mesh(), _lobby()
    refused = hosting._Refusals(lambda _line: None, now=clock)
    guests = [Identity.generate() for _ in range(SOURCES * 3)]
    for n, guest in enumerate(guests * 2):
        await _try(mesh, lobby, refused, guest, n)
    assert len(mesh.sent) == len(guests) * 2  # each refused at once, all the same
    singles = _lines(caplog)
    assert len(singles) == LINES
    refused.log.flush(clock.t, force=True)  # the lobby closes (or the minute ends)
    summary = _lines(caplog)[LINES:]
    assert len(summary) <= SOURCES + 1
    assert any(f"from {OTHERS} " in x for x in summary)
    counted = sum(int(x.split()[1]) for x in summary)
    assert counted + LINES == len(guests) * 2  # every refusal is in the log, in a count


@pytest.mark.asyncio
async def test_the_summary_names_the_address_where_the_mesh_knows_it(caplog):
    caplog.set_level(logging.INFO, logger="zsy.table")
    guests = [Identity.generate() for _ in range(5)]
    mesh = _Mesh({g.curve_public: "10.0.0.7" for g in guests})
    clock, lobby = _Clock(), _lobby()
    refused = hosting._Refusals(lambda _line: None, now=clock)
    for n, guest in enumerate(guests * 4):  # five keys, one machine
        await _try(mesh, lobby, refused, guest, n)
    clock.t += EVERY
    refused.log.flush(clock.t)
    lines = _lines(caplog)
    assert lines[:FIRST] == [
        f"lobby: refused a player from 10.0.0.7: {INVITE_REFUSAL}"
    ] * FIRST
    assert lines[FIRST:] == [
        f"lobby: {20 - FIRST} more wrong invite secrets from 10.0.0.7 in the last minute"
    ]


@pytest.mark.asyncio
async def test_a_flood_of_bad_frames_and_rule_differences_is_counted_too(caplog):
    """A frame that is not a lobby message, and a sit whose rules differ (its 400 characters
    of difference logged with each): the same first few, then a count."""
    caplog.set_level(logging.INFO, logger="zsy.table")
    clock, mesh, lobby = _Clock(), _Mesh(), _lobby()
    refused = hosting._Refusals(lambda _line: None, now=clock)
    guest = Identity.generate()
    peer = Guest(guest.curve_public)
    for n in range(200):
        await hosting._lobby_frame(mesh, lobby, None, lambda _line: None, refused, peer,
                                   b"ZSYL garbage %d" % n)
    noisy = Identity.generate()
    body = join_body(noisy, "noisy", "tcp://127.0.0.1:5001", invite=SECRET)
    await hosting._lobby_frame(mesh, lobby, None, lambda _line: None, refused,
                               Guest(noisy.curve_public), seal_lobby(noisy, "join", body))
    for _n in range(200):
        sit = seal_lobby(noisy, "sit", {"ruleset": "other", "difference": "x" * 400})
        await hosting._lobby_frame(mesh, lobby, None, lambda _line: None, refused,
                                   Guest(noisy.curve_public), sit)
    lines = _lines(caplog)
    assert len(lines) <= 4 * FIRST, lines
    assert sum("the joiner's rules" in x for x in lines) == FIRST
    clock.t += EVERY
    refused.log.flush(clock.t)
    summary = _lines(caplog)[len(lines) :]
    assert len(summary) == 2 and all("more refusals (" in x for x in summary), summary


def test_the_log_itself_counts_per_source_and_reason():
    got: list[str] = []

    class _Log:
        def info(self, fmt: str, *args: object) -> None:
            got.append(fmt % args)

    book = RefusalLog(_Log(), first=1, every=10.0)  # type: ignore[arg-type]
    for t in range(5):
        book.refused(INVITE_REFUSAL, "10.0.0.1", float(t))
        book.refused("the table is full", "10.0.0.1", float(t))
        book.refused(INVITE_REFUSAL, "\x1b[2J10.0.0.2", float(t))
    book.flush(9.0)
    assert got[1] == f"lobby: refused a player from 10.0.0.2: {INVITE_REFUSAL}"  # cleaned
    book.flush(10.0)
    assert got[2:] == [
        "lobby: 5 more refusals (the table is full) from 10.0.0.1 in the last 10 s",
        "lobby: 4 more wrong invite secrets from 10.0.0.1 in the last 10 s",
        "lobby: 4 more wrong invite secrets from 10.0.0.2 in the last 10 s",
    ]
    assert book.total == 15
