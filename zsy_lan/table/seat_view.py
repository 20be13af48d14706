"""What a seated peer's components may read of the table: a small read-only view.

Why a module of its own (issue #23): the narration, the seat holding and the
other components of :class:`~zsy_lan.table.peer.TablePeer` used to be mixins that
read the peer's (and each other's) attributes. Each now gets what it needs at
construction: callables to send through, and this view of the table, which
answers the few questions they ask of the replica and the game and changes
nothing. The peer builds it from callables (its game is replaced on a rebuild),
so this module knows no peer.
"""

from __future__ import annotations

from collections.abc import Callable

from zsy_lan.engine.game import Game
from zsy_lan.protocol import Replica, Timing
from zsy_lan.table.session import SeatInfo

__all__ = ["SeatView"]


class SeatView:
    """The table as one seat's components see it: the game, the seat list, the replica's answers.

    ``game`` and ``replica`` are read when asked (the peer's game is replaced when
    the table rebuilds it); ``seats`` is the session's seat list.
    """

    def __init__(
        self,
        seat: int,
        seats: list[SeatInfo],
        game: Callable[[], Game],
        replica: Callable[[], Replica],
    ) -> None:
        self.seat = seat
        self.seats = seats
        self._game = game
        self._replica = replica

    @property
    def game(self) -> Game:
        """The game as this seat holds it now."""
        return self._game()

    @property
    def timing(self) -> Timing:
        """The table's timeouts (``hold_after``, ``stall``: the narration names them)."""
        return self._replica().timing

    def allows(self, motion: str) -> bool:
        """True when this table votes ``motion`` at all (``hold`` open deal, ``void`` private)."""
        return motion in self._replica().motions

    def can_void(self) -> bool:
        """True when a ``void`` motion may be moved now."""
        return self._replica().can_void()

    def position(self) -> str:
        """The transcript position motions name."""
        return self._replica().position()

    def next_seq(self, seat: int) -> int:
        """The seq of ``seat``'s next message here."""
        return self._replica().ledger.next_seq(seat)

    def held_back(self, seat: int) -> int:
        """How many of ``seat``'s later messages wait here behind a gap in its feed."""
        return self._replica().held_back(seat)

    def awaited(self) -> list[int]:
        """Seats the transcript waits on now."""
        return self._replica().awaited()

    def motion_wait(self, motion: str, seat: int, now: float) -> float:
        """Seconds before this seat's replica backs ``motion`` about ``seat`` (0: now)."""
        return self._replica().motion_wait(motion, seat, now)

    def any_held(self) -> bool:
        """True while a bot holds any seat of this table (cheap: the common case is none)."""
        return bool(self._replica().ledger.held)

    def proxy_due(self) -> list[int]:
        """Held seats this seat's bot must move for now."""
        return self._replica().proxy_due()

    def halted(self) -> bool:
        """True once a proven cheat stopped the table."""
        return self._replica().halted is not None

    def stopped(self, seat: int) -> str | None:
        """The local fault class ``seat`` said it stopped on (its signed ``bye``), or None."""
        return self._replica().stopped(seat)

    def back(self) -> bool:
        """True when this seat resumed and has not moved since (a void moved meanwhile
        does not stop its move: :meth:`~zsy_lan.protocol.motions.Mover.fair`)."""
        return self._replica().mover.back

    def connected(self, seat: int) -> bool:
        """Whether ``seat`` is connected as this seat last heard (a seat out of range: yes)."""
        seats = self.seats
        return not (0 <= seat < len(seats)) or seats[seat].connected
