"""Sampled worlds and the fast rollout on rank counts: the ``hard`` level's model of a round.

Why apart from :mod:`.search`: the search decides which candidate to play; this
module holds what both rollout kinds share (a consistent deal of the unseen
cards, the greedy rollout and its policy), so :mod:`.rollout`'s planner-led
rollouts build on it without reaching back into the search that uses them.
Rank counts only, no card ids, no engine states.
"""

from __future__ import annotations

from collections.abc import Sequence

from zsy_lan.bots.base import bomb_ranks, known_holdings, side_of, unseen_counts
from zsy_lan.engine.cards import NUM_RANKS, RANK_OF, TWO
from zsy_lan.engine.combos import Combo, Play, legal_plays
from zsy_lan.engine.rules import Rules
from zsy_lan.engine.shuffle import HashStream
from zsy_lan.engine.state import RoundState

# A rollout that runs this long is cut off and counted as a draw (0.5).
MAX_ROLLOUT_STEPS = 400


class Simulator:
    """Plays rounds out on rank counts from one seat's view, for sampled worlds."""

    def __init__(
        self, rules: Rules, view: RoundState, seat: int, *, shaped: bool = False,
        split_aware: bool = False,
    ) -> None:
        self.shaped = shaped
        self.split_aware = split_aware
        self.rules = rules
        self.view = view
        self.seat = seat
        n = rules.players
        self.n = n
        self.sides = [side_of(rules, view, s) for s in range(n)]
        self.my_side = self.sides[seat]
        self.finished0 = list(view.finished)
        hand = view.hands[seat] or ()
        self.mine = [0] * NUM_RANKS
        for c in hand:
            self.mine[RANK_OF[c]] += 1
        pool = unseen_counts(rules, view, seat)
        self.known: dict[int, list[int]] = {}
        for s, cards in known_holdings(view, seat).items():
            ranks = [RANK_OF[c] for c in cards]
            ok = []
            for r in ranks:
                if pool[r] > 0:
                    pool[r] -= 1
                    ok.append(r)
            self.known[s] = ok
        self.pool = [r for r in range(NUM_RANKS) for _ in range(pool[r])]
        self.others = [s for s in range(n) if s != seat and s not in view.finished]
        self.start_cards = max(1, max(rules.hand_sizes()) + rules.kitty_size)

    def sample(self, stream: HashStream) -> list[list[int]]:
        """One consistent deal of the unseen cards: rank counts for every seat."""
        pool = list(self.pool)
        for i in range(len(pool) - 1, 0, -1):
            j = stream.uniform(i + 1)
            pool[i], pool[j] = pool[j], pool[i]
        hands = [[0] * NUM_RANKS for _ in range(self.n)]
        hands[self.seat] = list(self.mine)
        pos = 0
        for s in self.others:
            h = hands[s]
            known = self.known.get(s, ())
            for r in known:
                h[r] += 1
            need = max(0, self.view.counts[s] - len(known))
            for r in pool[pos : pos + need]:
                h[r] += 1
            pos += need
        return hands

    def rollout(self, world: list[list[int]], move: Play | None) -> float:
        """Play ``move`` then the fast policy for everyone; 1.0 when this seat's side wins."""
        v = self.view
        hands = [list(h) for h in world]
        finished = list(self.finished0)
        decided = bool(finished)  # someone is already out: play for a good place
        last = v.trick_combo
        owner = v.trick_seat
        passes = v.passes
        turn = self.seat
        rules = self.rules
        n = self.n
        sides = self.sides
        for _step in range(MAX_ROLLOUT_STEPS):
            h = hands[turn]
            if turn == self.seat and _step == 0:
                play = move
            else:
                play = fast_policy(
                    rules, h, last, owner, turn, sides[turn], hands, finished, self.split_aware
                )
            if play is None:
                passes += 1
                active = n - len(finished)
                needed = active - 1 if owner not in finished else active
                if passes >= needed:
                    # trick won: the owner leads (or the next seat if the owner is out)
                    last = None
                    passes = 0
                    turn = owner if owner not in finished else next_seat(owner, n, finished)
                    owner = -1
                    continue
                turn = next_seat(turn, n, finished)
                continue
            for r in play.ranks:
                h[r] -= 1
            last = play.combo
            owner = turn
            passes = 0
            if not any(h):
                finished.append(turn)
                if not decided:
                    if turn in self.my_side:
                        return 1.0
                    if not self.shaped:
                        return 0.0
                    # a loss, graded by how close this side came: a smoother signal
                    # than win/lose, so fewer worlds tell candidates apart
                    left = min(sum(hands[s]) for s in self.my_side if s not in finished)
                    return 0.25 * max(0.0, 1.0 - left / self.start_cards)
                if turn == self.seat:
                    place = len(finished) - 1
                    return 1.0 - place / n
                if n - len(finished) <= 1:
                    return 0.0
            turn = next_seat(turn, n, finished)
        return 0.5


