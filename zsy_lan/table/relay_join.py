"""The relay at a table: join lines that name one, attaching a mesh, telling the player.

The relay is an MQTT broker (``zsy relay`` starts one, any other serves).
``zsy host --relay mqtts://USER:PASS@HOST`` adds it and the table id to the join
line the host prints::

    tcp://ADDR:PORT#KEY,relay=mqtts://USER@HOST:8883,table=ID

never the password, which a guest gives in ``$ZSY_RELAY_PASSWORD``
(:mod:`zsy_lan.net.broker`). Commas and ``=`` are safe unquoted in a shell;
base64url keys and the table id never contain a comma. ``zsy join`` with such a
line connects to the broker before it reaches for the host, so a joiner that
cannot reach the host's ``tcp://`` address sits down through the relay. Every
seat keeps the relay line in its table folder, so a resumed seat finds the relay
again. (A ``zsy-relay://`` line is the former home-made relay's: refused with a
sentence that says so, :func:`zsy_lan.net.broker.parse_relay_url`.)
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from pathlib import Path

from zsy_lan.net.broker import PASSWORD_ENV, BrokerAddress, RelayError, parse_relay_url
from zsy_lan.net.transport import Mesh, PeerId
from zsy_lan.protocol.lobby import LobbyError, open_lobby
from zsy_lan.record.store import StorageError
from zsy_lan.table.session import Notice
from zsy_lan.text.i18n import _
from zsy_lan.text.sanitize import clean

__all__ = [
    "RELAY_FILE",
    "attach",
    "link_lines",
    "password_hint",
    "relay_marks",
    "relay_suffix",
    "saved_relay",
    "split_target",
    "watch_relay_faults",
]

log = logging.getLogger("zsy.relay")

RELAY_FILE = "relay.url"
#: At most one "the relay altered a frame" notice per this many seconds (the rest are logged).
FAULT_NOTICE_EVERY = 10.0


def relay_suffix(relay: BrokerAddress, table: str) -> str:
    """What the host's join line gains when the table is also reachable through ``relay``."""
    return f",relay={relay.url},table={table}"


def split_target(target: str) -> tuple[str, BrokerAddress | None, str | None]:
    """``(join line without the relay part, relay, table id)``; ValueError says what is wrong."""
    base, sep, rest = target.partition(",")
    if not sep:
        return target, None, None
    fields: dict[str, str] = {}
    for part in rest.split(","):
        name, eq, value = part.partition("=")
        if not eq or name not in ("relay", "table") or not value:
            raise ValueError(
                _(
                    "'{part}' in the join line is not relay=... or table=...: copy the whole "
                    "line the host printed"
                ).format(part=clean(part, 60))
            )
        fields[name] = value
    if "relay" not in fields or "table" not in fields:
        raise ValueError(
            _(
                "the join line names a relay without its table (or the other way round): copy the "
                "whole line the host printed"
            )
        )
    table = fields["table"]
    if len(table) > 64 or not table.isalnum():
        raise ValueError(
            _("'{table}' is not a table id: copy the whole line the host printed").format(
                table=clean(table, 64)
            )
        )
    try:
        relay = parse_relay_url(fields["relay"])
    except RelayError as exc:
        raise ValueError(clean(str(exc), 300)) from None
    return base, relay, table


def refusal_text(code: str, broker: BrokerAddress, detail: str = "") -> str:
    """One sentence for a broker that would not take us (or was silent): what was wrong,
    what to do; ``detail``: what the system said."""
    where = broker.endpoint
    if code == "auth":
        return _(
            "the MQTT broker at {where} refused the user name or password: check them "
            "(in the --relay URL as mqtts://USER:PASSWORD@HOST, or in ${env} for a guest)"
        ).format(where=where, env=PASSWORD_ENV)
    if code == "busy":
        return _(
            "the MQTT broker at {where} takes no more connections now (it is full, or has as "
            "many from your network address as it allows): try again later, or another broker"
        ).format(where=where)
    if code == "not_authorized":
        return _(
            "the MQTT broker at {where} let you in but not onto the table's topics "
            "(zsy/...): ask its operator to allow them"
        ).format(where=where)
    if code == "tls":
        return _(
            "no secure connection to the MQTT broker at {where} ({detail}): is it mqtts on "
            "that port? A broker with a private certificate needs its authority's file "
            "(--relay-ca FILE, or $ZSY_RELAY_CA for a guest)"
        ).format(where=where, detail=detail or "TLS")
    if broker.tls:
        return _(
            "cannot reach the MQTT broker at {where} ({detail}): is the address right, is it "
            "running and reachable from here?"
        ).format(where=where, detail=detail or _("no answer"))
    return _(
        "cannot reach the MQTT broker at {where} ({detail}): is the address right, is it "
        "running and reachable from here? (A broker that speaks only TLS needs mqtts://.)"
    ).format(where=where, detail=detail or _("no answer"))


