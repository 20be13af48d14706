"""Reaching a host: the join line, a guest's mesh, the first link and the host's refusal;
and where a peer listens (:class:`NetConfig`).

Why a module of its own: a joiner (:mod:`.hosting`) and a spectator
(:mod:`.watch`) both reach a host the same way, the one to sit down, the other
to watch; with these pieces here both import them and neither reaches into
the other (the spectator's side reached up into hosting before: an import cycle).
"""

from __future__ import annotations

import base64
import shlex
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import zmq

from zsy_lan.net.broker import BrokerAddress
from zsy_lan.net.transport import LinkEvent, LinkState, Mesh, MeshOptions, PeerId
from zsy_lan.protocol import Identity, Timing
from zsy_lan.protocol.host_lobby import APPROVAL_EXPIRED
from zsy_lan.protocol.lobby import REASON_MAX, LobbyMessage
from zsy_lan.text.i18n import N_, _
from zsy_lan.text.sanitize import clean, clean_or

#: Seconds a seated guest waits without its link to the host before it gives up.
HOST_GONE_AFTER = 10.0

#: The host's refusals of a guest: each names the host already, so the joiner reads it alone.
NOT_ACCEPTED = N_("the host did not accept you at this table")
KICKED = N_("the host removed you from the table")
HOST_SAYS = frozenset(
    {NOT_ACCEPTED, KICKED, N_("the host removed you from this table"), APPROVAL_EXPIRED}
)


class TableError(RuntimeError):
    """Joining or hosting failed; the message says why and what to do."""


def shell_word(text: str) -> str:
    """``text`` as one shell word, readable: ``ana's table`` → ``"ana's table"``."""
    quoted = shlex.quote(text)
    if quoted == text or any(c in text for c in '"$`\\!'):
        return quoted
    return f'"{text}"'


def join_url(endpoint: str, curve_key: bytes, invite: str | None = None) -> str:
    """``tcp://ADDR:PORT#KEY``: everything a joiner needs without mDNS.

    The key is base64url (43 characters of ``A-Z a-z 0-9 - _``): safe to paste
    into any shell unquoted, unlike z85 (``&``, ``$``, ``#`` ...). A table by
    invitation (``zsy host --invite``) adds ``.SECRET`` (base64url too): the
    URL is the invitation, and the mDNS record never carries it.
    """
    key = base64.urlsafe_b64encode(curve_key).rstrip(b"=").decode()
    return f"{endpoint}#{key}" + (f".{invite}" if invite else "")


#: What a sentence puts around a printed line, never part of one: a line copied with
#: the closing bracket or full stop of its sentence (zh "（zsy join tcp://…#KEY）") still works.
PASTED_AROUND = " \t\r\n)）」』】>»›\"'“”‘’。，、,.;；:：!！?？"


def pasted(url: str) -> str:
    """``url`` without what the sentence it was copied from put after (or before) it."""
    return url.strip(PASTED_AROUND).lstrip("(（「『【<«‹")


def invite_in(url: str) -> str | None:
    """The invitation secret a join URL carries (``tcp://ADDR:PORT#KEY.SECRET``), if any."""
    _endpoint, _sep, fragment = pasted(url).partition("#")
    _key, dot, secret = fragment.partition(".")
    return secret if dot and secret else None


def parse_join_url(url: str) -> tuple[str, bytes]:
    """Inverse of :func:`join_url` (an invitation is read by :func:`invite_in`);
    a clear error for anything else."""
    url = pasted(url)
    endpoint, sep, key = url.partition("#")
    key = key.partition(".")[0]
    if not endpoint.startswith("tcp://") or ":" not in endpoint[6:]:
        raise TableError(
            _("'{url}' is not tcp://ADDR:PORT#KEY (copy the line the host printed)").format(url=url)
        )
    if not sep or not key:
        raise TableError(
            _(
                "'{url}' lacks the table's key: copy the whole tcp://ADDR:PORT#KEY line the host "
                "printed (the key keeps strangers out of the encrypted table)"
            ).format(url=url)
        )
    try:
        raw = base64.urlsafe_b64decode(key + "=" * (-len(key) % 4))
    except ValueError:
        raw = b""
    if len(raw) != 32:
        raise TableError(
            _("'{key}' is not a valid table key (43 characters, as the host printed)").format(
                key=key
            )
        )
    return endpoint, raw


