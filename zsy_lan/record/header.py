"""The game a table record plays: line 1 of a transcript file, written and read back.

The protocol's header (:func:`zsy_lan.protocol.transcript.header_line`) names
the table and its roster; a table's record also carries the game it plays
(config, match length, nicks, bots, deal), so ``zsy replay`` and ``zsy
retell`` rebuild the rules from the file alone. Why a module of its own: the
network peer writes this header, the local table writes it, and the record
readers parse it; none of them should import the others (``replay`` used to
import the whole peer for these two functions).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from zsy_lan.engine.rules import Rules
from zsy_lan.engine.ruleset import rules_from_config
from zsy_lan.protocol.canonical import canonical, decode
from zsy_lan.protocol.lobby import Roster

__all__ = ["game_from_header", "roster_misfit", "transcript_header"]


def transcript_header(roster: Roster) -> str:
    """Line 1 of a transcript file: the protocol's header plus the game it plays.

    ``zsy replay`` rebuilds the rules and match length from ``game`` so the
    file is self-contained. The host's table settings (clock, assists) are
    there only when they differ from the defaults, so older headers read the same.
    """
    game = {
        "config": roster.config,
        "rounds": roster.rounds,
        "name": roster.name,
        "deal": roster.deal,
        "nicks": {str(s.seat): s.nick for s in roster.seats},
        "bots": [s.seat for s in roster.seats if s.bot],
    }
    if not roster.settings.is_default:
        game["settings"] = roster.settings.to_json()
    return canonical(
        {
            "zsy_transcript": 1,
            "table": roster.table,
            "roster": {str(s.seat): s.key.hex() for s in roster.seats},
            "game": game,
        }
    ).decode()


def game_from_header(line: str) -> tuple[Rules, int, dict[str, Any]]:
    """Rules, rounds and the game block of a transcript header."""
    obj = decode(line.strip().encode())
    if not isinstance(obj, dict) or not isinstance(obj.get("game"), dict):
        raise ValueError("the transcript header has no game description (not a zsy table file?)")
    g = obj["game"]
    return rules_from_config(g["config"]), int(g["rounds"]), g


def roster_misfit(rules: Rules, roster: Mapping[int, bytes]) -> str | None:
    """Why a header's roster cannot seat its own game (``None``: it can).

    Both halves are the header's, which no seat signs: a roster of another size than
    the game's players is a damaged header, whichever half was edited, and names nobody
    (``zsy replay``, ``zsy history`` and a spectator say it alike).
    """
    seats = sorted(roster)
    if seats == list(range(rules.players)):
        return None
    return (
        f"the header's roster has {len(seats)} seats, but its game is for "
        f"{rules.players} players"
    )
