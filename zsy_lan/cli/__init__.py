"""The ``zsy`` command: one click group; each family of commands in its own module."""

from __future__ import annotations

import contextlib
import sys

import click

from .bot_cmds import bot
from .engine_cmds import moves, play, selfplay
from .net_cmds import demo, host, join, replay, tables
from .plugin_cmds import plugins, rules_cmd


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="zsy-lan", prog_name="zsy")
def cli() -> None:
    """Zheng Shangyou (争上游) and Dou Dizhu in the terminal, peer to peer on a LAN."""


cli.add_command(moves)
cli.add_command(selfplay)
cli.add_command(play)
cli.add_command(bot)
cli.add_command(plugins)
cli.add_command(rules_cmd)
for _cmd in (host, join, tables, replay, demo):
    cli.add_command(_cmd)


def main() -> None:
    """Console-script entry point."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            with contextlib.suppress(ValueError, OSError):
                reconfigure(errors="replace")
    cli()
