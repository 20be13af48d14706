"""``zsy history`` over real records: results, copies, tampering, cache, ratings, output.

The records are matches played out in memory by bots with chosen keys
(history_support.py), filed where a peer files its seat's record; every
expectation comes from the table that played them, never from the history.
"""

from __future__ import annotations

import errno
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

import pytest
from click.testing import CliRunner

sys.path.insert(0, str(Path(__file__).parent))

from history_support import Played, file_as_seat, give_profile, play, tamper  # noqa: E402

from zsy_lan.cli import cli  # noqa: E402
from zsy_lan.protocol.identity import Identity, fingerprint  # noqa: E402
from zsy_lan.record import history as hist  # noqa: E402

P = "alice"


@pytest.fixture(scope="module")
def lib(tmp_path_factory):
    """Five matches among four identities (ME plays four of them); played once per module."""
    d = tmp_path_factory.mktemp("records")
    me, a, b, c = (Identity.generate() for _ in range(4))
    penalty = {"zsy.scoring": "penalty"}
    games = {
        "m1": play(d / "m1.jsonl", [me, a, b], seed="h1", options=penalty),
        "m2": play(d / "m2.jsonl", [a, me, c], seed="h2", options=penalty),
        "m3": play(d / "m3.jsonl", [me, b, c], variants=["doudizhu"], rounds=3, seed="h3"),
        "m4": play(d / "m4.jsonl", [b, c, me, a], seed="h4", options=penalty),
        "theirs": play(d / "m5.jsonl", [a, b, c], seed="h5", options=penalty),
    }
    return {"me": me, "a": a, "b": b, "c": c, "games": games}


def _root(tmp_path: Path, lib, names=("m1", "m2", "m3", "m4")) -> Path:
    root = tmp_path / "data"
    give_profile(root, P, lib["me"])
    for n in names:
        file_as_seat(root, P, lib["games"][n])
    return root


def _run(root: Path, *args: str):
    return CliRunner().invoke(
        cli, ["history", "--data-dir", str(root), "--profile", P, *args], catch_exceptions=False
    )


def _json(root: Path, *args: str):
    res = _run(root, "--json", *args)
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout)


def _my_seat(g: Played, me: Identity) -> int:
    return g.keys.index(me.public_key.hex())


def test_history_lists_each_match_with_the_winners_the_table_had(tmp_path, lib):
    root = _root(tmp_path, lib)
    rows = _json(root)
    assert len(rows) == 4 and all(r["status"] == "finished" for r in rows)
    by_table = {r["table"]: r for r in rows}
    for n in ("m1", "m2", "m3", "m4"):
        g = lib["games"][n]
        row = by_table[g.table]
        mine = _my_seat(g, lib["me"])
        assert row["winners"] == sorted(g.winners)
        assert row["me"] == mine
        assert row["result"]["won"] == (mine in g.winners)
        assert row["result"]["points"] == g.totals[mine]
        assert [s["key"] for s in row["seats"]] == list(g.keys)
        # the winners hold place 1 and nobody else does (ZSY-8.5, DDZ-5.3)
        assert {s["seat"] for s in row["seats"] if s["place"] == 1} == set(g.winners)
    assert by_table[lib["games"]["m3"].table]["variant"] == "doudizhu"
    # newest first
    assert [r["time"] for r in rows] == sorted((r["time"] for r in rows), reverse=True)
    text = _run(root)
    assert text.exit_code == 0
    me_fp = fingerprint(lib["me"].public_key)
    assert f"({me_fp}, you)" in text.output
    assert text.output.count("your result: ") == 4
    assert str(lib["games"]["m3"].record.name) not in text.output  # the filed copy is shown
    assert "profiles/alice/tables/" in text.output


