"""What a new user met in ``zsy watch`` (U2's findings 1, 3, 15, 16, 17, session 7).

1: the full screen's title said ``?: Watching`` while the host had not let the spectator in;
3: a watch line copied with the host's closing bracket was not taken (``zsy join`` takes it);
15: ``zsy watch --plain`` did not wrap its lines to the terminal (a seat's line mode does);
16: ``say hi`` was answered "A spectator does not play" (it was chat);
17: after a round ended, ``table`` still warned "1 card LEFT!" of a seat that could no
longer play. Deterministic: local bot matches with fixed seeds; no network, no clock.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from click.testing import CliRunner
from local_support import followed, play_out
from textual.widgets import Static

from zsy_lan.cli import cli as zsy
from zsy_lan.cli.watch_cmds import answer
from zsy_lan.engine.ruleset import build_rules
from zsy_lan.table.follower import Follower
from zsy_lan.table.local_table import make_local_table
from zsy_lan.table.reach import TableError
from zsy_lan.ui.render import Style, line_printer, text_width, wrap
from zsy_lan.ui.watch_screen import WatchApp, run_watch_screen

pytestmark = [pytest.mark.timeout(120)]

STYLE = Style(ascii_suits=False, color=False)


async def _record(path: Path, seed: str, rounds: int = 2) -> list[str]:
    table = make_local_table(build_rules(4), rounds, 0, "easy", path, seed=seed, me="alice",
                             bot_chat=False)
    await play_out(table)
    return path.read_text().splitlines()


# --- 16 -----------------------------------------------------------------------------------


@pytest.mark.parametrize("typed", ["say hi", "chat hello", ":gg", "phrases", "mute 2"])
def test_chat_typed_by_a_spectator_is_answered_as_chat(typed: str) -> None:
    said = answer(typed, None, STYLE)
    assert said == [
        "A spectator does not chat (docs/spectators.md): type table, who or q (stops watching)."
    ]


def test_a_play_typed_by_a_spectator_is_still_answered_as_a_play(tmp_path) -> None:
    lines = asyncio.run(_record(tmp_path / "r.jsonl", "w1-words", rounds=1))
    follower = followed(lines, 10)
    assert answer("3 3", follower, STYLE) == [
        "A spectator does not play: type table, who or q (stops watching)."
    ]
    assert answer("pass", follower, STYLE) == [
        "A spectator does not play: type table, who or q (stops watching)."
    ]


# --- 17 -----------------------------------------------------------------------------------


def test_table_after_the_round_ended_warns_of_no_last_card(tmp_path) -> None:
    """At every round's end (phase done) no seat is said to have 'LEFT!' cards, while the
    same count during the round still warns (the warning is for a seat that still plays)."""
    lines = asyncio.run(_record(tmp_path / "r.jsonl", "w1-last-card", rounds=3))
    follower = Follower(lines[0])
    ends, warned_in_play = 0, 0
    for line in lines[1:]:
        follower.add(line)
        view = follower.game.view(0)
        if view is None:
            continue
        table = "\n".join(answer("table", follower, STYLE))
        if view.phase == "done":
            ends += 1
            assert "LEFT!" not in table, table
            low = [n for n in view.counts if 0 < n <= 2]
            for n in low:  # the count is still there, without the warning
                assert (f"{n} card" if n == 1 else f"{n} cards") in table
        elif any(0 < n <= 2 for n in view.counts) and view.phase == "play":
            warned_in_play += 1
            assert "LEFT!" in table
    assert ends >= 1 and warned_in_play >= 1


# --- 15 -----------------------------------------------------------------------------------


def test_the_plain_watch_wraps_its_lines_like_a_seat_s_line_mode() -> None:
    out: list[str] = []
    style = Style(ascii_suits=False, color=False, width=40)
    say = line_printer(style, out.append)
    text = (
        "Du schaust am Tisch „w1t“ (verdecktes Geben) als Zuschauer zu: du siehst, was jeder "
        "Platz öffentlich sieht, nie ein Blatt. Tippe table für den Tisch, quit zum Aufhören."
    )
    say(text)
    assert len(out) > 1 and all(text_width(line) <= 40 for line in out), out
    assert out == wrap(text, 40)  # the seats' own wrap, not a copy
    assert " ".join(part.strip() for part in out) == text  # no word cut or lost


def test_plain_watch_says_suits_as_words_like_a_plain_seat() -> None:
    out: list[str] = []
    style = Style(ascii_suits=False, color=False, width=80)
    style.suit_words = True
    line_printer(style, out.append)("seat 1 (bob): 10♠ (12 left)")
    assert "♠" not in out[0] and "spades" in out[0]


# --- 3 ------------------------------------------------------------------------------------


@pytest.mark.parametrize("tail", [")", ").", "'", '"', "]"])
def test_zsy_watch_takes_a_line_copied_with_the_host_s_bracket(monkeypatch, tail: str) -> None:
    import zsy_lan.table.watch as spectate

    seen: list[str] = []

    def split(target: str):
        seen.append(target)
        raise TableError("stop here")

    monkeypatch.setattr(spectate, "split_watch_target", split)
    url = "tcp://127.0.0.1:40123#" + "A" * 43
    result = CliRunner().invoke(zsy, ["watch", "--plain", url + tail])
    assert seen == [url], (seen, result.output)
    assert "stop here" in result.output


# --- 1 ------------------------------------------------------------------------------------


@pytest.mark.asyncio
@pytest.mark.parametrize("typed,title", [("", "Watching"), ("friday", "friday: Watching")])
async def test_the_screen_s_title_while_asking_names_no_question_mark(typed, title) -> None:
    """Before the host lets the spectator in: the NAME typed, or just 'Watching'."""
    seen: dict[str, str] = {}

    async def asking(session, stop: asyncio.Event) -> None:
        await stop.wait()  # the host has not answered yet

    async def run(app: WatchApp) -> None:
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.pause()
            seen["title"] = str(app.query_one("#centre", Static).border_title)
            app.action_leave()

    await asyncio.wait_for(
        run_watch_screen(asking, STYLE, lambda w, f: [], run=run, table_name=typed), 30
    )
    assert seen["title"] == title
