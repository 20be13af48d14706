"""``zsy selfplay`` says which round was a deciding round (ZSY-8.5 D), and between whom."""

from __future__ import annotations

import json

from click.testing import CliRunner

from zsy_lan.cli import cli


def _selfplay(*args: str):
    res = CliRunner().invoke(
        cli, ["--lang", "en", "selfplay", "--players", "4", "--rounds", "2", *args],
        catch_exceptions=False,
    )
    assert res.exit_code == 0, res.output
    return res.output


def test_the_deciding_round_is_named_with_the_tied_seats():
    got = json.loads(_selfplay("--seed", "1", "--json"))
    tied = got["deciding"]
    assert len(tied) == got["rounds"] == 3 and tied[:2] == [[], []]  # two rounds, then a tie
    assert tied[2] == sorted(s for s in range(4) if got["upstreams"][s] == max(got["upstreams"]))
    assert got["winners"][0] in tied[2]
    lines = [x for x in _selfplay("--seed", "1").splitlines() if x.startswith("round ")]
    seats = " ".join(map(str, tied[2]))
    assert lines[2].startswith(f"round 3, deciding round between seats {seats} (ZSY-8.5): ")
    assert all("deciding" not in x for x in lines[:2])


def test_a_match_without_a_tie_has_no_deciding_round():
    got = json.loads(_selfplay("--seed", "2", "--json"))
    assert got["deciding"] == [[]] * got["rounds"]
