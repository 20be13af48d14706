"""A record followed line by line: re-verified (:class:`Follower`) and told (:class:`Teller`).

Why apart from both sides of watching: the spectator follows the record it
receives (``zsy watch``, :mod:`.watch`), and the host's desk follows its own
record to know where a round ends (the open deal's delay,
:mod:`.spectator_desk`); the checks are ``zsy replay --verify``'s own.
"""

from __future__ import annotations

import logging
from dataclasses import replace
from typing import Any

from zsy_lan.engine.cards import cards_str
from zsy_lan.engine.game import Game
from zsy_lan.engine.rules import Rules
from zsy_lan.protocol.bucket import Bucket
from zsy_lan.protocol.chat import BURST as CHAT_BURST
from zsy_lan.protocol.chat import notice_mark
from zsy_lan.protocol.chat import read as read_chat
from zsy_lan.protocol.clock_notes import RecordNotes, is_clock, note_text, read_clock
from zsy_lan.protocol.lobby import NICK_MAX, REASON_MAX
from zsy_lan.protocol.transcript import (
    DAMAGED,
    HEADER_LINE,
    TAMPERED,
    TranscriptChecker,
    VerifyResult,
    load_header,
)
from zsy_lan.record.header import game_from_header, roster_misfit
from zsy_lan.record.replay import reason_text
from zsy_lan.record.retell import TracingPrivateGame
from zsy_lan.text.bot_names import shown_nick
from zsy_lan.text.i18n import _, join_items
from zsy_lan.text.present import (
    describe,
    is_doudizhu,
    redeal_text,
    round_or_hand,
    round_over_text,
)
from zsy_lan.text.sanitize import clean, clean_or

log = logging.getLogger("zsy.spectate")

#: finished rounds a spectator keeps in memory, as a seat's replica (``peer.RETAIN_ROUNDS``)
RETAIN_ROUNDS = 2


class FollowError(ValueError):
    """The record failed verification: ``line`` (1-based, the header is 1) and why.

    ``kind`` is :data:`~zsy_lan.protocol.transcript.TAMPERED` (a signature or a
    rule proven broken: ``culprit`` may name the seat) or ``DAMAGED`` (a line
    missing, repeated or out of place, or a header that disagrees with the signed
    lines: it names nobody), as ``zsy replay`` says.
    """

    def __init__(
        self, line: int, reason: str, culprit: int | None = None, kind: str = TAMPERED
    ) -> None:
        super().__init__(reason)
        self.line = line
        self.reason = reason
        self.culprit = culprit
        self.kind = kind

    def verdict(self) -> str:
        """In the reader's words, exactly as ``zsy replay --verify`` says it."""
        return reason_text(self.kind, self.line, self.reason, self.culprit)


