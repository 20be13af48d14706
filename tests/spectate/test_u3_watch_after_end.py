"""``zsy watch`` reads the last words said after the match's end (session 8, U3, optional).

Chat said after the last move (gg, "another match?") is in the host's record after the
last chain line; a spectator that stopped at the match's end never saw it. With
``after_end`` (``zsy watch`` passes ``AFTER_END``) it reads on until the host's ``bye``,
bounded; with 0 (the default, for in-process callers that close the host themselves) it
stops at the last move. The host's link is a stand-in feeding a real record's batches.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from zsy_lan.engine.ruleset import build_rules  # noqa: E402
from zsy_lan.protocol import Identity  # noqa: E402
from zsy_lan.table.local_table import make_local_table  # noqa: E402
from zsy_lan.table.watch import _follow  # noqa: E402
from zsy_lan.table.watch_frames import seal_watch  # noqa: E402

pytestmark = [pytest.mark.timeout(60)]


async def _record_with_last_words(path: Path) -> tuple[list[str], int]:
    """A bots' match, then two lines said after its last move; the record's lines and the
    index of the first line after its last chain line."""
    table = make_local_table(build_rules(4), 1, 0, "easy", path, seed="u3-tail", me="alice",
                             bot_chat=False)
    table.start()
    try:
        await asyncio.wait_for(table.run_bots_only(), 60)
        assert table.game.finished()
        table._pump([(2, table.replicas[2].chat({"phrase": "gg"}, 0.0))])
        await table.chat("another match?")
    finally:
        await table.close()
    lines = path.read_text().splitlines()
    tail = max(i for i, line in enumerate(lines) if i > 0 and '"aside"' not in line) + 1
    assert len(lines) - tail >= 2, "the last words are not after the last move"
    return lines, tail


def _batch(host: Identity, lines: list[str], at: int) -> bytes:
    return seal_watch(host, "lines", {"at": at, "lines": lines})


class _Link:
    """The host's link as ``_follow`` uses it: up, the given frames one by one, then quiet."""

    def __init__(self, frames: list[bytes]) -> None:
        self.frames = list(frames)

    def is_connected(self, peer_id: object) -> bool:
        return True

    async def send(self, peer_id: object, frame: bytes, timeout: float | None = None) -> bool:
        return True

    async def recv(self) -> tuple[object, bytes]:
        if not self.frames:
            await asyncio.Event().wait()  # the host says nothing more
        await asyncio.sleep(0.01)
        return 0, self.frames.pop(0)


async def _frames(tmp_path: Path, bye: bool) -> tuple[Identity, list[bytes]]:
    lines, tail = await _record_with_last_words(tmp_path / "r.jsonl")
    host = Identity.generate()
    head, rest = lines[:tail], lines[tail:]
    at = sum(len(line.encode("utf-8")) + 1 for line in head)
    frames = [_batch(host, head, 0), _batch(host, rest, at)]
    if bye:
        frames.append(seal_watch(host, "bye", {"reason": "match over"}))
    return host, frames


async def _watch(tmp_path: Path, bye: bool, **after_end: float):  # type: ignore[no-untyped-def]
    """Follow the record (and the bye, if said) through a stand-in link: the outcome, the
    link (what it still holds was never read) and the lines told."""
    host, frames = await _frames(tmp_path, bye)
    link = _Link(frames)
    said: list[str] = []
    outcome = await asyncio.wait_for(
        _follow(link, Identity.generate(), host.public_key, said.append, None, None, None,  # type: ignore[arg-type]
                10.0, **after_end),
        20,  # a bound of the test; the watch's own bound (after_end) is far below it
    )
    return outcome, link, said


@pytest.mark.asyncio
async def test_the_last_words_are_told_and_the_bye_ends_the_watch(tmp_path):
    outcome, link, said = await _watch(tmp_path, bye=True, after_end=30.0)
    assert outcome.ok and outcome.why == "match over", said[-3:]
    assert link.frames == []  # it read on to the bye
    over = next(i for i, s in enumerate(said) if s.startswith("Match over. Winner:"))
    words = [i for i, s in enumerate(said) if "Good game!" in s or "another match?" in s]
    assert len(words) == 2 and min(words) > over, said[over:]
    assert any("last words follow" in s for s in said[over:])


@pytest.mark.asyncio
async def test_by_default_the_watch_stops_at_the_last_move(tmp_path):
    outcome, link, said = await _watch(tmp_path, bye=True)
    assert outcome.ok and outcome.why == "match over"
    assert len(link.frames) == 2  # the last words and the bye were never read
    assert not any("another match?" in s for s in said)


@pytest.mark.asyncio
async def test_a_host_that_never_says_bye_is_left_after_the_bound(tmp_path):
    outcome, link, said = await _watch(tmp_path, bye=False, after_end=0.5)  # 0.5 s ends it
    assert outcome.ok and outcome.why == "match over"
    assert any("another match?" in s for s in said)
