"""``zsy relay``: a small, stateless forwarder for peers that cannot reach each other.

What it is
----------
One ZeroMQ **ROUTER** socket, bound with the relay's own CURVE key pair (kept
in the data dir so its URL stays the same across restarts). Peers connect a
DEALER to it (CURVE client pinning the relay's key from the relay URL
``zsy-relay://HOST:PORT#KEY``), say which table they belong to, and send
envelopes "to the peer with CURVE key K: <box>". The relay hands each box to
K's connection as "from the peer with key S: <box>", S being the key the
CURVE handshake authenticated (never a claimed one).

ZeroMQ's proxy (``zmq.proxy``, the steerable proxy) forwards between a fixed
pair of sockets; routing *by destination id* on one ROUTER needs a small loop
that reads ``[from, TO, dest, box]`` and writes ``[dest, FROM, from, box]``.
That loop is all this module adds on top of libzmq's ROUTER machinery
(``ROUTER_MANDATORY``, ``ROUTER_HANDOVER``, ``SNDHWM``, ``MAXMSGSIZE``, ZAP);
it is kept tiny on purpose.

What it learns, and what it cannot do
-------------------------------------
The box is sealed end to end between the two peers (``nacl.public.Box`` of
their CURVE keys, see :mod:`zsy_lan.net.relay_link`): the relay sees sizes,
timing and which keys talk, never the frames. It holds no key of the table.
It can drop, delay or replay boxes, which the protocol survives (have/want,
resend, hash-chained feeds); a box it alters or misaddresses fails to open
and is named as the relay's doing.

Bounds (no storage at all)
--------------------------
* ``max_tables`` table scopes (a table id; a peer registers in one), at most
  ``max_members`` keys each; a box goes only to a key of the sender's table;
* a token bucket per connection (frames and bytes per second), ``MAXMSGSIZE``
  on the socket (libzmq drops an oversized frame and its connection),
  ``SNDHWM`` per connection (a full queue drops, it does not grow);
* members not heard from for ``idle_after`` seconds are forgotten (peers
  re-register every few seconds); a table with no member is gone.
* a scope is opened only by the table's host: its registration carries a
  ticket (:mod:`zsy_lan.protocol.scope_ticket`) in which the host's identity
  signs the table's name and nonce, from which the table id is derived; so
  nobody opens a scope for a made-up id or for another host's table. One
  host key holds one scope: a host that opens another table gives up its
  older scope here. A seat without the ticket (a joiner, a resumed seat)
  registers only in a scope its host opened.
* per source address (a CURVE key costs nothing to make, an address does; an
  IPv6 /64 counts as one, :func:`zsy_lan.protocol.source.address_group`):
  at most ``tables_per_address`` scopes opened and ``members_per_address``
  keys registered, and registrations through a token bucket
  (``hellos_per_second``; the excess is dropped, the peer retries), so a
  flood of registrations from one address cannot take every table.
* a scope through which no box has passed for ``scope_idle_after`` seconds
  gives way when the relay is full and a host opens a new table: the one
  idle longest is closed (its peers are forgotten; a seat that is still
  there registers again, and is refused only if the relay is still full).
  Keep-alive registrations do not count as use.
* refusals are frames: ``NO full`` (``--max-tables`` reached), ``NO unknown``
  (a joiner for a table no host registered), ``NO unregistered`` (a box from a
  connection that has not registered, e.g. after a relay restart: the peer
  registers again), ``NO nopeer`` (the destination is not here),
  ``NO address_full`` (this source address has its share of tables or keys),
  ``NO unproven`` (a ticket that does not prove its table's host).
"""

from __future__ import annotations

import base64
import contextlib
import logging
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import zmq
from zmq.utils import z85

from zsy_lan.net.curve import DEFAULT_MAX_MESSAGE_SIZE, KEY_LEN, CurveKeyPair
from zsy_lan.protocol.bucket import Bucket, take_all
from zsy_lan.protocol.scope_ticket import MAX_TICKET, TicketError, check_ticket
from zsy_lan.protocol.source import address_group
from zsy_lan.text.i18n import _

