"""Opening a table (``zsy host``): the lobby over the mesh, then a :class:`TablePeer` as seat 0.

``open_table`` binds the mesh, advertises the table with mDNS while seats are
free, seats joiners through :class:`~zsy_lan.protocol.host_lobby.HostLobby` and, once
full, sends the roster and becomes seat 0. Bot seats are real peers: their own
identity, socket and replica, run in this process (:func:`run_bot_peer`, which
sits down as any joiner does). Joining is :mod:`.joining`, resuming a seat
:mod:`.resuming`, reaching a host :mod:`.reach`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from zsy_lan.engine.rules import Rules
from zsy_lan.engine.ruleset import ruleset_id
from zsy_lan.net.broker import BrokerAddress, remember
from zsy_lan.net.transport import RELAYED, Guest, Mesh, PeerId
from zsy_lan.protocol import Identity
from zsy_lan.protocol.host_lobby import (
    APPROVAL_EXPIRED,
    APPROVAL_TTL,
    MARK_SAME_WAITING,
    HostLobby,
    Mark,
    Pending,
)
from zsy_lan.protocol.identity import fingerprint
from zsy_lan.protocol.lobby import (
    HOST_RULES_DIFFER,
    NAME_MAX,
    NICK_MAX,
    REASON_MAX,
    RULES_DIFFER,
    LobbyError,
    Roster,
    Seat,
    open_lobby,
    seal_lobby,
    table_id_for,
)
from zsy_lan.protocol.table_settings import INVITE_REFUSAL, TableSettings, settings_line
from zsy_lan.record.store import TableStore, save_identity
from zsy_lan.table.deciders import make_decider
from zsy_lan.table.joining import LOBBY_TIMEOUT, sit_down
from zsy_lan.table.peer import TablePeer
from zsy_lan.table.reach import (
    KICKED,
    NOT_ACCEPTED,
    NetConfig,
    TableError,
    join_url,
    shell_word,
    start_mesh,
)
from zsy_lan.table.refusal_log import RefusalLog, refusal_source
from zsy_lan.table.relay_join import RosterEcho, password_hint, relay_suffix, seat_relay
from zsy_lan.table.relay_join import attach as relay_attach
from zsy_lan.table.spectator_desk import SpectatorDesk, spectator_mode, watch_line
from zsy_lan.table.watch_frames import MODES, Watcher, is_watch_frame
from zsy_lan.text.bot_names import shown_nick
from zsy_lan.text.i18n import N_, _, join_items, join_phrases, ngettext
from zsy_lan.text.sanitize import clean, clean_or

log = logging.getLogger("zsy.table")

PROTOCOL_VERSION = 1
#: Seconds the host waits for each seated guest's own socket before the roster
#: goes out; a guest it cannot reach is dropped and its seat opens again.
REACH_TIMEOUT = 5.0
#: Seconds a host waits for its bot seats to close their sockets when the lobby is given up.
BOT_STOP_TIMEOUT = 5.0
#: Seconds the host browses for another table of the same name before advertising.
SAME_NAME_BROWSE = 1.5
#: What the host reads when a guest came without the invitation (the guest reads INVITE_REFUSAL).
HOST_INVITE_REFUSAL = N_(
    "they came without the invitation (the join URL you printed, with its secret)"
)
#: A guest's refusal (a msgid it reads) -> the words the host reads for it.
_FOR_THE_HOST = {INVITE_REFUSAL: HOST_INVITE_REFUSAL, RULES_DIFFER: HOST_RULES_DIFFER}
#: At most one "refused a player" line per this many seconds (a flood is logged, not shown).
REFUSAL_NOTICE_EVERY = 5.0


def opened_line(name: str, seats: int, humans: int, bots: int, ruleset: str) -> str:
    """The host's first words about its table, ending with a space for the deal's sentence.

    The bots are counted in the language's plural forms and left out when there are
    none (it read "0 bot(s)").
    """
    if bots:
        text = ngettext(
            "Table '{name}' open: {seats} seats, {humans} for other players, {bots} bot. "
            "Ruleset {ruleset}. ",
            "Table '{name}' open: {seats} seats, {humans} for other players, {bots} bots. "
            "Ruleset {ruleset}. ",
            bots,
        )
    else:
        text = _(
            "Table '{name}' open: {seats} seats, {humans} for other players. Ruleset {ruleset}. "
        )
    return text.format(name=name, seats=seats, humans=humans, bots=bots, ruleset=ruleset)


@dataclass
class HostedTable:
    """A table this process opened."""

    peer: TablePeer
    mesh: Mesh
    roster: Roster
    bots: list[asyncio.Task[None]]
    advertiser: object | None = None
    #: serves ``zsy watch`` (``zsy host --spectators``); ``None`` with ``off``
    spectators: SpectatorDesk | None = None


async def open_table(
    identity: Identity,
    rules: Rules,
    rounds: int,
    name: str,
    nick: str,
    store_for: Callable[[str], TableStore],
    net: NetConfig,
    *,
    bots: int = 0,
    bot_level: str = "normal",
    notify: Callable[[str], None] = print,
    bot_store: Callable[[str, int], TableStore] | None = None,
    host_bot: bool = False,
    deal: str = "private",
    commands: asyncio.Queue[str] | None = None,
    approve: bool = False,
    settings: TableSettings | None = None,
    spectators: str = "off",
    known: dict[bytes, str] | None = None,
) -> HostedTable:
    """Host a table: lobby until full, then the seated peer for seat 0.

    ``deal``: ``"private"`` (mental poker: no peer can compute another's hand,
    the default) or ``"open"`` (every hand follows from the shared seed).
    ``commands``: lines the host types while the table fills (``kick SEAT|NICK``,
    ``accept``/``refuse`` with ``approve``, ``who``); see :func:`lobby_command`.
    ``settings``: the clock and assists for every seat, and whether a join needs
    the invitation secret (made here, printed only in the join URL).
    ``known``: the identity keys of the host's history (``zsy history``) and their
    nicks, so that a guest who takes a known player's name with another key is marked.
    """
    settings = settings or TableSettings()
    if deal not in ("private", "open"):
        raise TableError(f"unknown deal {deal!r}: private or open")
    if bots >= rules.players:
        raise TableError(
            _(
                "--bots {bots} leaves no seat for you at a {players}-player table: seat at most "
                "{most} bots"
            ).format(bots=bots, players=rules.players, most=rules.players - 1)
        )
    name = clean_or(name, "table", NAME_MAX)
    nick = clean_or(nick, "host", NICK_MAX)
    humans = rules.players - 1 - bots
    if net.mdns and humans > 0:
        await _refuse_same_name(name, net)
    mesh = await start_mesh(identity, net.address, net.port, open_admission=True)
    nonce = secrets.token_bytes(8)
    table = table_id_for(identity.public_key, name, nonce)
    roster = Roster(
        table,
        name,
        rounds,
        rules.config,
        [Seat(0, identity.public_key, identity.curve_public, mesh.endpoint, nick, host_bot)],
        deal=deal,
        settings=settings,
    )
    lobby = HostLobby(
        identity,
        roster,
        rules.players,
        ruleset_id(rules),
        approve_each=approve,
        invite=secrets.token_urlsafe(16) if settings.invite else None,
        known=dict(known or {}),
    )
    bot_ids = [Identity.generate() for _k in range(bots)]
    lobby.hosted = {b.public_key for b in bot_ids}
    if spectators not in MODES:
        raise TableError(f"unknown --spectators {spectators!r}: ask, open or off")
    if spectator_mode(spectators, settings.invite) != spectators:
        spectators = spectator_mode(spectators, settings.invite)
        notify(_("A table by invitation lets each spectator in by hand: type accept NICK."))
    lobby.spectators = desk = SpectatorDesk(identity, spectators, mesh, notify, deal, name)
    desk.start()  # spectate.py: answers zsy watch (refuses all with off)
    adv = None
    bot_tasks: list[asyncio.Task[None]] = []
    try:
        url = join_url(mesh.endpoint, identity.curve_public, lobby.invite)
        if net.relay is not None:  # the relay is every link's fallback (table/relay_join.py)
            remember(net.relay)  # the bots here find the broker's password (net/broker.py)
            why = await relay_attach(mesh, net.relay, table, 5.0)
            if why:
                raise TableError(why)
            url += relay_suffix(net.relay, table)
            lobby.relay = net.relay.url  # the welcome names it too
        if net.mdns and humans > 0:
            adv = await advertise(
                identity, roster, rules, mesh, net.mdns_interfaces or [net.address],
                free=lobby.free, bots=bots, watch=spectators,
            )
        notify(
            opened_line(name, rules.players, humans, bots, lobby.ruleset)
            + (
                _("Private deal: nobody's software can see another player's cards.")
                if deal == "private"
                else _("OPEN deal: every peer could compute every hand (fine for bots and tests).")
            )
        )
        if bots:
            notify(
                ngettext(
                    "The bot runs in this process: its secrets sit in your data dir, so you "
                    "could see its cards (others are told: bots run by seat 0).",
                    "The bots run in this process: their secrets sit in your data dir, so you "
                    "could see their cards (others are told: bots run by seat 0).",
                    bots,
                )
            )
        if not settings.is_default:
            notify(settings_line(settings))
        if humans > 0 and lobby.invite is not None:
            notify(
                _(
                    "By invitation: give this join URL only to your players (it holds the "
                    "secret; `zsy tables` shows the table as invite only):  zsy join {url}"
                ).format(url=url)
            )
        elif humans > 0 and not net.mdns:  # not advertised: the name finds nothing
            notify(
                _(
                    "Others join with the address, as the table is not advertised on the LAN "
                    "(zsy join {url})"
                ).format(url=url)
            )
        elif humans > 0:
            notify(
                _("Others join with:  zsy join {name}    (or: zsy join {url})").format(
                    name=shell_word(name), url=url
                )
            )
        if humans > 0 and isinstance(net.relay, BrokerAddress) and net.relay.secret()[0]:
            notify(password_hint())  # the lines leave it out
        if humans > 0 and commands is not None:  # by invitation too
            notify(
                _("While the table fills, type: kick SEAT|NICK to remove a player, ")
                + (
                    _("accept N or refuse N (the number shown) for each player who asks to sit, ")
                    if approve
                    else ""
                )
                + _("who to list the seats.")
            )
        bot_tasks.extend(
            asyncio.create_task(
                run_bot_peer(
                    mesh.endpoint,
                    identity.curve_public,
                    bot_level,
                    k,
                    net,
                    bot_store or _scratch_store,
                    identity=bot_ids[k],
                )
            )
            for k in range(bots)
        )
        if spectators != "off":
            notify(watch_line(url, spectators, deal))
        await _host_lobby(mesh, lobby, adv, notify, commands)
        if adv is not None and spectators != "off":  # listed as full: zsy watch NAME finds it
            desk.advertiser, adv = adv, None  # the desk withdraws it when it closes
        if adv is not None:
            await adv.close()  # type: ignore[attr-defined]
            adv = None
        mesh.set_open_admission(spectators != "off")  # spectators still knock (guests capped)
        store = store_for(roster.table)
        peer = TablePeer(
            identity, roster, 0, mesh, store, timing=net.timing, bot_chat=net.bot_chat
        )
        if net.relay is not None:
            seat_relay(peer, mesh, net.relay)
            peer.roster_echo = RosterEcho(peer, lobby.roster_frame())  # for a seat that missed it
        if spectators == "off":
            await desk.close()
            return HostedTable(peer, mesh, roster, bot_tasks, adv)
        desk.attach(peer)
        return HostedTable(peer, mesh, roster, bot_tasks, adv, desk)
    except BaseException:
        with contextlib.suppress(BaseException):
            await asyncio.wait_for(desk.close(), 2.0)
        # Tell everyone who asked for a seat that the table is gone (bounded), then close.
        with contextlib.suppress(BaseException):
            await asyncio.wait_for(_say_bye(mesh, lobby), 1.0)
        for t in bot_tasks:
            t.cancel()
        if bot_tasks:  # awaited (bounded): a bot's socket left open can keep the process alive
            with contextlib.suppress(BaseException):
                await asyncio.wait(bot_tasks, timeout=BOT_STOP_TIMEOUT)
        if adv is not None:
            with contextlib.suppress(Exception):
                await adv.close()  # type: ignore[attr-defined]
        await mesh.close()
        raise


async def _say_bye(mesh: Mesh, lobby: HostLobby) -> None:
    """A ``bye`` to every seated and pending guest: the host closed the table."""
    if mesh.closed:
        return
    frame = seal_lobby(lobby.identity, "bye", {"reason": "the host closed the table"})
    targets: list[PeerId] = [s.seat for s in lobby.roster.seats[1:]]
    targets += [Guest(key) for key in lobby.pending]
    await asyncio.gather(
        *(mesh.send(t, frame, timeout=0.5) for t in targets), return_exceptions=True
    )


async def _refuse_same_name(name: str, net: NetConfig) -> None:
    """Refuse to host a name another table already advertises on these interfaces."""
    from zsy_lan.net.discovery import browse_tables

    try:
        tables = await browse_tables(net.mdns_interfaces or [net.address], timeout=SAME_NAME_BROWSE)
    except OSError as exc:  # mDNS unusable here: hosting goes on, the advert will say so
        log.warning("could not browse for tables named %r: %s", name, exc)
        return
    same = [t for t in tables if t.name == name]
    if same:
        raise TableError(
            _(
                "a table named '{name}' is already open on this network (host {host}, id {id}): "
                "choose another --name"
            ).format(name=name, host=same[0].fingerprint, id=same[0].table_id)
        )


async def advertise(  # type: ignore[no-untyped-def]
    identity, roster, rules, mesh, interfaces, *, free: int, bots: int = 0, watch: str = "off"
):
    """List the table on mDNS (a fresh table with its free seats, a resumed one full).

    An advertiser that could not register is closed before the error goes on.
    """
    from zsy_lan.net.discovery import Advertiser, TableInfo

    names = [n for n, _v in rules.config.get("plugins", [])]
    info = TableInfo(
        table_id=roster.table,
        name=roster.name,
        protocol_version=PROTOCOL_VERSION,
        ruleset_id=ruleset_id(rules),
        variants=tuple(names),
        free_seats=free,
        seats=rules.players,
        fingerprint=identity.fingerprint,
        port=mesh.port,
        curve_key=identity.curve_public,
        deal=roster.deal,
        bots=bots,
        settings=roster.settings,
        watch=watch,  # ask/open: still listed once full (spectate.py)
    )
    adv = Advertiser(interfaces)
    try:
        await adv.register(info)
    except BaseException:
        with contextlib.suppress(Exception):
            await adv.close()
        raise
    adv._zsy_info = info  # type: ignore[attr-defined]
    return adv


async def _advertise_free(adv, lobby: HostLobby) -> None:  # type: ignore[no-untyped-def]
    """Publish the number of free seats (the advert is withdrawn at none)."""
    if adv is None:
        return
    from dataclasses import replace

    adv._zsy_info = replace(adv._zsy_info, free_seats=lobby.free)
    with contextlib.suppress(Exception):
        await adv.update(adv._zsy_info)


class _Refusals:
    """Says "refused a player" at most once per :data:`REFUSAL_NOTICE_EVERY` seconds.

    A flood of bad joins must not flood the host's terminal; the next notice
    says how many were not shown. Nor the host's log: the first few refusals
    of each source are logged, then a count per minute (:class:`RefusalLog`).
    """

    def __init__(
        self, notify: Callable[[str], None], now: Callable[[], float] = time.monotonic
    ) -> None:
        self.notify = notify
        self.now = now
        self.last = -REFUSAL_NOTICE_EVERY
        self.hidden = 0
        self.log = RefusalLog(log)

    def __call__(self, reason: str, source: str = "?") -> bool:
        """Tell (and log) one refusal; ``True`` when it was logged line by line (then its
        details may be logged too), ``False`` when it was only counted."""
        now = self.now()
        single = self.log.refused(reason, source, now)
        # the reason is the guest's (a msgid, sent as it is): the host reads it in their own
        # language, and the invitation's "ask the host" in words meant for the host
        reason = _(_FOR_THE_HOST.get(reason, reason))
        if now - self.last < REFUSAL_NOTICE_EVERY:
            self.hidden += 1
            return single
        self.last = now
        if self.hidden:
            self.notify(
                ngettext(
                    "refused a player: {reason} (and {n} more refusal, in the log)",
                    "refused a player: {reason} (and {n} more refusals, in the log)",
                    self.hidden,
                ).format(reason=reason, n=self.hidden)
            )
        else:
            self.notify(_("refused a player: {reason}").format(reason=reason))
        self.hidden = 0
        return single


def _seat_line(lobby: HostLobby) -> str:
    """``who``: the seats taken so far and how many are free."""
    seats = join_items(
        (_("{seat} {nick} (bot)") if s.bot else "{seat} {nick}").format(
            seat=s.seat, nick=clean(s.nick)
        )
        for s in lobby.roster.seats
    )
    return _("seats: {seats}; {free} free").format(seats=seats, free=lobby.free)


def _address_words(address: str) -> str:
    """Where a guest's connection comes from, for the host's lists."""
    if address == RELAYED:
        # TRANSLATORS: where a waiting guest's connection comes from: "... from {address}"
        return _("the relay")
    # TRANSLATORS: where a waiting guest's connection comes from: "... from {address}"
    return address or _("an unknown address")


def _marks_text(marks: list[Mark]) -> str:
    """The marks of a guest in the host's language (names were cleaned where they entered)."""
    return join_phrases(_(m.text).format(**dict(m.params)) for m in marks)


