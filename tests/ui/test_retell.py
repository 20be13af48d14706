"""``zsy replay``'s retelling by round (zsy_lan/record/retell.py): deal, tribute, tricks, scores."""

from __future__ import annotations

import asyncio
import hashlib
import re

from click.testing import CliRunner
from local_support import play_out_now

from zsy_lan.cli import cli
from zsy_lan.engine.bots import BOTS
from zsy_lan.engine.cards import cards_str
from zsy_lan.engine.game import Game
from zsy_lan.engine.ruleset import build_rules
from zsy_lan.engine.state import PASS
from zsy_lan.record.retell import retell, retell_lines
from zsy_lan.table.local_table import make_local_table


def _match(players=4, variants=(), rounds=3, seed="r"):
    """A whole match between greedy bots on the engine: (rules, rounds, seeds, log, dealt)."""
    rules = build_rules(players, list(variants))
    game = Game(rules, rounds)
    bots = [BOTS["greedy"](f"{seed}:{s}") for s in range(players)]
    dealt = []
    for i in range(5000):
        if game.finished():
            break
        if game.needs_seed():
            game.start_round(hashlib.sha256(f"{seed}-{i}".encode()).digest())
            dealt.append(game.round.hands)
            continue
        seat = game.round.turn
        game.apply(seat, bots[seat].act(rules, game.view(seat), seat))
    assert game.finished()
    return rules, rounds, game.seeds, game.log, dealt, game


def test_every_trick_winner_in_order_agrees_with_the_engine():
    """ZSY-5.2: all others pass after a play, its player wins the trick and leads the next
    (ZSY-5.4: the next player still in when the winner went out with it)."""
    rules, rounds, seeds, log, _, game = _match()
    stories, closing = retell(rules, rounds, seeds, log)
    assert len(stories) == len(game.match.results)
    plays = [a for a in log if a.kind in ("play", PASS)]
    assert sum(len(t.moves) for s in stories for t in s.tricks) == len(plays)
    for story in stories:
        tricks = story.tricks
        assert tricks and tricks[-1].ends_round
        for t, nxt in zip(tricks, tricks[1:], strict=False):
            played = [a.seat for a in t.moves if a.kind != PASS]
            assert t.winner == played[-1]  # the last one to play, everyone else passed
            assert not t.ends_round
            if nxt.leader != t.winner:  # only when the winner went out with it (ZSY-5.4)
                assert t.winner not in {a.seat for a in nxt.moves}
        # the lines name the winners in the same order
        named = [int(m) for line in story.lines for m in re.findall(r"won by seat (\d+)", line)]
        assert named == [t.winner for t in tricks]
    assert closing[0].startswith("Match over. Winner:")


def test_the_deal_shows_every_hand_as_dealt():
    rules, rounds, seeds, log, dealt, _ = _match(rounds=2)
    lines = retell_lines(rules, rounds, seeds, log, {0: "ann", 1: "bo"})
    for r, hands in enumerate(dealt, 1):
        start = lines.index(next(x for x in lines if x.startswith(f"Round {r}: dealer")))
        for s, hand in enumerate(hands):
            who = {0: "seat 0 (ann)", 1: "seat 1 (bo)"}.get(s, f"seat {s}")
            assert lines[start + 1 + s] == f"  {who} is dealt {cards_str(hand)}."


def test_tribute_names_giver_and_receiver_and_rounds_end_with_points():
    """ZSY-7.1: the Downstream of round 1 gives to its Upstream in round 2."""
    rules, rounds, seeds, log, _, game = _match(rounds=2)
    stories, _ = retell(rules, rounds, seeds, log)
    first = game.match.results[0]
    up, down = first.order[0], first.order[-1]
    gives = [x for x in stories[1].lines if x.startswith("  Tribute:") and " gives " in x]
    assert any(x.startswith(f"  Tribute: seat {down} gives ") and x.endswith(f"to seat {up}.")
               for x in gives)
    assert any(x.startswith(f"  Tribute: seat {up} returns ") for x in stories[1].lines)
    over = [x for x in stories[0].lines if x.startswith("Round 1 over.")]
    assert over and f"seat {up} Upstream" in over[0] and f"seat {down} Downstream" in over[0]


def test_dou_dizhu_is_told_with_bids_landlord_and_kitty_and_no_titles():
    rules, rounds, seeds, log, _, _ = _match(players=3, variants=["doudizhu"], rounds=3)
    text = "\n".join(retell_lines(rules, rounds, seeds, log))
    assert "The kitty:" in text and "is the landlord and takes the kitty" in text
    assert re.search(r"seat \d: (bid \d|pass)\.", text)
    assert "Upstream" not in text and "Downstream" not in text
    for engine_name in ("triple1", "fullhouse", "plane1", "four2"):
        assert engine_name not in text


