"""Network commands: ``zsy host``, ``zsy join``, ``zsy tables``, ``zsy replay``, ``zsy demo``."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shlex
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from zsy_lan.cli.options import make_rules, match_rounds, pasted_url, rounds_option, rules_options
from zsy_lan.cli.relay_cmds import relay_option, with_ca
from zsy_lan.engine.errors import ConfigError
from zsy_lan.runtime import tune_for_table
from zsy_lan.text.engine_text import translate as engine_said
from zsy_lan.text.i18n import _, deal_word, exit_reason, ngettext


def _net_options(fn: Callable[..., Any]) -> Callable[..., Any]:
    fn = click.option(
        "--interface",
        default=None,
        metavar="IF",
        help="Network interface to use (e.g. eth0, wlan0, lo). Default: the machine's "
        "non-loopback interfaces.",
    )(fn)
    fn = click.option(
        "--port",
        type=click.IntRange(0, 65535),
        default=0,
        help="Port to listen on (default: any free port).",
    )(fn)
    fn = click.option(
        "--profile",
        default="default",
        show_default=True,
        help="Player identity on this machine (a second player here needs another).",
    )(fn)
    fn = click.option(
        "--data-dir",
        type=click.Path(file_okay=False),
        default=None,
        help="Where identities and game records live (default: XDG data dir).",
    )(fn)
    return fn


def _timer(ctx: click.Context, param: click.Parameter, value: str) -> int | None:
    """``--turn-timer``: a preset name or a whole number of seconds (3 to 600);
    the presets are :data:`zsy_lan.protocol.table_settings.CLOCK_PRESETS`."""
    from zsy_lan.protocol.table_settings import parse_clock

    try:
        return parse_clock(value)
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from None


def _join_timer(ctx: click.Context, param: click.Parameter, value: str | None) -> None:
    """``zsy join --turn-timer``: the clock is the host's table setting now; say so."""
    if value is not None:
        raise click.UsageError(
            _(
                "the host sets the table clock for everyone (zsy host --turn-timer); "
                "leave --turn-timer out when joining"
            )
        )


