"""Results that last: an index over a profile's game records, tallies and Elo ratings.

Why an index and not a database of results: the records are the proof. A
table's transcript (``profiles/NAME/tables/TABLE/transcript.jsonl``, the bot
seats' ``bot-seat-K/transcript.jsonl`` beside it, ``zsy play``'s
``ROOT/local/play-*.jsonl``) is re-verified exactly as ``zsy replay --verify``
does (:func:`~zsy_lan.protocol.verify_transcript` with a fresh engine), and
only what a verified *finished* record proves becomes a result: who sat (the
roster's keys), the final match score of each seat, the winners. A damaged or
tampered record is listed as "does not verify" and counts for nothing. The
nicks and the bot labels of the header are not signed: they are shown (after
:func:`~zsy_lan.text.sanitize.clean`), never used as an identity; an identity is an
Ed25519 key.

One match, one result: every copy of a match (the player's seat, the bots'
seats hosted in the same process, a copied file) has the same table id and
transcript head, so they count once. The profile's own key says which seat is
"me".

A cache (``profiles/NAME/history.jsonl``) remembers each record's verdict,
keyed by its path, size and SHA-256: an unchanged record is not verified
again, a changed one is. The cache is written atomically (temporary file,
then rename); when it cannot be written the history is still complete and the
caller says so in one sentence. Records are only ever read.

Ratings (docs/history.md): multiplayer Elo as pairwise comparisons of final
match placements, start 1500, K 32 shared over the other seats, matches
processed in time order (file time, then head): the same records give the
same ratings whatever order the files are found in.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from zsy_lan.engine.phases import MatchPhase
from zsy_lan.engine.rules import Rules
from zsy_lan.protocol.identity import Identity, fingerprint
from zsy_lan.protocol.transcript import load_header
from zsy_lan.text.sanitize import clean

__all__ = [
    "CACHE_NAME",
    "K_FACTOR",
    "START_RATING",
    "History",
    "Opponent",
    "Rating",
    "RatedMatch",
    "RecordEntry",
    "SeatResult",
    "VariantTally",
    "build_history",
    "elo_expected",
    "known_players",
    "match_places",
    "rate",
    "verify_record",
]

CACHE_NAME = "history.jsonl"
CACHE_VERSION = 4  # 2: the reason of a bad record is structured (kind, line, detail)
# 3: what no seat signs (the header, the lines' order and fields) is DAMAGED, naming nobody:
#    a verdict kept by version 2 may name a seat for it, so every record is verified again
# 4: a header whose keys differ from the roster the seats' first messages signed is DAMAGED
#    (issue #25): version 3 may have kept a re-keyed record as verified, crediting the key
#    the forger put in it, so every record is verified again
START_RATING = 1500.0
K_FACTOR = 32.0

FINISHED = "finished"
UNFINISHED = "unfinished"
BAD = "bad"  # does not verify: counts for nothing
UNREADABLE = "unreadable"  # a local fault (permissions, disk): not the record's

#: files under a table's folder that are not game records
_NOT_RECORDS = ("journal.jsonl", "evidence.jsonl", CACHE_NAME)


@dataclass(frozen=True)
class SeatResult:
    """One seat of a verified record: its key (proved), its nick and bot label (not signed)."""

    seat: int
    key: str  # Ed25519 public key, hex: the identity
    nick: str  # sanitised; only a label
    bot: bool  # the header says so (unsigned): a label too
    place: int = 0  # final placement in the match (1 = best); 0 while unfinished
    points: int = 0  # the seat's match total under the table's scoring

    @property
    def fingerprint(self) -> str:
        """The short form people compare (``zsy tables`` shows the same)."""
        return fingerprint(bytes.fromhex(self.key))


@dataclass
class RecordEntry:
    """What one record file proves (or why it proves nothing)."""

    path: str
    size: int
    digest: str  # SHA-256 of the whole file: the cache key with path and size
    status: str  # finished, unfinished, bad, unreadable
    reason: str = ""  # bad: the verifier's English detail (see ``why``); unreadable: the OS's
    kind: str = ""  # bad: TAMPERED, DAMAGED or NOT_A_RECORD (zsy_lan.record.replay.reason_text)
    line: int = 0  # bad: the line it names (1-based; 0 for none)
    culprit: int = -1  # bad: the seat a signed proof names (-1 for none)
    table: str = ""
    name: str = ""
    game: str = ""  # the config's game (zsy, doudizhu)
    plugins: list[str] = field(default_factory=list)
    players: int = 0
    deal: str = ""
    rounds: int = 0
    head: str = ""
    seats: list[SeatResult] = field(default_factory=list)
    winners: list[int] = field(default_factory=list)
    teams: list[list[int]] = field(default_factory=list)
    mtime: float = 0.0  # not cached: read from the file each time
    local: bool = False  # ``zsy play``'s record (no lasting identities in it)

    def why(self) -> str:
        """Why the record counts for nothing, in the reader's language, as ``zsy replay`` says it.

        Rendered when shown, not stored: the cache keeps the structured reason, so
        the words follow the language of whoever reads the history.
        """
        if self.status != BAD or not self.kind:
            return self.reason
        from zsy_lan.record.replay import reason_text

        return reason_text(
            self.kind, self.line or None, self.reason, self.culprit if self.culprit >= 0 else None
        )

    @property
    def variant(self) -> str:
        """The variant as the tallies group it: the game plus its other plugins, e.g. ``zsy``."""
        extra = [p for p in self.plugins if p != self.game]
        return "+".join([self.game or "?", *extra])

    def to_cache(self) -> dict[str, Any]:
        """The cached verdict (without the file time and location flag, read afresh)."""
        out = asdict(self)
        out.pop("mtime")
        out.pop("local")
        return out

    @classmethod
    def from_cache(cls, obj: Mapping[str, Any]) -> RecordEntry:
        """Inverse of :meth:`to_cache`; ``ValueError``/``KeyError``/``TypeError`` if damaged."""
        data = dict(obj)
        data["seats"] = [SeatResult(**s) for s in data.get("seats", [])]
        entry = cls(**data)
        if entry.status not in (FINISHED, UNFINISHED, BAD) or not _well_typed(entry):
            raise ValueError("not a cached verdict")
        return entry


def _well_typed(entry: RecordEntry) -> bool:
    """True when a cached entry has the types the tallies compute with (else: a cache miss)."""

    def ints(*xs: object) -> bool:
        return all(isinstance(x, int) and not isinstance(x, bool) for x in xs)

    def strs(*xs: object) -> bool:
        return all(isinstance(x, str) for x in xs)

    return (
        ints(entry.size, entry.players, entry.rounds, entry.line, entry.culprit)
        and strs(entry.path, entry.digest, entry.reason, entry.table, entry.name, entry.game,
                 entry.deal, entry.head, entry.kind, *entry.plugins)
        and ints(*entry.winners)
        and all(isinstance(t, list) and ints(*t) for t in entry.teams)
        and all(x.seat == i for i, x in enumerate(entry.seats))
        and all(
            ints(x.seat, x.place, x.points) and strs(x.key, x.nick) and isinstance(x.bot, bool)
            and len(x.key) == 64 and all(c in "0123456789abcdef" for c in x.key)
            for x in entry.seats
        )
    )


@dataclass
class Match:
    """One finished match, counted once however many copies of its record there are."""

    entry: RecordEntry  # the copy shown (the profile's own seat's, when there is one)
    copies: list[str]
    time: float  # the earliest file time among the copies
    me: int | None  # the profile's seat; None when its key is not in the roster

    @property
    def order(self) -> tuple[float, str]:
        """Rating order: time, then the transcript head (unique per match)."""
        return (self.time, self.entry.head)

    def result_of(self, seat: int) -> SeatResult:
        """What the record proves about ``seat`` (its key, place and points)."""
        return self.entry.seats[seat]

    @property
    def won(self) -> bool:
        """True when the profile's seat is among the match's winners."""
        return self.me is not None and self.me in self.entry.winners


@dataclass
class Opponent:
    """Head-to-head against one identity (keyed by key; the last nick seen is a label)."""

    key: str  # "" for bots tallied by their level (see opponents)
    nick: str = ""
    bot: bool = False
    games: int = 0  # matches together
    seats: int = 0  # their seats met: more than games for the bots of one level
    wins: int = 0  # I finished above them (one per seat met)
    losses: int = 0
    ties: int = 0
    my_points: int = 0
    their_points: int = 0

    @property
    def fingerprint(self) -> str:
        """The key's short form, as people compare it ("" for a level's bots: many keys)."""
        return fingerprint(bytes.fromhex(self.key)) if self.key else ""


@dataclass
class VariantTally:
    """My matches of one variant (game and plugins) and table size."""

    variant: str
    players: int
    games: int = 0
    wins: int = 0
    points: int = 0
    places: list[int] = field(default_factory=list)


@dataclass
class Rating:
    """An identity's Elo rating after every verified match it played."""

    key: str
    rating: float = START_RATING
    games: int = 0
    wins: int = 0  # matches it won
    nick: str = ""
    bot: bool = False

    @property
    def fingerprint(self) -> str:
        """The key's short form, as people compare it."""
        return fingerprint(bytes.fromhex(self.key))


