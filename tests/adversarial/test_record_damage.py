"""A local fault names nobody: a record's unsigned parts are damage, never a seat's cheat.

Issue #25, first case. A record header edited on one seat's own disk made
``zsy replay --verify`` say "TAMPERED or invalid at line 2 (seat 0): wrong table
from seat 0" and ``zsy history`` list the record as naming seat 0, the honest
host. What no seat signs (the header: table id, roster keys, nicks, the game's
players, deal, variants, options and match length; and the framing: the order of
the lines, each line's ``seat`` and ``aside`` fields, line breaks, a torn last line)
is never proof (DESIGN.md "Blame needs proof"): where it disagrees with the signed
lines the record is DAMAGED, naming no seat. Only a signed line that is provably
false (an equivocation, a rule broken at a table that did not play on) names its
signer.

The records are real: a seat's :class:`TablePeer` record (tests/adversarial/
test_storage.py's table, whose keys the test holds, so it can also act as a
modified client and sign false lines), and local tables of bots. Each attack is
judged by ``zsy replay --verify`` (the command), ``zsy history``, the resume check
and the spectator's :class:`Follower`, which share one verdict.
"""

from __future__ import annotations

import base64
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from local_support import play_out_now  # noqa: E402
from test_evidence import _equivocated, _illegal_play  # noqa: E402
from test_storage import Table, identities, twin_of  # noqa: E402

from zsy_lan.cli import cli  # noqa: E402
from zsy_lan.engine.ruleset import build_rules  # noqa: E402
from zsy_lan.protocol import seal  # noqa: E402
from zsy_lan.protocol.canonical import canonical  # noqa: E402
from zsy_lan.protocol.envelope import open_frame  # noqa: E402
from zsy_lan.protocol.transcript import (  # noqa: E402
    DAMAGED,
    HEADER_LINE,
    TAMPERED,
    dump_line,
    load_entry,
)
from zsy_lan.record.history import BAD, CACHE_NAME, verify_record  # noqa: E402
from zsy_lan.record.replay import BAD_HEADER, check_record  # noqa: E402
from zsy_lan.record.store import StorageError, save_identity  # noqa: E402
from zsy_lan.table.follower import Follower, FollowError  # noqa: E402
from zsy_lan.table.local_table import make_local_table  # noqa: E402

# the records are built once (about 1 s) for the whole module, on one worker
pytestmark = pytest.mark.xdist_group("record_damage")

HEADER_SENTENCE = "DAMAGED: the record's header (line 1, which no seat signs) does not match"


def _local(path: Path, rules: Any, rounds: int) -> bytes:
    table = make_local_table(rules, rounds, 0, "easy", path, seed="damage", bot_chat=False)
    play_out_now(table)
    return path.read_bytes()


@pytest.fixture(scope="module")
def records(tmp_path_factory) -> dict[str, bytes]:
    """Whole matches of bots: the plain game, and one whose variants allow plays the base
    game forbids (3-card straights, pair chains), so a header without them is wrong."""
    d = tmp_path_factory.mktemp("damage")
    loose = build_rules(
        4,
        ["zsy", "house-rules", "short-straights"],
        {"house-rules.pair_chains": True, "house-rules.triple_chains": True},
    )
    return {
        "open": _local(d / "open.jsonl", build_rules(4), 2),
        "loose": _local(d / "loose.jsonl", loose, 2),
    }


def _edit_header(data: bytes, edit: Callable[[dict[str, Any]], None]) -> bytes:
    lines = data.split(b"\n")
    header = json.loads(lines[0])
    edit(header)
    lines[0] = canonical(header)
    return b"\n".join(lines)


def _assert_names_nobody(data: bytes, line: int | None = None) -> Any:
    """The record does not verify, is DAMAGED and names no seat; returns the result."""
    r = check_record(data).result
    assert not r.ok and r.kind == DAMAGED and r.culprit is None, (r.kind, r.bad_line, r.reason)
    if line is not None:
        assert r.bad_line == line, (r.bad_line, r.reason)
    return r


# -- the case, end to end: a real seat's record, its header edited on its own disk --


