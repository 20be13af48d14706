"""Opening, joining and resuming a table: the lobby over the mesh, then a :class:`TablePeer`.

``open_table`` (``zsy host``) binds the mesh, advertises the table with mDNS
while seats are free, seats joiners through :class:`~zsy_lan.lobby.HostLobby`
and, once full, sends the roster and becomes seat 0. ``join_table``
(``zsy join``) finds the table (mDNS or a typed ``tcp://ADDR:PORT#KEY``),
checks it can build the exact same rules, sits down and waits for the roster.
``resume_table`` restarts a seat from its saved roster, journal and
transcript. Bot seats are real peers: their own identity, socket and replica,
run in this process.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import logging
import secrets
import shlex
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from .engine.rules import Rules
from .engine.ruleset import ruleset_id
from .lobby import (
    HostLobby,
    LobbyError,
    Roster,
    Seat,
    join_body,
    open_lobby,
    ruleset_difference,
    seal_lobby,
    table_id_for,
)
from .peer import Decider, TablePeer
from .protocol import Identity, Timing
from .store import TableStore
from .transport import Guest, Mesh

log = logging.getLogger("zsy.table")

PROTOCOL_VERSION = 1
LOBBY_TIMEOUT = 15.0


class TableError(RuntimeError):
    """Joining or hosting failed; the message says why and what to do."""


@dataclass
class NetConfig:
    """Where a peer listens and whether it uses mDNS."""

    address: str = "127.0.0.1"
    port: int = 0
    mdns: bool = True
    mdns_interfaces: list[str] = field(default_factory=list)
    timing: Timing | None = None


def shell_word(text: str) -> str:
    """``text`` as one shell word, readable: ``ana's table`` → ``"ana's table"``."""
    quoted = shlex.quote(text)
    if quoted == text or any(c in text for c in '"$`\\!'):
        return quoted
    return f'"{text}"'


def join_url(endpoint: str, curve_key: bytes) -> str:
    """``tcp://ADDR:PORT#KEY``: everything a joiner needs without mDNS.

    The key is base64url (43 characters of ``A-Z a-z 0-9 - _``): safe to paste
    into any shell unquoted, unlike z85 (``&``, ``$``, ``#`` ...).
    """
    key = base64.urlsafe_b64encode(curve_key).rstrip(b"=").decode()
    return f"{endpoint}#{key}"


def parse_join_url(url: str) -> tuple[str, bytes]:
    """Inverse of :func:`join_url`; a clear error for anything else."""
    endpoint, sep, key = url.partition("#")
    if not endpoint.startswith("tcp://") or ":" not in endpoint[6:]:
        raise TableError(f"'{url}' is not tcp://ADDR:PORT#KEY (copy the line the host printed)")
    if not sep or not key:
        raise TableError(
            f"'{url}' lacks the table's key: copy the whole tcp://ADDR:PORT#KEY line the host "
            "printed (the key keeps strangers out of the encrypted table)"
        )
    try:
        raw = base64.urlsafe_b64decode(key + "=" * (-len(key) % 4))
    except ValueError:
        raw = b""
    if len(raw) != 32:
        raise TableError(f"'{key}' is not a valid table key (43 characters, as the host printed)")
    return endpoint, raw


def make_decider(level: str, seed: bytes) -> Decider:
    """A bot of ``level`` as a peer's decision function (it sees only its seat's view)."""
    from .bots.registry import make_bot

    return make_bot(level, seed).act


