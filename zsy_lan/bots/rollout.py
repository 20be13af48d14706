"""The ``hard`` level's rollouts: every seat plays out its planner split.

Why: the search is only as good as its model of how the round goes on after a
candidate move. The greedy policy (smallest play that beats) is a poor model
of planner-level players: they keep their groups whole, lead their weakest
group and keep controls for the end. Here each seat of a sampled world gets
the ``normal`` planner's split of its hand *once* (a dynamic programme, the
costly part), and then every turn is a cheap scan of that seat's groups:

- lead: the weakest group (longest first); when at most one group is not a
  control (nothing the other seats hold can beat it), the controls and bombs
  first and the last group last; feed a partner about to go out; lead high
  when an opponent could go out on a small group;
- follow: go out if possible; never overtake the own side; the lowest group of
  the split that beats the play; when the trick's owner or an opponent is
  about to go out, the strongest play that beats (breaking a group: that seat
  is planned again) or a bomb; a bomb also when it leaves one group; no 2s
  or jokers as kickers of a low play with many cards left and no danger;
- keeps bombs whole for all of that.

The same split and the same decisions follow the planner's own rules of
thumb (see :mod:`.planner`), so a rollout plays out roughly what ``normal``
players would do in that world (on real positions it makes ``normal``'s move
92-94% of the time; the greedy policy 56-68%), at a small fraction of the
planner's cost per move. Rank counts only, no card ids, no engine states.
"""

from __future__ import annotations

from collections.abc import Sequence

from zsy_lan.bots.base import bomb_ranks, landlord_of
from zsy_lan.bots.endgame import SOLVE_NODES, EndgameSolver
from zsy_lan.bots.planner import Planner, minus, play_cost
from zsy_lan.bots.simulator import MAX_ROLLOUT_STEPS, Simulator, bomb_kind_names, next_seat
from zsy_lan.bots.value import ValueModel, features
from zsy_lan.engine.cards import BJ, TWO
from zsy_lan.engine.combos import Combo, Play, beats, legal_plays
from zsy_lan.engine.rules import Rules
from zsy_lan.engine.state import RoundState