@pytest.mark.asyncio
async def test_a_header_edited_on_the_hosts_disk_names_nobody_in_replay_history_or_resume(
    tmp_path,
):
    """#25: was "TAMPERED or invalid at line 2 (seat 0): wrong table from seat 0"."""
    root = tmp_path / "data"
    profile = root / "profiles" / "p"
    folder = profile / "tables" / "t-storage"
    t = Table(folder)
    t.start()
    t.play(12)
    await t.close()
    save_identity(identities()[0], profile / "identity.pem")
    path = folder / "transcript.jsonl"
    assert check_record(path.read_bytes()).result.ok
    lines = path.read_text().splitlines()
    path.write_text("\n".join([lines[0].replace("t-storage", "t-edited"), *lines[1:]]) + "\n")

    res = CliRunner().invoke(cli, ["replay", "--verify", str(path)])
    assert res.exit_code == 1, res.output
    assert HEADER_SENTENCE in res.output
    assert "'t-edited'" in res.output and "'t-storage'" in res.output  # what disagrees
    assert "another copy" in res.output  # what to do
    assert "TAMPERED" not in res.output and "seat 0" not in res.output
    as_json = json.loads(CliRunner().invoke(cli, ["replay", "--json", str(path)]).stdout)
    assert as_json["kind"] == DAMAGED and as_json["culprit"] is None
    assert as_json["bad_line"] == HEADER_LINE

    res = CliRunner().invoke(cli, ["history", "--data-dir", str(root), "--profile", "p"])
    assert res.exit_code == 0, res.output
    assert "DOES NOT VERIFY" in res.output and HEADER_SENTENCE in res.output
    assert "TAMPERED" not in res.output and "seat 0" not in res.output
    rows = json.loads(
        CliRunner()
        .invoke(cli, ["history", "--data-dir", str(root), "--profile", "p", "--json"])
        .stdout
    )
    (row,) = [r for r in rows if r["status"] == "does not verify"]
    assert row["kind"] == DAMAGED and row["line"] == HEADER_LINE

    before = path.read_bytes()
    with pytest.raises(StorageError) as err:
        Table(folder).start(resume=True)  # resuming refuses as before, naming nobody
    assert "does not match this seat" in str(err.value) and "seat 0" not in str(err.value)
    assert path.read_bytes() == before


def test_a_verdict_cached_before_naming_the_host_is_verified_again(records, tmp_path):
    """``zsy history`` kept "TAMPERED ... (seat 0)" for the edited record (cache version 2):
    that verdict is not shown again; the record is verified anew and names nobody."""
    root = tmp_path / "data"
    folder = root / "profiles" / "p" / "tables" / "edited"
    folder.mkdir(parents=True)
    save_identity(identities()[0], root / "profiles" / "p" / "identity.pem")
    path = folder / "transcript.jsonl"
    path.write_bytes(_edit_header(records["open"], HEADER_EDITS["table id"][0]))
    old = verify_record(path, path.read_bytes())
    old.kind, old.line, old.culprit = TAMPERED, 2, 0
    old.reason = "wrong table from seat 0: '65272df21835' is not '000000000000'"
    cache = root / "profiles" / "p" / CACHE_NAME
    cache.write_text(json.dumps({"v": 2, "record": old.to_cache()}) + "\n")
    res = CliRunner().invoke(cli, ["history", "--data-dir", str(root), "--profile", "p"])
    assert res.exit_code == 0 and HEADER_SENTENCE in res.output, res.output
    assert "seat 0" not in res.output and "TAMPERED" not in res.output


@pytest.mark.asyncio
async def test_a_genuine_line_of_another_table_is_out_of_place_not_its_signers_cheat(tmp_path):
    """Seat 1's key signed a message at another table (the same player sat there): put into
    this record by mistake, it is a line out of place; the signer did nothing wrong."""
    t = Table(tmp_path / "seat0")
    t.start()
    t.play(12)
    await t.close()
    path = tmp_path / "seat0" / "transcript.jsonl"
    lines = path.read_text().splitlines()
    at = len(lines) // 2
    _, frame, _ = load_entry(lines[at])
    env = open_frame(frame, t.roster.keys, t.roster.table)
    elsewhere = seal(
        identities()[env.seat],
        table="t-elsewhere",
        seat=env.seat,
        seq=env.seq,
        prev=env.prev,
        state=env.state,
        type=env.type,
        body=env.body,
    )
    data = "\n".join([*lines[:at], dump_line(env.seat, elsewhere), *lines[at:]]) + "\n"
    r = _assert_names_nobody(data.encode(), line=at + 1)
    assert "'t-elsewhere'" in r.reason and "genuine" in r.reason


