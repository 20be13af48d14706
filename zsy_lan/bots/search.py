"""The ``hard`` level: sample the hidden hands, play each candidate out, keep the best.

Why this search: the bot cannot see other hands, but it knows a lot about
them (how many cards each holds, every card played, face-up tribute cards, a
shown kitty). It deals the unseen cards at random among the other seats many
times over (*determinization*), and for each such world plays the round out
from every candidate move, every seat following the ``normal`` planner's
split of its hand (:mod:`.rollout`), scoring whether its side wins (team
mates and fellow farmers count as one side). Candidates come from the
``normal`` planner's ranking, and the planner's first choice stands unless
the paired samples clearly favour another (a Dou Dizhu farmer asks for
less), so the search can only move away from the planner's move when the
evidence says so. Candidates that can no
longer win that comparison are dropped as the worlds come in, and the search
stops when none is left; while more than half the deck is still in hands
(long, uninformative rollouts) a seat playing alone spends only a quarter of
its budget (a seat with team mates, a partner or a Dou Dizhu farmer, spends
all of it: there the early worlds measurably pay).

Reproducibility: randomness comes from :class:`HashStream` seeded with the
bot's seed and the observed state; the number of sampled worlds is ``budget``
(``--budget``; ``max_iters`` when not given) and ``budget_ms`` (the wall clock
at a table, CPU time on request; ``None``: no clock at all) may only cut that
short. Benchmarks and tests give ``budget`` and no clock, so the choice depends
on the seed and the view alone, whatever the load of the machine.

Points, not only wins: in Dou Dizhu a rollout is scored by its stake
(:func:`.rollout.stake_value`: bombs and a spring double it), so a bomb that
only doubles what the side risks is not played for nothing; and a bomb is
never the default the other candidates must beat, and overrules the plain
move only when it also wins more worlds (:func:`bomb_must_prove`,
:func:`pick`), since the rollouts are optimistic about the side's chances.

Near the end of a hand a rollout hands over to an exact solver of its sampled
world (:mod:`.endgame`), in games of two sides.
"""

from __future__ import annotations

import hashlib
import time

from zsy_lan.bots.base import (
    Bot,
    Observation,
    going_out,
    landlord_of,
    side_of,
)
from zsy_lan.bots.endgame import SOLVE_NODES
from zsy_lan.bots.planner import NormalBot, Planner, Situation, breaks_bomb, exposed
from zsy_lan.bots.rollout import PlanSimulator
from zsy_lan.bots.simulator import Simulator, bomb_kind_names
from zsy_lan.bots.value import ValueModel, default_model
from zsy_lan.engine.cards import RANK_OF
from zsy_lan.engine.combos import Combo, Play, classify_cards
from zsy_lan.engine.phases import Phase
from zsy_lan.engine.round import legal_moves
from zsy_lan.engine.rules import Rules
from zsy_lan.engine.shuffle import HashStream
from zsy_lan.engine.state import PASS, PLAY, Action, RoundState
from zsy_lan.engine.view import state_hash

# Planner expansions per sampled hand before it settles greedily: the splits of
# sampled hands are the rollouts' main cost, and past this they gain little
# (a 17-card Dou Dizhu hand: 2.5 times faster, the split 0.3% dearer on average).
SPLIT_NODES = 40
# Cards left in all hands from which a rollout is finished by the exact solver.
ENDGAME_CARDS = 12
# How much better (in win rate) a candidate must be, beyond the confidence bound,
# to replace the planner's choice.
PICK_MARGIN = 0.02


def search_models(rules: Rules) -> bool:
    """Can the rollouts play this variant? They move rank counts, never card ids.

    They can when every hand can be played out by rank-count plays (a plain
    ``single`` kind exists) and no kind that reads the cards shares its name
    with a rank-count kind (a variant ranking singles by suit, as Big Two does,
    replaces or shadows ``single`` with a card kind: a rank-count rollout would
    then compare what the table does not). Kinds added on top of the rank
    kinds (house rules' straight flush) leave the model usable: the rollouts
    just never play them. Where this is False, ``hard`` plays its planner's pick.
    """
    rank_names = {k.name for k in rules.rank_kinds}
    return "single" in rank_names and not any(k.name in rank_names for k in rules.card_kinds)