def _settings_options(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``zsy host``'s table settings: the clock and the assists for every seat, the invitation."""
    fn = click.option(
        "--invite",
        is_flag=True,
        help="Only players with the join URL the host prints may sit (it holds a secret; "
        "mDNS shows the table as invite only, never the secret).",
    )(fn)
    fn = click.option(
        "--counter/--no-counter",
        default=True,
        show_default=True,
        help="The card counter (c, count) for every seat, or for none.",
    )(fn)
    fn = click.option(
        "--hints/--no-hints",
        default=True,
        show_default=True,
        help="The hint key (h, hint) for every seat, or for none.",
    )(fn)
    fn = click.option(
        "--turn-timer",
        default="off",
        show_default=True,
        metavar="off|fast|normal|slow|SECONDS",
        callback=_timer,
        help="The table clock, the same for every seat: fast 15 s, normal 30 s, slow 60 s a "
        "turn. When a player's time runs out the hint is played for them; after two "
        "timeouts in a row auto-play (托管) takes over until they type or press a key.",
    )(fn)
    return fn


def _ui_options(fn: Callable[..., Any]) -> Callable[..., Any]:
    fn = click.option(
        "--color",
        type=click.Choice(["auto", "always", "never"]),
        default="auto",
        show_default=True,
        help="Colours: auto (on a terminal, unless NO_COLOR is set), always or never.",
    )(fn)
    fn = click.option(
        "--ascii",
        "ascii_suits",
        is_flag=True,
        default=None,
        help="Suits as S H D C (for terminals that misdraw ♠♥♣).",
    )(fn)
    fn = click.option(
        "--plain", is_flag=True, help="Line-by-line input, suits as words (screen readers, pipes)."
    )(fn)
    fn = click.option(
        "--four-color", is_flag=True, help="Four-colour deck on the full-screen table."
    )(fn)
    return fn


def _addresses(interface: str | None, humans_expected: bool) -> list[str]:
    """Addresses to bind and advertise on; a table only of bots stays on loopback."""
    from zsy_lan.net.netif import UnknownInterfaceError, select_addresses

    if interface is None and not humans_expected:
        return ["127.0.0.1"]
    try:
        addrs = select_addresses(interface)
    except UnknownInterfaceError as exc:
        raise click.UsageError(str(exc)) from exc
    if not addrs:
        raise click.UsageError(
            _(
                "no usable network interface found: choose one with --interface "
                "(lo for this machine)"
            )
        )
    return addrs


def _setup(data_dir: str | None, profile: str) -> tuple[Any, Any, Path]:
    from zsy_lan.record.store import Profile, ProfileBusy, StorageError
    from zsy_lan.record.store import data_dir as resolve
    from zsy_lan.runtime import setup_logging

    root = resolve(data_dir)
    try:
        setup_logging(root)  # 0700 folder, 0600 log; a disk fault is said once
        prof = Profile(root, profile)
        identity = prof.acquire()
    except ProfileBusy as exc:
        raise click.UsageError(str(exc)) from exc
    except StorageError as exc:  # read-only or full data directory: one sentence
        raise click.ClickException(str(exc)) from None
    return prof, identity, root


def _known_players(root: Path, profile: str) -> dict[bytes, str]:
    """The keys of this profile's history and their nicks, for the lobby's marks.

    Read with the history's cache (records are verified once); a history that
    cannot be read leaves the lobby without these marks and says why in the log,
    as hosting does not depend on it.
    """
    import logging

    from zsy_lan.record.history import build_history, known_players

    try:
        return known_players(build_history(root, profile))
    except OSError as exc:
        logging.getLogger("zsy.table").warning("history not read for the lobby: %s", exc)
        return {}


def _style(color: str, ascii_suits: bool | None) -> Any:
    from zsy_lan.ui.render import Style

    return Style.detect(color, ascii_suits)


def _bye(
    why: str, records: list[Path], root: Path, err: bool = False, resumable: bool = False
) -> None:
    """The last line: why we left, and the record file with the command that shows it.

    ``resumable``: the seat left a match still on (``quit``); it is told it can come
    back, as after Ctrl-C (:func:`_run`), since only ``zsy join`` brings it back.
    """
    if records:
        path = shlex.quote(str(records[-1]))
        click.echo(
            _("Bye ({why}). The game record: {path} (see it with: zsy replay {path})").format(
                why=exit_reason(why), path=path
            ),
            err=err,
        )
        if resumable:
            click.echo(_("`zsy join` resumes the table."), err=err)
    else:
        click.echo(
            _("Bye ({why}). Game records are kept under {root}.").format(
                why=exit_reason(why), root=root
            ),
            err=err,
        )


async def _play_seat(
    peer: Any,
    mesh: Any,
    style: Any,
    plain: bool,
    resume: bool,
    four_color: bool = False,
) -> str:
    """Run a human's seat with the terminal UI until the match ends or they quit.

    The turn clock is the table's (the host's setting in the roster), the same at every seat.
    """
    from zsy_lan.ui.line_mode import Assist, PlainReader, PromptReader, run_table

    try:
        peer.start(resume=resume)  # StorageError: a record that does not match this seat
    except BaseException:
        with contextlib.suppress(Exception):
            await peer.close()  # the table is told why this seat cannot come back (bounded)
        await mesh.close()
        raise
    runner = asyncio.create_task(peer.run())
    timer = peer.info.settings.clock
    use_prompt = not plain and sys.stdin.isatty() and sys.stdout.isatty()
    if plain:
        style.suit_words = True  # --plain: "10 of spades" reads well in a screen reader
    try:
        if peer.decider is not None:
            return await _watch_bot_seat(peer, runner)
        from zsy_lan.ui.screen import ScreenOptions, run_screen, screen_wanted

        if use_prompt and screen_wanted(plain):  # large enough: the full-screen table
            why = await run_screen(peer, style, Assist(timer=timer), ScreenOptions(four_color))
        elif use_prompt:
            from prompt_toolkit.patch_stdout import patch_stdout

            with patch_stdout(raw=True):
                why = await run_table(peer, style, PromptReader(), assist=Assist(timer=timer))
        else:
            why = await run_table(peer, style, PlainReader(), assist=Assist(timer=timer))
        if why == "match over":
            await asyncio.wait_for(asyncio.shield(runner), peer.linger + 2)
        return why
    finally:
        peer.stopped.set()
        with contextlib.suppress(BaseException):
            await asyncio.wait_for(runner, 5)
        if peer.spectators is not None:  # the rest of the record, then bye (spectate.py)
            with contextlib.suppress(BaseException):
                await asyncio.wait_for(peer.spectators.close(_spectators_bye(peer)), 6)
        await mesh.close()


def _spectators_bye(peer: Any) -> str:
    """Why the host's spectators are let go: the match is over, or the host left."""
    from zsy_lan.text.i18n import N_

    return N_("match over") if peer.game.finished() else N_("the host left the table")


async def _watch_bot_seat(peer: Any, runner: asyncio.Task[None]) -> str:
    """A seat played by a bot (``--bot``): no input is read, the game's notices are shown.

    Reading no input matters: a bot seat runs fine with stdin closed or a pipe
    that never ends (scripts, tests, ``nohup``).
    """

    async def show() -> None:
        while True:
            notice = await peer.notices.get()
            click.echo(("! " if notice.kind == "error" else "* ") + notice.text)

    shower = asyncio.create_task(show())
    try:
        await _bot_seat_outcome(peer, runner, _bot_alone_after())
        with contextlib.suppress(BaseException):
            await asyncio.wait_for(asyncio.shield(runner), 5)
    finally:
        shower.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await shower
        while not peer.notices.empty():
            notice = peer.notices.get_nowait()
            click.echo(("! " if notice.kind == "error" else "* ") + notice.text)
    return "match over" if peer.game.finished() else (peer.info.stopped or "stopped")


#: Seconds a bot-played seat waits with every other seat gone before it gives up
#: (``$ZSY_BOT_ALONE_AFTER`` overrides it: tests, scripts that want to know sooner).
BOT_ALONE_AFTER = 60.0
BOT_ALONE_ENV = "ZSY_BOT_ALONE_AFTER"


def _bot_alone_after() -> float:
    """:data:`BOT_ALONE_AFTER`, or ``$ZSY_BOT_ALONE_AFTER`` when it is a number of seconds."""
    try:
        return max(0.0, float(os.environ[BOT_ALONE_ENV]))
    except (KeyError, ValueError):
        return BOT_ALONE_AFTER


async def _bot_seat_outcome(peer: Any, runner: asyncio.Task[None], alone_after: float) -> None:
    """Return when a bot seat's match ends, or when it can no longer finish.

    It cannot finish when the table stopped (``info.stopped``: a proven
    cheat, ...) or when every other seat has been gone for ``alone_after``
    seconds; then the peer is stopped, so ``zsy join --bot`` / ``zsy host
    --bot`` exit with status 1 instead of waiting for ever.
    """
    alone_since: float | None = None
    every = min(1.0, alone_after / 5)  # looks once a second (more often for a short wait)
    while not runner.done():
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(runner), every)
        if runner.done():
            return
        if peer.info.stopped:
            break
        others = [s for k, s in enumerate(peer.info.seats) if k != peer.seat]
        if others and not any(s.connected for s in others):
            now = time.monotonic()
            alone_since = alone_since or now
            if now - alone_since >= alone_after:
                peer.info.stopped = _("every other seat left; the match cannot finish")
                break
        else:
            alone_since = None
    peer.stopped.set()