# -- every unsigned part of the header ---------------------------------------------------


def _key(seat: int) -> Callable[[dict[str, Any]], None]:
    def edit(h: dict[str, Any]) -> None:
        k = h["roster"][str(seat)]
        h["roster"][str(seat)] = k[:-2] + ("00" if k[-2:] != "00" else "11")

    return edit


def _swap_keys(h: dict[str, Any]) -> None:
    r = h["roster"]
    r["0"], r["1"] = r["1"], r["0"]


def _drop_seat(h: dict[str, Any]) -> None:
    del h["roster"]["3"]


def _add_seat(h: dict[str, Any]) -> None:
    h["roster"]["4"] = "ab" * 32


def _players(h: dict[str, Any]) -> None:
    h["game"]["config"]["players"] = 5


def _deal(h: dict[str, Any]) -> None:
    h["game"]["deal"] = "private"


def _rounds(n: int) -> Callable[[dict[str, Any]], None]:
    return lambda h: h["game"].__setitem__("rounds", n)


HEADER_EDITS = {
    "table id": (lambda h: h.__setitem__("table", "000000000000"), "names table"),
    # (#25: seat 0's first message, line 2, vouches for every seat's key and says so first)
    "seat 1's key": (_key(1), "keys are not the ones seat 0 signed for at line 2"),
    "keys of seats 0 and 1 swapped": (_swap_keys, "key for seat 0 does not verify line 2"),
    "seat 3 removed": (_drop_seat, "roster has 3 seats, but its game is for 4 players"),
    "a fifth seat added": (_add_seat, "roster has 5 seats, but its game is for 4 players"),
    "players": (_players, "roster has 4 seats, but its game is for 5 players"),
    "deal": (_deal, "first message on another starting state"),
    "match length shorter": (_rounds(1), "the match is over before line"),
}


@pytest.mark.parametrize("edit", sorted(HEADER_EDITS))
def test_an_edited_header_is_damaged_and_says_what_disagrees(records, edit):
    change, says = HEADER_EDITS[edit]
    r = _assert_names_nobody(_edit_header(records["open"], change), line=HEADER_LINE)
    assert says in r.reason, r.reason


def test_a_header_whose_match_length_the_rules_refuse_is_a_damaged_header_sentence(
    records, tmp_path
):
    """Dou Dizhu plays a multiple of 3 hands: a header of 1 round cannot be built. It was a
    traceback; now it is the damaged-header sentence, in replay and in history."""
    d = tmp_path / "ddz.jsonl"
    data = _local(d, build_rules(3, ["doudizhu"]), 3)
    d.write_bytes(_edit_header(data, _rounds(1)))
    res = CliRunner().invoke(cli, ["replay", "--verify", str(d)])
    assert res.exit_code == 1 and "Traceback" not in res.output
    assert "header that cannot be read: it is damaged" in res.output
    entry = verify_record(d, d.read_bytes())
    assert entry.status == BAD and entry.reason == BAD_HEADER and entry.culprit == -1


def test_nicks_are_labels_an_edited_one_verifies_and_reaches_no_terminal_raw(records, tmp_path):
    path = tmp_path / "nick.jsonl"
    path.write_bytes(
        _edit_header(records["open"], lambda h: h["game"]["nicks"].update({"0": "\x1b[2Jboss"}))
    )
    res = CliRunner().invoke(cli, ["replay", "--verify", str(path)])
    assert res.exit_code == 0 and res.output.startswith("OK: ")
    assert "\x1b" not in CliRunner().invoke(cli, ["replay", str(path)]).output


def _strip(name: str) -> Callable[[dict[str, Any]], None]:
    def edit(h: dict[str, Any]) -> None:
        c = h["game"]["config"]
        c["plugins"] = [p for p in c["plugins"] if p[0] != name]
        c.get("options", {}).pop(name, None)

    return edit