def _waiting_line(lobby: HostLobby, p: Pending) -> str:
    """One waiting guest as ``who`` and the asking line show it: number, name, key, address.

    Eight guests named "alice" are eight different lines: each has its own
    number and key fingerprint (what ``accept`` and ``refuse`` take), and the
    marks say which name collides and which key the host's history knows.
    """
    line = _("#{number} {nick}{bot}, key {key}, from {address}").format(
        number=p.number,
        nick=clean(p.nick, NICK_MAX),
        bot=_(" (bot)") if p.body.get("bot") else "",
        key=p.fingerprint,
        address=_address_words(p.address),
    )
    marks = lobby.marks(p.nick, p.author, p.address)
    if marks:
        # TRANSLATORS: a waiting guest's line, then what the host should know about it
        line = _("{line} - {marks}").format(line=line, marks=_marks_text(marks))
    return line


async def _let_go_expired(mesh: Mesh, lobby: HostLobby, notify: Callable[[str], None]) -> None:
    """Tell the host, and each guest, which waits :meth:`HostLobby.expire` ended."""
    gone, lobby.expired = lobby.expired, []
    for p in gone:
        notify(
            _("#{number} {nick} stopped waiting: no answer in {minutes} minutes").format(
                number=p.number, nick=clean(p.nick, NICK_MAX), minutes=round(APPROVAL_TTL / 60)
            )
        )
        with contextlib.suppress(Exception):
            await mesh.send(
                Guest(bytes.fromhex(p.body["curve"])),
                lobby.refusal(APPROVAL_EXPIRED),
                timeout=0.5,
            )


