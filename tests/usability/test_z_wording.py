"""Small wording leftovers a tester found at real tables (brief Z, part 3)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parents[1] / "ui"))
from test_peer_narration import _drain, _peer  # noqa: E402  (the narration tests' own peer)

from zsy_lan.protocol import Stalled  # noqa: E402

pytestmark = [pytest.mark.timeout(60)]


@pytest.mark.parametrize("what", ["a move", "its shuffle step"])
def test_a_wait_is_one_sentence_without_double_parentheses(tmp_path, what):
    """"waiting for seat 3 (Bob) (a move) since ...": the nick's parentheses and the
    owed thing's stood side by side. A move reads "to move"; anything else is said once."""
    peer = _peer(tmp_path)
    peer._handle([Stalled(2, what)])
    told = [t for t in _drain(peer.notices) if "seat 2 (p2)" in t]
    assert len(told) == 1
    assert ") (" not in told[0]
    if what == "a move":
        assert told[0].startswith("waiting for seat 2 (p2) to move, since ")
    else:
        assert told[0].startswith("waiting for its shuffle step from seat 2 (p2), since ")
