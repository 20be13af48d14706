"""What is left of the former home-made relay (issue #29): a sentence, wherever an old line
or script still names it.

``zsy-relay://HOST:PORT#KEY`` lines were printed by ``zsy relay`` before it became an MQTT
broker, and kept in join and watch lines, in hosts' scripts and in table folders. Each now
gets one sentence that says what changed and what to do, never a traceback; a record made
at such a table still verifies (tests/golden/test_old_relay_record.py).
"""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from zsy_lan.cli import cli
from zsy_lan.net.broker import BrokerAddress, RelayError, parse_relay_url
from zsy_lan.table.relay_join import saved_relay, split_target

OLD = "zsy-relay://192.0.2.7:7641#" + "b" * 43
LINE = "tcp://127.0.0.1:9#" + "A" * 43 + f",relay={OLD},table=3cef06968486"
SAID = "zsy-relay:// lines belong to the former relay"
GOLDEN = Path(__file__).resolve().parent.parent / "golden" / "old-relay"


def run(tmp_path: Path, *args: str) -> Result:
    data = [] if args[0] == "watch" else ["--data-dir", str(tmp_path)]  # a spectator keeps none
    return CliRunner().invoke(cli, ["--lang", "en", *args, *data])


def test_an_old_relay_line_says_what_changed_and_what_to_do():
    for old in (OLD, OLD.removeprefix("zsy-relay://")):  # with and without its scheme
        with pytest.raises(RelayError, match=SAID) as info:
            parse_relay_url(old)
        assert "--relay mqtt://HOST" in str(info.value) and "new line" in str(info.value)
    assert parse_relay_url("mqtt://10.0.0.9") == BrokerAddress("10.0.0.9", 1883)


def test_join_lines_name_a_broker_and_an_old_one_is_refused():
    base = "tcp://10.0.0.1:5000#" + "A" * 43
    line = f"{base},relay=mqtt://10.0.0.9:1883,table=3cef06968486"
    assert split_target(line) == (base, BrokerAddress("10.0.0.9", 1883), "3cef06968486")
    assert split_target(base) == (base, None, None)
    with pytest.raises(ValueError, match=SAID):
        split_target(LINE)


@pytest.mark.parametrize(
    ("args", "code"),
    [
        (["host", "--relay", OLD, "--interface", "lo", "--no-mdns"], 2),
        (["join", LINE, "--interface", "lo"], 1),
        (["watch", LINE, "--interface", "lo"], 1),
    ],
    ids=["host", "join", "watch"],
)
def test_host_join_and_watch_with_an_old_line_are_one_sentence(tmp_path, args, code):
    r = run(tmp_path, *args)
    assert r.exit_code == code and SAID in r.output, r.output
    assert isinstance(r.exception, SystemExit) and "Traceback" not in r.output


def test_zsy_relay_legacy_says_the_former_relay_is_gone(tmp_path):
    r = CliRunner().invoke(cli, ["--lang", "en", "relay", "--legacy", "--address", "127.0.0.1"])
    assert r.exit_code == 2, r.output
    assert "the former relay (--legacy, zsy-relay:// lines) is gone" in r.output
    assert "--legacy" not in CliRunner().invoke(cli, ["--lang", "en", "relay", "--help"]).output
    bad = CliRunner().invoke(cli, ["--lang", "en", "relay", "--address", "not-an-ip"])
    assert bad.exit_code == 2 and "'not-an-ip' is not an IP address" in bad.output


def test_a_table_folder_of_the_old_relay_names_it_as_such():
    """A seat resumed from such a folder is told, and resumes on its direct links
    (table/resuming.py); the folder is one made before the change."""
    with pytest.raises(RelayError, match=SAID):
        saved_relay(GOLDEN)
    assert saved_relay(GOLDEN / "nowhere") is None


@pytest.mark.slow
@pytest.mark.timeout(120)
def test_a_seat_resumed_from_a_folder_of_the_old_relay_is_told_and_plays_on(tmp_path):
    """A seat killed mid-match whose table folder names the former relay (as one saved
    before the change would) resumes on its direct links, told why the relay is not used."""
    from test_mqtt_match import Cluster, _lines, check_records  # (it finds tests/table)

    c = Cluster(tmp_path)
    c.extra_env.update(ZSY_LANG="en", ZSY_TIMING="heartbeat=0.5,want_retry=0.2")
    try:
        host, url = c.host(3, 1, rules=("--open-deal",))
        p1, p2 = c.join("p1", url), c.join("p2", url)
        deadline = time.monotonic() + 60
        while _lines(c, "p2") < 14:
            assert all(p.alive() for p in (host, p1, p2)), c.tails()
            assert time.monotonic() < deadline, f"the game did not start\n{c.tails()}"
            time.sleep(0.02)
        os.killpg(p2.popen.pid, signal.SIGKILL)
        assert p2.wait(5) == -signal.SIGKILL
        folder = next(c.data_dir("p2").rglob("roster.json")).parent
        (folder / "relay.url").write_text(OLD + "\n")  # what the former relay's seats kept
        back = c.join("p2")  # no line: resumed from its table folder
        codes = c.wait_all([host, p1, back], timeout=90)
        assert all(code == 0 for code in codes.values()), f"{codes}\n{c.tails()}"
        said = back.text()
        assert "This table used the former relay (zsy-relay://)" in said, back.tail()
        assert "resumes on its direct links only" in said and "resuming table" in said
        assert "Traceback" not in c.tails()
        check_records(c.transcripts(), 3)
    finally:
        c.close()
