"""``zsy host --relay mqtt://...`` from the command line: a bad URL, refused credentials, a
TLS failure, a broker not there; each one sentence (what was wrong, what to do), never a
traceback, never the password (issue #29). Loopback only, a real amqtt broker."""

from __future__ import annotations

import pytest
from click.testing import CliRunner
from mqtt_broker import free_port
from relay_support import zsy

from zsy_lan.cli import cli

pytestmark = [pytest.mark.timeout(60)]

HOST = ["host", "--interface", "lo", "--no-mdns", "--players", "3", "--bot", "easy", "--plain"]


def test_a_bad_broker_url_is_one_sentence_without_the_password(tmp_path):
    for url, says in [
        ("mqtt://127.0.0.1:99999", "not a broker address"),
        ("mqtts://ana:hunter2@127.0.0.1/zsy", "leave out any /path"),
        ("ftp://ana:hunter2@127.0.0.1", "not a broker address"),
    ]:
        r = CliRunner().invoke(
            cli, [*HOST, "--relay", url, "--data-dir", str(tmp_path)], env={"ZSY_LANG": "en"}
        )
        assert r.exit_code == 2 and says in r.output, r.output
        assert "hunter2" not in r.output and "Traceback" not in r.output
    ca = tmp_path / "ca.pem"
    ca.write_text("x")
    r = CliRunner().invoke(
        cli,
        [*HOST, "--relay", "mqtt://127.0.0.1", "--relay-ca", str(ca), "--data-dir", str(tmp_path)],
        env={"ZSY_LANG": "en"},
    )
    assert r.exit_code == 2 and "for an mqtts:// --relay only" in r.output, r.output


@pytest.mark.slow
def test_refused_credentials_tls_and_no_broker_end_the_host_with_a_sentence(
    tmp_path, amqtt_broker
):
    broker = amqtt_broker(users={"ana": "right"}, tls=True)
    where = f"mqtts://127.0.0.1:{broker.port}"
    wrong = f"mqtts://ana:hunter2@127.0.0.1:{broker.port}"
    data = ["--data-dir", str(tmp_path / "d")]
    r = zsy(*HOST, "--relay", wrong, "--relay-ca", str(broker.ca), *data, tmp=tmp_path)
    assert r.returncode == 1, r.stdout + r.stderr
    assert f"the MQTT broker at {where} refused the user name or password" in r.stderr
    r2 = zsy(*HOST, "--relay", wrong.replace("hunter2", "right"), *data, tmp=tmp_path)
    assert r2.returncode == 1 and "no secure connection to the MQTT broker" in r2.stderr
    assert "--relay-ca FILE" in r2.stderr, r2.stderr
    gone = f"mqtt://127.0.0.1:{free_port()}"
    r3 = zsy(*HOST, "--relay", gone, *data, tmp=tmp_path)
    assert r3.returncode == 1 and f"cannot reach the MQTT broker at {gone}" in r3.stderr
    for res in (r, r2, r3):
        assert "Traceback" not in res.stderr and "hunter2" not in res.stdout + res.stderr
    logs = "".join(f.read_text() for f in (tmp_path / "d").rglob("*.log"))
    assert "hunter2" not in logs