@dataclass(frozen=True)
class RatedMatch:
    """The part of a match the ratings use: who placed where, who played together."""

    order: tuple[float, str]
    places: tuple[tuple[str, int], ...]  # (key, place) per seat
    teams: tuple[tuple[str, ...], ...] = ()  # keys of each team (partnerships): no pair within
    winners: tuple[str, ...] = ()
    nicks: tuple[tuple[str, str], ...] = ()
    bots: tuple[str, ...] = ()


# --- verifying one record ---------------------------------------------------------


def match_scores(rules: Rules, match: Any) -> tuple[int, ...]:
    """Each seat's final match standing, higher is better (ZSY-8.5, DDZ-5.3).

    The same comparison the engine uses to find the winners: the variant's own
    match score if it has one (Dou Dizhu: totals; partnerships: the team's sum),
    else rounds won (ranking), minus the points (penalty) or the points (card
    count).
    """
    custom = rules.match_score(rules, match) if rules.match_score is not None else None
    if custom is not None:
        return tuple(int(x) for x in custom)
    if rules.scoring == "ranking":
        return tuple(int(x) for x in match.upstreams)
    if rules.scoring == "penalty":
        return tuple(-int(t) for t in match.totals)
    return tuple(int(t) for t in match.totals)


def match_places(scores: Sequence[int], winners: Iterable[int]) -> tuple[int, ...]:
    """Final placements: the winners first (deciding rounds broke their tie), then by score.

    Equal standing shares a place ("1, 2, 2, 4"): two seats that tied stay tied.
    """
    won = set(winners)
    keys = [(0 if s in won else 1, -scores[s]) for s in range(len(scores))]
    return tuple(1 + sum(1 for other in keys if other < mine) for mine in keys)