async def _seat_joined(mesh: Mesh, lobby: HostLobby, seat: Seat, adv, notify) -> None:  # type: ignore[no-untyped-def]
    """Link to a new seat (its endpoint was validated) and say so."""
    try:
        mesh.connect_peer(seat.seat, seat.endpoint, seat.curve)
    except ValueError as exc:  # validated already; never let it out of the lobby
        log.warning("lobby: cannot link to %s: %s", seat.endpoint, exc)
    nick = shown_nick(seat.nick, seat.bot)  # a hosted bot by its name in the host's language
    label = _(" (bot)") if seat.bot and nick == seat.nick else ""  # 普通机器人 says it already
    notify(
        ngettext(
            "{nick}{bot} sat down at seat {seat}; {free} seat free",
            "{nick}{bot} sat down at seat {seat}; {free} seats free",
            lobby.free,
        ).format(nick=nick, bot=label, seat=seat.seat, free=lobby.free)
    )
    if seat.key not in lobby.hosted:
        marks = lobby.marks(seat.nick, seat.key, lobby.addresses.get(seat.key, ""))
        # a look-alike still waiting is that guest's mark, not this seat's: the host chose
        marks = [m for m in marks if m.text != MARK_SAME_WAITING]
        if any(m.warn for m in marks):  # e.g. a removed player back with a new key
            notify(
                _("! seat {seat} ({nick}, key {key}): {marks}. Type kick {seat} to remove them.")
                .format(
                    seat=seat.seat,
                    nick=seat.nick,
                    key=fingerprint(seat.key),
                    marks=_marks_text(marks),
                )
            )
    await _advertise_free(adv, lobby)