class LobbyInput:
    """Lines the host types while the table fills, read without blocking the loop.

    Uses the loop's reader on stdin (a terminal or a pipe); a stdin that is
    closed, a file or missing is simply not read. :meth:`stop` before the
    table's own input takes over.
    """

    def __init__(self) -> None:
        self.queue: asyncio.Queue[str] = asyncio.Queue(maxsize=64)
        self._fd: int | None = None
        self._buf = b""

    def start(self) -> LobbyInput:
        try:
            fd = sys.stdin.fileno()
            asyncio.get_running_loop().add_reader(fd, self._readable)
        except (AttributeError, OSError, ValueError):  # no stdin, or one epoll cannot watch
            return self
        self._fd = fd
        return self

    def _readable(self) -> None:
        assert self._fd is not None
        try:
            data = os.read(self._fd, 4096)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            data = b""
        if not data:
            self.stop()
            return
        self._buf = (self._buf + data)[-4096:]
        while b"\n" in self._buf:
            line, self._buf = self._buf.split(b"\n", 1)
            with contextlib.suppress(asyncio.QueueFull):
                self.queue.put_nowait(line.decode("utf-8", errors="replace"))

    @property
    def active(self) -> bool:
        """True while stdin is being read (a terminal or a pipe that is still open)."""
        return self._fd is not None

    def stop(self) -> None:
        if self._fd is not None:
            with contextlib.suppress(Exception):
                asyncio.get_running_loop().remove_reader(self._fd)
            self._fd = None


