"""The ``normal`` level: a hand planner, and the hints the UI cycles through.

Why a planner: in a climbing game a hand is won by emptying it in as few
*turns* as possible, so the bot splits its hand into the cheapest set of
plays (fewest groups, low cards absorbed into straights, full houses and
kickers, bombs kept whole) and judges every candidate move by what it does to
that split. It leads its weakest group, keeps unbeatable groups ("controls",
judged by counting the cards still unseen) and bombs for the end or for
emergencies, never breaks a bomb or the joker bomb for a kicker, and plays
*with* its side: it does not overtake a partner's (or fellow farmer's) winning
play, and feeds a partner who is about to go out.

The split is a dynamic programme over rank counts using the engine's own
move generator, so it works unchanged for every variant's combination kinds.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from zsy_lan.bots.base import Bot, Observation, bomb_ranks, is_bomb, side_of, unseen_counts
from zsy_lan.bots.bidding import phase_choice
from zsy_lan.bots.card_planner import CardPlanner, card_planned, ranked_plays, ranked_returns
from zsy_lan.engine.cards import NUM_RANKS, RANK_OF, RJ, rank_counts
from zsy_lan.engine.combos import Play, legal_plays
from zsy_lan.engine.phases import Phase
from zsy_lan.engine.round import legal_moves, move_action
from zsy_lan.engine.rules import Rules
from zsy_lan.engine.state import PASS, PLAY, RETURN, Action, RoundState

Counts = tuple[int, ...]

# DP expansions allowed per plan, and per decision, before the planner settles
# for the greedy split (first fitting group, cheapest per card): keeps the worst
# case (a 33-card four-player Dou Dizhu hand with many kicker choices) bounded
# and, being a count and not a clock, deterministic.
NODE_CAP = 3000
DECISION_NODES = 6000


class Plan(NamedTuple):
    """A split of a hand: total ``cost`` (about one per turn needed) and its groups."""

    cost: float
    groups: tuple[Play, ...]


def play_cost(rules: Rules, play: Play) -> float:
    """What a group costs in the split: one turn, more for low cards, little for bombs.

    Bombs cost little because they win a trick back (a control); low groups
    cost more because someone will almost always beat them.
    """
    if is_bomb(rules, play.combo.kind):
        return 0.3
    return 1.0 + 0.6 * (1.0 - min(play.combo.key, RJ) / RJ)


class Planner:
    """Best splits of hands under one ruleset, memoised by rank counts."""

    def __init__(self, rules: Rules, node_cap: int = NODE_CAP) -> None:
        self.rules = rules
        self.node_cap = node_cap  # expansions per plan before settling greedily
        self.memo: dict[Counts, Plan] = {}
        self._nodes = 0
        self._index_key: Counts | None = None
        self._index_val: list = []
        self.spent = 0  # nodes expanded since the decision began (see DECISION_NODES)
        # per play: its index entry and sort key (they depend on the rules alone)
        self._facts: dict[Play, tuple[tuple, tuple]] = {}

    def plan(self, counts: Sequence[int], within: Sequence[int] | None = None) -> Plan:
        """The cheapest split of a hand with these rank counts.

        ``within``: a hand these counts are part of (the hand before a candidate
        move); its move index is reused, since a part's plays are the whole's
        plays that still fit. One index per decision instead of one per candidate.
        """
        key = tuple(counts)
        hit = self.memo.get(key)
        if hit is not None:
            return hit
        if len(self.memo) > 50_000:
            self.memo.clear()
        self._nodes = 0
        return self._dp(key, self._index(tuple(within) if within is not None else key))

    def _index(self, key: Counts) -> list:
        if self._index_key == key:
            return self._index_val
        by_rank: list[list[tuple[tuple[tuple[int, int], ...], Play, float]]] = [
            [] for _ in range(NUM_RANKS)
        ]
        sort_keys: dict[Play, tuple] = {}
        facts = self._facts
        if len(facts) > 100_000:
            facts.clear()
        for p in legal_plays(self.rules, key, None):
            if p.cards is not None:
                continue
            hit = facts.get(p)
            if hit is None:
                need = [0] * NUM_RANKS
                for r in p.ranks:
                    need[r] += 1
                sparse = tuple((r, n) for r, n in enumerate(need) if n)
                cost = play_cost(self.rules, p)
                # cheaper per card first: finds a good split early (matters under the cap)
                hit = facts[p] = (
                    (sparse, p, cost), (cost / len(p.ranks), p.combo.kind, p.ranks)
                )
            entry, sort_keys[p] = hit
            # the DP always covers the lowest rank left, so a group can only ever be
            # chosen when its own lowest rank is that one: index it there alone
            by_rank[entry[0][0][0]].append(entry)
        for lst in by_rank:
            if len(lst) > 1:
                lst.sort(key=lambda e: sort_keys[e[1]])
        self._index_key = key
        self._index_val = by_rank
        return by_rank

    def _dp(self, counts: Counts, by_rank: list) -> Plan:
        hit = self.memo.get(counts)
        if hit is not None:
            return hit
        low = 0
        for c in counts:
            if c:
                break
            low += 1
        else:
            return Plan(0.0, ())
        self._nodes += 1
        self.spent += 1
        best: Plan | None = None
        capped = self._nodes > self.node_cap or self.spent > DECISION_NODES
        for sparse, play, cost in by_rank[low]:
            for r, n in sparse:
                if counts[r] < n:
                    break
            else:
                rest = list(counts)
                for r, n in sparse:
                    rest[r] -= n
                sub = self._dp(tuple(rest), by_rank)
                total = cost + sub.cost
                if best is None or total < best.cost - 1e-9:
                    best = Plan(total, (play,) + sub.groups)
                if capped:
                    break
        if best is None:  # a card no combination covers (cannot happen: singles exist)
            rest = list(counts)
            rest[low] = 0
            sub = self._dp(tuple(rest), by_rank)
            best = Plan(sub.cost + 2.0 * counts[low], sub.groups)
        self.memo[counts] = best
        return best


def minus(counts: Sequence[int], ranks: Sequence[int]) -> list[int]:
    """Rank counts after playing ``ranks``."""
    out = list(counts)
    for r in ranks:
        out[r] -= 1
    return out


def breaks_bomb(rules: Rules, hand: Sequence[int], play: Play, bombs: set[int]) -> bool:
    """Does this (non-bomb) play take cards out of a bomb or the joker bomb of ``hand``?"""
    if is_bomb(rules, play.combo.kind):
        # a smaller bomb cut out of a bigger one is fine; a joker bomb is one unit
        return False
    return any(r in bombs for r in play.ranks)


class Situation:
    """The facts about the table one decision needs, all from the seat's view."""

    def __init__(self, rules: Rules, view: RoundState, seat: int) -> None:
        self.rules = rules
        self.view = view
        self.seat = seat
        hand = view.hands[seat] or ()
        self.hand = hand
        self.counts = rank_counts(hand)
        self.total = len(hand)
        self.side = side_of(rules, view, seat)
        active = view.active
        self.opponents = [s for s in active if s not in self.side]
        self.partners = [s for s in active if s in self.side and s != seat]
        self.opp_min = min((view.counts[s] for s in self.opponents), default=99)
        self.bombs = bomb_ranks(rules, self.counts)
        self._unseen: list[int] | None = None

    @property
    def unseen(self) -> list[int]:
        """Rank counts of every card this seat has not seen (other hands pooled)."""
        if self._unseen is None:
            self._unseen = unseen_counts(self.rules, self.view, self.seat)
        return self._unseen

    def next_seat(self, after: int) -> int:
        """The next seat still holding cards after ``after``."""
        n = self.rules.players
        fin = self.view.finished
        for i in range(1, n + 1):
            s = (after + i) % n
            if s not in fin:
                return s
        return -1


