"""Where an MQTT broker is, and how a peer proves it may use it: ``--relay mqtt://...``.

Why a module of its own (issue #29): a table may reach its far seats through
any MQTT broker (Mosquitto, EMQX, HiveMQ, a home-automation one) instead of
``zsy relay``. This is its address: ``mqtt://HOST[:PORT]`` (plain, port 1883)
or ``mqtts://[USER[:PASS]@]HOST[:PORT]`` (TLS, port 8883). It travels in join
and watch lines and in a seat's table folder *without* its password
(:attr:`BrokerAddress.url`): a guest gives the password in
``$ZSY_RELAY_PASSWORD`` and, for a broker whose certificate a private
authority signed, the authority's file in ``$ZSY_RELAY_CA`` (the host says so
with ``--relay-ca``). :func:`parse_relay_url` reads a relay line, and says what to do
with a ``zsy-relay://`` line of the former home-made relay (gone, issue #29).

The table's topics are derived from the table scope and a peer's key by a
hash (:func:`inbox_topic`): the broker and its other users learn neither the
table's id nor the players' keys from them.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, field
from urllib.parse import quote, unquote, urlsplit

from zsy_lan.text.i18n import _
from zsy_lan.text.sanitize import clean

__all__ = [
    "CA_ENV",
    "PASSWORD_ENV",
    "BrokerAddress",
    "RelayError",
    "inbox_topic",
    "parse_relay_url",
    "remember",
]

SCHEMES = {"mqtt": 1883, "mqtts": 8883}
#: the former home-made relay's lines (``zsy-relay://HOST:PORT#KEY``): told apart to say so
FORMER_SCHEME = "zsy-relay"
#: where a guest (or a resumed seat) gives the broker's password: never in a line or file
PASSWORD_ENV = "ZSY_RELAY_PASSWORD"
#: the authority that signed a private broker's certificate, for a guest
CA_ENV = "ZSY_RELAY_CA"
#: the first part of every topic (a broker's access rules can name it); the rest is a hash
TOPIC_PREFIX = "zsy/"


class RelayError(ValueError):
    """A ``--relay`` line that is not one; the message is the player's sentence."""


@dataclass(frozen=True)
class BrokerAddress:
    """An MQTT broker: ``tls`` for mqtts, credentials when it asks for them."""

    host: str
    port: int
    tls: bool = False
    user: str = ""
    password: str = field(default="", repr=False, compare=False)  # never printed
    ca: str = ""  # a CA file for a broker a private authority certified

    @property
    def scheme(self) -> str:
        return "mqtts" if self.tls else "mqtt"

    @property
    def endpoint(self) -> str:
        """``mqtt(s)://HOST:PORT``: where, without who (for messages)."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{self.scheme}://{host}:{self.port}"

    @property
    def url(self) -> str:
        """The line's form: the user but never the password (``$ZSY_RELAY_PASSWORD``)."""
        user = quote(self.user, safe="") + "@" if self.user else ""
        return self.endpoint.replace("://", "://" + user, 1)

    def secret(self) -> tuple[str, str]:
        """``(password, CA file)``: this address's, else what this process was given for
        the same broker and user (:func:`remember`), else the environment's (a guest's)."""
        known_password, known_ca = _known.get(self._who(), ("", ""))
        return (
            self.password or known_password or os.environ.get(PASSWORD_ENV, ""),
            self.ca or known_ca or os.environ.get(CA_ENV, ""),
        )

    def _who(self) -> tuple[str, int, bool, str]:
        return (self.host, self.port, self.tls, self.user)

    @classmethod
    def parse(cls, url: str) -> BrokerAddress:
        """Read ``mqtt://HOST[:PORT]`` or ``mqtts://[USER[:PASS]@]HOST[:PORT]``;
        :class:`RelayError` says what is wrong (never the password)."""
        text = url.strip()
        try:
            parts = urlsplit(text)
            port = parts.port
        except ValueError:
            parts, port = None, -1
        shown = clean(_without_password(text), 120)
        if parts is None or port == -1 or parts.scheme not in SCHEMES or not parts.hostname:
            raise RelayError(
                _(
                    "'{url}' is not a broker address: write mqtt://HOST[:PORT] or "
                    "mqtts://USER:PASSWORD@HOST[:PORT] (a port from 1 to 65535; an IPv6 "
                    "address goes in [ ])"
                ).format(url=shown)
            )
        if parts.path not in ("", "/") or parts.query or parts.fragment:
            raise RelayError(
                _(
                    "'{url}' has more than a broker address: the table chooses its own "
                    "topics, so leave out any /path, ?query or #part"
                ).format(url=shown)
            )
        if port == 0:
            raise RelayError(
                _("'{url}': the broker's port must be from 1 to 65535").format(url=shown)
            )
        return cls(
            host=parts.hostname,
            port=port or SCHEMES[parts.scheme],
            tls=parts.scheme == "mqtts",
            user=unquote(parts.username or ""),
            password=unquote(parts.password or ""),
        )


#: the password and CA file given for a broker in this process (the host's ``--relay``)
_known: dict[tuple[str, int, bool, str], tuple[str, str]] = {}


def remember(address: object) -> None:
    """Keep the password and CA of the host's ``--relay`` for this process: its bots learn
    the broker from the welcome's line, which leaves the password out."""
    if isinstance(address, BrokerAddress) and (address.password or address.ca):
        _known[address._who()] = (address.password, address.ca)  # noqa: SLF001


def _without_password(text: str) -> str:
    """``text`` with any ``:PASSWORD@`` cut out: an error message may echo the rest."""
    scheme, sep, rest = text.partition("://")
    if not sep:
        return text
    who, at, where = rest.rpartition("@")
    if not at:
        return text
    return f"{scheme}://{who.partition(':')[0]}@{where}"


def parse_relay_url(url: str) -> BrokerAddress:
    """A ``--relay`` line or the ``relay=`` part of a join line: an MQTT broker.

    A ``zsy-relay://`` line (``#KEY`` without ``mqtt``) comes from a host or a table folder
    of the former home-made relay, which is gone: the error says so and what to do.
    """
    scheme = url.strip().partition("://")[0].lower() if "://" in url else ""
    if scheme == FORMER_SCHEME or (not scheme and "#" in url):
        raise RelayError(
            _(
                "zsy-relay:// lines belong to the former relay, which this version of zsy-lan "
                "no longer has: the relay is now an MQTT broker. The host gives --relay "
                "mqtt://HOST (such as the line zsy relay prints) and the others join with the "
                "new line the host prints"
            )
        )
    return BrokerAddress.parse(url)


def inbox_topic(scope: str, key: bytes) -> str:
    """The topic a peer of table ``scope`` with CURVE key ``key`` hears on.

    A hash, so the topic names neither the table nor the key; 128 bits, so no two
    peers of any two tables share one by chance.
    """
    digest = hashlib.blake2b(
        scope.encode() + b"\0" + key, digest_size=16, person=b"zsy-lan mqtt v1"
    ).hexdigest()
    return TOPIC_PREFIX + digest
