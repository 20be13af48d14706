"""A record cannot be re-keyed: nobody can claim, from a record, to have played a seat.

Issue #25. The hole: in a record (line 1 the header with every seat's Ed25519 key, then
one signed frame per line) replace seat 1's key in the header with your own and re-sign
seat 1's lines with it. The feed digests cover only the signed part, so the chains held,
``zsy replay --verify`` said OK and ``zsy history`` credited the forger's key with seat
1's result. Now every seat's first message chains (``prev`` at seq 1) to the digest of
the table id and *every* seat's key (``roster_binding``): the other seats' signatures
vouch for seat 1's real key, so a header that gives it another one is DAMAGED (the header
is nobody's signed word: no seat is named), never OK, in replay, history and the
spectator's follower alike. Live, a modified seat that signs its first message for
another roster is refused, told to the player as no cheat, and never enters the record.

The forgeries are done for real on real records (a local table of bots, and a seat's
:class:`TablePeer` record from tests/adversarial/test_storage.py's table, whose keys
the test holds), with a fresh :class:`Identity` as the forger's.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from local_support import play_out_now  # noqa: E402
from test_storage import Table, identities  # noqa: E402

from zsy_lan.cli import cli  # noqa: E402
from zsy_lan.engine.ruleset import build_rules  # noqa: E402
from zsy_lan.protocol import Identity, Replica, seal  # noqa: E402
from zsy_lan.protocol.canonical import canonical  # noqa: E402
from zsy_lan.protocol.envelope import Envelope, open_frame, roster_binding  # noqa: E402
from zsy_lan.protocol.events import Rejected, Stalled  # noqa: E402
from zsy_lan.protocol.transcript import (  # noqa: E402
    DAMAGED,
    HEADER_LINE,
    dump_line,
    load_entry,
    load_header,
)
from zsy_lan.record.history import (  # noqa: E402
    BAD,
    CACHE_NAME,
    FINISHED,
    build_history,
    known_players,
    verify_record,
)
from zsy_lan.record.replay import check_record  # noqa: E402
from zsy_lan.record.store import save_identity  # noqa: E402
from zsy_lan.table.follower import Follower, FollowError  # noqa: E402
from zsy_lan.table.local_table import make_local_table  # noqa: E402

pytestmark = pytest.mark.xdist_group("record_rekeyed")  # one module-scoped record

HEADER_SENTENCE = "DAMAGED: the record's header (line 1, which no seat signs) does not match"
FORGER = Identity.from_seed(hashlib.sha256(b"rekeyed-forger").digest())


@pytest.fixture(scope="module")
def bots(tmp_path_factory) -> bytes:
    """A whole match of a local table of bots (4 seats, 2 rounds): a genuine record."""
    path = tmp_path_factory.mktemp("rekeyed") / "bots.jsonl"
    table = make_local_table(build_rules(4), 2, 0, "easy", path, seed="rekey", bot_chat=False)
    play_out_now(table)
    return path.read_bytes()


def _lines(data: bytes) -> list[str]:
    return [ln for ln in data.decode().split("\n") if ln.strip()]


def _header(data: bytes) -> tuple[dict[str, Any], str, dict[int, bytes]]:
    first = _lines(data)[0]
    table, roster = load_header(first)
    return json.loads(first), table, roster


def rekey(data: bytes, seat: int, forger: Identity, opener: str = "own") -> bytes:
    """The forgery: the header gives ``seat`` the forger's key, and each of that seat's
    lines is re-signed with it. ``opener`` is what its first message chains to:

    * ``"keep"``: the payloads as they were (what re-signing alone gives);
    * ``"own"``: the forged roster's binding, the whole feed re-chained from there (the
      forger's most careful try: its own lines are then consistent with the header);
    * ``"none"``: ``""``, as a version before issue #25 signed.
    """
    header, table, roster = _header(data)
    forged = dict(roster)
    forged[seat] = forger.public_key
    header["roster"][str(seat)] = forger.public_key.hex()
    first = {"keep": None, "own": roster_binding(table, forged), "none": ""}[opener]
    digests: dict[int, str] = {}  # the re-signed feed's digests, by seq
    out = [canonical(header).decode()]
    for line in _lines(data)[1:]:
        who, frame, aside = load_entry(line)
        env = open_frame(frame, roster, table)
        if env.seat != seat:
            out.append(line)
            continue
        if first is None:
            prev = env.prev
        else:
            prev = first if env.seq == 1 else digests[env.seq - 1]
        again = seal(
            forger, table=table, seat=seat, seq=env.seq, prev=prev, state=env.state,
            type=env.type, body=env.body,
        )  # fmt: skip
        digests[env.seq] = hashlib.sha256(again[:-64]).hexdigest()
        out.append(dump_line(who, again, aside=aside))
    return ("\n".join(out) + "\n").encode()


def _assert_damaged_header(data: bytes) -> Any:
    r = check_record(data).result
    assert not r.ok and r.kind == DAMAGED and r.culprit is None, (r.kind, r.bad_line, r.reason)
    assert r.bad_line == HEADER_LINE and "are not the ones seat" in r.reason, r.reason
    return r


def test_the_genuine_record_binds_every_seat_to_its_roster(bots):
    """What the checks rest on: each seat's first message chains to the roster binding."""
    _, table, roster = _header(bots)
    firsts = {}
    for line in _lines(bots)[1:]:
        env = open_frame(load_entry(line)[1], roster, table)
        if env.seq == 1:
            firsts[env.seat] = env.prev
    assert firsts == {s: roster_binding(table, roster) for s in range(4)}
    assert check_record(bots).result.ok and check_record(bots).result.finished


