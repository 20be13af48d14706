"""``zsy replay``: re-verify a game record from scratch and retell the game.

The record is a transcript file (JSON lines: a header with the table, the
roster and the rules, then every signed message in transcript order). Nothing
in it is trusted: :func:`~zsy_lan.protocol.verify_transcript` re-checks each
signature, feed chain, commitment, action (with a fresh engine) and the
order, and names the first bad line.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from zsy_lan.engine.errors import ConfigError, RuleError
from zsy_lan.engine.game import Game
from zsy_lan.engine.rules import Rules
from zsy_lan.protocol import verify_transcript
from zsy_lan.protocol.transcript import (
    DAMAGED,
    HEADER_LINE,
    TAMPERED,
    EvidenceCheck,
    VerifyResult,
    load_entry,
    load_evidence,
    load_header,
    verify_evidence,
)
from zsy_lan.record.header import game_from_header, roster_misfit
from zsy_lan.record.retell import TracingPrivateGame, audit_lines, record_chats, retell_record
from zsy_lan.record.store import evidence_path
from zsy_lan.text.bot_names import shown_nick
from zsy_lan.text.i18n import N_, _, join_items, ngettext
from zsy_lan.text.present import round_or_hand
from zsy_lan.text.sanitize import clean


@dataclass
class ReplayReport:
    """What a replay found, plus the game told line by line."""

    ok: bool
    messages: int
    head: str
    finished: bool
    bad_line: int | None = None
    reason: str = ""
    culprit: int | None = None
    narration: list[str] = field(default_factory=list)
    results: list[dict[str, Any]] = field(default_factory=list)
    motions: list[dict[str, Any]] = field(default_factory=list)  # holds, releases, voids
    winners: list[int] = field(default_factory=list)
    evidence: list[EvidenceCheck] = field(default_factory=list)  # proof kept after a halt
    evidence_file: str = ""
    evidence_error: str = ""  # the evidence file could not be read
    torn: bool = False  # the last line was cut short (crash, full disk) and left out
    kind: str = ""  # why it does not verify: TAMPERED or DAMAGED (see reason_text)
    ends_at: int = 0  # verified: the record's last line
    pending: int = 0  # verified: genuine messages after the last step (the record was cut)

    @property
    def evidence_ok(self) -> bool:
        """False when kept evidence is unreadable or a proof frame's signature is not genuine."""
        return not self.evidence_error and all(e.signed for e in self.evidence)

    def evidence_lines(self, verify: bool = False) -> list[str]:
        """The kept proof of a cheat, in words; with ``verify``, what each proof establishes."""
        if self.evidence_error:
            return [
                _("Evidence file {file} is damaged: {why}").format(
                    file=self.evidence_file, why=self.evidence_error
                )
            ]
        out = []
        for ev in self.evidence:
            out.append(
                ngettext(
                    "Evidence kept after the halt ({file}): {n} signed frame naming seat "
                    "{seat}: {reason}",
                    "Evidence kept after the halt ({file}): {n} signed frames naming seat "
                    "{seat}: {reason}",
                    ev.frames,
                ).format(
                    file=self.evidence_file, n=ev.frames, seat=ev.culprit, reason=clean(ev.reason)
                )
            )
            if not verify:
                continue
            if ev.foreign:  # signed for another table than the (unsigned) header names
                out.append(
                    _(
                        "  NOT CHECKED: its frames are of table {table}, not of the table the "
                        "record's header names; the header is damaged or the evidence belongs "
                        "to another record"
                    ).format(table=clean(ev.foreign, 40))
                )
            elif not ev.signed:
                out.append(_("  NOT GENUINE: {why}").format(why=ev.problem))
            elif ev.proves:
                out.append(_("  signatures valid; proves: {what}").format(what=clean(ev.proves)))
            else:
                out.append(
                    _("  signatures valid, but they prove nothing by themselves: {why}").format(
                        why=clean(ev.problem)
                    )
                )
        return out

    def verdict(self) -> str:
        """One line for the terminal (and a second one about a last line cut short)."""
        line = self._verdict()
        if self.ok and self.pending:
            line += "\n" + ngettext(
                "(The last message is genuine but waits for the rest of its step, which the "
                "record does not have: it was cut short there.)",
                "(The last {n} messages are genuine but wait for the rest of their step, which "
                "the record does not have: it was cut short there.)",
                self.pending,
            ).format(n=self.pending)
        if self.torn:
            line += "\n" + _(
                "(The file's last line was cut short, by a crash or a full disk, and is left "
                "out; a seat that resumes repairs it.)"
            )
        return line

    def _verdict(self) -> str:
        if self.ok:
            said = (
                _("OK: {n} messages verified (finished match); head {head}")
                if self.finished
                else _(
                    "OK: {n} messages verified (unfinished match: the record ends at line "
                    "{line}); head {head}"
                )
            )
            return said.format(n=self.messages, head=self.head[:16], line=self.ends_at)
        return reason_text(self.kind, self.bad_line, self.reason, self.culprit)

    def to_json(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "messages": self.messages,
            "head": self.head,
            "finished": self.finished,
            "bad_line": self.bad_line,
            "reason": self.reason,
            "culprit": self.culprit,
            "kind": self.kind,
            "ends_at": self.ends_at,
            "pending": self.pending,
            "rounds": self.results,
            "winners": self.winners,
            "motions": self.motions,
            "evidence": [
                {
                    "culprit": e.culprit,
                    "reason": e.reason,
                    "frames": e.frames,
                    "signed": e.signed,
                    "proves": e.proves,
                    "problem": e.problem,
                    "foreign": e.foreign,
                }
                for e in self.evidence
            ],
            "evidence_error": self.evidence_error,
            "torn_tail": self.torn,
        }


