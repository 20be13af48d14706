"""Table settings as a record (issue #15): parsed, carried, signed, saved, never leaking.

Sans-IO: the settings record, the lobby's invitation check, the join URL,
the mDNS TXT items, the roster that resume reads and the transcript header
that ``zsy replay`` reads.
"""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from zsy_lan.cli import cli
from zsy_lan.engine.ruleset import build_rules, ruleset_id
from zsy_lan.net.discovery import TableInfo
from zsy_lan.protocol import Identity
from zsy_lan.protocol.host_lobby import HostLobby
from zsy_lan.protocol.lobby import Roster, Seat, join_body, open_lobby, seal_lobby
from zsy_lan.protocol.table_settings import (
    CLOCK_PRESETS,
    INVITE_REFUSAL,
    TableSettings,
    parse_clock,
    settings_line,
)
from zsy_lan.record.header import transcript_header
from zsy_lan.record.store import TableStore
from zsy_lan.table.clock import TurnClock
from zsy_lan.table.reach import TableError, invite_in, join_url, parse_join_url

SECRET = "s3cr3t-invitation-0123"


def test_presets_and_seconds():
    assert CLOCK_PRESETS == {"off": None, "fast": 15, "normal": 30, "slow": 60}
    assert parse_clock("normal") == 30 and parse_clock("off") is None
    assert parse_clock("45") == 45
    for bad in ("2", "601", "soon", ""):
        with pytest.raises(ValueError, match="from 3 to 600"):
            parse_clock(bad)


def test_settings_round_trip_and_refuse_malformed():
    s = TableSettings(clock=5, hints=False, counter=True, invite=True)
    assert TableSettings.from_json(json.loads(json.dumps(s.to_json()))) == s
    assert TableSettings.from_json(None) == TableSettings()  # a roster from before settings
    for bad in ({"clock": 1.5}, {"clock": 2}, {"clock": "30"}, {"hints": "no"}, []):
        with pytest.raises(ValueError):
            TableSettings.from_json(bad)
    line = settings_line(s)
    assert "5 seconds per turn" in line and "hints off" in line and "invite only" in line


def _roster(settings: TableSettings) -> tuple[Roster, list[Identity]]:
    rules = build_rules(3, [], {})
    ids = [Identity.generate() for _ in range(3)]
    seats = [
        Seat(k, i.public_key, i.curve_public, f"tcp://127.0.0.1:{4000 + k}", f"p{k}")
        for k, i in enumerate(ids)
    ]
    return Roster("t1", "table", 1, rules.config, seats, "open", settings), ids


def test_settings_survive_the_saved_roster_and_reach_the_transcript_header(tmp_path):
    """Resume reads roster.json; zsy replay reads the header: both keep the settings."""
    settings = TableSettings(clock=5, hints=False, counter=False, invite=True)
    roster, _ids = _roster(settings)
    store = TableStore(tmp_path / "t1")
    store.path.mkdir(parents=True)
    store.save_roster(roster.to_json(), 1)
    data, seat = store.load_roster()
    assert seat == 1 and Roster.from_json(data).settings == settings
    header = json.loads(transcript_header(roster))
    assert TableSettings.from_json(header["game"]["settings"]) == settings
    # a default table's header and roster read exactly as before settings existed
    plain, _ids = _roster(TableSettings())
    assert "settings" not in plain.to_json()
    assert "settings" not in json.loads(transcript_header(plain))["game"]


def test_a_roster_with_malformed_settings_is_refused():
    roster, _ids = _roster(TableSettings(clock=30))
    data = roster.to_json()
    data["settings"] = {"clock": -4}
    with pytest.raises(ValueError, match="malformed roster"):
        Roster.from_json(data)


def test_join_url_carries_the_invitation_and_the_key_still_parses():
    key = bytes(range(32))
    url = join_url("tcp://127.0.0.1:5000", key, SECRET)
    assert url.endswith("." + SECRET)
    assert parse_join_url(url) == ("tcp://127.0.0.1:5000", key)
    assert invite_in(url) == SECRET
    plain = join_url("tcp://127.0.0.1:5000", key)
    assert invite_in(plain) is None and parse_join_url(plain)[1] == key


@pytest.mark.parametrize("after", ["）", ")", "。", ".", "”", "）。", " "])
def test_a_line_copied_with_its_sentences_closing_mark_still_joins(after):
    """Found by hand: zh prints "（zsy join tcp://…#KEY）"; a copy that took the "）" was
    refused as "not a valid table key". Nothing a sentence puts after a line is part of one."""
    key = Identity.generate().curve_public
    for line in (join_url("tcp://127.0.0.1:5000", key, SECRET), join_url("tcp://[::1]:5", key)):
        copied = line + after
        assert parse_join_url(copied) == parse_join_url(line)
        assert invite_in(copied) == invite_in(line)
    with pytest.raises(TableError, match="not a valid table key"):
        parse_join_url(join_url("tcp://127.0.0.1:5000", key)[:-1] + "）")  # a key cut short


def _lobby(invite: str | None) -> HostLobby:
    host = Identity.generate()
    rules = build_rules(3, [], {})
    roster = Roster(
        "t1",
        "table",
        1,
        rules.config,
        [Seat(0, host.public_key, host.curve_public, "tcp://127.0.0.1:4000", "host")],
        settings=TableSettings(invite=invite is not None),
    )
    return HostLobby(host, roster, 3, ruleset_id(rules), invite=invite)