class HardBot(Bot):
    """Determinized rollouts over the ``normal`` planner's best candidates."""

    level = "hard"

    def __init__(
        self,
        seed: bytes | int | str = 0,
        *,
        budget_ms: float | None = 400.0,
        max_iters: int = 150,
        candidates: int = 4,
        confidence: float = 1.0,
        farmer_confidence: float = 0.5,
        min_worlds: int = 8,
        clock: str = "wall",
        shaped: bool = False,
        split_aware: bool = False,
        search_below: int = 0,
        rollout: str = "plan",
        prune: bool = True,
        early_share: float = 0.25,
        team_early_share: float = 1.0,
        lord_early_share: float = 1.0,
        block: bool = True,
        budget: int | None = None,
        stakes: bool = True,
        endgame: int = ENDGAME_CARDS,
        endgame_nodes: int = SOLVE_NODES,
        bomb_proof: bool = True,
        endgame_root: bool = False,
        overtake: bool = True,
        value_depth: int = 0,
        value_model: str | None = None,
        value_mix: float = 1.0,
        value_prior: float = 0.0,
        reinvest: bool = False,
    ) -> None:
        super().__init__(seed)
        # sampled worlds per decision (``--budget``): with it the choice depends on
        # the seed and the view alone; ``budget_ms`` then only caps the answer time
        if budget is not None and budget < 1:
            raise ValueError("budget is a number of sampled worlds, at least 1")
        self.budget = budget
        # score rollouts by the stake (Dou Dizhu: bombs and a spring double it), not
        # only by who goes out first
        self.stakes = stakes
        # once at most this many cards are in hands, a rollout hands over to the exact
        # solver (:mod:`.endgame`, two-sided games only; 0: never), which gives up after
        # ``endgame_nodes`` positions (the rollout then plays on)
        self.endgame = endgame
        self.endgame_nodes = endgame_nodes
        self.endgame_root = endgame_root  # solve only when the real position is that small
        # a Dou Dizhu farmer may overtake its mate's winning play when the worlds show it
        # better (against the rule-based landlord its farmers win 78.2% of 1,002 hands,
        # 74.1% without);
        # False: never, as in partnerships
        self.overtake = overtake
        # a bomb the planner prefers must show itself better than the best plain move
        # (pass, when following) in the sampled worlds, not the other way round
        self.bomb_proof = bomb_proof
        self.budget_ms = budget_ms
        self.max_iters = max_iters
        self.candidates = candidates
        self.confidence = confidence
        # standard errors a Dou Dizhu farmer asks before overruling the planner: as a
        # farmer its overrides rarely hurt (1,002 hands: 56.9% at 0.5, 55.2% at 1.0)
        self.farmer_confidence = farmer_confidence
        self.min_worlds = min_worlds
        if clock not in ("wall", "cpu"):
            raise ValueError("clock is 'wall' (answer time) or 'cpu' (this process's CPU time)")
        # wall: the budget bounds the answer time at a live table; cpu: it bounds the
        # work done, so a loaded machine does not weaken the bot (benchmarks)
        self._clock = time.perf_counter if clock == "wall" else time.process_time
        self._normal = NormalBot(self.seed)
        self.last_iters = 0
        self.last_source = ""
        # experiment knobs of the greedy rollouts (``rollout="greedy"``), off by default:
        # both measured weaker against ``normal`` (4 players, 210 rounds: 51% and 45%)
        self.shaped = shaped  # grade a lost rollout by how close the side came
        self.split_aware = split_aware  # rollout players avoid splitting pairs/triples
        # search only when the cards left in all hands are at most this (0: always)
        self.search_below = search_below
        # "plan": every seat plays its planner split (default); "greedy": fast_policy
        if rollout not in ("plan", "greedy"):
            raise ValueError("rollout is 'plan' (planner splits) or 'greedy' (fast_policy)")
        self.rollout = rollout
        self.prune = prune  # drop hopeless candidates, stop when none is left
        # share of the budget spent while more than half the deck is still in hands
        self.early_share = early_share
        # the same for a seat with team mates (partnerships, Dou Dizhu farmers): its
        # result hangs on hidden hands, and the early worlds pay there (no discount)
        self.team_early_share = team_early_share
        # the same for the Dou Dizhu landlord: alone, but its early decisions pay
        # (against the rule-based farmers, 1,002 hands: 71.5% won at 1.0, 66.9% at 0.25)
        self.lord_early_share = lord_early_share
        # also weigh taking an opponent's trick with the strongest plain play
        self.block = block
        # the learned value (:mod:`.value`, 3-seat Dou Dizhu): a rollout ends after this
        # many plays and the model judges the rest (0: off, every rollout is played out);
        # ``value_model``: a model file other than the shipped one (experiments);
        # ``value_mix`` below 1: play the rollout out and blend (see PlanSimulator)
        self.value_depth = value_depth
        self.value_mix = value_mix
        # the model as a prior (3-seat Dou Dizhu): on the first ``min_worlds`` worlds it
        # judges every candidate right after its move, and a candidate whose mean falls
        # more than ``value_prior`` (on the rollout score's scale) below the planner's
        # choice is dropped before the rollouts spend worlds on it (0: off)
        self.value_prior = value_prior
        # the budget counts rollouts, not worlds: the rollouts a dropped candidate did not
        # need go to more worlds for the others (at most 3 times the worlds)
        self.reinvest = reinvest
        self.value: ValueModel | None = None
        if value_depth > 0 or value_prior > 0:
            self.value = ValueModel.load(value_model) if value_model else default_model()
            if self.value is None:
                raise ValueError(
                    "value_depth and value_prior need a model: none is shipped, give value_model")

    def choose(self, obs: Observation) -> Action:
        """The candidate with the best sampled win rate (the planner's pick on ties)."""
        self.last_source = "rule"  # (bench statistics: how the last choice was made)
        out = going_out(obs)
        if out is not None:
            return out  # nothing beats ending the hand: no search can prefer another move
        ranked = self._normal.ranked(obs, limit=self.candidates)
        view = obs.view
        if len(ranked) == 1 or view.phase != Phase.PLAY or not all(
            a.kind in (PLAY, PASS) for a in ranked
        ):
            return ranked[0]
        owner = view.trick_seat
        if view.trick is not None and owner != obs.seat and owner in side_of(
            obs.rules, view, obs.seat
        ):
            if self.overtake and landlord_of(view) is not None:
                # a Dou Dizhu farmer on its mate's winning play: passing is the default,
                # overtaking (to take the lead and run its own hand) must prove itself
                ranked = [a for a in ranked if a.kind == PASS] + [
                    a for a in ranked if a.kind != PASS]
            else:
                # the side's own winning play is never overtaken (only going out)
                left = view.counts[obs.seat]
                ranked = [a for a in ranked if a.kind == PASS or len(a.cards) == left]
                if len(ranked) == 1:
                    return ranked[0]
        if view.trick is None:
            ranked = drop_exposed(obs, ranked)
        if self.search_below and sum(view.counts) > self.search_below:
            return ranked[0]
        if not search_models(obs.rules):
            self.last_source = "unmodelled"  # the rollouts cannot play this variant: planner
            return ranked[0]
        cands = ranked[: self.candidates]
        pass_action = next((a for a in ranked if a.kind == PASS), None)
        if pass_action is not None and pass_action not in cands:
            cands.append(pass_action)
        if self.block and view.trick is not None and pass_action is not None:
            top = strongest_plain(obs, ranked)
            if top is not None and top not in cands:
                cands.append(top)
        if self.bomb_proof and landlord_of(view) is not None:
            cands = bomb_must_prove(obs, cands)  # (Dou Dizhu: where bombs double stakes)
        return self.search(obs, cands)

    def search(self, obs: Observation, cands: list[Action]) -> Action:
        """Evaluate ``cands`` (best prior first) over sampled worlds."""
        rules = obs.rules
        view = obs.view
        if rules.in_effect is not None:
            rules = rules.in_effect(rules, view)
        seat = obs.seat
        digest = hashlib.sha256(
            self.seed + b"\x00" + state_hash(view).encode() + b"\x00" + str(seat).encode()
        ).digest()
        stream = HashStream(b"zsy-hard\x00" + digest)
        moves = [_as_move(rules, view, seat, a) for a in cands]
        if self.rollout == "plan":
            psim = PlanSimulator(
                rules, view, seat, Planner(rules, node_cap=SPLIT_NODES), stakes=self.stakes,
                endgame=self.endgame, endgame_nodes=self.endgame_nodes,
                endgame_root=self.endgame_root, value=self.value, value_depth=self.value_depth,
                value_mix=self.value_mix,
            )
            sim: Simulator = psim
        else:
            sim = Simulator(rules, view, seat, shaped=self.shaped, split_aware=self.split_aware)
        k = len(cands)
        results: list[list[float]] = [[] for _ in range(k)]
        alive = list(range(1, k))  # the alternatives still able to overrule the planner
        budget = self.budget_ms if self.budget_ms is not None else float("inf")
        cap = self.max_iters if self.budget is None else self.budget
        if 2 * sum(view.counts) > len(rules.deck):
            # early in a round the rollouts are long and a few worlds rarely overrule
            # the planner: a lone seat thinks less there and keeps the full budget for
            # the later half; a seat with team mates gains from the early worlds too
            alone = len(side_of(rules, view, seat)) <= 1
            share = self.early_share if alone else self.team_early_share
            if landlord_of(view) == seat:
                share = self.lord_early_share
            budget *= share
            if self.budget is not None:
                cap = max(self.min_worlds, int(cap * share))
        deadline = self._clock() + budget / 1000.0 if budget != float("inf") else budget
        ahead: list[tuple[list[list[int]], list]] = []  # worlds the prior saw, rolled out next
        if self.value_prior > 0 and self.rollout == "plan" and psim.value is not None:
            alive = self._prior_cut(psim, stream, moves, alive, ahead)
            if not alive:
                self.last_iters = 0
                self.last_source = "planner"
                return cands[0]  # the model calls every alternative far worse
        rollouts = cap * k  # (reinvest: the budget in rollouts)
        max_worlds = 3 * cap if self.reinvest else cap
        iters = 0
        while iters < max_worlds and (not self.reinvest or rollouts > 0):
            if iters and deadline != float("inf") and self._clock() > deadline:
                break
            if ahead:
                world, plans = ahead.pop(0)
            else:
                world = self.sample_world(sim, stream)
                plans = psim.prepare(world) if self.rollout == "plan" else []
            if self.rollout == "plan":
                for i in [0, *alive]:
                    results[i].append(psim.rollout_plan(world, plans, moves[i]))
            else:
                for i in [0, *alive]:
                    results[i].append(sim.rollout(world, moves[i]))
            rollouts -= 1 + len(alive)
            iters += 1
            if self.prune and iters >= self.min_worlds:
                alive = [i for i in alive if not hopeless(results[i], results[0])]
                if not alive:
                    break  # nothing can overrule the planner any more: stop early
        self.last_iters = iters
        if iters < self.min_worlds:
            return cands[0]  # too few samples to overrule the planner
        must_win: frozenset[int] = frozenset()
        if self.bomb_proof and self.stakes and landlord_of(view) is not None:
            # a bomb must raise the side's chance to win, not only the stake: bombing a
            # hand the worlds call won doubles the points, but those worlds are
            # optimistic, and a bomb by the side that then loses doubles the loss
            must_win = frozenset(i for i, a in enumerate(cands) if is_bomb_action(rules, a))
        best = pick(results, self.confidence_for(rules, view, seat), must_win)
        self.last_source = "search" if best else "planner"
        return cands[best]

    def _prior_cut(
        self, psim: PlanSimulator, stream: HashStream, moves: list[Play | None],
        alive: list[int], ahead: list[tuple[list[list[int]], list]],
    ) -> list[int]:
        """The alternatives the model does not call far worse than the planner's choice.

        Judged on the first ``min_worlds`` sampled worlds, which are kept in
        ``ahead`` (with their splits) for the rollouts, so no world is wasted.
        """
        priors: list[float] = [0.0] * len(moves)
        for _ in range(self.min_worlds):
            world = self.sample_world(psim, stream)
            plans = psim.prepare(world)
            ahead.append((world, plans))
            for i in [0, *alive]:
                priors[i] += psim.prior(world, plans, moves[i])
        bar = priors[0] - self.value_prior * self.min_worlds
        return [i for i in alive if priors[i] >= bar]

    def sample_world(self, sim: Simulator, stream: HashStream) -> list[list[int]]:
        """One sampled deal of the hidden cards (rank counts per seat).

        Why a method: the bench's perfect-information oracle (``bench/bench_bots.py``,
        never available at a table) replaces it by the true deal to measure how much
        of a loss comes from not seeing the other hands.
        """
        return sim.sample(stream)

    def confidence_for(self, rules: Rules, view: RoundState, seat: int) -> float:
        """The bar to overrule the planner: lower for a Dou Dizhu farmer."""
        lord = landlord_of(view)
        if lord is not None and lord != seat and len(side_of(rules, view, seat)) > 1:
            return self.farmer_confidence
        return self.confidence


