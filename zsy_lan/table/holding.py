"""The seat-holding policy: when a seat moves to let a bot hold a silent one, and that bot.

Why a module of its own (issues #14, #23): at an open-deal table a seat that drops
at its turn is held by a ``normal`` bot run by another seat's peer, once the
table agreed by motion (docs/protocol.md, "Motions" and "The shell"). The
replica decides *whether* (``motion_wait``, ``proxy_due``); a :class:`SeatHolder`,
a component of :class:`~zsy_lan.table.peer.TablePeer`, is the peer's side: moving
the motion once per position, running the bot in a worker thread on the held
seat's view only, keeping the seat list's "held by" up to date and telling
the player how a motion went. It reads the table through a
:class:`~zsy_lan.table.seat_view.SeatView` and acts through the callables it is given.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

from zsy_lan.engine.errors import PluginError
from zsy_lan.engine.rules import Rules
from zsy_lan.engine.state import Action
from zsy_lan.protocol import Event, Rejected
from zsy_lan.protocol.events import Motion, Released
from zsy_lan.table.fault_words import fault_why
from zsy_lan.table.seat_view import SeatView
from zsy_lan.table.session import Notice
from zsy_lan.text.i18n import _, join_clauses, join_items
from zsy_lan.text.present import round_or_hand

log = logging.getLogger("zsy.peer")  # the peer's log: the same lines as before the split


class SeatHolder:
    """Holding dropped seats for a seated peer.

    ``view``: the table, read only. ``bot_key``: this seat's public key, which
    seeds the holding bot (with the held seat). ``who`` names a seat as the
    narration does, ``tell`` shows a notice. ``move(motion, seat, now)`` moves a
    motion through the replica, ``hold(now)`` moves ``hold`` about every seat gone
    past the timeout at its turn (the replica's rule, once per position:
    protocol/motions.py), ``act_for(seat, action)`` signs and sends a held
    seat's move (each returns its events), ``look_again()`` has the peer look at
    the table again (the game moved while the bot thought), ``live()`` is False
    once the seat stopped, ``now()`` is the replica's clock; ``plugin_failed(exc)``
    stops this seat on a rules plugin's bug met while holding a seat.
    """

    def __init__(
        self,
        view: SeatView,
        rules: Rules,
        bot_key: bytes,
        *,
        who: Callable[[int], str],
        tell: Callable[[Notice], None],
        move: Callable[[str, int, float], list[Event]],
        hold: Callable[[float], list[Event]],
        act_for: Callable[[int, Action], list[Event]],
        look_again: Callable[[], None],
        live: Callable[[], bool],
        now: Callable[[], float],
        plugin_failed: Callable[[PluginError], None] | None = None,
    ) -> None:
        self.view = view
        self.seat = view.seat
        self.rules = rules
        self._bot_key = bot_key
        self._who, self._tell = who, tell
        self._move, self._act_for, self._look_again, self._live = move, act_for, look_again, live
        self._now, self._hold = now, hold
        self._holding: asyncio.Future[Action] | None = None  # the bot thinking for a held seat
        self._plugin_failed = plugin_failed  # a rules plugin raised: this seat's local fault

    def hold_the_silent(self, now: float) -> None:
        """Move to hold a seat the table has waited on, disconnected, for ``hold_after``.

        Only where this table holds seats (open deal). The replica judges it
        (:meth:`Replica.hold_silent`), by the rule every other seat's replica
        applies on its own clock before it joins; once per position.
        """
        self._hold(now)

    def follow_up(self) -> None:
        """After the replica moved: this seat's bot plays a held seat's move when one is due."""
        if self.view.any_held() and self._holding is None and self.view.proxy_due():
            self.play_held()

    def play_held(self) -> None:
        """This seat holds a dropped one: a ``normal`` bot picks its move, from its view only."""
        due = self.view.proxy_due()
        game = self.view.game
        if not due:
            return
        held = due[0]
        view = game.holder_view(held)  # None: nobody else knows its hand (private deal)
        if view is None:
            return
        from zsy_lan.bots.registry import make_bot

        bot = make_bot("normal", self._bot_key + bytes([held]))
        key = (len(game.log), len(game.seeds), held)
        loop = asyncio.get_running_loop()
        fut = loop.run_in_executor(None, bot.act, self.rules, view, held)
        self._holding = fut
        fut.add_done_callback(lambda f: self._held_decided(f, key))

    def _held_decided(self, fut: asyncio.Future[Action], key: tuple[int, int, int]) -> None:
        self._holding = None
        if not self._live() or fut.cancelled():
            return
        held = key[2]
        try:
            action: Action | None = fut.result()
        except PluginError as exc:
            self._rules_failed(held, exc)
            return
        except Exception as exc:  # noqa: BLE001 - a broken bot must not kill the peer
            log.warning("bot holding seat %s failed: %s", held, exc)
            action = None
        game = self.view.game
        now_key = (len(game.log), len(game.seeds), held)
        if now_key != key or held not in self.view.proxy_due():
            self._look_again()  # the game moved on meanwhile: look again
            return
        try:
            legal = game.legal(held)
        except PluginError as exc:
            self._rules_failed(held, exc)
            return
        if action is None or action not in legal:
            if not legal:
                return
            action = legal[0]
        for e in self._act_for(held, action):
            if isinstance(e, Rejected) and e.sender == self.seat:
                log.warning("proxy for seat %s refused: %s", held, e.reason)

    def _rules_failed(self, held: int, exc: PluginError) -> None:
        """A rules plugin raised while holding ``held``: retrying would fail the same way."""
        log.warning("bot holding seat %s: %s", held, exc)
        if self._plugin_failed is not None:
            self._plugin_failed(exc)

    def vote(self, motion: str) -> str:
        """Vote ``motion`` ("void") about the seat(s) the table waits on; what happened, in words.

        The other seats' peers join the motion by themselves once one seat voted.
        """
        view = self.view
        if motion == "void" and not view.can_void():
            if not view.allows("void"):  # an open deal: its table holds seats instead
                return round_or_hand(
                    self.rules,
                    _("this table does not vote rounds void (a bot holds a dropped seat instead)"),
                    _("this table does not vote hands void (a bot holds a dropped seat instead)"),
                )
            return round_or_hand(
                self.rules,
                _("the table cannot void this round now (no deal is under way)"),
                _("the table cannot void this hand now (no deal is under way)"),
            )
        others = [p for p in view.awaited() if p != self.seat]
        if not others:
            return _("the table is not waiting on another seat")
        now, patience = self._now(), view.timing.stall
        wait = min(view.motion_wait(motion, p, now) for p in others)
        if motion == "void" and wait == float("inf"):  # it came back: its round goes on
            return round_or_hand(
                self.rules,
                _(
                    "{seats} came back and is choosing a move: the round goes on (a round is "
                    "voted void only while a seat is gone or withholds a deal step)"
                ),
                _(
                    "{seats} came back and is choosing a move: the hand goes on (a hand is "
                    "voted void only while a seat is gone or withholds a deal step)"
                ),
            ).format(seats=join_items(self._who(p) for p in others))
        if motion == "void" and wait > 0:
            # A seat that is thinking is not withholding: the replica (ours and every
            # other one) backs a void only past the stall timeout on its own clock.
            return round_or_hand(
                self.rules,
                _(
                    "{seats} kept the table waiting for {waited} s; a round can be voted void "
                    "once a seat withholds its part for {secs} s"
                ),
                _(
                    "{seats} kept the table waiting for {waited} s; a hand can be voted void "
                    "once a seat withholds its part for {secs} s"
                ),
            ).format(
                seats=join_items(self._who(p) for p in others),
                waited=f"{max(0.0, patience - wait):.0f}",
                secs=f"{patience:.0f}",
            )
        said = []
        for p in others:
            events = self._move(motion, p, self._now())
            refused = [
                e.reason for e in events if isinstance(e, Rejected) and e.sender == self.seat
            ]
            fault = view.stopped(p)
            if refused:
                said.append(refused[0])
            elif fault is not None:  # it said it stopped: nobody waits out a timeout on it
                said.append(
                    round_or_hand(
                        self.rules,
                        _(
                            "you voted to void the round ({seat} stopped: {why}); the other seats "
                            "join at once"
                        ),
                        _(
                            "you voted to void the hand ({seat} stopped: {why}); the other seats "
                            "join at once"
                        ),
                    ).format(seat=self._who(p), why=fault_why(fault))
                )
            else:
                said.append(
                    round_or_hand(
                        self.rules,
                        _(
                            "you voted to void the round ({seat} withholds its part); each other "
                            "seat joins once it has waited as long on that seat itself"
                        ),
                        _(
                            "you voted to void the hand ({seat} withholds its part); each other "
                            "seat joins once it has waited as long on that seat itself"
                        ),
                    ).format(seat=self._who(p))
                )
            away = [
                s
                for s in range(len(view.seats))
                if s not in (self.seat, p) and not view.connected(s)
            ]
            if away and not refused and fault is None:
                said.append(self._away_voters(p, away))
        return join_clauses(said)

    def _away_voters(self, seat: int, away: list[int]) -> str:
        """Seats gone as well must vote too: the void waits for them, and ``seat`` may return.

        Issue #26: the host left with its bots and the joiner's void looked settled,
        yet it needs every other seat; a seat back before that keeps its round.
        """
        return round_or_hand(
            self.rules,
            _(
                "{away} left too: the round is voided only once they are back and agree, and "
                "it goes on if {seat} is back by then"
            ),
            _(
                "{away} left too: the hand is voided only once they are back and agree, and "
                "it goes on if {seat} is back by then"
            ),
        ).format(away=join_items(self._who(s) for s in away), seat=self._who(seat))

    def set_held(self, seat: int, holder: int | None) -> None:
        """The seat list's "held by" for ``seat`` (``None``: its own player's again)."""
        seats = self.view.seats
        if 0 <= seat < len(seats):
            seats[seat].held_by_bot = holder is not None
            seats[seat].held_by = holder

    def motion(self, ev: Motion) -> None:
        """A motion moved on: the seat list and a notice.

        Nobody is said to withhold anything until the table agreed (every other
        seat's replica judged it on its own clock); a motion the seat beat is
        told with the names of the seats that moved it (``Motion.movers``).
        """
        who = self._who(ev.seat)
        t = self.view.timing
        fault = self.view.stopped(ev.seat) if ev.seat != self.seat else None
        if fault is not None:  # it said it stopped on a fault of its own: say that, not withheld
            text = self._stopped_motion(ev, who, fault_why(fault))
        elif ev.outcome == "open":
            by = self._who(ev.by) if ev.by is not None else _("a seat")
            if ev.motion == "hold" and ev.seat == self.seat:
                text = _(
                    "{mover} moved to let a bot hold your seat; a seat that acts in time keeps it"
                ).format(mover=by)
            elif ev.motion == "hold" and ev.by == self.seat:  # the reader's own peer moved it
                text = _(
                    "you moved to let a bot hold the seat of {seat}; each seat joins only "
                    "once it has seen that seat gone for {secs} s itself"
                ).format(seat=who, secs=f"{t.hold_after:g}")
            elif ev.motion == "hold":
                text = _(
                    "{mover} moved to let a bot hold the seat of {seat}; each seat joins only "
                    "once it has seen that seat gone for {secs} s itself"
                ).format(mover=by, seat=who, secs=f"{t.hold_after:g}")
            elif ev.seat == self.seat and self.view.back() and self._choosing():
                text = round_or_hand(
                    self.rules,
                    _(  # issue #26: resumed at its turn, the seat keeps its round
                        "{mover} moved to void the round while you were away; you are back, so the "
                        "round goes on: no seat backs a void while you choose your move"
                    ),
                    _(
                        "{mover} moved to void the hand while you were away; you are back, so the "
                        "hand goes on: no seat backs a void while you choose your move"
                    ),
                ).format(mover=by)
            elif ev.seat == self.seat:
                text = round_or_hand(
                    self.rules,
                    _(
                        "{mover} moved to void the round, saying you withhold your part; "
                        "your part keeps the round if it comes in time"
                    ),
                    _(
                        "{mover} moved to void the hand, saying you withhold your part; "
                        "your part keeps the hand if it comes in time"
                    ),
                ).format(mover=by)
            elif ev.by == self.seat:
                text = round_or_hand(
                    self.rules,
                    _(
                        "you moved to void the round, saying {seat} withholds its part; each "
                        "seat joins only once it has waited {secs} s on that seat itself"
                    ),
                    _(
                        "you moved to void the hand, saying {seat} withholds its part; each "
                        "seat joins only once it has waited {secs} s on that seat itself"
                    ),
                ).format(seat=who, secs=f"{t.stall:g}")
            else:
                text = round_or_hand(
                    self.rules,
                    _(
                        "{mover} moved to void the round, saying {seat} withholds its part; each "
                        "seat joins only once it has waited {secs} s on that seat itself"
                    ),
                    _(
                        "{mover} moved to void the hand, saying {seat} withholds its part; each "
                        "seat joins only once it has waited {secs} s on that seat itself"
                    ),
                ).format(mover=by, seat=who, secs=f"{t.stall:g}")
        elif ev.outcome == "held":
            self.set_held(ev.seat, ev.holder)
            run_by = _("seat {seat}").format(seat=ev.holder)
            if ev.seat == self.seat:
                text = _(
                    "you were away: a bot (run by {holder}) holds your seat; "
                    "you take it back at your next turn"
                ).format(holder=run_by)
            elif ev.holder == self.seat:  # "you" in its own sentence: no "por el tú" (es)
                text = _("{seat} dropped; a bot run by you holds the seat").format(seat=who)
            else:
                text = _("{seat} dropped; a bot (run by {holder}) holds the seat").format(
                    seat=who, holder=run_by
                )
        elif ev.outcome == "voided" and ev.seat == self.seat:
            text = round_or_hand(
                self.rules,
                _(
                    "the round was voided: you withheld your part past the timeout; "
                    "earlier rounds stand"
                ),
                _(
                    "the hand was voided: you withheld your part past the timeout; "
                    "earlier hands stand"
                ),
            )
        elif ev.outcome == "voided":
            text = round_or_hand(
                self.rules,
                _(
                    "the round was voided: {seat} withheld its part past the timeout; "
                    "earlier rounds stand"
                ),
                _(
                    "the hand was voided: {seat} withheld its part past the timeout; "
                    "earlier hands stand"
                ),
            ).format(seat=who)
        elif ev.outcome == "declined":
            if ev.movers:
                log.warning(
                    "motion to %s seat %s refused: it acted in time; moved early by %s",
                    ev.motion,
                    ev.seat,
                    ", ".join(f"seat {m}" for m in ev.movers),
                )
            text = self._declined(ev, who)
        else:
            text = round_or_hand(
                self.rules,
                _("the motion to void the round was refused: the game cannot void it here"),
                _("the motion to void the hand was refused: the game cannot void it here"),
            )
        self._tell(Notice("net", text))

    def _declined(self, ev: Motion, who: str) -> str:
        """A motion refused because its seat acted in time, naming who moved it.

        The reader is never a placeholder after a preposition or before a verb: each
        case where it acted, or moved the motion, has its own sentence (Spanish "de
        tú", German "von du" read wrong; issue #26).
        """
        if not ev.movers:
            if ev.seat == self.seat:
                return _("you acted in time: the motion about your seat was declined")
            return _("{seat} acted in time: the motion about that seat was declined").format(
                seat=who
            )
        others = [m for m in ev.movers if m != self.seat]
        movers = join_items(self._who(m) for m in others)
        if ev.seat == self.seat:
            hold = _("you acted in time: the motion by {movers} to hold your seat was refused")
            void = round_or_hand(
                self.rules,
                _("you acted in time: the motion by {movers} to void the round was refused"),
                _("you acted in time: the motion by {movers} to void the hand was refused"),
            )
        elif not others:  # the reader alone moved it
            hold = _("{seat} acted in time: your motion to hold that seat was refused")
            void = round_or_hand(
                self.rules,
                _("{seat} acted in time: your motion to void the round was refused"),
                _("{seat} acted in time: your motion to void the hand was refused"),
            )
        elif len(others) < len(ev.movers):  # the reader and others
            hold = _(
                "{seat} acted in time: the motion by you and {movers} to hold that seat was refused"
            )
            void = round_or_hand(
                self.rules,
                _(
                    "{seat} acted in time: the motion by you and {movers} to void the round "
                    "was refused"
                ),
                _(
                    "{seat} acted in time: the motion by you and {movers} to void the hand "
                    "was refused"
                ),
            )
        else:
            hold = _("{seat} acted in time: the motion by {movers} to hold that seat was refused")
            void = round_or_hand(
                self.rules,
                _("{seat} acted in time: the motion by {movers} to void the round was refused"),
                _("{seat} acted in time: the motion by {movers} to void the hand was refused"),
            )
        return (hold if ev.motion == "hold" else void).format(seat=who, movers=movers)

    def _choosing(self) -> bool:
        """True when the game waits on this seat's choice of a move (no deal step)."""
        return self.seat in self.view.game.decision_seats()

    def _stopped_motion(self, ev: Motion, who: str, why: str) -> str:
        """A motion about a seat that said it stopped on a local fault (``why``), in words.

        No timeout is waited on such a seat, so no seat is said to withhold anything.
        """
        if ev.outcome == "open" and ev.by == self.seat:  # the reader's own peer moved it
            if ev.motion == "hold":
                return _(
                    "you moved to let a bot hold the seat of {seat}, which stopped: {why}"
                ).format(seat=who, why=why)
            return round_or_hand(
                self.rules,
                _("you moved to void the round: {seat} stopped: {why}"),
                _("you moved to void the hand: {seat} stopped: {why}"),
            ).format(seat=who, why=why)
        if ev.outcome == "open":
            by = self._who(ev.by) if ev.by is not None else _("a seat")
            if ev.motion == "hold":
                return _(
                    "{mover} moved to let a bot hold the seat of {seat}, which stopped: {why}"
                ).format(mover=by, seat=who, why=why)
            return round_or_hand(
                self.rules,
                _("{mover} moved to void the round: {seat} stopped: {why}"),
                _("{mover} moved to void the hand: {seat} stopped: {why}"),
            ).format(mover=by, seat=who, why=why)
        if ev.outcome == "held":
            self.set_held(ev.seat, ev.holder)
            if ev.holder == self.seat:
                return _(
                    "{seat} stopped ({why}); a bot run by you holds the seat until it is back"
                ).format(seat=who, why=why)
            return _(
                "{seat} stopped ({why}); a bot (run by {holder}) holds the seat until it is back"
            ).format(seat=who, why=why, holder=_("seat {seat}").format(seat=ev.holder))
        if ev.outcome == "voided":
            return round_or_hand(
                self.rules,
                _("the round was voided: {seat} stopped ({why}); earlier rounds stand"),
                _("the hand was voided: {seat} stopped ({why}); earlier hands stand"),
            ).format(seat=who, why=why)
        if ev.outcome == "declined":
            return _("{seat} acted in time: the motion about that seat was declined").format(
                seat=who
            )
        return round_or_hand(
            self.rules,
            _("the motion to void the round was refused: the game cannot void it here"),
            _("the motion to void the hand was refused: the game cannot void it here"),
        )

    def released(self, ev: Released) -> None:
        """A held seat's player is back: the seat list and a notice."""
        self.set_held(ev.seat, None)
        text = (
            _("{who} is back and takes the seat again").format(who=self._who(ev.seat))
            if ev.seat != self.seat
            else _("you are back: your seat is yours again")
        )
        self._tell(Notice("net", text))