def verify_record(path: Path, data: bytes, *, local: bool = False) -> RecordEntry:
    """Verify one record's bytes from scratch, as ``zsy replay --verify`` does.

    Never raises for a bad record: anything wrong (not text, no header, a rule
    it needs that is not installed, a bad signature, a move the engine
    refuses) is a ``bad`` entry with the reason.
    """
    entry = RecordEntry(
        path=str(path), size=len(data), digest=hashlib.sha256(data).hexdigest(), status=BAD,
        local=local,
    )
    try:
        _verify_into(entry, data)
    except Exception as exc:  # noqa: BLE001 - a crafted record must not stop the history
        from zsy_lan.record.replay import NOT_A_RECORD, NotARecord

        entry.status = BAD
        entry.kind, entry.line, entry.culprit = NOT_A_RECORD, 0, -1
        # our own reason is kept as its message id: worded in the reader's language when shown
        why = exc.msgid if isinstance(exc, NotARecord) else str(exc) or type(exc).__name__
        entry.reason = clean(why, 300)
    return entry


def _verify_into(entry: RecordEntry, data: bytes) -> None:
    """Fill ``entry`` from the record ``data`` (raises on a record that is not one)."""
    from zsy_lan.record.replay import check_record

    checked = check_record(data)
    table, roster = load_header(checked.lines[0])
    rules, rounds, meta, result = checked.rules, checked.rounds, checked.meta, checked.result
    # the variant is the one the record was verified by (the header's plugins), not the
    # header's unsigned label for it, which an edit could set to anything
    config = rules.config
    entry.table = table
    entry.name = clean(meta.get("name", ""), 60)
    entry.game = clean(config.get("game", ""), 30)
    entry.plugins = [clean(p[0], 30) for p in config.get("plugins", [])]
    entry.players = rules.players
    entry.deal = "private" if meta.get("deal") == "private" else "open"
    entry.rounds = rounds
    entry.teams = [list(t) for t in rules.teams or ()]
    entry.head = result.head
    nicks = meta.get("nicks", {}) if isinstance(meta.get("nicks"), dict) else {}
    bots = {b for b in meta.get("bots", []) if isinstance(b, int)}
    if not result.ok:
        # structured, put in words when shown (``RecordEntry.why``), as zsy replay does
        entry.kind = result.kind
        entry.line = int(result.bad_line or 0)
        entry.culprit = -1 if result.culprit is None else int(result.culprit)
        entry.reason = clean(result.reason, 300)
        entry.status = BAD
        return
    match = checked.game.match
    finished = result.finished and match.phase == MatchPhase.OVER
    places: Sequence[int] = (0,) * rules.players
    totals: Sequence[int] = (0,) * rules.players
    if finished:
        places = match_places(match_scores(rules, match), match.winners)
        totals = match.totals
        entry.winners = sorted(int(s) for s in match.winners)
    entry.seats = [
        SeatResult(
            seat=s,
            key=roster[s].hex(),
            nick=clean(nicks.get(str(s), f"seat {s}"), 40),
            bot=s in bots,
            place=int(places[s]),
            points=int(totals[s]),
        )
        for s in sorted(roster)
    ]
    entry.status = FINISHED if finished else UNFINISHED


