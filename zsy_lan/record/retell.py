"""A finished (or cut-off) game told round by round, as a player would tell it (``zsy replay``).

Why a retelling and not a list of moves: a record is read to see how a hand
went (a bug report, a lost match), and a flat list of 200 actions hides that.
Here each round is told in order: the deal (every hand, which the open deal
makes public, and the kitty), the bidding or the tribute, then each trick on
one line with who led and who won it, who went out when, and the round's
result and the running totals.

It is built by replaying the recorded actions on a fresh engine (the record
was verified first), so the trick winners, places and points are the
engine's, never guessed from the text. Names come from :mod:`zsy_lan.text.words`
(combinations, titles) and every line goes through ``_()``.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from zsy_lan.deal.private_game import PrivateGame
from zsy_lan.engine.cards import cards_str
from zsy_lan.engine.game import Game
from zsy_lan.engine.match import MatchState
from zsy_lan.engine.phases import Phase
from zsy_lan.engine.rules import Rules
from zsy_lan.engine.state import PASS, PLAY, Action, RoundState
from zsy_lan.protocol.chat import read as read_chat
from zsy_lan.protocol.clock_notes import RecordNotes, is_clock, note_text, read_clock
from zsy_lan.protocol.table_settings import TableSettings, settings_line
from zsy_lan.text.i18n import _, deal_word, join_clauses, join_items, ngettext
from zsy_lan.text.present import is_doudizhu, round_or_hand, round_over_text
from zsy_lan.text.sanitize import clean
from zsy_lan.text.words import action_text, place_title

__all__ = [
    "RoundStory",
    "TracingPrivateGame",
    "Trick",
    "open_trace",
    "retell",
    "retell_lines",
    "audit_lines",
    "retell_record",
    "record_chats",
    "tell",
]


@dataclass
class Trick:
    """One trick: who led, every move in order, who won it (the engine's ``trick_seat``)."""

    leader: int
    moves: list[Action] = field(default_factory=list)
    winner: int | None = None  # None while unfinished (a record cut mid-trick)
    ends_round: bool = False  # the round ended with this trick's last play


@dataclass
class RoundStory:
    """One round of the match as the retelling tells it."""

    round_no: int
    dealer: int
    lines: list[str] = field(default_factory=list)
    tricks: list[Trick] = field(default_factory=list)


class _Teller:
    """Walks the recorded actions through a fresh engine and writes the story."""

    def __init__(self, rules: Rules, nicks: Mapping[int, str]) -> None:
        self.rules = rules
        self.nicks = {s: clean(str(n)) for s, n in nicks.items()}
        self.rounds: list[RoundStory] = []
        self.trick: Trick | None = None
        self.held: list[str] = []  # chat lines waiting for the trick they came in to be told

    def who(self, seat: int) -> str:
        nick = self.nicks.get(seat)
        if nick:
            return _("seat {seat} ({nick})").format(seat=seat, nick=nick)
        return _("seat {seat}").format(seat=seat)

    def say(self, line: str) -> None:
        self.rounds[-1].lines.append(line)

    def chat(self, seat: int, body: Any) -> None:
        """A chat line in its place: at once, or after the trick it was said in (one line).

        A table clock note (a chat body of its own kind, :mod:`zsy_lan.table.clock`)
        is told as the table read it: "Alice's time ran out: the hint was played".
        """
        if is_clock(body):
            event = read_clock(body)  # judged as at the table: an unknown event is not told
            if event is not None:
                name = self.nicks.get(seat) or self.who(seat)
                self.held.append("  * " + note_text(event, name))
        else:
            text, _why = read_chat(body)  # judged and cleaned as at the table
            if text is None:
                return
            self.held.append("  » " + _("{name}: {text}").format(name=self.who(seat), text=text))
        if self.rounds and self.trick is None:
            self.flush_chat()

    def flush_chat(self) -> None:
        if self.rounds and self.held:
            self.rounds[-1].lines.extend(self.held)
            self.held = []

    def deal(self, state: RoundState) -> None:
        self.trick = None
        self.rounds.append(RoundStory(state.round_no, state.dealer))
        head = (
            _("Hand {n}: dealer {who}.")  # Dou Dizhu's word (no titles, DDZ-5.3 hands)
            if place_title(self.rules, 1, self.rules.players) is None
            else _("Round {n}: dealer {who}.")
        )
        self.say(head.format(n=state.round_no, who=self.who(state.dealer)))
        if all(hand is None for hand in state.hands):
            self.say(_("  Private deal: the hands stay hidden until the round's audit."))
        for s, hand in enumerate(state.hands):
            if hand is not None:
                self.say(_("  {who} is dealt {cards}.").format(
                    who=self.who(s), cards=cards_str(hand)))
        kitty = state.get("secret_kitty") or state.get("kitty")
        if kitty:
            self.say(_("  The kitty: {cards}.").format(cards=cards_str(tuple(kitty))))
        self.flush_chat()  # what was said before this deal

    def opened(self, dealt: Mapping[int, Sequence[int]], kitty: Sequence[int]) -> None:
        """Private deal: the audit opened every card; the deal is told where it belongs."""
        if not self.rounds:
            return
        lines = [
            _("  {who} was dealt {cards} (opened by the audit).").format(
                who=self.who(s), cards=cards_str(tuple(sorted(cards))))
            for s, cards in sorted(dealt.items())
        ]
        if kitty:
            lines.append(_("  The kitty: {cards}.").format(cards=cards_str(tuple(sorted(kitty)))))
        story = self.rounds[-1]
        story.lines[2:2] = lines  # after the round's header and the private-deal note

    def step(self, before: RoundState, action: Action, after: RoundState) -> None:
        if before.phase == Phase.PLAY and action.kind in (PLAY, PASS):
            self._play(before, action, after)
        elif before.phase == Phase.TRIBUTE:
            self._tribute(before, action, after)
        else:
            self.say(_("  {who}: {action}.").format(
                who=self.who(action.seat), action=action_text(self.rules, action)))
            lord = after.get("landlord")
            if lord is not None and before.get("landlord") is None:
                self.say(_("  {who} is the landlord and takes the kitty.").format(
                    who=self.who(int(lord))))
            if after.phase == Phase.DONE and after.get("void"):
                self.say(_("  Everybody passed: the hand is dealt again (DDZ-2.3)."))
        if action.seat in after.finished and action.seat not in before.finished:
            place = after.finished.index(action.seat) + 1
            title = place_title(self.rules, place, self.rules.players)
            text = (
                _("  {who} is out: {title}.").format(who=self.who(action.seat), title=title)
                if title
                else _("  {who} is out.").format(who=self.who(action.seat))
            )
            self.say(text)

    def _play(self, before: RoundState, action: Action, after: RoundState) -> None:
        if before.trick is None or self.trick is None:
            self.trick = Trick(leader=action.seat)
            self.rounds[-1].tricks.append(self.trick)
        trick = self.trick
        trick.moves.append(action)
        if after.trick is None and before.trick is not None:
            trick.winner = before.trick_seat  # everybody else passed (ZSY-5.2, DDZ-4.4)
        elif after.phase != Phase.PLAY:
            trick.winner, trick.ends_round = (
                after.trick_seat if after.trick_seat >= 0 else action.seat
            ), True
        if trick.winner is not None:
            self._tell_trick(trick)
            self.trick = None
            self.flush_chat()

    def _tell_trick(self, trick: Trick) -> None:
        moves = join_clauses(
            _("{who} {action}").format(
                who=self.who(a.seat),
                action=_("passes") if a.kind == PASS else action_text(self.rules, a),
            )
            for a in trick.moves
        )
        n = len(self.rounds[-1].tricks)
        assert trick.winner is not None
        if trick.ends_round:
            ends = (
                _("  Trick {n}: {moves}; won by {who}, and the hand ends.")
                if is_doudizhu(self.rules)
                else _("  Trick {n}: {moves}; won by {who}, and the round ends.")
            )
            self.say(ends.format(n=n, moves=moves, who=self.who(trick.winner)))
        else:
            self.say(_("  Trick {n}: {moves}; won by {who}.").format(
                n=n, moves=moves, who=self.who(trick.winner)))

    def _tribute(self, before: RoundState, action: Action, after: RoundState) -> None:
        if action.kind == "give" and action.cards:
            self._gives(before, action, after)
            return
        duty = next((d for d in before.duties if d.giver == action.seat), None)
        to = self.who(duty.receiver) if duty is not None else "?"
        cards = cards_str(action.cards) if action.cards else ""
        if action.kind == "return" and not cards:
            text = ngettext(
                "  Tribute: {who} returns {n} card face down to {to}.",
                "  Tribute: {who} returns {n} cards face down to {to}.",
                action.value,
            )
        elif action.kind == "give":
            text = _("  Tribute: {who} gives {cards} to {to}.")
        elif action.kind == "return":
            text = _("  Tribute: {who} returns {cards} to {to}.")
        else:
            text = _("  Tribute: {who}: {action}.")
        self.say(text.format(who=self.who(action.seat), cards=cards, to=to, n=action.value,
                             action=action_text(self.rules, action)))

    def _gives(self, before: RoundState, action: Action, after: RoundState) -> None:
        """A give as the round's log moved it: given to its receiver, or only shown (Guandan's
        givers under the private deal: the cards move once all have shown; both red
        jokers shown resist, GD-6.3)."""
        moved = [e for e in after.tribute_log[len(before.tribute_log):] if e[2]]
        if not any(g == action.seat for g, *_ in moved):
            self.say(_("  Tribute: {who} shows {cards}.").format(
                who=self.who(action.seat), cards=cards_str(action.cards)))
        for giver, receiver, cards, _n in moved:
            self.say(_("  Tribute: {who} gives {cards} to {to}.").format(
                who=self.who(giver), cards=cards_str(tuple(cards or ())), to=self.who(receiver)))
        if after.get("tribute_paid") == "resisted" and not moved:
            self.say(_("  No tribute this deal: it was resisted (GD-6.3)."))

    def cut(self) -> None:
        """The record ends here: say so for an unfinished trick."""
        if self.trick is not None and self.rounds:
            moves = join_clauses(
                _("{who} {action}").format(
                    who=self.who(a.seat),
                    action=_("passes") if a.kind == PASS else action_text(self.rules, a),
                )
                for a in self.trick.moves
            )
            self.say(_("  Trick {n} (unfinished): {moves}.").format(
                n=len(self.rounds[-1].tricks), moves=moves))

    def result(self, m: MatchState) -> None:
        res = m.results[-1]
        if place_title(self.rules, 1, self.rules.players) is None:
            # no titles (Dou Dizhu): the table's own words, which side won, stakes, totals
            self.say(round_over_text(self.rules, m, self.who))
            return
        places = []
        for i, s in enumerate(res.order, 1):
            title = place_title(self.rules, i, self.rules.players)
            places.append(
                _("{who} {title}").format(who=self.who(s), title=title) if title else self.who(s)
            )
        points = join_items(
            _("{who} {points:+d}").format(who=self.who(s), points=p)
            for s, p in enumerate(res.points)
        )
        self.say(_("Round {n} over. Out in order: {places}. Points: {points}.").format(
            n=res.round_no, places=join_items(places), points=points))
        totals = join_items(
            _("{who} {points}").format(who=self.who(s), points=t) for s, t in enumerate(m.totals)
        )
        n = len(m.results)
        self.say(
            ngettext("Totals after {n} round: {totals}.", "Totals after {n} rounds: {totals}.", n)
            .format(n=n, totals=totals)
        )


# One step of a game as the retelling reads it:
#   ("deal", state)                    a round was dealt (hands None where unknown)
#   ("step", before, action, after)    the engine applied an action
#   ("result", match)                  a round's result was added to the match
#   ("void", seat, reason)             the table voided the round
#   ("opened", dealt, kitty)           private deal: the audit opened every card
Event = tuple[Any, ...]


def open_trace(
    rules: Rules,
    rounds: int,
    seeds: Iterable[bytes],
    log: Sequence[Action],
    voided: Iterable[tuple[int, int, str]] = (),
    chats: Iterable[tuple[int, int, Any]] = (),
) -> list[Event]:
    """The events of an open-deal game, replayed from its seeds and actions on a fresh engine.

    ``voided``: (index in ``log``, seat, reason) of each round voided by the
    table, from :attr:`Game.voids` (``at``, ``culprit``, ``reason``). ``chats``: (index in ``log``,
    seat, body) of each chat line in the record (:func:`record_chats`), told
    before that action.
    """
    game = Game(rules, rounds)
    seed_iter = iter(seeds)
    voids = {at: (seat, why) for at, seat, why in voided}
    said: dict[int, list[Event]] = {}
    for at, seat, body in chats:
        said.setdefault(at, []).append(("chat", seat, body))
    out: list[Event] = []
    told = 0
    for i, action in enumerate(log):
        if i in voids and game.can_void_round():
            game.void_round(*voids[i])
            out.append(("void", *voids[i]))
        while game.needs_seed():
            game.start_round(next(seed_iter))
            out.append(("deal", game.round))
        out += said.pop(i, [])
        before = game.round
        game.apply(action.seat, action)
        out.append(("step", before, action, game.round))
        if len(game.match.results) > told:
            told = len(game.match.results)
            out.append(("result", game.match))
    for at in sorted(said):  # said after the last action in the record
        out += said[at]
    if game.finished():
        out.append(("over", game.match))
    return out


def tell(rules: Rules, events: Iterable[Event], nicks: Mapping[int, str] | None = None
         ) -> tuple[list[RoundStory], list[str]]:
    """The story of a game from its events: (rounds, closing lines)."""
    teller = _Teller(rules, nicks or {})
    over: MatchState | None = None
    for ev in events:
        kind = ev[0]
        if kind == "deal":
            teller.deal(ev[1])
        elif kind == "step" and teller.rounds:
            teller.step(ev[1], ev[2], ev[3])
        elif kind == "result" and teller.rounds:
            teller.result(ev[1])
        elif kind == "void" and teller.rounds:
            teller.cut()
            said = round_or_hand(
                teller.rules,
                _("  The round was voided: {who} withheld its part ({why})."),
                _("  The hand was voided: {who} withheld its part ({why})."),
            )
            teller.say(said.format(
                who=teller.who(ev[1]) if ev[1] is not None else "?", why=clean(str(ev[2]))))
            teller.trick = None
        elif kind == "opened":
            teller.opened(ev[1], ev[2])
        elif kind == "chat":
            teller.chat(ev[1], ev[2])
        elif kind == "over":
            over = ev[1]
    teller.cut()
    teller.flush_chat()
    if over is not None:
        winners = join_items(teller.who(s) for s in over.winners)
        closing = [_("Match over. Winner: {winners}.").format(winners=winners)]
    else:
        closing = [_("The record ends here: the match was not finished.")]
    return teller.rounds, teller.held + closing  # chat before any deal: nowhere else to go


def retell(
    rules: Rules,
    rounds: int,
    seeds: Iterable[bytes],
    log: Sequence[Action],
    nicks: Mapping[int, str] | None = None,
    voided: Iterable[tuple[int, int, str]] = (),
    chats: Iterable[tuple[int, int, Any]] = (),
) -> tuple[list[RoundStory], list[str]]:
    """The story of an open-deal game from its seeds and actions: (rounds, closing lines)."""
    return tell(rules, open_trace(rules, rounds, seeds, log, voided, chats), nicks)


class TracingPrivateGame(PrivateGame):
    """A private-deal observer that also keeps what the retelling needs (``zsy replay``).

    It checks exactly what :class:`PrivateGame` checks; it only notes each
    round's start, each engine action with the states around it, each void,
    and each audit (which opens every card, so the deal can be told).
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.trace: list[Event] = []
        super().__init__(*args, **kwargs)

    def _start_engine_round(self, leader: int | None) -> None:
        super()._start_engine_round(leader)
        self.trace.append(("deal", self.match.round))

    def _on_engine(self, seat: int, act: Action, msg: Any) -> None:
        before = self.match.round
        n = len(self.log)
        super()._on_engine(seat, act, msg)
        if len(self.log) > n and before is not None and self.match.round is not None:
            self.trace.append(("step", before, self.log[-1], self.match.round))

    def void_round(self, seat: int, reason: str) -> None:
        super().void_round(seat, reason)
        self.trace.append(("void", seat, reason))

    def _audit(self) -> None:
        results, voids = len(self.match.results), len(self.voids)
        super()._audit()
        rep = self.audits[-1] if self.audits else None
        if rep is not None and rep.slot_cards is not None:
            dealt = {s: list(c) for s, c in rep.dealt.items()}
            given = {c for cards in dealt.values() for c in cards}
            kitty = [c for c in rep.slot_cards if c not in given]
            self.trace.append(("opened", dealt, kitty))
        if len(self.voids) > voids:
            v = self.voids[-1]
            self.trace.append(("void", v.culprit, f"{v.step}: {v.reason}"))
        if len(self.match.results) > results:
            self.trace.append(("result", self.match))
        if self.finished():
            self.trace.append(("over", self.match))


def retell_lines(
    rules: Rules,
    rounds: int,
    seeds: Iterable[bytes],
    log: Sequence[Action],
    nicks: Mapping[int, str] | None = None,
    voided: Iterable[tuple[int, int, str]] = (),
    chats: Iterable[tuple[int, int, Any]] = (),
) -> list[str]:
    """:func:`retell` as the lines ``zsy replay`` prints."""
    stories, closing = retell(rules, rounds, seeds, log, nicks, voided, chats)
    return [line for story in stories for line in story.lines] + closing


def header_line(game: Game, meta: Mapping[str, object]) -> str:
    """The retelling's first line: the table, its players, its rounds and its deal.

    The rounds are those agreed, unless the match ended after another number: a
    plugin that ends the match itself (Guandan at A, Big Two) or deciding rounds
    (ZSY-8.5) carry it past them, and the line says what was played.
    """
    rules = game.rules
    played = len(game.match.results)
    agreed = game.match.rounds
    ddz = is_doudizhu(rules)  # Dou Dizhu's word for its rounds (DDZ-5.3 hands)
    if game.finished() and played != agreed:
        n = played
        header = (
            ngettext(
                "Table '{name}': {n} players, {rounds} hand played, {deal} deal.",
                "Table '{name}': {n} players, {rounds} hands played, {deal} deal.",
                n,
            )
            if ddz
            else ngettext(
                "Table '{name}': {n} players, {rounds} round played, {deal} deal.",
                "Table '{name}': {n} players, {rounds} rounds played, {deal} deal.",
                n,
            )
        )
    else:
        n = agreed
        header = (
            ngettext(
                "Table '{name}': {n} players, {rounds} hand, {deal} deal.",
                "Table '{name}': {n} players, {rounds} hands, {deal} deal.",
                n,
            )
            if ddz
            else ngettext(
                "Table '{name}': {n} players, {rounds} round, {deal} deal.",
                "Table '{name}': {n} players, {rounds} rounds, {deal} deal.",
                n,
            )
        )
    return header.format(
        name=clean(str(meta.get("name", "?"))), n=rules.players, rounds=n,
        deal=deal_word(clean(str(meta.get("deal", "open")))),
    )


def retell_record(
    game: Game,
    nicks: Mapping[int, str],
    meta: Mapping[str, object],
    chats: Sequence[tuple[int, int, Any]] = (),
) -> list[str]:
    """A verified record told for ``zsy replay``: the table, the seats, the rounds.

    An open-deal game is replayed from its seeds; a private-deal one must have
    been verified with a :class:`TracingPrivateGame`, whose trace is told.
    ``chats`` (:func:`record_chats`): told in their place in an open-deal game,
    after the story in a private-deal one (its log also holds the deal's steps).

    ``game`` is the verifier's game (what the record proved, up to any bad
    line), ``meta`` the header's game block (peer-written: cleaned). A clock
    note the header's settings make false (a timeout without a clock) is not
    told (:class:`~zsy_lan.protocol.clock_notes.RecordNotes`).
    """
    notes = RecordNotes.of(meta)
    chats = [
        c for c in chats
        if (event := read_clock(c[2])) is None or notes.tells(c[1], event)
    ]
    rules = game.rules
    bots = set(meta.get("bots") or ()) if isinstance(meta.get("bots"), list) else set()
    out = [header_line(game, meta)]
    seats = join_items(
        (_("seat {seat} {nick} (bot)") if s in bots else _("seat {seat} {nick}")).format(
            seat=s, nick=clean(str(n)))
        for s, n in sorted(nicks.items())
    )
    out.append(_("Seats: {seats}.").format(seats=seats))
    if "settings" in meta:  # the host's clock and assists (table_settings), when not default
        with contextlib.suppress(ValueError):
            out.append(settings_line(TableSettings.from_json(meta["settings"])))
    if game.hidden_hands:  # verified with a TracingPrivateGame: its trace is the story
        stories, closing = tell(rules, game.trace, nicks)  # type: ignore[attr-defined]
        teller = _Teller(rules, nicks)
        teller.rounds.append(RoundStory(0, 0))
        for _at, seat, body in chats:
            teller.chat(seat, body)
        said = teller.rounds[0].lines
        if said:
            said.insert(0, _("Chat during the match:"))
        return out + [line for story in stories for line in story.lines] + said + closing
    return out + retell_lines(
        rules, game.match.rounds, game.seeds, game.log, nicks,
        [(v.at, v.culprit, v.reason) for v in game.voids], chats
    )


def record_chats(lines: Sequence[str]) -> list[tuple[int, int, Any]]:
    """The chat lines of a record as (moves before it, seat, body), in record order.

    A chat line is an aside (never in the hash chain), written just before
    its author's next entry, which may come many moves after it was said. Its
    signed ``state`` (the public state when it was said) places it: "moves
    before it" counts the ``action`` and ``proxy`` entries before the first
    entry that acted on that state (the index in the game's log), or before
    the aside itself when none did yet. Lines that do not parse are skipped
    (the verifier has judged the record already; only what it accepted is told).

    The asides after the record's last chain line were said after their
    authors' last move (a ``gg``): each seat wrote them in the order they
    reached it, so that tail differs from seat to seat, and no signed field
    says which of two seats spoke first. They are told in one order on every
    seat: by that position, then seat by seat, each seat's in its own order
    (its feed's seq), so two seats' replays tell the same story.
    """
    from zsy_lan.protocol.envelope import FrameError, open_frame
    from zsy_lan.protocol.transcript import load_entry, load_header

    try:
        table, roster = load_header(lines[0])
    except (ValueError, IndexError):
        return []
    placed: list[tuple[int, int, Any]] = []  # before a chain line: the same place on every seat
    tail: list[tuple[int, int, int, Any]] = []  # after the last one: (at, seat, seq, body)
    moves = 0
    reached: dict[str, int] = {}  # public state -> moves before the first entry on it
    for line in lines[1:]:
        try:
            seat, frame, aside = load_entry(line)
            env = open_frame(frame, roster, table)
        except (ValueError, FrameError):
            continue
        if not aside:
            placed += [(at, s, body) for at, s, _seq, body in tail]  # a chain line follows
            tail = []
            reached.setdefault(env.state, moves)
            if env.type in ("action", "proxy"):
                moves += 1
        elif env.type == "chat":
            tail.append((reached.get(env.state, moves), seat, env.seq, env.body))
    tail.sort(key=lambda t: (t[0], t[1], t[2]))
    return placed + [(at, s, body) for at, s, _seq, body in tail]


def audit_lines(game: PrivateGame) -> list[str]:
    """Each private deal's audit verdict, and each round it made void, for the retelling."""
    out = [
        _("The audit of deal {n}: {summary}").format(n=i, summary=clean(rep.summary()))
        for i, rep in enumerate(game.audits, 1)
    ]
    for v in game.voids:
        said = round_or_hand(
            game.rules,
            _("Round {n} void: seat {seat} named ({step}): {reason}"),
            _("Hand {n} void: seat {seat} named ({step}): {reason}"),
        )
        out.append(
            said.format(
                n=v.round, seat=v.culprit, step=clean(str(v.step)), reason=clean(str(v.reason)))
        )
    return out