def hopeless(results: list[float], base: list[float]) -> bool:
    """Can this candidate no longer be shown better than the planner's choice?

    Why: worlds spent on a clearly worse candidate (its paired advantage's upper
    bound, two standard errors and a small-sample allowance, below the margin
    :func:`pick` asks for) are better spent on the others; when none is left
    the search stops, so easy decisions cost little.
    """
    n = len(results)
    if n < 2:
        return False
    diffs = [a - b for a, b in zip(results, base, strict=False)]
    mean = sum(diffs) / n
    var = sum((d - mean) ** 2 for d in diffs) / (n - 1)
    return mean + 2.0 * (var / n) ** 0.5 + 0.25 / n < PICK_MARGIN


def is_bomb_action(rules: Rules, action: Action) -> bool:
    """Is this action a bomb or rocket play (one that doubles a Dou Dizhu stake)?"""
    if action.kind != PLAY:
        return False
    combo = classify_cards(rules, action.cards)
    return combo is not None and combo.kind in bomb_kind_names(rules)


def bomb_must_prove(obs: Observation, cands: list[Action]) -> list[Action]:
    """The candidates with the first non-bomb move first when the planner prefers a bomb.

    Why: the first candidate is the default that the others must beat by a clear
    margin. A bomb (or rocket) doubles the stake for both sides (DDZ-5.1), so one that
    does not win the hand only doubles the loss; with the bomb as the default, a
    handful of noisy worlds rarely overturned it, and the side that then lost had
    bombed (``bench_blunders``' losing bombs). With the plain move as the default the
    bomb is played when the worlds say it earns more points, not when they cannot
    tell. (A bomb that is the whole hand never gets here: going out comes first.)
    """
    rules = obs.rules
    if len(cands) < 2 or not is_bomb_action(rules, cands[0]):
        return cands
    alt = next((a for a in cands if not is_bomb_action(rules, a)), None)
    if alt is None:
        return cands
    return [alt] + [a for a in cands if a != alt]


