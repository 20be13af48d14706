"""A match: rounds, dealer rotation, titles and tribute carried over, scores (ZSY-8).

Randomness enters only as data: :func:`deal_round` takes the round's shared
seed (from commit-reveal on the network, from ``--seed`` locally) and derives
the permutation and, in round 1, the first dealer from it with the documented
generator of :mod:`zsy_lan.engine.shuffle`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .canonical import encode
from .cards import BJ, TWO, rank_of
from .errors import RuleError
from .hookspecs import Lead
from .phases import MatchPhase, Phase
from .round import DECK, deal_hands, new_round
from .round import apply as apply_round
from .rules import Rules
from .shuffle import choose, derive, shuffled
from .state import Action, Duty, Hand, RoundState, evolve


@dataclass(frozen=True)
class RoundResult:
    """How a round ended: finishing order (first out first) and each seat's points."""

    round_no: int
    order: tuple[int, ...]
    points: tuple[int, ...]
    deciding: bool = False


@dataclass(frozen=True)
class MatchState:
    """Everything carried from round to round.

    ``phase``: ``deal`` (waiting for the next round's seed), ``playing`` or
    ``over``. ``tied`` is non-empty while deciding rounds run (ZSY-8.5 D).
    ``extra``: the plugins' match-level state (Guandan's levels), sorted
    ``(key, value)`` pairs of canonical values, updated only by the
    ``zsy_deal_over`` hook after each deal (:func:`merge_extra`); it is part of
    the match's public hash when set.
    """

    players: int
    rounds: int
    phase: str = MatchPhase.DEAL
    dealer: int = -1
    round: RoundState | None = None
    results: tuple[RoundResult, ...] = ()
    totals: tuple[int, ...] = ()
    upstreams: tuple[int, ...] = ()
    tied: tuple[int, ...] = ()
    winners: tuple[int, ...] = ()
    extra: tuple[tuple[str, Any], ...] = ()

    def get(self, key: str, default: Any = None) -> Any:
        """A plugin's match-level value (set by ``zsy_deal_over``; ``extra`` is sorted pairs)."""
        for k, v in self.extra:
            if k == key:
                return v
        return default


TITLES_4 = ("Upstream", "Second-Upstream", "Second-Downstream", "Downstream")


def titles(order: Sequence[int]) -> dict[int, str]:
    """ZSY-6.3: the titles a finishing order gives (for the next round)."""
    n = len(order)
    if n == 4:
        return {s: TITLES_4[i] for i, s in enumerate(order)}
    out = {order[0]: "Upstream", order[-1]: "Downstream"}
    for i, s in enumerate(order[1:-1], start=2):
        out[s] = f"place {i}"
    return out


def new_match(rules: Rules, rounds: int) -> MatchState:
    """A match of ``rounds`` rounds (ZSY-8.5: agreed number; any number allowed)."""
    if rounds < 1:
        raise RuleError(rules.rule_id("ZSY-8.5"), "a match needs at least one round")
    if rules.check_rounds is not None:
        problem = rules.check_rounds(rules, rounds)  # (rule id, reason) or None
        if problem is not None:
            raise RuleError(*problem)
    n = rules.players
    return MatchState(players=n, rounds=rounds, totals=(0,) * n, upstreams=(0,) * n)


def tribute_duties(rules: Rules, order: Sequence[int]) -> tuple[Duty, ...]:
    """ZSY-7.1/7.2: the tribute owed after a round that finished in ``order``."""
    if rules.tribute_duties is not None:  # a variant's duties; None: the base rule
        duties = rules.tribute_duties(rules, tuple(order))
        if duties is not None:
            return tuple(duties)
    if not rules.tribute:
        return ()
    pairs = [(order[-1], order[0], rules.tribute_cards)]
    if rules.second_tribute:
        pairs.append((order[-2], order[1], 1))
    gives = [Duty("give", g, r, k) for g, r, k in pairs]
    returns = [Duty("return", r, g, k) for g, r, k in pairs]
    return tuple(gives + returns)


