"""The deck as it passes from seat to seat: the shuffle steps, then the re-lock steps (2-3).

Why an object of its own: a seat's :class:`~zsy_lan.deal.mental.DealPeer`
checks and records every deck message, and computes its own step ahead when it
transforms the deck next; that chain (the decks so far, the step computed
ahead and the decks already validated) is one piece of state with one job.
The peer gives it the seat's two transforms as callables (an adversarial test
peer overrides them on the peer) and asks it for the decks.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from zsy_lan.deal import group
from zsy_lan.deal.deal_errors import (
    BadPoint,
    CheatDetected,
    MalformedMessage,
    NotReady,
    ProtocolViolation,
)
from zsy_lan.deal.group import Point, hash_parts
from zsy_lan.deal.messages import Relock, Shuffle

Step = Callable[[list[Point]], list[Point]]


class DeckChain:
    """Every seat's shuffle and re-lock of one deal's deck, in seat order, as one peer saw them.

    ``n`` seats, ``m`` slots; ``seat`` is the peer's own. ``shuffle`` and
    ``relock`` are the peer's own steps; ``revealed()`` says whether the peer
    has revealed its secrets (it takes no step after that). ``eager_validation``
    as :class:`~zsy_lan.deal.mental.DealPeer` documents it.
    """

    def __init__(
        self,
        n: int,
        m: int,
        seat: int,
        *,
        shuffle: Step,
        relock: Step,
        revealed: Callable[[], bool],
        eager_validation: bool,
    ) -> None:
        self.n, self.m, self.seat = n, m, seat
        self.eager_validation = eager_validation
        self._shuffle = shuffle
        self._relock = relock
        self._revealed = revealed
        self.shuffles: list[tuple[Point, ...]] = []  # output of seat j at index j
        self.relocks: list[tuple[Point, ...]] = []
        self.final: tuple[Point, ...] | None = None
        self._next_step: list[Point] | None = None
        # verify() results kept for the apply that follows it (a table checks, then applies)
        self._step_cache: dict[tuple[str, int, bytes], list[Point] | BadPoint] = {}
        self._valid_decks: set[bytes] = set()

    def acting_on(self, msg: Shuffle, own: bool) -> bool:
        """Whether this peer transforms the deck in ``msg`` next (its own step follows)."""
        j = msg.sender
        relock = type(msg) is Relock
        return (
            not own
            and not self._revealed()
            and (
                (not relock and self.seat == j + 1)
                or (not relock and j == self.n - 1 and self.seat == 0)
                or (relock and self.seat == j + 1)
            )
        )

    def verify(self, msg: Shuffle, own: bool, commits: int) -> None:
        """Check a deck message (``commits``: how many seats have committed); no change."""
        j = msg.sender
        relock = type(msg) is Relock
        step = "relock" if relock else "shuffle"
        done = self.relocks if relock else self.shuffles
        if commits < self.n:
            raise NotReady
        if relock and len(self.shuffles) < self.n:
            raise NotReady
        if len(done) > j:
            raise ProtocolViolation(f"second {step} step", culprit=j, step=step)
        if len(done) < j:
            raise NotReady
        if len(msg.points) != self.m:
            raise MalformedMessage(
                f"{len(msg.points)} points for {self.m} slots", culprit=j, step=step
            )
        if own:
            return
        if len(set(msg.points)) != self.m:
            raise CheatDetected("the deck holds the same point twice", culprit=j, step=step)
        digest = hash_parts(b"zsy-deck", step, j, b"".join(msg.points))
        if self.acting_on(msg, own):
            # the masking validates each input point too (libsodium), naming j
            key = (step, j, digest)
            if key not in self._step_cache:
                pts: list[Point] | BadPoint
                try:
                    if not relock and j < self.n - 1:
                        pts = self._shuffle(list(msg.points))
                    else:
                        pts = self._relock(list(msg.points))
                except BadPoint as err:
                    if self.eager_validation:
                        raise  # every peer validates: every peer refuses it here
                    pts = err  # only this peer has looked: ingest() reports it, privately
                self._step_cache[key] = pts
        elif self.eager_validation and digest not in self._valid_decks:
            for x in msg.points:
                group.validate_point(x, sender=j, what=f"{step} point")
            self._valid_decks.add(digest)

    def apply(self, msg: Shuffle, own: bool) -> None:
        """Record a checked deck message; keep this peer's next step if it computed one."""
        j = msg.sender
        relock = type(msg) is Relock
        step = "relock" if relock else "shuffle"
        done = self.relocks if relock else self.shuffles
        step_pts: list[Point] | BadPoint | None = None
        if self.acting_on(msg, own):
            digest = hash_parts(b"zsy-deck", step, j, b"".join(msg.points))
            step_pts = self._step_cache.pop((step, j, digest))
        done.append(tuple(msg.points))  # type: ignore[arg-type]
        if relock and j == self.n - 1:
            self.final = tuple(msg.points)  # type: ignore[arg-type]
        if isinstance(step_pts, BadPoint):
            raise step_pts  # the deck moved on publicly; this peer cannot take its step
        if step_pts is not None:
            self._next_step = step_pts

    def take_step(self, fn: Step, prev: Sequence[Point]) -> list[Point]:
        """This peer's step on ``prev``: the one computed ahead, else ``fn`` now."""
        if self._next_step is not None:
            return list(self._next_step)
        return fn(list(prev))

    def stepped(self) -> None:
        """This peer's own step is in the transcript: the one computed ahead is spent."""
        self._next_step = None
