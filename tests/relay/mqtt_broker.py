"""A real MQTT broker for the tests (issue #29): amqtt, from the test extra, on 127.0.0.1.

Why one helper: the broker path's tests (tests/relay/test_mqtt_*.py) and the
hostile-broker harness start the same broker; each gets its own process, on a
free loopback port, with a config in the test's folder: anonymous, or with
users and passwords (``users={"ana": "pw"}``), and with TLS (``tls=True``: a
self-signed certificate for 127.0.0.1, whose file :attr:`AmqttBroker.ca` is
also the authority a client pins). :meth:`AmqttBroker.stop` ends it by its pid.

Use the ``amqtt_broker`` fixture (tests/relay/conftest.py), a factory::

    broker = amqtt_broker()                      # mqtt://127.0.0.1:PORT
    broker = amqtt_broker(users={"ana": "pw"}, tls=True)
    broker.url  # mqtts://ana:pw@127.0.0.1:PORT (with the first user's password)
"""

from __future__ import annotations

import datetime
import ipaddress
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

LO = "127.0.0.1"


def free_port() -> int:
    """A loopback port nothing listens on right now (the broker binds it at once)."""
    with socket.socket() as s:
        s.bind((LO, 0))
        return s.getsockname()[1]


def self_signed(folder: Path) -> tuple[Path, Path]:
    """A certificate for 127.0.0.1 signed by itself (its own authority) and its key."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "zsy test broker")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(
            x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address(LO))]), False
        )
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), True)
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = folder / "broker.crt", folder / "broker.key"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return cert_path, key_path


class AmqttBroker:
    """One amqtt broker process on 127.0.0.1 (see the module)."""

    def __init__(
        self, folder: Path, *, users: dict[str, str] | None = None, tls: bool = False
    ) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self.folder = folder
        self.users = dict(users or {})
        self.tls = tls
        self.ca: Path | None = None
        self.port = free_port()
        self.log = folder / "amqtt.log"
        self.popen: subprocess.Popen[bytes] | None = None

    @property
    def endpoint(self) -> str:
        """``mqtt(s)://127.0.0.1:PORT`` (no credentials)."""
        return f"{'mqtts' if self.tls else 'mqtt'}://{LO}:{self.port}"

    @property
    def url(self) -> str:
        """The ``--relay`` URL, with the first user's name and password when there are users."""
        if not self.users:
            return self.endpoint
        user, password = next(iter(self.users.items()))
        return self.endpoint.replace("://", f"://{user}:{password}@", 1)

    def _config(self) -> Path:
        lines = ["---", "listeners:", "  default:", "    type: tcp", f"    bind: {LO}:{self.port}"]
        if self.tls:
            cert, key = self_signed(self.folder)
            self.ca = cert
            lines += ["    ssl: true", f"    certfile: {cert}", f"    keyfile: {key}"]
        lines += ["plugins:"]
        if self.users:
            from pwdlib.hashers.argon2 import Argon2Hasher

            hasher = Argon2Hasher()
            pw = self.folder / "passwords"
            pw.write_text("".join(f"{u}:{hasher.hash(p)}\n" for u, p in self.users.items()))
            lines += [
                "  amqtt.plugins.authentication.FileAuthPlugin:",
                f"    password_file: {pw}",
            ]
        else:
            lines += [
                "  amqtt.plugins.authentication.AnonymousAuthPlugin:",
                "    allow_anonymous: true",
            ]
        path = self.folder / "amqtt.yaml"
        path.write_text("\n".join(lines) + "\n")
        return path

    def start(self, timeout: float = 20.0) -> AmqttBroker:
        """Start the process and wait until its port takes connections (again: the same
        port, users and certificate, after :meth:`kill`)."""
        config = self.folder / "amqtt.yaml"
        if not config.exists():
            config = self._config()
        argv = [sys.executable, "-m", "amqtt.scripts.broker_script", "-c", str(config)]
        with self.log.open("ab") as out:
            self.popen = subprocess.Popen(
                argv, stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
                env={**os.environ, "PYTHONUNBUFFERED": "1"},
            )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.popen.poll() is not None:
                raise RuntimeError(f"amqtt ended at once:\n{self.log.read_text()[-2000:]}")
            try:
                socket.create_connection((LO, self.port), timeout=0.5).close()
                return self
            except OSError:
                time.sleep(0.05)
        self.stop()
        raise RuntimeError(f"amqtt did not listen within {timeout} s:\n{self.log.read_text()}")

    def stop(self) -> None:
        """End the broker (SIGTERM, then SIGKILL), by its pid; idempotent."""
        p, self.popen = self.popen, None
        if p is None or p.poll() is not None:
            return
        p.send_signal(signal.SIGTERM)
        try:
            p.wait(5)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait(5)

    def kill(self) -> None:
        """SIGKILL (a broker that dies), by its pid."""
        if self.popen is not None and self.popen.poll() is None:
            self.popen.kill()
            self.popen.wait(5)
        self.popen = None