def next_seat(seat: int, n: int, finished: Sequence[int]) -> int:
    """The seat after ``seat`` still in the round (``-1``: none): who plays next."""
    for i in range(1, n + 1):
        s = (seat + i) % n
        if s not in finished:
            return s
    return -1


def _splits(hand: list[int], play: Play) -> int:
    """1 when a same-rank play (single, pair, triple) leaves a remainder of its rank."""
    ranks = play.ranks
    r = ranks[0]
    if ranks[-1] != r:
        return 0
    return 1 if hand[r] > len(ranks) else 0


_BOMB_NAMES: dict[int, tuple[Rules, frozenset[str]]] = {}


def bomb_kind_names(rules: Rules) -> frozenset[str]:
    """Names of the bomb kinds (cached per rules object: the rollout's hot path)."""
    hit = _BOMB_NAMES.get(id(rules))
    if hit is not None and hit[0] is rules:
        return hit[1]
    if len(_BOMB_NAMES) > 64:
        _BOMB_NAMES.clear()
    names = frozenset(k.name for k in rules.bomb_kinds)
    _BOMB_NAMES[id(rules)] = (rules, names)
    return names


def fast_policy(
    rules: Rules,
    hand: list[int],
    last: Combo | None,
    owner: int,
    seat: int,
    side: frozenset[int],
    hands: list[list[int]],
    finished: list[int],
    split_aware: bool = False,
) -> Play | None:
    """A quick, sensible move on rank counts: the rollout policy of the ``hard`` level.

    Goes out when it can, leads its lowest group (longest first), follows with
    the smallest play that keeps bombs whole, never overtakes its own side,
    bombs only to stop an opponent close to going out.
    """
    total = sum(hand)
    bomb_names = bomb_kind_names(rules)
    if last is None:
        danger = min(
            (sum(hands[s]) for s in range(len(hands)) if s not in side and s not in finished),
            default=99,
        )
        danger = danger if danger <= 2 else 0
        plays = legal_plays(rules, hand, None)
        best = None
        best_key: tuple[int, int, int] | None = None
        bombs = bomb_ranks(rules, hand)
        for p in plays:
            if len(p.ranks) == total:
                return p
            if p.cards is not None or p.combo.kind in bomb_names:
                continue
            if bombs and any(r in bombs for r in p.ranks):
                continue
            k = (_splits(hand, p) if split_aware else 0, p.combo.key - min(len(p.ranks), 6),
                 -len(p.ranks))
            if danger and len(p.ranks) <= danger:
                k = (1, 100 - p.combo.key, 0)  # an opponent may go out on it: lead high
            if best_key is None or k < best_key:
                best, best_key = p, k
        if best is None:
            plays = [p for p in plays if p.cards is None]
            return min(plays, key=lambda p: (len(p.ranks) != total, p.combo.key)) if plays else None
        return best
    if owner in side:
        return None
    plays = legal_plays(rules, hand, last)
    if not plays:
        return None
    best = None
    best_k = (0, 0)
    bomb_best = None
    bombs = bomb_ranks(rules, hand)
    for p in plays:
        if p.cards is not None:
            continue
        if len(p.ranks) == total:
            return p
        if p.combo.kind in bomb_names:
            if bomb_best is None or len(p.ranks) < len(bomb_best.ranks):
                bomb_best = p
            continue
        if bombs and any(r in bombs for r in p.ranks):
            continue
        k = (_splits(hand, p) if split_aware else 0, p.combo.key)
        if best is None or k < best_k:
            best, best_k = p, k
    owner_left = sum(hands[owner]) if owner >= 0 else 99
    if best is not None:
        calm = owner_left > 4 and total > 6
        # keep top cards (2s, jokers) while the table is calm and the hand is long
        if calm and total > 8 and best.combo.key >= TWO and last.key < TWO - 3:
            return None
        if calm and best_k[0]:
            return None  # would split a pair or triple: wait for a better moment
        return best
    if bomb_best is not None and (owner_left <= 4 or total - len(bomb_best.ranks) <= 3):
        return bomb_best
    return None