def _join(ident: Identity, invite: str | None):
    body = join_body(ident, "ana", "tcp://127.0.0.1:5000", invite=invite)
    return open_lobby(seal_lobby(ident, "join", body))


@pytest.mark.parametrize("given", [None, "", "wrong", SECRET + "x", SECRET[:-1], 12, "é" * 4])
def test_a_join_without_the_right_invitation_is_refused_in_one_sentence(given):
    lobby = _lobby(SECRET)
    ident = Identity.generate()
    body = join_body(ident, "ana", "tcp://127.0.0.1:5000")
    if given is not None:
        body["invite"] = given
    reply, reason = lobby.on_join(open_lobby(seal_lobby(ident, "join", body)))
    assert reason == INVITE_REFUSAL
    msg = open_lobby(reply)
    assert msg.kind == "refused" and msg.body == {"reason": INVITE_REFUSAL}
    assert not lobby.pending  # nothing kept for a stranger


def test_the_right_invitation_is_welcomed_and_the_welcome_carries_the_settings():
    lobby = _lobby(SECRET)
    reply, reason = lobby.on_join(_join(Identity.generate(), SECRET))
    assert reason is None
    welcome = open_lobby(reply)
    assert welcome.kind == "welcome"
    assert TableSettings.from_json(welcome.body["settings"]).invite is True
    assert SECRET not in reply.decode("utf-8", "replace")  # the secret never comes back
    assert "invite" not in next(iter(lobby.pending.values())).body  # nor is it kept


def test_the_hosts_own_bots_need_no_invitation_and_open_tables_need_none():
    lobby = _lobby(SECRET)
    bot = Identity.generate()
    lobby.hosted = {bot.public_key}
    assert lobby.on_join(_join(bot, None))[1] is None
    assert _lobby(None).on_join(_join(Identity.generate(), None))[1] is None


def test_mdns_txt_has_the_flag_clock_and_assists_but_no_secret():
    settings = TableSettings(clock=15, hints=False, counter=True, invite=True)
    info = TableInfo(
        table_id="abc",
        name="t",
        protocol_version=1,
        ruleset_id="rs",
        variants=("zsy",),
        free_seats=2,
        seats=3,
        fingerprint="fp",
        port=4000,
        curve_key=bytes(32),
        settings=settings,
    )
    txt = info.to_txt()
    assert txt["invite"] == "1" and txt["clock"] == "15" and txt["assists"] == "counter"
    back = TableInfo.from_txt({k.encode(): v.encode() for k, v in txt.items()})
    assert back.settings == settings
    # an older host's record (no such items) reads as no clock, every assist, open
    new_items = ("invite", "clock", "assists")
    old = {k.encode(): v.encode() for k, v in txt.items() if k not in new_items}
    assert TableInfo.from_txt(old).settings == TableSettings()


def test_zsy_tables_marks_invite_only_tables_and_shows_clock_and_assists(monkeypatch):
    settings = TableSettings(clock=30, hints=False, counter=False, invite=True)
    info = TableInfo(
        table_id="abc",
        name="friends",
        protocol_version=1,
        ruleset_id="rs",
        variants=("zsy",),
        free_seats=2,
        seats=3,
        fingerprint="fp",
        port=4000,
        curve_key=bytes(32),
        addresses=("127.0.0.1",),
        settings=settings,
    )

    async def fake_browse(addrs, timeout=3.0):
        assert addrs == ["127.0.0.1"]
        return [info]

    monkeypatch.setattr("zsy_lan.net.discovery.browse_tables", fake_browse)
    out = CliRunner().invoke(cli, ["tables", "--interface", "lo"])
    assert out.exit_code == 0, out.output
    assert "invite only" in out.output
    assert "table clock 30 seconds per turn" in out.output
    assert "hints and card counter off" in out.output
    as_json = CliRunner().invoke(cli, ["tables", "--interface", "lo", "--json"])
    row = json.loads(as_json.output)[0]
    assert row["invite"] is True and row["clock"] == 30 and row["hints"] is False


def test_zsy_join_turn_timer_says_the_host_sets_the_clock():
    out = CliRunner().invoke(cli, ["join", "--turn-timer", "fast", "somewhere"])
    assert out.exit_code == 2
    assert "the host sets the table clock for everyone" in out.output
    assert "Traceback" not in out.output


def test_zsy_host_refuses_a_bad_clock_in_one_sentence():
    out = CliRunner().invoke(cli, ["host", "--turn-timer", "1"])
    assert out.exit_code == 2 and "from 3 to 600" in out.output


def test_the_countdown_counts_on_the_clock_it_is_given():
    now = [100.0]
    clock = TurnClock(30, lambda: now[0])
    assert clock.left() is None  # no turn seen yet
    clock.turn("k1")
    now[0] += 12.5
    assert clock.left() == 18
    clock.turn("k1")  # the same turn: the count goes on
    assert clock.left() == 18
    clock.turn("k2")  # a new turn starts from the full clock
    assert clock.left() == 30
    assert TurnClock(None).left() is None
