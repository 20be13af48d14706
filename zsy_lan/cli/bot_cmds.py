"""``zsy bot --stdio``: a builtin bot behind the JSON-lines bot protocol.

Why a command: it is the reference implementation of the protocol (an
external program the table can run exactly like a third-party bot), and a
way to test the protocol end to end. One observation per input line, one
action per output line; anything malformed gets a JSON error line and the
loop goes on: the command never crashes on input. Schema: docs/bots.md.
"""

from __future__ import annotations

import json
import sys
from typing import IO, Any

import click

from zsy_lan.bots.registry import DEFAULT_LEVEL, level_names, make_bot
from zsy_lan.bots.wire import WireError, decode_observation, encode_action
from zsy_lan.text.i18n import _


def serve(
    level: str,
    seed: str,
    stdin: IO[str],
    stdout: IO[str],
    options: dict[str, Any] | None = None,
) -> int:
    """Answer observations from ``stdin`` until EOF; returns how many were answered."""
    bots: dict[int, Any] = {}
    answered = 0
    for raw in stdin:
        line = raw.strip()
        if not line:
            continue
        rid: Any = None
        try:
            data = json.loads(line)
            if isinstance(data, dict):
                rid = data.get("id")
            if isinstance(data, dict) and data.get("type") == "quit":
                break
            obs = decode_observation(data)
            bot = bots.get(obs.seat)
            if bot is None:
                bot = bots[obs.seat] = make_bot(level, f"{seed}:{obs.seat}", **(options or {}))
            reply: dict[str, Any] = encode_action(bot.choose(obs), rid)
            answered += 1
        except json.JSONDecodeError as exc:
            reply = {"error": f"not JSON: {exc.msg} at column {exc.colno}"}
        except WireError as exc:
            reply = {"error": str(exc)}
        except Exception as exc:  # noqa: BLE001 - the protocol promises an error line, never a crash
            reply = {"error": f"internal error: {type(exc).__name__}: {exc}"}
        if "error" in reply and rid is not None:
            reply["id"] = rid
        stdout.write(json.dumps(reply, separators=(",", ":")) + "\n")
        stdout.flush()
    return answered


@click.command()
@click.option("--stdio", is_flag=True, help="Speak the JSON-lines bot protocol on stdin/stdout.")
@click.option(
    "--level",
    type=click.Choice(level_names(include_baselines=True)),
    default=DEFAULT_LEVEL,
    show_default=True,
    help="Bot strength.",
)
@click.option("--seed", default="0", show_default=True, help="Seed: same seed, same choices.")
@click.option(
    "--budget-ms",
    type=float,
    default=None,
    help="Thinking time per move for the hard level, in milliseconds (default 400).",
)
@click.option(
    "--budget",
    type=click.IntRange(min=1),
    default=None,
    help="Worlds the hard level samples per move: the same seed then gives the same "
    "choices on any machine (the thinking time still caps each move).",
)
def bot(stdio: bool, level: str, seed: str, budget_ms: float | None, budget: int | None) -> None:
    """Run a builtin bot as an external program (see docs/bots.md for the protocol).

    Reads one JSON observation per line and writes one JSON action per line.
    """
    if not stdio:
        raise click.UsageError(_("Only the --stdio protocol is available: run zsy bot --stdio."))
    options: dict[str, Any] = {}
    if budget_ms is not None and level == "hard":
        options["budget_ms"] = budget_ms
    if budget is not None and level == "hard":
        options["budget"] = budget
    serve(level, seed, sys.stdin, sys.stdout, options)