def _option_off(plugin: str, option: str) -> Callable[[dict[str, Any]], None]:
    return lambda h: h["game"]["config"]["options"][plugin].pop(option)


@pytest.mark.parametrize(
    "edit",
    [
        _strip("short-straights"),  # a 3-card straight becomes "not a combination"
        _option_off("house-rules", "pair_chains"),  # so does a pair chain
    ],
    ids=["short-straights removed", "pair chains off"],
)
def test_header_rules_that_forbid_a_play_the_table_went_on_from_name_nobody(records, edit):
    """Was "TAMPERED or invalid at line N (seat 0): illegal action by seat 0: 3♣ 4♣ 5♦ is
    not a combination": the header's rules are nobody's word, and the next seat signed its
    move on the state after that play, so the table played by other rules."""
    r = _assert_names_nobody(_edit_header(records["loose"], edit), line=HEADER_LINE)
    assert "breaks a rule" in r.reason and "not a combination" in r.reason
    assert "played by other rules than the header says" in r.reason


@pytest.mark.parametrize(
    "edit",
    [
        _strip("house-rules"),
        _option_off("house-rules", "triple_chains"),
        lambda h: h["game"]["config"]["options"]["zsy"].update({"scoring": "penalty"}),
        lambda h: h["game"]["config"]["plugins"].append(["no-tribute", "1.0.0"]),
        lambda h: h["game"]["config"]["plugins"].append(["partnerships", "1.0.0"]),
        _rounds(9),
    ],
)
def test_any_other_rules_in_the_header_name_nobody(records, edit):
    """Whatever the header's game says, a seat is named only by its own signed line."""
    r = check_record(_edit_header(records["loose"], edit)).result
    assert r.ok or (r.kind == DAMAGED and r.culprit is None), (r.kind, r.reason)


def test_header_rules_the_signed_states_do_not_follow_are_the_headers_fault(records):
    """Another scoring (or tribute) in the header: every message the game then waits for is
    in the record, signed on a state those rules never reach; no line is missing."""
    edit = lambda h: h["game"]["config"]["options"]["zsy"].update({"scoring": "penalty"})  # noqa: E731
    r = _assert_names_nobody(_edit_header(records["loose"], edit), line=HEADER_LINE)
    assert "another state than the header's rules reach" in r.reason


def test_history_files_a_record_under_the_variant_it_was_verified_by(records, tmp_path):
    """The header's ``game`` label is unsigned and unused by the rules: an edited one does not
    move a zsy match to the Dou Dizhu tally."""
    data = _edit_header(records["open"], lambda h: h["game"]["config"].update(game="doudizhu"))
    entry = verify_record(tmp_path / "v.jsonl", data)
    assert entry.status == "finished" and entry.game == "zsy"


# -- framing: line breaks, order, the lines' own unsigned fields ----------------------------


def _lines(data: bytes) -> list[bytes]:
    return data.split(b"\n")[:-1]  # the last line ends with a newline


def _join(lines: list[bytes]) -> bytes:
    return b"\n".join(lines) + b"\n"


def _reline(line: bytes, **fields: Any) -> bytes:
    obj = json.loads(line)
    obj.update(fields)
    return canonical(obj)


FRAMINGS: dict[str, Callable[[list[bytes]], bytes]] = {
    "two lines swapped": lambda L: _join([*L[:20], L[21], L[20], *L[22:]]),
    "a line written twice": lambda L: _join([*L[:20], L[19], *L[20:]]),
    "a line lost": lambda L: _join([*L[:20], *L[21:]]),
    "two lines joined": lambda L: _join([*L[:20], L[20] + L[21], *L[22:]]),
    "a line's seat field": lambda L: _join(
        [*L[:30], _reline(L[30], seat=(json.loads(L[30])["seat"] + 1) % 4), *L[31:]]
    ),
    "a chain line marked aside": lambda L: _join([*L[:30], _reline(L[30], aside=True), *L[31:]]),
    "the header written twice": lambda L: _join([L[0], *L]),
    "garbage at the end": lambda L: _join([*L, b"garbage"]),
    "half a line, then the rest": lambda L: _join([*L[:40], L[40][:50], *L[41:]]),
}