# --- the index over a profile's records ---------------------------------------------


@dataclass
class History:
    """Every record of a profile (and of ``zsy play``), verified, and the matches they prove."""

    records: list[RecordEntry]
    matches: list[Match]  # finished, verified, one per match; newest first
    unfinished: list[RecordEntry]  # verified but unfinished, not part of a finished match
    me_key: str | None
    verified: int = 0  # records verified this run (not from the cache)
    cache_path: Path | None = None
    cache_error: OSError | None = None  # the cache could not be saved (the history is complete)

    @property
    def bad(self) -> list[RecordEntry]:
        """Records that do not verify (or cannot be read): listed, counted for nothing."""
        return [r for r in self.records if r.status in (BAD, UNREADABLE)]


def record_paths(root: Path, profile: str) -> list[tuple[Path, bool]]:
    """The record files to index: the profile's tables (every seat), then ``zsy play``'s.

    Sorted, so the scan does not depend on the order the OS lists folders in.
    ``OSError`` when a folder cannot be listed.
    """
    out: list[tuple[Path, bool]] = []
    tables = root / "profiles" / profile / "tables"
    if tables.is_dir():
        for p in sorted(tables.rglob("*.jsonl")):
            if p.name in _NOT_RECORDS or p.name.endswith(".evidence.jsonl") or not p.is_file():
                continue
            out.append((p, False))
    local = root / "local"
    if local.is_dir():
        for p in sorted(local.glob("*.jsonl")):
            if p.name.endswith(".evidence.jsonl") or not p.is_file():
                continue
            out.append((p, True))
    return out


def profile_key(root: Path, profile: str) -> str | None:
    """The profile's public key (hex), read without taking the profile's lock; None if none."""
    path = root / "profiles" / profile / "identity.pem"
    try:
        return Identity.from_pem(path.read_bytes(), str(path)).public_key.hex()
    except (OSError, ValueError):
        return None


def _load_cache(path: Path) -> dict[str, RecordEntry]:
    """The cached verdicts by path; a damaged line (or file) is only a cache miss."""
    out: dict[str, RecordEntry] = {}
    try:
        raw = path.read_bytes()
    except OSError:
        return out
    for line in raw.splitlines():
        with contextlib.suppress(ValueError, KeyError, TypeError, AttributeError):
            obj = json.loads(line)
            if obj.get("v") == CACHE_VERSION:
                entry = RecordEntry.from_cache(obj["record"])
                out[entry.path] = entry
    return out


