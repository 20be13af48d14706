"""``zsy relay``: run a relay for peers that cannot reach each other (docs/network.md)."""

from __future__ import annotations

import dataclasses
import ipaddress
from pathlib import Path
from typing import Any

import click

from zsy_lan.text.i18n import _


def relay_option(fn):  # type: ignore[no-untyped-def]
    """``--relay URL`` (and ``--relay-ca FILE``) for ``zsy host``: parsed here, so a bad
    line is one sentence; :func:`with_ca` puts the two together."""

    def parse(ctx: click.Context, param: click.Parameter, value: str | None):  # type: ignore[no-untyped-def]
        if value is None:
            return None
        from zsy_lan.net.broker import parse_relay_url
        from zsy_lan.net.relay import RelayError

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
        "or mqtts://USER:PASSWORD@HOST[:PORT] with TLS) or a zsy-relay://HOST:PORT#KEY line "
        "printed by `zsy relay`. Players who cannot reach your address sit down through it; "
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
    default=7641,
    show_default=True,
    help="Port to listen on (0: any free port).",
)
@click.option(
    "--public-host",
    default=None,
    metavar="HOST",
    help="Host name or address the players reach this machine at, for the printed URL "
    "(default: the listening address).",
)
@click.option(
    "--max-tables",
    type=click.IntRange(1, 100_000),
    default=64,
    show_default=True,
    help="Serve at most this many tables at once; the next host is refused.",
)
@click.option(
    "--data-dir",
    type=click.Path(file_okay=False),
    default=None,
    help="Where the relay's key lives (default: XDG data dir); the same key keeps its URL.",
)
def relay(
    address: str, port: int, public_host: str | None, max_tables: int, data_dir: str | None
) -> None:
    """Forward sealed frames between players who cannot reach each other.

    \b
    The relay learns nothing it could misuse: frames are sealed end to end
    between the players (it sees sizes and timing), every frame stays signed
    by its author, and it holds no key of any table. It keeps nothing on disk
    but its own key. Give the printed zsy-relay:// line to hosts:
      zsy host --relay zsy-relay://HOST:PORT#KEY
    """
    import zmq

    from zsy_lan.net.relay import Relay, RelayError, RelayLimits, load_or_create_relay_key, serve
    from zsy_lan.record.store import data_dir as resolve

    try:
        ipaddress.ip_address(address)
    except ValueError:
        raise click.BadParameter(
            _("'{address}' is not an IP address (use e.g. 0.0.0.0 or 192.0.2.10)").format(
                address=address
            ),
            param_hint="--address",
        ) from None
    try:
        keys = load_or_create_relay_key(Path(resolve(data_dir)) / "relay")
    except RelayError as exc:
        raise click.ClickException(str(exc)) from None
    except OSError as exc:
        raise click.ClickException(
            _("cannot keep the relay's key in {path}: {why}").format(
                path=Path(resolve(data_dir)) / "relay", why=exc.strerror or exc
            )
        ) from None
    server = Relay(keys, limits=RelayLimits(max_tables=max_tables))
    try:
        server.bind(address, port)
    except zmq.ZMQError as exc:
        if exc.errno == zmq.EADDRINUSE:
            raise click.ClickException(
                _(
                    "port {port} on {address} is already in use (another relay or program "
                    "listens there): choose another --port"
                ).format(port=port, address=address)
            ) from None
        raise click.ClickException(
            _("cannot listen on {address}:{port}: {why}").format(
                address=address, port=port, why=exc.strerror
            )
        ) from None
    url = server.address(_public_host(address, public_host)).url

    def ready() -> None:
        click.echo(
            _("Relay listening on {endpoint}, serving at most {n} tables.").format(
                endpoint=server.endpoint, n=max_tables
            )
        )
        click.echo(_("Hosts use it with:  zsy host --relay {url}").format(url=url))

    serve(server, on_ready=ready)
    st = server.stats
    if not server._stop.is_set():  # noqa: SLF001 - SIGTERM sets it; Ctrl-C does not
        click.echo("")  # the terminal's "^C" stays on its own line, as `zsy host` does
    click.echo(
        _("Relay stopped: {n} frames forwarded ({kib} KiB).").format(
            n=st.forwarded, kib=st.forwarded_bytes // 1024
        )
    )
