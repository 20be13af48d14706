"""``zsy watch``: follow a table as a spectator (issue #15; the work is in table/watch.py)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from zsy_lan.cli.options import pasted_url
from zsy_lan.protocol.chat import chat_command
from zsy_lan.text.i18n import _, exit_reason
from zsy_lan.text.sanitize import clean


def answer(typed: str, follower: Any, style: Any) -> list[str]:
    """What a spectator's typed word shows: the read-only words of the table (``table``, ``who``).

    ``table`` is the same table the seats see (``ui.render.table_lines``),
    drawn for nobody's seat: counts, last plays, the trick, bids and the kitty
    once it is turned up, never a hand.
    """
    from zsy_lan.ui.render import table_lines

    word = typed.strip().lower()
    if chat_command(typed) is not None:  # say hi, :gg, phrases, mute...: chat, not a play
        return [
            _(
                "A spectator does not chat (docs/spectators.md): type table, who or q "
                "(stops watching)."
            )
        ]
    if follower is None:
        return [_("Nothing to show yet: the table's record is on its way.")]
    names = [follower.nicks.get(s, str(s)) for s in range(follower.rules.players)]
    if word == "table":
        view = follower.game.view(0)  # an observer's view: every hand unknown
        if view is None:
            return [_("Waiting for the first deal...")]
        return table_lines(view, -1, style, names=names, rules=follower.rules)
    if word in ("who", "w"):
        bots = set(follower.meta.get("bots") or ())
        return [
            (_("  seat {seat}: {nick} (bot)") if s in bots else _("  seat {seat}: {nick}")).format(
                seat=s, nick=clean(n)
            )
            for s, n in enumerate(names)
        ]
    if word in ("help", "?"):
        return [
            _(
                "You are watching: table shows the table as every seat sees it in public, who "
                "lists the seats, q stops watching."
            )
        ]
    return [_("A spectator does not play: type table, who or q (stops watching).")]


@click.command()
@click.argument("target")
@click.option(
    "--nick", default=None, help="The name the host and the seats see (default: your login name)."
)
@click.option(
    "--record",
    type=click.Path(dir_okay=False),
    default=None,
    help="Also write the table's record as received to FILE (zsy replay FILE verifies it).",
)
@click.option(
    "--interface",
    default=None,
    metavar="IF",
    help="Network interface to look for the table NAME on (mDNS; e.g. eth0, lo).",
)
@click.option(
    "--plain",
    is_flag=True,
    help=(
        "Line mode even on a terminal large enough for the full screen, suits as words "
        "(screen readers, logs)."
    ),
)
def watch(
    target: str, nick: str | None, record: str | None, interface: str | None, plain: bool
) -> None:
    """Watch a table as a spectator: by NAME (found on the LAN, while it fills and once the
    match runs) or by the tcp://ADDR:PORT#KEY line its host printed (any time; with
    its ,relay=...,table=ID part when the host uses a relay).

    \b
    The host lets you in (zsy host --spectators ask|open|off). You never take a
    seat, never vote and never see a hand: with the private deal you see what
    every seat sees in public (cards as played, counts, bids, a turned kitty);
    with the open deal you see each round after it ends. Everything you see is
    re-verified from the seats' signed messages, from the start of the match.
    On a terminal of at least 60x20 the table is full-screen (the seats, the
    trick, the log; q stops watching, w lists the seats);
    otherwise, and with --plain, line mode: type table to see the table as
    the seats see it in public, who for the seats, q (or Ctrl-C) to stop.
    """
    from zsy_lan.cli.net_cmds import LobbyInput, _addresses, _run, _style
    from zsy_lan.table.reach import TableError
    from zsy_lan.table.watch import (
        default_nick,
        resolve_watch_target,
        split_watch_target,
        watch_table,
    )
    from zsy_lan.table.watch_frames import AFTER_END, HOST_BACK_WAIT
    from zsy_lan.ui.render import line_printer

    target = pasted_url(target) or target  # a line copied with the host's bracket, as zsy join
    interfaces = [] if target.startswith("tcp://") else _addresses(interface, True)

    style = _style("auto", None)
    if plain:
        style.suit_words = True  # --plain: "10 of spades", as at a seat (screen readers)

    from zsy_lan.ui.screen import screen_wanted

    full_screen = screen_wanted(plain)

    async def main() -> bool:
        line, relay, scope = split_watch_target(target)  # a host with --relay names it
        endpoint, curve = await resolve_watch_target(line, interfaces, 6.0, click.echo)
        if full_screen:
            from zsy_lan.ui.watch_screen import run_watch_screen

            outcome = await run_watch_screen(
                lambda session, stop: watch_table(
                    endpoint,
                    curve,
                    nick or default_nick(),
                    "127.0.0.1",
                    show=session.show,
                    record=Path(record) if record else None,
                    on_batch=session.follow,
                    stop=stop,
                    keep_frames=False,  # the screen reads the game, never the frames
                    relay=relay,
                    scope=scope,
                    after_end=AFTER_END,  # the last words (gg), until the host's bye
                    host_back=HOST_BACK_WAIT,  # a host that resumes is followed on
                ),
                style,
                lambda line, follower: answer(line, follower, style),
                table_name="" if target.startswith("tcp://") else target,
            )
            why = outcome.why if outcome is not None else "quit"
            click.echo(_("Stopped watching ({why}).").format(why=exit_reason(why)))
            if record:
                click.echo(_("The record as received: {path}").format(path=record))
            return outcome is None or outcome.ok
        say = line_printer(style, click.echo)  # wrapped as at a seat's line mode
        typed = LobbyInput().start()  # table, who, help, q (a closed stdin: none)
        try:
            outcome = await watch_table(
                endpoint,
                curve,
                nick or default_nick(),
                "127.0.0.1",  # our own socket only answers the host's link: never advertised
                show=say,
                record=Path(record) if record else None,
                commands=typed.queue if typed.active else None,
                answer=lambda word, follower: answer(word, follower, style),
                relay=relay,
                scope=scope,
                after_end=AFTER_END,  # the last words (gg), until the host's bye
                host_back=HOST_BACK_WAIT,  # a host that resumes is followed on
            )
        finally:
            typed.stop()
        say(_("Stopped watching ({why}).").format(why=exit_reason(outcome.why)))
        if record:
            say(_("The record as received: {path}").format(path=record))
        return outcome.ok

    try:
        ok = _run(main())
    except TableError as exc:
        raise click.ClickException(str(exc)) from exc
    if not ok:
        sys.exit(1)
