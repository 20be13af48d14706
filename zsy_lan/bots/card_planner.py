"""The ``normal`` planner for variants whose plays read the cards (Big Two, Guandan).

Why a second planner: the rank planner (:mod:`zsy_lan.bots.planner`) splits
a hand by rank counts, so where every combination is a *card kind* (Big Two
ranks every card by suit, Guandan's two wild ♥ level cards stand for any card)
it sees no groups at all and falls back to "the play that leaves the fewest
cards". Here the hand is split into the table's own combinations, built by
the plugin's generators from the card ids, and every decision is judged by
what it does to that split:

* a group costs about one turn, more for weak cards; a combination that
  carries strong cards its key does not count (two 2s as a full house's pair,
  a wild in a low straight or tube) pays for the waste, so the split keeps 2s,
  aces and wilds for control and for bombs;
* it leads its weakest group (longer groups first), runs home with its
  unbeatable groups, feeds a partner about to go out, and never leads a play
  of the size an opponent holds when a safe lead exists;
* it follows with the play that hurts its split least, passes rather than
  spend top cards or bombs early, and answers with its strongest play or a
  bomb when an opponent is about to go out;
* with a partner (Guandan) it never overtakes the partner's winning play,
  except to go out or when an opponent who could go out on the partner's play
  is still to act and it holds a play nobody can beat.

Everything is generic: a card's strength is its ``single`` key, a wild card
is one that pairs with a card of another rank, so any card-kind variant a
plugin adds is planned the same way.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from zsy_lan.bots.base import Observation, is_bomb, side_of
from zsy_lan.engine.cards import RANK_OF, rank_counts
from zsy_lan.engine.combos import Play, legal_plays
from zsy_lan.engine.round import legal_moves, move_action
from zsy_lan.engine.rules import Rules
from zsy_lan.engine.state import RETURN, Action, RoundState

# splits explored per plan before the rest of the hand is split greedily: a count,
# not a clock, so a decision is deterministic and bounded (a 27-card Guandan hand)
NODE_CAP = 600
DECISION_NODES = 2000
BRANCH = 8  # groups tried for the weakest card at each node (cheapest per card first)
LIMIT = 10  # candidates judged by their split; the rest by a cheap estimate
WILD_WASTE = 1.2  # a wild card spent in a plain (non-bomb) combination: more than its single
WILD_IN_BOMB = 0.15  # a wild card in a bomb: what wilds are for
TOP = 0.93  # a play this strong is kept while many cards are left (2s, jokers)
BOMB = 0.3  # a bomb costs little: it wins a trick back
HIGH_WASTE = 0.8  # per unit of strength a card carries beyond what its play counts


def card_planned(rules: Rules) -> bool:
    """Does ``normal`` plan this variant by cards (the rank planner cannot model it)?

    True where the rank-count rollouts cannot play it either: no rank-count
    ``single`` (Guandan: every kind reads the cards) or a card kind shadowing a
    rank kind (Big Two's suit-ranked single). House rules that only add a card
    kind on top of the rank kinds stay with the rank planner.
    """
    rank_names = {k.name for k in rules.rank_kinds}
    if not rules.card_kinds:
        return False
    return "single" not in rank_names or any(k.name in rank_names for k in rules.card_kinds)


class Group(NamedTuple):
    """One combination of a split: the play and what it costs."""

    play: Play
    cost: float


class Split(NamedTuple):
    """A split of a hand into combinations: total cost (about one per turn) and the groups."""

    cost: float
    groups: tuple[Group, ...]


class CardPlanner:
    """Splits of card hands under one ruleset (the rules in effect: Guandan's level)."""

    def __init__(self, rules: Rules, node_cap: int = NODE_CAP) -> None:
        self.rules = rules
        self.node_cap = node_cap
        single = rules.kind_by_name.get("single")
        keys = [self._single_key(c) for c in rules.deck] if single is not None else []
        self._top = max((k for k in keys if k is not None), default=1) or 1
        self._strength: dict[int, float] = {}
        self._wild: dict[int, bool] = {}
        self._probe = sorted({RANK_OF[c]: c for c in rules.deck}.items())
        self._hand: tuple[int, ...] | None = None  # the decision's hand (begin)

    # --- cards ------------------------------------------------------------------

    def _single_key(self, card: int) -> int | None:
        kind = self.rules.kind_by_name.get("single")
        combo = kind.classify((card,), self.rules) if kind is not None else None
        return combo.key if combo is not None else None

    def strength(self, card: int) -> float:
        """How hard the card is to beat as a single, 0 (lowest) to 1 (highest)."""
        s = self._strength.get(card)
        if s is None:
            key = self._single_key(card)
            s = self._strength[card] = 0.0 if key is None else key / self._top
        return s

    def wild(self, card: int) -> bool:
        """Does the card stand for others (it pairs with a card of another rank)?"""
        w = self._wild.get(card)
        if w is None:
            pair = self.rules.kind_by_name.get("pair")
            w = False
            if pair is not None and pair.cards:  # a rank-count pair has no wild cards
                r = RANK_OF[card]
                others = [c for rank, c in self._probe if rank != r][:2]
                w = any(pair.classify(tuple(sorted((card, o))), self.rules) is not None
                        for o in others)
            self._wild[card] = w
        return w

    # --- plays ------------------------------------------------------------------

    def bomb(self, play: Play) -> bool:
        """Is the play a bomb under these rules?"""
        return is_bomb(self.rules, play.combo.kind)

    def play_strength(self, play: Play) -> float:
        """The strength of what decides the play: its most frequent natural rank, highest card."""
        cards = play.cards or ()
        natural = [c for c in cards if not self.wild(c)]
        if not natural:
            return max((self.strength(c) for c in cards), default=0.0)
        mult: dict[int, int] = {}
        for c in natural:
            mult[RANK_OF[c]] = mult.get(RANK_OF[c], 0) + 1
        top = max(mult.values())
        return max(self.strength(c) for c in natural if mult[RANK_OF[c]] == top)

    def cost(self, play: Play) -> float:
        """What the group costs in a split: a turn, more when weak, plus what it wastes."""
        cards = play.cards or ()
        wilds = sum(1 for c in cards if self.wild(c))
        if self.bomb(play):
            return BOMB + WILD_IN_BOMB * wilds
        s = self.play_strength(play)
        waste = WILD_WASTE * wilds
        natural = [c for c in cards if not self.wild(c)]
        mult: dict[int, int] = {}
        for c in natural:
            mult[RANK_OF[c]] = mult.get(RANK_OF[c], 0) + 1
        top = max(mult.values(), default=0)
        for c in natural:
            if mult[RANK_OF[c]] < top:  # a kicker: its own strength is not what counts
                waste += HIGH_WASTE * max(0.0, self.strength(c) - s - 0.15)
        return 1.0 + 0.6 * (1.0 - s) + waste

    def plays(self, hand: Sequence[int]) -> list[Play]:
        """Every combination in ``hand`` (the table's generators, card ids set)."""
        return [with_cards(p, hand)
                for p in legal_plays(self.rules, rank_counts(hand), None, tuple(hand))]

    # --- splits -----------------------------------------------------------------

    def begin(self, hand: Sequence[int]) -> None:
        """Start a decision on ``hand``: its combinations are generated once, and every
        split of what is left after a candidate reuses them and one memo."""
        cards = tuple(sorted(hand))
        by_rank: dict[int, list[tuple[Play, float]]] = {}
        for p in self.plays(cards):
            c = self.cost(p)
            for r in {RANK_OF[x] for x in p.cards or () if not self.wild(x)}:
                by_rank.setdefault(r, []).append((p, c))
        for lst in by_rank.values():
            lst.sort(key=lambda e: (e[1] / len(e[0].cards or ()), e[0].combo.key))
        self._hand = cards
        self._by_rank = by_rank
        # the order of the cards left in a split: weakest natural first, wild cards last
        ranked = sorted(cards, key=lambda c: (self.wild(c), self.strength(c), c))
        self._order = {c: i for i, c in enumerate(ranked)}
        self._memo: dict[tuple[int, ...], Split] = {}
        self._needs: dict[Play, tuple[tuple[tuple[int, bool], int, tuple[int, ...]], ...]] = {}
        self._spent = 0

    def split(self, hand: Sequence[int]) -> Split:
        """The cheapest split found of ``hand`` (part of the decision's hand) into combinations.

        A search that always covers the hand's weakest natural card, over the
        combinations of the decision's hand re-seated on the cards still left (a
        pair generated from the first two 5s still serves when one of them went
        into a straight), memoised by the cards left, at most ``node_cap`` nodes
        a split and ``DECISION_NODES`` a decision; past that each node takes its
        cheapest-per-card group.
        """
        if self._hand is None or not set(hand) <= set(self._hand):
            self.begin(hand)
        order = self._order
        cards = tuple(sorted(hand, key=order.__getitem__))
        by_rank = self._by_rank
        memo = self._memo
        nodes = [0]

        needs = self._needs

        def seat(play: Play, held: set[int], avail: dict[tuple[int, bool], list[int]]
                 ) -> tuple[int, ...] | None:
            cards = play.cards or ()
            need = needs.get(play)
            if need is None:
                by_key: dict[tuple[int, bool], list[int]] = {}
                for c in cards:
                    by_key.setdefault((RANK_OF[c], self.wild(c)), []).append(c)
                need = needs[play] = tuple((k, len(cs), tuple(cs)) for k, cs in by_key.items())
            for k, n, _ in need:
                if len(avail.get(k, ())) < n:
                    return None
            if all(c in held for c in cards):
                return cards
            out: list[int] = []
            for k, n, own in need:
                mine = [c for c in own if c in held]
                out.extend(mine)
                out.extend([c for c in avail[k] if c not in mine][: n - len(mine)])
            got = tuple(sorted(out))
            kind = self.rules.kind_by_name[play.combo.kind]
            if not kind.cards:  # a rank-count kind: the same ranks are the same play
                return got
            combo = kind.classify(got, self.rules)
            if combo is None or combo.kind != play.combo.kind:
                return None
            return got

        def solve(left: tuple[int, ...]) -> Split:
            hit = memo.get(left)
            if hit is not None:
                return hit
            if not left:
                return Split(0.0, ())
            nodes[0] += 1
            self._spent += 1
            low = left[0]  # (ordered weakest natural first, wild cards last)
            if self.wild(low):  # wild cards alone: singles (or one of the hand's groups of them)
                groups = tuple(Group(Play(p.combo, p.ranks, (c,)), self.cost(p))
                               for c in left for p in [self._as_single(c)])
                res = Split(sum(g.cost for g in groups), groups)
                memo[left] = res
                return res
            best: Split | None = None
            seen: set[tuple[int, ...]] = set()
            held = set(left)
            avail: dict[tuple[int, bool], list[int]] = {}
            for c in left:
                avail.setdefault((RANK_OF[c], self.wild(c)), []).append(c)
            capped = nodes[0] > self.node_cap or self._spent > DECISION_NODES
            for play, cost in by_rank.get(RANK_OF[low], ()):
                if len(seen) >= BRANCH:
                    break
                got = seat(play, held, avail)
                if got is None or got in seen:
                    continue
                seen.add(got)
                rest = list(left)
                for c in got:
                    rest.remove(c)
                sub = solve(tuple(rest))
                total = cost + sub.cost
                if best is None or total < best.cost - 1e-9:
                    placed = play if got == play.cards else play._replace(cards=got)
                    best = Split(total, (Group(placed, cost),) + sub.groups)
                if capped:
                    break
            if best is None:  # no combination left for it (cannot happen: singles exist)
                rest = list(left)
                rest.remove(low)
                sub = solve(tuple(rest))
                single = self._as_single(low)
                best = Split(sub.cost + self.cost(single), (Group(single, self.cost(single)),)
                             + sub.groups)
            memo[left] = best
            return best

        return solve(cards)

    def _as_single(self, card: int) -> Play:
        kind = self.rules.kind_by_name.get("single")
        combo = kind.classify((card,), self.rules) if kind is not None else None
        if combo is None:  # no single kind: a one-card group that costs a turn
            from zsy_lan.engine.combos import Combo

            combo = Combo("single", 1, 0)
        return Play(combo, (RANK_OF[card],), (card,))

    def cost_after(self, hand: Sequence[int], play: Play) -> float:
        """The split cost of ``hand`` once ``play`` is gone.

        A group of the hand's own split costs exactly the split without it: the
        same answer a search would find, without a search whose node cap could
        make a group of the plan look worse than a play that breaks it.
        """
        whole = self.split(hand)
        cards = tuple(sorted(play.cards or ()))
        for g in whole.groups:
            if tuple(sorted(g.play.cards or ())) == cards:
                return whole.cost - g.cost
        rest = list(hand)
        for c in play.cards or ():
            rest.remove(c)
        return self.split(rest).cost


def with_cards(play: Play, hand: Sequence[int]) -> Play:
    """The play with card ids: a rank-count play (a variant mixing kinds) takes the
    hand's first cards of each of its ranks."""
    if play.cards is not None:
        return play
    pool = sorted(hand)
    out = []
    for r in play.ranks:
        c = next(x for x in pool if RANK_OF[x] == r)
        pool.remove(c)
        out.append(c)
    return play._replace(cards=tuple(sorted(out)))


# --- decisions ----------------------------------------------------------------


class Table(NamedTuple):
    """The public facts one decision needs, from the seat's view."""

    seat: int
    hand: tuple[int, ...]
    side: frozenset[int]
    partners: tuple[int, ...]
    opponents: tuple[int, ...]
    counts: tuple[int, ...]
    unseen: tuple[int, ...]


def table_of(rules: Rules, view: RoundState, seat: int) -> Table:
    """The decision's facts: sides, counts, and the cards this seat has not seen."""
    hand = tuple(view.hands[seat] or ())
    side = side_of(rules, view, seat)
    active = view.active
    gone = set(hand) | set(view.played)
    unseen = tuple(c for c in rules.deck if c not in gone)
    return Table(
        seat, hand, side,
        tuple(s for s in active if s in side and s != seat),
        tuple(s for s in active if s not in side),
        tuple(view.counts), unseen,
    )


def beatable(planner: CardPlanner, t: Table, play: Play) -> bool:
    """Could the unseen cards beat ``play`` with a play of its kind (bombs aside)?"""
    kind = planner.rules.kind_by_name.get(play.combo.kind)
    if kind is None:
        return True
    if len(play.cards or ()) > 3:
        return True  # five-card hands and runs: assume they can (generation is costly)
    pool = t.unseen if kind.cards else rank_counts(t.unseen)
    return next(iter(kind.generate(pool, planner.rules, play.combo)), None) is not None


def rank_card_moves(planner: CardPlanner, view: RoundState, t: Table,
                    moves: list[Play | None]) -> list[Play | None]:
    """Legal moves (``None`` = pass), best first, for a card-planned variant."""
    plays = [m for m in moves if m is not None]
    can_pass = any(m is None for m in moves)
    out_now = [m for m in plays if len(m.cards or ()) == len(t.hand)]
    if out_now:
        rest = [m for m in moves if m not in out_now]
        return out_now + rest
    if view.trick is None:
        return list(_lead(planner, t, plays))
    return _follow(planner, view, t, plays, can_pass)


def costs_after(planner: CardPlanner, t: Table, plays: Sequence[Play]) -> dict[Play, float]:
    """Split cost of the hand after each play; past ``LIMIT`` plays (a 27-card Guandan lead
    has hundreds) the rest, taken weakest and longest first, get a cheap estimate."""
    out: dict[Play, float] = {}
    order = sorted(plays, key=lambda m: (
        planner.bomb(m), planner.cost(m) / len(m.cards or ()), planner.play_strength(m)))
    for i, m in enumerate(order[LIMIT:]):
        out[m] = 50.0 + i * 1e-3
    for m in order[:LIMIT]:
        out[m] = planner.cost_after(t.hand, m)
    return out


def _opp_min(t: Table) -> int:
    return min((t.counts[s] for s in t.opponents), default=99)


def _exposed(t: Table, play: Play) -> bool:
    """Could an opponent go out on this lead (holding exactly as many cards)?"""
    n = len(play.cards or ())
    return any(t.counts[o] == n for o in t.opponents)


def _lead(planner: CardPlanner, t: Table, plays: list[Play]) -> list[Play]:
    split = planner.split(t.hand)
    total = {m: planner.cost(m) + after for m, after in costs_after(planner, t, plays).items()}

    def weakness(m: Play) -> tuple[float, float]:
        # the cheapest way to split the hand first, then its weakest group, longer first
        return (round(total[m], 2), planner.play_strength(m) - 0.02 * len(m.cards or ()))

    # bombs go last: they win tricks back, leading one early wastes it
    order = sorted(plays, key=lambda m: (planner.bomb(m), *weakness(m)))
    plain_groups = [g.play for g in split.groups if not planner.bomb(g.play)]
    bombs = [g.play for g in split.groups if planner.bomb(g.play)]
    weak = [g for g in plain_groups if beatable(planner, t, g)]
    controls = [g for g in plain_groups if g not in weak]
    legal = set(plays)
    if len(weak) <= 1 and (controls or bombs):
        # run home: unbeatable groups keep the lead, bombs take it back, the last group last
        first = [g for g in sorted(controls, key=lambda g: -len(g.cards or ())) + bombs + weak
                 if g in legal]
        if first:
            return first + [m for m in order if m not in first]
    low_partner = [p for p in t.partners if t.counts[p] <= 2]
    if low_partner and _opp_min(t) > 1:
        need = min(t.counts[p] for p in low_partner)
        feed = sorted((m for m in plays if len(m.cards or ()) == need and not planner.bomb(m)),
                      key=lambda m: planner.play_strength(m))
        if feed:
            return feed[:1] + [m for m in order if m is not feed[0]]
    if _opp_min(t) <= 3:
        plain = [m for m in order if not planner.bomb(m)]
        safe = [m for m in plain if not _exposed(t, m)]
        if safe:
            return safe + [m for m in order if m not in safe]
        # every plain lead is one an opponent could go out on: lead the strongest
        plain.sort(key=lambda m: -planner.play_strength(m))
        return plain + [m for m in order if m not in plain]
    return order


def _follow(planner: CardPlanner, view: RoundState, t: Table, plays: list[Play],
            can_pass: bool) -> list[Play | None]:
    now = planner.split(t.hand).cost
    after = costs_after(planner, t, plays)
    by_plan: list[Play | None] = sorted(plays, key=lambda m: (after[m], m.combo.key))
    if not can_pass:
        return by_plan
    owner = view.trick_seat
    owner_left = t.counts[owner] if 0 <= owner < len(t.counts) else 99
    if owner in t.side and owner != t.seat:
        # the partner's play is winning the trick: it is the side's. Overtake only when an
        # opponent could still go out over it and this seat holds a play nobody can beat.
        threat = any(
            t.counts[o] == len(view.trick or ()) for o in t.opponents if o != owner
        )
        if threat and beatable(planner, t, _trick_play(view)):
            sure = [m for m in plays if not planner.bomb(m) and not beatable(planner, t, m)]
            if sure:
                return [sure[0], None] + [m for m in by_plan if m is not sure[0]]
        return [None, *by_plan]
    danger = owner_left <= 3 or _opp_min(t) <= 2
    plain = [m for m in plays if not planner.bomb(m)]
    bombs = [m for m in plays if planner.bomb(m)]
    fitting = [m for m in plain if now - after[m] >= 0.45 - (0.6 if danger else 0.0)]
    if not danger and len(t.hand) > 8:
        # with many cards left, top cards (2s, jokers, wilds) are not spent on a low play
        cheap = [m for m in fitting if planner.play_strength(m) < 0.8
                 and not any(planner.wild(c) for c in m.cards or ())]
        # nor the very top (Big Two's 2s, Guandan's jokers): the hand's control for later
        fitting = cheap or [m for m in fitting if now - after[m] >= 0.9
                            and planner.play_strength(m) < TOP]
    chosen: list[Play] = []
    if fitting:
        chosen = sorted(fitting, key=lambda m: (round(after[m], 3), m.combo.key))[:1]
    elif danger and plain:
        chosen = sorted(plain, key=lambda m: (-planner.play_strength(m), after[m]))[:1]
    if not chosen and bombs:
        best = min(bombs, key=lambda m: (after[m], len(m.cards or ()), m.combo.key))
        if danger or after[best] <= 1.7:
            chosen = [best]
    head: list[Play | None] = list(chosen) if chosen else [None]
    tail: list[Play | None] = [m for m in by_plan if m not in chosen]
    if chosen:
        tail.append(None)
    return head + tail


def _trick_play(view: RoundState) -> Play:
    combo = view.trick_combo
    cards = tuple(view.trick or ())
    return Play(combo, tuple(sorted(RANK_OF[c] for c in cards)), cards)


def ranked_plays(planner: CardPlanner, obs: Observation) -> list[Action]:
    """Every legal action of the play phase, best first (card-planned variants)."""
    rules = obs.rules
    view = obs.view
    if rules.in_effect is not None:
        rules = rules.in_effect(rules, view)
    moves = legal_moves(rules, view, obs.seat)
    if not moves:
        return list(obs.legal)
    t = table_of(rules, view, obs.seat)
    planner.begin(t.hand)
    carded = {with_cards(m, t.hand): m for m in moves if m is not None}
    choices: list[Play | None] = [*carded, *(m for m in moves if m is None)]
    order = rank_card_moves(planner, view, t, choices)
    legal = set(obs.legal)
    ranked = [a for a in (move_action(view, obs.seat, carded.get(m) if m else None)
                          for m in order) if a in legal]
    chosen = set(ranked)
    return ranked + [a for a in obs.legal if a not in chosen]


def ranked_returns(planner: CardPlanner, obs: Observation) -> list[Action]:
    """Tribute returns, best first: the card whose loss hurts the split least, low first.

    A wild card is never handed back while another card will do, and a strong
    card to an opponent counts against the return (it comes back to beat us).
    """
    hand = tuple(obs.view.hands[obs.seat] or ())
    duties = obs.view.duties
    receiver = duties[0].receiver if duties else -1
    sign = -1.0 if receiver in side_of(obs.rules, obs.view, obs.seat) else 1.0
    planner.begin(hand)

    def score(a: Action) -> tuple[float, tuple[int, ...]]:
        rest = list(hand)
        for c in a.cards:
            rest.remove(c)
        wild = sum(3.0 for c in a.cards if planner.wild(c))
        gift = sum(planner.strength(c) for c in a.cards)
        return (planner.split(rest).cost + wild + sign * 0.5 * gift, a.cards)

    return sorted(obs.legal, key=score)


def ranked(planner: CardPlanner, obs: Observation) -> list[Action] | None:
    """The card planner's order of ``obs.legal``, or ``None`` when it has no say (bidding)."""
    kinds = {a.kind for a in obs.legal}
    if kinds == {RETURN}:
        return ranked_returns(planner, obs)
    return None