def test_peer_text_is_cleaned():
    rules, rounds, seeds, log, _, _ = _match(rounds=1)
    text = "\n".join(retell_lines(rules, rounds, seeds, log, {0: "\x1b[2Jevil\x07"}))
    assert "\x1b" not in text and "\x07" not in text and "evil" in text


def test_zsy_replay_retells_a_local_record(tmp_path):
    record = tmp_path / "rec.jsonl"
    table = make_local_table(build_rules(4), 2, 0, "easy", record, seed="rt")
    play_out_now(table)
    res = CliRunner().invoke(cli, ["replay", str(record)])
    assert res.exit_code == 0, res.output
    out = res.output.splitlines()
    assert out[-1].startswith("OK:")
    assert "Seats: seat 0 you, seat 1 easy-1 (bot)" in res.output
    assert sum(1 for x in out if x.startswith("Round ") and ": dealer " in x) == len(
        table.game.match.results
    )
    assert any(x.startswith("  Trick 1: ") for x in out)
    assert any(x.startswith("Match over. Winner:") for x in out)


def _private_record(tmp_path, rules, rounds):
    """A private-deal match played in memory (tests/private), written as a table's record."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).parent.parent / "private"))
    from private_support import PrivateTable

    from zsy_lan.protocol.lobby import Roster, Seat
    from zsy_lan.table.peer import transcript_header

    t = PrivateTable(rules, rounds)
    t.run(max_time=600)
    assert t.done()
    roster = Roster(t.table, "priv", rounds, rules.config,
                    [Seat(s, k, b"", "", f"p{s}") for s, k in t.roster.items()], deal="private")
    path = tmp_path / "private.jsonl"
    path.write_text("\n".join([transcript_header(roster), *t.nodes[0].transcript]) + "\n")
    return path, t.nodes[0].game


def test_a_private_deal_is_retold_by_round_with_hands_once_the_audit_opened_them(tmp_path):
    from zsy_lan.record.replay import replay_file

    path, game = _private_record(tmp_path, build_rules(4), 2)
    report = replay_file(path)
    assert report.ok, report.verdict()
    lines = report.narration
    rounds = [i for i, x in enumerate(lines) if re.match(r"Round \d: dealer", x)]
    assert len(rounds) == 2
    for audit, start in zip(game.audits, rounds, strict=True):
        assert lines[start + 1].startswith("  Private deal: the hands stay hidden")
        for s in range(4):  # the audit's dealt hands, told at the round's start
            assert lines[start + 2 + s] == (
                f"  seat {s} (p{s}) was dealt {cards_str(tuple(sorted(audit.dealt[s])))} "
                "(opened by the audit)."
            )
    assert any(x.startswith("  Tribute: ") for x in lines[rounds[1]:])
    assert sum(1 for x in lines if x.startswith("  Trick 1: ")) == 2
    assert [x for x in lines if x.startswith("The audit of deal")] == [
        "The audit of deal 1: audit passed", "The audit of deal 2: audit passed"]
    assert any(x.startswith("Match over. Winner:") for x in lines)


def test_dou_dizhu_rounds_are_hands():
    rules, rounds, seeds, log, _, _ = _match(players=3, variants=["doudizhu"], rounds=3)
    lines = retell_lines(rules, rounds, seeds, log)
    assert any(re.match(r"Hand \d: dealer seat \d\.", x) for x in lines)
    assert not any(x.startswith("Round ") for x in lines)


def test_a_tampered_record_is_retold_up_to_the_bad_line(tmp_path):
    record = tmp_path / "rec.jsonl"
    table = make_local_table(build_rules(4), 1, 0, "easy", record, seed="tamper")

    async def go():
        table.start()
        await asyncio.wait_for(table.run_bots_only(), 60)
        await table.close()

    asyncio.run(go())
    lines = record.read_text().splitlines()
    del lines[30]  # a lost line: damaged, which proves nothing against a seat
    record.write_text("\n".join(lines) + "\n")
    res = CliRunner().invoke(cli, ["replay", str(record)])
    assert res.exit_code == 1
    out = res.output.splitlines()
    assert out[-1].startswith("DAMAGED at line")
    assert any(x.startswith("  Trick 1: ") for x in out)  # what verified is still told
    assert "The record ends here: the match was not finished." in out
    assert "Traceback" not in res.output
