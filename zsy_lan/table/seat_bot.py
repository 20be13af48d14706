"""This seat's own moves that need no player: its bot's, and the private deal's owed steps.

Why a component of its own (issue #23): the seated peer carries out the
replica's events; deciding a bot's move is another concern. A :class:`SeatBot`
reads the table through a :class:`~zsy_lan.table.seat_view.SeatView` and acts
through the callables it is given. The bot thinks in a worker thread on a
snapshot of its view (states are immutable), so a slow bot (``hard``, an
external program) never stalls heartbeats or relaying; its answer is used only
if nothing moved meanwhile.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any

from zsy_lan.engine.errors import PluginError
from zsy_lan.engine.rules import Rules
from zsy_lan.engine.state import Action, RoundState
from zsy_lan.protocol import Event, Rejected
from zsy_lan.table.seat_view import SeatView

log = logging.getLogger("zsy.peer")  # the peer's log: the same lines as before the split

# A bot's decision: (rules, the seat's view, seat) -> action. Runs in a worker thread.
Decider = Callable[[Rules, RoundState, int], Action]

__all__ = ["Decider", "SeatBot"]


class SeatBot:
    """A bot seat's turns (``zsy join --bot``, a host's bot seats); the deal steps a seat owes.

    ``decider()``: the seat's bot now (``None``: a human's seat; ``zsy join --bot``
    sets it after the peer is made). ``can_act()``: the replica waits on this seat.
    ``payload(action)``: the feed action for a move (``ValueError`` when it cannot
    be made). ``act(payload)``: sign, send and apply it (its events back).
    ``look_again()``: the game moved while the bot thought. ``live()``: False once
    the seat stopped. ``plugin_failed(exc)``: a rules plugin raised while the bot
    thought (the seat stops on it as a local fault).
    """

    def __init__(
        self,
        view: SeatView,
        rules: Rules,
        *,
        decider: Callable[[], Decider | None],
        can_act: Callable[[], bool],
        payload: Callable[[Action], dict[str, Any]],
        act: Callable[[dict[str, Any]], list[Event]],
        look_again: Callable[[], None],
        live: Callable[[], bool],
        plugin_failed: Callable[[PluginError], None] | None = None,
    ) -> None:
        self.view = view
        self.seat = view.seat
        self.rules = rules
        self._decider, self._can_act, self._payload = decider, can_act, payload
        self._act, self._look_again, self._live = act, look_again, live
        # a rules plugin raised while the bot weighed its moves: the seat's local fault
        # (retrying would fail the same way, and the table would wait on it for ever)
        self._plugin_failed = plugin_failed
        self._thinking: asyncio.Future[Action] | None = None
        self._authoring = False  # author_owed is running (its acts must not start it again)

    def follow_up(self) -> None:
        """After the replica moved: think when the game waits on this bot seat."""
        game = self.view.game
        mine = self._decider() is not None and self._can_act() and not game.finished()
        if mine and game.wants_decision():  # not a step the private deal signs by itself
            self.decide()

    def author_owed(self) -> bool:
        """Private deal: sign the deal messages this seat owes, at once (they are no choice).

        Their secrets come from the per-deal secret fsynced to the journal when
        the deal started, so this never sends anything a restart could contradict.
        True when it signed any.
        """
        game = self.view.game
        if self._authoring:
            return False
        self._authoring = True
        acted = False
        try:
            while self._can_act() and not game.finished():
                action = game.local_action()
                if action is None:
                    break
                events = self._act(action)
                acted = True
                refused = [e for e in events if isinstance(e, Rejected) and e.sender == self.seat]
                if refused:
                    log.warning("private deal step refused: %s", refused[0].reason)
                    break
        finally:
            self._authoring = False
        return acted

    def decide(self) -> None:
        """Start the bot on this seat's view, unless it thinks already."""
        decider = self._decider()
        assert decider is not None
        if self._thinking is not None:
            return
        game = self.view.game
        view = game.view(self.seat)
        if view is None:
            return
        key = (len(game.log), len(game.seeds))
        loop = asyncio.get_running_loop()
        fut = loop.run_in_executor(None, decider, self.rules, view, self.seat)
        self._thinking = fut
        fut.add_done_callback(lambda f: self._decided(f, key))

    def _decided(self, fut: asyncio.Future[Action], key: tuple[int, int]) -> None:
        self._thinking = None
        if not self._live() or fut.cancelled():
            return
        try:
            action = fut.result()
        except PluginError as exc:
            log.warning("bot at seat %s: %s", self.seat, exc)
            if self._plugin_failed is not None:
                self._plugin_failed(exc)
            return
        except Exception as exc:  # noqa: BLE001 - a broken bot must not kill the peer
            log.warning("bot at seat %s failed: %s", self.seat, exc)
            return
        game = self.view.game
        if key != (len(game.log), len(game.seeds)) or not self._can_act():
            self._look_again()  # the game moved on while the bot thought: think again
            return
        try:
            payload = self._payload(action)
        except ValueError as exc:  # e.g. returning face down a card everybody saw
            payload = self._fallback_payload(exc)
            if payload is None:
                return
        for e in self._act(payload):
            if isinstance(e, Rejected) and e.sender == self.seat:
                log.warning("bot at seat %s refused: %s", self.seat, e.reason)

    def _fallback_payload(self, exc: Exception) -> dict[str, Any] | None:
        """The first legal move that can be made, when the bot's choice cannot."""
        log.info("bot at seat %s: %s; trying another legal move", self.seat, exc)
        for alt in self.view.game.legal(self.seat):
            try:
                return self._payload(alt)
            except ValueError:
                continue
        return None