def deal_round(rules: Rules, match: MatchState, seed: bytes) -> MatchState:
    """Start the next round from a 32-byte shared seed (ZSY-1.3, ZSY-2, ZSY-7)."""
    if match.phase != MatchPhase.DEAL:
        raise RuleError(rules.rule_id("ZSY-1.3"), "a round is already in progress")
    n = rules.players
    order = shuffled(rules.deck, derive(seed, "deal"))
    prev = match.results[-1] if match.results else None
    dealer = choose(seed, "dealer", n) if prev is None else prev.order[-1]
    hands, kitty = deal_hands(rules, order, dealer)
    round_no = len(match.results) + 1
    lead = deal_lead(rules, match, seed)
    if prev is None:
        state = new_round(rules, hands, round_no=1, dealer=dealer, kitty=kitty, lead=lead)
    else:
        state = new_round(
            rules,
            hands,
            round_no=round_no,
            dealer=dealer,
            leader=prev.order[0] if lead is None else None,
            duties=tribute_duties(rules, prev.order),
            kitty=kitty,
            lead=lead,
        )
    if rules.on_seed is not None:
        state = rules.on_seed(rules, state, seed, match)
    return evolve(match, phase=MatchPhase.PLAYING, dealer=dealer, round=state)


def deal_lead(rules: Rules, match: MatchState, seed: bytes) -> Lead | None:
    """Who leads the next deal by the plugins' ``zsy_deal_lead`` (``None``: the base rule).

    Checked here, so a plugin's slip is caught before any card moves: a seat
    of the table, or a card of its deck (:func:`new_round` refuses a card on a
    deal that owes tribute).
    """
    if rules.deal_lead is None:
        return None
    lead = rules.deal_lead(rules, match, seed)
    if lead is None:
        return None
    both = lead.stock and lead.card is not None if isinstance(lead, Lead) else False
    if not isinstance(lead, Lead) or ((lead.seat is None) == (lead.card is None) and not both):
        raise ValueError(f"zsy_deal_lead answers Lead(seat=...) or Lead(card=...), not {lead!r}")
    if lead.seat is not None and lead.seat not in range(rules.players):
        raise ValueError(f"zsy_deal_lead named seat {lead.seat!r}, not a seat of this table")
    if lead.card is not None and not any(c % DECK == lead.card % DECK for c in rules.deck):
        raise ValueError(f"zsy_deal_lead named card {lead.card!r}, not in this table's deck")
    return lead


def merge_extra(match: MatchState, updates: Mapping[str, Any], plugin: str) -> MatchState:
    """``match`` with ``plugin``'s ``zsy_deal_over`` updates set in ``extra`` (kept sorted).

    Every value must have one canonical form (it enters the match hash): a
    float, set or object is refused here, naming the plugin, instead of
    splitting the peers later.
    """
    if not isinstance(updates, Mapping):
        raise TypeError(f"plugin '{plugin}': zsy_deal_over must return a mapping or None")
    merged = dict(match.extra)
    for key, value in updates.items():
        if not isinstance(key, str) or not key:
            raise TypeError(f"plugin '{plugin}': zsy_deal_over keys must be strings, not {key!r}")
        try:
            encode(value)
        except (TypeError, ValueError) as exc:
            raise TypeError(f"plugin '{plugin}': zsy_deal_over['{key}']: {exc}") from None
        merged[key] = _frozen(value)
    return evolve(match, extra=tuple(sorted(merged.items())))


def _frozen(value: Any) -> Any:
    """Lists as tuples (all the way down), dicts copied: a plugin keeps no handle on the state."""
    if isinstance(value, list | tuple):
        return tuple(_frozen(v) for v in value)
    if isinstance(value, dict):
        return {k: _frozen(v) for k, v in value.items()}
    return value


def apply_action(rules: Rules, match: MatchState, action: Action) -> MatchState:
    """Apply a round action; a finished round is scored and the match moves on."""
    if match.phase != MatchPhase.PLAYING or match.round is None:
        rule = rules.rule_id("ZSY-8.5")
        raise RuleError(rule, "no round is being played: the next deal is due first")
    state = apply_round(rules, match.round, action)
    if state.phase != Phase.DONE:
        return evolve(match, round=state)
    if state.get("void"):
        # a void round (Dou Dizhu: everybody passed the bidding, DDZ-2.3) counts for
        # nothing: no result, no dealer change; the match waits for the next seed
        return evolve(match, round=state, phase=MatchPhase.DEAL)
    return finish_round(rules, evolve(match, round=state))


def round_points(rules: Rules, state: RoundState) -> tuple[int, ...]:
    """ZSY-8: this round's points per seat under the table's scoring scheme."""
    if rules.score_round is not None:  # a variant's points; None: the scheme's
        points = rules.score_round(rules, state)
        if points is not None:
            return tuple(points)
    n = state.players
    order = state.finished
    if rules.scoring == "ranking":
        return tuple(1 if s == order[0] else 0 for s in range(n))
    if rules.scoring == "penalty":
        return penalty_points(state)
    return card_count_points(state)