def _save_cache(path: Path, entries: Iterable[RecordEntry]) -> None:
    """Replace the cache atomically (a unique temporary file, fsynced, then renamed).

    ``OSError`` when the folder is read-only or the disk full; the old cache is
    then left as it was.
    """
    body = "".join(
        json.dumps({"v": CACHE_VERSION, "record": e.to_cache()}, sort_keys=True) + "\n"
        for e in entries
        if e.status != UNREADABLE
    ).encode()
    fd, tmp = tempfile.mkstemp(prefix=".history-", suffix=".tmp", dir=path.parent)
    try:
        try:
            view = memoryview(body)
            while view:
                view = view[os.write(fd, view) :]
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def build_history(root: Path, profile: str = "default", *, save: bool = True) -> History:
    """Index the profile's records: verify what changed, group copies, list matches newest first.

    ``OSError`` only when the data folders cannot be listed; a record that
    cannot be read is an ``unreadable`` entry and the rest is indexed.
    """
    profile_dir = root / "profiles" / profile
    cache_path = profile_dir / CACHE_NAME
    cache = _load_cache(cache_path)
    me = profile_key(root, profile)
    records: list[RecordEntry] = []
    by_digest: dict[str, RecordEntry] = {}
    verified = 0
    changed = False
    for path, local in record_paths(root, profile):
        key = str(path)  # absolute as found: the listing prints it, `zsy replay` takes it
        try:
            data = path.read_bytes()
            mtime = path.stat().st_mtime
        except OSError as exc:  # a local fault (permissions, disk), not the record's
            unreadable = RecordEntry(
                path=key, size=0, digest="", status=UNREADABLE,
                reason=exc.strerror or str(exc), local=local,
            )
            with contextlib.suppress(OSError):
                unreadable.mtime = path.stat().st_mtime
            records.append(unreadable)
            continue
        digest = hashlib.sha256(data).hexdigest()
        hit = cache.get(key)
        if hit is not None and hit.size == len(data) and hit.digest == digest:
            entry = hit
        elif digest in by_digest:  # a byte-identical copy: the same verdict
            entry = RecordEntry.from_cache({**by_digest[digest].to_cache(), "path": key})
            changed = True
        else:
            entry = verify_record(Path(key), data, local=local)
            verified += 1
            changed = True
        entry.mtime = mtime
        entry.local = local
        by_digest.setdefault(digest, entry)
        records.append(entry)
    if set(cache) != {r.path for r in records if r.status != UNREADABLE}:
        changed = True  # records gone (or new): the cache follows
    history = History(
        records=records,
        matches=group_matches(records, me),
        unfinished=[],
        me_key=me,
        verified=verified,
        cache_path=cache_path,
    )
    done_tables = {m.entry.table for m in history.matches}
    history.unfinished = group_unfinished(
        r for r in records if r.status == UNFINISHED and r.table not in done_tables
    )
    if save and changed and profile_dir.is_dir():
        try:
            _save_cache(cache_path, records)
        except OSError as exc:
            history.cache_error = exc
    return history


def _is_own_seat(entry: RecordEntry) -> bool:
    """The profile's own seat's file of a network table (``tables/TABLE/transcript.jsonl``)."""
    p = Path(entry.path)
    return p.name == "transcript.jsonl" and p.parent.parent.name == "tables"


def group_matches(records: Iterable[RecordEntry], me: str | None) -> list[Match]:
    """One :class:`Match` per finished match (table id and head), newest first.

    The copy shown is the profile's own seat's file when there is one, else the
    first path; the match's time is the earliest file time among its copies
    (a later copy does not move it).
    """
    groups: dict[tuple[str, str], list[RecordEntry]] = {}
    for r in records:
        if r.status == FINISHED:
            groups.setdefault((r.table, r.head), []).append(r)
    out = []
    for copies in groups.values():
        copies.sort(key=lambda r: (not _is_own_seat(r), r.path))
        shown = copies[0]
        mine = _my_seat(shown, me)
        out.append(
            Match(
                entry=shown,
                copies=[c.path for c in copies],
                time=min(c.mtime for c in copies),
                me=mine,
            )
        )
    out.sort(key=lambda m: (m.time, m.entry.head), reverse=True)
    return out