@dataclass
class CheckedRecord:
    """A record's text verified from scratch: what both ``zsy replay`` and ``zsy history`` need."""

    lines: list[str]  # the transcript lines, a torn last line left out
    torn: bool  # the last line was cut short (crash, full disk) and left out
    table: str
    rules: Any
    rounds: int
    meta: dict[str, Any]
    result: Any  # the :func:`verify_transcript` result
    game: Game  # the last game the check built (the whole match when the record is good)
    factory: Callable[[], Game]  # builds a fresh game of this record (evidence checks)


#: Why a file is no record at all: message ids, worded by whoever shows them (``_()``), so
#: ``zsy replay`` and ``zsy history`` say them in the reader's language (:class:`NotARecord`).
NOT_ZSY = N_("This file is not a zsy game record.")
NOT_TEXT = N_("This file is not a zsy game record: it is not UTF-8 text.")
EMPTY = N_(
    "The file is empty: most likely a game record cut before its first line was written "
    "(a crash, a full disk or an interrupted copy). There is nothing in it to verify."
)
CUT_IN_HEADER = N_(
    "The record ends inside its first line (a crash, a full disk or an interrupted copy "
    "cut it there): there is nothing in it to verify."
)
BAD_HEADER = N_(
    "The first line is a zsy game record's header that cannot be read: it is damaged, "
    "or was written by a newer version."
)
NOT_A_RECORD_WHY = frozenset({NOT_ZSY, NOT_TEXT, EMPTY, CUT_IN_HEADER, BAD_HEADER})
#: What earlier versions stored for these (a history cache keeps the reason it was given).
_EARLIER_WHY = {
    "empty file: not a zsy game record": EMPTY,
    "not a zsy game record (the file is not UTF-8 text)": NOT_TEXT,
}


class NotARecord(ValueError):
    """The bytes are no game record at all; ``msgid`` (one of NOT_A_RECORD_WHY) says why.

    ``str()`` words it in the current language, so a caller that shows the
    exception's text (``zsy replay``) needs nothing more; one that keeps it
    (``zsy history``'s cache) keeps ``msgid`` and words it when shown.
    """

    def __init__(self, msgid: str) -> None:
        super().__init__(msgid)
        self.msgid = msgid

    def __str__(self) -> str:
        return _(self.msgid)


