"""Spectators at a real loopback table (issue #15): four bot seats, a spectator joining
mid-match, the privacy of what it holds, and what it may not do."""

from __future__ import annotations

import asyncio
import json
import sys
import threading
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from spectate_support import LO, bot_table  # noqa: E402

from zsy_lan.deal.messages import Pass, from_body  # noqa: E402
from zsy_lan.engine.state import RETURN  # noqa: E402
from zsy_lan.protocol.envelope import open_frame  # noqa: E402
from zsy_lan.record.replay import replay_file  # noqa: E402
from zsy_lan.table.follower import Follower  # noqa: E402
from zsy_lan.table.watch import watch_table  # noqa: E402

PLAYING = {"keys", "lead", "play", "kitty"}


class PrivacyCheck:
    """At every batch the spectator receives while a private deal is being played, check
    what it holds the way tests/private checks each seat: its observer game knows only
    slots opened to everyone and no hand; the frames it received and its record hold no
    card point in clear; plaintext card ids appear only where a card was opened to all."""

    def __init__(self, record: Path) -> None:
        self.record = record
        self.checked = 0
        self.ran = threading.Event()  # set at the first batch checked in play

    def hold_host_until_checked(self, table, ready=lambda game: True) -> None:
        """Make the host seat wait, at its first move in play once ``ready(game)``, until a
        batch has been checked (at most 60 s): bots play a whole match between two batches
        on a loaded machine, and a check only at the end would check nothing in play."""
        peer = table.hosted.peer
        decide = peer.decider

        def held(rules, view, seat):
            if str(peer.game.stage) in PLAYING and ready(peer.game):
                self.ran.wait(60)
            return decide(rules, view, seat)

        peer.decider = held

    def __call__(self, f: Follower, frames: list[bytes]) -> None:
        g = f.game
        if str(getattr(g, "stage", "")) not in PLAYING:
            return
        d = g.deal
        public = {i for i, sl in enumerate(d.slots) if sl.public}
        known = {i for i, sl in enumerate(d.slots) if sl.card is not None}
        assert known <= public, sorted(known - public)
        r = g.match.round
        # the engine knows no card of a hand in play (counts only; an emptied hand is known
        # empty). While the next deal is being made the last round, audited, is still there.
        if r is not None and r.phase != "done":
            assert all(not h for h in r.hands), (g.stage, r.phase, r.hands)
        public_cards = {sl.card for sl in d.slots if sl.public}
        blob = b"\n".join(frames) + self.record.read_bytes()
        for c, pt in zip(g.cfg.deck, g.cfg.card_points(), strict=True):
            assert pt not in blob and pt.hex().encode() not in blob, c
        for frame in frames[-40:]:  # the newest frames: their card ids are public ones
            body = dict(open_frame(frame, f.roster, f.table).body)
            cards = list(body.get("cards", []))
            if isinstance(body.get("deal"), dict):
                cards += [c for _slot, c in body["deal"].get("cards", [])]
            if body.get("kind") == RETURN:
                assert "cards" not in body  # a face-down return names no card
                from_body(Pass.TYPE, body["deal"])  # sealed to its receiver
        self.checked += 1
        self.ran.set()
        del cards, public_cards


