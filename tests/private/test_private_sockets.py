"""A whole match with the private deal over real sockets: `zsy demo`'s default.

Every seat is a real TablePeer (own identity, CURVE-encrypted ZeroMQ on
127.0.0.1, own replica and store); the demo passes only when all finish with
the same transcript head and every record re-verifies with `zsy replay`
(which, as an observer, re-runs each round's audit). The on-disk files are
then searched: nothing but the deal's own messages carries card points, and
every round was audited.
"""

from __future__ import annotations

import asyncio
import json

import pytest

from zsy_lan.engine.ruleset import build_rules
from zsy_lan.record.replay import replay_file
from zsy_lan.table.demo import run_demo


# zsy demo's joiners find the host by its name through mDNS on 127.0.0.1: one medium for
# both xdist workers, so this runs in the "mdns" group (one such test at a time); the mDNS
# probing and browsing are most of its 6 s
@pytest.mark.slow
@pytest.mark.xdist_group("mdns")
def test_private_demo_over_loopback(tmp_path):
    rules = build_rules(4, [], {})
    lines: list[str] = []
    ok = asyncio.run(run_demo(rules, 1, tmp_path, "easy", echo=lines.append))
    assert ok, "\n".join(lines)
    assert any("private deal" in line for line in lines)
    for seat in range(4):
        path = tmp_path / f"seat-{seat}.jsonl"
        header = json.loads(path.read_text().splitlines()[0])
        assert header["game"]["deal"] == "private"
        report = replay_file(path)
        assert report.ok, report.verdict()
        assert any("audit passed" in n for n in report.narration)
        journal = (tmp_path / "state" / f"seat-{seat}" / "journal.jsonl").read_text()
        assert '"deal/1"' in journal  # the per-deal secret, fsynced before the commit