def strongest_plain(obs: Observation, ranked: list[Action]) -> Action | None:
    """The highest non-bomb play among ``ranked`` (the blocking move when following).

    Why a candidate: the planner follows with what fits its split, so taking the
    lead away from an opponent with a 2 or an ace is rarely among its first few;
    the search should still weigh it.
    """
    names = bomb_kind_names(obs.rules)
    best: Action | None = None
    best_key = -1
    for a in ranked:
        if a.kind != PLAY:
            continue
        combo = classify_cards(obs.rules, a.cards)
        if combo is None or combo.kind in names:
            continue
        if combo.key > best_key:
            best, best_key = a, combo.key
    return best


def drop_exposed(obs: Observation, ranked: list[Action]) -> list[Action]:
    """Leads an opponent could go out on, dropped when a safe lead exists.

    Safe: not a bomb, cut from no held bomb, and no opponent can go out on it.

    Why a rule and not the search: a few sampled worlds can miss the one where
    the opponent's last card beats the single; the outcome is too costly to leave
    to sampling noise (the same test as ``normal``'s, :func:`.planner.exposed`).
    """
    rules = obs.rules
    view = obs.view
    if rules.in_effect is not None:
        rules = rules.in_effect(rules, view)
    sit = Situation(rules, view, obs.seat)
    if sit.opp_min > len(sit.hand):
        return ranked  # (an exposed lead has as many cards as an opponent's whole hand)
    by_ranks = {m.ranks: m for m in legal_moves(rules, view, obs.seat) if m is not None}

    def move_of(a: Action) -> Play | None:
        return by_ranks.get(tuple(sorted(RANK_OF[c] for c in a.cards)))

    def is_exposed(a: Action) -> bool:
        m = move_of(a) if a.kind == PLAY else None
        return m is not None and exposed(sit, m)

    if not any(is_exposed(a) for a in ranked):
        return ranked
    names = bomb_kind_names(rules)
    bombs = sit.bombs
    # a safe alternative: not a bomb, keeps every bomb whole, and cannot be answered
    # by the opponent's last cards (cutting a bomb for it is the search's business)
    safe = [
        a for a in obs.legal
        if a.kind == PLAY and (m := move_of(a)) is not None and m.combo.kind not in names
        and not breaks_bomb(rules, sit.counts, m, bombs) and not exposed(sit, m)
    ]
    if not safe:
        return ranked
    safe.sort(key=lambda a: move_of(a).combo.key)  # type: ignore[union-attr]
    keep = [a for a in ranked if not is_exposed(a)]
    if not any(a.kind == PLAY and a in safe for a in keep):
        keep = safe[:1] + keep  # the planner's first few were all exposed
    return keep