def group_unfinished(records: Iterable[RecordEntry]) -> list[RecordEntry]:
    """One entry per unfinished table (table id), newest first.

    A host who quits leaves its own seat's record and one per bot seat it ran
    (``bot-seat-K/``): one table, listed once, by the copy :func:`group_matches`
    would show (the profile's own seat's, else the first path); its time is the
    newest copy's, when the table was last played.
    """
    groups: dict[str, list[RecordEntry]] = {}
    for r in records:
        groups.setdefault(r.table or r.path, []).append(r)
    out = []
    for copies in groups.values():
        copies.sort(key=lambda r: (not _is_own_seat(r), r.path))
        out.append((max(c.mtime for c in copies), copies[0]))
    out.sort(key=lambda t: (-t[0], t[1].path))
    return [r for _t, r in out]


def _my_seat(entry: RecordEntry, me: str | None) -> int | None:
    """The profile's seat: its key in the roster; at ``zsy play``'s table, the one human seat."""
    if entry.local:
        humans = [s.seat for s in entry.seats if not s.bot]
        return humans[0] if len(humans) == 1 else None
    return next((s.seat for s in entry.seats if me is not None and s.key == me), None)


# --- tallies -----------------------------------------------------------------------


def known_players(history: History) -> dict[bytes, str]:
    """The identity keys the profile sat with, in records that verify, and each one's last nick.

    For the host's lobby (``zsy host``): a guest with a known key is said to be
    known, and one that takes a known player's name with another key is marked.
    Only network tables count (``zsy play``'s keys are made for one match), and
    neither bots (labelled by the unsigned header) nor the profile's own key.
    """
    out: dict[bytes, str] = {}
    good = [r for r in history.records if r.status in (FINISHED, UNFINISHED) and not r.local]
    for r in sorted(good, key=lambda r: (r.mtime, r.path)):  # oldest first: the last nick wins
        for s in r.seats:
            if s.bot or s.key == history.me_key:
                continue
            with contextlib.suppress(ValueError):
                out[bytes.fromhex(s.key)] = s.nick
    return out


def bot_label(nick: str) -> str:
    """A host's bot's label without the lobby's ``-2``, ``-3`` (two ``bot:easy`` at one table
    are ``bot:easy`` and ``bot:easy-2``, zsy_lan.protocol.host_lobby): its level."""
    return re.sub(r"-\d+$", "", nick) or nick


def opponents(matches: Iterable[Match]) -> list[Opponent]:
    """Head-to-head per opponent over my network matches, most games first.

    A player is keyed by key. A bot that a host runs gets a key made for that
    table alone (``zsy host --bots``), so bots met at one table each are tallied
    by their label, the level (``bot:normal``): one row per level, ``games``
    counting matches and ``seats`` the bot seats met (three at a table of three
    such bots); its ``key`` is empty, unless it gathers one seat only (then that
    seat's key names it). A bot key met at several tables is a lasting identity
    and keeps a row of its own.

    ``zsy play``'s matches are left out: there every seat, mine included, has a
    key made for that match alone, so no opponent could ever be met twice.
    """
    mine_only = [m for m in matches if m.me is not None and not m.entry.local]
    tables: dict[str, set[str]] = {}
    for m in mine_only:
        for s in m.entry.seats:
            if s.bot:
                tables.setdefault(s.key, set()).add(m.entry.table)
    tally: dict[str, Opponent] = {}
    group_keys: dict[str, str] = {}  # the last key seen per row
    for m in sorted(mine_only, key=lambda m: m.order):  # oldest first: the last nick wins
        assert m.me is not None
        mine = m.result_of(m.me)
        counted: set[str] = set()
        for s in m.entry.seats:
            if s.key == mine.key:
                continue
            by_level = s.bot and len(tables.get(s.key, ())) == 1
            label = bot_label(s.nick) if by_level else s.nick
            group = "bot:" + label if by_level else s.key
            o = tally.setdefault(group, Opponent("" if by_level else s.key))
            group_keys[group] = s.key
            o.nick, o.bot = label, s.bot
            if group not in counted:  # one match, however many of its seats
                counted.add(group)
                o.games += 1
                o.my_points += mine.points
            o.seats += 1
            o.their_points += s.points
            if mine.place < s.place:
                o.wins += 1
            elif mine.place > s.place:
                o.losses += 1
            else:
                o.ties += 1
    for group, o in tally.items():
        if not o.key and o.seats == 1:  # one bot met once: its key names it well enough
            o.key = group_keys[group]
    return sorted(tally.values(), key=lambda o: (-o.games, o.nick, o.key))