def penalty_points(state: RoundState) -> tuple[int, ...]:
    """ZSY-8.2 with 8.4: 1 per card, 2 per 2, 3 per joker, from the hands at the first out.

    Needs every hand (full information); with partial knowledge the peers
    score after the end-of-round audit.
    """
    hands = state.first_out_hands
    if hands is None or any(h is None for h in hands):
        raise RuleError("ZSY-8.4", "penalty points need every hand as it stood at the first out")
    return tuple(sum(_penalty(c) for c in h) for h in hands if h is not None)


def _penalty(card: int) -> int:
    r = rank_of(card)
    return 3 if r >= BJ else 2 if r == TWO else 1


def card_count_points(state: RoundState) -> tuple[int, ...]:
    """ZSY-8.3 with 8.4: -1 a card, -2 with 10+ left, -3 if none played; Upstream takes the sum.

    3 players (seed 004): the 12+ threshold for double, triple for a player who
    played nothing (17 or 18 left).
    """
    n = state.players
    counts = state.first_out_counts or state.counts
    plays = state.first_out_plays or state.plays_made
    threshold = 12 if n == 3 else 10
    pts = [0] * n
    for s in range(n):
        left = counts[s]
        if left == 0:
            continue
        factor = 3 if plays[s] == 0 else 2 if left >= threshold else 1
        pts[s] = -left * factor
    pts[state.finished[0]] = -sum(pts)
    return tuple(pts)


def finish_round(rules: Rules, match: MatchState) -> MatchState:
    """Record a finished round; end the match or start deciding rounds (ZSY-8.5)."""
    state = match.round
    assert state is not None and state.phase == Phase.DONE
    points = round_points(rules, state)
    deciding = bool(match.tied)
    result = RoundResult(state.round_no, state.finished, points, deciding)
    totals = match.totals
    upstreams = match.upstreams
    if not deciding:
        totals = tuple(t + p for t, p in zip(totals, points, strict=True))
        ups = list(upstreams)
        ups[state.finished[0]] += 1
        upstreams = tuple(ups)
    match = evolve(
        match,
        results=match.results + (result,),
        totals=totals,
        upstreams=upstreams,
        round=state,
        phase=MatchPhase.DEAL,
        dealer=state.finished[-1],
    )
    if rules.deal_over is not None:
        match = rules.deal_over(rules, match)  # the plugins' match-level state
    if rules.match_over is not None:
        winners = rules.match_over(rules, match)
        if winners is not None:  # the plugin decides: winners end it, () plays on
            return _ended(match, winners)
    if deciding:
        first = min(match.tied, key=state.finished.index)
        return evolve(match, phase=MatchPhase.OVER, winners=_with_team(rules, first), tied=())
    if len(match.results) < match.rounds:
        return match
    best = _leaders(rules, match)
    if len(best) == 1:
        return evolve(match, phase=MatchPhase.OVER, winners=_with_team(rules, best[0]))
    return evolve(match, tied=best)


def _ended(match: MatchState, winners: Sequence[int]) -> MatchState:
    """The match after ``zsy_match_over`` answered: over with ``winners``, or on with ``()``."""
    seats = tuple(winners)
    if any(type(s) is not int or not 0 <= s < match.players for s in seats):
        raise ValueError(f"zsy_match_over answered {seats!r}: winners are seats of the table")
    if not seats:
        return evolve(match, tied=())
    return evolve(match, phase=MatchPhase.OVER, winners=tuple(sorted(set(seats))), tied=())


def _leaders(rules: Rules, match: MatchState) -> tuple[int, ...]:
    """Seats (or one seat per team) with the best match score."""
    custom = rules.match_score(rules, match) if rules.match_score is not None else None
    if custom is not None:
        scores: Sequence[int] = custom
    elif rules.scoring == "ranking":
        scores = match.upstreams
    elif rules.scoring == "penalty":
        scores = tuple(-t for t in match.totals)
    else:
        scores = match.totals
    top = max(scores)
    seats = [s for s in range(match.players) if scores[s] == top]
    if rules.teams:
        # one representative per team: teams tie with teams
        reps = []
        for s in seats:
            team = rules.team_of(s)
            if team is not None and not any(r in team for r in reps):
                reps.append(s)
        seats = reps
    return tuple(seats)


def _with_team(rules: Rules, seat: int) -> tuple[int, ...]:
    team = rules.team_of(seat)
    return tuple(team) if team else (seat,)


def hands_of(match: MatchState) -> tuple[Hand | None, ...]:
    """The current round's hands (for tools and tests)."""
    return () if match.round is None else match.round.hands