class NormalBot(Bot):
    """The hand-planner bot (level ``normal``)."""

    level = "normal"

    def __init__(self, seed: bytes | int | str = 0) -> None:
        super().__init__(seed)
        self._planner: Planner | None = None
        self._card_planners: dict[int, CardPlanner] = {}

    def planner(self, rules: Rules) -> Planner:
        """The memoising planner for this table's rules (rebuilt if they change)."""
        if self._planner is None or self._planner.rules is not rules:
            self._planner = Planner(rules)
        return self._planner

    def card_planner(self, rules: Rules, view: RoundState) -> CardPlanner:
        """The card planner for the rules in effect now (Guandan: the deal's level).

        It memoises only facts of the rules (card strengths, which cards are
        wild), never of a hand, so a decision still depends on the observation alone.
        """
        if rules.in_effect is not None:
            rules = rules.in_effect(rules, view)
        cached = self._card_planners.get(id(rules))
        if cached is None or cached.rules is not rules:
            if len(self._card_planners) > 16:
                self._card_planners.clear()
            cached = self._card_planners[id(rules)] = CardPlanner(rules)
        return cached

    def fresh_planner(self, rules: Rules) -> Planner:
        """The planner with its memo emptied: each decision then depends on the
        observation alone (not on what this bot evaluated before), so a bot that
        takes over a seat mid-round decides exactly like one that played it all along."""
        planner = self.planner(rules)
        planner.memo.clear()
        planner._index_key = None
        planner.spent = 0
        return planner

    def choose(self, obs: Observation) -> Action:
        """The planner's first choice."""
        return self.ranked(obs, limit=1)[0]

    def ranked(self, obs: Observation, limit: int | None = None) -> list[Action]:
        """Every legal action, best first (hints and the ``hard`` level's candidates).

        With ``limit`` only the first ``limit`` are in planner order; the rest
        follow in the engine's order (cheaper when only the best few matter).
        """
        legal = list(obs.legal)
        if not legal:
            raise ValueError(f"seat {obs.seat} has nothing to do now")
        if len(legal) == 1:
            return legal
        self.fresh_planner(obs.rules)
        kinds = {a.kind for a in legal}
        if card_planned(obs.rules) and (kinds == {RETURN} or (
                kinds <= {PLAY, PASS} and obs.view.phase == Phase.PLAY)):
            # suit-ranked cards or wild cards: the rank split cannot see the groups
            planner = self.card_planner(obs.rules, obs.view)
            if kinds == {RETURN}:
                return ranked_returns(planner, obs)
            return ranked_plays(planner, obs)
        if kinds <= {PLAY, PASS} and obs.view.phase == Phase.PLAY:
            return self._rank_plays(obs, limit)
        if kinds == {RETURN}:
            return self._rank_returns(obs)
        return phase_choice(self, obs)

    # --- play phase -------------------------------------------------------------

    def _rank_plays(self, obs: Observation, limit: int | None) -> list[Action]:
        rules = obs.rules
        view = obs.view
        if rules.in_effect is not None:
            rules = rules.in_effect(rules, view)
        sit = Situation(rules, view, obs.seat)
        moves = legal_moves(rules, view, obs.seat)
        if not moves:
            return list(obs.legal)
        order = rank_moves(self.planner(obs.rules), sit, moves)
        if limit is not None:
            order = order[:limit]
        legal = set(obs.legal)
        ranked = [a for a in (move_action(view, obs.seat, m) for m in order) if a in legal]
        chosen = set(ranked)
        ranked += [a for a in obs.legal if a not in chosen]
        return ranked

    # --- tribute ----------------------------------------------------------------

    def _rank_returns(self, obs: Observation) -> list[Action]:
        """Return the cards whose loss hurts the split least (never a bomb, low first)."""
        planner = self.planner(obs.rules)
        hand = obs.view.hands[obs.seat] or ()
        counts = rank_counts(hand)
        bombs = bomb_ranks(obs.rules, counts)

        def pre(a: Action) -> tuple[int, int]:
            ranks = [RANK_OF[c] for c in a.cards]
            return (sum(1 for r in ranks if r in bombs), sum(ranks))

        legal = sorted(obs.legal, key=lambda a: (pre(a), a.cards))
        head = legal[:16]

        duties = obs.view.duties
        receiver = duties[0].receiver if duties else -1
        # strong cards handed to an opponent come back to beat us; to a partner they help
        sign = -1.0 if receiver in side_of(obs.rules, obs.view, obs.seat) else 1.0

        def score(a: Action) -> tuple[float, int, tuple[int, ...]]:
            ranks = [RANK_OF[c] for c in a.cards]
            after = planner.plan(minus(counts, ranks), counts).cost
            gift = sum(0.05 * r + (1.2 if r >= 12 else 0.5 if r == 11 else 0.0) for r in ranks)
            return (after + sign * gift + 3.0 * pre(a)[0], sum(ranks), a.cards)

        head.sort(key=score)
        return head + legal[16:]