def _run(coro: Any, records: list[Path] | None = None, root: Path | None = None) -> Any:
    """Run the asyncio part; Ctrl-C leaves quietly, naming the game record like ``q`` does."""
    tune_for_table()
    try:
        return asyncio.run(coro)
    except KeyboardInterrupt:
        click.echo("", err=True)
        if root is not None:
            _bye(_("Ctrl-C"), records or [], root, err=True)
        if records:
            click.echo(_("`zsy join` resumes the table."), err=True)
        sys.exit(130)


@click.command()
@click.option("--name", default=None, help="Table name shown to others (default: NICK's table).")
@rules_options()
@rounds_option(1000)
@click.option(
    "--bots",
    type=click.IntRange(0, 5),
    default=0,
    show_default=True,
    help="Seat this many bots (real peers) so fewer people can play.",
)
@click.option(
    "--bot-level",
    type=click.Choice(["easy", "normal", "hard"]),
    default="normal",
    show_default=True,
    help="How well the bots of --bots play.",
)
@click.option(
    "--bot",
    "seat_bot",
    type=click.Choice(["easy", "normal", "hard"]),
    default=None,
    help="Let a bot of this level play your own seat (labelled as a bot; no input is read). "
    "Exit status 1 if the match does not finish.",
)
@click.option("--nick", default=None, help="Your name at the table (default: your login name).")
@click.option("--no-mdns", is_flag=True, help="Do not advertise; others join with the tcp:// line.")
@click.option(
    "--approve",
    is_flag=True,
    help=(
        "Ask before seating each player: type accept N or refuse N (the number shown beside "
        "them) while the table fills."
    ),
)
@click.option(
    "--open-deal",
    is_flag=True,
    help="Deal from the shared seed alone: faster, but every peer could compute every hand "
    "(the default private deal uses mental poker so nobody can see another's cards).",
)
@click.option(
    "--quiet-bots", is_flag=True, help="The bots never chat (by default they say a quick "
    "phrase now and then, such as gg at the end)."
)
@click.option(
    "--spectators",
    type=click.Choice(["ask", "open", "off"]),
    default="ask",
    show_default=True,
    help="Who may watch with zsy watch: ask (you type accept NICK or refuse NICK, also during "
    "the match; watchers lists them), open (anyone with the line) or off. Spectators never see "
    "a hand; with --open-deal they see each round after it ends.",
)
@relay_option
@_settings_options
@_net_options
@_ui_options
def host(
    name: str | None,
    players: int | None,
    variants: tuple[str, ...],
    options: tuple[str, ...],
    rounds: int | None,
    bots: int,
    bot_level: str,
    seat_bot: str | None,
    nick: str | None,
    no_mdns: bool,
    approve: bool,
    open_deal: bool,
    quiet_bots: bool,
    spectators: str,
    interface: str | None,
    port: int,
    profile: str,
    data_dir: str | None,
    color: str,
    ascii_suits: bool | None,
    plain: bool,
    four_color: bool,
    turn_timer: int | None,
    hints: bool,
    counter: bool,
    invite: bool,
    relay: Any = None,
    relay_ca: str | None = None,
) -> None:
    """Open a table, advertise it on the LAN and play when it is full.

    \b
    While the table fills you can type:
      kick SEAT|NICK   remove a seated player (they cannot sit again)
      accept NICK      seat a player who asked (with --approve; NICK may be
                       the number or key fingerprint that who shows)
      refuse NICK      turn a player away (with --approve; the same)
      who              list the seats and who waits (number, key, address)
    Bots seated with --bots run in this process: you could see their cards,
    and `zsy tables` tells the others so ("bots run by seat 0").
    The clock and the assists (--turn-timer, --no-hints, --no-counter) are the
    same for every seat; --invite keeps out anyone without the printed join URL.
    """
    from zsy_lan.protocol.table_settings import TableSettings
    from zsy_lan.record.store import TableStore
    from zsy_lan.table.deciders import make_decider
    from zsy_lan.table.hosting import open_table
    from zsy_lan.table.reach import NetConfig, TableError

    settings = TableSettings(turn_timer, hints, counter, invite)

    rules = make_rules(players, variants, options)
    rounds = match_rounds(rules, rounds)
    if bots >= rules.players:
        raise click.BadParameter(
            _(
                "{bots} bots leave no seat for you at a {players}-player table "
                "(use at most {most}; `zsy demo` plays bots only)"
            ).format(bots=bots, players=rules.players, most=rules.players - 1),
            param_hint="--bots",
        )
    nick = nick or _login()
    name = name or _("{nick}'s table").format(nick=nick)  # in the host's language
    humans = rules.players - 1 - bots
    addrs = _addresses(interface, humans > 0)
    prof, identity, root = _setup(data_dir, profile)
    known = _known_players(root, profile) if humans > 0 else {}
    net = NetConfig(
        address=addrs[0], port=port, mdns=not no_mdns and humans > 0, mdns_interfaces=addrs
    )
    net.relay = with_ca(relay, relay_ca)  # zsy host --relay (relay_cmds.py)
    net.bot_chat = not quiet_bots  # the bots' quick phrases (docs/chat.md)
    style = _style(color, ascii_suits)

    records: list[Path] = []  # the game record, once there is a table
    left_on: list[bool] = []  # True: the player quit a match still on (zsy join resumes it)

    async def main() -> str:
        typed = LobbyInput().start() if seat_bot is None else None
        if seat_bot is not None and spectators == "ask":
            click.echo(
                _(
                    "Your seat is played by a bot and reads no input: nobody can let in a "
                    "spectator who asks (use --spectators open or off)."
                )
            )
        try:
            hosted = await open_table(
                identity,
                rules,
                rounds,
                name,
                nick,
                prof.table,
                net,
                bots=bots,
                bot_level=bot_level,
                notify=click.echo,
                host_bot=seat_bot is not None,
                deal="open" if open_deal else "private",
                bot_store=lambda t, seat: TableStore(prof.table(t).path / f"bot-seat-{seat}"),
                commands=typed.queue if typed is not None and typed.active else None,
                approve=approve,
                settings=settings,
                spectators=spectators,
                known=known,
            )
        finally:
            if typed is not None:
                typed.stop()
        records.append(hosted.peer.store.transcript_path)
        if seat_bot is not None:
            hosted.peer.decider = make_decider(seat_bot, identity.public_key)
            hosted.peer.info.seats[0].bot = True
        try:
            why = await _play_seat(
                hosted.peer, hosted.mesh, style, plain, resume=False, four_color=four_color
            )
            left_on.append(why == "quit" and not hosted.peer.game.finished())
            return why
        finally:
            for t in hosted.bots:
                t.cancel()
            await asyncio.gather(*hosted.bots, return_exceptions=True)

    from zsy_lan.record.store import StorageError

    try:
        why = _run(main(), records, root)
    except (TableError, StorageError) as exc:  # StorageError: this seat's own files
        raise click.ClickException(str(exc)) from exc
    finally:
        prof.release()
    _bye(why, records, root, resumable=any(left_on))
    if seat_bot is not None and why != "match over":
        sys.exit(1)