__all__ = [
    "BOX_OVERHEAD",
    "Relay",
    "RelayAddress",
    "RelayError",
    "RelayLimits",
    "load_or_create_relay_key",
]

log = logging.getLogger("zsy.relay")

SCHEME = "zsy-relay://"
#: Bytes a sealed frame adds: nacl box (24 nonce + 16 MAC) and the link header (25).
BOX_OVERHEAD = 24 + 16 + 25
SCOPE_MAX = 64  # bytes of a table scope (a table id is 12 hex characters)
ZAP_DOMAIN = b"zsy-relay"

# Wire verbs (first frame of a message between a peer's DEALER and the relay).
HELLO = b"R1HELLO"  # [HELLO, scope, mode(, ticket)]  mode: b"open" (may create) or b"join"
OK = b"R1OK"  # [OK, scope]
NO = b"R1NO"  # [NO, code, detail]
TO = b"R1TO"  # [TO, dest_key, box]
FROM = b"R1FROM"  # [FROM, src_key, box]
MODES = (b"open", b"join")


class RelayError(ValueError):
    """A relay URL or setting that cannot be used; the message says what to do."""


@dataclass(frozen=True)
class RelayAddress:
    """Where a relay listens and the CURVE key it proves it holds."""

    host: str
    port: int
    key: bytes

    @property
    def endpoint(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"tcp://{host}:{self.port}"

    @property
    def url(self) -> str:
        """``zsy-relay://HOST:PORT#KEY``, the key in base64url (safe unquoted in a shell)."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{SCHEME}{host}:{self.port}#{b64(self.key)}"

    @classmethod
    def parse(cls, url: str) -> RelayAddress:
        """Read a relay URL; :class:`RelayError` says what is wrong with it.

        ``zsy-relay://`` may be left out (``HOST:PORT#KEY``).
        """
        text = url.strip()
        rest = text[len(SCHEME) :] if text.startswith(SCHEME) else text
        where, sep, key_text = rest.partition("#")
        if not sep or not key_text:
            raise RelayError(
                _(
                    "'{url}' lacks the relay's key: use the whole zsy-relay://HOST:PORT#KEY line "
                    "that `zsy relay` printed"
                ).format(url=url)
            )
        if where.startswith("["):
            host, _b, port_text = where[1:].partition("]")
            port_text = port_text[1:] if port_text.startswith(":") else ""
        else:
            host, _c, port_text = where.rpartition(":")
        if not host or not port_text.isdigit() or not 0 < int(port_text) < 65536:
            raise RelayError(
                _(
                    "'{url}' is not zsy-relay://HOST:PORT#KEY (a port from 1 to 65535; "
                    "an IPv6 address goes in [ ])"
                ).format(url=url)
            )
        key = unb64(key_text)
        if key is None:
            raise RelayError(
                _("'{key}' is not a relay key (43 characters, as `zsy relay` printed)").format(
                    key=key_text
                )
            )
        return cls(host, int(port_text), key)


def b64(raw: bytes) -> str:
    """base64url without padding: 43 characters for a 32-byte key."""
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def unb64(text: str) -> bytes | None:
    """Inverse of :func:`b64` for a 32-byte key; ``None`` when it is not one."""
    try:
        raw = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    except ValueError:
        return None
    return raw if len(raw) == KEY_LEN and b64(raw) == text else None


def load_or_create_relay_key(directory: Path) -> CurveKeyPair:
    """The relay's CURVE key pair from ``directory/relay.key`` (created, mode 0600, once).

    Kept so that a restarted relay has the same URL: the peers pin its key.
    """
    from zsy_lan.record.store import write_private

    path = directory / "relay.key"
    if path.exists():
        raw = path.read_bytes().strip()
        try:
            return CurveKeyPair.from_secret(z85.decode(raw) if len(raw) == 40 else raw)
        except ValueError:
            raise RelayError(
                _(
                    "{path} does not hold a relay key: move it away and a new one is made "
                    "(the relay's URL then changes)"
                ).format(path=path)
            ) from None
    directory.mkdir(parents=True, exist_ok=True)
    kp = CurveKeyPair.generate()
    write_private(path, z85.encode(kp.secret) + b"\n")
    return kp


@dataclass(frozen=True)
class RelayLimits:
    """Bounds of one relay (``zsy relay`` options set some)."""

    max_tables: int = 64
    max_members: int = 16  # keys per table scope
    frames_per_second: float = 2000.0  # per connection, sustained
    frame_burst: float = 4000.0
    bytes_per_second: float = 4_000_000.0
    byte_burst: float = 8_000_000.0
    max_frame: int = DEFAULT_MAX_MESSAGE_SIZE + BOX_OVERHEAD + 64
    sndhwm: int = 1000  # frames queued per connection before the relay drops
    idle_after: float = 30.0  # seconds without a frame before a member is forgotten
    heartbeat_ivl_ms: int = 1000
    heartbeat_timeout_ms: int = 3000
    tables_per_address: int = 2  # scopes opened from one source address
    members_per_address: int = 32  # keys registered from one source address
    hellos_per_second: float = 10.0  # registrations per source address, sustained
    hello_burst: float = 40.0
    #: seconds without a box through a scope before it gives way to a new host (when full)
    scope_idle_after: float = 600.0


@dataclass
class _Member:
    scope: bytes
    key: bytes
    seen: float
    frames: Bucket  # frames a second
    bytes_: Bucket  # bytes a second
    rate_told: float = -1e9
    address: str = ""


@dataclass
class RelayStats:
    """What the relay did (counters only: it keeps no frame)."""

    forwarded: int = 0
    forwarded_bytes: int = 0
    dropped: Counter[str] = field(default_factory=Counter)
    refused: Counter[str] = field(default_factory=Counter)


class Relay:
    """The forwarder. ``bind()``, then ``run()`` (blocking) or ``start_thread()``."""

    def __init__(
        self,
        keypair: CurveKeyPair,
        *,
        limits: RelayLimits | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.keypair = keypair
        self.limits = limits or RelayLimits()
        self.clock = clock
        self.stats = RelayStats()
        self.tables: dict[bytes, set[bytes]] = {}  # scope -> member keys
        self.members: dict[bytes, _Member] = {}  # key -> member
        self.openers: dict[bytes, str] = {}  # scope -> the source address that opened it
        self.hosts: dict[bytes, bytes] = {}  # scope -> the host key its ticket proved
        self.used: dict[bytes, float] = {}  # scope -> when a box last passed (or it opened)
        self._hellos: dict[str, Bucket] = {}  # address -> its registrations
        self.endpoint = ""
        self._ctx: zmq.Context | None = None
        self._router: zmq.Socket | None = None
        self._zap: zmq.Socket | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._last_expiry = 0.0

    # ------------------------------------------------------------------ setup
    def bind(self, address: str, port: int) -> str:
        """Bind ``tcp://address:port`` (0: any free port); return the bound endpoint.

        Raises ``zmq.ZMQError`` (the caller says it in a sentence).
        """
        lim = self.limits
        self._ctx = zmq.Context()
        try:
            self._zap = self._ctx.socket(zmq.REP)
            self._zap.linger = 0
            self._zap.bind("inproc://zeromq.zap.01")  # before the ROUTER: else no auth at all
            r = self._ctx.socket(zmq.ROUTER)
            self._router = r
            r.linger = 0
            r.router_mandatory = 1
            r.router_handover = 1
            r.sndhwm = lim.sndhwm
            r.rcvhwm = lim.sndhwm
            r.maxmsgsize = lim.max_frame
            r.heartbeat_ivl = lim.heartbeat_ivl_ms
            r.heartbeat_timeout = lim.heartbeat_timeout_ms
            r.heartbeat_ttl = lim.heartbeat_timeout_ms * 2
            r.curve_server = 1
            r.curve_secretkey = z85.encode(self.keypair.secret)
            r.curve_publickey = z85.encode(self.keypair.public)
            r.zap_domain = ZAP_DOMAIN
            if ":" in address:
                r.ipv6 = 1
                address = f"[{address}]"
            r.bind(f"tcp://{address}:{port if port else '*'}")
            self.endpoint = r.last_endpoint.decode()
        except BaseException:
            self.close()
            raise
        return self.endpoint

    @property
    def port(self) -> int:
        return int(self.endpoint.rsplit(":", 1)[1])

    def address(self, host: str) -> RelayAddress:
        """This relay's address as peers reach it at ``host``."""
        return RelayAddress(host, self.port, self.keypair.public)

    def start_thread(self) -> threading.Thread:
        """Run the loop in a daemon thread (tests, the bench); :meth:`stop` ends it."""
        self._thread = threading.Thread(target=self.run, name="zsy-relay", daemon=True)
        self._thread.start()
        return self._thread

    def stop(self) -> None:
        """End :meth:`run` (from any thread) and close the sockets."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(5)
            self._thread = None
        else:
            self.close()

    def close(self) -> None:
        for s in (self._router, self._zap):
            if s is not None and not s.closed:
                s.close(linger=0)
        if self._ctx is not None:
            self._ctx.destroy(linger=0)
            self._ctx = None

    # ------------------------------------------------------------------- loop
    def run(self, until: float | None = None) -> None:
        """Serve until :meth:`stop` (or ``until`` on the clock); closes the sockets at the end."""
        assert self._router is not None and self._zap is not None
        poller = zmq.Poller()
        poller.register(self._router, zmq.POLLIN)
        poller.register(self._zap, zmq.POLLIN)
        try:
            while not self._stop.is_set():
                if until is not None and self.clock() >= until:
                    return
                ready = dict(poller.poll(200))
                if self._zap in ready:
                    self._answer_zap()
                if self._router in ready:
                    for _ in range(256):
                        try:
                            msg = self._router.recv_multipart(zmq.NOBLOCK, copy=False)
                        except zmq.Again:
                            break
                        try:
                            self.handle(msg)
                        except Exception:  # noqa: BLE001 - one bad message never stops it
                            self.stats.dropped["error"] += 1
                            log.exception("relay: a message could not be handled")
                self._expire()
        finally:
            self.close()

    def _answer_zap(self) -> None:
        """Admit every CURVE client and name it by its key (the ``User-Id``)."""
        assert self._zap is not None
        try:
            msg = self._zap.recv_multipart(zmq.NOBLOCK)
        except zmq.Again:
            return
        rid = msg[1] if len(msg) > 1 else b""
        status, text, user = b"400", b"refused", b""
        if len(msg) >= 7 and msg[0] == b"1.0" and msg[5] == b"CURVE" and len(msg[6]) == KEY_LEN:
            status, text, user = b"200", b"OK", z85.encode(msg[6])
        self._zap.send_multipart([b"1.0", rid, status, text, user, b""])

    # -------------------------------------------------------------- messages
    def handle(self, msg: list[zmq.Frame]) -> None:
        """One message from a peer: register it, or forward its box."""
        if len(msg) < 2:
            self.stats.dropped["malformed"] += 1
            return
        rid = msg[0].bytes
        try:
            key = z85.decode(msg[1].get("User-Id"))
        except (zmq.ZMQError, ValueError, TypeError):
            self.stats.dropped["no_user_id"] += 1
            return
        if len(key) != KEY_LEN or rid != b"Z" + key:
            self.stats.dropped["bad_routing_id"] += 1  # a claimed identity not its own
            return
        verb = msg[1].bytes
        if verb == TO and len(msg) == 4:
            self._forward(rid, key, msg[2].bytes, msg[3].bytes)
        elif verb == HELLO and len(msg) in (3, 4, 5):
            mode = msg[3].bytes if len(msg) >= 4 else b"open"
            ticket = msg[4].bytes if len(msg) == 5 else b""
            self._hello(rid, key, msg[2].bytes, mode, _peer_address(msg[1]), ticket)
        else:
            self.stats.dropped["malformed"] += 1

    def _hello(
        self,
        rid: bytes,
        key: bytes,
        scope: bytes,
        mode: bytes,
        address: str = "",
        ticket: bytes = b"",
    ) -> None:
        now = self.clock()
        lim = self.limits
        address = address_group(address)
        if not self._hello_allowed(address, now):
            self.stats.dropped["hello_rate"] += 1  # the peer registers again in a second
            return
        if not scope or len(scope) > SCOPE_MAX or mode not in MODES or len(ticket) > MAX_TICKET:
            self._refuse(rid, b"malformed", "a registration needs a table id and open or join")
            return
        host = b""
        if ticket and mode == b"open":
            try:
                host = check_ticket(ticket, scope.decode("ascii", "replace"))
            except TicketError as exc:
                self._refuse(rid, b"unproven", str(exc))
                return
        old = self.members.get(key)
        if old is not None and old.scope != scope:
            self._leave(key)
            old = None
        if scope not in self.tables:
            if not host:  # a joiner, or a seat without its host's ticket
                self._refuse(rid, b"unknown", "this relay serves no table with that id (yet)")
                return
            if not self._room_for(scope, host, address, now):
                self._refuse_open(rid, address)
                return
            self.tables[scope] = set()
            self.openers[scope] = address
            self.hosts[scope] = host
            self.used[scope] = now
        members = self.tables[scope]
        if key not in members and len(members) >= lim.max_members:
            self._drop_if_empty(scope)
            self._refuse(rid, b"table_full", f"at most {lim.max_members} peers per table")
            return
        if old is None and (
            sum(m.address == address for m in self.members.values()) >= lim.members_per_address
        ):
            self._drop_if_empty(scope)
            self._refuse(rid, b"address_full", "your address has its share of peers")
            return
        members.add(key)
        if old is None:
            self.members[key] = _Member(
                scope,
                key,
                now,
                Bucket(lim.frames_per_second, lim.frame_burst, now),
                Bucket(lim.bytes_per_second, lim.byte_burst, now),
                address=address,
            )
        else:
            old.seen = now
        self._send([rid, OK, scope])

    def _leave(self, key: bytes) -> None:
        m = self.members.pop(key, None)
        if m is None:
            return
        members = self.tables.get(m.scope)
        if members is not None:
            members.discard(key)
            self._drop_if_empty(m.scope)

    def _drop_if_empty(self, scope: bytes) -> None:
        """A scope with no member is gone (and no longer counts for its opener)."""
        if not self.tables.get(scope, True):
            self._close_scope(scope)

    def _close_scope(self, scope: bytes) -> None:
        """Forget ``scope`` and its members (they register again if they are still there)."""
        for key in self.tables.pop(scope, set()):
            self.members.pop(key, None)
        self.openers.pop(scope, None)
        self.hosts.pop(scope, None)
        self.used.pop(scope, None)

    def _room_for(self, scope: bytes, host: bytes, address: str, now: float) -> bool:
        """Make room for ``host``'s new scope; False when there is none.

        Its own older scope goes first, whatever follows (one host key holds
        one scope: a host that opens a new table has left the old one). Then
        the source address's share, then, when the relay is full, the scope
        idle longest gives way if it is idle past ``scope_idle_after``.
        """
        lim = self.limits
        for other in [s for s, h in self.hosts.items() if h == host and s != scope]:
            self._close_scope(other)
            self.stats.dropped["scope_replaced"] += 1
        if sum(a == address for a in self.openers.values()) >= lim.tables_per_address:
            return False
        if len(self.tables) >= lim.max_tables:
            idle = [s for s, t in self.used.items() if now - t >= lim.scope_idle_after]
            if not idle:
                return False
            self._close_scope(min(idle, key=lambda s: self.used[s]))
            self.stats.dropped["scope_idle"] += 1
        return True

    def _refuse_open(self, rid: bytes, address: str) -> None:
        lim = self.limits
        if sum(a == address for a in self.openers.values()) >= lim.tables_per_address:
            self._refuse(rid, b"address_full", "your address has its share of tables")
        else:
            self._refuse(rid, b"full", f"this relay serves {lim.max_tables} tables already")

    def _hello_allowed(self, address: str, now: float) -> bool:
        """The source address's registration bucket: one token per registration."""
        lim = self.limits
        bucket = self._hellos.get(address)
        if bucket is None:
            bucket = self._hellos[address] = Bucket(lim.hellos_per_second, lim.hello_burst, now)
        return bucket.take(now)

    def _forward(self, rid: bytes, key: bytes, dest: bytes, box: bytes) -> None:
        m = self.members.get(key)
        if m is None:
            self.stats.dropped["unregistered"] += 1
            self._refuse(rid, b"unregistered", "register first")
            return
        now = self.clock()
        m.seen = now
        if not self._take(m, len(box), now):
            self.stats.dropped["rate"] += 1
            if now - m.rate_told >= 1.0:
                m.rate_told = now
                self._refuse(rid, b"rate", "too many frames: slow down")
            return
        if len(dest) != KEY_LEN or dest not in self.tables.get(m.scope, ()):
            self.stats.dropped["nopeer"] += 1
            self._refuse(rid, b"nopeer", dest.hex() if len(dest) == KEY_LEN else "")
            return
        self.used[m.scope] = now  # a box between two of its peers: the scope is in use
        out = self.forward_box(box)
        if out is None:
            self.stats.dropped["policy"] += 1
            return
        if self._send([b"Z" + dest, FROM, key, out]):
            self.stats.forwarded += 1
            self.stats.forwarded_bytes += len(out)

    def forward_box(self, box: bytes) -> bytes | None:
        """The box as it leaves (``None``: not at all). An honest relay passes it unchanged.

        Tests subclass this to build a relay that drops or alters frames.
        """
        return box

    def _take(self, m: _Member, size: int, now: float) -> bool:
        """Token buckets: one frame and ``size`` bytes, refilled with the time passed."""
        return take_all(now, (m.frames, 1.0), (m.bytes_, float(size)))

    def _refuse(self, rid: bytes, code: bytes, detail: str) -> None:
        self.stats.refused[code.decode()] += 1
        self._send([rid, NO, code, detail.encode()])

    def _send(self, parts: list[bytes]) -> bool:
        assert self._router is not None
        try:
            self._router.send_multipart(parts, zmq.DONTWAIT)
        except zmq.Again:  # that connection's queue is full: drop, never grow
            self.stats.dropped["queue_full"] += 1
            return False
        except zmq.ZMQError as exc:
            if exc.errno == zmq.EHOSTUNREACH:  # gone: forget it at once
                self.stats.dropped["gone"] += 1
                if len(parts[0]) == KEY_LEN + 1:
                    self._leave(parts[0][1:])
                return False
            raise
        return True

    def _expire(self) -> None:
        now = self.clock()
        if now - self._last_expiry < 1.0:
            return
        self._last_expiry = now
        idle = [k for k, m in self.members.items() if now - m.seen > self.limits.idle_after]
        for key in idle:
            self._leave(key)
        full = self.limits.hello_burst / max(self.limits.hellos_per_second, 1e-9)
        for address in [a for a, b in self._hellos.items() if now - b.at > full]:
            del self._hellos[address]  # refilled by now: nothing to remember


def _peer_address(frame: zmq.Frame) -> str:
    """The source IP address of the connection a frame came on (``""`` if libzmq cannot say)."""
    try:
        return str(frame.get("Peer-Address"))
    except (zmq.ZMQError, ValueError, TypeError, UnicodeDecodeError):
        return ""


def serve(
    relay: Relay, on_ready: Callable[[], None] | None = None, until: float | None = None
) -> None:
    """Run a bound relay in this thread until Ctrl-C or SIGTERM; never a traceback."""
    import signal

    def stop(*_a: object) -> None:
        relay._stop.set()  # noqa: SLF001 - our own module

    with contextlib.suppress(ValueError):  # not the main thread: no signal handler
        signal.signal(signal.SIGTERM, stop)
    if on_ready is not None:
        on_ready()
    try:
        relay.run(until)
    except KeyboardInterrupt:
        relay.close()