class PlanSimulator(Simulator):
    """Rollouts where every seat follows its planner split (see the module text)."""

    def __init__(
        self, rules: Rules, view: RoundState, seat: int, planner: Planner, *, stakes: bool = False,
        endgame: int = 0, endgame_nodes: int = SOLVE_NODES, endgame_root: bool = False,
        value: ValueModel | None = None, value_depth: int = 0, value_mix: float = 1.0,
    ) -> None:
        super().__init__(rules, view, seat)
        self.planner = planner
        # Dou Dizhu stakes (DDZ-5.1): the landlord, and which bombs double the stake
        lord = landlord_of(view)
        self.lord = lord if stakes else None
        # the learned value (:mod:`.value`, 3-seat Dou Dizhu only) ends a rollout after
        # ``value_depth`` plays (the candidate's included) instead of playing it out
        # (0: never; :meth:`prior` asks it right after a candidate all the same)
        self.value = value if value is not None and lord is not None \
            and rules.players == 3 and not view.finished else None
        self.value_depth = value_depth
        self.value_lord = lord if lord is not None else -1
        # 1.0: the model's value ends the rollout; below 1: the rollout is played out and
        # its score blended with the model's value at that depth (weight ``value_mix``)
        self.value_mix = value_mix
        self._valued: float | None = None
        self.doubling_bomb_len = 0 if rules.players == 3 else 6
        # Zheng Shangyou's point schemes (ZSY-8.2, 8.3): the points at the first out
        self.scheme = (
            rules.scoring if stakes and lord is None and rules.score_round is None
            and rules.teams is None and rules.scoring in ("penalty", "cardcount") else None
        )
        self.bomb_names = bomb_kind_names(rules)
        self._own: dict[tuple[int, ...], tuple[Play, ...]] = {}
        # the exact endgame (:mod:`.endgame`) once at most ``endgame`` cards are in
        # hands: only where two sides race to the first out and nobody is out yet
        two_sides = len(set(self.sides)) == 2
        self.endgame = (
            endgame if two_sides and self.scheme is None and not self.finished0 else 0
        )
        if endgame_root and sum(view.counts) > endgame:
            # only from a real position that is already small (not from the small
            # positions a rollout of a bigger one reaches)
            self.endgame = 0
        self.solver = (
            EndgameSolver(rules, self.sides, seat, node_cap=endgame_nodes) if self.endgame
            else None
        )

    def split(self, counts: Sequence[int]) -> tuple[Play, ...]:
        """The planner's groups for a hand (a fresh node allowance per hand)."""
        if not any(counts):
            return ()
        self.planner.spent = 0
        return self.planner.plan(counts).groups

    def prepare(self, world: list[list[int]]) -> list[tuple[Play, ...]]:
        """The splits of every other seat's hand in a sampled world (shared by the candidates)."""
        plans: list[tuple[Play, ...]] = [() for _ in range(self.n)]
        for s in self.others:
            plans[s] = self.split(world[s])
        return plans

    def own_split(self, move: Play | None) -> tuple[Play, ...]:
        """This seat's split after ``move`` (the same in every world: computed once)."""
        after = tuple(self.mine) if move is None else tuple(minus(self.mine, move.ranks))
        hit = self._own.get(after)
        if hit is None:
            hit = self._own[after] = self.split(after)
        return hit

    def rollout_plan(
        self, world: list[list[int]], plans: list[tuple[Play, ...]], move: Play | None
    ) -> float:
        """Play ``move``, then everyone by their split; 1.0 when this seat's side wins.

        Once a seat is already out, the score is this seat's place instead
        (1 for next out ... 0 for last), as in :meth:`Simulator.rollout`.
        """
        self._valued = None
        score = self._play_out(world, plans, move)
        if self._valued is None:
            return score
        w = self.value_mix
        return w * self._valued + (1.0 - w) * score

    def _play_out(
        self, world: list[list[int]], plans: list[tuple[Play, ...]], move: Play | None
    ) -> float:
        v = self.view
        n = self.n
        sides = self.sides
        me = self.seat
        hands = [list(h) for h in world]
        groups: list[list[Play] | None] = [list(g) for g in plans]
        groups[me] = list(self.own_split(move))
        left = [sum(h) for h in hands]
        finished = list(self.finished0)
        decided = bool(finished)
        last: Combo | None = v.trick_combo
        owner = v.trick_seat
        passes = v.passes
        turn = me
        play: Play | None = move
        lord = self.lord
        scheme = self.scheme
        track = lord is not None or scheme is not None
        plays = list(v.plays_made) if track and v.plays_made else [0] * n
        doublings = 0
        solver = self.solver
        for step in range(MAX_ROLLOUT_STEPS):
            if solver is not None and step and sum(left) <= self.endgame:
                won = solver.solve(hands, last, owner, turn, passes)
                solver = None  # one try per rollout: a position too big stays too big
                if won is not None:
                    if lord is None:
                        return 1.0 if won else 0.0
                    # the stake so far (a bomb among them the candidate's own): a bomb
                    # that does not win the hand doubles the loss
                    return stake_value(won, doublings, lord if won == (me == lord) else -1,
                                       lord, plays)
            if self.value_depth and self.value is not None and self._valued is None \
                    and step >= self.value_depth and (solver is None or sum(left) > self.endgame):
                # (the exact solver, when it can take over, knows better than the model)
                self._valued = self.valued(hands, groups, turn, last, owner, doublings)
                if self.value_mix >= 1.0:
                    return self._valued
            if step:
                play = self.policy(turn, hands, groups, left, last, owner, finished)
            if play is None:
                passes += 1
                active = n - len(finished)
                needed = active - 1 if owner not in finished else active
                if passes >= needed:
                    last = None
                    passes = 0
                    turn = owner if owner not in finished else next_seat(owner, n, finished)
                    owner = -1
                    continue
                turn = next_seat(turn, n, finished)
                continue
            h = hands[turn]
            for r in play.ranks:
                h[r] -= 1
            left[turn] -= len(play.ranks)
            if step:
                gs = groups[turn]
                if gs is not None:
                    if play in gs:
                        gs.remove(play)
                    else:  # a group was broken: plan the rest again, when next needed
                        groups[turn] = None
            last = play.combo
            owner = turn
            passes = 0
            if track:
                plays[turn] += 1
            if lord is not None and last.kind in self.bomb_names and (
                last.kind == "rocket" or len(play.ranks) >= self.doubling_bomb_len
            ):
                doublings += 1
            if not left[turn]:
                finished.append(turn)
                if not decided:
                    won = turn in sides[me]
                    if scheme is not None:
                        return scheme_value(scheme, me, turn, hands, plays, self.start_cards)
                    if lord is None:
                        return 1.0 if won else 0.0
                    return stake_value(won, doublings, turn, lord, plays)
                if turn == me:
                    return 1.0 - (len(finished) - 1) / n
                if n - len(finished) <= 1:
                    return 0.0
            turn = next_seat(turn, n, finished)
        return 0.5

    def prior(self, world: list[list[int]], plans: list[tuple[Play, ...]], move: Play | None
              ) -> float:
        """The model's value of this world right after ``move`` (no rollout): a cheap prior.

        Why: the search can drop candidates the model calls far worse before the
        rollouts spend worlds on them (``HardBot(value_prior=...)``). The score is
        on :meth:`rollout_plan`'s scale. Needs a model (``value``).
        """
        saved = self.value_depth, self.value_mix
        self.value_depth, self.value_mix = 1, 1.0
        try:
            return self.rollout_plan(world, plans, move)
        finally:
            self.value_depth, self.value_mix = saved

    def valued(
        self, hands: list[list[int]], groups: list[list[Play] | None], turn: int,
        last: Combo | None, owner: int, doublings: int,
    ) -> float:
        """The learned value of a rollout cut short, on the scale of :func:`stake_value`.

        The model gives the landlord's chance ``p`` to win; this seat's side wins
        with ``q`` (``p`` or ``1 - p``), so the expected score is
        ``0.5 + m (q - 0.5)``, ``m`` the doublings' factor so far (1 without stakes).
        A hand's split cost (a feature) is the cost of the groups the rollout still
        holds for it (what is left of its planner split: no new split, which would
        cost more than the rest of the rollout), planned again only when broken.
        """
        assert self.value is not None
        costs = []
        for h, gs in zip(hands, groups, strict=True):
            if not any(h):
                costs.append(0.0)
            elif gs is not None:
                costs.append(sum(play_cost(self.rules, g) for g in gs))
            else:
                self.planner.spent = 0
                costs.append(self.planner.plan(h).cost)
        lord = self.value_lord
        p = self.value.predict(
            features(hands, costs, lord, turn, last, owner if last is not None else -1,
                     self.bomb_names)
        )
        q = p if self.seat == lord else 1.0 - p
        m = 2**doublings if self.lord is not None else 1
        return 0.5 + m * (q - 0.5)

    def policy(
        self,
        s: int,
        hands: list[list[int]],
        groups: list[list[Play] | None],
        left: list[int],
        last: Combo | None,
        owner: int,
        finished: list[int],
    ) -> Play | None:
        """Seat ``s``'s move by its split (see the module text)."""
        rules = self.rules
        gs = groups[s]
        if gs is None:
            gs = groups[s] = list(self.split(hands[s]))
        total = left[s]
        side = self.sides[s]
        bomb_names = self.bomb_names
        if last is None:
            if len(gs) == 1:
                return gs[0]
            return self._lead(s, hands, gs, left, self._opp_min(side, left, finished), finished)
        if owner in side:
            if len(gs) == 1 and beats(rules, gs[0].combo, last):
                return gs[0]  # going out is always right
            return None
        best: Play | None = None
        kicked: Play | None = None  # the best group using a 2 or a joker as a kicker
        bomb: Play | None = None
        # without a variant's own comparison, a plain play beats a plain play of the
        # same kind and length with a higher key (ZSY-4.1, DDZ-4.2): no call needed
        plain_rule = rules.beats_override is None
        l_kind, l_len, l_key = last
        last_bomb = l_kind in bomb_names
        for g in gs:
            c = g.combo
            if c.kind in bomb_names:
                if (last_bomb or not plain_rule) and not beats(rules, c, last):
                    continue
                if len(g.ranks) == total:
                    return g
                if bomb is None or len(g.ranks) < len(bomb.ranks):
                    bomb = g
                continue
            if last_bomb:
                continue
            if plain_rule:
                if c.kind != l_kind or c.length != l_len or c.key <= l_key:
                    continue
            elif not beats(rules, c, last):
                continue
            if len(g.ranks) == total:
                return g
            if total > 8 and c.key < 11 and max(g.ranks) >= 12:
                if kicked is None or c.key < kicked.combo.key:
                    kicked = g
            elif best is None or c.key < best.combo.key:
                best = g
        if best is not None:
            return best
        owner_left = left[owner] if owner >= 0 else 99
        danger = owner_left <= 3 or self._opp_min(side, left, finished) <= 2
        if kicked is not None and danger:
            # with many cards left and no danger, no 2s or jokers as kickers of a low play
            return kicked
        if danger:
            h = hands[s]
            held = bomb_ranks(rules, h)
            strong: Play | None = None
            if plain_rule and l_kind == "single":
                # the common case, without generating every play: the highest single
                for r in range(len(h) - 1, l_key, -1):
                    if h[r] and r not in held:
                        return Play(Combo("single", 1, r), (r,))
                return bomb if bomb is not None else None
            for p in legal_plays(rules, h, last):
                if p.cards is not None or p.combo.kind in bomb_names:
                    continue
                if held and any(r in held for r in p.ranks):
                    continue
                if strong is None or p.combo.key > strong.combo.key:
                    strong = p
            if strong is not None:
                return strong
        if bomb is not None and (danger or len(gs) <= 2):
            return bomb
        return None

    def _opp_min(self, side: frozenset[int], left: list[int], finished: list[int]) -> int:
        """The fewest cards an opponent of ``side`` still holds."""
        out = 99
        for o in range(self.n):
            if left[o] < out and o not in side and o not in finished:
                out = left[o]
        return out

    def _lead(
        self,
        s: int,
        hands: list[list[int]],
        gs: list[Play],
        left: list[int],
        opp_min: int,
        finished: list[int],
    ) -> Play:
        rules = self.rules
        bomb_names = self.bomb_names
        plain = [g for g in gs if g.combo.kind not in bomb_names]
        bombs = [g for g in gs if g.combo.kind in bomb_names]
        if len(plain) <= 2 and (bombs or plain):
            # near the end: controls (nothing the others hold beats them) run it home
            pool = [0] * len(hands[s])
            for o in range(self.n):
                if o != s and o not in finished:
                    for r, c in enumerate(hands[o]):
                        pool[r] += c
            controls = [g for g in plain if not legal_plays(rules, pool, g.combo)]
            weak = [g for g in plain if g not in controls]
            if len(weak) <= 1 and (controls or bombs):
                if controls:
                    return max(controls, key=lambda g: len(g.ranks))
                return bombs[0]
        side = self.sides[s]
        need = 99
        for p in side:
            if p != s and p not in finished and left[p] <= 2 and left[p] < need:
                need = left[p]
        if need <= 2 and opp_min > 1:
            # feed the partner about to go out: the lowest play of the size they hold
            feed = [g for g in plain if len(g.ranks) == need]
            if feed:
                return min(feed, key=lambda g: g.combo.key)
        if not plain:
            return bombs[0]
        if opp_min <= 2 and all(len(g.ranks) <= opp_min for g in plain):
            return max(plain, key=lambda g: g.combo.key)  # they could go out on it: lead high

        def lead_key(g: Play) -> tuple[int, int, int]:
            size = len(g.ranks)
            risky = 1 if opp_min <= 2 and size <= opp_min else 0
            return (risky, g.combo.key - min(size, 6), -size)

        return min(plain, key=lead_key)