@click.command()
@click.argument("target", required=False)
@click.option("--nick", default=None, help="Your name at the table (default: your login name).")
@click.option(
    "--bot",
    "bot_level",
    type=click.Choice(["easy", "normal", "hard"]),
    default=None,
    help="Let a bot of this level play this seat (it is labelled as a bot; no input is read). "
    "Exit status 1 if the match does not finish.",
)
@click.option(
    "--bot-cmd",
    default=None,
    metavar="COMMAND",
    help="Let an external program play this seat, speaking the JSON-lines bot protocol "
    "(docs/bots.md); a built-in bot moves whenever it fails.",
)
@click.option(
    "--list",
    "list_mine",
    is_flag=True,
    help="List this profile's unfinished tables (most recent first) and exit.",
)
@click.option(
    "--quiet-bots", is_flag=True, help="The bots never chat (by default they say a quick "
    "phrase now and then, such as gg at the end)."
)
@click.option("--turn-timer", default=None, hidden=True, expose_value=False, callback=_join_timer)
@_net_options
@_ui_options
def join(
    target: str | None,
    nick: str | None,
    bot_level: str | None,
    bot_cmd: str | None,
    list_mine: bool,
    quiet_bots: bool,
    interface: str | None,
    port: int,
    profile: str,
    data_dir: str | None,
    color: str,
    ascii_suits: bool | None,
    plain: bool,
    four_color: bool,
) -> None:
    """Join a table by NAME (found on the LAN) or tcp://ADDR:PORT#KEY; resume a dropped one.

    With no TARGET and an unfinished table on disk, rejoin the most recent one
    and catch up; with the NAME or ID of an unfinished table, rejoin that one.
    `zsy join --list` shows them. When several open tables share NAME, they are
    listed with their ids instead (`zsy join ID` picks one). A table by
    invitation needs the whole URL its host printed (tcp://ADDR:PORT#KEY.SECRET).
    The clock and the assists are the host's table settings.
    """
    from zsy_lan.table.deciders import external_decider, make_decider
    from zsy_lan.table.joining import join_table
    from zsy_lan.table.reach import NetConfig, TableError
    from zsy_lan.table.resuming import (
        pick_saved,
        resume_bot_peer,
        resume_table,
        saved_bots,
        saved_tables,
    )

    if list_mine:
        _list_mine(data_dir, profile)
        return
    if bot_level is not None and bot_cmd is not None:
        raise click.UsageError(_("choose one of --bot LEVEL and --bot-cmd COMMAND"))
    target = pasted_url(target)  # "(or: zsy join tcp://...)" copied with its bracket
    prof, identity, root = _setup(data_dir, profile)
    style = _style(color, ascii_suits)
    picked = pick_saved(saved_tables(prof.unfinished_tables()), target)
    resume = picked.store if picked is not None else None
    addrs = (
        ["127.0.0.1"] if resume is not None and interface is None else _addresses(interface, True)
    )
    net = NetConfig(address=addrs[0], port=port, mdns_interfaces=addrs)
    net.bot_chat = not quiet_bots  # a --bot seat's quick phrases (docs/chat.md)
    nick = nick or _login()

    records: list[Path] = []  # the game record, once seated
    left_on: list[bool] = []  # True: the player quit a match still on (zsy join resumes it)

    async def main() -> str:
        bots: list[asyncio.Task[None]] = []
        if resume is not None:
            peer, mesh = await resume_table(identity, resume, net, notify=click.echo)
            for bot_store in saved_bots(resume.path):
                bots.append(asyncio.create_task(resume_bot_peer(bot_store, net)))
            if bots:
                click.echo(
                    ngettext(
                        "bringing back {n} bot seat", "bringing back {n} bot seats", len(bots)
                    ).format(n=len(bots))
                )
        else:
            peer, mesh = await join_table(
                identity,
                target,
                nick,
                lambda t, _s: prof.table(t),
                net,
                notify=click.echo,
                bot=bot_level is not None or bot_cmd is not None,
            )
        records.append(peer.store.transcript_path)
        if bot_level is not None:
            peer.decider = make_decider(bot_level, identity.public_key)
            peer.info.seats[peer.seat].bot = True
        elif bot_cmd is not None:
            from zsy_lan.table.session import Notice

            loop = asyncio.get_running_loop()
            peer.decider = external_decider(  # it runs in a worker thread: hop back to the loop
                bot_cmd,
                identity.public_key,
                lambda text: loop.call_soon_threadsafe(
                    peer.notices.put_nowait, Notice("error", text)
                ),
            )
            peer.info.seats[peer.seat].bot = True
        try:
            why = await _play_seat(
                peer, mesh, style, plain, resume=resume is not None, four_color=four_color
            )
            left_on.append(why == "quit" and not peer.game.finished())
            return why
        finally:
            for t in bots:
                t.cancel()
            await asyncio.gather(*bots, return_exceptions=True)

    from zsy_lan.record.store import StorageError

    try:
        why = _run(main(), records, root)
    except (TableError, StorageError) as exc:  # StorageError: this seat's own files
        raise click.ClickException(str(exc)) from exc
    finally:
        prof.release()
    _bye(why, records, root, resumable=any(left_on))
    if (bot_level is not None or bot_cmd is not None) and why != "match over":
        sys.exit(1)


