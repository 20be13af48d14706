"""The house rules of seed 004 (ZSY-9.6), each an option of this one plugin.

Every option is off by default; enable the plugin and switch options on:
``--variant house-rules --option pair_chains=true``.

* ``pair_chains``: two or more consecutive pairs (5 5 6 6), by top pair.
* ``triple_chains``: two or more consecutive triples (5 5 5 6 6 6), by top triple.
* ``triple_single``: a triple with one single, compared by the triple.
* ``three_card_bombs``: three of a kind is a (smallest) bomb.
* ``wrap_straights``: straights run from A-2-3-4-5 to 10-J-Q-K-A; A-2-3-4-5
  is the highest, then 2-3-4-5-6, then 10-J-Q-K-A (no J-Q-K-A-2).
* ``straight_flush``: five or more consecutive cards of one suit are their own
  combination (ZSY-9.6 D, 2026-12-01): only a higher straight flush of the same
  length or a bomb beats one, and it does not beat a plain straight ("different
  combinations never beat each other, except the bomb"). Its cards are still a
  straight: played on a plain straight they count as one (and must be higher).
* ``suit_tiebreak``: between straights of equal length and equal top rank,
  the higher suit of the top card wins (suit order ♦ < ♣ < ♥ < ♠).
* ``single_tribute``: the Downstream gives their single highest card (jokers
  included) face up; the Upstream offers two cards face up and the Downstream
  takes one of them.
* ``start_3h``: 3♥ is the start card of the first round (ZSY-2.1 option).
* ``no_jokers``: four players with 52 cards (jokers removed), 13 each.
* ``revolution``: four of a kind is not a bomb but a "revolution" that
  reverses the rank order for the rest of the round (each one flips it back);
  there are no bombs at all, so it cannot be combined with three-card bombs.

Straight flushes and the suit tie-break need the actual cards: they are
card-aware combination kinds (``ComboKind.cards``); everything else works on
rank counts like the base game.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Mapping, Sequence
from itertools import combinations
from typing import Any

from zsy_lan.engine.cards import (
    BJ,
    NUM_RANKS,
    RANK_OF,
    TWO,
    full_deck,
    make_card,
    rank_of,
    sort_cards,
    suit_of,
)
from zsy_lan.engine.combos import (
    BOMB,
    JOKERBOMB,
    TRIPLE,
    Combo,
    ComboKind,
    Play,
    run_classify,
    run_generate,
)
from zsy_lan.engine.errors import RuleError
from zsy_lan.engine.hookspecs import (
    ComboLimits,
    Deck,
    FirstLead,
    Option,
    TableConfig,
    Tribute,
    hookimpl,
)
from zsy_lan.engine.phases import Phase
from zsy_lan.engine.rules import Rules
from zsy_lan.engine.state import Action, Duty, RoundState, evolve, with_extra

name = "house-rules"
version = "1.1.0"  # 1.1: a straight flush no longer beats a plain straight
description = "Seed 004 house rules (ZSY-9.6): chains, bombs, wrap straights, revolution..."

ACE = TWO - 1
OPTIONS = (
    ("pair_chains", "two or more consecutive pairs, e.g. 5 5 6 6"),
    ("triple_chains", "two or more consecutive triples, e.g. 5 5 5 6 6 6"),
    ("triple_single", "a triple with a single, compared by the triple"),
    ("three_card_bombs", "three of a kind is a bomb"),
    ("wrap_straights", "A-2-3-4-5 highest, then 2-3-4-5-6, then 10-J-Q-K-A"),
    ("straight_flush", "a straight of one suit is its own combination; a higher one or a bomb "
                       "beats it"),
    ("suit_tiebreak", "equal straights: the higher suit of the top card wins"),
    ("single_tribute", "Downstream gives their highest card; Upstream offers two, one comes back"),
    ("start_3h", "3♥ is the start card of the first round"),
    ("no_jokers", "4 players with 52 cards (jokers removed)"),
    ("revolution", "four of a kind reverses the rank order (no bombs)"),
)


def _on(table: TableConfig, option: str) -> bool:
    return bool(table.enabled(name) and table.opt(name, option))


@hookimpl
def zsy_options() -> Sequence[Option]:
    """One boolean option per seed 004 house rule (all off by default)."""
    return [Option(o, "bool", False, f"ZSY-9.6: {h}") for o, h in OPTIONS]


@hookimpl
def zsy_supported_players(options: Mapping[str, Any]) -> Sequence[int] | None:
    """``no_jokers`` is the 4-player 52-card game."""
    return (4,) if options.get("no_jokers") else None


@hookimpl
def zsy_conflicts(table: TableConfig) -> Sequence[str]:
    """House rules are Zheng Shangyou rules; some options exclude each other."""
    out = []
    if table.game != "zsy":
        out.append(f"house rules are Zheng Shangyou rules, not for '{table.game}'")
        return out
    if _on(table, "revolution") and _on(table, "three_card_bombs"):
        out.append(
            "options revolution and three_card_bombs conflict: a revolution table has no bombs"
        )
    if _on(table, "single_tribute"):
        for other in ("no-tribute", "partnerships"):
            if table.enabled(other):
                out.append(f"option single_tribute conflicts with {other}")
    if _on(table, "start_3h") and table.opt("zsy", "start_card") == "3C":
        out.append("option start_3h conflicts with zsy option start_card=3C")
    return out


@hookimpl
def zsy_deck(table: TableConfig) -> Deck | None:
    """``no_jokers``: 52 cards for four players."""
    if not _on(table, "no_jokers"):
        return None
    return Deck(1, tuple(c for c in full_deck(1) if rank_of(c) < BJ))


@hookimpl
def zsy_first_lead(table: TableConfig) -> FirstLead | None:
    """``start_3h``: 3♥ starts the first round."""
    return FirstLead(required=True, start_card=make_card(0, 2)) if _on(table, "start_3h") else None


@hookimpl
def zsy_combo_limits(table: TableConfig, limits: ComboLimits) -> ComboLimits | None:
    """``three_card_bombs``: bombs from three cards."""
    if _on(table, "three_card_bombs"):
        return dataclasses.replace(limits, min_bomb=3)
    return None


VOCABULARY: dict[str, str] = {
    "kind:pairchain": "run of pairs",
    "kinds:pairchain": "runs of pairs",
    "play:pairchain": "pairs {low} to {high}",
    "kind:triplechain": "run of triples",
    "kinds:triplechain": "runs of triples",
    "play:triplechain": "triples {low} to {high}",
    "kind:triple1": "triple with a single",
    "kinds:triple1": "triples with a single",
    "play:triple1": "three {ranks} with {kickers}",
    "kind:straightflush": "straight flush",
    "kinds:straightflush": "straight flushes",
    "play:straightflush": "straight flush {low} to {high}",
    "kind:four": "revolution",
    "kinds:four": "revolutions",
    "play:four": "revolution of {count} {ranks}",
    "action:offer": "offer {cards}",
    "action:pick": "take {cards}",
}


@hookimpl
def zsy_vocabulary(table: TableConfig) -> Mapping[str, str] | None:
    """The house rules' combinations and tribute steps in players' words."""
    return VOCABULARY if table.enabled(name) else None


# --- the combination kinds ------------------------------------------------------------


def _triple1_c(counts: Sequence[int], rules: Rules) -> Combo | None:
    triple = single = -1
    for r in range(NUM_RANKS):
        c = counts[r]
        if not c:
            continue
        if c == 3 and triple < 0 and r <= TWO:
            triple = r
        elif c == 1 and single < 0:
            single = r
        else:
            return None
    return Combo("triple1", 4, triple) if triple >= 0 and single >= 0 else None


_T1 = [[Play(Combo("triple1", 4, t), tuple(sorted((t, t, t, s)))) for s in range(NUM_RANKS)]
       for t in range(TWO + 1)]


def _triple1_g(counts: Sequence[int], rules: Rules, last: Combo | None) -> Iterator[Play]:
    start = 0 if last is None else last.key + 1
    singles = [s for s in range(NUM_RANKS) if counts[s]]
    return iter([_T1[t][s] for t in range(start, TWO + 1) if counts[t] >= 3
                 for s in singles if s != t])


def _chain_kind(kind: str, width: int) -> ComboKind:
    def classify(counts: Sequence[int], rules: Rules) -> Combo | None:
        found = run_classify(counts, width, 2, rules.straight_top)
        return None if found is None else Combo(kind, found[0] * width, found[1])

    def generate(counts: Sequence[int], rules: Rules, last: Combo | None) -> Iterator[Play]:
        return run_generate(counts, width, 2, rules.straight_top, kind, last)

    return ComboKind(kind, classify, generate)


PAIRCHAIN = _chain_kind("pairchain", 2)
TRIPLECHAIN = _chain_kind("triplechain", 3)
TRIPLE1 = ComboKind("triple1", _triple1_c, _triple1_g)

# Wrap-around straights: A and 2 may also stand below the 3. Keys: an ordinary
# straight is keyed by its top rank (at most the ace); 2-3-4-5-6... by WRAP_2,
# A-2-3-4-5... by WRAP_A, so the wrapped ones are the highest of each length.
WRAP_2 = 20
WRAP_A = 21
_LOW = (ACE, TWO) + tuple(range(0, ACE))  # A 2 3 4 ... K: positions of the wrapped order


def straight_key(ranks: Sequence[int], wrap: bool, top: int, min_len: int = 5) -> int | None:
    """The straight key of distinct ranks (ascending), or None if they are no straight."""
    n = len(ranks)
    if n < min_len or ranks[-1] >= BJ:
        return None
    if ranks[-1] - ranks[0] == n - 1 and ranks[-1] <= (ACE if wrap else top):
        return ranks[-1]
    if not wrap or TWO not in ranks:
        return None
    rs = set(ranks)
    for start, key in ((0, WRAP_A), (1, WRAP_2)):
        if set(_LOW[start:start + n]) == rs and len(_LOW[start:start + n]) == n:
            return key
    return None


def _top_rank(ranks: Sequence[int], key: int) -> int:
    """The rank at the top of a straight (5 for A-2-3-4-5)."""
    if key < WRAP_2:
        return key
    n = len(ranks)
    start = 0 if key == WRAP_A else 1
    return _LOW[start + n - 1]


def _wrap_straight_kind(min_len: int) -> ComboKind:
    def classify(counts: Sequence[int], rules: Rules) -> Combo | None:
        ranks = [r for r in range(NUM_RANKS) if counts[r]]
        if any(counts[r] != 1 for r in ranks):
            return None
        key = straight_key(ranks, True, ACE, min_len)
        return None if key is None else Combo("straight", len(ranks), key)

    def generate(counts: Sequence[int], rules: Rules, last: Combo | None) -> Iterator[Play]:
        return iter(_wrap_runs(lambda r: counts[r] > 0, min_len, last))

    return ComboKind("straight", classify, generate)


def _wrap_runs(held: Any, min_len: int, last: Combo | None) -> list[Play]:
    """Every straight (ordinary up to the ace, and wrapped) of ranks where ``held(rank)``."""
    out = list(run_generate([1 if held(r) else 0 for r in range(NUM_RANKS)], 1, min_len, ACE,
                            "straight", last))
    for start, key in ((1, WRAP_2), (0, WRAP_A)):
        for n in range(min_len, len(_LOW) - start + 1):
            ranks = _LOW[start:start + n]
            if not all(held(r) for r in ranks):
                break
            if last is not None and (n != last.length or key <= last.key):
                continue
            out.append(Play(Combo("straight", n, key), tuple(sorted(ranks))))
    return out


def _by_rank(hand: Sequence[int]) -> list[list[int]]:
    """The hand's card ids per rank, ascending (lowest suit first)."""
    out: list[list[int]] = [[] for _ in range(NUM_RANKS)]
    for c in sorted(hand):
        out[RANK_OF[c]].append(c)
    return out