def pick(results: list[list[float]], z: float, must_win: frozenset[int] = frozenset()) -> int:
    """Index of the candidate to play: the planner's first unless another is surely better.

    Why paired: every candidate was played out in the same sampled worlds, so
    comparing world by world removes most of the luck of the deal. A candidate
    replaces the planner's choice only when its mean advantage exceeds ``z``
    standard errors (and a small margin): with few samples the planner wins.
    ``must_win``: candidates that must also win more often (a rollout counted won
    when it scores above 0.5), by ``z`` standard errors: Dou Dizhu bombs.
    """
    base = results[0]
    best, best_lcb = 0, 0.0
    for i in range(1, len(results)):
        # a candidate dropped early was played in the first worlds only: pair those
        n = len(results[i])
        if n < 2:
            continue
        diffs = [a - b for a, b in zip(results[i], base, strict=False)]
        mean = sum(diffs) / n
        var = sum((d - mean) ** 2 for d in diffs) / (n - 1)
        lcb = mean - z * (var / n) ** 0.5 - PICK_MARGIN
        if i in must_win and lcb > best_lcb + 1e-12:
            wins = [(a > 0.5) - (b > 0.5) for a, b in zip(results[i], base, strict=False)]
            wmean = sum(wins) / n
            wvar = sum((w - wmean) ** 2 for w in wins) / (n - 1)
            if wmean - z * (wvar / n) ** 0.5 <= 0.0:
                continue  # only the stake would grow: not worth doubling a possible loss
        if lcb > best_lcb + 1e-12:
            best, best_lcb = i, lcb
    return best


def _as_move(rules: Rules, view: RoundState, seat: int, action: Action) -> Play | None:
    """The rank pattern of a candidate action (``None`` = pass)."""
    if action.kind == PASS:
        return None
    ranks = tuple(sorted(RANK_OF[c] for c in action.cards))
    for m in legal_moves(rules, view, seat):
        if m is not None and m.ranks == ranks:
            return m
    # a card-level kind the rank simulator cannot tell apart: treat as its rank pattern
    combo = classify_cards(rules, action.cards) or Combo("single", len(ranks), ranks[-1])
    return Play(combo, ranks)
