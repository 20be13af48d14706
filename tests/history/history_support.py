"""Real records for the history tests: matches played out in memory by bots, with chosen keys.

A :class:`~zsy_lan.table.local_table.LocalTable` signs and records every message
exactly as a table of peers does (the record passes ``zsy replay --verify``);
here its seats get identities the test chose, so the same players meet again
across matches, and the record is filed where a peer files its own
(``profiles/NAME/tables/TABLE/transcript.jsonl``).
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from unittest import mock

from local_support import play_out_now

from zsy_lan.engine.ruleset import build_rules
from zsy_lan.protocol.identity import Identity
from zsy_lan.record.store import save_identity
from zsy_lan.table import local_table as local_session


@dataclass(frozen=True)
class Played:
    """A match played for a test: its record and what the table itself knew."""

    record: Path
    table: str
    keys: tuple[str, ...]  # per seat, hex
    winners: tuple[int, ...]
    totals: tuple[int, ...]


def play(
    record: Path,
    identities: Sequence[Identity],
    *,
    variants: Sequence[str] = (),
    options: dict[str, object] | None = None,
    rounds: int = 1,
    seed: str = "h",
    nicks: dict[int, str] | None = None,
    name: str = "test table",
) -> Played:
    """Play a whole match between ``identities`` (seat order) with easy bots; bounded (60 s)."""
    rules = build_rules(len(identities), list(variants), options)
    pool = iter(identities)
    stub = SimpleNamespace(generate=lambda: next(pool))
    bots = {s: _easy(s, seed) for s in range(1, len(identities))}
    with mock.patch.object(local_session, "Identity", stub):
        table = local_session.LocalTable(
            rules, rounds, 0, bots, record, seed=seed,
            nicks=nicks or {s: f"p{s}" for s in range(len(identities))}, name=name,
        )

    play_out_now(table)
    match = table.game.match
    return Played(
        record=record,
        table=table.roster.table,
        keys=tuple(i.public_key.hex() for i in identities),
        winners=tuple(match.winners),
        totals=tuple(match.totals),
    )


def _easy(seat: int, seed: str):
    from zsy_lan.bots.registry import make_bot

    return make_bot("easy", f"{seed}:{seat}").act


def file_as_seat(root: Path, profile: str, played: Played, *, name: str = "transcript.jsonl",
                 sub: str = "") -> Path:
    """Put a record where a peer of ``profile`` keeps its seat's record (and mark it done)."""
    folder = root / "profiles" / profile / "tables" / played.table
    if sub:
        folder = folder / sub
    folder.mkdir(parents=True, exist_ok=True)
    dest = folder / name
    shutil.copyfile(played.record, dest)
    (folder / "done").write_text("finished\n")
    return dest


def give_profile(root: Path, profile: str, identity: Identity) -> None:
    """The profile's identity file, as ``zsy host``/``join`` would have made it."""
    save_identity(identity, root / "profiles" / profile / "identity.pem")


def tamper(path: Path) -> None:
    """Change one byte inside a signed frame in the middle of the record."""
    lines = path.read_text().splitlines()
    i = len(lines) // 2
    obj = json.loads(lines[i])
    frame = obj["frame"]
    j = len(frame) // 2
    swap = "A" if frame[j] != "A" else "B"
    lines[i] = lines[i].replace(frame, frame[:j] + swap + frame[j + 1 :])
    path.write_text("\n".join(lines) + "\n")