async def _unseat(mesh: Mesh, lobby: HostLobby, seat: Seat, reason: str) -> None:
    """Take a seat off the roster: tell it why, drop its link, move later seats up."""
    with contextlib.suppress(Exception):
        await mesh.send(seat.seat, lobby.refusal(reason), timeout=0.5)
    moved = lobby.remove(seat)
    with contextlib.suppress(Exception):
        await mesh.disconnect_peer(seat.seat)
    for old, s in moved:
        with contextlib.suppress(Exception):
            await mesh.disconnect_peer(old)
        with contextlib.suppress(ValueError):
            mesh.connect_peer(s.seat, s.endpoint, s.curve)


async def lobby_command(
    line: str,
    mesh: Mesh,
    lobby: HostLobby,
    adv,
    notify: Callable[[str], None],  # type: ignore[no-untyped-def]
) -> None:
    """One line the host typed while the table fills.

    ``kick SEAT|NICK`` removes a seated guest (its keys stay refused);
    ``accept [NICK]`` / ``refuse [NICK]`` answer a guest waiting for
    approval (``zsy host --approve``); ``who`` lists the seats.
    """
    word, _sp, arg = line.strip().partition(" ")
    word, arg = word.lower(), arg.strip()
    if not word:
        return
    said = lobby.spectators.command(line) if lobby.spectators is not None else None
    if said is not None:  # accept/refuse a spectator, watchers (spectate.py)
        notify(said)
        return
    if word in ("kick", "remove"):
        if not arg:
            notify(_("kick whom? Type kick SEAT or kick NICK (who lists the seats)"))
            return
        seat = lobby.find_seat(arg)
        if seat is None:
            notify(
                _("no guest at seat or named '{who}': type who to list the seats").format(
                    who=clean(arg, NICK_MAX)
                )
            )
            return
        await _unseat(mesh, lobby, seat, KICKED)
        notify(
            ngettext(
                "removed {nick} (seat {seat}); {free} seat free",
                "removed {nick} (seat {seat}); {free} seats free",
                lobby.free,
            ).format(nick=seat.nick, seat=seat.seat, free=lobby.free)
        )
        await _advertise_free(adv, lobby)
    elif word in ("accept", "yes"):
        seat, problem = lobby.approve(arg)
        if seat is None:
            notify(_("cannot accept: {problem}").format(problem=_(problem) if problem else ""))
            return
        await _seat_joined(mesh, lobby, seat, adv, notify)
    elif word in ("refuse", "no"):
        pending, problem = lobby.refuse(arg)
        if pending is None:
            notify(_("cannot refuse: {problem}").format(problem=_(problem) if problem else ""))
            return
        with contextlib.suppress(Exception):
            await mesh.send(
                Guest(bytes.fromhex(pending.body["curve"])),
                lobby.refusal(NOT_ACCEPTED),
                timeout=0.5,
            )
        notify(
            _("refused #{number} {nick} (key {key})").format(
                number=pending.number, nick=pending.nick, key=pending.fingerprint
            )
        )
    elif word in ("who", "seats", "list"):
        notify(_seat_line(lobby))
        waiting = lobby.awaiting()
        if waiting:
            notify(
                ngettext(
                    "{n} player waits: type accept or refuse with their number or key",
                    "{n} players wait: type accept or refuse with their number or key",
                    len(waiting),
                ).format(n=len(waiting))
            )
        for p in waiting:
            notify("  " + _waiting_line(lobby, p))
    else:
        notify(
            _(
                "unknown command '{word}': while the table fills you can type kick SEAT|NICK, "
                "accept N, refuse N or who"
            ).format(word=clean(word, 20))
        )