def external_decider(command: str, seed: bytes, on_error: Callable[[str], None]) -> Decider:
    """``zsy join --bot-cmd``: an external program plays; on failure a built-in bot moves."""
    from .bots.external import ExternalBot, FallbackBot
    from .bots.registry import make_bot

    bot = FallbackBot(
        ExternalBot(command, seed=seed), make_bot("normal", seed),
        on_error=lambda exc: on_error(f"{exc}; the built-in normal bot moved instead"),
    )
    return bot.act


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
) -> tuple[Roster, int]:
    """The joiner's side of the lobby: join, check the rules, sit, wait for the roster."""
    mesh.connect_peer(0, host_endpoint, host_curve)
    if not await mesh.wait_connected(0, LOBBY_TIMEOUT):
        raise TableError(f"cannot reach the table at {host_endpoint} (is the host still open?)")
    body = join_body(identity, nick, mesh.endpoint, bot)
    await mesh.send(0, seal_lobby(identity, "join", body), timeout=LOBBY_TIMEOUT)
    try:
        _, welcome = await _recv_lobby(mesh, LOBBY_TIMEOUT)
    except TimeoutError:
        raise TableError("the host did not answer the join request") from None
    if welcome.kind == "refused":  # type: ignore[attr-defined]
        raise TableError(f"the host refused: {welcome.body.get('reason')}")  # type: ignore[attr-defined]
    if welcome.kind != "welcome":  # type: ignore[attr-defined]
        raise TableError(f"unexpected lobby answer {welcome.kind!r}")  # type: ignore[attr-defined]
    info = welcome.body  # type: ignore[attr-defined]
    host_key = welcome.author  # type: ignore[attr-defined]
    difference = ruleset_difference(info["config"])
    if difference is not None:
        await mesh.send(
            0,
            seal_lobby(identity, "sit", {"ruleset": "mismatch", "difference": difference}),
            timeout=2.0,
        )
        raise TableError(f"this table's rules differ from what this machine can play: {difference}")
    from .lobby import rules_from_config

    mine = ruleset_id(rules_from_config(info["config"]))
    await mesh.send(0, seal_lobby(identity, "sit", {"ruleset": mine}), timeout=LOBBY_TIMEOUT)
    on_status(
        f"seated at table '{info['name']}' ({info.get('deal', 'open')} deal); "
        f"waiting for the table to fill ({info.get('free', '?')} seat(s) were free)"
    )
    deadline = None if roster_timeout is None else time.monotonic() + roster_timeout
    while True:
        left = 3600.0 if deadline is None else deadline - time.monotonic()
        if left <= 0:
            raise TableError("the table did not fill in time")
        try:
            _, msg = await _recv_lobby(mesh, left)
        except TimeoutError:
            continue
        if msg.kind == "refused":  # type: ignore[attr-defined]
            raise TableError(f"the host refused: {msg.body.get('reason')}")  # type: ignore[attr-defined]
        if msg.kind == "roster" and msg.author == host_key:  # type: ignore[attr-defined]
            roster = Roster.from_json(msg.body)  # type: ignore[attr-defined]
            seat = roster.seat_of(identity.public_key)
            if seat is None:
                raise TableError("the host's roster does not include this player")
            return roster, seat


@dataclass
class HostedTable:
    """A table this process opened."""

    peer: TablePeer
    mesh: Mesh
    roster: Roster
    bots: list[asyncio.Task[None]]
    advertiser: object | None = None


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
) -> HostedTable:
    """Host a table: lobby until full, then the seated peer for seat 0.

    ``deal``: ``"private"`` (mental poker: no peer can compute another's hand,
    the default) or ``"open"`` (every hand follows from the shared seed).
    """
    if deal not in ("private", "open"):
        raise TableError(f"unknown deal {deal!r}: private or open")
    if bots >= rules.players:
        raise TableError(f"--bots {bots} leaves no seat for you at a {rules.players}-player table")
    mesh = await Mesh.start(
        net.address, net.port, identity.curve_secret, identity.curve_public, open_admission=True
    )
    table = table_id_for(identity.public_key, name, secrets.token_bytes(8))
    roster = Roster(
        table,
        name,
        rounds,
        rules.config,
        [Seat(0, identity.public_key, identity.curve_public, mesh.endpoint, nick, host_bot)],
        deal=deal,
    )
    lobby = HostLobby(identity, roster, rules.players, ruleset_id(rules))
    adv = None
    try:
        url = join_url(mesh.endpoint, identity.curve_public)
        if net.mdns and lobby.free - bots > 0:
            adv = await _advertise(identity, roster, lobby, rules, mesh, net)
        humans = lobby.free - bots
        notify(
            f"Table '{name}' open: {rules.players} seats, {humans} for other players, "
            f"{bots} bot(s). Ruleset {lobby.ruleset}. "
            + (
                "Private deal: nobody's software can see another player's cards."
                if deal == "private"
                else "OPEN deal: every peer could compute every hand (fine for bots and tests)."
            )
        )
        if humans > 0:
            notify(f"Others join with:  zsy join {shell_word(name)}    (or: zsy join {url})")
        bot_tasks = [
            asyncio.create_task(
                run_bot_peer(
                    mesh.endpoint,
                    identity.curve_public,
                    bot_level,
                    k,
                    net,
                    bot_store or _scratch_store,
                )
            )
            for k in range(bots)
        ]
        await _host_lobby(mesh, lobby, adv, rules, notify)
        if adv is not None:
            await adv.close()  # type: ignore[attr-defined]
            adv = None
        mesh.set_open_admission(False)
        store = store_for(roster.table)
        peer = TablePeer(identity, roster, 0, mesh, store, timing=net.timing)
        return HostedTable(peer, mesh, roster, bot_tasks, adv)
    except BaseException:
        if adv is not None:
            with contextlib.suppress(Exception):
                await adv.close()  # type: ignore[attr-defined]
        await mesh.close()
        raise