@pytest.mark.parametrize("opener", ["keep", "own", "none"])
@pytest.mark.parametrize("seat", [0, 1, 3])
def test_a_rekeyed_record_is_damaged_and_names_nobody(bots, seat, opener):
    """Whichever seat is re-keyed and however the forger chains its own lines, the other
    seats' signed bindings disagree with the header: DAMAGED at line 1, no seat named."""
    forged = rekey(bots, seat, FORGER, opener)
    r = _assert_damaged_header(forged)
    assert r.culprit is None


def _forged_chains_hold(data: bytes, seat: int) -> None:
    """The forger's lines verify with its key and chain (what made the old hole work)."""
    _, table, roster = _header(data)
    feed: list[Envelope] = []
    for line in _lines(data)[1:]:
        who, frame, _aside = load_entry(line)
        if who == seat:  # (the other seats' first messages are what refuse this header)
            feed.append(open_frame(frame, roster, table))
    assert feed and all(b.prev == a.digest for a, b in zip(feed, feed[1:], strict=False))


def test_the_forgery_is_well_made(bots):
    """The test's forgery is a good one: the forged seat's feed opens under the forged key
    and chains from the forged roster's binding (so only the other seats catch it)."""
    forged = rekey(bots, 1, FORGER, "own")
    _forged_chains_hold(forged, 1)
    _, table, roster = _header(forged)
    assert roster[1] == FORGER.public_key


def test_zsy_replay_verify_says_damaged_not_ok(bots, tmp_path):
    path = tmp_path / "forged.jsonl"
    path.write_bytes(rekey(bots, 1, FORGER))
    res = CliRunner().invoke(cli, ["replay", "--verify", str(path)])
    assert res.exit_code == 1, res.output
    assert HEADER_SENTENCE in res.output and "another copy" in res.output
    assert not res.output.startswith("OK") and "TAMPERED" not in res.output
    as_json = json.loads(CliRunner().invoke(cli, ["replay", "--json", str(path)]).stdout)
    assert as_json["kind"] == DAMAGED and as_json["culprit"] is None
    assert as_json["bad_line"] == HEADER_LINE


def test_a_spectator_following_a_rekeyed_record_stops_naming_nobody(bots):
    header, *rest = rekey(bots, 2, FORGER).decode().splitlines()
    follower = Follower(header, retain=None)
    with pytest.raises(FollowError) as err:
        for line in rest:
            follower.add(line)
    assert err.value.kind == DAMAGED and err.value.culprit is None
    assert err.value.line == HEADER_LINE


# -- a real seat's record, and the forger's history --------------------------------------