async def _host_lobby(  # type: ignore[no-untyped-def]
    mesh: Mesh,
    lobby: HostLobby,
    adv,
    notify: Callable[[str], None],
    commands: asyncio.Queue[str] | None = None,
) -> None:
    """Seat joiners until the table is full and every seat is reachable, then send the roster.

    Nothing a guest sends can raise out of here: a bad frame is refused (and
    logged), a guest's endpoint was validated before any link is made to it,
    and a seat whose endpoint cannot be reached when the table fills is
    dropped (its seat opens again) instead of joining a roster that could
    never play.
    """
    refused = _Refusals(notify)
    while True:
        while lobby.free > 0:
            await _lobby_step(mesh, lobby, adv, notify, commands, refused)
        unreachable = await _unreachable_seats(mesh, lobby)
        if not unreachable:
            break
        for seat in unreachable:
            notify(
                _(
                    "{nick} (seat {seat}) cannot be reached at {endpoint}: dropped, "
                    "the seat is open again"
                ).format(nick=seat.nick, seat=seat.seat, endpoint=seat.endpoint)
            )
            await _unseat(mesh, lobby, seat, N_("the host could not reach your address"))
        await _advertise_free(adv, lobby)
    refused.log.flush(refused.now(), force=True)  # the lobby closes: the count so far
    frame = lobby.roster_frame()
    for s in lobby.roster.seats[1:]:
        await mesh.send(s.seat, frame, timeout=LOBBY_TIMEOUT)
    await _let_go_waiting(mesh, lobby)
    notify(_("The table is full: dealing."))