def _card_straight_kind(wrap: bool, min_len: int) -> ComboKind:
    """``suit_tiebreak``: the straight kind keyed ``4 * straight key + suit of the top card``."""

    def classify(cards: Sequence[int], rules: Rules) -> Combo | None:
        ranks = sorted(RANK_OF[c] for c in cards)
        if len(set(ranks)) != len(ranks):
            return None
        key = straight_key(ranks, wrap, rules.straight_top, min_len)
        if key is None:
            return None
        top = _top_rank(ranks, key)
        suit = max(suit_of(c) or 0 for c in cards if RANK_OF[c] == top)
        return Combo("straight", len(ranks), key * 4 + suit)

    def generate(hand: Sequence[int], rules: Rules, last: Combo | None) -> Iterator[Play]:
        per = _by_rank(hand)
        if wrap:
            runs = _wrap_runs(lambda r: bool(per[r]), min_len, None)
        else:
            counts = [min(len(x), 1) for x in per]
            runs = list(run_generate(counts, 1, min_len, rules.straight_top, "straight", None))
        out = []
        for run in runs:
            top = _top_rank(run.ranks, run.combo.key)
            base = tuple(per[r][0] for r in run.ranks if r != top)
            seen = set()
            for card in per[top]:
                suit = suit_of(card) or 0
                if suit in seen:
                    continue
                seen.add(suit)
                combo = Combo("straight", run.combo.length, run.combo.key * 4 + suit)
                if last is not None and (combo.length != last.length or combo.key <= last.key):
                    continue
                out.append(Play(combo, run.ranks, tuple(sorted(base + (card,)))))
        return iter(out)

    return ComboKind("straight", classify, generate, cards=True)