def check_record(data: bytes) -> CheckedRecord:
    """Verify a record's bytes: header, every signature, action, hash and (private) audit.

    Raises :class:`NotARecord` (one sentence, in the reader's language) when the bytes
    are not a record at all, ``ConfigError`` when the record needs rules not installed here.
    """
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        end = data.rfind(b"\n") + 1
        if not 0 < end <= exc.start:
            raise NotARecord(NOT_TEXT) from None
        # only the last line is not text: a write cut inside a character (crash, full disk)
        text = _decode_or_none(data[:end])
        if text is None:
            raise NotARecord(NOT_TEXT) from None
        text += "\ufffd"  # a last line with no newline that no transcript line matches
    if not text.strip(_BLANK):  # no bytes, or only what a crash leaves (zeros, line ends)
        raise NotARecord(EMPTY)
    lines = text.splitlines()
    torn = _torn_tail(text, lines)
    if torn:
        lines.pop()  # a crash or a full disk cut the last write short: not part of the record
    if not lines:
        raise NotARecord(EMPTY)
    if len(lines) == 1 and not text.endswith("\n") and text.lstrip().startswith("{"):
        try:
            load_header(lines[0])
        except ValueError:
            raise NotARecord(CUT_IN_HEADER) from None
    try:
        load_header(lines[0])
        rules, rounds, meta = game_from_header(lines[0])
        Game(rules, rounds)  # a match length these rules refuse: the header is damaged
    except ConfigError:
        raise  # a record of rules not installed here: its own words say which
    except (ValueError, KeyError, TypeError, RuleError):
        looks = lines[0].lstrip().startswith("{") and '"zsy_transcript"' in lines[0]
        raise NotARecord(BAD_HEADER if looks else NOT_ZSY) from None
    games: list[Game] = []
    private = meta.get("deal") == "private"
    table = str(json.loads(lines[0]).get("table", ""))

    def factory() -> Game:
        if private:
            # an observer: no secrets; it checks everything public and, at each
            # round's audit, re-checks the whole deal and learns every card
            games.append(TracingPrivateGame(rules, rounds, table=table, seat=None))
        else:
            games.append(Game(rules, rounds))
        return games[-1]

    misfit = roster_misfit(rules, load_header(lines[0])[1])
    if misfit is not None:
        # the header contradicts itself; nobody signs it, so nobody is named
        game = factory()
        result = VerifyResult(
            ok=False,
            messages=0,
            head="",
            public_hash=game.public_hash(),
            finished=False,
            bad_line=HEADER_LINE,
            reason=misfit,
            kind=DAMAGED,
        )
    else:
        result = verify_transcript(lines, None, factory)
    return CheckedRecord(lines, torn, table, rules, rounds, meta, result, games[-1], factory)


#: What a file holding nothing may hold: a crash or a full disk can leave zeros behind.
_BLANK = "\x00 \t\r\n"