async def _let_go_waiting(mesh: Mesh, lobby: HostLobby) -> None:
    """The guests still waiting for the host's answer when the table fills: told it is
    full (they would otherwise wait for an answer that never comes)."""
    full = lobby.refusal(N_("the table is full"))
    for p in lobby.awaiting():
        with contextlib.suppress(Exception):
            await mesh.send(Guest(bytes.fromhex(p.body["curve"])), full, timeout=0.5)


async def _unreachable_seats(mesh: Mesh, lobby: HostLobby) -> list[Seat]:
    """Seats whose link is not up within :data:`REACH_TIMEOUT` (checked all at once)."""
    seats = lobby.roster.seats[1:]

    async def reached(s: Seat) -> bool:
        try:
            return await mesh.wait_connected(s.seat, REACH_TIMEOUT)
        except Exception:  # noqa: BLE001 - no link at all: unreachable
            return False

    ok = await asyncio.gather(*(reached(s) for s in seats))
    return [s for s, up in zip(seats, ok, strict=True) if not up]


async def _lobby_step(  # type: ignore[no-untyped-def]
    mesh: Mesh,
    lobby: HostLobby,
    adv,
    notify: Callable[[str], None],
    commands: asyncio.Queue[str] | None,
    refused: _Refusals,
) -> None:
    """Handle the next lobby frame or typed command (or a second of silence)."""
    getters: list[asyncio.Task[object]] = [asyncio.ensure_future(mesh.recv())]
    if commands is not None:
        getters.append(asyncio.ensure_future(commands.get()))
    try:
        done, _pending = await asyncio.wait(
            getters, timeout=1.0, return_when=asyncio.FIRST_COMPLETED
        )
    finally:
        for g in getters:
            if not g.done():
                g.cancel()
    lobby.expire(time.monotonic())
    refused.log.flush(refused.now())  # a minute of refusals ended: its summary lines
    if lobby.expired:
        await _let_go_expired(mesh, lobby, notify)
    if len(getters) > 1 and getters[1] in done:
        await lobby_command(str(getters[1].result()), mesh, lobby, adv, notify)
    if getters[0] not in done:
        return
    peer_id, frame = getters[0].result()  # type: ignore[misc]
    try:
        await _lobby_frame(mesh, lobby, adv, notify, refused, peer_id, frame)
    except Exception:  # noqa: BLE001 - a guest must never crash the host
        log.exception("lobby: a frame from %r could not be handled", peer_id)