def password_hint() -> str:
    """What the host is told when its broker has a password the lines leave out."""
    return _(
        "The join and watch lines leave out the broker's password: give it to your players "
        "apart; they set {env} to it before zsy join or zsy watch."
    ).format(env=PASSWORD_ENV)


async def attach(
    mesh: Mesh,
    relay: BrokerAddress,
    table: str,
    timeout: float,
) -> str:
    """Attach ``relay`` to ``mesh`` for table ``table``; ``""`` or a sentence why not.

    The link keeps trying in the background even when it was refused.
    """
    code = await mesh.attach_relay(relay, table, timeout=timeout)
    detail = mesh.relay.status.detail if mesh.relay is not None else ""
    return refusal_text(code, relay, detail) if code else ""


def save_relay(folder: Path, relay: BrokerAddress) -> None:
    """Remember the table's relay next to its record (a resumed seat needs it). A broker's
    password is not kept: a resumed seat gives it again in ``$ZSY_RELAY_PASSWORD``."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        (folder / RELAY_FILE).write_text(relay.url + "\n")
    except (OSError, StorageError) as exc:  # resuming then goes without: say so in the log
        log.warning("cannot save the relay line in %s: %s", folder, exc)


def saved_relay(folder: Path) -> BrokerAddress | None:
    """The relay this seat used, if it used one (``None`` when absent or unreadable);
    :class:`~zsy_lan.net.broker.RelayError` for a line this version cannot use (the
    former relay's ``zsy-relay://``): the caller tells the player."""
    try:
        text = (folder / RELAY_FILE).read_text()
    except OSError:
        return None
    return parse_relay_url(text)


def watch_relay_faults(mesh: Mesh, notices: object, nick_of: Callable[[PeerId], str]) -> None:
    """Tell the player when the relay altered, misaddressed or replayed a frame.

    It is the relay's doing (only the relay stands between the two ends of a
    box), so the seat named is only the one the relay *claimed* sent it; the
    frame is dropped and the protocol asks again for what is missing.
    """
    last = [-FAULT_NOTICE_EVERY]

    def told(what: str, peer: PeerId) -> None:
        now = time.monotonic()
        if now - last[0] < FAULT_NOTICE_EVERY:
            return
        last[0] = now
        texts = {
            "altered": _(
                "the relay altered a frame it claimed came from {nick}: dropped (the relay's "
                "doing, not {nick}'s; the table asks again for what is missing)"
            ),
            "misaddressed": _(
                "the relay passed on a frame under the wrong sender ({nick}): dropped (the "
                "relay's doing, not {nick}'s)"
            ),
            "replayed": _(
                "the relay replayed an old frame of {nick}: dropped (the relay's doing, not "
                "{nick}'s)"
            ),
        }
        text = texts.get(what, texts["altered"]).format(nick=nick_of(peer))
        notices.put_nowait(Notice("net", text))  # type: ignore[attr-defined]

    mesh.on_relay_fault = told


def link_lines(mesh: Mesh, nick_of: Callable[[PeerId], str]) -> list[str]:
    """The ``links`` command: each other seat's path (direct or relay) and round-trip time."""
    lines = []
    for peer, (path, rtt) in sorted(mesh.link_report().items(), key=lambda kv: str(kv[0])):
        ms = _("{ms} ms").format(ms=f"{rtt * 1000:.1f}") if rtt is not None else "?"
        if path == "direct":
            lines.append(_("{nick}: direct, round trip {rtt}").format(nick=nick_of(peer), rtt=ms))
        elif path == "relay":
            lines.append(
                _("{nick}: through the relay, round trip {rtt}").format(nick=nick_of(peer), rtt=ms)
            )
        else:
            lines.append(_("{nick}: not reachable right now").format(nick=nick_of(peer)))
    if mesh.relay is None:
        lines.append(_("no relay at this table: every link is direct"))
    else:  # which carrier "the relay" is
        lines.append(
            _("the relay: the MQTT broker at {where}").format(where=mesh.relay.address.endpoint)
        )
    return lines


def seat_relay(peer: object, mesh: Mesh, relay: BrokerAddress) -> None:
    """A seated peer with a relay: remember it for a resume, name the relay's faults.

    ``peer`` is the :class:`~zsy_lan.table.peer.TablePeer` (its store, roster and notices).
    """
    roster = peer.roster  # type: ignore[attr-defined]

    def nick_of(p: PeerId) -> str:
        if isinstance(p, int) and 0 <= p < len(roster.seats):
            return str(roster.seats[p].nick)
        return _("a stranger")

    save_relay(peer.store.path, relay)  # type: ignore[attr-defined]
    watch_relay_faults(mesh, peer.notices, nick_of)  # type: ignore[attr-defined]


class RosterEcho:
    """The host's answer to a seat that asks to sit again after the table started.

    Through a relay a frame may be lost, the roster too: a joiner that has
    not got it repeats its ``sit`` (``table.sit_down``), and the host, now
    playing, sends the signed roster again, at most once a second per seat.
    """

    def __init__(self, peer: object, roster_frame: bytes) -> None:
        self.peer = peer
        self.frame = roster_frame
        self.last: dict[int, float] = {}

    def __call__(self, seat: int, frame: bytes) -> None:
        try:
            msg = open_lobby(frame)
        except LobbyError:
            return
        roster = self.peer.roster  # type: ignore[attr-defined]
        if msg.kind not in ("sit", "join") or roster.keys.get(seat) != msg.author:
            return
        now = time.monotonic()
        if now - self.last.get(seat, -1e9) < 1.0:
            return
        self.last[seat] = now
        self.peer._queue(seat, self.frame)  # type: ignore[attr-defined]  # noqa: SLF001


def relay_marks(session: object, ascii_only: bool = False) -> dict[int, str]:
    """Seat -> ``⇄ relay 12 ms`` for each seat this seat reaches through the relay now.

    Shown without asking, next to the seat in the line mode and in the full
    screen's seat panel; empty at a table without a relay or whose links are
    all direct, so such a table looks exactly as before. ``ascii_only``
    (``--ascii``) writes ``<>`` for the arrow. The RTT is the relay's sealed
    ping: a relay can delay it, never make it shorter than its own hop.
    """
    mesh = getattr(session, "mesh", None)
    if not isinstance(mesh, Mesh) or mesh.relay is None:
        return {}
    arrow = "<>" if ascii_only else "\u21c4"
    out: dict[int, str] = {}
    for peer, (path, rtt) in mesh.link_report().items():
        if path != "relay" or not isinstance(peer, int):
            continue
        if rtt is None:
            out[peer] = f"{arrow} " + _("relay")
        else:
            ms = max(1, round(rtt * 1000))
            out[peer] = f"{arrow} " + _("relay {ms} ms").format(ms=ms)
    return out


def session_links(session: object) -> list[str]:
    """``links`` at a table: :func:`link_lines` for a network seat, one sentence otherwise."""
    mesh = getattr(session, "mesh", None)
    if not isinstance(mesh, Mesh):
        return [_("This table has no network links (a local match).")]
    seats = session.info.seats  # type: ignore[attr-defined]

    def nick_of(p: PeerId) -> str:
        if isinstance(p, int) and 0 <= p < len(seats):
            return _("seat {seat} {nick}").format(seat=p, nick=clean(seats[p].nick) or "?")
        return str(p)

    return link_lines(mesh, nick_of)


async def relay_from_welcome(mesh: Mesh, info: dict, on_status: Callable[[str], None]) -> None:
    """Attach the relay the host's welcome names (``zsy host --relay``), if not yet attached.

    A joiner who found the table by name on its LAN has no relay in its line,
    yet some seats may be reachable only through it. The URL is the host's
    text: it is parsed strictly, and a bad one is logged and left out.
    """
    url, table = info.get("relay"), info.get("table")
    if mesh.relay is not None or not isinstance(url, str) or not isinstance(table, str):
        return
    try:
        relay = parse_relay_url(url[:200])
    except RelayError:
        log.info("the host's welcome names a relay this version cannot read: %r", clean(url, 80))
        return
    why = await attach(mesh, relay, table[:64], 3.0)
    if why:
        on_status(why)
