"""``zsy relay`` as a standard broker: the line it prints works; each refusal is one sentence."""

from __future__ import annotations

import asyncio
import os
import re
import select
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import aiomqtt
import pytest
from click.testing import CliRunner
from mqtt_broker import self_signed
from mqtt_clients import Inbox, raw_connect, talker

from zsy_lan.cli import broker_serve
from zsy_lan.cli.broker_serve import broker_url

pytestmark = [pytest.mark.timeout(60)]

ZSY = str(Path(sys.executable).with_name("zsy"))


def in_process(*args: str):  # type: ignore[no-untyped-def]
    from zsy_lan.cli import cli

    return CliRunner().invoke(cli, list(args), env={"ZSY_LANG": "en"})


def test_the_url_hosts_give():
    assert broker_url("192.0.2.1", 1883, tls=False, users=False) == "mqtt://192.0.2.1:1883"
    assert broker_url("::1", 8883, tls=True, users=False) == "mqtts://[::1]:8883"
    assert (
        broker_url("relay.example", 8883, tls=True, users=True)
        == "mqtts://USER:PASSWORD@relay.example:8883"
    )


@pytest.mark.slow
@pytest.mark.parametrize(
    "engine",
    [
        "amqtt",
        pytest.param(
            "mosquitto",
            marks=pytest.mark.skipif(not shutil.which("mosquitto"), reason="no Mosquitto"),
        ),
    ],
)
def test_zsy_relay_serves_mqtt_and_stops_cleanly(tmp_path, engine):
    """amqtt plain; Mosquitto (where installed) with TLS: users, the printed line, a stop."""
    users = tmp_path / "users"
    users.write_text("ann:s3cret\n")
    env = dict(os.environ, ZSY_LANG="en", PYTHONUNBUFFERED="1")
    argv = [ZSY, "relay", "--broker", engine, "--address", "127.0.0.1", "--port", "0"]
    argv += ["--password-file", str(users)]
    tls = engine == "mosquitto"
    if tls:
        cert, key = self_signed(tmp_path)
        argv += ["--tls-cert", str(cert), "--tls-key", str(key)]
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env)
    try:
        out = b""
        deadline = time.monotonic() + 20
        while f"password from {users}".encode() not in out:
            assert time.monotonic() < deadline and p.poll() is None, out.decode()
            if select.select([p.stdout], [], [], 1)[0]:
                out += os.read(p.stdout.fileno(), 4096)
        text = out.decode()
        scheme = "mqtts" if tls else "mqtt"
        url = re.search(rf"zsy host --relay ({scheme}://USER:PASSWORD@127\.0\.0\.1:(\d+))", text)
        assert url, text
        assert "s3cret" not in text
        if engine == "amqtt":
            assert all(len(line) <= 80 for line in text.splitlines()[:3]), text
            assert "256 connections, 32 per address" in text
        else:
            assert "Mosquitto cannot limit one address" in text
        port = int(url.group(2))
        kw = {"username": "ann", "password": "s3cret"}
        if tls:
            kw["tls_params"] = aiomqtt.TLSParameters(ca_certs=str(cert))

        async def use() -> list[bytes]:
            async with Inbox(port, "zsy/t", **kw) as inbox, talker(port, **kw) as out:
                await out.publish("zsy/t", b"through zsy relay")
                return await inbox.wait(1)

        assert asyncio.run(use()) == [b"through zsy relay"]
        if engine == "amqtt":

            async def garble() -> None:  # a client id with an escape, then a reserved packet
                r, w = await asyncio.open_connection("127.0.0.1", port)
                w.write(raw_connect("\x1b[2Jevil", "ann", "s3cret"))
                assert await r.readexactly(4) == b"\x20\x02\x00\x00"  # admitted
                w.write(b"\xf0\x00")
                await w.drain()
                await r.read()  # closed by the broker
                w.close()

            asyncio.run(garble())
    finally:
        p.send_signal(signal.SIGTERM)
        rest, _ = p.communicate(timeout=10)
    said = rest.decode()
    assert p.returncode == 0, said
    assert "Broker stopped" in said and "Traceback" not in said
    if engine == "amqtt":
        assert "Broker stopped: 3 connections" in said
        # amqtt's own log lines, which quote what clients send, never reach the terminal
        assert "\x1b" not in said and "WARNING" not in said and "evil" not in said


def test_tls_needs_both_files(tmp_path):
    cert = tmp_path / "cert.pem"
    cert.write_text("x")
    r = in_process("relay", "--address", "127.0.0.1", "--tls-cert", str(cert))
    assert r.exit_code == 2 and "--tls-cert and --tls-key go together" in r.stderr


def test_no_broker_installed_says_what_to_install(monkeypatch):
    monkeypatch.setattr(broker_serve, "amqtt_missing", lambda: True)
    monkeypatch.setattr(broker_serve, "mosquitto_path", lambda: None)
    r = in_process("relay", "--address", "127.0.0.1")
    assert r.exit_code == 1
    assert "pip install 'zsy-lan[broker]'" in r.stderr and "Mosquitto" in r.stderr
    r = in_process("relay", "--address", "127.0.0.1", "--broker", "mosquitto")
    assert r.exit_code == 1 and "Mosquitto is not installed" in r.stderr
    r = in_process("relay", "--address", "127.0.0.1", "--broker", "amqtt")
    assert r.exit_code == 1 and "amqtt is not installed" in r.stderr
    for res in (r,):
        assert isinstance(res.exception, SystemExit) and "Traceback" not in res.stderr


def test_auto_prefers_mosquitto_when_installed(monkeypatch):
    monkeypatch.setattr(broker_serve, "mosquitto_path", lambda: "/usr/sbin/mosquitto")
    assert broker_serve.pick_engine("auto") == "mosquitto"
    monkeypatch.setattr(broker_serve, "mosquitto_path", lambda: None)
    assert broker_serve.pick_engine("auto") == "amqtt"


def test_a_bad_password_file_is_one_sentence(tmp_path):
    users = tmp_path / "users"
    users.write_text("nobody-here\n")
    r = in_process("relay", "--broker", "amqtt", "--password-file", str(users))
    assert r.exit_code == 1 and "line 1: expected USER:PASSWORD" in r.stderr


@pytest.mark.parametrize(
    "engine",
    [
        "amqtt",
        pytest.param(
            "mosquitto",
            marks=pytest.mark.skipif(not shutil.which("mosquitto"), reason="no Mosquitto"),
        ),
    ],
)
def test_a_taken_port_is_one_sentence_whichever_broker(engine):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = str(s.getsockname()[1])
        r = in_process("relay", "--broker", engine, "--address", "127.0.0.1", "--port", port)
    assert r.exit_code == 1, r.stderr
    assert f"port {port} on 127.0.0.1 is already in use" in r.stderr