def stake_value(won: bool, doublings: int, winner: int, lord: int, plays: list[int]) -> float:
    """A finished Dou Dizhu rollout scored by its stake (DDZ-5.1), on the win/loss scale.

    Why: a bot that only counts wins bombs whenever a bomb does not lower its
    chances, though each bomb doubles what it risks. Here a win is worth
    ``0.5 + m/2`` and a loss ``0.5 - m/2``, ``m`` the factor the rollout added
    (2 per doubling bomb or rocket, 2 for a spring); with ``m = 1`` that is the
    plain 1/0, so the search's margins keep their meaning.
    """
    if winner == lord:
        spring = all(p == 0 for s, p in enumerate(plays) if s != lord)
    else:
        spring = plays[lord] <= 1
    m = (2**doublings) * (2 if spring else 1)
    return 0.5 + (0.5 * m if won else -0.5 * m)


def scheme_value(
    scheme: str, me: int, winner: int, hands: list[list[int]], plays: list[int], norm: int
) -> float:
    """A Zheng Shangyou rollout ended by the first out, scored by the table's points.

    Why: under ``penalty`` (ZSY-8.2: 1 a card, 2 a 2, 3 a joker still held) and
    ``cardcount`` (ZSY-8.3: -1 a card, -2 each with 10+ left, 12+ with 3 players,
    -3 each if none was played; the first out takes the sum) a lost round is not
    all lost: shedding the costly cards counts. Scaled by ``norm`` (a full
    hand's size) so going out is about 1 and a typical loss about 0, as with
    the plain win/loss score, and the search's margins keep their meaning.
    """
    n = len(hands)
    if scheme == "penalty":
        h = hands[me]
        pen = sum(c * (3 if r >= BJ else 2 if r == TWO else 1) for r, c in enumerate(h))
        return 1.0 - pen / norm
    threshold = 12 if n == 3 else 10
    pts = [0] * n
    for s in range(n):
        left = sum(hands[s])
        if left:
            pts[s] = -left * (3 if plays[s] == 0 else 2 if left >= threshold else 1)
    pts[winner] = -sum(pts)
    return 0.5 + 0.5 * pts[me] / norm