def _flush_kind(wrap: bool, tiebreak: bool, min_len: int) -> ComboKind:
    """``straight_flush``: five or more consecutive cards of one suit."""
    mult = 4 if tiebreak else 1

    def classify(cards: Sequence[int], rules: Rules) -> Combo | None:
        suits = {suit_of(c) for c in cards}
        if len(suits) != 1 or None in suits:
            return None
        ranks = sorted(RANK_OF[c] for c in cards)
        if len(set(ranks)) != len(ranks):
            return None
        key = straight_key(ranks, wrap, rules.straight_top, min_len)
        if key is None:
            return None
        return Combo("straightflush", len(ranks), key * mult + (suits.pop() or 0) * (mult > 1))

    def generate(hand: Sequence[int], rules: Rules, last: Combo | None) -> Iterator[Play]:
        out = []
        for suit in range(4):
            per: list[list[int]] = [[] for _ in range(NUM_RANKS)]
            for c in sorted(hand):
                if suit_of(c) == suit:
                    per[RANK_OF[c]].append(c)
            if sum(1 for x in per if x) < min_len:
                continue
            if wrap:
                runs = _wrap_runs(lambda r, per=per: bool(per[r]), min_len, None)
            else:
                counts = [min(len(x), 1) for x in per]
                runs = list(run_generate(counts, 1, min_len, rules.straight_top, "straight", None))
            for run in runs:
                key = run.combo.key * mult + suit * (mult > 1)
                combo = Combo("straightflush", run.combo.length, key)
                if last is not None and (combo.length != last.length or combo.key <= last.key):
                    continue
                out.append(Play(combo, run.ranks, tuple(sorted(per[r][0] for r in run.ranks))))
        return iter(out)

    return ComboKind("straightflush", classify, generate, cards=True)