@pytest.mark.parametrize("framing", sorted(FRAMINGS))
def test_damaged_framing_names_nobody(records, framing):
    """Was TAMPERED ("out of order", "not a transcript line", "line says seat 1 but the frame
    is seat 0's"): the file's order and its lines' fields are nobody's signed word."""
    data = FRAMINGS[framing](_lines(records["open"]))
    r = _assert_names_nobody(data)
    assert r.bad_line > HEADER_LINE  # a line, not the header


@pytest.mark.parametrize(
    "framing",
    [
        lambda d: d.replace(b"\n", b"\r\n"),
        lambda d: d.replace(b"\n", b"\n\n", 7),
        lambda d: b"\n".join(ln if i != 9 else b"   " + ln for i, ln in enumerate(d.split(b"\n"))),
        lambda d: d[: d.rfind(b"\n", 0, len(d) - 1) + 40],  # cut inside the last line
    ],
    ids=["CRLF", "blank lines", "indented line", "torn last line"],
)
def test_harmless_framing_still_verifies(records, framing):
    c = check_record(framing(records["open"]))
    assert c.result.ok, (c.result.kind, c.result.reason)


# -- only a signed line that is provably false names its signer ----------------------------


async def _seat_record(tmp_path: Path) -> tuple[Table, Path]:
    t = Table(tmp_path / "seat0")
    t.start()
    for _ in range(30):
        t.play(1)
        r1 = t.others[0]
        if r1.can_act() and r1.game.round is not None and r1.game.legal(1):
            break
    await t.close()
    return t, tmp_path / "seat0" / "transcript.jsonl"


@pytest.mark.asyncio
async def test_an_illegal_play_signed_by_a_modified_client_names_its_signer(tmp_path):
    """ZSY-4.1: seat 1 (a modified client) signs a play of cards it does not hold, on the
    current state, as its next message: a false signed line. Nothing after it shows the
    table playing on, so the header's rules stand and seat 1 is named."""
    t, path = await _seat_record(tmp_path)
    assert t.others[0].can_act()
    bogus = _illegal_play(t)
    lines = path.read_text().splitlines()
    data = "\n".join([*lines, dump_line(1, bogus)]) + "\n"
    r = check_record(data.encode()).result
    assert not r.ok and r.kind == TAMPERED and r.culprit == 1 and "illegal" in r.reason
    path.write_text(data)
    res = CliRunner().invoke(cli, ["replay", "--verify", str(path)])
    assert res.exit_code == 1 and "(seat 1)" in res.output


@pytest.mark.asyncio
async def test_an_equivocation_in_the_record_names_its_signer_whatever_the_header(tmp_path):
    """Two different signed messages for one seq (a modified client's) are proof on their
    own: an edited header (here a nick) does not change that."""
    t, path = await _seat_record(tmp_path)
    lines = path.read_text().splitlines()

    def env_at(i: int) -> Any:
        return open_frame(load_entry(lines[i])[1], t.roster.keys, t.roster.table)

    at = next(i for i in range(len(lines) - 1, 0, -1) if env_at(i).type == "action")
    env = env_at(at)
    twin = twin_of(t, load_entry(lines[at])[1])
    data = "\n".join([*lines[: at + 1], dump_line(env.seat, twin), *lines[at + 1 :]]) + "\n"
    r = check_record(data.encode()).result
    assert not r.ok and r.kind == TAMPERED and r.culprit == env.seat, r.reason
    assert "equivocation" in r.reason and r.bad_line == at + 2
    edited = _edit_header(data.encode(), lambda h: h["game"]["nicks"].update({"1": "x"}))
    again = check_record(edited).result
    assert again.culprit == env.seat and "equivocation" in again.reason


def test_a_flipped_byte_in_a_signed_line_is_tampered_but_names_nobody(records):
    """The signature no longer holds: the line was altered, and a signature that fails
    proves nothing about who altered it."""
    lines = _lines(records["open"])
    obj = json.loads(lines[40])
    raw = bytearray(base64.b64decode(obj["frame"]))
    raw[30] ^= 1
    lines[40] = _reline(lines[40], frame=base64.b64encode(bytes(raw)).decode())
    r = check_record(_join(lines)).result
    assert not r.ok and r.kind == TAMPERED and r.culprit is None and r.bad_line == 41