def _lead_order(planner: Planner, sit: Situation, moves: list[Play]) -> list[Play]:
    """Leads, best first."""
    rules = sit.rules
    plan = planner.plan(sit.counts)
    move_set = set(moves)
    unseen = sit.unseen

    def beatable(p: Play) -> bool:
        return bool(legal_plays(rules, unseen, p.combo))

    groups = [g for g in plan.groups if g in move_set]
    bombs_g = [g for g in groups if is_bomb(rules, g.combo.kind)]
    plain = [g for g in groups if not is_bomb(rules, g.combo.kind)]
    controls = [g for g in plain if not beatable(g)]
    weak = [g for g in plain if g not in controls]
    first: list[Play] = []
    partner_low = [p for p in sit.partners if sit.view.counts[p] <= 2]
    if len(weak) <= 1 and (controls or bombs_g):
        # run home: controls first (they keep the lead), bombs next, the last group last
        first = sorted(controls, key=lambda g: -len(g.ranks)) + bombs_g + weak
    elif partner_low and sit.opp_min > 1:
        # feed a partner about to go out: the lowest play of the size they hold
        need = min(sit.view.counts[p] for p in partner_low)
        feed = sorted(
            (m for m in moves if len(m.ranks) == need and not is_bomb(rules, m.combo.kind)
             and not breaks_bomb(rules, sit.counts, m, sit.bombs)),
            key=lambda m: m.combo.key,
        )
        first = feed[:1]
    if not first and weak:
        danger = sit.opp_min
        pool = weak

        def lead_key(g: Play) -> tuple[int, int, int]:
            size = len(g.ranks)
            risky = 1 if danger <= 2 and size <= danger else 0  # they could go out on it
            return (risky, g.combo.key - min(size, 6), -size)

        pool = sorted(pool, key=lead_key)
        if danger <= 2 and all(len(g.ranks) <= danger for g in pool):
            # only small groups left and an opponent is about to go out: lead high
            pool = sorted(pool, key=lambda g: -g.combo.key)
        first = pool
    if not first:
        first = sorted(controls, key=lambda g: -len(g.ranks)) + bombs_g
    seen = set(first)
    rest = [m for m in moves if m not in seen]
    cost_of = _costs_after(planner, sit, rest)
    rest.sort(key=lambda m: (cost_of[m], m.combo.key))
    return first + rest


