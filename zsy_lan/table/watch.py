"""``zsy watch``: ask the host, then follow its record until the match ends.

The spectator makes a fresh identity, reaches the host (:mod:`.reach`, as a
joiner does), sends a signed ``watch`` request (:mod:`.watch_frames`) and, once
let in, re-verifies every line it receives and tells the public view
(:mod:`.follower`). How the host serves it is :mod:`.spectator_desk`'s.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from zsy_lan.net.broker import BrokerAddress
from zsy_lan.net.transport import Mesh
from zsy_lan.protocol.identity import Identity
from zsy_lan.protocol.lobby import (
    NAME_MAX,
    NICK_MAX,
    REASON_MAX,
    LobbyError,
    is_lobby_frame,
    open_lobby,
)
from zsy_lan.protocol.transcript import load_entry
from zsy_lan.record.replay import reason_text
from zsy_lan.table.follower import Follower, FollowError, Teller
from zsy_lan.table.reach import (
    HOST_GONE_AFTER,
    LinkWatch,
    TableError,
    parse_join_url,
    reach_host,
    refusal_error,
    start_mesh,
)
from zsy_lan.table.relay_join import attach as relay_attach
from zsy_lan.table.relay_join import split_target
from zsy_lan.table.watch_back import HostAway, unseen
from zsy_lan.table.watch_frames import (
    ANSWER_TIMEOUT,
    ASK_TTL,
    END_GONE,
    OPEN_DEAL_NOTE,
    PING_EVERY,
    WatchError,
    WatchMessage,
    open_watch,
    seal_watch,
    watch_body,
)
from zsy_lan.text.i18n import _, deal_word, join_items, ngettext
from zsy_lan.text.sanitize import clean, clean_or

log = logging.getLogger("zsy.spectate")


@dataclass
class WatchOutcome:
    """How a watch ended: ``why`` in words, ``ok`` False after a failed verification."""

    why: str
    ok: bool
    follower: Follower | None


async def watch_table(
    endpoint: str,
    host_curve: bytes,
    nick: str,
    address: str,
    *,
    show: Callable[[str], None] = print,
    record: Path | None = None,
    on_batch: Callable[[Follower, list[bytes]], None] | None = None,
    ask_timeout: float = ASK_TTL,
    identity: Identity | None = None,
    stop: asyncio.Event | None = None,
    commands: asyncio.Queue[str] | None = None,
    answer: Callable[[str, Follower | None], list[str]] | None = None,
    relay: BrokerAddress | None = None,
    scope: str = "",
    keep_frames: bool = True,
    after_end: float = 0.0,
    host_back: float = 0.0,
) -> WatchOutcome:
    """``zsy watch``: ask the host, then follow its record until the match ends.

    ``host_back``: seconds to wait for a host that left mid-match to resume
    (``zsy join``), then follow it on (:mod:`.watch_back`; ``zsy watch`` passes
    :data:`HOST_BACK_WAIT`). 0 stops when the host leaves.

    ``after_end``: seconds to read on once the record shows the match over, for the
    last words said after the last move, until the host's ``bye`` (``zsy watch``
    passes :data:`AFTER_END`). 0 stops at the last move: for a caller that closes
    the host itself once the spectator is done (the tests' in-process tables).

    ``relay`` and ``scope`` (the table id): the relay the host's watch line
    names (``zsy host --relay``). The spectator connects to it (the table's
    topics are derived from ``scope``) before it reaches for the host, so a
    spectator that cannot reach the host's address watches through the relay
    (end-to-end sealed, as every seat's links); a direct link is used whenever
    it is up.

    ``commands``: lines the spectator types; ``q`` (or ``quit``, ``exit``) stops
    watching, any other goes to ``answer`` (the read-only table words the
    CLI knows: ``table``, ``who``...), whose lines are shown.

    ``show`` gets every line for the screen. ``record``: the lines received
    are also written there (``zsy replay`` verifies it). ``on_batch`` (tests)
    sees the follower and every raw frame received so far after each batch;
    ``keep_frames=False`` hands it an empty list instead (``zsy watch``: a
    list of every frame would grow with the match).
    Raises :class:`~zsy_lan.table.reach.TableError` (one sentence) when the host
    refuses or cannot be reached.
    """
    identity = identity or Identity.generate()  # a spectator's own keys, never a seat's
    link = LinkWatch()  # the host's link is the only one
    mesh = await start_mesh(identity, address, 0, on_link=link)
    out_file = None
    try:
        if relay is not None:  # first: the host may be reachable only through it

            why = await relay_attach(mesh, relay, scope, 5.0)
            if why:
                show(why)  # the direct address may still answer
        await reach_host(
            mesh,
            endpoint,
            host_curve,
            lambda: link.failed.get(0),
            refused=_(
                "the table at {endpoint} admits no spectators: its host chose "
                "--spectators off, or the table has closed"
            ),
            wrong_key=_(
                "the table at {endpoint} does not have the key in your line: copy the "
                "whole tcp://ADDR:PORT#KEY line the host printed"
            ),
            timeout=ANSWER_TIMEOUT,
        )
        request = seal_watch(identity, "watch", watch_body(identity, nick))
        await mesh.send(0, request, timeout=ANSWER_TIMEOUT)
        welcome = await _await_welcome(mesh, identity, request, show, ask_timeout)
        if welcome.kind == "refused":
            raise refusal_error(welcome)  # type: ignore[arg-type]
        host_key = welcome.author
        name = clean_or(welcome.body.get("name"), "table", NAME_MAX)
        deal = "open" if welcome.body.get("deal") == "open" else "private"
        show(
            _(
                "Watching table '{name}' ({deal} deal) as a spectator: you see what every "
                "seat sees in public, never a hand. Type table to see the table, q to stop."
            ).format(name=name, deal=deal_word(deal))
        )
        if deal == "open":
            show(_(OPEN_DEAL_NOTE))
        if record is not None:
            record.parent.mkdir(parents=True, exist_ok=True)
            out_file = record.open("w", encoding="utf-8")
        return await _follow(
            mesh,
            identity,
            host_key,
            show,
            out_file,
            on_batch,
            stop,
            HOST_GONE_AFTER,
            commands,
            answer,
            keep_frames and on_batch is not None,
            after_end,
            host_back,
            lambda: seal_watch(identity, "watch", watch_body(identity, nick)),
        )
    finally:
        if out_file is not None:
            out_file.close()
        with contextlib.suppress(BaseException):
            await asyncio.wait_for(
                mesh.send(0, seal_watch(identity, "leave", {}), timeout=0.3), 0.5
            )
        await mesh.close()


async def _next(mesh: Mesh, timeout: float) -> WatchMessage | None:
    """The next verified spectator frame from the host's link, or ``None`` after ``timeout``."""
    deadline = time.monotonic() + timeout
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            return None
        try:
            peer_id, frame = await asyncio.wait_for(mesh.recv(), left)
        except TimeoutError:
            return None
        if peer_id != 0:
            continue
        if is_lobby_frame(frame):  # the host's lobby answers a stranger: say why

            with contextlib.suppress(LobbyError):
                lob = open_lobby(frame)
                if lob.kind in ("refused", "bye"):
                    return WatchMessage("refused", lob.author, lob.body)
            continue
        try:
            return open_watch(frame)
        except WatchError as exc:
            log.info("watch: refused a frame from the host: %s", exc)


async def _await_welcome(
    mesh: Mesh,
    identity: Identity,
    request: bytes,
    show: Callable[[str], None],
    ask_timeout: float,
) -> WatchMessage:
    """Wait for ``welcome`` or ``refused``: the request again while unanswered, then pings."""
    deadline = time.monotonic() + ANSWER_TIMEOUT
    asked = False
    last_ping = time.monotonic()
    ping = seal_watch(identity, "ping", {})
    while True:
        msg = await _next(mesh, 1.0)
        now = time.monotonic()
        if msg is not None and msg.kind in ("welcome", "refused"):
            return msg
        if msg is not None and msg.kind == "bye":
            return WatchMessage("refused", msg.author, msg.body)
        if msg is not None and msg.kind == "asked" and not asked:
            asked = True
            deadline = now + ask_timeout
            show(_("asked to watch; waiting for the host to let you in"))
        if now - last_ping >= PING_EVERY:
            last_ping = now
            with contextlib.suppress(Exception):
                await mesh.send(0, ping if asked else request, timeout=0.5)
        if now >= deadline:
            raise TableError(
                _("the host did not let you in in time; try again later")
                if asked
                else _("the host did not answer the request to watch")
            )


async def _follow(
    mesh: Mesh,
    identity: Identity,
    host_key: bytes,
    show: Callable[[str], None],
    out_file: Any,
    on_batch: Callable[[Follower, list[bytes]], None] | None,
    stop: asyncio.Event | None,
    gone_after: float,
    commands: asyncio.Queue[str] | None = None,
    answer: Callable[[str, Follower | None], list[str]] | None = None,
    keep_frames: bool = False,
    after_end: float = 0.0,
    host_back: float = 0.0,
    request: Callable[[], bytes] | None = None,
) -> WatchOutcome:
    """Receive, verify and tell the record until the match ends, the host leaves or ``stop``.

    The host is given up for lost only when both its link has been down and nothing
    came from it for ``gone_after`` seconds: a host still heard from (a link whose
    state lags, a relay) is followed on, and the time this spectator spends
    verifying a long catch-up never counts as the host's silence.

    Once the record shows the match over, the spectator reads on until the host's
    ``bye`` (at most ``after_end`` seconds, or :data:`END_GONE` without its link):
    the chat said after the last move (gg) is in the record after it, and a
    spectator that stopped at the last move never saw it. ``after_end`` 0: it stops
    at the last move.

    A host that leaves mid-match (its ``bye``, or lost as above) is waited for
    ``host_back`` seconds: ``request()`` (the watch request) is sent again until the
    host, resumed, welcomes this spectator again; the record goes on from where it
    stopped (:mod:`.watch_back`).
    """
    follower: Follower | None = None
    teller: Teller | None = None
    expected = 0
    last_ping = time.monotonic()
    heard = time.monotonic()  # the welcome, just now
    gone_since: float | None = None
    ended: float | None = None  # when the record showed the match over
    away: HostAway | None = None  # the host left mid-match: waiting for it to resume
    frames: list[bytes] = []

    def leave(now: float) -> HostAway | None:
        """The host left mid-match: wait for it (None: what was received does not verify)."""
        if not _record_ends(follower, show):
            return None
        show(
            _(
                "The host left the table. You go on watching once it resumes (zsy join); "
                "waiting at most {minutes} min, q stops watching."
            ).format(minutes=f"{host_back / 60:.0f}")
        )
        return HostAway(now, host_back)

    while stop is None or not stop.is_set():
        while commands is not None and not commands.empty():
            typed = commands.get_nowait().strip()
            if typed.lower() in ("q", "quit", "exit"):  # q, as the screen's key; quit as at a seat
                return WatchOutcome("quit", True, follower)
            if typed and answer is not None:
                for text in answer(typed, follower):
                    show(text)
        now = time.monotonic()
        if away is not None:
            if away.expired(now):
                return WatchOutcome(_("lost the table's host"), True, follower)
            if away.request_due(now) and request is not None:
                sent = False
                with contextlib.suppress(Exception):
                    sent = await mesh.send(0, request(), timeout=0.5)
                if not sent:
                    away.unsent()
        elif now - last_ping >= PING_EVERY:
            last_ping = now
            ping = seal_watch(identity, "ping", {"at": expected})  # what it holds: see _on_ping
            with contextlib.suppress(Exception):
                await mesh.send(0, ping, timeout=0.5)
        if away is not None:
            pass  # waiting for the host: its link comes back when it resumes
        elif mesh.is_connected(0):
            gone_since = None
        elif gone_since is None:
            gone_since = now
        elif ended is not None and now - gone_since >= END_GONE:
            return WatchOutcome(_("match over"), True, follower)  # the host closed: no more
        elif now - gone_since >= gone_after and now - heard >= gone_after:
            if ended is None and host_back > 0 and request is not None and follower is not None:
                away = leave(now)
                if away is None:
                    return WatchOutcome(_("the record did not verify"), False, follower)
                continue
            return WatchOutcome(_("lost the table's host"), _record_ends(follower, show), follower)
        if ended is not None and now - ended >= after_end:
            return WatchOutcome(_("match over"), True, follower)
        msg = await _next(mesh, 0.5)
        if msg is None or msg.author != host_key:
            continue
        heard = time.monotonic()
        if away is not None:  # the host resumed? only its welcome lets the record go on
            if msg.kind == "welcome":
                away, gone_since = None, None
                show(_("The host is back: watching the table again."))
            elif msg.kind == "asked" and not away.asked:
                away.asked = True
                show(_("asked to watch; waiting for the host to let you in"))
            elif msg.kind == "refused":
                why = clean_or(msg.body.get("reason"), "refused", REASON_MAX)
                return WatchOutcome(_(why), True, follower)
            continue  # a bye (to a ping it no longer knows) or an old batch: keep asking
        if msg.kind == "bye":
            why = clean_or(msg.body.get("reason"), "the host left the table", REASON_MAX)
            if follower is not None and follower.game.finished():
                return WatchOutcome(_("match over"), True, follower)
            if host_back > 0 and request is not None and follower is not None:
                away = leave(time.monotonic())
                if away is None:
                    return WatchOutcome(_("the record did not verify"), False, follower)
                continue
            return WatchOutcome(_(why), _record_ends(follower, show), follower)
        if msg.kind == "reset":
            follower, teller, expected = None, None, 0
            show(_("the table rewound its record; catching up again"))
            if out_file is not None:
                out_file.seek(0)
                out_file.truncate()
            continue
        if msg.kind != "lines":
            continue
        lines = msg.body.get("lines")
        at = msg.body.get("at")
        if isinstance(lines, list) and isinstance(at, int) and at < expected:
            lines = unseen(lines, at, expected)  # a resumed host sends from the start again
            at = expected if lines else at
        if at != expected or not isinstance(lines, list) or not lines:
            continue  # a batch sent again after a lost one: the host re-sends from our offset
        try:
            for line in lines:
                if not isinstance(line, str):
                    where = follower.lines + 1 if follower is not None else 1
                    raise FollowError(where, "a record line is not text")
                expected += len(line.encode("utf-8")) + 1
                if follower is None:
                    follower = _first_line(line)
                    teller = Teller(follower)
                else:
                    follower.add(line)
                    if keep_frames:
                        frames.append(load_entry(line)[1])
                if out_file is not None:
                    out_file.write(line + "\n")
        except FollowError as exc:
            show(
                "! "
                + _("the table's record does not verify: {verdict}").format(verdict=exc.verdict())
            )
            return WatchOutcome(_("the record did not verify"), False, follower)
        if out_file is not None:
            out_file.flush()
        if teller is not None:
            for text in teller.new_lines():
                show(text)
        if on_batch is not None and follower is not None:
            on_batch(follower, frames)
        if ended is None and follower is not None and follower.game.finished():
            if after_end <= 0:
                return WatchOutcome(_("match over"), True, follower)
            ended = time.monotonic()  # the last words follow until the host's bye
            show(
                _(
                    "The match is over; the table's last words follow until the host closes "
                    "it (q stops watching)."
                )
            )
        heard = time.monotonic()  # verifying the batch took this spectator's time, not the host's
    return WatchOutcome(_("stopped watching"), True, follower)


def _first_line(line: str) -> Follower:
    """A :class:`Follower` from the record's header; a header that is none is no record."""
    try:
        return Follower(line)
    except (ValueError, TypeError, KeyError) as exc:
        raise FollowError(1, f"not a zsy game record: {exc}") from None


def _record_ends(follower: Follower | None, show: Callable[[str], None]) -> bool:
    """The host went away before the match ended: how its record ends, as ``zsy replay`` says.

    A record cut between two lines or inside a step (the first messages of the
    batch the game waits for) is unfinished, never tampered; a leftover that
    cannot be is DAMAGED, which names no seat. False only then.
    """
    if follower is None:
        return True
    ends = follower.end()
    if not ends.ok:
        verdict = reason_text(ends.kind, ends.bad_line, ends.reason, ends.culprit)
        show("! " + _("the table's record does not verify: {verdict}").format(verdict=verdict))
        return False
    show(
        _(
            "Everything received verified; the host's record ends at line {line} (the match "
            "is unfinished)."
        ).format(line=ends.ends_at)
    )
    if ends.pending:
        show(
            ngettext(
                "(The last message is genuine but waits for the rest of its step, which the "
                "record does not have: it was cut short there.)",
                "(The last {n} messages are genuine but wait for the rest of their step, which "
                "the record does not have: it was cut short there.)",
                ends.pending,
            ).format(n=ends.pending)
        )
    return True


async def resolve_watch_target(
    target: str, interfaces: list[str], timeout: float, notify: Callable[[str], None]
) -> tuple[str, bytes]:
    """``zsy watch NAME|URL`` as ``(endpoint, host CURVE key)``.

    A name is looked up with mDNS like ``zsy join NAME``, but a full table is
    found too: a host that admits spectators keeps its table listed (``watch``
    in its TXT record) once the match runs. A table whose host admits none is
    refused here with the reason, rather than after a connection.
    """
    from zsy_lan.net.discovery import browse_tables, find_tables

    if target.startswith("tcp://"):
        return parse_join_url(target)
    named = await find_tables(target, interfaces, timeout=timeout)
    found = [t for t in named if t.watchable]
    if not found and named:
        raise TableError(
            _(
                "table '{name}' admits no spectators (its host chose --spectators off); ask "
                "the host"
            ).format(name=named[0].name)
        )
    if not found:
        seen = [t for t in await browse_tables(interfaces, timeout=1.0) if t.watchable]
        raise TableError(
            _(
                "no table named '{target}' that admits spectators was found on the network "
                "(tables to watch: {names}). mDNS does not cross subnets: ask the host for "
                "its zsy watch tcp://ADDR:PORT#KEY line"
            ).format(
                target=clean(target, NAME_MAX), names=join_items(t.name for t in seen) or _("none")
            )
        )
    ids = {t.table_id for t in found}
    if len(ids) > 1:
        listing = "; ".join(f"{t.name} (id {t.table_id}, host {t.fingerprint})" for t in found)
        raise TableError(
            _(
                "{n} tables are named '{target}': {listing}. Watch one by its id: zsy watch ID"
            ).format(n=len(ids), target=clean(target, NAME_MAX), listing=listing)
        )
    table = found[0]
    if table.endpoint is None:
        raise TableError(_("table '{name}' advertised no address").format(name=table.name))
    notify(
        _("watching '{name}' at {endpoint} (host {host})").format(
            name=table.name, endpoint=table.endpoint, host=table.fingerprint
        )
    )
    return table.endpoint, table.curve_key


def default_nick() -> str:
    """The login name, for a spectator that did not say its nick."""
    return clean_or(os.environ.get("USER") or os.environ.get("USERNAME"), "spectator", NICK_MAX)


def split_watch_target(target: str) -> tuple[str, BrokerAddress | None, str]:
    """``zsy watch`` line as ``(line without the relay part, relay, table id)``.

    A host with ``--relay`` prints ``tcp://ADDR:PORT#KEY,relay=...,table=ID``
    (:func:`zsy_lan.table.relay_join.split_target`); a name or a plain line has no
    relay. A malformed relay part is a :class:`~zsy_lan.table.reach.TableError`.
    """
    if not (target.startswith("tcp://") and "," in target):
        return target, None, ""
    try:
        base, relay, scope = split_target(target)
    except ValueError as exc:
        raise TableError(str(exc)) from None
    return base, relay, scope or ""
