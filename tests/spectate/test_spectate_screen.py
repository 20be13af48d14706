"""The spectator's full screen (zsy_lan/ui/watch_screen.py): a pilot test of its keys and
what it shows (every seat, the trick, the log, no hand), and one SVG snapshot.

Deterministic: the record is a local table's (fixed seed, bots only), followed by the
spectator's own verifier up to a point in the first round; no network, no clock."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from local_support import followed, play_out
from textual.widgets import RichLog, Static

from zsy_lan.cli.watch_cmds import answer
from zsy_lan.engine.ruleset import build_rules
from zsy_lan.table.follower import Teller
from zsy_lan.table.local_table import make_local_table
from zsy_lan.ui.render import Style
from zsy_lan.ui.screen import TextOverlay
from zsy_lan.ui.watch_screen import WatchApp, WatchSession

CUT = 20  # record lines followed: the first round under way


async def _record(path: Path) -> list[str]:
    """A local match of bots (fixed seed) with one quick phrase before the first move."""
    table = make_local_table(build_rules(4), 1, 0, "easy", path, seed="watch-screen",
                             me="alice", bot_chat=False)
    await play_out(table, lambda t: t.chat(":luck"))
    return path.read_text().splitlines()


def _watching(lines: list[str]) -> tuple[WatchApp, WatchSession]:
    """A session fed as watch_table feeds it: the follower after a batch, the told lines."""
    session = WatchSession()
    f = followed(lines, CUT)
    for text in Teller(f).new_lines():
        session.show(text)
    session.follow(f)
    style = Style(ascii_suits=False, color=True)
    app = WatchApp(session, style, lambda word: answer(word, session.follower, style))
    return app, session


@pytest.mark.asyncio
@pytest.mark.timeout(60)
async def test_the_spectator_screen_shows_every_seat_and_no_hand_and_q_stops(tmp_path):
    app, session = _watching(await _record(tmp_path / "r.jsonl"))
    async with app.run_test(size=(100, 30)) as pilot:
        for _i in range(50):
            await pilot.pause(0.02)
            if app.query("#seat3"):
                break
        await pilot.pause()
        panels = [str(app.query_one(f"#seat{s}", Static).render()) for s in range(4)]
        assert panels[0].startswith("alice") and panels[1].startswith("easy-1 [bot]")
        assert all("cards" in p or "card" in p for p in panels)  # counts, every seat
        centre = app.query_one("#centre", Static)
        assert centre.border_title.startswith("local: Round 1")
        watching = str(app.query_one("#watching", Static).render())
        assert "spectator" in watching and "no hand" in watching and "public" in watching
        assert not app.query("HandView")  # nothing to select, nothing to play
        log = "\n".join(line.text for line in app.query_one("#log", RichLog).lines)
        assert "Round 1 dealt" in log and "» alice: Good luck, have fun!" in log
        await pilot.press("w")  # who sits where
        await pilot.pause()
        assert isinstance(app.screen, TextOverlay)
        assert any("seat 1: easy-1 (bot)" in line for line in app.screen.lines)
        await pilot.press("escape")
        await pilot.pause()
        session.ended = "Stopped watching (match over). Press q to leave."
        session.changed.set()
        await pilot.pause(0.1)
        assert "Stopped watching (match over)" in str(centre.render())
        await pilot.press("q")
        await pilot.pause()
    assert app.return_value == "quit"


def test_spectator_screen_snapshot(snap_compare, tmp_path):
    lines = asyncio.new_event_loop().run_until_complete(_record(tmp_path / "r.jsonl"))
    app, _session = _watching(lines)

    async def settle(pilot) -> None:
        for _i in range(50):
            await pilot.pause(0.02)
            if app.query("#seat3"):
                break
        await pilot.pause()

    assert snap_compare(app, terminal_size=(80, 24), run_before=settle)


@pytest.mark.slow
@pytest.mark.asyncio
@pytest.mark.timeout(110)
async def test_zsy_watch_full_screen_follows_a_live_table_to_the_end(tmp_path):
    """The screen as zsy watch runs it (headless here): watch_table feeds the session, the
    seats and the log follow the live table, the end is said and q leaves."""
    import sys

    sys.path.insert(0, str(Path(__file__).parent))
    from spectate_support import LO, bot_table

    from zsy_lan.table.watch import watch_table
    from zsy_lan.ui.watch_screen import run_watch_screen

    table = await bot_table(tmp_path, deal="private", spectators="open", rounds=1)
    style = Style(ascii_suits=False, color=False)
    seen: dict[str, object] = {}

    async def run(app: WatchApp) -> None:
        async def leave_at_the_end() -> None:
            for _i in range(900):
                await asyncio.sleep(0.1)
                if app.session.ended:
                    break
            for _i in range(250):  # the screen says the end once it has drawn it
                centre = str(app.query_one("#centre", Static).render())
                if "Stopped watching" in centre:
                    break
                await asyncio.sleep(0.02)
            seen["panels"] = [str(app.query_one(f"#seat{s}", Static).render()) for s in range(4)]
            seen["log"] = [line.text for line in app.query_one("#log", RichLog).lines]
            seen["centre"] = str(app.query_one("#centre", Static).render())
            app.action_leave()

        task = asyncio.create_task(leave_at_the_end())
        await app.run_async(headless=True, size=(100, 30))
        task.cancel()

    try:
        outcome = await asyncio.wait_for(run_watch_screen(
            lambda session, stop: watch_table(table.endpoint, table.curve, "bob", LO,
                                              show=session.show, on_batch=session.follow,
                                              stop=stop),
            style, lambda word, f: answer(word, f, style), run=run), 100)
    finally:
        await table.close()
    assert outcome is not None and outcome.ok and outcome.why == "match over"
    log = seen["log"]
    assert log[0].startswith("Watching table 'watched'")  # the log wraps long lines
    assert any("Match over. Winner:" in line for line in log)
    assert "Stopped watching (match over). Press q to leave." in seen["centre"]
    assert seen["panels"][0].startswith("host")