async def _advertise(identity, roster, lobby, rules, mesh, net):  # type: ignore[no-untyped-def]
    from .discovery import Advertiser, TableInfo

    names = [n for n, _ in rules.config.get("plugins", [])]
    info = TableInfo(
        table_id=roster.table,
        name=roster.name,
        protocol_version=PROTOCOL_VERSION,
        ruleset_id=lobby.ruleset,
        variants=tuple(names),
        free_seats=lobby.free,
        seats=rules.players,
        fingerprint=identity.fingerprint,
        port=mesh.port,
        curve_key=identity.curve_public,
        deal=roster.deal,
    )
    adv = Advertiser(net.mdns_interfaces or [net.address])
    await adv.register(info)
    adv._zsy_info = info  # type: ignore[attr-defined]
    return adv


async def _host_lobby(mesh: Mesh, lobby: HostLobby, adv, rules: Rules, notify) -> None:  # type: ignore[no-untyped-def]
    """Seat joiners until the table is full, then send everyone the roster."""
    while lobby.free > 0:
        peer_id, frame = await mesh.recv()
        try:
            msg = open_lobby(frame)
        except LobbyError as exc:
            log.info("lobby: refused a frame from %r: %s", peer_id, exc)
            continue
        if not isinstance(peer_id, Guest):
            continue
        if msg.body.get("curve") not in (None, peer_id.public_key.hex()):
            await mesh.send(
                peer_id,
                seal_lobby(
                    lobby.identity,
                    "refused",
                    {"reason": "the CURVE key of this connection is not the one in the join"},
                ),
            )
            continue
        if msg.kind == "join":
            reply, reason = lobby.on_join(msg)
            if reason:
                notify(f"refused a player: {reason}")
            await mesh.send(peer_id, reply, timeout=2.0)
        elif msg.kind == "sit":
            reply, seat, reason = lobby.on_sit(msg)
            if reply is not None:
                notify(f"refused a player: {reason}")
                await mesh.send(peer_id, reply, timeout=2.0)
            if seat is not None:
                mesh.connect_peer(seat.seat, seat.endpoint, seat.curve)
                label = " (bot)" if seat.bot else ""
                notify(
                    f"{seat.nick}{label} sat down at seat {seat.seat}; {lobby.free} seat(s) free"
                )
                if adv is not None and lobby.free > 0:
                    info = adv._zsy_info
                    from dataclasses import replace

                    adv._zsy_info = replace(info, free_seats=lobby.free)
                    await adv.update(adv._zsy_info)
    frame = lobby.roster_frame()
    for s in lobby.roster.seats[1:]:
        await mesh.wait_connected(s.seat, LOBBY_TIMEOUT)
        await mesh.send(s.seat, frame, timeout=LOBBY_TIMEOUT)
    notify("The table is full: dealing.")


async def join_table(
    identity: Identity,
    target: str | None,
    nick: str,
    store_for: Callable[[str, int], TableStore],
    net: NetConfig,
    *,
    notify: Callable[[str], None] = print,
    browse_timeout: float = 4.0,
    bot: bool = False,
) -> tuple[TablePeer, Mesh]:
    """Find a table (by name with mDNS, or a tcp:// URL) and sit down."""
    endpoint, curve = await resolve_target(target, net, browse_timeout, notify)
    mesh = await Mesh.start(net.address, net.port, identity.curve_secret, identity.curve_public)
    try:
        roster, seat = await sit_down(
            mesh, identity, endpoint, curve, nick, bot=bot, on_status=notify
        )
        store = store_for(roster.table, seat)
        peer = TablePeer(identity, roster, seat, mesh, store, timing=net.timing)
        return peer, mesh
    except BaseException:
        await mesh.close()
        raise