def _list_mine(data_dir: str | None, profile: str) -> None:
    """This profile's unfinished tables, most recent first (read-only: no lock taken)."""
    from zsy_lan.record.store import Profile
    from zsy_lan.record.store import data_dir as resolve
    from zsy_lan.table.resuming import saved_tables

    saved = saved_tables(Profile(resolve(data_dir), profile).unfinished_tables())
    if not saved:
        click.echo(_("No unfinished tables for profile '{profile}'.").format(profile=profile))
        return
    for t in saved:
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(t.last_active))
        click.echo(
            _("{name} (id {id}): seat {seat}, last active {when}").format(
                name=t.name, id=t.table, seat=t.seat, when=when
            )
        )
    click.echo(_("`zsy join` resumes the first; `zsy join ID` resumes that one."))


@click.command()
@click.option("--interface", default=None, metavar="IF", help="Interface to browse on.")
@click.option(
    "--timeout",
    type=click.FloatRange(0.5, 60),
    default=3.0,
    show_default=True,
    help="How long to look for tables, in seconds.",
)
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of text.")
@click.option(
    "--mine", is_flag=True, help="List this profile's unfinished tables instead (no network)."
)
@click.option("--profile", default="default", show_default=True, help="Profile for --mine.")
@click.option(
    "--data-dir", type=click.Path(file_okay=False), default=None, help="Data dir for --mine."
)
def tables(
    interface: str | None,
    timeout: float,
    as_json: bool,
    mine: bool,
    profile: str,
    data_dir: str | None,
) -> None:
    """List the tables on the LAN (name, variants, ruleset, free seats, host key, clock,
    assists; "invite only" for a table that needs its host's join URL; "full — zsy watch
    NAME to watch" for a match under way that admits spectators).

    A table whose host runs bots says "bots run by seat 0": the host's
    process holds those bots' secrets and could see their cards.
    """
    from zsy_lan.net.discovery import browse_tables
    from zsy_lan.protocol.table_settings import phrase_separator, settings_words
    from zsy_lan.table.reach import shell_word

    if mine:
        _list_mine(data_dir, profile)
        return
    addrs = _addresses(interface, True)
    found = asyncio.run(browse_tables(addrs, timeout=timeout))
    if as_json:
        click.echo(
            json.dumps(
                [
                    {
                        "name": t.name,
                        "table": t.table_id,
                        "variants": list(t.variants),
                        "ruleset": t.ruleset_id,
                        "free": t.free_seats,
                        "seats": t.seats,
                        "host": t.fingerprint,
                        "endpoint": t.endpoint,
                        "deal": t.deal,
                        "bots_run_by_seat_0": t.bots,
                        "clock": t.settings.clock,
                        "hints": t.settings.hints,
                        "counter": t.settings.counter,
                        "invite": t.settings.invite,
                        "spectators": t.watch,
                    }
                    for t in found
                ]
            )
        )
        return
    if not found:
        click.echo(_("No tables found. (mDNS does not cross subnets: ask for the tcp:// line.)"))
        return
    for t in found:
        line = _(
            "{name}: {variants}; {deal} deal; {free}/{seats} seats free; ruleset {ruleset}; "
            "host {host}; {endpoint}"
        ).format(
            name=t.name,
            variants=", ".join(t.variants) or "zsy",
            deal=deal_word(t.deal),
            free=t.free_seats,
            seats=t.seats,
            ruleset=t.ruleset_id,
            host=t.fingerprint,
            endpoint=t.endpoint,
        )
        sep = phrase_separator()
        if t.bots:
            line += sep + ngettext(
                "{n} bot run by seat 0 (that player could see its cards)",
                "{n} bots run by seat 0 (that player could see their cards)",
                t.bots,
            ).format(n=t.bots)
        line += sep + sep.join(settings_words(t.settings))
        if t.free_seats <= 0 and t.watchable:  # listed once full only to be watched
            line += sep + _("full — zsy watch {name} to watch").format(name=shell_word(t.name))
        click.echo(line)


