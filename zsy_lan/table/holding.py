"""The seat-holding policy: when a seat moves to let a bot hold a silent one, and that bot.

Why a module of its own (issue #14): at an open-deal table a seat that drops
at its turn is held by a ``normal`` bot run by another seat's peer, once the
table agreed by motion (docs/protocol.md, "Motions" and "The shell"). The
replica decides *whether* (``motion_wait``, ``proxy_due``); :class:`SeatHolding`,
mixed into :class:`~zsy_lan.table.peer.TablePeer`, is the peer's side: moving the
motion once per position, running the bot in a worker thread on the held
seat's view only, keeping the seat list's "held by" up to date and telling
the player how a motion went.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

from zsy_lan.engine.game import Game
from zsy_lan.engine.rules import Rules
from zsy_lan.engine.state import Action
from zsy_lan.protocol import Event, Identity, Rejected, Replica, Send, Timing
from zsy_lan.protocol.events import Motion, Released
from zsy_lan.table.session import Notice, SessionState
from zsy_lan.text.i18n import _, join_items

log = logging.getLogger("zsy.peer")  # the peer's log: the same lines as before the split


class SeatHolding:
    """Holding dropped seats, mixed into :class:`~zsy_lan.table.peer.TablePeer` (owns the state)."""

    seat: int
    identity: Identity
    rules: Rules
    game: Game
    replica: Replica
    timing: Timing
    info: SessionState
    notices: asyncio.Queue[Notice]
    stopped: asyncio.Event
    _holding: asyncio.Future[Action] | None  # the bot thinking for a held seat

    if TYPE_CHECKING:
        _now: Callable[[], float]

        def _handle(self, events: list[Event], via: object = None) -> None: ...

        def _who(self, seat: int) -> str: ...

    def _hold_the_silent(self) -> None:
        """Move to hold a seat the table has waited on, disconnected, for ``hold_after``.

        Only where this table holds seats (open deal). The replica judges it
        (:meth:`Replica.motion_wait`), by the rule every other seat's replica
        applies on its own clock before it joins; once per position.
        """
        self._handle(self.replica.hold_silent(self._now()))

    def _play_held(self) -> None:
        """This seat holds a dropped one: a ``normal`` bot picks its move, from its view only."""
        due = self.replica.proxy_due()
        if not due:
            return
        held = due[0]
        view = self.game.holder_view(held)  # None: nobody else knows its hand (private deal)
        if view is None:
            return
        from zsy_lan.bots.registry import make_bot

        bot = make_bot("normal", self.identity.public_key + bytes([held]))
        key = (len(self.game.log), len(self.game.seeds), held)
        loop = asyncio.get_running_loop()
        fut = loop.run_in_executor(None, bot.act, self.rules, view, held)
        self._holding = fut
        fut.add_done_callback(lambda f: self._held_decided(f, key))

    def _held_decided(self, fut: asyncio.Future[Action], key: tuple[int, int, int]) -> None:
        self._holding = None
        if self.stopped.is_set() or fut.cancelled():
            return
        held = key[2]
        try:
            action: Action | None = fut.result()
        except Exception as exc:  # noqa: BLE001 - a broken bot must not kill the peer
            log.warning("bot holding seat %s failed: %s", held, exc)
            action = None
        now_key = (len(self.game.log), len(self.game.seeds), held)
        if now_key != key or held not in self.replica.proxy_due():
            self._handle([])  # the game moved on meanwhile: look again
            return
        legal = self.game.legal(held)
        if action is None or action not in legal:
            if not legal:
                return
            action = legal[0]
        events = self.replica.act_for(held, action.to_json(), self._now(), apply=False)
        self._handle(events)
        if any(isinstance(e, Send) for e in events):
            self._handle(self.replica.progress(self._now()))
        for e in events:
            if isinstance(e, Rejected) and e.sender == self.seat:
                log.warning("proxy for seat %s refused: %s", held, e.reason)

    def _set_held(self, seat: int, holder: int | None) -> None:
        if 0 <= seat < len(self.info.seats):
            self.info.seats[seat].held_by_bot = holder is not None
            self.info.seats[seat].held_by = holder

    def _tell_motion(self, ev: Motion) -> None:
        """A motion moved on: the seat list and a notice.

        Nobody is said to withhold anything until the table agreed (every other
        seat's replica judged it on its own clock); a motion the seat beat is
        told with the names of the seats that moved it (``Motion.movers``).
        """
        who = self._who(ev.seat)
        t = self.timing
        if ev.outcome == "open":
            by = self._who(ev.by) if ev.by is not None else _("a seat")
            if ev.motion == "hold" and ev.seat == self.seat:
                text = _(
                    "{mover} moved to let a bot hold your seat; a seat that acts in time keeps it"
                ).format(mover=by)
            elif ev.motion == "hold":
                text = _(
                    "{mover} moved to let a bot hold the seat of {seat}; each seat joins only "
                    "once it has seen that seat gone for {secs} s itself"
                ).format(mover=by, seat=who, secs=f"{t.hold_after:g}")
            elif ev.seat == self.seat:
                text = _(
                    "{mover} moved to void the round, saying you withhold your part; "
                    "your part keeps the round if it comes in time"
                ).format(mover=by)
            else:
                text = _(
                    "{mover} moved to void the round, saying {seat} withholds its part; each "
                    "seat joins only once it has waited {secs} s on that seat itself"
                ).format(mover=by, seat=who, secs=f"{t.stall:g}")
        elif ev.outcome == "held":
            self._set_held(ev.seat, ev.holder)
            run_by = _("you") if ev.holder == self.seat else f"seat {ev.holder}"
            if ev.seat == self.seat:
                text = _(
                    "you were away: a bot (run by {holder}) holds your seat; "
                    "you take it back at your next turn"
                ).format(holder=run_by)
            else:
                text = _("{seat} dropped; a bot (run by {holder}) holds the seat").format(
                    seat=who, holder=run_by
                )
        elif ev.outcome == "voided":
            text = _(
                "the round was voided: {seat} withheld its part past the timeout; "
                "earlier rounds stand"
            ).format(seat=who)
        elif ev.outcome == "declined" and ev.movers:
            movers = join_items(self._who(m) for m in ev.movers)
            log.warning(
                "motion to %s seat %s refused: it acted in time; moved early by %s",
                ev.motion,
                ev.seat,
                ", ".join(f"seat {m}" for m in ev.movers),
            )
            if ev.motion == "hold":
                text = _(
                    "{seat} acted in time: the motion by {movers} to hold that seat was refused"
                ).format(seat=who, movers=movers)
            else:
                text = _(
                    "{seat} acted in time: the motion by {movers} to void the round was refused"
                ).format(seat=who, movers=movers)
        elif ev.outcome == "declined":
            text = _("{seat} acted in time: the motion about that seat was declined").format(
                seat=who
            )
        else:
            text = _("the motion to void the round was refused: the game cannot void it here")
        self.notices.put_nowait(Notice("net", text))

    def _on_motion(self, ev: Motion, via: object) -> bool:
        self._tell_motion(ev)
        return True

    def _on_released(self, ev: Released, via: object) -> bool:
        self._set_held(ev.seat, None)
        text = (
            _("{who} is back and takes the seat again").format(who=self._who(ev.seat))
            if ev.seat != self.seat
            else _("you are back: your seat is yours again")
        )
        self.notices.put_nowait(Notice("net", text))
        return True