def test_limit_keeps_the_newest(tmp_path, lib):
    root = _root(tmp_path, lib)
    paths = sorted(root.glob("profiles/*/tables/*/transcript.jsonl"))
    for i, p in enumerate(paths):
        os.utime(p, (1_700_000_000 + i * 60, 1_700_000_000 + i * 60))
    rows = _json(root, "--limit", "2")
    assert [r["record"] for r in rows] == [str(paths[-1]), str(paths[-2])]


def test_the_seats_of_one_table_and_a_copy_count_once(tmp_path, lib):
    """A host's own seat, its bot seats' records and a copied file are one match."""
    root = _root(tmp_path, lib, names=("m1",))
    g = lib["games"]["m1"]
    file_as_seat(root, P, g, sub="bot-seat-1")
    file_as_seat(root, P, g, sub="bot-seat-2")
    spare = root / "profiles" / P / "tables" / "elsewhere"
    spare.mkdir()
    shutil.copyfile(g.record, spare / "copy.jsonl")
    # the same match with a torn last line (a crash mid-write): other bytes, same match
    torn = spare / "torn.jsonl"
    torn.write_bytes(g.record.read_bytes() + b'{"frame":"WlNZ')
    rows = _json(root)
    assert len(rows) == 1
    assert rows[0]["record"].endswith(f"tables/{g.table}/transcript.jsonl")
    assert len(rows[0]["copies"]) == 5
    opp = _json(root, "--opponents")
    assert sorted(o["games"] for o in opp) == [1, 1]
    rat = _json(root, "--ratings")
    assert all(r["games"] == 1 for r in rat)
    assert len(_json(root, "--variants")) == 1 and _json(root, "--variants")[0]["games"] == 1


def test_a_tampered_record_does_not_verify_and_changes_no_rating(tmp_path, lib):
    clean_root = _root(tmp_path / "a", lib, names=("m1", "m2"))
    before = _json(clean_root, "--ratings")
    root = _root(tmp_path / "b", lib, names=("m1", "m2", "m3"))
    bad = root / "profiles" / P / "tables" / lib["games"]["m3"].table / "transcript.jsonl"
    tamper(bad)
    rows = _json(root)
    assert [r["status"] for r in rows].count("finished") == 2
    (row,) = [r for r in rows if r["status"] == "does not verify"]
    assert row["record"] == str(bad) and row["reason"].startswith("TAMPERED or invalid at line ")
    assert row["kind"] == "tampered" and row["line"] > 1 and row["detail"]
    assert _json(root, "--ratings") == before
    text = _run(root).output
    assert f"DOES NOT VERIFY (counts for nothing): {bad}" in text
    variants = _json(root, "--variants")
    assert "doudizhu" not in {v["variant"] for v in variants}


def test_a_damaged_or_foreign_file_is_listed_not_fatal(tmp_path, lib):
    root = _root(tmp_path, lib, names=("m1",))
    junk = root / "profiles" / P / "tables" / "x" / "transcript.jsonl"
    junk.parent.mkdir(parents=True)
    junk.write_bytes(b"\xff\xfe not a record\n")
    empty = junk.with_name("other.jsonl")
    empty.write_text("")
    res = _run(root)
    assert res.exit_code == 0 and "Traceback" not in res.output
    assert res.output.count("DOES NOT VERIFY") == 2
    assert res.output.count("your result: ") == 1