@pytest.mark.slow
@pytest.mark.asyncio
@pytest.mark.timeout(110)
async def test_a_spectator_joins_mid_match_sees_the_public_view_and_holds_no_hidden_card(
    tmp_path,
):
    # two rounds: the host's seat holds its first move of round 2 until a batch was checked,
    # so the spectator's first batch comes mid-match whatever the machine's speed
    table = await bot_table(tmp_path, deal="private", spectators="open", rounds=2)
    try:
        game = table.hosted.peer
        # mid-match: the first round is over (or at least well under way) before it asks
        assert await table.wait(lambda: len(game.game.match.results) >= 1, 60)
        shown: list[str] = []
        record = tmp_path / "watched.jsonl"
        check = PrivacyCheck(record)
        check.hold_host_until_checked(table, lambda g: len(g.match.results) >= 1)
        host_state: list[tuple[int, bool]] = []  # (rounds scored, finished) at each batch

        def on_batch(f, frames):
            host_state.append((len(game.game.match.results), game.game.finished()))
            check(f, frames)

        outcome = await asyncio.wait_for(
            watch_table(table.endpoint, table.curve, "bob", LO, show=shown.append,
                        record=record, on_batch=on_batch),
            90,
        )
        assert outcome.ok, shown
        # it came mid-match: a round was scored, the match not over, when its first batch came
        assert host_state[0][0] >= 1 and not host_state[0][1], host_state
        assert "Watching table 'watched'" in shown[0] and "spectator" in shown[0]
        # caught up from the start of the record, then followed it to the end
        f = outcome.follower
        assert f is not None and f.game.finished()
        assert f.head == game.replica.transcript_head()
        assert [(r.order, r.points) for r in f.game.match.results] == [
            (r.order, r.points) for r in game.game.match.results
        ]
        assert check.checked >= 1  # the privacy checks ran while round 2 was played
        # the public facts of the record, as zsy replay tells them from the host's file
        report = replay_file(game.store.transcript_path)
        assert report.ok and report.finished
        assert [r["order"] for r in report.results] == [list(r.order) for r in f.game.match.results]
        # its own record re-verifies like any seat's
        mine = replay_file(record)
        assert mine.ok and mine.head == report.head
        # what it showed: plays by seat, each round's result, the end (never a hand)
        assert any(line.startswith("seat 1 (bot:easy): ") for line in shown)
        assert any("Round 2 dealt" in line for line in shown)
        assert not any(" held " in line for line in shown)
        assert any(line.startswith("Match over") for line in shown)
        # the seats were told who watches; the spectator is no seat
        assert any("bob is watching" in n for n in table.notices())
        assert len(game.roster.seats) == 4 and len(game.replica.roster) == 4
        assert json.loads(record.read_text().splitlines()[0])["game"]["deal"] == "private"
    finally:
        await table.close()


@pytest.mark.slow
@pytest.mark.asyncio
@pytest.mark.timeout(110)
async def test_open_deal_spectators_see_each_round_only_after_it_ends(tmp_path):
    """Open deal: every hand follows from the seed, so a round's lines reach a spectator
    only once that round has ended (the table and the spectator are told so)."""
    table = await bot_table(tmp_path, deal="open", spectators="open", rounds=2)
    try:
        game = table.hosted.peer
        shown: list[str] = []
        batches: list[tuple[bool, int, int]] = []

        def at_batch(f: Follower, frames: list[bytes]) -> None:
            g = f.game
            # never inside a round: between rounds (waiting for a seed) or at the end
            batches.append((g.needs_seed() or g.finished(), len(g.match.results),
                            len(game.game.match.results)))

        outcome = await asyncio.wait_for(
            watch_table(table.endpoint, table.curve, "bob", LO, show=shown.append,
                        on_batch=at_batch),
            90,
        )
        assert outcome.ok, shown
        assert batches and all(between for between, _mine, _host in batches), batches
        assert all(mine <= host for _b, mine, host in batches)
        assert outcome.follower.head == game.replica.transcript_head()
        assert "open deal: spectators see each round after it ends" in shown
        assert any(" held " in line for line in shown)  # an ended round's hands are public
        assert any("bob is watching (open deal: spectators see each round after it ends)" in n
                   for n in table.notices())
    finally:
        await table.close()


@pytest.mark.slow
@pytest.mark.asyncio
@pytest.mark.timeout(110)
async def test_dou_dizhu_spectators_see_the_bids_and_the_kitty_once_it_is_turned_up(tmp_path):
    """DDZ with the kitty shown (DDZ-2.2): the spectator sees the bids and the kitty when it
    is turned up for everyone, and no hidden card before (the privacy check at each batch)."""
    table = await bot_table(
        tmp_path, deal="private", spectators="open", rounds=1, players=3,
        variants=("doudizhu",), options={"doudizhu.show_kitty": True,
                                         "doudizhu.match_multiple": 1},
    )
    try:
        shown: list[str] = []
        record = tmp_path / "ddz.jsonl"
        check = PrivacyCheck(record)
        check.hold_host_until_checked(table)
        outcome = await asyncio.wait_for(
            watch_table(table.endpoint, table.curve, "bob", LO, show=shown.append,
                        record=record, on_batch=check),
            90,
        )
        assert outcome.ok, shown
        assert outcome.follower.head == table.hosted.peer.replica.transcript_head()
        assert check.checked >= 1
        kitty = [line for line in shown if line.startswith("The kitty is turned up: ")]
        assert kitty, shown  # told once the landlord is known and the kitty opened to all
        assert any("bid" in line.lower() or "pass" in line.lower() for line in shown)
        assert "private deal done" in shown
    finally:
        await table.close()