def _costs_after(
    planner: Planner, sit: Situation, moves: Sequence[Play], limit: int = 40
) -> dict[Play, float]:
    """Split cost of the hand after each move (+3 for breaking a bomb).

    Past ``limit`` moves (a long lead list), the rest get a cheap estimate, so
    a 20-card hand with hundreds of kicker choices stays fast.
    """
    out: dict[Play, float] = {}
    if len(moves) > limit:
        cheap = sorted(moves, key=lambda m: (m.combo.key - min(len(m.ranks), 6), -len(m.ranks)))
        for i, m in enumerate(cheap[limit:]):
            out[m] = 50.0 + i * 1e-3
        moves = cheap[:limit]
    for m in moves:
        cost = planner.plan(minus(sit.counts, m.ranks), sit.counts).cost
        if breaks_bomb(sit.rules, sit.counts, m, sit.bombs):
            cost += 3.0
        out[m] = cost
    return out


def rank_moves(planner: Planner, sit: Situation, moves: list[Play | None]) -> list[Play | None]:
    """Legal moves (``None`` = pass), best first, for this seat's situation."""
    view = sit.view
    plays = [m for m in moves if m is not None]
    can_pass = any(m is None for m in moves)
    out_now = [m for m in plays if len(m.ranks) == sit.total]
    if out_now:
        rest = [m for m in plays if m not in out_now]
        return out_now + _rank_follow_rest(planner, sit, rest, can_pass)
    if view.trick is None:
        order = _lead_order(planner, sit, plays)
        return list(safe_leads_first(sit, kickers_last(sit, order)))
    return _rank_follow(planner, sit, plays, can_pass)


def has_kicker(play: Play) -> bool:
    """Does the play carry kickers (ranks taken in different numbers: 3+2, 3+1, 4+1+1)?

    Straights, pairs, chains of pairs take every rank equally often; a trio
    with a pair or a plane with wings does not. Works for any variant's kinds.
    """
    mult: dict[int, int] = {}
    for r in play.ranks:
        mult[r] = mult.get(r, 0) + 1
    return len(set(mult.values())) > 1


def kickers_last(sit: Situation, order: Sequence[Play]) -> list[Play]:
    """Leads that cut a held bomb for a play with kickers go after every other lead.

    Why: ``normal`` never breaks a four of a kind (or the joker bomb) for a
    kicker, e.g. 4 4 4 + 6 6 out of 4 4 4 4 when 6 6 6 alone is legal, even
    when the split would like it; players read it as a broken bot.
    """
    if not sit.bombs:
        return list(order)
    bad = [m for m in order if has_kicker(m) and breaks_bomb(sit.rules, sit.counts, m, sit.bombs)]
    if not bad or len(bad) == len(order):
        return list(order)
    return [m for m in order if m not in bad] + bad


