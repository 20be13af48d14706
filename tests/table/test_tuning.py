"""The waits a table process reads from its environment (zsy_lan/table/tuning.py): what tests
of real processes use to shorten them; a value it cannot read keeps the default."""

from __future__ import annotations

import logging

from zsy_lan.protocol.timing import Timing
from zsy_lan.table.peer import table_timing
from zsy_lan.table.tuning import env_seconds


def test_seconds_from_the_environment_or_the_default(monkeypatch, caplog):
    monkeypatch.delenv("ZSY_X", raising=False)
    assert env_seconds("ZSY_X", 2.0) == 2.0
    monkeypatch.setenv("ZSY_X", "0.25")
    assert env_seconds("ZSY_X", 2.0) == 0.25
    monkeypatch.setenv("ZSY_X", "-3")
    assert env_seconds("ZSY_X", 2.0, floor=0.05) == 0.05
    monkeypatch.setenv("ZSY_X", "soon")
    with caplog.at_level(logging.WARNING, "zsy.table"):
        assert env_seconds("ZSY_X", 2.0) == 2.0
    assert "ignoring ZSY_X='soon'" in caplog.text


def test_the_table_timing_takes_named_fields_and_the_hold(monkeypatch, caplog):
    monkeypatch.setenv("ZSY_TIMING", "heartbeat=0.25, want_retry=0.1")
    monkeypatch.setenv("ZSY_HOLD_AFTER", "3")
    timing = table_timing(None)
    assert (timing.heartbeat, timing.want_retry, timing.hold_after) == (0.25, 0.1, 3.0)
    assert timing.peer_timeout == Timing().peer_timeout  # the fields not named keep theirs
    for junk in ("heartbeat", "heartbeat=fast", "heartbeet=0.25"):
        monkeypatch.setenv("ZSY_TIMING", junk)
        with caplog.at_level(logging.WARNING, "zsy.table"):
            assert table_timing(None).heartbeat == Timing().heartbeat, junk
        assert f"ignoring ZSY_TIMING={junk!r}" in caplog.text