async def _lobby_frame(  # type: ignore[no-untyped-def]
    mesh: Mesh,
    lobby: HostLobby,
    adv,
    notify: Callable[[str], None],
    refused: _Refusals,
    peer_id: PeerId,
    frame: bytes,
) -> None:
    """One lobby frame from a guest (or a seated guest saying ``bye``)."""
    if lobby.spectators is not None and (is_watch_frame(frame) or isinstance(peer_id, Watcher)):
        lobby.spectators.on_frame(peer_id, frame)  # zsy watch (spectate.py)
        return
    try:
        msg = open_lobby(frame)
    except LobbyError as exc:  # counted with the refusals: a flood of them logs a count
        if refused.log.refused("a frame that is not a lobby message", refusal_source(mesh, peer_id),
                               refused.now()):
            log.info("lobby: refused a frame from %r: %s", peer_id, exc)
        return
    if isinstance(peer_id, int):  # a seated guest: only its leaving matters now
        if msg.kind == "bye" and 0 < peer_id < len(lobby.roster.seats):
            seat = lobby.roster.seats[peer_id]
            if seat.key == msg.author:
                await _unseat(mesh, lobby, seat, "you left")
                lobby.banned.discard(seat.key)  # leaving is not being removed
                lobby.banned.discard(seat.curve)
                lobby.removed = [r for r in lobby.removed if r.key != seat.key]
                notify(
                    ngettext(
                        "{nick} left seat {seat}; {free} seat free",
                        "{nick} left seat {seat}; {free} seats free",
                        lobby.free,
                    ).format(nick=seat.nick, seat=seat.seat, free=lobby.free)
                )
                await _advertise_free(adv, lobby)
        return
    if not isinstance(peer_id, Guest):
        return
    now = time.monotonic()
    if msg.kind == "bye":
        lobby.pending.pop(peer_id.public_key, None)
        return
    if msg.body.get("curve") not in (None, peer_id.public_key.hex()):
        await mesh.send(
            peer_id,
            lobby.refusal(N_("the CURVE key of this connection is not the one in the join")),
            timeout=0.5,
        )
        return
    if msg.kind == "join":
        reply, reason = lobby.on_join(msg, now, mesh.guest_address(peer_id.public_key))
        if reason:
            refused(reason, refusal_source(mesh, peer_id))
        await mesh.send(peer_id, reply, timeout=0.5)
    elif msg.kind == "sit":
        if any(p.author == msg.author and p.waiting_approval for p in lobby.pending.values()):
            return  # already asked; the host decides
        reply, seat, reason = lobby.on_sit(msg, now)
        if reply is not None:
            single = refused(clean(reason, REASON_MAX), refusal_source(mesh, peer_id))
            if single and reason == RULES_DIFFER:  # what differs, as the joiner's machine found it
                log.info("lobby: the joiner's rules: %s", clean(msg.body.get("difference"), 400))
            await mesh.send(peer_id, reply, timeout=0.5)
        if seat is not None and lobby.roster.seat_of(msg.author) == seat.seat:
            if not mesh.is_connected(seat.seat) and seat.seat not in mesh.peers:
                await _seat_joined(mesh, lobby, seat, adv, notify)
        elif reply is None and seat is None:
            waiting = next(p for p in lobby.pending.values() if p.author == msg.author)
            notify(
                _(
                    "{nick} asks to sit down: type accept {number} or refuse {number}  ({who})"
                ).format(
                    nick=clean(waiting.nick, NICK_MAX),
                    number=waiting.number,
                    who=_waiting_line(lobby, waiting),
                )
            )