def exposed(sit: Situation, play: Play) -> bool:
    """Could an opponent go out on this lead (ZSY-4.1, DDZ-4.2)?

    True when an opponent holds exactly as many cards as the play has and the
    unseen cards can beat it with that many cards. Bombs are never exposed here.
    """
    if is_bomb(sit.rules, play.combo.kind):
        return False
    k = len(play.ranks)
    if not any(sit.view.counts[o] == k for o in sit.opponents):
        return False
    return any(len(p.ranks) == k for p in legal_plays(sit.rules, sit.unseen, play.combo))


def safe_leads_first(sit: Situation, order: Sequence[Play]) -> list[Play]:
    """Leads an opponent could go out on go after the safe non-bomb leads, if any.

    Why: leading a single into an opponent holding one card, while holding a
    pair or a straight they cannot answer, hands them the round.
    """
    if sit.opp_min > max((len(m.ranks) for m in order), default=0):
        return list(order)
    risky = [m for m in order if exposed(sit, m)]
    if not risky:
        return list(order)
    safe = [m for m in order if m not in risky]
    if not any(not is_bomb(sit.rules, m.combo.kind) for m in safe):
        return list(order)
    return safe + risky


def _rank_follow_rest(
    planner: Planner, sit: Situation, plays: list[Play], can_pass: bool
) -> list[Play | None]:
    cost_of = _costs_after(planner, sit, plays)
    ordered: list[Play | None] = sorted(plays, key=lambda m: (cost_of[m], m.combo.key))
    if can_pass:
        ordered.append(None)
    return ordered


def _rank_follow(
    planner: Planner, sit: Situation, plays: list[Play], can_pass: bool
) -> list[Play | None]:
    """Following a play: beat it when that fits the plan or the table is in danger."""
    rules = sit.rules
    view = sit.view
    owner = view.trick_seat
    cost_now = planner.plan(sit.counts).cost
    cost_of = _costs_after(planner, sit, plays)
    by_plan = sorted(plays, key=lambda m: (cost_of[m], m.combo.key))
    if not can_pass:
        return list(by_plan)
    partner_owns = owner in sit.side and owner != sit.seat
    if partner_owns:
        # ZSY-9.1 / DDZ-4.5: never overtake your own side's winning play
        return [None] + list(by_plan)
    owner_left = view.counts[owner] if 0 <= owner < len(view.counts) else 99
    danger = owner_left <= 3 or sit.opp_min <= 2
    normal = [m for m in plays if not is_bomb(rules, m.combo.kind)]
    bombs = [m for m in plays if is_bomb(rules, m.combo.kind)]
    chosen: list[Play] = []
    fitting = [
        m for m in normal
        if not breaks_bomb(rules, sit.counts, m, sit.bombs)
        and cost_now - cost_of[m] >= 0.45 - (0.6 if danger else 0.0)
    ]
    # with many cards left, do not spend top cards (2s, jokers) on a low play
    if not danger and sit.total > 8:
        cheap = [m for m in fitting if max(m.ranks) < 12 or m.combo.key >= 11]
        fitting = cheap or [m for m in fitting if cost_now - cost_of[m] >= 0.9]
    if fitting:
        chosen = sorted(fitting, key=lambda m: (round(cost_of[m], 3), m.combo.key))[:1]
    elif danger and normal:
        # an opponent is about to go out: take the trick with the strongest play
        # (never one cut out of a bomb or the rocket: the bomb itself is better)
        whole = [m for m in normal if not breaks_bomb(rules, sit.counts, m, sit.bombs)]
        chosen = sorted(whole, key=lambda m: (-m.combo.key, cost_of[m]))[:1]
    if not chosen and bombs:
        after_bomb = {m: cost_of[m] for m in bombs}
        best_bomb = min(bombs, key=lambda m: (after_bomb[m], len(m.ranks), m.combo.key))
        finishing = after_bomb[best_bomb] <= 1.7  # bomb, then lead out the rest
        if danger or finishing:
            chosen = [best_bomb]
    head: list[Play | None] = list(chosen)
    if not chosen:
        head.append(None)
    tail: list[Play | None] = [m for m in by_plan if m not in chosen]
    if chosen:
        tail.append(None)
    return head + tail


def hints(rules: Rules, view: RoundState, seat: int) -> list[Action]:
    """Every legal action for ``seat``, best first, from the ``normal`` planner.

    The UI's hint key cycles through this list; the first entry is what the
    ``normal`` bot would do. ``view`` may be the full state or the seat's view:
    only the seat's own hand and public facts are used.
    """
    from zsy_lan.engine.view import view as view_of

    obs = Observation.of(rules, view_of(view, seat), seat)
    if not obs.legal:
        return []
    return _HINT_BOT.ranked(obs)


_HINT_BOT = NormalBot(b"hints")
