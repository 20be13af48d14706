"""mDNS / DNS-SD discovery of tables (thin asyncio shell over python-zeroconf).

A hosting peer advertises its table as a ``_zsy._tcp.local.`` service while
it has free seats, and after that too while it admits spectators (``zsy
watch NAME`` finds it mid-match); joiners and spectators browse for it.
Everything here uses zeroconf's asyncio API on the caller's event loop (no
threads, no blocking calls in the loop).

Interfaces are always explicit: every function takes a list of IPv4 address
strings and binds zeroconf to exactly those (``interfaces=[...]``,
IPv4 only). A real user gets them from ``zsy_lan.net.netif.select_addresses``;
tests pass ``["127.0.0.1"]`` or the address of a network namespace they
created, so nothing is sent on a real interface.

TXT record (keys are short; values UTF-8; every ``key=value`` <= 255 bytes)::

    txtvers  1
    id       table id
    name     table name (human readable)
    pv       protocol version (int)
    rs       ruleset id
    var      readable variant list, comma separated
    free     free seats (int)
    seats    total seats (int)
    fp       fingerprint of the host's Ed25519 identity key
    port     the host's ROUTER port (also in the SRV record)
    ck       the host's CURVE public key, z85 (a CURVE client must know the
             server key before it can connect; the lobby protocol checks it
             is signed by the identity whose fingerprint is ``fp``)
    deal     private or open
    bots     bots run by the host's own process (seat 0), whose cards that
             player could see (absent: 0)
    clock    the table clock, seconds per turn (absent: no clock)
    assists  the assists the host left on: ``hints``, ``counter``, both
             comma separated, or ``none`` (absent: both on)
    invite   ``1`` for a table by invitation (absent: open). Only the flag:
             the secret is in the host's join URL, never in the record.
    watch    ``ask`` or ``open``: the host admits spectators that way
             (``zsy host --spectators``); absent: none. Only the mode: the
             spectators' names and keys are never in the record.

Every text field (name, variants, ruleset id, fingerprint) is untrusted: it
goes through :func:`zsy_lan.text.sanitize.clean` in :meth:`TableInfo.from_txt`,
so a browser never holds (or prints) an escape sequence; the table id must
be letters, digits, ``-`` or ``_``.

Timing: registering a name takes about 1.2 s (RFC 6762 probing), plus a few
hundred ms of announcements; callers (and tests) wait on events
(:meth:`TableBrowser.wait_for`), they never sleep a fixed time.

Lifecycle: advertise while ``free_seats > 0`` or while the table admits
spectators (:meth:`Advertiser.update` withdraws the record when a table
without spectators fills and re-registers it if a seat frees up; a full table
that admits spectators stays listed with ``free=0``, its host withdraws it
when it closes); :meth:`Advertiser.close` sends the goodbye. A peer killed without
a goodbye stays listed by browsers until its records expire (minutes): mDNS
is for the lobby only, liveness comes from the transport's heartbeats.
Records from the network are untrusted: a malformed TXT record is ignored.

Questions are always multicast (QM), never "unicast response requested"
(QU, zeroconf's default for a first query): several mDNS stacks on one host
(several peers on one machine, or the tests) all bind UDP port 5353 with
SO_REUSEPORT, and the kernel hands a unicast reply to just one of them, often
not the one that asked. With QM every stack sees every answer.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from zeroconf import DNSQuestionType, IPVersion, ServiceStateChange, Zeroconf
from zeroconf.asyncio import AsyncServiceBrowser, AsyncServiceInfo, AsyncZeroconf
from zmq.utils import z85

from zsy_lan.protocol.table_settings import TableSettings
from zsy_lan.text.sanitize import clean, clean_or

__all__ = [
    "SERVICE_TYPE",
    "TXT_VERSION",
    "Advertiser",
    "TableBrowser",
    "TableInfo",
    "TableNotFoundError",
    "browse_tables",
    "find_tables",
    "make_zeroconf",
    "resolve_table",
]

log = logging.getLogger(__name__)

SERVICE_TYPE = "_zsy._tcp.local."
TXT_VERSION = "1"
_MAX_TXT_ITEM = 255
_MAX_LABEL = 63
_TABLE_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
#: the ``watch`` TXT values of a table that admits spectators (anything else: none)
WATCH_MODES = ("ask", "open")


class TableNotFoundError(LookupError):
    """No advertised table matched the requested name."""


@dataclass(frozen=True)
class TableInfo:
    """What a table advertises (and what a browser learns about it)."""

    table_id: str
    name: str
    protocol_version: int
    ruleset_id: str
    variants: tuple[str, ...]
    free_seats: int
    seats: int
    fingerprint: str
    port: int
    curve_key: bytes  # raw 32-byte CURVE public key of the host's ROUTER
    addresses: tuple[str, ...] = ()  # IPv4 addresses (from A records when browsed)
    instance: str = ""  # full DNS-SD instance name, set once registered / browsed
    deal: str = "open"  # "private" (mental poker) or "open": shown before anyone joins
    bots: int = 0  # bots run by the host's process: their cards are visible to seat 0
    settings: TableSettings = TableSettings()  # clock, assists, invite flag (no secret)
    watch: str = "off"  # spectators: "ask", "open" or "off" (zsy host --spectators)

    @property
    def watchable(self) -> bool:
        """The host admits spectators: listed even when full, ``zsy watch NAME`` finds it."""
        return self.watch in WATCH_MODES

    @property
    def endpoints(self) -> list[str]:
        return [f"tcp://{a}:{self.port}" for a in self.addresses]

    @property
    def endpoint(self) -> str | None:
        eps = self.endpoints
        return eps[0] if eps else None

    @property
    def curve_key_z85(self) -> str:
        return z85.encode(self.curve_key).decode("ascii")

    def to_txt(self) -> dict[str, str]:
        """The TXT properties; raises ValueError if any item is too long."""
        if len(self.curve_key) != 32:
            raise ValueError("curve_key must be 32 raw bytes")
        for v in self.variants:
            if "," in v:
                raise ValueError(f"variant name may not contain a comma: {v!r}")
        props = {
            "txtvers": TXT_VERSION,
            "id": self.table_id,
            "name": self.name,
            "pv": str(int(self.protocol_version)),
            "rs": self.ruleset_id,
            "var": ",".join(self.variants),
            "free": str(int(self.free_seats)),
            "seats": str(int(self.seats)),
            "fp": self.fingerprint,
            "port": str(int(self.port)),
            "ck": self.curve_key_z85,
            "deal": self.deal,
        }
        if self.bots:
            props["bots"] = str(int(self.bots))
        props.update(self.settings.to_txt())
        if self.watchable:
            props["watch"] = self.watch
        for k, v in props.items():
            if len(k.encode()) + 1 + len(v.encode()) > _MAX_TXT_ITEM:
                raise ValueError(f"TXT item {k!r} is longer than {_MAX_TXT_ITEM} bytes")
        return props

    @classmethod
    def from_txt(
        cls,
        props: dict[bytes, bytes | None],
        *,
        addresses: Sequence[str] = (),
        instance: str = "",
    ) -> TableInfo:
        """Parse untrusted TXT properties; raises ValueError when malformed."""
        try:
            p = {k.decode("utf-8"): (v or b"").decode("utf-8") for k, v in props.items()}
        except UnicodeDecodeError as exc:
            raise ValueError("TXT record is not UTF-8") from exc
        missing = [k for k in ("id", "name", "pv", "rs", "free", "fp", "port", "ck") if k not in p]
        if missing:
            raise ValueError(f"TXT record lacks {', '.join(missing)}")

        def num(key: str, lo: int, hi: int) -> int:
            try:
                n = int(p[key])
            except ValueError as exc:
                raise ValueError(f"TXT {key}={p[key]!r} is not an integer") from exc
            if not lo <= n <= hi:
                raise ValueError(f"TXT {key}={n} out of range")
            return n

        try:
            key = z85.decode(p["ck"].encode("ascii"))
        except (ValueError, UnicodeEncodeError) as exc:
            raise ValueError("TXT ck is not z85") from exc
        if len(key) != 32:
            raise ValueError("TXT ck is not a 32-byte key")
        if not _TABLE_ID.fullmatch(p["id"]):
            raise ValueError("TXT id is not 1-64 letters, digits, - or _")
        free = num("free", 0, 1000)
        variants = (clean(v, 40).strip() for v in p.get("var", "").split(","))
        return cls(
            table_id=p["id"],
            name=clean_or(p["name"], "table", 64),
            protocol_version=num("pv", 0, 2**31),
            ruleset_id=clean(p["rs"], 64),
            variants=tuple(v for v in variants if v),
            free_seats=free,
            seats=num("seats", 0, 1000) if "seats" in p else free,
            fingerprint=clean(p["fp"], 64),
            port=num("port", 1, 65535),
            curve_key=key,
            addresses=tuple(addresses),
            instance=clean(instance, 255),
            deal="private" if p.get("deal") == "private" else "open",
            bots=num("bots", 0, 1000) if "bots" in p else 0,
            settings=TableSettings.from_txt(p),
            watch=p["watch"] if p.get("watch") in WATCH_MODES else "off",
        )

    @classmethod
    def from_service_info(cls, info: AsyncServiceInfo) -> TableInfo:
        t = cls.from_txt(
            info.properties,
            addresses=info.parsed_addresses(IPVersion.V4Only),
            instance=info.name,
        )
        if info.port and info.port != t.port:
            # SRV is authoritative for where to connect.
            t = replace(t, port=info.port)
        return t

    @property
    def label(self) -> str:
        """The instance label (instance name without the service type)."""
        if self.instance.endswith("." + SERVICE_TYPE):
            return self.instance[: -len(SERVICE_TYPE) - 1]
        return self.instance


def make_zeroconf(interfaces: Sequence[str]) -> AsyncZeroconf:
    """An AsyncZeroconf bound to exactly ``interfaces`` (IPv4 address strings)."""
    if not interfaces:
        raise ValueError("pass the interfaces explicitly, e.g. ['127.0.0.1']")
    return AsyncZeroconf(interfaces=list(interfaces), ip_version=IPVersion.V4Only)


def _instance_label(name: str) -> str:
    label = name.replace(".", "_").strip() or "zsy table"
    raw = label.encode("utf-8")[:_MAX_LABEL]
    return raw.decode("utf-8", errors="ignore")


def _server_name(table_id: str) -> str:
    slug = re.sub(r"[^a-z0-9-]", "", table_id.lower())[:40] or "table"
    return f"zsy-{slug}.local."


class Advertiser:
    """Publishes one table while it has free seats or admits spectators.

    ``interfaces`` are the IPv4 addresses zeroconf binds to; the A records
    carry ``table.addresses`` if set, else those interfaces. Pass
    ``zeroconf=`` to share one instance with a :class:`TableBrowser`
    (then :meth:`close` does not close it).
    """

    def __init__(
        self, interfaces: Sequence[str] = (), *, zeroconf: AsyncZeroconf | None = None
    ) -> None:
        if zeroconf is None and not interfaces:
            raise ValueError("pass interfaces (e.g. ['127.0.0.1']) or a zeroconf instance")
        self._interfaces = tuple(interfaces)
        self._own = zeroconf is None
        self._azc = zeroconf
        self._info: AsyncServiceInfo | None = None
        self._announce: asyncio.Future | None = None
        self._lock = asyncio.Lock()
        self.table: TableInfo | None = None

    @property
    def advertised(self) -> bool:
        return self._info is not None

    @property
    def interfaces(self) -> tuple[str, ...]:
        """The IPv4 addresses it advertises on (kept so a resumed host lists the table there)."""
        return self._interfaces

    @property
    def instance(self) -> str | None:
        """Registered instance name (may differ from the table name after a conflict)."""
        return self._info.name if self._info is not None else None

    def _zc(self) -> AsyncZeroconf:
        if self._azc is None:
            self._azc = make_zeroconf(self._interfaces)
        return self._azc

    def _service_info(self, table: TableInfo, name: str | None) -> AsyncServiceInfo:
        addresses = list(table.addresses or self._interfaces)
        if not addresses:
            raise ValueError("no address to advertise: set table.addresses or interfaces")
        return AsyncServiceInfo(
            SERVICE_TYPE,
            name or f"{_instance_label(table.name)}.{SERVICE_TYPE}",
            port=table.port,
            properties=table.to_txt(),
            server=_server_name(table.table_id),
            parsed_addresses=addresses,
        )

    async def register(self, table: TableInfo) -> bool:
        """Advertise ``table`` (free seats, or watchable); returns whether it is advertised.

        Returns after probing (~1.2 s); the announcements continue in the
        background.
        """
        return await self.update(table)

    async def update(self, table: TableInfo) -> bool:
        """Publish the table's new state: update, withdraw, or re-register.

        A table is withdrawn at 0 free seats unless it admits spectators
        (:attr:`TableInfo.watchable`): then it stays listed as full, so
        ``zsy watch NAME`` finds it mid-match.
        """
        async with self._lock:
            table.to_txt()  # validate before touching the network
            self.table = table
            if table.free_seats <= 0 and not table.watchable:
                await self._unregister()
                return False
            azc = self._zc()
            await self._stop_announce()
            if self._info is None:
                info = self._service_info(table, None)
                self._announce = await azc.async_register_service(info, allow_name_change=True)
                self._info = info
            else:
                info = self._service_info(table, self._info.name)
                self._announce = await azc.async_update_service(info)
                self._info = info
            return True

    async def unregister(self) -> None:
        """Withdraw the record with a goodbye (waits until the goodbyes are sent)."""
        async with self._lock:
            await self._unregister()

    async def _stop_announce(self) -> None:
        fut, self._announce = self._announce, None
        if fut is not None and not fut.done():
            fut.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await fut

    async def _unregister(self) -> None:
        info, self._info = self._info, None
        await self._stop_announce()
        if info is not None and self._azc is not None:
            goodbye = await self._azc.async_unregister_service(info)
            await goodbye

    async def close(self) -> None:
        """Unregister (goodbye) and close the zeroconf instance if we own it."""
        await self.unregister()
        if self._own and self._azc is not None:
            azc, self._azc = self._azc, None
            await azc.async_close()

    async def __aenter__(self) -> Advertiser:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()


class TableBrowser:
    """Continuously browses ``_zsy._tcp`` and keeps :attr:`tables` current.

    ``on_change(kind, table)`` is called in the loop with kind ``"added"``,
    ``"updated"`` or ``"removed"``.
    """

    def __init__(
        self,
        interfaces: Sequence[str] = (),
        *,
        zeroconf: AsyncZeroconf | None = None,
        on_change: Callable[[str, TableInfo], None] | None = None,
        resolve_timeout: float = 3.0,
    ) -> None:
        if zeroconf is None and not interfaces:
            raise ValueError("pass interfaces (e.g. ['127.0.0.1']) or a zeroconf instance")
        self._interfaces = tuple(interfaces)
        self._own = zeroconf is None
        self._azc = zeroconf
        self._on_change = on_change
        self._resolve_ms = int(resolve_timeout * 1000)
        self._browser: AsyncServiceBrowser | None = None
        self._pending: dict[str, asyncio.Task] = {}
        self._changed = asyncio.Event()
        #: Resolved tables by DNS-SD instance name.
        self.tables: dict[str, TableInfo] = {}

    async def start(self) -> TableBrowser:
        if self._browser is not None:
            return self
        if self._azc is None:
            self._azc = make_zeroconf(self._interfaces)
        self._browser = AsyncServiceBrowser(
            self._azc.zeroconf,
            [SERVICE_TYPE],
            handlers=[self._on_service],
            question_type=DNSQuestionType.QM,
        )
        return self

    def _on_service(
        self, zeroconf: Zeroconf, service_type: str, name: str, state_change: ServiceStateChange
    ) -> None:
        old = self._pending.pop(name, None)
        if old is not None:
            old.cancel()
        if state_change is ServiceStateChange.Removed:
            table = self.tables.pop(name, None)
            if table is not None:
                self._notify("removed", table)
            return
        task = asyncio.get_running_loop().create_task(self._resolve(name))
        self._pending[name] = task

    async def _resolve(self, name: str) -> None:
        assert self._azc is not None
        try:
            info = AsyncServiceInfo(SERVICE_TYPE, name)
            ok = await info.async_request(
                self._azc.zeroconf, self._resolve_ms, question_type=DNSQuestionType.QM
            )
            if not ok:
                log.debug("could not resolve %s", name)
                return
            try:
                table = TableInfo.from_service_info(info)
            except ValueError as exc:
                log.info("ignoring table %r with a bad TXT record: %s", name, exc)
                return
            kind = "updated" if name in self.tables else "added"
            self.tables[name] = table
            self._notify(kind, table)
        finally:
            if self._pending.get(name) is asyncio.current_task():
                del self._pending[name]

    def _notify(self, kind: str, table: TableInfo) -> None:
        self._changed.set()
        if self._on_change is not None:
            try:
                self._on_change(kind, table)
            except Exception:
                log.exception("on_change callback failed")

    async def wait_for(
        self, predicate: Callable[[TableInfo], bool], timeout: float
    ) -> TableInfo | None:
        """First known table satisfying ``predicate``, waiting up to ``timeout`` s."""
        deadline = time.monotonic() + timeout
        while True:
            for t in list(self.tables.values()):
                if predicate(t):
                    return t
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            self._changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._changed.wait(), left)

    @property
    def pending(self) -> int:
        """Services seen but not resolved yet."""
        return len(self._pending)

    async def wait_gone(self, predicate: Callable[[TableInfo], bool], timeout: float) -> bool:
        """Wait until no known table satisfies ``predicate``; False on timeout."""
        deadline = time.monotonic() + timeout
        while any(predicate(t) for t in list(self.tables.values())):
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            self._changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._changed.wait(), left)
        return True

    async def close(self) -> None:
        for t in self._pending.values():
            t.cancel()
        if self._pending:
            await asyncio.wait(list(self._pending.values()), timeout=1.0)
        self._pending.clear()
        if self._browser is not None:
            browser, self._browser = self._browser, None
            await browser.async_cancel()
        if self._own and self._azc is not None:
            azc, self._azc = self._azc, None
            await azc.async_close()

    async def __aenter__(self) -> TableBrowser:
        return await self.start()

    async def __aexit__(self, *exc: object) -> None:
        await self.close()


def _matches(table: TableInfo, name: str) -> bool:
    return name in (table.name, table.label, table.instance, table.table_id)


async def browse_tables(
    interfaces: Sequence[str], timeout: float = 3.0, *, zeroconf: AsyncZeroconf | None = None
) -> list[TableInfo]:
    """Listen for ``timeout`` seconds and return the tables seen, sorted by name."""
    async with TableBrowser(interfaces, zeroconf=zeroconf) as browser:
        await browser.wait_for(lambda _t: False, timeout)
        return sorted(browser.tables.values(), key=lambda t: (t.name, t.instance))


async def resolve_table(
    name: str,
    interfaces: Sequence[str],
    timeout: float = 5.0,
    *,
    zeroconf: AsyncZeroconf | None = None,
) -> TableInfo:
    """Find the table whose name, instance label or table id is ``name``.

    Returns as soon as it is seen; raises :class:`TableNotFoundError` (naming
    the tables that were seen) after ``timeout`` seconds.
    """
    async with TableBrowser(interfaces, zeroconf=zeroconf) as browser:
        found = await browser.wait_for(lambda t: _matches(t, name), timeout)
        if found is None:
            seen = ", ".join(sorted(t.name for t in browser.tables.values())) or "none"
            raise TableNotFoundError(f"no table named {name!r} found (seen: {seen})")
        return found


# How long a lookup by name keeps listening after the first answer. A second
# responder's answer to the browser's first query is often lost among the others
# (measured on loopback with a few hosts: it came with the second query, ~1.1 s
# after the first answer), so half a second missed a second table of the same
# name and the join silently chose the first.
SECOND_LOOK = 1.5


async def find_tables(
    name: str,
    interfaces: Sequence[str],
    timeout: float = 5.0,
    *,
    settle: float = 2.0,
    zeroconf: AsyncZeroconf | None = None,
) -> list[TableInfo]:
    """Every table whose name, instance label or id is ``name``.

    Waits up to ``timeout`` seconds for the first, then until every service
    seen so far is resolved (at most ``settle`` seconds more, at least
    :data:`SECOND_LOOK` seconds) for others of the same name: two hosts may pick
    one name, and the caller must not silently choose. Empty when none was seen.
    """
    async with TableBrowser(interfaces, zeroconf=zeroconf) as browser:
        first = await browser.wait_for(lambda t: _matches(t, name), timeout)
        if first is None:
            return []
        loop = asyncio.get_running_loop()
        start = loop.time()
        while loop.time() - start < settle:
            if browser.pending == 0 and loop.time() - start >= min(SECOND_LOOK, settle):
                break
            await browser.wait_for(lambda t: False, 0.1)
        found = [t for t in browser.tables.values() if _matches(t, name)]
        return sorted(found, key=lambda t: (t.name, t.table_id))
