"""Resuming a seat: a table restarted from its saved roster, journal and transcript.

``resume_table`` brings a seat back (the host's lists its table again and
reopens its spectator desk); the saved tables a player may resume and the bot
seats a host runs are read here too.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from zsy_lan.net.broker import RelayError
from zsy_lan.net.transport import Mesh
from zsy_lan.protocol import Identity
from zsy_lan.protocol.lobby import REASON_MAX, Roster
from zsy_lan.record.store import TableStore, load_identity
from zsy_lan.table.deciders import make_decider
from zsy_lan.table.hosting import advertise
from zsy_lan.table.peer import TablePeer
from zsy_lan.table.reach import NetConfig, TableError, shell_word
from zsy_lan.table.relay_join import attach as relay_attach
from zsy_lan.table.relay_join import saved_relay, seat_relay
from zsy_lan.table.spectator_desk import reopen_desk, saved_listing
from zsy_lan.text.i18n import _
from zsy_lan.text.sanitize import clean

log = logging.getLogger("zsy.table")


async def resume_table(
    identity: Identity, store: TableStore, net: NetConfig, notify: Callable[[str], None] = print
) -> tuple[TablePeer, Mesh]:
    """Restart a seat from disk: same endpoint, same feed, catch up from the others."""
    try:
        data, seat = store.load_roster()
        roster = Roster.from_json(data)
    except (OSError, ValueError, KeyError, TypeError) as exc:  # LobbyError is a ValueError
        raise TableError(
            _(
                "the saved table in {path} cannot be read ({why}); `zsy join --list` shows "
                "the others, `zsy join ID` resumes one"
            ).format(path=store.path, why=exc)
        ) from None
    if roster.keys.get(seat) != identity.public_key:
        raise TableError(_("the saved table belongs to another identity"))
    endpoint = roster.seats[seat].endpoint
    host, _sep, port = endpoint[len("tcp://") :].rpartition(":")
    try:
        mesh = await Mesh.start(host, int(port), identity.curve_secret, identity.curve_public)
    except Exception as exc:  # noqa: BLE001 - say what to do
        raise TableError(
            _(
                "cannot listen on {endpoint} again to resume ({why}); is another zsy still running?"
            ).format(endpoint=endpoint, why=exc)
        ) from None
    peer = TablePeer(
        identity, roster, seat, mesh, store, timing=net.timing, bot_chat=net.bot_chat
    )
    try:
        relay = saved_relay(store.path)
    except RelayError:  # a zsy-relay:// line: the former relay, gone (issue #29)
        relay = None
        notify(
            _(
                "This table used the former relay (zsy-relay://), which this version of zsy-lan "
                "no longer has: the seat resumes on its direct links only."
            )
        )
    if relay is not None:  # the relay this seat used before (it keeps trying if refused now)
        why = await relay_attach(mesh, relay, roster.table, 2.0)
        if why:  # e.g. no $ZSY_RELAY_PASSWORD this time
            notify(why)
        seat_relay(peer, mesh, relay)
    notify(
        _("resuming table '{name}' (id {id}) at seat {seat}").format(
            name=roster.name, id=roster.table, seat=seat
        )
    )
    desk = reopen_desk(peer, mesh, identity, notify, relay)  # the host serves spectators again
    if desk is not None and net.mdns:
        await _list_again(identity, peer, mesh, desk, notify)
    return peer, mesh


async def _list_again(  # type: ignore[no-untyped-def]
    identity: Identity, peer: TablePeer, mesh: Mesh, desk, notify: Callable[[str], None]
) -> None:
    """A resumed host lists its table on mDNS again, as the fresh table was once full.

    Before, only the printed watch line found a host that came back: ``zsy watch
    NAME`` and ``zsy join NAME`` (which then says the table is full) found nothing.
    The advert is the full table's: no free seat, the spectator mode, the bots this
    host runs, on the addresses it was listed on before (``saved_listing``; a table
    never listed, ``--no-mdns`` or ``--spectators off``, stays unlisted). A failure
    here only costs the listing: it is said, and the watch line still works.
    """
    interfaces = saved_listing(peer.store.path)
    if interfaces is None:
        return
    hosted = sum(1 for s in peer.roster.seats if s.hosted_by == peer.seat)
    try:
        adv = await advertise(
            identity, peer.roster, peer.rules, mesh, interfaces, free=0, bots=hosted,
            watch=desk.mode,
        )
    except Exception as exc:  # noqa: BLE001 - zeroconf's errors vary; the listing is optional
        log.warning("could not list the resumed table on mDNS: %s", exc)
        notify(
            _(
                "The table could not be listed on the network again ({why}): spectators "
                "use the watch line above."
            ).format(why=clean(str(exc), REASON_MAX))
        )
        return
    desk.advertiser = adv  # the desk withdraws it when it closes
    notify(
        _("Listed on the network again: zsy watch {name} finds the table.").format(
            name=shell_word(peer.roster.name)
        )
    )


@dataclass(frozen=True)
class SavedTable:
    """An unfinished table of this profile on disk: what ``zsy join`` can resume."""

    store: TableStore
    table: str
    name: str
    seat: int
    last_active: float  # seconds since the epoch: the newest of its files


def saved_tables(tables: list[TableStore]) -> list[SavedTable]:
    """``tables`` (unfinished ones) with their names, most recently active first.

    A folder whose roster cannot be read is skipped (logged): it cannot be resumed.
    """
    out = []
    for store in tables:
        try:
            data, seat = store.load_roster()
            roster = Roster.from_json(data)
        except (OSError, ValueError, KeyError, TypeError) as exc:
            log.warning("cannot read the saved table %s: %s", store.path, exc)
            continue
        times = [
            f.stat().st_mtime
            for f in (store.roster_path, store.journal_path, store.transcript_path)
            if f.exists()
        ]
        out.append(SavedTable(store, roster.table, roster.name, seat, max(times, default=0.0)))
    out.sort(key=lambda t: (t.last_active, t.table), reverse=True)
    return out


def pick_saved(saved: list[SavedTable], target: str | None) -> SavedTable | None:
    """The table ``zsy join [TARGET]`` resumes: the newest, or the one with that id or name.

    ``None``: nothing to resume (a ``tcp://`` target, or no saved table matches).
    """
    if target is not None and target.startswith("tcp://"):
        return None
    if target is None:
        return saved[0] if saved else None
    for t in saved:
        if target == t.table:
            return t
    for t in saved:  # newest first
        if target == t.name:
            return t
    return None


def saved_bots(table_dir: Path) -> list[TableStore]:
    """Bot seats this host ran for a table (``bot-seat-K`` folders with an identity)."""
    return [
        TableStore(p)
        for p in sorted(table_dir.glob("bot-seat-*"))
        if (p / "identity.pem").exists() and (p / "roster.json").exists()
    ]


async def resume_bot_peer(store: TableStore, net: NetConfig) -> None:
    """Bring a saved bot seat back (after its host restarted)."""
    identity = load_identity(store.path / "identity.pem")
    level = (store.path / "level").read_text().strip() or "normal"
    peer, mesh = await resume_table(identity, store, net, notify=lambda _: None)
    peer.decider = make_decider(level, identity.public_key)
    try:
        peer.start(resume=True)
        await peer.run()
    except Exception as exc:  # noqa: BLE001 - report, never crash the host's loop
        log.warning("resumed bot at %s stopped: %s", store.path, exc)
        with contextlib.suppress(Exception):
            await peer.close()  # a refused record: the table is told why (bounded)
    finally:
        await mesh.close()
