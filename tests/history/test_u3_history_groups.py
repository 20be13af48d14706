"""``zsy history`` (issue #26): a host's bots are one row per level in ``--opponents``,
and a quit table is one entry in ``--all`` however many seats' records it left.

A host's bot gets a key made for its table (``zsy host --bots``), so tallying bots by
key gave one ``bot:normal`` row per bot per table; a lasting key keeps its own row.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

sys.path.insert(0, str(Path(__file__).parent))

from history_support import file_as_seat, give_profile, play  # noqa: E402

from zsy_lan.cli import cli  # noqa: E402
from zsy_lan.protocol.identity import Identity  # noqa: E402

pytestmark = [pytest.mark.timeout(120)]
P = "host"


def _run(root: Path, *args: str):
    res = CliRunner().invoke(
        cli, ["--lang", "en", "history", "--data-dir", str(root), "--profile", P, *args],
        catch_exceptions=False,
    )
    assert res.exit_code == 0, res.output
    return res


@pytest.fixture(scope="module")
def tables(tmp_path_factory):
    """Two tables of the host with two fresh ``bot:normal`` keys each, and a human, eve.

    The lobby tells two bots of a level apart with a suffix: ``bot:normal-2`` (seen by hand).
    """
    d = tmp_path_factory.mktemp("u3h")
    me, eve = Identity.generate(), Identity.generate()
    out = []
    for n in range(2):
        bots = [Identity.generate(), Identity.generate()]
        nicks = {0: "host", 1: "bot:normal", 2: "bot:normal-2", 3: "eve"}  # as the lobby names
        out.append(play(d / f"t{n}.jsonl", [me, *bots, eve], seed=f"u3-{n}", nicks=nicks))
    return me, eve, out


def test_the_bots_of_a_level_are_one_row(tmp_path, tables):
    me, eve, played = tables
    root = tmp_path / "data"
    give_profile(root, P, me)
    for g in played:
        file_as_seat(root, P, g)
    rows = json.loads(_run(root, "--json", "--opponents").stdout)
    bots = [r for r in rows if r["nick"].startswith("bot:normal")]
    assert len(bots) == 1, rows  # not four rows: two tables of two bots
    (row,) = bots
    assert row["games"] == 2 and row["seats"] == 4 and row["key"] is None
    assert row["wins"] + row["losses"] + row["ties"] == 4
    # eve's key lasts: still her own row (the LocalTable's header calls her a bot too)
    assert [r["games"] for r in rows if r["key"] == eve.public_key.hex()] == [2]
    text = _run(root, "--opponents").output
    assert text.count("bot:normal") == 1
    assert "bot:normal: 2 matches, 4 bot seats; you finished ahead of them in " in text


def test_a_quit_table_is_listed_once(tmp_path, tables):
    """The host's seat and its bot seats left records of one unfinished table: one entry."""
    me, _eve, played = tables
    root = tmp_path / "data"
    give_profile(root, P, me)
    g = played[0]
    lines = g.record.read_text().splitlines()
    folder = root / "profiles" / P / "tables" / g.table
    for sub, cut in (("", 2), ("bot-seat-1", 3), ("bot-seat-2", 4)):
        dest = folder / sub / "transcript.jsonl"
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_text("\n".join(lines[: len(lines) * cut // 6]) + "\n")
    rows = json.loads(_run(root, "--json", "--all").stdout)
    assert [r["status"] for r in rows] == ["unfinished"]
    assert rows[0]["record"] == str(folder / "transcript.jsonl")  # the host's own copy
    assert _run(root, "--all").output.count("unfinished match, not a result") == 1
    assert "1 unfinished match is not a result" in _run(root).output
