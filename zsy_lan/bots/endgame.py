"""An exact endgame solver for one sampled world: does this side go out first?

Why: the ``hard`` level judges a candidate move by playing the round out in
sampled worlds, every seat following its planner split (:mod:`.rollout`). Near
the end of a hand that model is the weak point: a rollout may miss the one
order of plays that wins (lead the control first, then the pair; keep the bomb
for the landlord's last single), or credit the opponents with a mistake they
would not make. Once few cards are left the whole game tree of the sampled
world is small enough to search exactly, so the rollout hands over to this
solver: perfect play by both sides *in that world* (the usual determinized
search, whose worlds are then averaged over by :mod:`.search`).

The game solved is the rollouts' own (rank counts, the trick, who owns it,
passes): the side to move wins if some move wins (the seat's side), and loses
if every move loses; the opponents' seats are the other side. It applies to
games with exactly two sides that are decided by the first seat to go out:
Dou Dizhu (the landlord against the farmers, DDZ-4.1, DDZ-5.1) and
partnerships (the Upstream's team, ZSY-9). Results are memoised by position,
so the worlds and candidates of one decision share their work.

Determinism: the search is bounded by a count of expanded positions, never a
clock, so the answer depends on the position alone; when the count runs out
the solver answers ``None`` and the rollout plays on as before.
"""

from __future__ import annotations

from collections.abc import Sequence

from zsy_lan.engine.combos import Combo, Play, legal_plays
from zsy_lan.engine.rules import Rules

# Positions one solve may expand before it gives up (the rollout then plays on).
SOLVE_NODES = 1500
# Positions the memo keeps before it is cleared (bounds the memory of a decision).
MEMO_LIMIT = 200_000

Key = tuple[tuple[tuple[int, ...], ...], Combo | None, int, int, int]


class _Capped(Exception):
    """The node allowance of a solve ran out."""


class EndgameSolver:
    """Exact win/loss of small positions for the side of ``me`` (see the module text)."""

    def __init__(
        self, rules: Rules, sides: Sequence[frozenset[int]], me: int, *,
        node_cap: int = SOLVE_NODES,
    ) -> None:
        self.rules = rules
        self.n = len(sides)
        # True for the seats of ``me``'s side
        self.ours = [s in sides[me] for s in range(self.n)]
        self.node_cap = node_cap
        self.memo: dict[Key, bool] = {}
        self._moves: dict[tuple[tuple[int, ...], Combo | None], list[Play]] = {}
        self.nodes = 0  # positions expanded by the current solve
        self.solved = 0  # solves that finished (statistics for the bench)
        self.capped = 0  # solves that ran out of nodes

    def solve(
        self,
        hands: Sequence[Sequence[int]],
        last: Combo | None,
        owner: int,
        turn: int,
        passes: int,
    ) -> bool | None:
        """Does ``me``'s side go out first with best play from here? ``None``: too big.

        ``hands``: rank counts per seat (nobody out yet); ``last``/``owner``: the
        play to beat and its seat (``None``/any when ``turn`` leads);
        ``passes``: passes since that play.
        """
        if len(self.memo) > MEMO_LIMIT:
            self.memo.clear()
            self._moves.clear()
        self.nodes = 0
        try:
            won = self._win(tuple(tuple(h) for h in hands), last, owner, turn, passes)
        except _Capped:
            self.capped += 1
            return None
        self.solved += 1
        return won

    def _plays(self, hand: tuple[int, ...], last: Combo | None) -> list[Play]:
        """Rank-count plays of ``hand`` against ``last``, the most cards first."""
        key = (hand, last)
        hit = self._moves.get(key)
        if hit is None:
            hit = [p for p in legal_plays(self.rules, hand, last) if p.cards is None]
            # shedding many cards first finds a win (or a refutation) sooner
            hit.sort(key=lambda p: -len(p.ranks))
            self._moves[key] = hit
        return hit

    def _win(
        self,
        hands: tuple[tuple[int, ...], ...],
        last: Combo | None,
        owner: int,
        turn: int,
        passes: int,
    ) -> bool:
        if last is None:
            owner, passes = -1, 0
        key = (hands, last, owner, turn, passes)
        hit = self.memo.get(key)
        if hit is not None:
            return hit
        self.nodes += 1
        if self.nodes > self.node_cap:
            raise _Capped
        ours = self.ours[turn]
        hand = hands[turn]
        left = sum(hand)
        plays = self._plays(hand, last)
        n = self.n
        nxt = (turn + 1) % n
        # going out ends the hand: the mover's side wins, nothing else to search
        for p in plays:
            if len(p.ranks) == left:
                self.memo[key] = ours
                return ours
        children: list[tuple[tuple[tuple[int, ...], ...], Combo | None, int, int, int]] = []
        for p in plays:
            h = list(hand)
            for r in p.ranks:
                h[r] -= 1
            hs = hands[:turn] + (tuple(h),) + hands[turn + 1:]
            children.append((hs, p.combo, turn, nxt, 0))
        if last is not None:
            if passes + 1 >= n - 1:
                child = (hands, None, -1, owner, 0)  # the trick is the owner's: it leads
            else:
                child = (hands, last, owner, nxt, passes + 1)
            # not overtaking the own side first: the usual right play, found sooner
            if self.ours[owner] == ours:
                children.insert(0, child)
            else:
                children.append(child)
        result = not ours  # no move found that wins for the mover's side
        for c in children:
            if self._win(*c) == ours:
                result = ours
                break
        self.memo[key] = result
        return result