def _scratch_store(table: str, seat: int) -> TableStore:  # noqa: ARG001 - store_for signature
    """A bot's files when nobody asked to keep them: a private temporary folder."""
    import tempfile

    return TableStore(Path(tempfile.mkdtemp(prefix=f"zsy-bot-{table}-{seat}-")))


async def run_bot_peer(
    host_endpoint: str,
    host_curve: bytes,
    level: str,
    index: int,
    net: NetConfig,
    store_for: Callable[[str, int], TableStore],
    *,
    identity: Identity | None = None,
) -> None:
    """One bot seat as a real peer: own identity, own socket, own replica.

    Its identity and level are kept in its store, so a host that restarts
    (``zsy join`` resumes the table) brings its bots back too. ``identity``:
    the one the host's lobby knows as its own bot (``hosted_by`` seat 0).
    """
    identity = identity or Identity.generate()
    mesh = await start_mesh(identity, net.address, 0)
    try:
        roster, seat = await sit_down(
            mesh, identity, host_endpoint, host_curve, f"bot:{level}", bot=True
        )
        store = store_for(roster.table, seat)
        store.path.mkdir(parents=True, exist_ok=True)
        save_identity(identity, store.path / "identity.pem")
        (store.path / "level").write_text(level)
        peer = TablePeer(
            identity,
            roster,
            seat,
            mesh,
            store,
            decider=make_decider(level, identity.public_key),
            timing=net.timing,
            bot_chat=net.bot_chat,
        )
        if net.relay is not None and mesh.relay is None:  # (the welcome may have named it)
            await relay_attach(mesh, net.relay, roster.table, 5.0)
        if mesh.relay is not None:  # the other seats may reach this bot only through it
            seat_relay(peer, mesh, mesh.relay.address)
        await peer.run()
    except asyncio.CancelledError:
        raise
    except Exception as exc:  # noqa: BLE001 - report, never crash the host's loop
        log.warning("bot peer %s stopped: %s", index, exc)
    finally:
        await mesh.close()
