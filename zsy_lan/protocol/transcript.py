"""The transcript on disk, and the pure re-verification ``zsy replay`` runs.

File format (JSON lines, UTF-8): line 1 is a header naming the table and the
roster; every further line is one feed message in transcript order::

    {"roster":{"0":"<hex ed25519 key>",...},"table":"...","zsy_transcript":1}
    {"frame":"<base64 of the exact frame bytes>","seat":0}

The frame bytes are stored exactly as signed, so verification never depends
on re-encoding anything. Lines with ``"aside":true`` are transcript-neutral
messages kept for the record (the votes of a carried motion, returns, the
messages a motion voided): they are not in the hash chain, but the verifier
files them like the rest, so it can re-check why a seat was held or a round
voided. A chain line may repeat a message already written as an aside.
``verify_transcript`` trusts nothing in the file: it re-checks every
signature, every feed chain, every commitment, every action (with a fresh
game) and the order, and reports the first bad line.

After a halt the proof of the cheat is kept beside the transcript
(``evidence.jsonl``), one line per proof frame, the frame as the exact
signed bytes::

    {"culprit":2,"frame":"<base64>","reason":"equivocation: ..."}

``verify_evidence`` trusts none of it either: it checks each frame's
signature against the transcript's roster and re-derives what the frames
prove (two signed messages for one seq; or, with the record, the same
verdict when the record is replayed with the frames).
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import hashlib
import json
from collections import deque
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace

from zsy_lan.protocol.envelope import (
    MAGIC,
    NEUTRAL_TYPES,
    Envelope,
    FrameError,
    WrongTable,
    open_frame,
    peek_seat,
)
from zsy_lan.protocol.game_iface import GameMachine
from zsy_lan.protocol.ledger import AddResult, Ledger
from zsy_lan.protocol.transcript_format import (
    dump_line,
    header_line,
    load_entry,
    load_header,
    load_line,
)

__all__ = [
    "dump_line",
    "load_line",
    "load_entry",
    "header_line",
    "load_header",
    "VerifyResult",
    "TAMPERED",
    "DAMAGED",
    "HEADER_LINE",
    "verify_transcript",
    "TranscriptChecker",
    "evidence_line",
    "load_evidence",
    "EvidenceCheck",
    "verify_evidence",
]

@dataclass(frozen=True)
class VerifyResult:
    """Outcome of :func:`verify_transcript`; ``bad_line`` is 1-based (the header is line 1)."""

    ok: bool
    messages: int
    head: str
    public_hash: str
    finished: bool
    bad_line: int | None = None
    reason: str = ""
    culprit: int | None = None
    motions: tuple[dict[str, object], ...] = ()  # holds, releases, voids, declined motions
    #: why it failed: TAMPERED (a signed line altered, or a rule proven broken by a signed
    #: line) or DAMAGED (what no seat signs disagrees with the signed lines: the header,
    #: a line missing, repeated, out of place or not a record line; no proof against
    #: anyone). DAMAGED at line 1 is the header (:data:`HEADER_LINE`).
    kind: str = ""
    ends_at: int = 0  # ok: the record's last line (a cut record is verified up to it)
    pending: int = 0  # ok: genuine messages after the last step, cut off from the rest of it


#: :attr:`VerifyResult.kind` values (``zsy replay`` and ``zsy history`` put them in words)
TAMPERED = "tampered"
DAMAGED = "damaged"
#: :attr:`VerifyResult.bad_line` of a DAMAGED verdict on the header: the header (line 1,
#: which no seat signs) disagrees with the signed lines; the detail says which line
HEADER_LINE = 1


def verify_transcript(
    lines: Iterable[str],
    roster: Mapping[int, bytes] | None,
    game_factory: Callable[[], GameMachine],
) -> VerifyResult:
    """Re-check a whole transcript from scratch; the first problem stops it.

    ``roster`` is the roster the caller trusts; when None the file's header is
    used (then the file is only checked to be self-consistent). The checks are
    :class:`TranscriptChecker`'s, one line at a time, so a spectator following a
    growing record (``zsy watch``) reaches the verdicts this reaches on the same lines.
    """
    text = [line for line in lines if line.strip()]
    game = game_factory()

    def bad(lineno: int, reason: str) -> VerifyResult:
        return VerifyResult(
            ok=False,
            messages=0,
            head="",
            public_hash=game.public_hash(),
            finished=game.finished(),
            bad_line=lineno,
            reason=reason,
            kind=TAMPERED,
        )

    if not text:
        return bad(1, "empty transcript: no header")
    try:
        table, file_roster = load_header(text[0])
    except ValueError as exc:
        return bad(1, str(exc))
    if roster is not None and dict(roster) != file_roster:
        # the header is nobody's signed word: it is damaged, nobody is named
        return replace(
            bad(HEADER_LINE, "the header's roster is not the expected roster"), kind=DAMAGED
        )
    checker = TranscriptChecker(table, dict(roster) if roster is not None else file_roster, game)
    for line in text[1:]:
        result = checker.add(line)
        if result is not None and checker.settled:
            return result
    return checker.end()


class TranscriptChecker:
    """:func:`verify_transcript` one line at a time, for a record that may still grow.

    Why a class: ``zsy replay`` checks a whole file, a spectator (``zsy watch``)
    checks the host's record as its lines arrive; both must reach the same
    verdict on the same lines (DESIGN.md "Blame needs proof"), so both use this.
    :meth:`add` checks one line after the header: ``None`` while all is well, else
    the verdict (TAMPERED or DAMAGED, as :func:`verify_transcript` returns it).
    :meth:`end` is the verdict on the lines so far as if the record ended there: a
    record cut inside a step is unfinished, a leftover that cannot begin the step
    the game waits for is DAMAGED.

    ``retain``: with ``k``, the frames of rounds older than the last ``k`` leave
    memory (:meth:`Ledger.retire`, the game's ``retire_history``), as a seat's
    replica does; what stays of every line is its SHA-256 and line number, so a
    line repeated or re-signed rounds later is still told as it would be with
    everything kept. ``None`` keeps everything (``zsy replay``: the file is read
    whole anyway, and evidence checks replay it).

    What no seat signs (the header, the order of the lines, each line's ``seat`` and
    ``aside`` fields, the line breaks) is never proof against a seat: where it disagrees
    with the signed lines the verdict is DAMAGED and names nobody (DESIGN.md "Blame
    needs proof"). A rule broken by a signed line is judged by the header's rules,
    which nobody signs either: that verdict names its signer unless a later line shows
    another seat signing on a state after it (the table played on, so its rules were
    not the header's); until the lines end it is not :attr:`settled`.
    """

    def __init__(
        self,
        table: str,
        roster: Mapping[int, bytes],
        game: GameMachine,
        *,
        retain: int | None = None,
    ) -> None:
        self.table = table
        self.roster = dict(roster)
        self.game = game
        self.ledger = Ledger(table, self.roster, game)
        self.retain = retain
        self.lines = 1  # the lines checked so far, the header included (blank ones are not)
        self._first: dict[bytes, int] = {}  # SHA-256 of each frame so far -> its first line
        self._chained: set[bytes] = set()  # SHA-256 of the chain's frames
        self._chain: deque[tuple[bytes, int]] = deque()  # chain frames not yet compared
        self._checked = 0  # chain entries compared with their lines so far
        self._chain_count = 0  # chain lines so far
        self._retired_round = 0
        self._failed: VerifyResult | None = None
        #: a rule broken by the header's rules: (verdict, culprit), overturned as DAMAGED
        #: if a later line shows the table playing on (see the class docstring)
        self._suspect: tuple[VerifyResult, int | None] | None = None
        #: seats with a line whose signature the header's key verified (a key that
        #: verifies none of a seat's lines is the header's fault as much as the line's)
        self._keyed: set[int] = set()
        #: public states the game reached (a message signed on another one after a
        #: broken rule shows the table went on by other rules); see :meth:`_retire`
        self._start = game.public_hash()
        self._states: set[str] = {self._start}
        #: the state each seat's first message (seq 1) was signed on: the game's start
        self._openers: dict[int, str] = {}
        #: the envelope of the last line :meth:`add` accepted, and whether it was an aside
        self.last: Envelope | None = None
        self.last_aside = False

    def _bad(
        self, lineno: int, reason: str, culprit: int | None = None, kind: str = TAMPERED
    ) -> VerifyResult:
        led, game = self.ledger, self.game
        self._failed = VerifyResult(
            ok=False,
            messages=len(led.entries),
            head=led.head,
            public_hash=game.public_hash(),
            finished=game.finished(),
            bad_line=lineno,
            reason=reason,
            culprit=culprit,
            kind=kind,
        )
        return self._failed

    @property
    def settled(self) -> bool:
        """False while the verdict is a rule broken by the header's rules and more lines may
        still overturn it (:func:`verify_transcript` reads on to the end)."""
        return self._suspect is None

    def add(self, line: str) -> VerifyResult | None:
        """Check and apply the next line: ``None`` if it is fine so far, else the verdict."""
        if self._failed is not None:
            return self._failed
        if not line.strip():
            return None  # as verify_transcript: blank lines are no lines
        self.lines += 1
        lineno = self.lines
        self.last = None
        if self._suspect is not None:
            return self._after_suspect(line, lineno)
        try:
            seat, frame, aside = load_entry(line)
        except ValueError as exc:
            return self._bad(lineno, f"not a transcript line: {exc}", kind=DAMAGED)
        try:
            env = open_frame(frame, self.roster, self.table)
        except FrameError as exc:
            return self._unopened(exc, frame, lineno)
        self._keyed.add(env.seat)
        if env.seq == 1:
            self._openers[env.seat] = env.state
        if env.seat != seat:
            return self._bad(
                lineno,
                f"the line says seat {seat} but its frame is signed by seat {env.seat}",
                kind=DAMAGED,
            )
        if not env.is_feed:
            return self._bad(
                lineno,
                f"a {env.type} message, which no record keeps (genuine, but out of place)",
                kind=DAMAGED,
            )
        if not aside and env.type in NEUTRAL_TYPES:
            return self._bad(
                lineno,
                f"a {env.type} is never part of the chain, but the line is not marked as an aside",
                kind=DAMAGED,
            )
        led = self.ledger
        digest = hashlib.sha256(frame).digest()
        seen = digest in self._first
        twice = seen and (aside or digest in self._chained)
        self._first.setdefault(digest, lineno)
        if not aside:
            self._chain.append((frame, lineno))
            self._chain_count += 1
            self._chained.add(digest)
        result, cheat = led.add(env)
        if result is AddResult.DUPLICATE and twice:
            # the same signed message written twice (a copy or a write repeated): no proof
            return self._bad(lineno, f"seat {seat}'s seq {env.seq} appears twice", kind=DAMAGED)
        if result is AddResult.DUPLICATE and not seen and env.seq <= led.feeds[seat].base:
            # (retain only) the seq left memory, but its frame was another one: both signed
            return self._bad(
                lineno,
                f"equivocation: seat {seat} signed two different messages as seq {env.seq}",
                seat,
            )
        if result is AddResult.AHEAD:
            # seat's earlier message is not in the file: lost or moved, which no signature
            # proves against the seat (Blame needs proof)
            return self._bad(
                lineno,
                f"seat {seat}'s message {env.seq} comes before its message "
                f"{led.next_seq(seat)}",
                kind=DAMAGED,
            )
        if cheat is not None:
            return self._bad(lineno, cheat.reason, cheat.culprit)
        led.drive()
        if led.halted is not None:
            where = max(
                (self._first.get(hashlib.sha256(f).digest(), lineno) for f in led.halted.evidence),
                default=lineno,
            )
            # judged by the header's rules: final only if no later line shows the table
            # playing on (see the class docstring)
            verdict = self._bad(where, led.halted.reason, led.halted.culprit)
            self._failed, self._suspect = None, (verdict, led.halted.culprit)
            return verdict
        if led.fault is not None:
            return self._bad(lineno, led.fault)
        if led.diverged is not None:
            return self._bad(lineno, f"the record ignores a carried motion: {led.diverged}")
        # An aside may let the ledger run ahead of the chain lines: check what both have.
        chain = self._chain
        while chain and self._checked < len(led.entries):
            entry = led.entries[self._checked]
            want, at = chain.popleft()
            self._checked += 1
            if entry.frame != want:
                # the order of the lines is nobody's signed word: a line out of place
                return self._bad(
                    at,
                    f"out of order: the turn structure puts seat {entry.seat}'s "
                    f"seq {entry.seq} here",
                    kind=DAMAGED,
                )
        self._states.add(self.game.public_hash())
        if self.retain is not None and led.round != self._retired_round:
            self._retire(self.retain)
        self.last, self.last_aside = env, aside
        return None

    def _unopened(self, exc: FrameError, frame: bytes, lineno: int) -> VerifyResult:
        """The verdict on a line whose frame :func:`open_frame` refused.

        The table id and the keys it is checked against are the header's, which no
        seat signs: a genuine frame of another table, a seat the roster lacks, or a
        key that verifies none of its seat's lines so far is damage naming nobody.
        A line of a seat whose key verified an earlier one was altered (TAMPERED,
        naming nobody: the signature does not prove who); a genuine frame that is
        malformed names its signer.
        """
        if isinstance(exc, WrongTable):
            if not self._keyed:
                return self._bad(
                    HEADER_LINE,
                    f"the header names table {self.table!r}, but line {lineno}, the first "
                    f"message, is signed for table {exc.table!r}",
                    kind=DAMAGED,
                )
            return self._bad(
                lineno,
                f"a genuine message of table {exc.table!r}, not of this table "
                f"{self.table!r}",
                kind=DAMAGED,
            )
        claimed = peek_seat(frame)
        if claimed is None:
            return self._bad(lineno, f"the line holds no message: {exc.reason}", kind=DAMAGED)
        if claimed not in self.roster:
            return self._bad(
                HEADER_LINE,
                f"line {lineno} is a message of seat {claimed}, which the header's roster "
                "does not have",
                kind=DAMAGED,
            )
        if exc.sender is None and claimed not in self._keyed:
            return self._bad(
                HEADER_LINE,
                f"the header's key for seat {claimed} does not verify line {lineno}, the "
                "first message of that seat: the key or that line is damaged",
                kind=DAMAGED,
            )
        return self._bad(lineno, exc.reason, exc.sender)

    def _after_suspect(self, line: str, lineno: int) -> VerifyResult:
        """A line after a rule the header's rules say was broken: does the table play on?

        A message of another seat signed on a state the game never reached means
        that seat applied the "broken" message and went on: the table played by other
        rules than the header's, which is then damaged (no seat named).
        """
        verdict, culprit = self._suspect  # type: ignore[misc]
        try:
            _seat, frame, _aside = load_entry(line)
            env = open_frame(frame, self.roster, self.table)
        except (ValueError, FrameError):
            return verdict  # what a line after it holds changes nothing
        if env.seat == culprit or not env.state or env.state in self._states:
            return verdict
        self._suspect = None
        return self._bad(
            HEADER_LINE,
            f"by the header's rules line {verdict.bad_line} breaks a rule ({verdict.reason}), "
            f"but seat {env.seat} signed line {lineno} on a state after it: the table "
            "played by other rules than the header says",
            kind=DAMAGED,
        )

    def _retire(self, keep: int) -> None:
        """Once per round: old rounds' frames leave memory (what a seat's replica drops).

        Only when every transcript entry was compared with its line (nothing the
        order check still needs leaves).
        """
        led = self.ledger
        if self._checked != len(led.entries):
            return
        self._retired_round = led.round
        # the states of old rounds go too: a line after a broken rule signed on one of
        # them would read as the table playing on, which names nobody (never the reverse)
        self._states = {self.game.public_hash()}
        forget = getattr(self.game, "retire_history", None)
        if callable(forget):
            forget(keep)
        led.retire(keep)

    def end(self) -> VerifyResult:
        """The verdict on the lines so far, as if the record ended after the last one."""
        if self._failed is not None:
            return self._failed
        if self._suspect is not None:
            return self._suspect[0]
        led = self.ledger
        pending = len(self._chain)
        if pending > 0:
            # Chain lines the game never reached. A record cut short (crash, full disk, a copy
            # interrupted) inside a step ends with the first lines of that step's batch; any
            # other leftover means a line is missing or out of place. Neither is proof.
            misfit = _cut_misfit(led, [frame for frame, _at in self._chain])
            if misfit is not None:
                waits = ", ".join(f"seat {s}: {w}" for s, w in led.waiting()) or "nothing"
                at = self._chain[misfit][1]
                header = self._header_misfit(at)
                failed = (
                    self._bad(HEADER_LINE, header, kind=DAMAGED)
                    if header
                    else self._bad(
                        at,
                        "this message cannot follow the ones before it (the game waits on "
                        f"{waits})",
                        kind=DAMAGED,
                    )
                )
                self._failed = None  # more lines may still come (a spectator): not final
                return failed
        # Fewer chain lines than the feeds give: the cut fell between the asides of a step
        # and its chain lines; every chain line there is was checked above.
        return VerifyResult(
            ok=True,
            messages=len(led.entries),
            head=led.head,
            public_hash=self.game.public_hash(),
            finished=self.game.finished() and pending == 0,
            motions=tuple(led.motion_log),
            ends_at=self.lines,
            pending=pending,
        )

    def _header_misfit(self, lineno: int) -> str:
        """Why the header's game, not a lost line, leaves line ``lineno`` unplaced ("": no sign).

        Every seat signs its first message on the game's starting state; when each
        seat's first message names the same other state, the header describes another
        game (players, deal, rules). Signed messages left after the match ended by
        the header's length say the header's match length or rules are not the table's.
        """
        openers = set(self._openers.values())
        if set(self._openers) == set(self.roster) and openers and self._start not in openers:
            return (
                "every seat signed its first message on another starting state than the "
                "header's game has: the header's players, deal or rules are not the table's"
            )
        if self.game.finished():
            return (
                f"by the header's match length and rules the match is over before line "
                f"{lineno}, but signed messages follow: the header is not the table's"
            )
        # A lost line leaves the game waiting on its author, whose message is then missing.
        # Here every message the game waits for is in the record, but signed on another
        # state than the header's rules reach: the seats played by other rules.
        led = self.ledger
        kind, owed = led.owed()
        state = self.game.public_hash()
        runs = [(fors, led.run(a, len(fors))) for a, fors in led.need(kind, owed).items()]
        if (
            runs
            and all(len(run) >= len(fors) for fors, run in runs)
            and any(env.state != state for _fors, run in runs for env in run)
        ):
            return (
                f"each message the game waits for at line {lineno} is there, but signed on "
                "another state than the header's rules reach: the header's variants, options "
                "or match length are not the table's"
            )
        return ""


def _cut_misfit(ledger: Ledger, pending: list[bytes]) -> int | None:
    """Index in ``pending`` of the first chain line a cut record could not end with, or None.

    The writer files a step's batch (every commit, every reveal, the actions of one
    turn) in slot order once the batch is complete, so a record cut while writing it
    ends with the first few messages of the batch the game waits for now, each of
    them its author's next message on the current state.
    """
    kind, owed = ledger.owed()
    state = ledger.game.public_hash()
    slots: list[tuple[int, bytes | None]] = []
    # (the ledger's own view of who fills which slot: the same code that takes batches)
    for author, fors in ledger._need(kind, owed).items():  # noqa: SLF001
        run = ledger._run(author, len(fors))  # noqa: SLF001
        for i, slot in enumerate(fors):
            env = run[i] if i < len(run) and run[i].state == state else None
            slots.append((slot, env.frame if env is not None else None))
    slots.sort(key=lambda sf: sf[0])
    if len(pending) >= len(slots):
        return min(len(slots), len(pending) - 1)  # a whole batch would have applied
    for i, frame in enumerate(pending):
        if slots[i][1] != frame:
            return i
    return None


def evidence_line(culprit: int, reason: str, frame: bytes) -> str:
    """One line of an evidence file (no trailing newline): a proof frame, exactly as signed."""
    return json.dumps(
        {"culprit": culprit, "reason": reason, "frame": base64.b64encode(frame).decode("ascii")},
        sort_keys=True,
    )


def load_evidence(lines: Iterable[str]) -> list[tuple[int, str, bytes]]:
    """(culprit, reason, frame) of each evidence line; ``ValueError`` naming a bad line."""
    out = []
    for n, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
            culprit, reason = obj["culprit"], obj["reason"]
            frame = base64.b64decode(obj["frame"], validate=True)
        except (ValueError, KeyError, TypeError, binascii.Error):
            raise ValueError(f"evidence line {n} is not an evidence record") from None
        if not isinstance(culprit, int) or isinstance(culprit, bool) or not isinstance(reason, str):
            raise ValueError(f"evidence line {n} is not an evidence record")
        out.append((culprit, reason, frame))
    return out


@dataclass(frozen=True)
class EvidenceCheck:
    """What one kept cheat (its proof frames) shows, checked from scratch.

    ``signed``: every frame carries a valid signature of a roster seat for
    this table. ``proves``: what the frames themselves establish against
    ``culprit`` ("" when they establish nothing); ``problem`` says why not.
    """

    culprit: int
    reason: str
    frames: int
    signed: bool
    proves: str = ""
    problem: str = ""
    #: the table the frames are signed for, when it is not the one the record's header
    #: names: not checked (the header, which nobody signs, may be the damaged part)
    foreign: str = ""

    @property
    def ok(self) -> bool:
        """True when the frames are genuine and prove the claim against ``culprit``."""
        return self.signed and bool(self.proves)


def verify_evidence(
    records: Iterable[tuple[int, str, bytes]],
    table: str,
    roster: Mapping[int, bytes],
    lines: list[str] | None = None,
    game_factory: Callable[[], GameMachine] | None = None,
) -> list[EvidenceCheck]:
    """Check kept proof frames, one :class:`EvidenceCheck` per (culprit, reason) in file order.

    Two validly signed frames of one seat with the same seq and different
    bytes prove equivocation on their own. Any other claim (an illegal
    action, a reveal that does not open its commitment...) depends on the
    game: with the record's ``lines`` and a ``game_factory``, the record is
    re-verified with the proof frames added, and the claim stands when that
    replay names the same seat.
    """
    groups: dict[tuple[int, str], list[bytes]] = {}
    for culprit, reason, frame in records:
        groups.setdefault((culprit, reason), []).append(frame)
    out = []
    for (culprit, reason), frames in groups.items():
        envs = []
        problem = foreign = ""
        for i, frame in enumerate(frames, start=1):
            try:
                envs.append(open_frame(frame, roster, table))
            except WrongTable as exc:
                foreign = exc.table
                problem = (
                    f"proof frame {i} is signed for table {exc.table!r}, not the record "
                    f"header's {table!r}"
                )
                break
            except FrameError as exc:
                problem = f"proof frame {i} is not genuine: {exc.reason}"
                break
        if problem:
            out.append(
                EvidenceCheck(
                    culprit, reason, len(frames), False, problem=problem, foreign=foreign
                )
            )
            continue
        proves, problem = _equivocation(envs, culprit)
        if not proves and lines is not None and game_factory is not None:
            proves, problem = _replayed(frames, culprit, lines, game_factory)
        out.append(EvidenceCheck(culprit, reason, len(frames), True, proves, problem))
    return out


def _equivocation(envs: list[Envelope], culprit: int) -> tuple[str, str]:
    """Two different signed messages of ``culprit`` for one seq, if the frames hold them."""
    seen: dict[tuple[int, int], Envelope] = {}
    for env in envs:
        if env.seq == 0:
            continue  # control messages have no slot
        other = seen.setdefault((env.seat, env.seq), env)
        if other.frame != env.frame and env.seat == culprit:
            return (
                f"equivocation: seat {culprit} signed two different messages as seq {env.seq}",
                "",
            )
    seats = sorted({env.seat for env in envs})
    return "", f"signed by seat(s) {', '.join(map(str, seats))}; not two messages for one seq"


def _replayed(
    frames: list[bytes],
    culprit: int,
    lines: list[str],
    game_factory: Callable[[], GameMachine],
) -> tuple[str, str]:
    """Re-verify the record with the proof frames added: does it name ``culprit`` too?"""
    text = [line for line in lines if line.strip()]
    have = set()
    for line in text[1:]:
        with contextlib.suppress(ValueError):
            have.add(load_entry(line)[1])
    extra = []
    for frame in frames:
        if frame in have:
            continue
        have.add(frame)
        env_seat = frame[len(MAGIC)] if len(frame) > len(MAGIC) else culprit
        extra.append(dump_line(env_seat, frame))
    result = verify_transcript(text + extra, None, game_factory)
    if not result.ok and result.culprit == culprit:
        return result.reason, ""
    if result.ok:
        return "", "the record replayed with these frames shows no fault"
    return "", f"the record replayed with these frames says: {result.reason}"