@pytest.mark.asyncio
async def test_history_credits_no_key_with_a_rekeyed_peer_record(tmp_path):
    """Seat 0 is a real :class:`TablePeer`; its record is copied into the forger's profile
    with seat 1 re-keyed to the forger. The forger's ``zsy history`` lists it as not
    verifying and credits the forger with nothing; the genuine copy lists seat 1's key."""
    t = Table(tmp_path / "seat0")
    t.start()
    t.play(60)
    await t.close()
    genuine = (tmp_path / "seat0" / "transcript.jsonl").read_bytes()
    assert check_record(genuine).result.ok  # (a match under way: history lists it so)

    root = tmp_path / "data"
    folder = root / "profiles" / "forger" / "tables" / "t-storage"
    folder.mkdir(parents=True)
    save_identity(FORGER, root / "profiles" / "forger" / "identity.pem")
    (folder / "transcript.jsonl").write_bytes(rekey(genuine, 1, FORGER))

    res = CliRunner().invoke(cli, ["history", "--data-dir", str(root), "--profile", "forger"])
    assert res.exit_code == 0, res.output
    assert "DOES NOT VERIFY" in res.output and HEADER_SENTENCE in res.output
    assert "TAMPERED" not in res.output
    history = build_history(root, "forger", save=False)
    assert history.matches == [] and history.unfinished == []  # no result credited to it
    (entry,) = history.bad
    assert entry.status == BAD and entry.kind == DAMAGED and entry.culprit == -1
    assert entry.seats == []  # no key of the forged roster is listed as having sat there
    assert FORGER.public_key not in known_players(history)

    # the same record kept genuinely (seat 1's own profile) is listed with seat 1's key
    real = root / "profiles" / "p1"
    (real / "tables" / "t-storage").mkdir(parents=True)
    save_identity(identities()[1], real / "identity.pem")
    (real / "tables" / "t-storage" / "transcript.jsonl").write_bytes(genuine)
    ok = build_history(root, "p1", save=False)
    (listed,) = ok.unfinished
    assert ok.bad == [] and listed.seats[1].key == identities()[1].public_key.hex()


# -- live: a modified seat that signs its first message for another roster ---------------


class _OtherRoster(Replica):
    """A modified client: a real replica whose first message chains to another roster
    (seat 2's key swapped for the forger's), as a seat would that meant to claim the
    record for a key that never sat there, or that a lying host seated with another list."""

    def __init__(self, *args: Any, **kw: Any) -> None:
        super().__init__(*args, **kw)
        other = dict(self.roster)
        other[2] = FORGER.public_key
        self.ledger.head_0 = roster_binding(self.table, other)


def _modified_table(path: Path) -> Table:
    base = Table(path)  # seats 1 and 2 as bare replicas; seat 1 replaced by the modified one
    honest = base.others[1]
    liar = base.others[0]
    modified = _OtherRoster(
        liar.table, 1, identities()[1], liar.roster, liar.game, entropy=lambda n: b"\x01" * n,
        relay=False,
    )  # fmt: skip
    return Table(path, others=[modified, honest])


@pytest.mark.asyncio
async def test_a_live_seat_signing_another_roster_is_refused_and_told_as_no_cheat(tmp_path):
    t = _modified_table(tmp_path / "seat0")
    t.start()
    t.play(6)
    honest = t.others[1]
    # seat 1's signed first message, handed again to an honest replica: refused, its
    # signer named as the sender, and no cheat called anywhere
    events = honest.receive(t.others[0].ledger.feeds[1][0].frame, 0.0)
    (refused,) = [e for e in events if isinstance(e, Rejected)]
    assert refused.sender == 1 and "another roster" in refused.reason
    assert t.cheats == [] and t.peer.replica.halted is None and honest.halted is None
    assert t.peer.replica.ledger.next_seq(1) == 1  # nothing of seat 1 was filed
    assert honest.ledger.next_seq(1) == 1
    assert t.peer.replica.stats["rejected"] >= 1
    # the commits wait on seat 1's: nothing entered seat 0's record (the transcript file
    # is written from the first entry on), so its frame is in no honest record
    assert not (tmp_path / "seat0" / "transcript.jsonl").exists()
    assert len(t.peer.replica.ledger.entries) == 0
    await t.close()


@pytest.mark.asyncio
async def test_the_player_is_told_which_seat_signed_another_roster(tmp_path):
    """Seat 0's player reads, once the table waits on seat 1, that it sent a first message
    for another list of seats and keys, which the table refuses: no cheat, no "withholding"."""
    t = _modified_table(tmp_path / "seat0")
    t.start()
    t.play(6)
    notices = []
    while not t.peer.notices.empty():
        notices.append(t.peer.notices.get_nowait().text)
    t.peer.narration.stalled(Stalled(1, "commit"))  # what the replica says in time
    while not t.peer.notices.empty():
        notices.append(t.peer.notices.get_nowait().text)
    told = [n for n in notices if "another list of this table's seats and keys" in n]
    assert told, notices
    assert "p1" in told[0] and "no cheat" in told[0]
    assert not any("cheated" in n for n in notices) and "withhold" not in told[0]
    await t.close()


