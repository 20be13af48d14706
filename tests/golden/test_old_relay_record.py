"""A record written at a table that used the home-made relay still verifies (issue #29).

``old-relay/`` is one seat's table folder from a private-deal match played through
``zsy relay --legacy`` before that relay was removed (three seats on loopback, the join
line ``...,relay=zsy-relay://...,table=c6636b4f0395``): its record, roster and the saved
relay line. The relay never was part of what is signed, so removing it changes nothing
there; this file keeps it so.
"""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from zsy_lan.cli import cli
from zsy_lan.record.replay import replay_file

FOLDER = Path(__file__).parent / "old-relay"


def test_a_record_made_through_the_old_relay_verifies():
    report = replay_file(FOLDER / "transcript.jsonl")
    assert report.ok and report.finished, report.verdict()
    result = CliRunner().invoke(
        cli, ["--lang", "en", "replay", "--verify", str(FOLDER / "transcript.jsonl")]
    )
    assert result.exit_code == 0, result.output
    assert "OK: 77 messages verified (finished match); head cd4ba1d322220101" in result.output
    assert (FOLDER / "relay.url").read_text().startswith("zsy-relay://")  # made before
