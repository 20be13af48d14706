"""``zsy relay``: start an MQTT broker for players out of reach."""

from __future__ import annotations

import dataclasses
import ipaddress
from typing import Any

import click

from zsy_lan.text.i18n import _


def relay_option(fn):  # type: ignore[no-untyped-def]
    """``--relay URL`` (and ``--relay-ca FILE``) for ``zsy host``: parsed here, so a bad
    line is one sentence; :func:`with_ca` puts the two together."""

    def parse(ctx: click.Context, param: click.Parameter, value: str | None):  # type: ignore[no-untyped-def]
        if value is None:
            return None
        from zsy_lan.net.broker import RelayError, parse_relay_url

        try:
            return parse_relay_url(value)
        except RelayError as exc:
            raise click.BadParameter(str(exc)) from None

    fn = click.option(
        "--relay-ca",
        metavar="FILE",
        default=None,
        type=click.Path(exists=True, dir_okay=False),
        help="With an mqtts:// --relay whose certificate a private authority signed: that "
        "authority's certificate file (guests set ZSY_RELAY_CA to theirs).",
    )(fn)
    return click.option(
        "--relay",
        metavar="URL",
        default=None,
        callback=parse,
        help="Also reach the table through this relay: any MQTT broker (mqtt://HOST[:PORT], "
        "or mqtts://USER:PASSWORD@HOST[:PORT] with TLS), such as the one `zsy relay` "
        "prints. Players who cannot reach your address sit down through it; "
        "direct links are still used wherever they work. The join line names it without the "
        "password: guests set ZSY_RELAY_PASSWORD.",
    )(fn)


def with_ca(relay: Any, ca: str | None) -> Any:
    """``--relay`` with ``--relay-ca`` folded in; a CA without an mqtts broker is a mistake."""
    if ca is None:
        return relay
    from zsy_lan.net.broker import BrokerAddress

    if not isinstance(relay, BrokerAddress) or not relay.tls:
        raise click.BadParameter(
            _("a certificate authority is for an mqtts:// --relay only"),
            param_hint="--relay-ca",
        )
    return dataclasses.replace(relay, ca=ca)


def _public_host(address: str, public: str | None) -> str:
    """The host to print in the relay's URL: ``--public-host``, else the bound address."""
    if public:
        return public
    try:
        unspecified = ipaddress.ip_address(address).is_unspecified
    except ValueError:
        unspecified = False
    if not unspecified:
        return address
    from zsy_lan.net.netif import select_addresses

    try:
        addrs = select_addresses(None)
    except Exception:  # noqa: BLE001 - the URL then says HOST: the operator fills it in
        addrs = []
    return addrs[0] if addrs else "HOST"


def check_address(address: str) -> None:
    """``--address`` must be an IP address of this machine (one sentence otherwise)."""
    try:
        ipaddress.ip_address(address)
    except ValueError:
        raise click.BadParameter(
            _("'{address}' is not an IP address (use e.g. 0.0.0.0 or 192.0.2.10)").format(
                address=address
            ),
            param_hint="--address",
        ) from None


@click.command()
@click.option(
    "--address",
    default="0.0.0.0",
    show_default=True,
    help="Address to listen on (an IP address of this machine; 0.0.0.0 for all).",
)
@click.option(
    "--port",
    type=click.IntRange(0, 65535),
    default=None,
    help="Port to listen on (default: 1883, 8883 with --tls-cert; 0: any free port).",
)
@click.option(
    "--public-host",
    default=None,
    metavar="HOST",
    help="Host name or address the players reach this machine at, for the printed URL "
    "(default: the listening address).",
)
@click.option(
    "--broker",
    "engine",
    type=click.Choice(["auto", "amqtt", "mosquitto"]),
    default="auto",
    show_default=True,
    help="Which MQTT broker to start: Mosquitto when installed (auto), else amqtt "
    "(pip install 'zsy-lan[broker]'). Only amqtt limits connections per address and rates.",
)
@click.option(
    "--tls-cert",
    type=click.Path(exists=True, dir_okay=False),
    default=None,
    help="Certificate (PEM) to serve mqtts:// with; give --tls-key too.",
)
@click.option(
    "--tls-key",
    type=click.Path(exists=True, dir_okay=False),
    default=None,
    help="Private key (PEM) of --tls-cert.",
)
@click.option(
    "--password-file",
    type=click.Path(exists=True, dir_okay=False),
    default=None,
    help="Admit only the users of this file, one USER:PASSWORD a line (default: anyone).",
)
@click.option(
    "--max-connections",
    type=click.IntRange(1, 100_000),
    default=256,
    show_default=True,
    help="Connections at once; the next one is refused.",
)
@click.option(
    "--per-address",
    type=click.IntRange(1, 100_000),
    default=32,
    show_default=True,
    help="Connections at once from one IP address (amqtt only).",
)
@click.option(
    "--max-packet",
    type=click.IntRange(16, 262_144),
    default=512,
    show_default=True,
    help="Largest message in KiB; a client that sends a larger one is cut off.",
)
@click.option("--legacy", is_flag=True, hidden=True)  # the former relay: said gone, below
def relay(
    address: str,
    port: int | None,
    public_host: str | None,
    engine: str,
    tls_cert: str | None,
    tls_key: str | None,
    password_file: str | None,
    max_connections: int,
    per_address: int,
    max_packet: int,
    legacy: bool,
) -> None:
    """Start an MQTT broker for players who cannot reach each other.

    \b
    Any MQTT broker carries a table; this starts one for a group that has
    none (Mosquitto when installed, else amqtt) and prints the line to give
    to hosts:
      zsy host --relay mqtt://HOST:PORT
    The broker learns nothing it could misuse: frames are sealed end to end
    between the players (it sees sizes and timing) and signed by their
    author, and topic names say nothing. It keeps nothing on disk.
    """
    if legacy:  # an operator's script from before issue #29
        raise click.UsageError(
            _(
                "the former relay (--legacy, zsy-relay:// lines) is gone: zsy relay now starts "
                "an MQTT broker. Run it without --legacy and give hosts the new --relay line."
            )
        )
    check_address(address)
    from zsy_lan.cli.broker_serve import BrokerRequest, serve_broker

    serve_broker(
        BrokerRequest(
            address=address,
            port=port,
            public_host=_public_host(address, public_host),
            engine=engine,
            tls_cert=tls_cert,
            tls_key=tls_key,
            password_file=password_file,
            max_connections=max_connections,
            per_address=per_address,
            max_packet=max_packet * 1024,
        )
    )

