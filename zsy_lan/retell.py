"""A finished (or cut-off) game told round by round, as a player would tell it (``zsy replay``).

Why a retelling and not a list of moves: a record is read to see how a hand
went (a bug report, a lost match), and a flat list of 200 actions hides that.
Here each round is told in order: the deal (every hand, which the open deal
makes public, and the kitty), the bidding or the tribute, then each trick on
one line with who led and who won it, who went out when, and the round's
result and the running totals.

It is built by replaying the recorded actions on a fresh engine (the record
was verified first), so the trick winners, places and points are the
engine's, never guessed from the text. Names come from :mod:`zsy_lan.words`
(combinations, titles) and every line goes through ``_()``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from .engine.cards import cards_str
from .engine.game import Game
from .engine.rules import Rules
from .engine.state import PASS, PLAY, Action, RoundState
from .i18n import _
from .sanitize import clean
from .words import action_text, place_title

__all__ = ["RoundStory", "Trick", "retell", "retell_lines", "retell_record"]


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

    def who(self, seat: int) -> str:
        nick = self.nicks.get(seat)
        if nick:
            return _("seat {seat} ({nick})").format(seat=seat, nick=nick)
        return _("seat {seat}").format(seat=seat)

    def say(self, line: str) -> None:
        self.rounds[-1].lines.append(line)

    def deal(self, state: RoundState) -> None:
        self.trick = None
        self.rounds.append(RoundStory(state.round_no, state.dealer))
        self.say(_("Round {n}: dealer {who}.").format(n=state.round_no, who=self.who(state.dealer)))
        for s, hand in enumerate(state.hands):
            if hand is not None:
                self.say(_("  {who} is dealt {cards}.").format(
                    who=self.who(s), cards=cards_str(hand)))
        kitty = state.get("secret_kitty") or state.get("kitty")
        if kitty:
            self.say(_("  The kitty: {cards}.").format(cards=cards_str(tuple(kitty))))

    def step(self, before: RoundState, action: Action, after: RoundState) -> None:
        if before.phase == "play" and action.kind in (PLAY, PASS):
            self._play(before, action, after)
        elif before.phase == "tribute":
            self._tribute(before, action)
        else:
            self.say(_("  {who}: {action}.").format(
                who=self.who(action.seat), action=action_text(self.rules, action)))
            lord = after.get("landlord")
            if lord is not None and before.get("landlord") is None:
                self.say(_("  {who} is the landlord and takes the kitty.").format(
                    who=self.who(int(lord))))
            if after.phase == "done" and after.get("void"):
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
        elif after.phase != "play":
            trick.winner, trick.ends_round = (
                after.trick_seat if after.trick_seat >= 0 else action.seat
            ), True
        if trick.winner is not None:
            self._tell_trick(trick)
            self.trick = None

    def _tell_trick(self, trick: Trick) -> None:
        moves = "; ".join(
            _("{who} {action}").format(
                who=self.who(a.seat),
                action=_("passes") if a.kind == PASS else action_text(self.rules, a),
            )
            for a in trick.moves
        )
        n = len(self.rounds[-1].tricks)
        assert trick.winner is not None
        if trick.ends_round:
            self.say(_("  Trick {n}: {moves}; won by {who}, and the round ends.").format(
                n=n, moves=moves, who=self.who(trick.winner)))
        else:
            self.say(_("  Trick {n}: {moves}; won by {who}.").format(
                n=n, moves=moves, who=self.who(trick.winner)))

    def _tribute(self, before: RoundState, action: Action) -> None:
        duty = next((d for d in before.duties if d.giver == action.seat), None)
        to = self.who(duty.receiver) if duty is not None else "?"
        cards = cards_str(action.cards) if action.cards else str(action.value)
        if action.kind == "give":
            text = _("  Tribute: {who} gives {cards} to {to}.")
        elif action.kind == "return":
            text = _("  Tribute: {who} returns {cards} to {to}.")
        else:
            text = _("  Tribute: {who}: {action}.")
        self.say(text.format(who=self.who(action.seat), cards=cards, to=to,
                             action=action_text(self.rules, action)))

    def cut(self) -> None:
        """The record ends here: say so for an unfinished trick."""
        if self.trick is not None and self.rounds:
            moves = "; ".join(
                _("{who} {action}").format(
                    who=self.who(a.seat),
                    action=_("passes") if a.kind == PASS else action_text(self.rules, a),
                )
                for a in self.trick.moves
            )
            self.say(_("  Trick {n} (unfinished): {moves}.").format(
                n=len(self.rounds[-1].tricks), moves=moves))

    def result(self, game: Game) -> None:
        m = game.match
        res = m.results[-1]
        places = []
        for i, s in enumerate(res.order, 1):
            title = place_title(self.rules, i, self.rules.players)
            places.append(
                _("{who} {title}").format(who=self.who(s), title=title) if title else self.who(s)
            )
        points = ", ".join(
            _("{who} {points:+d}").format(who=self.who(s), points=p)
            for s, p in enumerate(res.points)
        )
        self.say(_("Round {n} over. Out in order: {places}. Points: {points}.").format(
            n=res.round_no, places=", ".join(places), points=points))
        totals = ", ".join(
            _("{who} {points}").format(who=self.who(s), points=t) for s, t in enumerate(m.totals)
        )
        self.say(_("Totals after {n} round(s): {totals}.").format(n=len(m.results), totals=totals))


def retell(
    rules: Rules,
    rounds: int,
    seeds: Iterable[bytes],
    log: Sequence[Action],
    nicks: Mapping[int, str] | None = None,
    voided: Iterable[tuple[int, int, str]] = (),
) -> tuple[list[RoundStory], list[str]]:
    """The story of a game from its seeds and actions: (rounds, closing lines).

    ``voided``: (index in ``log``, seat, reason) of each round voided by the
    table, as :attr:`Game.voided` records them.
    """
    game = Game(rules, rounds)
    teller = _Teller(rules, nicks or {})
    seed_iter = iter(seeds)
    voids = {at: (seat, why) for at, seat, why in voided}
    told = 0
    for i, action in enumerate(log):
        if i in voids and game.can_void_round():
            seat, why = voids[i]
            game.void_round(seat, why)
            teller.say(_("  The round was voided: {who} withheld its part ({why}).").format(
                who=teller.who(seat), why=clean(why)))
            teller.trick = None
        while game.needs_seed():
            game.start_round(next(seed_iter))
            assert game.round is not None
            teller.deal(game.round)
        before = game.round
        assert before is not None
        game.apply(action.seat, action)
        after = game.round
        assert after is not None
        teller.step(before, action, after)
        if len(game.match.results) > told:
            told = len(game.match.results)
            teller.result(game)
    teller.cut()
    closing = []
    if game.finished():
        winners = ", ".join(teller.who(s) for s in game.match.winners)
        closing.append(_("Match over. Winner: {winners}.").format(winners=winners))
    else:
        closing.append(_("The record ends here: the match was not finished."))
    return teller.rounds, closing


def retell_lines(
    rules: Rules,
    rounds: int,
    seeds: Iterable[bytes],
    log: Sequence[Action],
    nicks: Mapping[int, str] | None = None,
    voided: Iterable[tuple[int, int, str]] = (),
) -> list[str]:
    """:func:`retell` as the lines ``zsy replay`` prints."""
    stories, closing = retell(rules, rounds, seeds, log, nicks, voided)
    return [line for story in stories for line in story.lines] + closing


def retell_record(game: Game, nicks: Mapping[int, str], meta: Mapping[str, object]) -> list[str]:
    """A verified open-deal record told for ``zsy replay``: the table, the seats, the rounds.

    ``game`` is the verifier's game (what the record proved, up to any bad
    line), ``meta`` the header's game block (peer-written: cleaned).
    """
    rules = game.rules
    bots = set(meta.get("bots") or ()) if isinstance(meta.get("bots"), list) else set()
    out = [
        _("Table '{name}': {n} players, {rounds} round(s), {deal} deal.").format(
            name=clean(str(meta.get("name", "?"))), n=rules.players,
            rounds=game.match.rounds, deal=clean(str(meta.get("deal", "open"))))
    ]
    seats = ", ".join(
        (_("seat {seat} {nick} (bot)") if s in bots else _("seat {seat} {nick}")).format(
            seat=s, nick=clean(str(n)))
        for s, n in sorted(nicks.items())
    )
    out.append(_("Seats: {seats}.").format(seats=seats))
    return out + retell_lines(rules, game.match.rounds, game.seeds, game.log, nicks, game.voided)