def test_unfinished_matches_are_not_results(tmp_path, lib):
    root = _root(tmp_path, lib, names=("m1",))
    g = lib["games"]["m2"]
    cut = root / "profiles" / P / "tables" / g.table / "transcript.jsonl"
    cut.parent.mkdir(parents=True)
    lines = g.record.read_text().splitlines()
    cut.write_text("\n".join(lines[: len(lines) // 2]) + "\n")
    assert len(_json(root)) == 1
    rows = _json(root, "--all")
    assert sorted(r["status"] for r in rows) == ["finished", "unfinished"]
    assert "unfinished match, not a result" in _run(root, "--all").output
    assert all(r["games"] == 1 for r in _json(root, "--ratings"))


def test_a_prefix_of_a_finished_match_is_not_listed_apart(tmp_path, lib):
    """A seat that dropped mid-match left a shorter record of the same table: one match."""
    root = _root(tmp_path, lib, names=("m1",))
    g = lib["games"]["m1"]
    cut = root / "profiles" / P / "tables" / g.table / "bot-seat-1" / "transcript.jsonl"
    cut.parent.mkdir(parents=True)
    lines = g.record.read_text().splitlines()
    cut.write_text("\n".join(lines[: len(lines) // 2]) + "\n")
    assert [r["status"] for r in _json(root, "--all")] == ["finished"]


def test_unchanged_records_are_not_verified_again_and_changed_ones_are(tmp_path, lib, monkeypatch):
    root = _root(tmp_path, lib, names=("m1", "m2"))
    first = hist.build_history(root, P)
    assert first.verified == 2 and first.cache_error is None
    assert (root / "profiles" / P / hist.CACHE_NAME).exists()
    calls = []
    real = hist.verify_record

    def counting(path, data, **kw):
        calls.append(str(path))
        return real(path, data, **kw)

    monkeypatch.setattr(hist, "verify_record", counting)
    again = hist.build_history(root, P)
    assert calls == [] and len(again.matches) == 2
    target = root / "profiles" / P / "tables" / lib["games"]["m2"].table / "transcript.jsonl"
    stamp = target.stat().st_mtime
    tamper(target)
    os.utime(target, (stamp, stamp))  # same time: only the content changed
    after = hist.build_history(root, P)
    assert calls == [str(target)]
    assert len(after.matches) == 1 and [r.path for r in after.bad] == [str(target)]


def test_a_damaged_cache_only_costs_a_new_check(tmp_path, lib):
    root = _root(tmp_path, lib, names=("m1",))
    cache = root / "profiles" / P / hist.CACHE_NAME
    cache.write_text('{"v": 1, "record": {"nonsense": true}}\nnot json\n')
    h = hist.build_history(root, P)
    assert h.verified == 1 and len(h.matches) == 1
    assert '"status": "finished"' in cache.read_text()
    # a cached verdict with the right key but a wrong type is a miss too, not a crash
    line = json.loads(cache.read_text().splitlines()[0])
    line["record"]["seats"][0]["place"] = "1"
    cache.write_text(json.dumps(line) + "\n")
    h = hist.build_history(root, P)
    assert h.verified == 1 and h.matches[0].entry.seats[0].place in (1, 2, 3)
    assert _run(root, "--ratings").exit_code == 0


def test_a_forged_cache_entry_for_a_changed_file_is_not_believed(tmp_path, lib):
    """The cache is keyed by content: a record edited after being indexed is checked again."""
    root = _root(tmp_path, lib, names=("m1",))
    hist.build_history(root, P)
    rec = root / "profiles" / P / "tables" / lib["games"]["m1"].table / "transcript.jsonl"
    tamper(rec)
    h = hist.build_history(root, P)
    assert h.matches == [] and len(h.bad) == 1


def test_history_never_writes_into_records(tmp_path, lib):
    root = _root(tmp_path, lib)
    before = {
        p: (p.read_bytes(), p.stat().st_mtime_ns)
        for p in (root / "profiles").rglob("*")
        if p.is_file() and p.name != hist.CACHE_NAME
    }
    for args in ((), ("--ratings",), ("--opponents",), ("--variants",), ("--all", "--json")):
        assert _run(root, *args).exit_code == 0
    after = {
        p: (p.read_bytes(), p.stat().st_mtime_ns)
        for p in (root / "profiles").rglob("*")
        if p.is_file() and p.name != hist.CACHE_NAME
    }
    assert after == before


@pytest.mark.parametrize("code", [errno.EROFS, errno.ENOSPC])
def test_a_read_only_or_full_data_dir_gives_one_sentence(tmp_path, lib, monkeypatch, code):
    """(Tests run as root here, so chmod cannot make a folder read-only: the OS error is made.)"""
    root = _root(tmp_path, lib, names=("m1", "m2"))

    def refuse(*a, **kw):
        raise OSError(code, os.strerror(code))

    monkeypatch.setattr(tempfile, "mkstemp", refuse)
    res = _run(root)
    assert res.exit_code == 0, res.output
    assert res.stdout.count("your result: ") == 2  # the history itself is complete
    err = res.stderr.strip().splitlines()
    assert len(err) == 1 and "was not saved" in err[0] and os.strerror(code) in err[0]
    assert "Traceback" not in res.output
    assert not (root / "profiles" / P / hist.CACHE_NAME).exists()


def test_an_unreadable_data_dir_gives_one_sentence(tmp_path, monkeypatch):
    root = tmp_path / "data"
    (root / "profiles" / P / "tables").mkdir(parents=True)

    def refuse(self, pattern):
        raise PermissionError(errno.EACCES, "Permission denied")

    monkeypatch.setattr(Path, "rglob", refuse)
    res = CliRunner().invoke(cli, ["history", "--data-dir", str(root), "--profile", P])
    assert res.exit_code == 1
    assert res.output.startswith("Error: cannot read the records under")
    assert "Traceback" not in res.output and len(res.output.strip().splitlines()) == 1


def test_an_empty_history_says_so(tmp_path):
    (tmp_path / "empty").mkdir()
    res = _run(tmp_path / "empty")
    assert res.exit_code == 0 and "No finished matches" in res.output
    assert list((tmp_path / "empty").iterdir()) == []  # looking creates nothing
    res = _run(tmp_path / "nothing")  # a mistyped --data-dir is said, not an empty history
    assert res.exit_code == 1 and "does not exist" in res.output
    assert not (tmp_path / "nothing").exists()


def test_a_match_without_me_counts_for_the_others_only(tmp_path, lib):
    root = _root(tmp_path, lib, names=("m1", "theirs"))
    rows = _json(root)
    theirs = [r for r in rows if r["table"] == lib["games"]["theirs"].table][0]
    assert theirs["me"] is None and theirs["result"] is None
    assert "you did not play in this match" in _run(root).output
    opp = {o["key"]: o["games"] for o in _json(root, "--opponents")}
    assert set(opp.values()) == {1}  # only m1 meets anyone
    rat = {r["key"]: r["games"] for r in _json(root, "--ratings")}
    assert rat[lib["a"].public_key.hex()] == 2  # m1 and theirs


def test_opponent_tallies_follow_the_placements(tmp_path, lib):
    root = _root(tmp_path, lib)
    opp = {o["key"]: o for o in _json(root, "--opponents")}
    me = lib["me"].public_key.hex()
    want: dict[str, list[int]] = {}
    for n in ("m1", "m2", "m3", "m4"):
        row = [r for r in _json(root) if r["table"] == lib["games"][n].table][0]
        places = {s["key"]: s["place"] for s in row["seats"]}
        for key, place in places.items():
            if key == me:
                continue
            w = want.setdefault(key, [0, 0, 0, 0])
            w[0] += 1
            w[1] += places[me] < place
            w[2] += places[me] > place
            w[3] += places[me] == place
    assert {k: [o["games"], o["wins"], o["losses"], o["ties"]] for k, o in opp.items()} == want
    assert opp[lib["a"].public_key.hex()]["games"] == 3  # m1, m2, m4


def test_ratings_use_only_verified_matches_and_label_bots(tmp_path, lib):
    root = _root(tmp_path, lib)
    rat = _json(root, "--ratings")
    keys = {r["key"] for r in rat}
    assert keys == {lib[x].public_key.hex() for x in ("me", "a", "b", "c")}
    assert sum(r["rating"] for r in rat) == pytest.approx(1500 * 4, abs=0.5)  # zero-sum
    mine = [r for r in rat if r["me"]]
    assert len(mine) == 1 and mine[0]["games"] == 4
    # the labels are the latest match's (LocalTable's headers call seats 1.. bots)
    label: dict[str, bool] = {}
    for row in sorted(_json(root), key=lambda r: (r["time"], r["head"])):
        label.update({s["key"]: s["bot"] for s in row["seats"]})
    assert {r["key"]: r["bot"] for r in rat} == label and any(label.values())
    text = _run(root, "--ratings").output
    assert text.startswith("Elo ratings from 4 verified matches (start 1500, K 32")
    # the same ratings as the pure function over what the records prove
    h = hist.build_history(root, P)
    table = hist.rate(hist.rated(h.matches))
    assert {r["key"]: r["rating"] for r in rat} == {
        k: round(v.rating, 1) for k, v in table.items()
    }


def test_local_play_records_are_listed_but_not_rated(tmp_path, lib):
    root = _root(tmp_path, lib, names=("m1",))
    (root / "local").mkdir()
    shutil.copyfile(lib["games"]["m4"].record, root / "local" / "play-1.jsonl")
    rows = _json(root)
    local = [r for r in rows if r["local"]]
    assert len(local) == 1 and local[0]["me"] == 0  # the one seat that is not a bot
    assert "a local match against bots (zsy play)" in _run(root).output
    assert all(r["games"] == 1 for r in _json(root, "--ratings"))
    assert sum(v["games"] for v in _json(root, "--variants")) == 2


def test_cli_output_is_sanitised(tmp_path, lib):
    """Nicks and the table name come from peers: no escape sequence reaches the terminal."""
    evil = "\x1b]0;owned\x07eve\x1b[2J\x9b31m"
    g = play(
        tmp_path / "evil.jsonl",
        [lib["me"], lib["a"], lib["b"]],
        seed="ev",
        nicks={0: "me", 1: evil, 2: "bob\u202e\u200b"},
        name="\x1b[31mred\x1b[0m table\r\n",
    )
    root = tmp_path / "data"
    give_profile(root, P, lib["me"])
    file_as_seat(root, P, g)
    for args in ((), ("--opponents",), ("--ratings",), ("--json",), ("--variants",)):
        out = _run(root, *args).output
        for bad in ("\x1b", "\x07", "\x9b", "\u202e", "\u200b", "\r"):
            assert bad not in out, (args, bad)
    assert "eve" in _run(root, "--opponents").output
    assert "red table" in _run(root).output


def test_help_names_the_views():
    res = CliRunner().invoke(cli, ["history", "--help"])
    assert res.exit_code == 0
    for word in ("--opponents", "--variants", "--ratings", "--limit", "--all", "--json"):
        assert word in res.output


def test_the_same_records_give_the_same_ratings_wherever_they_are_filed(tmp_path, lib):
    """Folders that list in another order (and copies found first) change no rating."""
    one = _root(tmp_path / "one", lib)
    two = tmp_path / "two" / "data"
    give_profile(two, P, lib["me"])
    for i, n in enumerate(("m4", "m3", "m2", "m1")):
        g = lib["games"][n]
        dest = two / "profiles" / P / "tables" / f"{i}-{g.table}" / "seat.jsonl"
        dest.parent.mkdir(parents=True)
        shutil.copyfile(g.record, dest)
    stamps = {g.table: 1_700_000_000 + 60 * k for k, g in enumerate(lib["games"].values())}
    for root in (one, two):
        for rec in (root / "profiles").rglob("*.jsonl"):
            table = json.loads(rec.read_text().splitlines()[0])["table"]
            os.utime(rec, (stamps[table], stamps[table]))
    assert _json(one, "--ratings") == _json(two, "--ratings")


def test_a_private_deal_match_is_verified_with_its_audits(tmp_path):
    """The private deal's record (mental poker) is checked by an observer, as zsy replay does."""
    sys.path.insert(0, str(Path(__file__).parent.parent / "private"))
    from private_support import PrivateTable, identity

    from zsy_lan.engine.ruleset import build_rules
    from zsy_lan.protocol.lobby import Roster, Seat
    from zsy_lan.record.header import transcript_header

    rules = build_rules(3, [], {"zsy.scoring": "penalty"})
    t = PrivateTable(rules, 1)
    t.run(max_time=600)
    assert t.done()
    roster = Roster(t.table, "priv", 1, rules.config,
                    [Seat(s, k, b"", "", f"p{s}") for s, k in t.roster.items()], deal="private")
    root = tmp_path / "data"
    give_profile(root, P, identity(1))
    rec = root / "profiles" / P / "tables" / t.table / "transcript.jsonl"
    rec.parent.mkdir(parents=True)
    rec.write_text("\n".join([transcript_header(roster), *t.nodes[0].transcript]) + "\n")
    (row,) = _json(root)
    match = t.nodes[0].game.match
    assert row["deal"] == "private" and row["me"] == 1
    assert row["winners"] == sorted(match.winners)
    assert [s["points"] for s in row["seats"]] == list(match.totals)
    assert "private deal" in _run(root).output


def test_a_record_that_cannot_be_read_is_a_local_fault_not_a_bad_record(tmp_path, lib, monkeypatch):
    root = _root(tmp_path, lib, names=("m1", "m2"))
    locked = root / "profiles" / P / "tables" / lib["games"]["m2"].table / "transcript.jsonl"
    real = Path.read_bytes

    def read_bytes(self):
        if self == locked:
            raise PermissionError(errno.EACCES, "Permission denied")
        return real(self)

    monkeypatch.setattr(Path, "read_bytes", read_bytes)
    res = _run(root)
    assert res.exit_code == 0 and "Traceback" not in res.output
    assert f"CANNOT BE READ (counts for nothing until it can): {locked}" in res.output
    assert "Permission denied" in res.output and "DOES NOT VERIFY" not in res.output
    assert res.output.count("your result: ") == 1
    monkeypatch.setattr(Path, "read_bytes", real)  # readable again: it counts
    assert len(_json(root)) == 2


@pytest.mark.slow
def test_a_hosted_table_with_bot_seats_is_one_match(tmp_path):
    """A real `zsy host --bots 2 --bot easy` on loopback leaves three seats' records: one match."""
    import subprocess

    zsy = str(Path(sys.executable).with_name("zsy"))
    root = tmp_path / "data"
    proc = subprocess.Popen(
        [zsy, "host", "--players", "3", "--rounds", "1", "--bots", "2", "--bot", "easy",
         "--bot-level", "easy", "--no-mdns", "--interface", "lo", "--data-dir", str(root),
         "--nick", "hosty"],
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        env={**os.environ, "ZSY_LANG": "en"},
    )
    try:
        out, _ = proc.communicate(timeout=90)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)
    assert proc.returncode == 0, out.decode(errors="replace")
    records = sorted((root / "profiles" / "default" / "tables").rglob("transcript.jsonl"))
    assert len(records) == 3  # the host's seat and its two bot seats
    res = CliRunner().invoke(cli, ["history", "--data-dir", str(root), "--json"])
    (row,) = json.loads(res.stdout)
    assert sorted(row["copies"]) == [str(p) for p in records]
    assert row["record"] == str(min(records, key=lambda p: len(p.parts)))  # the host's own
    assert row["me"] == 0 and row["deal"] == "private"
    assert {s["place"] for s in row["seats"] if s["seat"] in row["winners"]} == {1}
    rat = json.loads(
        CliRunner().invoke(cli, ["history", "--data-dir", str(root), "--json", "--ratings"]).stdout
    )
    assert [r["games"] for r in rat] == [1, 1, 1]
    assert sorted(r["bot"] for r in rat if not r["me"]) == [True, True]
