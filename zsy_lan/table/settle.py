"""Received plays told to the player a moment later, once a burst of frames is over.

Why a component of its own (issue #23): a seated peer applies and records a
play at once, but neither telling it nor hashing the new state is needed to
apply the next frame sooner: a frame that comes first computes the hash itself
(the game caches it either way), and a play told 10 ms later looks no
different in a terminal. On a shared CPU (bots, or a whole table on one
machine) the other peers are applying the same frame right then, and the
table's latency is the last of them: waiting :data:`SETTLE` lets them go first.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from zsy_lan.protocol import Applied

# Seconds after applying a play before the new state hash is computed and the
# play is told to this seat's user (see Settle.later).
SETTLE = 0.01

__all__ = ["SETTLE", "Settle"]


class Settle:
    """The plays applied but not told yet, and the one call that tells them ``SETTLE`` later.

    ``tell(play)`` narrates one play, ``told()`` wakes the screen after some were,
    ``hash_now()`` computes the state hash, ``live()`` is False once the seat stopped.
    """

    def __init__(
        self,
        tell: Callable[[Applied], None],
        told: Callable[[], None],
        hash_now: Callable[[], object],
        live: Callable[[], bool],
    ) -> None:
        self._tell, self._told, self._hash_now, self._live = tell, told, hash_now, live
        self.pending: list[Applied] = []  # received plays not told to the user yet
        self._due = False  # a call of :meth:`now` is scheduled

    def later(self, played: Applied | None = None) -> None:
        """Hash the new state, and tell ``played`` to the user, once this burst is over."""
        if played is not None:
            self.pending.append(played)
        if self._due:
            return
        self._due = True
        asyncio.get_running_loop().call_later(SETTLE, self.now)

    def now(self) -> None:
        """Tell the plays applied meanwhile, in order, then compute the hash."""
        self._due = False
        if not self._live():
            return
        self.tell_pending()
        self._hash_now()  # cached by the game until its state changes

    def tell_pending(self) -> None:
        """Tell the plays not told yet, in order (other news must not overtake them)."""
        if not self.pending:
            return
        played, self.pending = self.pending, []
        for ev in played:
            self._tell(ev)
        self._told()
