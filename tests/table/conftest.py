"""Fixtures for the table tests: a cluster of zsy processes that is always killed."""

from __future__ import annotations

import pytest
from table_support import Cluster


@pytest.fixture
def cluster(tmp_path):
    c = Cluster(tmp_path)
    try:
        yield c
    finally:
        c.close()
        leftovers = [p.name for p in c.procs if p.alive()]
        assert not leftovers, f"processes left running: {leftovers}"