def _four_c(counts: Sequence[int], rules: Rules) -> Combo | None:
    found = None
    for r in range(NUM_RANKS):
        if counts[r]:
            if found is not None:
                return None
            found = r
    if found is None or found > TWO or counts[found] < 4:
        return None
    return Combo("four", counts[found], found)


def _four_g(counts: Sequence[int], rules: Rules, last: Combo | None) -> Iterator[Play]:
    out = []
    for r in range(TWO + 1):
        for n in range(4, counts[r] + 1):
            if last is None or (n == last.length and r > last.key):
                out.append(Play(Combo("four", n, r), (r,) * n))
    return iter(out)


FOUR = ComboKind("four", _four_c, _four_g)


@hookimpl
def zsy_combo_kinds(table: TableConfig, kinds: tuple[ComboKind, ...]) -> Sequence[ComboKind] | None:
    """Add, drop and replace kinds for the options that are on."""
    if not table.enabled(name):
        return None
    out = list(kinds)
    wrap = _on(table, "wrap_straights")
    tiebreak = _on(table, "suit_tiebreak")
    if _on(table, "three_card_bombs"):
        out = [k for k in out if k is not TRIPLE]
    if _on(table, "revolution"):
        out = [k for k in out if k is not BOMB and k is not JOKERBOMB] + [FOUR]
    if tiebreak:
        out = [k for k in out if k.name != "straight"] + [_card_straight_kind(wrap, 5)]
    elif wrap:
        out = [_wrap_straight_kind(5) if k.name == "straight" else k for k in out]
    if _on(table, "straight_flush"):
        # card kinds are tried before rank kinds: a straight flush reads as one
        out.append(_flush_kind(wrap, tiebreak, 5))
    if _on(table, "pair_chains"):
        out.append(PAIRCHAIN)
    if _on(table, "triple_chains"):
        out.append(TRIPLECHAIN)
    if _on(table, "triple_single"):
        out.append(TRIPLE1)
    return out


# --- revolution ------------------------------------------------------------------------


def _reversed_beats(base: Any) -> Any:
    def beats(rules: Rules, play: Combo, last: Combo) -> bool | None:
        if base is not None:
            verdict = base(rules, play, last)
            if verdict is not None:
                return verdict
        return play.kind == last.kind and play.length == last.length and play.key < last.key

    return beats


@hookimpl
def zsy_rules_in_effect(table: TableConfig) -> Any:
    """``revolution``: while an odd number of fours was played, lower ranks win."""
    if not _on(table, "revolution"):
        return None
    cache: list[Rules] = []

    def in_effect(rules: Rules, state: RoundState) -> Rules:
        if not state.get("revolution"):
            return rules
        if not cache or cache[0] is not rules:
            flipped = dataclasses.replace(
                rules, beats_override=_reversed_beats(rules.beats_override), in_effect=None
            )
            cache[:] = [rules, flipped]
        return cache[1]

    return in_effect