async def resolve_target(
    target: str | None, net: NetConfig, timeout: float, notify: Callable[[str], None]
) -> tuple[str, bytes]:
    """A join target as ``(endpoint, host CURVE key)``."""
    if target and target.startswith("tcp://"):
        return parse_join_url(target)
    from .discovery import TableNotFoundError, browse_tables, resolve_table

    interfaces = net.mdns_interfaces or [net.address]
    if target:
        try:
            table = await resolve_table(target, interfaces, timeout=timeout)
        except TableNotFoundError:
            table = None
        if table is not None and table.free_seats > 0 and table.endpoint is not None:
            notify(f"joining '{table.name}' at {table.endpoint} (host {table.fingerprint})")
            return table.endpoint, table.curve_key
    tables = await browse_tables(interfaces, timeout=timeout)
    open_ = [t for t in tables if t.free_seats > 0]
    if target:
        found = [t for t in open_ if target in (t.name, t.table_id, t.instance)]
        if not found:
            names = ", ".join(t.name for t in open_) or "none"
            raise TableError(
                f"no open table named '{target}' found on the network (open tables: {names}). "
                "mDNS does not cross subnets: ask the host for the tcp://ADDR:PORT#KEY line"
            )
        table = found[0]
    else:
        if len(open_) != 1:
            names = ", ".join(t.name for t in open_) or "none found"
            raise TableError(
                f"name the table to join (open tables: {names}); `zsy tables` lists them"
            )
        table = open_[0]
    if table.endpoint is None:
        raise TableError(f"table '{table.name}' advertised no address")
    notify(f"joining '{table.name}' at {table.endpoint} (host {table.fingerprint})")
    return table.endpoint, table.curve_key


async def resume_table(
    identity: Identity, store: TableStore, net: NetConfig, notify: Callable[[str], None] = print
) -> tuple[TablePeer, Mesh]:
    """Restart a seat from disk: same endpoint, same feed, catch up from the others."""
    data, seat = store.load_roster()
    roster = Roster.from_json(data)
    if roster.keys.get(seat) != identity.public_key:
        raise TableError("the saved table belongs to another identity")
    endpoint = roster.seats[seat].endpoint
    host, _, port = endpoint[len("tcp://") :].rpartition(":")
    try:
        mesh = await Mesh.start(host, int(port), identity.curve_secret, identity.curve_public)
    except Exception as exc:  # noqa: BLE001 - say what to do
        raise TableError(
            f"cannot listen on {endpoint} again to resume ({exc}); is another zsy still running?"
        ) from None
    peer = TablePeer(identity, roster, seat, mesh, store, timing=net.timing)
    notify(f"resuming table '{roster.name}' at seat {seat}")
    return peer, mesh


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
) -> None:
    """One bot seat as a real peer: own identity, own socket, own replica.

    Its identity and level are kept in its store, so a host that restarts
    (``zsy join`` resumes the table) brings its bots back too.
    """
    identity = Identity.generate()
    mesh = await Mesh.start(net.address, 0, identity.curve_secret, identity.curve_public)
    try:
        roster, seat = await sit_down(
            mesh, identity, host_endpoint, host_curve, f"bot:{level}", bot=True
        )
        store = store_for(roster.table, seat)
        store.path.mkdir(parents=True, exist_ok=True)
        identity.save(store.path / "identity.pem")
        (store.path / "level").write_text(level)
        peer = TablePeer(
            identity,
            roster,
            seat,
            mesh,
            store,
            decider=make_decider(level, identity.public_key),
            timing=net.timing,
        )
        await peer.run()
    except asyncio.CancelledError:
        raise
    except Exception as exc:  # noqa: BLE001 - report, never crash the host's loop
        log.warning("bot peer %s stopped: %s", index, exc)
    finally:
        await mesh.close()


def saved_bots(table_dir: Path) -> list[TableStore]:
    """Bot seats this host ran for a table (``bot-seat-K`` folders with an identity)."""
    return [
        TableStore(p)
        for p in sorted(table_dir.glob("bot-seat-*"))
        if (p / "identity.pem").exists() and (p / "roster.json").exists()
    ]


async def resume_bot_peer(store: TableStore, net: NetConfig) -> None:
    """Bring a saved bot seat back (after its host restarted)."""
    identity = Identity.load(store.path / "identity.pem")
    level = (store.path / "level").read_text().strip() or "normal"
    peer, mesh = await resume_table(identity, store, net, notify=lambda _: None)
    peer.decider = make_decider(level, identity.public_key)
    try:
        peer.start(resume=True)
        await peer.run()
    except Exception as exc:  # noqa: BLE001 - report, never crash the host's loop
        log.warning("resumed bot at %s stopped: %s", store.path, exc)
    finally:
        await mesh.close()
