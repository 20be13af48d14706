"""``zsy relay``: start an MQTT broker, print the ``--relay`` line, serve.

Why two brokers: Mosquitto is the broker most people already trust and is fast, but it is a
separate program we cannot install; amqtt comes with pip (the ``broker`` extra) and, behind
our guard (:mod:`zsy_lan.net.broker_server`), bounds each address and each client's rate, which
Mosquitto cannot. ``--broker auto`` takes Mosquitto when it is on PATH, else amqtt.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import signal
import socket
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

import click

from zsy_lan.net.broker_server import (
    BrokerError,
    BrokerLimits,
    EmbeddedBroker,
    amqtt_missing,
    read_password_file,
    tls_context,
)
from zsy_lan.net.mosquitto import MosquittoSetup, mosquitto_path
from zsy_lan.text.i18n import _


@dataclass(frozen=True)
class BrokerRequest:
    """What ``zsy relay`` was asked for (checked by click already)."""

    address: str
    port: int | None
    public_host: str
    engine: str = "auto"  # auto | amqtt | mosquitto
    tls_cert: str | None = None
    tls_key: str | None = None
    password_file: str | None = None
    max_connections: int = 256
    per_address: int = 32
    max_packet: int = 512 * 1024

    @property
    def tls(self) -> bool:
        return self.tls_cert is not None

    @property
    def limits(self) -> BrokerLimits:
        return BrokerLimits(
            max_connections=self.max_connections,
            per_address=self.per_address,
            max_packet=self.max_packet,
        )


def broker_url(host: str, port: int, *, tls: bool, users: bool) -> str:
    """The ``--relay`` URL hosts give: ``mqtt[s]://[USER:PASSWORD@]HOST:PORT``.

    With users, the words USER and PASSWORD stand where each player puts their own: the
    broker never prints a password.
    """
    with contextlib.suppress(ValueError):
        if ipaddress.ip_address(host).version == 6:
            host = f"[{host}]"
    scheme = "mqtts" if tls else "mqtt"
    creds = "USER:PASSWORD@" if users else ""
    return f"{scheme}://{creds}{host}:{port}"


def pick_engine(asked: str) -> str:
    """``amqtt`` or ``mosquitto``; a ClickException saying what to install when neither is."""
    have_mosquitto = mosquitto_path() is not None
    have_amqtt = not amqtt_missing()
    if asked == "mosquitto" and not have_mosquitto:
        raise click.ClickException(
            _(
                "Mosquitto is not installed (no 'mosquitto' program on PATH): install it, or "
                "use --broker amqtt"
            )
        )
    if asked == "amqtt" and not have_amqtt:
        raise click.ClickException(
            _("amqtt is not installed: pip install 'zsy-lan[broker]' (or use --broker mosquitto)")
        )
    if asked != "auto":
        return asked
    if have_mosquitto:
        return "mosquitto"
    if have_amqtt:
        return "amqtt"
    raise click.ClickException(
        _(
            "zsy relay needs an MQTT broker: pip install 'zsy-lan[broker]' (amqtt) or install "
            "Mosquitto"
        )
    )


def _port_for_mosquitto(req: BrokerRequest, port: int) -> int:
    """The port Mosquitto is to listen on, bound once here: a free one for 0 (Mosquitto
    cannot be told "any"), and a taken one said in our sentence rather than in Mosquitto's
    log lines. (Between this and Mosquitto's own bind there is a short race.)"""
    family = socket.AF_INET6 if ":" in req.address else socket.AF_INET
    with socket.socket(family) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as Mosquitto binds
        try:
            s.bind((req.address, port))
        except OSError as exc:
            raise _port_taken(req, port, exc) from None
        return s.getsockname()[1]


def _port_taken(req: BrokerRequest, port: int, exc: OSError) -> click.ClickException:
    if exc.errno == 98:  # EADDRINUSE
        return click.ClickException(
            _(
                "port {port} on {address} is already in use (another relay or program "
                "listens there): choose another --port"
            ).format(port=port, address=req.address)
        )
    return click.ClickException(
        _("cannot listen on {address}:{port}: {why}").format(
            address=req.address, port=port, why=exc.strerror or exc
        )
    )


def _ready(req: BrokerRequest, engine: str, port: int, users: bool) -> None:
    lim = req.limits
    click.echo(
        _("MQTT broker ({engine}) listening on {address}:{port}.").format(
            engine=engine, address=req.address, port=port
        )
    )
    # short lines, in every language: a terminal cuts a longer one mid-word
    kib = lim.max_packet // 1024
    if engine == "amqtt":
        click.echo(
            _("At most {n} connections, {per} per address.").format(
                n=lim.max_connections, per=lim.per_address
            )
        )
        rate = f"{lim.bytes_per_second / 1024 / 1024:g}"
        click.echo(
            _("Messages up to {kib} KiB; each client read at most {rate} MiB/s.").format(
                kib=kib, rate=rate
            )
        )
    else:
        click.echo(_("At most {n} connections.").format(n=lim.max_connections))
        click.echo(_("Messages up to {kib} KiB.").format(kib=kib))
        click.echo(_("(Mosquitto cannot limit one address or a client's rate: amqtt can.)"))
    url = broker_url(req.public_host, port, tls=req.tls, users=users)
    click.echo(_("Hosts use it with:  zsy host --relay {url}").format(url=url))
    if users:
        click.echo(
            _(
                "In place of USER:PASSWORD, each player puts a user name and password from {file}."
            ).format(file=req.password_file)
        )


def serve_broker(req: BrokerRequest) -> None:
    """Start the broker asked for, print how to use it, serve until Ctrl-C or SIGTERM."""
    if (req.tls_cert is None) != (req.tls_key is None):
        raise click.UsageError(_("--tls-cert and --tls-key go together"))
    engine = pick_engine(req.engine)
    try:
        users = read_password_file(Path(req.password_file)) if req.password_file else None
    except BrokerError as exc:
        raise click.ClickException(str(exc)) from None
    port = req.port if req.port is not None else (8883 if req.tls else 1883)
    if engine == "mosquitto":
        _serve_mosquitto(req, port, users)
    else:
        _serve_amqtt(req, port, users)


def _serve_amqtt(req: BrokerRequest, port: int, users: dict[str, str] | None) -> None:
    try:
        tls = tls_context(Path(req.tls_cert), Path(req.tls_key)) if req.tls_cert else None
    except BrokerError as exc:
        raise click.ClickException(str(exc)) from None
    broker = EmbeddedBroker(req.address, port, limits=req.limits, tls=tls, users=users)

    async def run() -> None:
        try:
            bound = await broker.start()
        except OSError as exc:
            raise _port_taken(req, port, exc) from None
        _ready(req, "amqtt", bound, bool(users))
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        try:
            await stop.wait()
        finally:
            await broker.stop()

    asyncio.run(run())
    st = broker.stats
    click.echo("")  # the terminal's "^C" stays on its own line, as `zsy host` does
    click.echo(
        _("Broker stopped: {n} connections, {p} messages carried ({kib} KiB).").format(
            n=st.connections, p=st.publishes_in, kib=st.publish_bytes_in // 1024
        )
    )


def _serve_mosquitto(req: BrokerRequest, port: int, users: dict[str, str] | None) -> None:
    port = _port_for_mosquitto(req, port)
    setup = MosquittoSetup(
        req.address,
        port,
        req.limits,
        certfile=Path(req.tls_cert) if req.tls_cert else None,
        keyfile=Path(req.tls_key) if req.tls_key else None,
        users=users,
    )
    program = mosquitto_path()
    assert program is not None  # pick_engine checked
    with tempfile.TemporaryDirectory(prefix="zsy-mosquitto-") as folder:
        try:
            conf = setup.write(Path(folder))
        except BrokerError as exc:
            raise click.ClickException(str(exc)) from None
        proc = subprocess.Popen([program, "-c", str(conf)], stdin=subprocess.DEVNULL)

        def forward(*_a: object) -> None:
            with contextlib.suppress(ProcessLookupError):
                proc.terminate()

        signal.signal(signal.SIGTERM, forward)
        try:
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(0.5)  # a taken port or a bad file ends it at once
            if proc.returncode is not None:
                raise click.ClickException(_("Mosquitto did not start (its message is above)."))
            _ready(req, "mosquitto", port, bool(users))
            proc.wait()
        except KeyboardInterrupt:
            forward()
            proc.wait()
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    click.echo("")
    click.echo(_("Broker stopped."))