# -- the spectator reaches the same verdict line by line ------------------------------------


@pytest.mark.parametrize("edit", ["table id", "seat 1's key", "a fifth seat added"])
def test_a_spectator_following_a_damaged_header_names_nobody(records, edit):
    data = _edit_header(records["open"], HEADER_EDITS[edit][0])
    header, *rest = data.decode().splitlines()
    follower = Follower(header, retain=None)
    with pytest.raises(FollowError) as err:
        for line in rest:
            follower.add(line)
    assert err.value.kind == DAMAGED and err.value.culprit is None
    assert err.value.line == HEADER_LINE
    replayed = check_record(data).result
    assert (replayed.kind, replayed.bad_line, replayed.reason) == (
        err.value.kind,
        err.value.line,
        err.value.reason,
    )


def test_a_spectator_reads_on_past_a_rule_the_headers_rules_say_was_broken(records):
    """The host's header lacks the table's variant: the spectator does not stop at the play
    it calls illegal, naming seat 0, but reads on, as zsy replay does, to the next seat's
    move on the state after it, and says the header is damaged."""
    data = _edit_header(records["loose"], _strip("short-straights"))
    header, *rest = data.decode().splitlines()
    follower = Follower(header, retain=None)
    replayed = check_record(data).result
    suspect = int(replayed.reason.split("line ")[1].split(" ")[0])  # the play it called illegal
    with pytest.raises(FollowError) as err:
        for line in rest:
            follower.add(line)
    assert err.value.kind == DAMAGED and err.value.culprit is None
    assert err.value.reason == replayed.reason and follower.lines > suspect


def test_a_spectator_at_the_end_of_lines_after_a_broken_rule_names_its_signer(records):
    """Nothing after the illegal play: the verdict at the end is the seat's, as zsy replay's."""
    data = _edit_header(records["loose"], _strip("short-straights"))
    header, *rest = data.decode().splitlines()
    replayed = check_record(data).result
    suspect = int(replayed.reason.split("line ")[1].split(" ")[0])
    follower = Follower(header, retain=None)
    for line in rest[: suspect - 1]:  # up to and with the play
        follower.add(line)
    ends = follower.end()
    cut = check_record(data[: sum(len(x) + 1 for x in data.split(b"\n")[:suspect])]).result
    assert not ends.ok and ends.kind == TAMPERED and ends.culprit == 0
    assert (ends.kind, ends.culprit, ends.bad_line) == (cut.kind, cut.culprit, cut.bad_line)


@pytest.mark.asyncio
async def test_kept_evidence_beside_a_damaged_header_is_not_called_forged(tmp_path):
    """Seat 0 kept the proof of seat 1's equivocation; then its header's table id was edited.
    The proof frames are genuine, only not of the table the header names: "NOT CHECKED", not
    "NOT GENUINE" (which would read as seat 0 forging the proof)."""
    await _equivocated(tmp_path)
    path = tmp_path / "seat0" / "transcript.jsonl"
    assert json.loads(CliRunner().invoke(cli, ["replay", "--json", str(path)]).stdout)["ok"]
    lines = path.read_text().splitlines()
    path.write_text("\n".join([lines[0].replace("t-storage", "t-edited"), *lines[1:]]) + "\n")
    res = CliRunner().invoke(cli, ["replay", "--verify", str(path)])
    assert res.exit_code == 1 and HEADER_SENTENCE in res.output
    assert "NOT CHECKED: its frames are of table t-storage" in res.output
    assert "NOT GENUINE" not in res.output
    [ev] = json.loads(CliRunner().invoke(cli, ["replay", "--json", str(path)]).stdout)["evidence"]
    assert ev["foreign"] == "t-storage" and not ev["signed"]


def test_a_spectator_whose_host_goes_away_after_a_self_contradicting_header_names_nobody(
    records,
):
    header = _edit_header(records["open"], _add_seat).decode().splitlines()[0]
    ends = Follower(header, retain=None).end()
    assert not ends.ok and ends.kind == DAMAGED and ends.culprit is None
    assert ends.bad_line == HEADER_LINE and "roster has 5 seats" in ends.reason