async def start_mesh(
    identity: Identity,
    address: str,
    port: int,
    *,
    open_admission: bool = False,
    options: MeshOptions | None = None,
    on_link: Callable[[LinkEvent], None] | None = None,
) -> Mesh:
    """:meth:`Mesh.start`, with a taken port or a foreign address said in one sentence."""
    try:
        return await Mesh.start(
            address,
            port,
            identity.curve_secret,
            identity.curve_public,
            open_admission=open_admission,
            options=options,
            on_link=on_link,
        )
    except zmq.ZMQError as exc:
        if exc.errno == zmq.EADDRINUSE:
            raise TableError(
                _(
                    "port {port} on {address} is already in use (another zsy or program "
                    "listens there): choose another --port, or leave --port out for any free one"
                ).format(port=port, address=address)
            ) from None
        raise TableError(
            _("cannot listen on {address}:{port}: {why}").format(
                address=address, port=port, why=exc.strerror
            )
        ) from None


class LinkWatch:
    """Remembers the last failure of each outbound link (an ``on_link`` callback).

    A refused CURVE handshake is how a full table (its lobby closed) or a
    wrong key in the join line shows up; the joiner tells the player which.
    """

    def __init__(self) -> None:
        self.failed: dict[PeerId, LinkState] = {}

    def __call__(self, ev: LinkEvent) -> None:
        if ev.state in (LinkState.AUTH_FAILED, LinkState.HANDSHAKE_FAILED):
            self.failed[ev.peer_id] = ev.state
        elif ev.state is LinkState.CONNECTED:
            self.failed.pop(ev.peer_id, None)


async def reach_host(
    mesh: Mesh,
    host_endpoint: str,
    host_curve: bytes,
    failed: Callable[[], LinkState | None],
    *,
    refused: str,
    wrong_key: str,
    timeout: float,
) -> None:
    """Connect to the host; a refused handshake or silence becomes one clear sentence.

    ``failed`` reads the link's last failure; ``refused`` and ``wrong_key`` are
    the caller's sentences (a joiner and a spectator are refused for different
    reasons), each with an ``{endpoint}`` placeholder, already translated.
    """
    try:
        mesh.connect_peer(0, host_endpoint, host_curve)
    except ValueError:
        raise TableError(
            _("'{endpoint}' is not an address to connect to: use tcp://ADDR:PORT#KEY").format(
                endpoint=clean(host_endpoint, 80)
            )
        ) from None
    deadline = time.monotonic() + timeout
    while not await mesh.wait_connected(0, 0.25):
        state = failed()
        if state is LinkState.AUTH_FAILED:
            raise TableError(refused.format(endpoint=host_endpoint))
        if state is LinkState.HANDSHAKE_FAILED:
            raise TableError(wrong_key.format(endpoint=host_endpoint))
        if time.monotonic() >= deadline:
            raise TableError(
                _("cannot reach the table at {endpoint} (is the host still open?)").format(
                    endpoint=host_endpoint
                )
            )


def refusal_error(msg: LobbyMessage) -> TableError:
    """The host's refusal, its reason cleaned (it is the host's text).

    A reason this version knows (the lobby's own, marked with ``N_``) is
    shown in the player's language; any other is shown as the host wrote it.
    """
    reason = clean_or(msg.body.get("reason"), "no reason given", REASON_MAX)
    if reason in HOST_SAYS:  # already says it was the host: one sentence, not two
        return TableError(_(reason))
    return TableError(_("the host refused: {reason}").format(reason=_(reason)))


@dataclass
class NetConfig:
    """Where a peer listens and whether it uses mDNS."""

    address: str = "127.0.0.1"
    port: int = 0
    mdns: bool = True
    mdns_interfaces: list[str] = field(default_factory=list)
    timing: Timing | None = None
    relay: BrokerAddress | None = None  # zsy host --relay: every link's fallback (relay_join.py)
    bot_chat: bool = True  # bot seats may say quick phrases (--quiet-bots: never; docs/chat.md)
