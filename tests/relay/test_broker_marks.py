"""Issue #17: "The table shows which links go through the relay and their round-trip times."

Without asking (the ``links`` command aside): a seat reached through the relay
is marked ``⇄ relay 12 ms`` (``<> relay 12 ms`` under ``--ascii``) on its
line in the line mode and in its panel in the full screen. A table whose links
are all direct, or without a relay, looks exactly as before.

The session is a local table (``LocalTable``, no network) given the ``mesh`` of
a real pair of meshes on loopback, linked through the relay (``zsy relay``'s own MQTT
broker, issue #29; seat 1 is the other mesh) or directly.
"""

from __future__ import annotations

import re

import pytest
from test_broker_paths import pair
from test_mqtt_link import until

from zsy_lan.engine.choices import to_act
from zsy_lan.engine.ruleset import build_rules
from zsy_lan.table.local_table import LocalTable
from zsy_lan.table.relay_join import relay_marks
from zsy_lan.ui.line_mode import render
from zsy_lan.ui.render import Style
from zsy_lan.ui.screen import ScreenOptions, TableApp, seat_lines

pytestmark = [pytest.mark.timeout(60)]


def _first(rules, view, seat):
    from zsy_lan.engine.round import legal_actions

    return legal_actions(rules, view, seat)[0]


def _table(tmp_path) -> LocalTable:
    rules = build_rules(4, [])
    nicks = {s: f"bot-{s}" for s in range(1, 4)} | {0: "you"}
    return LocalTable(
        rules,
        1,
        0,
        {s: _first for s in range(1, 4)},
        tmp_path / "rec.jsonl",
        seed="s1",
        nicks=nicks,
    )


async def _started(table: LocalTable) -> None:
    table.start()
    assert await until(lambda: table.game.view(0) is not None)


def _seat_line(lines: list[str], seat: int) -> str:
    return next(line for line in lines if re.match(rf"[> ] seat {seat} ", line))


@pytest.mark.asyncio
async def test_the_line_mode_marks_a_seat_reached_through_the_relay(
    zsy_broker, make_mesh, tmp_path
):
    a, _b = await pair(zsy_broker.port, make_mesh, direct=False)
    assert await until(lambda: a.link_report()[1][1] is not None)  # the relay's RTT is known
    table = _table(tmp_path)
    try:
        await _started(table)
        table.mesh = a  # type: ignore[attr-defined]
        lines = render(table, Style(ascii_suits=True))
        table.mesh = None  # type: ignore[attr-defined]  # the same moment, no relay
        before = render(table, Style(ascii_suits=True))
        assert "relay" not in "\n".join(before)
        line = _seat_line(lines, 1)
        assert re.search(r"seat 1 \(bot-1 \[bot\]\) \[<> relay \d+ ms\]:", line), line
        assert re.sub(r" \[<> relay \d+ ms\]", "", line) == _seat_line(before, 1)
        for s in (0, 2, 3):  # not linked through the relay: unmarked, as before
            assert _seat_line(lines, s) == _seat_line(before, s)
        assert "\u21c4" not in "\n".join(lines)  # --ascii: no arrow outside ASCII
        table.mesh = a  # type: ignore[attr-defined]
        unicode = render(table, Style())
        assert re.search(r"\[\u21c4 relay \d+ ms\]", _seat_line(unicode, 1))
    finally:
        await table.close()


@pytest.mark.asyncio
async def test_a_table_whose_links_are_direct_looks_as_before(zsy_broker, make_mesh, tmp_path):
    a, _b = await pair(zsy_broker.port, make_mesh, direct=True)  # relay attached, link direct
    assert a.relay is not None and a.link_report()[1][0] == "direct"
    table = _table(tmp_path)
    try:
        await _started(table)
        before = render(table, Style())
        panel = seat_lines(table, 1, Style())
        table.mesh = a  # type: ignore[attr-defined]
        assert relay_marks(table) == {}
        assert render(table, Style()) == before
        assert seat_lines(table, 1, Style()) == panel
    finally:
        await table.close()


def _panel(app: TableApp, seat: int) -> str:
    """A seat panel's text as one line: the panel wraps where its width ends, and where that
    falls depends on what else the state line holds (``to act`` when the bot is to move)."""
    return " ".join(str(app.query_one(f"#seat{seat}").render()).split())


@pytest.mark.asyncio
async def test_the_full_screen_seat_panel_marks_the_relayed_seat(zsy_broker, make_mesh, tmp_path):
    a, _b = await pair(zsy_broker.port, make_mesh, direct=False)
    assert await until(lambda: a.link_report()[1][1] is not None)
    table = _table(tmp_path)
    table.mesh = a  # type: ignore[attr-defined]
    table.info.deal_mode = "open"  # a seat reached through a relay is a peer's, not zsy play's
    app = TableApp(table, Style(ascii_suits=True), None, ScreenOptions(clock=lambda: 0.0))
    try:
        async with app.run_test(size=(100, 30)) as pilot:
            await _started(table)
            for _i in range(100):
                await pilot.pause(0.02)
                if "relay" in _panel(app, 1):
                    break
            panel = _panel(app, 1)
            assert re.search(r"connected.*<> relay \d+ ms", panel), panel
            for s in (2, 3):
                assert "relay" not in _panel(app, s)
            # the table now waits for seat 0 (nothing changes there); the link's round trip
            # does, and the panel follows it within the second (it showed 45 ms while
            # ``links`` said 10.5)
            assert await until(lambda: to_act(table.game.view(0), 0))
            view = table.game.view(0)
            real = a.link_report
            a.link_report = lambda: {**real(), 1: ("relay", 0.0777)}  # type: ignore[method-assign]
            for _i in range(150):
                await pilot.pause(0.02)
                if "relay 78 ms" in _panel(app, 1):
                    break
            assert "<> relay 78 ms" in _panel(app, 1)
            assert table.game.view(0) == view  # nothing happened at the table meanwhile
    finally:
        await table.close()
