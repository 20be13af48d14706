"""The replica's timer settings: the only things in the protocol that depend on time.

Why a module of its own: the replica and its parts (motions, liveness, the
have/want bookkeeping, the restart catch-up) all read these, and none of them
may import the replica that wires them.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["TICK", "Timing"]

TICK = 0.1  # how often the shell should call tick(), in seconds


@dataclass(frozen=True)
class Timing:
    """Timer settings (seconds). Only liveness and retries depend on time, never the game."""

    heartbeat: float = 1.0  # periodic heartbeat with the have summary
    have_min: float = 0.5  # least gap between on-change have summaries (each costs a verify)
    want_retry: float = 0.3  # re-ask for a gap, from the next candidate peer
    peer_timeout: float = 3.5  # silent this long: reported disconnected
    stall: float = 10.0  # waiting this long on a seat: reported stalled
    stall_repeat: float = 60.0  # the same stall reported again after this long
    hold_after: float = 10.0  # the shell moves to hold a seat disconnected this long at its turn
    #: a seat that came back while the table waited on it has this long to move before a
    #: void about it is backed again (a player who resumed needs a moment to see the table)
    back_grace: float = 60.0
    catch_up: float = (
        3.0  # after a restart, own actions wait this long at most for the others' news
    )
