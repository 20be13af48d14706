"""Joining a table (``zsy join``): find it, check the rules, sit down, wait for the roster.

``join_table`` finds the table (mDNS or a typed ``tcp://ADDR:PORT#KEY``),
checks it can build the exact same rules, sits down (:func:`sit_down`, the
lobby's side of a guest) and waits for the roster, then runs a
:class:`~zsy_lan.table.peer.TablePeer` in its seat. A bot seat the host runs
sits down the same way (:func:`~zsy_lan.table.hosting.run_bot_peer`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable, Mapping
from typing import Any

from zsy_lan.engine.errors import ConfigError
from zsy_lan.engine.ruleset import rules_from_config, ruleset_id
from zsy_lan.net.transport import Mesh
from zsy_lan.protocol import Identity
from zsy_lan.protocol.lobby import (
    NAME_MAX,
    NICK_MAX,
    REASON_MAX,
    LobbyError,
    Roster,
    join_body,
    open_lobby,
    seal_lobby,
)
from zsy_lan.protocol.table_settings import INVITE_REFUSAL, TableSettings, settings_line
from zsy_lan.record.store import TableStore
from zsy_lan.table.peer import TablePeer
from zsy_lan.table.reach import (
    HOST_GONE_AFTER,
    LinkWatch,
    NetConfig,
    TableError,
    invite_in,
    parse_join_url,
    reach_host,
    refusal_error,
    shell_word,
    start_mesh,
)
from zsy_lan.table.relay_join import attach as relay_attach
from zsy_lan.table.relay_join import relay_from_welcome, seat_relay, split_target
from zsy_lan.table.tuning import env_seconds
from zsy_lan.text.engine_text import translate as engine_said
from zsy_lan.text.i18n import N_, _, deal_word, join_clauses, join_items, ngettext
from zsy_lan.text.sanitize import clean, clean_or

log = logging.getLogger("zsy.table")

#: Seconds a joiner (and the host's lobby) waits for the other side's next lobby frame.
LOBBY_TIMEOUT = 15.0
#: Seconds between a joiner's repeats of a lobby request while a relay carries the lobby
#: (``$ZSY_RELAY_RESEND`` overrides it: tests through a relay that drops frames).
RELAY_RESEND = 2.0
RELAY_RESEND_ENV = "ZSY_RELAY_RESEND"


def relay_resend() -> float:
    """:data:`RELAY_RESEND`, or ``$ZSY_RELAY_RESEND`` when it is a number of seconds."""
    return env_seconds(RELAY_RESEND_ENV, RELAY_RESEND, floor=0.05)


async def _recv_lobby(mesh: Mesh, timeout: float) -> tuple[object, object]:
    """The next lobby frame on the mesh, verified; skips anything else."""
    deadline = time.monotonic() + timeout
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError
        peer_id, frame = await asyncio.wait_for(mesh.recv(), left)
        try:
            return peer_id, open_lobby(frame)
        except LobbyError as exc:
            log.info("lobby frame from %r refused: %s", peer_id, exc)


async def _lobby_answer(mesh: Mesh, request: bytes, timeout: float) -> tuple[object, object]:
    """The host's answer to ``request``; through a relay, which may drop frames, the
    request goes again every :func:`relay_resend` seconds (the lobby's requests are idempotent)."""
    if mesh.relay is None:
        return await _recv_lobby(mesh, timeout)
    deadline = time.monotonic() + timeout
    resend = relay_resend()
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError
        try:
            return await _recv_lobby(mesh, min(left, resend))
        except TimeoutError:
            await mesh.send(0, request, timeout=1.0)


async def sit_down(
    mesh: Mesh,
    identity: Identity,
    host_endpoint: str,
    host_curve: bytes,
    nick: str,
    *,
    bot: bool = False,
    on_status: Callable[[str], None] = lambda _: None,
    roster_timeout: float | None = None,
    watch: LinkWatch | None = None,
    invite: str | None = None,
) -> tuple[Roster, int]:
    """The joiner's side of the lobby: join, check the rules, sit, wait for the roster.

    Ends with a :class:`TableError` (one sentence) when the table is full, the
    host refuses or removes this player, the host closes the table (``bye``)
    or its link has been down for :data:`HOST_GONE_AFTER` seconds.
    """
    await reach_host(
        mesh,
        host_endpoint,
        host_curve,
        lambda: watch.failed.get(0) if watch is not None else None,
        refused=_(
            "the table at {endpoint} admits no new players: it is full or its match "
            "has started (`zsy tables` shows the tables with free seats)"
        ),
        wrong_key=_(
            "the table at {endpoint} does not have the key in your join line: copy the "
            "whole tcp://ADDR:PORT#KEY line the host printed"
        ),
        timeout=LOBBY_TIMEOUT,
    )
    body = join_body(identity, nick, mesh.endpoint, bot, invite)
    join = seal_lobby(identity, "join", body)
    await mesh.send(0, join, timeout=LOBBY_TIMEOUT)
    try:
        _peer, welcome = await _lobby_answer(mesh, join, LOBBY_TIMEOUT)
    except TimeoutError:
        raise TableError(_("the host did not answer the join request")) from None
    if welcome.kind == "refused":  # type: ignore[attr-defined]
        raise refusal_error(welcome)  # type: ignore[arg-type]
    if welcome.kind != "welcome":  # type: ignore[attr-defined]
        raise TableError(
            _("the host answered the join with {kind!r}; try joining again").format(
                kind=clean(welcome.kind, 16)  # type: ignore[attr-defined]
            )
        )
    info = welcome.body  # type: ignore[attr-defined]
    host_key = welcome.author  # type: ignore[attr-defined]
    await relay_from_welcome(mesh, info, on_status)  # a table that also plays through a relay
    config = info.get("config")
    if not isinstance(config, dict):
        raise TableError(_("the host's welcome has no table rules; try joining again"))
    difference = ruleset_difference(config)  # in English for the host's log
    if difference is not None:
        await mesh.send(
            0,
            seal_lobby(identity, "sit", {"ruleset": "mismatch", "difference": difference}),
            timeout=2.0,
        )
        raise TableError(
            _("this table's rules differ from what this machine can play: {difference}").format(
                difference=clean(ruleset_difference(config, _) or difference, REASON_MAX)
            )
        )
    mine = ruleset_id(rules_from_config(config))
    sit = seal_lobby(identity, "sit", {"ruleset": mine})
    await mesh.send(0, sit, timeout=LOBBY_TIMEOUT)
    sat_at = time.monotonic()
    free = info.get("free")
    status = (
        _(
            "asked to sit at table '{name}' ({deal} deal); the host accepts each player: "
            "waiting for the host, then for the table to fill"
        )
        if info.get("approve") is True
        else ngettext(
            "seated at table '{name}' ({deal} deal); waiting for the table to fill "
            "({free} free seat when you joined)",
            "seated at table '{name}' ({deal} deal); waiting for the table to fill "
            "({free} free seats when you joined)",
            free if isinstance(free, int) else 2,
        )
    )
    on_status(
        status.format(
            name=clean_or(info.get("name"), "table", NAME_MAX),
            deal=deal_word("private" if info.get("deal") == "private" else "open"),
            free=free if isinstance(free, int) else "?",
        )
    )
    if info.get("approve") is True:  # the host tells look-alike guests apart by key
        on_status(
            _(
                "Your key is {key}: the host sees it beside your name (tell it to them if "
                "they ask which one is you)."
            ).format(key=identity.fingerprint)
        )
    with contextlib.suppress(ValueError):  # the roster's copy is the one that counts
        on_status(settings_line(TableSettings.from_json(info.get("settings"))))
    deadline = None if roster_timeout is None else time.monotonic() + roster_timeout
    gone_since: float | None = None
    resend = relay_resend()
    while True:
        now = time.monotonic()
        if deadline is not None and now >= deadline:
            raise TableError(_("the table did not fill in time"))
        if mesh.relay is not None and now - sat_at >= resend:  # the relay may drop it
            sat_at = now
            await mesh.send(0, sit, timeout=1.0)  # the host answers a seated player's sit
        if mesh.is_connected(0):
            gone_since = None
        elif gone_since is None:
            gone_since = now
        elif now - gone_since >= HOST_GONE_AFTER:
            raise TableError(
                _(
                    "lost the host while waiting for the table to fill (it quit or the "
                    "network dropped); nothing was played, join again when it is back"
                )
            )
        try:
            _peer, msg = await _recv_lobby(mesh, 1.0)
        except TimeoutError:
            continue
        if msg.author != host_key:  # type: ignore[attr-defined]
            continue
        if msg.kind == "refused":  # type: ignore[attr-defined]
            raise refusal_error(msg)  # type: ignore[arg-type]
        if msg.kind == "bye":  # type: ignore[attr-defined]
            raise TableError(_("the host closed the table before it filled; nothing was played"))
        if msg.kind == "roster":  # type: ignore[attr-defined]
            try:
                roster = Roster.from_json(msg.body)  # type: ignore[attr-defined]
            except LobbyError as exc:
                raise TableError(
                    _("the host sent a roster this version cannot read ({why})").format(
                        why=clean(exc, REASON_MAX)
                    )
                ) from None
            seat = roster.seat_of(identity.public_key)
            if seat is None:
                raise TableError(_("the host's roster does not include this player"))
            return roster, seat


async def join_table(
    identity: Identity,
    target: str | None,
    nick: str,
    store_for: Callable[[str, int], TableStore],
    net: NetConfig,
    *,
    notify: Callable[[str], None] = print,
    browse_timeout: float = 6.0,
    bot: bool = False,
) -> tuple[TablePeer, Mesh]:
    """Find a table (by name with mDNS, or a tcp:// URL) and sit down."""
    relay, scope = None, ""
    if target and target.startswith("tcp://") and "," in target:  # a line naming a relay
        try:
            target, relay, scope = split_target(target)  # type: ignore[assignment]
        except ValueError as exc:
            raise TableError(str(exc)) from None
    endpoint, curve = await resolve_target(target, net, browse_timeout, notify)
    invite = invite_in(target) if target and target.startswith("tcp://") else None
    watch = LinkWatch()
    mesh = await start_mesh(identity, net.address, net.port, on_link=watch)
    try:
        if relay is not None:  # connect first: the host may be reachable only through it
            why = await relay_attach(mesh, relay, scope, 5.0)
            if why:
                notify(why)
        roster, seat = await sit_down(
            mesh,
            identity,
            endpoint,
            curve,
            clean_or(nick, "player", NICK_MAX),
            bot=bot,
            on_status=notify,
            watch=watch,
            invite=invite,
        )
        store = store_for(roster.table, seat)
        peer = TablePeer(
            identity, roster, seat, mesh, store, timing=net.timing, bot_chat=net.bot_chat
        )
        if mesh.relay is not None:  # from the join line or the host's welcome
            seat_relay(peer, mesh, mesh.relay.address)
        return peer, mesh
    except BaseException as exc:
        if not isinstance(exc, TableError) and 0 in mesh.peers:
            # Left while waiting (Ctrl-C): free the seat at once, bounded.
            with contextlib.suppress(BaseException):
                await asyncio.wait_for(
                    mesh.send(0, seal_lobby(identity, "bye", {}), timeout=0.5), 1.0
                )
        await mesh.close()
        raise


async def resolve_target(
    target: str | None, net: NetConfig, timeout: float, notify: Callable[[str], None]
) -> tuple[str, bytes]:
    """A join target as ``(endpoint, host CURVE key)``.

    A name that several open tables share is refused with each one's id
    (``zsy join ID`` picks one): joining whichever answered first could seat
    the player at a stranger's table.
    """
    if target and target.startswith("tcp://"):
        return parse_join_url(target)
    from zsy_lan.net.discovery import browse_tables, find_tables

    interfaces = net.mdns_interfaces or [net.address]
    if target:
        named = await find_tables(target, interfaces, timeout=timeout)
        found = [t for t in named if t.free_seats]
        if not found and any(t.watchable for t in named):  # full, listed for spectators
            raise TableError(
                _(
                    "the match at '{name}' is full: it seats nobody new. To watch it: "
                    "zsy watch {word}"
                ).format(name=clean(target, NAME_MAX), word=shell_word(clean(target, NAME_MAX)))
            )
        if not found:
            open_ = [t for t in await browse_tables(interfaces, timeout=1.0) if t.free_seats > 0]
            names = join_items(t.name for t in open_) or _("none")
            raise TableError(
                _(
                    "no open table named '{target}' found on the network (open tables: {names}). "
                    "mDNS does not cross subnets: ask the host for the tcp://ADDR:PORT#KEY line"
                ).format(target=clean(target, NAME_MAX), names=names)
            )
        ids = {t.table_id for t in found}
        if len(ids) > 1:
            listing = join_clauses(
                f"{t.name} (id {t.table_id}, host {t.fingerprint}, {t.endpoint})" for t in found
            )
            raise TableError(
                _(
                    "{n} open tables are named '{target}': {listing}. Join one by its id: "
                    "zsy join ID"
                ).format(n=len(ids), target=clean(target, NAME_MAX), listing=listing)
            )
        table = found[0]
    else:
        tables = await browse_tables(interfaces, timeout=timeout)
        open_ = [t for t in tables if t.free_seats > 0]
        if len(open_) != 1:
            names = join_items(f"{t.name} (id {t.table_id})" for t in open_) or _("none found")
            raise TableError(
                _("name the table to join (open tables: {names}); `zsy tables` lists them").format(
                    names=names
                )
            )
        table = open_[0]
    if table.endpoint is None:
        raise TableError(_("table '{name}' advertised no address").format(name=table.name))
    if table.settings.invite:  # its secret is only in the host's join URL, never in mDNS
        raise TableError(_(INVITE_REFUSAL))
    notify(
        _("joining '{name}' at {endpoint} (host {host})").format(
            name=table.name, endpoint=table.endpoint, host=table.fingerprint
        )
    )
    return table.endpoint, table.curve_key


def _same(text: str) -> str:
    """A message as it is (English): :func:`ruleset_difference`'s words for the host."""
    return text


def ruleset_difference(
    table: Mapping[str, Any], words: Callable[[str], str] = _same
) -> str | None:
    """Exactly what differs between the table's rules and what this machine builds.

    ``None`` when the same ruleset id results. Names a missing plugin, another
    plugin version, or options that come out different. ``words`` words each
    part: unchanged (English) for the host, who reads it in its log, or ``_`` for
    the player who tried to join.
    """
    try:
        mine = rules_from_config(table)
    except ConfigError as exc:
        why = str(exc) if words is _same else engine_said(str(exc))  # the engine's, worded
        return words(N_("cannot build this table's rules here: {why}")).format(why=why)
    if mine.config == dict(table):
        return None
    theirs = {n: v for n, v in table.get("plugins", [])}
    here = {n: v for n, v in mine.config.get("plugins", [])}
    none = words(N_("none"))
    diffs = []
    for name in sorted(set(theirs) | set(here)):
        if theirs.get(name) != here.get(name):
            diffs.append(
                words(N_("plugin '{name}': table has {theirs}, this machine has {here}")).format(
                    name=name, theirs=theirs.get(name) or none, here=here.get(name) or none
                )
            )
    for plugin, opts in table.get("options", {}).items():
        for key, value in opts.items():
            got = mine.config.get("options", {}).get(plugin, {}).get(key)
            if got != value:
                diffs.append(
                    words(N_("option {plugin}.{key}: table has {theirs}, here {here}")).format(
                        plugin=plugin, key=key, theirs=repr(value), here=repr(got)
                    )
                )
    if not diffs:
        return words(N_("the rules differ (ruleset ids do not match)"))
    return "; ".join(diffs) if words is _same else join_clauses(diffs)