def _decode_or_none(data: bytes) -> str | None:
    """``data`` as UTF-8 text, or None when it is not."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


#: :func:`reason_text` kind for a file that is not a record at all (``check_record`` refused it)
NOT_A_RECORD = "not_a_record"


def reason_text(kind: str, line: int | None, detail: str, culprit: int | None = None) -> str:
    """Why a record does not verify, in the reader's language (``zsy replay``, ``zsy history``).

    Only TAMPERED says a line was altered or a seat broke a rule: a signature or a
    rule proven broken by signed data. A line missing, repeated or out of place, or a header
    that disagrees with the signed lines (DAMAGED: what no seat signs) proves nothing against
    anyone (DESIGN.md "Blame needs proof"): a lost write, a bad copy, an edited file.
    ``detail`` is the verifier's English fact, cleaned here because the file supplied it.
    """
    detail = clean(detail, 300)
    if kind == DAMAGED and line == HEADER_LINE:
        return _(
            "DAMAGED: the record's header (line 1, which no seat signs) does not match its "
            "signed lines ({reason}). Nothing in it proves that a seat cheated. Verify another "
            "copy of this match, such as another player's record."
        ).format(reason=detail)
    if kind == DAMAGED:
        return _(
            "DAMAGED at line {line}: by there a line is missing, repeated or out of place "
            "({reason}). The record verifies up to it; nothing in it proves that a seat "
            "cheated."
        ).format(line=line, reason=detail)
    if kind == NOT_A_RECORD:
        msgid = _EARLIER_WHY.get(detail, detail)
        if msgid in NOT_A_RECORD_WHY:  # one sentence of ours, in the reader's language
            return _(msgid)
        return _("Not a game record that can be checked: {reason}").format(reason=detail)
    if culprit is not None:
        return _("TAMPERED or invalid at line {line} (seat {seat}): {reason}").format(
            line=line, seat=culprit, reason=detail
        )
    return _("TAMPERED or invalid at line {line}: {reason}").format(line=line, reason=detail)


def replay_file(path: Path) -> ReplayReport:
    """Verify ``path`` and narrate the game it records (up to the first bad line)."""
    checked = check_record(path.read_bytes())
    lines, meta, result, game = checked.lines, checked.meta, checked.result, checked.game
    report = ReplayReport(
        ok=result.ok,
        messages=result.messages,
        head=result.head,
        finished=result.finished,
        bad_line=result.bad_line,
        reason=result.reason,
        culprit=result.culprit,
        motions=[dict(m) for m in result.motions],
        kind=result.kind or (TAMPERED if not result.ok else ""),
        ends_at=result.ends_at,
        pending=result.pending,
    )
    bots = meta.get("bots")
    bots = set(bots) if isinstance(bots, list) else set()
    # a hosted bot's bot:normal in the reader's language, as the players read it
    nicks = {int(k): shown_nick(str(v), int(k) in bots) for k, v in meta.get("nicks", {}).items()}
    # told by round: deal (private: once the audit opened it), tricks, tribute, scores
    # chat lines (asides) told in their place, up to the first bad line, judged and cleaned
    good = lines if result.ok or result.bad_line is None else lines[: result.bad_line - 1]
    report.narration = retell_record(game, nicks, meta, record_chats(good))
    if game.hidden_hands:  # the audits opened the cards: their verdicts close the story
        report.narration += audit_lines(game)  # type: ignore[arg-type]
    report.narration += narrate_motions(report.motions, game.rules)
    m = game.match
    report.results = [
        {"round": r.round_no, "order": list(r.order), "points": list(r.points)} for r in m.results
    ]
    report.winners = list(m.winners)
    report.torn = checked.torn
    _check_evidence(report, path, lines, checked.factory)
    return report


def _torn_tail(text: str, lines: list[str]) -> bool:
    """True when the last line was cut short: no newline after it, and not a transcript line."""
    if len(lines) < 2 or text.endswith("\n"):
        return False
    try:
        load_entry(lines[-1])
    except ValueError:
        return True
    return False


def _check_evidence(
    report: ReplayReport, path: Path, lines: list[str], factory: Callable[[], Game]
) -> None:
    """Read the proof frames kept beside ``path`` (if any) and check them against its roster."""
    where = evidence_path(path)
    if not where.exists():
        return
    report.evidence_file = str(where)
    try:
        records = load_evidence(where.read_bytes().decode("utf-8").splitlines())
        table, roster = load_header(lines[0])
    except (OSError, ValueError) as exc:  # UnicodeDecodeError is a ValueError
        report.evidence_error = str(exc) or type(exc).__name__
        return
    report.evidence = verify_evidence(records, table, roster, lines, factory)


def narrate_motions(motions: list[dict[str, Any]], rules: Rules | None = None) -> list[str]:
    """The table's motions in words: who was held by whom, released, voided (by message);
    a Dou Dizhu match's are hands (``rules``)."""
    out = []
    for m in motions:
        index = m.get("index", "?")
        if m["motion"] == "release":
            out.append(
                _("after message {index}: seat {seat} came back; seat {by} released it").format(
                    index=index, seat=m["seat"], by=m["by"]
                )
            )
        elif m["outcome"] == "held":
            out.append(
                _(
                    "after message {index}: seat {seat} dropped; the table voted a bot "
                    "(run by seat {holder}) to hold it"
                ).format(index=index, seat=m["seat"], holder=m["holder"])
            )
        elif m["outcome"] == "voided":
            out.append(
                round_or_hand(
                    rules,
                    _(
                        "after message {index}: the table voted the round void "
                        "(seat {seat} withheld)"
                    ),
                    _(
                        "after message {index}: the table voted the hand void "
                        "(seat {seat} withheld)"
                    ),
                ).format(index=index, seat=m["seat"])
            )
        elif m["outcome"] == "declined" and m.get("movers"):
            # who moved it early (their vote came before the seat's move), not the seat
            movers = join_items(_("seat {seat}").format(seat=v) for v in m["movers"])
            said = (
                _(
                    "after message {index}: {movers} moved to hold seat {seat}; declined, "
                    "seat {seat} acted in time"
                )
                if m["motion"] == "hold"
                else round_or_hand(
                    rules,
                    _(
                        "after message {index}: {movers} moved to void the round, saying seat "
                        "{seat} withheld; declined, seat {seat} acted in time"
                    ),
                    _(
                        "after message {index}: {movers} moved to void the hand, saying seat "
                        "{seat} withheld; declined, seat {seat} acted in time"
                    ),
                )
            )
            out.append(said.format(index=m.get("index", "?"), movers=movers, seat=m["seat"]))
        else:
            out.append(
                _("after message {index}: a motion to {motion} seat {seat} was {outcome}").format(
                    index=index, motion=m["motion"], seat=m["seat"], outcome=m["outcome"]
                )
            )
    return out