def variants(matches: Iterable[Match]) -> list[VariantTally]:
    """My matches per variant and table size: played, won, points, places."""
    tally: dict[tuple[str, int], VariantTally] = {}
    for m in matches:
        if m.me is None:
            continue
        e = m.entry
        t = tally.setdefault((e.variant, e.players), VariantTally(e.variant, e.players))
        mine = m.result_of(m.me)
        t.games += 1
        t.wins += int(m.won)
        t.points += mine.points
        t.places.append(mine.place)
    return sorted(tally.values(), key=lambda t: (-t.games, t.variant, t.players))


# --- ratings -----------------------------------------------------------------------


def elo_expected(mine: float, theirs: float) -> float:
    """The Elo expectation of scoring against ``theirs``: 1 / (1 + 10^((theirs - mine)/400))."""
    return 1.0 / (1.0 + 10.0 ** ((theirs - mine) / 400.0))


def rated(matches: Iterable[Match]) -> list[RatedMatch]:
    """The network matches as the ratings see them (``zsy play``'s one-off keys left out)."""
    out = []
    for m in matches:
        e = m.entry
        if e.local:
            continue
        key_of = {s.seat: s.key for s in e.seats}
        out.append(
            RatedMatch(
                order=m.order,
                places=tuple((s.key, s.place) for s in e.seats),
                teams=tuple(tuple(key_of[x] for x in team if x in key_of) for team in e.teams),
                winners=tuple(key_of[w] for w in e.winners if w in key_of),
                nicks=tuple((s.key, s.nick) for s in e.seats),
                bots=tuple(s.key for s in e.seats if s.bot),
            )
        )
    return out


def match_deltas(
    places: Sequence[tuple[str, int]],
    ratings: Mapping[str, float],
    teams: Sequence[Sequence[str]] = (),
    k: float = K_FACTOR,
) -> dict[str, float]:
    """One match's rating changes: each pair of seats is one Elo game, K shared out.

    The pair's result is 1, 1/2 or 0 by final placement; each pair moves
    ``K / (n - 1) * (result - expected)`` from one to the other (``n`` the
    seats), so a match weighs like one game whatever the table size, and the
    changes sum to zero. Partners (one team) are not compared with each other.
    """
    n = len(places)
    delta: dict[str, float] = {key: 0.0 for key, _p in places}
    if n < 2:
        return delta
    share = k / (n - 1)
    team_of = {key: i for i, team in enumerate(teams) for key in team}
    for i in range(n):
        a, pa = places[i]
        for j in range(i + 1, n):
            b, pb = places[j]
            if a == b or (a in team_of and team_of.get(b) == team_of[a]):
                continue
            score = 1.0 if pa < pb else 0.0 if pa > pb else 0.5
            d = share * (score - elo_expected(ratings.get(a, START_RATING),
                                              ratings.get(b, START_RATING)))
            delta[a] += d
            delta[b] -= d
    return delta


def rate(
    matches: Iterable[RatedMatch], k: float = K_FACTOR, start: float = START_RATING
) -> dict[str, Rating]:
    """Ratings per identity (key hex) after ``matches``, in time order whatever order given.

    Each match updates from the ratings before it (every seat's change at
    once); the labels (nick, bot) are those of the latest match (a header's, unsigned).
    """
    out: dict[str, Rating] = {}
    for m in sorted(matches, key=lambda m: m.order):
        for key, _place in m.places:
            out.setdefault(key, Rating(key, start))
        current = {key: r.rating for key, r in out.items()}
        deltas = match_deltas(m.places, current, m.teams, k)
        for key, _place in m.places:
            r = out[key]
            r.rating += deltas[key]
            r.games += 1
            r.wins += int(key in m.winners)
        for key, nick in m.nicks:
            out[key].nick = nick
        for key, _place in m.places:
            out[key].bot = key in m.bots
    return out


def ratings(matches: Iterable[Match]) -> list[Rating]:
    """Everyone's rating from the verified network matches, best first."""
    table = rate(rated(matches))
    return sorted(table.values(), key=lambda r: (-r.rating, r.key))