class TracingGame(Game):
    """An open-deal game that notes what a spectator is told (like :class:`TracingPrivateGame`)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.trace: list[tuple[Any, ...]] = []
        super().__init__(*args, **kwargs)

    def start_round(self, seed: bytes) -> None:
        super().start_round(seed)
        self.trace.append(("deal", self.match.round))

    def apply(self, seat: int, action: Any) -> None:
        before, results = self.match.round, len(self.match.results)
        super().apply(seat, action)
        if before is not None and self.match.round is not None:
            self.trace.append(("step", before, self.log[-1], self.match.round))
        if len(self.match.results) > results:
            self.trace.append(("result", self.match))
        if self.finished():
            self.trace.append(("over", self.match))

    def void_round(self, seat: int, reason: str) -> None:
        super().void_round(seat, reason)
        self.trace.append(("void", seat, reason))


def rounds_done(game: Game) -> int:
    """Rounds the game has closed: scored or voided (a boundary of the open-deal delay)."""
    return len(game.match.results) + len(game.voids)


class Follower:
    """Re-verifies a record line by line as it arrives, like ``zsy replay --verify``.

    The checks are ``zsy replay``'s own (:class:`~zsy_lan.protocol.transcript.
    TranscriptChecker`: each signature, feed chain, commitment and action on a
    fresh game that knows no hand, and the order), one line at a time, so a live
    spectator never re-reads what it already checked and reaches the verdict
    ``zsy replay`` reaches on the same lines: a line that fails raises
    :class:`FollowError`; :meth:`end` says how the lines so far end (cut inside a
    step: unfinished; a leftover that cannot be: DAMAGED). The game is an
    observer: with the private deal it holds no key that opens a hidden card
    before the round's reveal.

    Memory does not grow with the match: the frames of rounds older than the
    last ``retain`` leave it (as a seat's replica, ``RETAIN_ROUNDS``), and the
    story the :class:`Teller` has told is dropped (:meth:`forget_told`). What
    stays of an old line is its hash and number, so verification is unchanged.
    """

    def __init__(self, header: str, retain: int | None = RETAIN_ROUNDS) -> None:
        self.header = header
        self.rules, rounds, self.meta = game_from_header(header)
        self.table, self.roster = load_header(header)
        self.private = self.meta.get("deal") == "private"
        if self.private:
            self.game: Game = TracingPrivateGame(self.rules, rounds, table=self.table, seat=None)
        else:
            self.game = TracingGame(self.rules, rounds)
        self.checker = TranscriptChecker(self.table, self.roster, self.game, retain=retain)
        #: the header cannot seat its own game: the first line after it is refused so
        #: (DAMAGED, naming nobody), as zsy replay refuses the file
        self.misfit = roster_misfit(self.rules, self.roster)
        self.ledger = self.checker.ledger
        bots = self.meta.get("bots")
        bots = set(bots) if isinstance(bots, list) else set()
        #: a hosted bot's ``bot:normal`` in the spectator's language, as the players read it
        self.nicks = {
            int(k): shown_nick(clean_or(v, f"seat {k}", NICK_MAX), int(k) in bots)
            for k, v in dict(self.meta.get("nicks") or {}).items()
        }
        #: chat lines (asides) verified and not told yet: (trace position then, seat, body),
        #: in record order; the record writes a seat's line just before its next entry
        self.chats: list[tuple[int, int, Any]] = []
        #: trace events dropped once told (positions in :attr:`chats` count them too)
        self.trace_base = 0

    @property
    def lines(self) -> int:
        """Lines checked so far, the header included."""
        return self.checker.lines

    @property
    def head(self) -> str:
        """The transcript head so far (equal to every seat's once they hold the same lines)."""
        return self.ledger.head

    def add(self, line: str) -> None:
        """Check and apply one record line; :class:`FollowError` names what is wrong."""
        if self.misfit is not None and line.strip():
            raise FollowError(HEADER_LINE, self.misfit, None, DAMAGED)
        bad = self.checker.add(line)
        if bad is not None and not self.checker.settled:
            # a rule broken by the header's rules: the lines to come may show the table
            # played on (the header is damaged, nobody is named), as zsy replay reads on;
            # :meth:`end` gives this verdict if they do not
            return
        if bad is not None:
            raise FollowError(bad.bad_line or self.lines, bad.reason, bad.culprit, bad.kind)
        env = self.checker.last
        if env is not None and self.checker.last_aside and env.type == "chat":
            # verified like the rest; judged when told (Teller)
            at = self.trace_base + len(self.game.trace)  # type: ignore[attr-defined]
            self.chats.append((at, env.seat, env.body))

    def end(self) -> VerifyResult:
        """The verdict on the lines so far if the record ends here (the host went away)."""
        ends = self.checker.end()
        if self.misfit is not None:
            return replace(
                ends, ok=False, bad_line=HEADER_LINE, reason=self.misfit, culprit=None, kind=DAMAGED
            )
        return ends

    def forget_told(self, events: int, chats: int) -> None:
        """The first ``events`` trace events and ``chats`` chat lines were told: drop them.

        Each step's event holds the round's state before and after it, so a
        trace kept whole would grow with the match.
        """
        trace = self.game.trace  # type: ignore[attr-defined]
        del trace[:events]
        self.trace_base += events
        del self.chats[:chats]


class Teller:
    """The public view in words, from a :class:`Follower`'s trace (a spectator's screen)."""

    def __init__(self, follower: Follower) -> None:
        self.f = follower
        self.kitty_told = -1  # the round whose turned-up kitty was told
        self.chats_told = 0
        # a seat's chat shown: CHAT_BURST lines at once, then one more per event of the game
        # (the record's own pace, never a clock: a catch-up shows what live would)
        self._chat_buckets: dict[int, Bucket] = {}
        self._flooding: set[int] = set()
        self._notes = RecordNotes.of(follower.meta)  # no timeout told without a clock

    def who(self, seat: int | None) -> str:
        if seat is None:
            return "?"
        nick = self.f.nicks.get(seat)
        return _("seat {seat} ({nick})").format(seat=seat, nick=nick) if nick else str(seat)

    def new_lines(self) -> list[str]:
        """Lines for what the record showed since the last call.

        With the private deal also the game's own notes, the ones every seat
        gets as an observer would (the deal done, an audit's verdict, a void),
        and the Dou Dizhu kitty once it is turned up for everyone.
        """
        game = self.f.game
        trace = game.trace  # type: ignore[attr-defined]
        base = self.f.trace_base  # the events before it were told and dropped
        out: list[str] = []
        for i, event in enumerate(trace):
            out.extend(self._chat_until(base + i))
            out.extend(self._tell(event))
        out.extend(self._chat_until(base + len(trace)))
        self.f.forget_told(len(trace), self.chats_told)  # told: memory need not keep it
        self.chats_told = 0
        out.extend(clean(note) for note in game.pop_notes())  # the private deal's verdicts
        if game.hidden_hands:
            r = game.match.round
            kitty = r.get("kitty") if r is not None else None
            if kitty and self.kitty_told != r.round_no:
                self.kitty_told = r.round_no
                out.append(_("The kitty is turned up: {cards}").format(cards=cards_str(kitty)))
        return out

    def _chat_until(self, at: int) -> list[str]:
        """The chat lines of the record said before trace event ``at``, as the seats show them.

        Judged and cleaned like at a seat (:func:`zsy_lan.protocol.chat.read`: a quick
        phrase in this reader's language, free text cleaned, anything else
        dropped with its reason in the log); a table clock note is told as the
        seats read it. A seat over its share is named once as flooding.
        """
        out: list[str] = []
        chats = self.f.chats
        while self.chats_told < len(chats) and chats[self.chats_told][0] <= at:
            when, seat, body = chats[self.chats_told]
            self.chats_told += 1
            name = self.f.nicks.get(seat) or _("seat {seat}").format(seat=seat)
            if is_clock(body):
                event = read_clock(body)
                if event is not None and self._notes.tells(seat, event):
                    out.append(notice_mark("net") + note_text(event, name))
                continue
            text, why = read_chat(body)
            if text is None:
                log.info("watch: chat from seat %s dropped: %s", seat, why)
                continue
            bucket = self._chat_buckets.setdefault(seat, Bucket(1.0, CHAT_BURST, when))
            if not bucket.take(when):
                if seat not in self._flooding:
                    self._flooding.add(seat)
                    out.append(
                        notice_mark("net")
                        + _("{name} is flooding the chat; their extra lines are hidden").format(
                            name=name
                        )
                    )
                continue
            self._flooding.discard(seat)
            out.append(notice_mark("chat") + _("{name}: {text}").format(name=name, text=text))
        return out

    def _tell(self, ev: tuple[Any, ...]) -> list[str]:
        rules: Rules = self.f.rules
        kind = ev[0]
        if kind == "deal":
            r = ev[1]
            counts = join_items(
                _("{who} {n}").format(who=self.who(s), n=n) for s, n in enumerate(r.counts)
            )
            dealt = (
                _("Hand {n} dealt; cards: {counts}")  # Dou Dizhu's word, as its table says
                if is_doudizhu(rules)
                else _("Round {n} dealt; cards: {counts}")
            )
            out = [dealt.format(n=r.round_no, counts=counts)]
            if not self.f.private:  # the open deal: shown after the round ended, hands public
                out += [
                    _("  {who} held {cards}").format(who=self.who(s), cards=cards_str(h))
                    for s, h in enumerate(r.hands)
                    if h is not None
                ]
            return out
        if kind == "step":
            _before, action, after = ev[1], ev[2], ev[3]
            who, play = self.who(action.seat), describe(action, rules=rules)
            if action.kind == "play" and 0 <= action.seat < len(after.counts):
                # one sentence, so that a language writes its own spacing between the
                # play's and the count's brackets (Chinese: none between "）（")
                return [
                    _("{who}: {play} ({n} left)").format(
                        who=who, play=play, n=after.counts[action.seat]
                    )
                ]
            redeal = redeal_text(rules, after, action)  # DDZ-2.3: told when it happens, as to seats
            return [_("{who}: {play}").format(who=who, play=play)] + ([redeal] if redeal else [])
        if kind == "result":
            return [round_over_text(rules, ev[1], self.who)]
        if kind == "void":
            return [
                round_or_hand(
                    rules,
                    _("The round was voided: {who} withheld its part ({why})."),
                    _("The hand was voided: {who} withheld its part ({why})."),
                ).format(who=self.who(ev[1]), why=clean(str(ev[2]), REASON_MAX))
            ]
        if kind == "opened":
            return []  # the audit's verdict is the game's own note
        if kind == "over":
            winners = join_items(self.who(s) for s in ev[1].winners)
            return [_("Match over. Winner: {winners}.").format(winners=winners)]
        return []