def test_a_live_replica_refuses_a_first_message_that_binds_no_roster(tmp_path):
    """A modified seat cannot opt out of vouching by signing ``""`` (what older versions
    signed) at a table this version began: refused, its signer known, no cheat."""
    t = Table(tmp_path / "x")
    honest = t.others[1]
    frame = seal(
        identities()[1], table=t.roster.table, seat=1, seq=1, prev="",
        state=honest.game.public_hash(), type="commit", body={"round": 0, "commit": "ab" * 32},
    )  # fmt: skip
    events = honest.receive(frame, 0.0)
    (refused,) = [e for e in events if isinstance(e, Rejected)]
    assert refused.sender == 1 and "binds no roster" in refused.reason
    assert honest.ledger.next_seq(1) == 1 and honest.halted is None
    # a record of before #25 takes it (zsy replay of old records): only live it is refused
    assert open_frame(frame, t.roster.keys, t.roster.table).seq == 1


# -- old records ---------------------------------------------------------------------------


def _unbind(data: bytes, ids: dict[int, Identity]) -> bytes:
    """The record as a version before #25 would have written it: every first message
    signs ``""`` (each seat's feed re-chained from there; the test holds every key)."""
    header, table, roster = _header(data)
    last: dict[tuple[int, int], str] = {}
    out = [_lines(data)[0]]
    for line in _lines(data)[1:]:
        who, frame, aside = load_entry(line)
        env = open_frame(frame, roster, table)
        prev = "" if env.seq == 1 else last[(env.seat, env.seq - 1)]
        again = seal(
            ids[env.seat], table=table, seat=env.seat, seq=env.seq, prev=prev,
            state=env.state, type=env.type, body=env.body,
        )  # fmt: skip
        last[(env.seat, env.seq)] = hashlib.sha256(again[:-64]).hexdigest()
        out.append(dump_line(who, again, aside=aside))
    return ("\n".join(out) + "\n").encode()


@pytest.mark.asyncio
async def test_an_old_record_still_verifies_and_what_it_does_not_prove(tmp_path):
    """A record of before #25 (no binding) verifies as before. What it cannot prove: who
    sat where; re-keyed, it still verifies (documented in docs/protocol.md). A record that
    mixes (a forger stripping its own binding from a new one) is caught by the others'."""
    t = Table(tmp_path / "seat0")
    t.start()
    t.play(30)
    await t.close()
    genuine = (tmp_path / "seat0" / "transcript.jsonl").read_bytes()
    old = _unbind(genuine, dict(enumerate(identities())))
    r = check_record(old).result
    assert r.ok, r.reason
    assert check_record(rekey(old, 1, FORGER, "none")).result.ok  # the limit, as documented
    _assert_damaged_header(rekey(genuine, 1, FORGER, "none"))


def test_a_rekeyed_record_cached_as_verified_is_verified_again(bots, tmp_path):
    """``zsy history`` before this change kept a re-keyed record as verified (cache version
    3), crediting the forger's key: that verdict is not trusted again."""
    root = tmp_path / "data"
    folder = root / "profiles" / "forger" / "tables" / "t"
    folder.mkdir(parents=True)
    save_identity(FORGER, root / "profiles" / "forger" / "identity.pem")
    path = folder / "transcript.jsonl"
    path.write_bytes(rekey(bots, 1, FORGER))
    old = verify_record(path, path.read_bytes())
    old.status, old.kind, old.line, old.reason = FINISHED, "", 0, ""
    cache = root / "profiles" / "forger" / CACHE_NAME
    cache.write_text(json.dumps({"v": 3, "record": old.to_cache()}) + "\n")
    history = build_history(root, "forger", save=False)
    assert history.matches == [] and [e.kind for e in history.bad] == [DAMAGED]


def test_a_seat_resumed_at_a_table_begun_before_the_binding_goes_on_as_it_began(tmp_path):
    """A table an older version began (every first message signs ``""``), resumed with this
    one: the seat's own journal says so, and it takes the other seats' old first messages."""
    t = Table(tmp_path / "x")
    fresh = t.others[1]  # seat 2
    state = fresh.game.public_hash()

    def old_commit(seat: int) -> bytes:
        return seal(
            identities()[seat], table=t.roster.table, seat=seat, seq=1, prev="", state=state,
            type="commit", body={"round": 0, "commit": f"{seat:02x}" * 32},
        )  # fmt: skip

    assert any(isinstance(e, Rejected) for e in fresh.receive(old_commit(1), 0.0))
    resumed = Replica(
        t.roster.table, 2, identities()[2], t.roster.keys, type(fresh.game)(t.rules, 2),
        entropy=lambda n: b"\x02" * n, relay=False,
    )  # fmt: skip
    resumed.restore([("frame/1", old_commit(2))], [], 0.0)
    assert resumed.unbound
    assert not any(isinstance(e, Rejected) for e in resumed.receive(old_commit(1), 0.0))
    assert resumed.ledger.next_seq(1) == 2