@hookimpl
def zsy_on_play(rules: Rules, state: RoundState, action: Action, combo: Combo) -> RoundState | None:
    """``revolution``: a four of a kind flips the rank order."""
    if combo.kind != "four":
        return None
    return with_extra(state, revolution=1 - int(state.get("revolution", 0)))


# --- single-card tribute ----------------------------------------------------------------

OFFER = "offer"
PICK = "pick"


@hookimpl
def zsy_tribute(table: TableConfig, tribute: Tribute) -> Tribute | None:
    """``single_tribute``: one card, no second tribute."""
    if _on(table, "single_tribute"):
        return Tribute(enabled=tribute.enabled, cards=1, second=False)
    return None


@hookimpl
def zsy_tribute_duties(rules: Rules, order: tuple[int, ...]) -> Sequence[Duty] | None:
    """``single_tribute``: give the highest card, offer two, pick one."""
    if not _single_tribute(rules):
        return None
    if not rules.tribute:
        return ()
    up, down = order[0], order[-1]
    return (Duty("give", down, up, 1), Duty(OFFER, up, down, 2), Duty(PICK, down, up, 1))


def _single_tribute(rules: Rules) -> bool:
    return bool(rules.option(name, "single_tribute"))


class SingleTribute:
    """Seed 004's tribute: highest card up, two cards offered, one taken (all face up)."""

    def legal(self, rules: Rules, state: RoundState, seat: int) -> list[Action]:
        """The forced give, every pair to offer, or either offered card to pick."""
        duty = state.duties[0]
        hand = state.hands[seat]
        if seat != duty.giver or hand is None:
            return []
        if duty.kind == "give":
            top = max(RANK_OF[c] for c in hand)
            return [Action("give", seat, (next(c for c in hand if RANK_OF[c] == top),))]
        if duty.kind == OFFER:
            return [Action(OFFER, seat, pair) for pair in combinations(hand, 2)]
        offered = state.get("offered", ())
        return [Action(PICK, seat, (c,)) for c in offered]

    def apply(self, rules: Rules, state: RoundState, action: Action) -> RoundState:
        """Move the cards; after the pick the round's leader plays."""
        duty = state.duties[0]
        rule = "ZSY-9.6"
        if action.seat != duty.giver or state.turn != duty.giver:
            raise RuleError(rule, f"seat {duty.giver} must {duty.kind} now")
        if action.kind != duty.kind:
            raise RuleError(rule, f"seat {duty.giver} must {duty.kind}, not {action.kind}")
        if len(action.cards) != duty.n or len(set(action.cards)) != duty.n:
            raise RuleError(rule, f"{duty.kind} takes {duty.n} card(s)")
        hands = list(state.hands)
        counts = list(state.counts)
        giver_hand = hands[duty.giver]
        if duty.kind == OFFER:
            if giver_hand is not None and any(c not in giver_hand for c in action.cards):
                raise RuleError(rule, "you can only offer cards you hold")
            new = with_extra(state, offered=tuple(sorted(action.cards)))
            return evolve(new, duties=state.duties[1:], turn=state.duties[1].giver,
                          tribute_log=state.tribute_log + ((duty.giver, duty.receiver,
                                                            tuple(sorted(action.cards)), duty.n),))
        if duty.kind == "give":
            card = action.cards[0]
            if giver_hand is not None:
                if card not in giver_hand:
                    raise RuleError(rule, "you do not hold that card")
                if RANK_OF[card] != max(RANK_OF[c] for c in giver_hand):
                    raise RuleError(rule, "the tribute is your highest card")
            src, dst = duty.giver, duty.receiver
        else:
            card = action.cards[0]
            if card not in state.get("offered", ()):
                raise RuleError(rule, "pick one of the two offered cards")
            src, dst = duty.receiver, duty.giver  # the card comes from the offerer
        if hands[src] is not None:
            hands[src] = tuple(c for c in hands[src] if c != card)
        if hands[dst] is not None:
            hands[dst] = sort_cards(hands[dst] + (card,))
        counts[src] -= 1
        counts[dst] += 1
        rest = state.duties[1:]
        new = evolve(state, hands=tuple(hands), counts=tuple(counts), duties=rest,
                     tribute_log=state.tribute_log + ((src, dst, (card,), 1),))
        if rest:
            return evolve(new, turn=rest[0].giver)
        return evolve(with_extra(new, offered=()), phase=Phase.PLAY, turn=state.leader)


@hookimpl
def zsy_phases(table: TableConfig) -> Mapping[str, Any] | None:
    """``single_tribute`` runs the tribute phase itself."""
    return {Phase.TRIBUTE: SingleTribute()} if _on(table, "single_tribute") else None