def _login() -> str:
    import getpass

    with contextlib.suppress(Exception):
        return getpass.getuser()[:24] or "player"
    return "player"


@click.command()
@click.argument("file", type=click.Path(exists=True, dir_okay=False))
@click.option("--verify", is_flag=True, help="Only check; print the verdict.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of text.")
def replay(file: str, verify: bool, as_json: bool) -> None:
    """Re-check every signature, action and hash of a game record, and show the game.

    Exit status 1 when the record does not verify, naming the line where it starts:
    tampered with, or damaged (a line missing or out of place, a header that
    disagrees with the signed lines), which names no seat.
    """
    from zsy_lan.record.replay import replay_file

    try:
        report = replay_file(Path(file))
    except (ValueError, ConfigError) as exc:
        raise click.ClickException(
            _("{file}: {error}").format(file=file, error=engine_said(str(exc)))
        ) from exc
    if as_json:
        click.echo(json.dumps(report.to_json()))
    else:
        if not verify:
            for line in report.narration:
                for row in _chat_rows(line):
                    click.echo(row)
        click.echo(report.verdict())
        for line in report.evidence_lines(verify):  # proof frames kept after a halt
            click.echo(line)
    sys.exit(0 if report.ok and report.evidence_ok else 1)


def _chat_rows(line: str) -> list[str]:
    """A line of ``zsy replay``'s story as printed: a chat line wrapped to the terminal with
    its rows marked (:func:`zsy_lan.protocol.chat.continued`), so that the terminal never
    wraps another seat's words into a row that reads as a line of its own."""
    from zsy_lan.protocol.chat import continued
    from zsy_lan.ui.render import Style, wrap

    if continued(line) is None:
        return [line]
    return wrap(line, Style().columns())


@click.command()
@rules_options()
@rounds_option(100)
@click.option(
    "--out",
    type=click.Path(file_okay=False),
    default="zsy-demo",
    show_default=True,
    help="Folder for each seat's record (seat-K.jsonl).",
)
@click.option(
    "--bot-level",
    type=click.Choice(["easy", "normal", "hard"]),
    default="easy",
    show_default=True,
    help="How well the bots play.",
)
@click.option(
    "--open-deal",
    is_flag=True,
    help="Deal from the shared seed alone: faster, but every peer could compute every hand "
    "(the default private deal uses mental poker so nobody can see another's cards).",
)
def demo(
    players: int | None,
    variants: tuple[str, ...],
    options: tuple[str, ...],
    rounds: int | None,
    out: str,
    bot_level: str,
    open_deal: bool,
) -> None:
    """A whole match of bot peers over real sockets on 127.0.0.1 (mDNS on loopback).

    Exits 0 only if every peer finished with the same transcript head and every
    record passes `zsy replay --verify`.
    """
    from zsy_lan.table.demo import run_demo

    rules = make_rules(players, variants, options)
    rounds = match_rounds(rules, rounds)
    deal = "open" if open_deal else "private"
    tune_for_table()
    ok = asyncio.run(run_demo(rules, rounds, Path(out), bot_level, echo=click.echo, deal=deal))
    sys.exit(0 if ok else 1)
