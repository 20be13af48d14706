"""The round state machine: deal, tribute (ZSY-7), tricks (ZSY-5), the end (ZSY-6).

``apply(rules, state, action)`` is a pure function that returns the next
state or raises :class:`RuleError` naming the broken rule; ``legal_actions``
enumerates what a seat may do. Both work from full information and from one
seat's knowledge (other hands ``None``): then another seat's cards are taken
as given (their combination and its rank are still checked; ownership is the
deal protocol's job).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import combinations
from typing import TypeVar

from .cards import BJ, NUM_RANKS, RANK_OF, card_str, cards_str, rank_counts, rank_of, sort_cards
from .combos import (
    Combo,
    Play,
    beats,
    classify,
    classify_cards,
    clear_memos,
    legal_plays,
    legal_plays_raw,
    raw_counts,
    readings,
)
from .errors import RuleError
from .hookspecs import Lead
from .phases import Phase
from .rules import PhaseHandler, Rules
from .state import (
    GIVE,
    PASS,
    PLAY,
    RETURN,
    Action,
    Duty,
    Hand,
    RoundState,
    evolve,
    fresh_copy,
    with_extra,
)

DECK = 54
T = TypeVar("T")
_new_object = object.__new__
_set_attr = object.__setattr__
_new_tuple = tuple.__new__


def deal_hands(rules: Rules, order: Sequence[int], dealer: int) -> tuple[tuple[Hand, ...], Hand]:
    """Deal a permuted deck one card at a time, starting at the seat after the dealer.

    Returns ``(hands by seat, kitty)``; the kitty is the last ``kitty_size``
    cards of the permutation. ZSY-1.2 D: the first seats in deal order get the
    extra cards, which dealing round-robin gives by itself.
    """
    if not _is_permutation(rules, order):
        raise RuleError("ZSY-1.2", "the deal is not a permutation of the table's deck")
    n = rules.players
    k = rules.kitty_size
    body = list(order[: len(order) - k]) if k else list(order)
    # card i goes to seat (dealer + 1 + i) % n: each seat's cards are one slice
    hands = [body[(seat - dealer - 1) % n :: n] for seat in range(n)]
    kitty = tuple(order[len(order) - k :]) if k else ()
    return tuple(sort_cards(h) for h in hands), sort_cards(kitty)


def _is_permutation(rules: Rules, order: Sequence[int]) -> bool:
    """``sorted(order) == sorted(rules.deck)``, by sets when the deck's cards are distinct."""
    deck = rules.deck
    cards = _cached(rules, "_deck_set", _distinct_set)
    if cards is not None and len(order) == len(deck):
        try:
            return set(order) == cards  # n distinct cards, all of the deck's: a permutation
        except TypeError:
            pass
    return sorted(order) == sorted(deck)


def _distinct_set(rules: Rules) -> frozenset[int] | None:
    try:
        cards = frozenset(rules.deck)
    except TypeError:
        return None
    return cards if len(cards) == len(rules.deck) else None


def _cached(rules: Rules, name: str, compute: Callable[[Rules], T]) -> T:
    """``compute(rules)``, kept on the (frozen, immutable) rules object after the first call."""
    fields = getattr(rules, "__dict__", None)
    if fields is None:
        return compute(rules)
    try:
        return fields[name]
    except KeyError:
        value = fields[name] = compute(rules)
        return value


def _lowest_card(rules: Rules) -> int:
    """``rules.lowest_card`` (a scan of the deck), computed once per ruleset."""
    if type(rules) is not Rules:
        return rules.lowest_card  # a subclass may compute it its own way
    return _cached(rules, "_lowest_card", _lowest_card_of)


def _lowest_card_of(rules: Rules) -> int:
    return rules.lowest_card


# card id -> id modulo the deck size, for ids 0..255 (a bytes.translate table)
_MOD_DECK = bytes(c % DECK for c in range(256))


def _holds(hand: Sequence[int], start: int) -> bool:
    """``any(c % DECK == start for c in hand)``."""
    if 0 <= start < DECK:
        try:
            return start in bytes(hand).translate(_MOD_DECK)
        except (TypeError, ValueError):
            pass
    return any(c % DECK == start for c in hand)


def start_card_holder(
    rules: Rules, hands: Sequence[Hand], dealer: int, card: int | None = None
) -> int:
    """ZSY-2.1 D: who holds the start card (``card``: a deal's own, :class:`Lead`); with two
    copies, the first after the dealer."""
    start = (_lowest_card(rules) if card is None else card) % DECK
    n = rules.players
    for i in range(1, n + 1):
        seat = (dealer + i) % n
        if _holds(hands[seat], start):
            return seat
    raise RuleError(rules.rule_id("ZSY-2.1"), f"nobody holds the start card {card_str(start)}")


def _stock_to_holder(
    rules: Rules, hands: Sequence[Hand | None], counts: Sequence[int], kitty: Hand,
    dealer: int, lead: Lead,
) -> tuple[list[Hand | None], list[int], None]:
    """``Lead.stock``: the set-aside cards to the holder of the lead's card, or to the
    first seat dealt when that card is set aside (B2-1.1 with three players)."""
    assert lead.card is not None
    n = rules.players
    start = lead.card % DECK
    seats = [(dealer + 1 + i) % n for i in range(n)]  # the first seat dealt first
    holder = next((s for s in seats if _holds(hands[s] or (), start)), seats[0])
    new_hands = list(hands)
    new_hands[holder] = sort_cards(tuple(new_hands[holder] or ()) + tuple(kitty))
    new_counts = list(counts)
    new_counts[holder] += len(kitty)
    return new_hands, new_counts, None


def new_round(
    rules: Rules,
    hands: Sequence[Hand | None],
    *,
    round_no: int,
    dealer: int,
    leader: int | None = None,
    duties: Sequence[Duty] = (),
    counts: Sequence[int] | None = None,
    kitty: Hand | None = None,
    lead: Lead | None = None,
) -> RoundState:
    """The state right after the deal.

    Round 1 (no ``leader`` given, or ``duties`` empty and ``round_no == 1``):
    the start-card holder leads and must include it (ZSY-2.1). Later rounds:
    ``leader`` is the previous Upstream (ZSY-2.2) and ``duties`` the tribute.
    With partial knowledge pass ``counts`` and, in round 1, the proven
    ``leader``. A variant's ``kitty`` (Dou Dizhu) is kept as the secret extra
    field ``secret_kitty`` (``None``: unknown here). ``lead``: the deal's own
    lead (a plugin's ``zsy_deal_lead``) instead of these rules; with a card,
    ``leader`` is its proven holder when the hands are not all known.
    """
    n = rules.players
    if len(hands) != n:
        raise ValueError(f"{len(hands)} hands for {n} players")
    if counts is None:
        if any(h is None for h in hands):
            raise ValueError("counts are needed when a hand is unknown")
        counts = [len(h) for h in hands if h is not None]
    must_contain = None
    if lead is not None and lead.stock and kitty and all(h is not None for h in hands):
        hands, counts, kitty = _stock_to_holder(rules, hands, counts, kitty, dealer, lead)
    if lead is not None and lead.card is not None and lead.seat is None:
        if duties:
            raise ValueError("a deal that owes tribute cannot be led by a card (Lead.card)")
        if leader is None:
            leader = start_card_holder(rules, [h or () for h in hands], dealer, lead.card)
        must_contain = lead.card % DECK if lead.must_play else None
    elif lead is not None and lead.seat is not None:
        leader = lead.seat
    elif round_no == 1 and not duties and not rules.start_card_lead:
        if leader is None:
            leader = (dealer + 1) % n  # the game's on_deal hook decides who really acts
    elif round_no == 1 and not duties:
        if leader is None:
            leader = start_card_holder(rules, [h or () for h in hands], dealer)
        must_contain = _lowest_card(rules) % DECK
    if leader is None:
        raise ValueError("a later round needs the previous Upstream as leader (ZSY-2.2)")
    state = RoundState(
        players=n,
        round_no=round_no,
        dealer=dealer,
        phase=Phase.TRIBUTE if duties else Phase.PLAY,
        hands=tuple(None if h is None else sort_cards(h) for h in hands),
        counts=tuple(counts),
        turn=duties[0].giver if duties else leader,
        leader=leader,
        seat_last=(None,) * n,
        plays_made=(0,) * n,
        must_contain=must_contain,
        duties=tuple(duties),
    )
    if kitty:
        state = with_extra(state, secret_kitty=tuple(kitty))
    if rules.on_deal is not None:
        state = rules.on_deal(rules, state)
    return state


# --- legality ------------------------------------------------------------


def _require_turn(state: RoundState, seat: int, rule: str) -> None:
    if state.phase == Phase.DONE:
        raise RuleError("ZSY-6.2", "the round is over")
    if seat != state.turn:
        raise RuleError(rule, f"it is seat {state.turn}'s turn, not seat {seat}'s")


def remove_cards(state: RoundState, seat: int, cards: Sequence[int], rule: str) -> Hand | None:
    """``seat``'s hand without ``cards``; checks ownership when the hand is known."""
    if len(cards) == 1:  # hot path: a single card held once
        hand = state.hands[seat]
        if hand is not None:
            card = cards[0]
            try:
                i = hand.index(card)
            except ValueError:
                pass  # not held: the general path below names it
            else:
                rest = hand[:i] + hand[i + 1 :]
                if card not in rest:
                    return rest
    gone = set(cards)
    if len(gone) != len(cards):
        raise RuleError(rule, "the same card is named twice")
    hand = state.hands[seat]
    if hand is None:
        if len(cards) > state.counts[seat]:
            raise RuleError(rule, f"seat {seat} holds only {state.counts[seat]} cards")
        return None
    rest = [c for c in hand if c not in gone]
    if len(rest) + len(gone) != len(hand):  # hot path: one pass when every card is held
        held = set(hand)
        missing = [c for c in cards if c not in held]
        if missing:
            raise RuleError(rule, f"seat {seat} does not hold {cards_str(missing)}")
    return tuple(rest)


def _set(seq: tuple, i: int, value: object) -> tuple:
    out = list(seq)
    out[i] = value
    return tuple(out)


def next_active(state: RoundState, seat: int) -> int:
    """The next seat after ``seat`` that still holds cards (ZSY-5.3)."""
    finished = state.finished
    n = state.players
    if not finished:
        return (seat + 1) % n
    for i in range(1, n + 1):
        s = (seat + i) % n
        if s not in finished:
            return s
    return -1


def _classify_cards(rules: Rules, cards: Sequence[int]) -> Combo | None:
    """``classify(rules, rank_counts(cards))``, memoised per ruleset on the cards tuple."""
    memo = _cards_memo(rules) if type(cards) is tuple else None
    if memo is None:
        return classify(rules, rank_counts(cards))
    combo = memo.get(cards, _NOT_SEEN)
    if combo is _NOT_SEEN:
        combo = classify(rules, rank_counts(cards))
        if len(memo) >= 50_000:
            memo.clear()
        memo[cards] = combo
    return combo  # type: ignore[return-value]


_NOT_SEEN = object()


def _cards_memo(rules: Rules) -> dict[tuple[int, ...], Combo | None] | None:
    """The ruleset's memo of played cards -> combination (kept beside ``classify_memo``)."""
    fields = getattr(rules, "__dict__", None)
    if fields is None:
        return None
    memo = fields.get("_cards_classify_memo")
    if memo is None:
        memo = fields["_cards_classify_memo"] = {}
    return memo


def check_play(rules: Rules, state: RoundState, action: Action) -> Combo:
    """Raise :class:`RuleError` unless ``action`` is a legal play now; return its combination."""
    if rules.in_effect is not None:
        rules = rules.in_effect(rules, state)
    try:
        return _check_play(rules, state, action)[0]
    except RuleError as exc:
        if not rules.rule_ids:
            raise
        raise exc.cited(rules.rule_ids) from None


def _check_play(rules: Rules, state: RoundState, action: Action) -> tuple[Combo, Hand | None]:
    if state.phase == Phase.DONE or action.seat != state.turn:
        _require_turn(state, action.seat, "ZSY-5.1")
    if not action.cards:
        raise RuleError("ZSY-3.5", "a play needs at least one card")
    rest = remove_cards(state, action.seat, action.cards, "ZSY-5.1")
    if rules.card_kinds:
        combo = classify_cards(rules, action.cards)
    else:
        combo = _classify_cards(rules, action.cards)
    if combo is None:
        raise RuleError("ZSY-3.5", f"{cards_str(action.cards)} is not a combination")
    start = state.must_contain
    if start is not None and not any(c % DECK == start for c in action.cards):
        raise RuleError(
            "ZSY-2.1", f"the first lead must contain the start card {card_str(state.must_contain)}"
        )
    last = state.trick_combo
    if last is not None and not beats(rules, combo, last):
        # cards with several readings (an airplane that is also a longer chain of
        # triples, a straight flush that is also a straight) count as the one that beats
        combo = next((c for c in readings(rules, action.cards) if beats(rules, c, last)), combo)
    if last is not None and not beats(rules, combo, last):
        if rules.kind_by_name.get(last.kind) is not None and rules.kind_by_name[last.kind].bomb:
            raise RuleError("ZSY-4.2", f"{cards_str(action.cards)} does not beat the bomb")
        if combo.kind != last.kind or combo.length != last.length:
            raise RuleError(
                "ZSY-4.1",
                f"{cards_str(action.cards)} is a {_noun(rules, combo)}; "
                f"follow with a {_noun(rules, last)} or a bomb",
            )
        raise RuleError("ZSY-4.1", f"{cards_str(action.cards)} is not higher than the last play")
    return combo, rest


def _noun(rules: Rules, combo: Combo) -> str:
    """A combination's kind in the table's English words (``full house``, never ``fullhouse``),
    with its size where the kind comes in several (``straight of 6 cards``)."""
    noun = rules.vocabulary.get("kind:" + combo.kind, combo.kind)
    return f"{noun} of {combo.length} cards" if combo.length >= 5 else noun


def apply(rules: Rules, state: RoundState, action: Action) -> RoundState:
    """The state after ``action``; raises :class:`RuleError` if it is illegal.

    The round's phase handler decides (:func:`phase_handler`).
    """
    if state.phase == Phase.DONE:
        raise RuleError(rules.rule_id("ZSY-6.2"), "the round is over")
    if rules.in_effect is not None:
        rules = rules.in_effect(rules, state)
    own = rules.phase_handlers  # phase_handler(), inlined: this is the hot path
    handler = own.get(state.phase) if own else None
    if handler is None:
        handler = _ENGINE_PHASE(state.phase, _PLAY_PHASE)
    try:
        return handler.apply(rules, state, action)
    except RuleError as exc:
        if not rules.rule_ids:
            raise
        raise exc.cited(rules.rule_ids) from None  # the plugin's own id (zsy_rule_ids)


class PlayPhase:
    """ZSY-5: tricks; a play that beats the last one, or a pass."""

    def legal(self, rules: Rules, state: RoundState, seat: int) -> list[Action]:
        """One action per distinct choice of ranks (see :func:`legal_actions`)."""
        if state.hands[seat] is None:
            return []
        return [move_action(state, seat, m) for m in legal_moves(rules, state, seat)]

    def apply(self, rules: Rules, state: RoundState, action: Action) -> RoundState:
        """The state after a play or a pass."""
        if action.kind == PLAY:
            combo, hand = _check_play(rules, state, action)
            return _apply_play(rules, state, action, combo, hand)
        if action.kind == PASS:
            return _apply_pass(rules, state, action)
        raise RuleError(
            "ZSY-5.1", f"'{action.kind}' is not an action of the play phase: play or pass"
        )


class TributePhase:
    """ZSY-7: the tribute owed after a round, gives then returns, one duty at a time."""

    def legal(self, rules: Rules, state: RoundState, seat: int) -> list[Action]:
        """The give (the highest natural cards), or each distinct return."""
        hand = state.hands[seat]
        return [] if hand is None else _tribute_actions(state, hand)

    def apply(self, rules: Rules, state: RoundState, action: Action) -> RoundState:
        """The state after the duty at the head of the list is paid."""
        return _apply_tribute(rules, state, action)

    def audit(self, rules: Rules, state: RoundState, action: Action, hand: Hand) -> None:
        """ZSY-7.4 once the giver's ``hand`` is known (the private deal's audit)."""
        if action.kind == GIVE and state.duties:
            need = required_tribute(hand, state.duties[0].n)
            if sorted(rank_of(c) for c in action.cards) != need:
                raise RuleError("ZSY-7.4", "did not give its highest natural card(s)")


class DonePhase:
    """The round is over: nothing is legal, every action is refused (ZSY-6.2)."""

    def legal(self, rules: Rules, state: RoundState, seat: int) -> list[Action]:
        """Nothing."""
        return []

    def apply(self, rules: Rules, state: RoundState, action: Action) -> RoundState:
        """Refused."""
        raise RuleError("ZSY-6.2", "the round is over")


_PLAY_PHASE = PlayPhase()

#: the phases the engine runs itself; a plugin's ``zsy_phases`` adds its own
#: (Dou Dizhu's bidding and doubling) or takes one of these over
ENGINE_PHASES: dict[str, PhaseHandler] = {
    Phase.TRIBUTE: TributePhase(),
    Phase.PLAY: _PLAY_PHASE,
    Phase.DONE: DonePhase(),
}


_ENGINE_PHASE = ENGINE_PHASES.get


def phase_handler(rules: Rules, phase: str) -> PhaseHandler:
    """The handler that runs ``phase`` under ``rules``: a plugin's, else the engine's.

    A phase nobody registered is run as the play phase (as it always was).
    """
    own = rules.phase_handlers
    handler = own.get(phase) if own else None
    if handler is None:
        handler = ENGINE_PHASES.get(phase, _PLAY_PHASE)
    return handler


def _apply_play(
    rules: Rules, state: RoundState, action: Action, combo: Combo, hand: Hand | None
) -> RoundState:
    seat = action.seat
    cards = action.cards
    cards = (cards[0],) if len(cards) == 1 else sort_cards(cards)
    # the hot path: one copy, fields set before it escapes (state.fresh_copy, inlined)
    d = state.__dict__.copy()
    new = _new_object(type(state))
    _set_attr(new, "__dict__", d)
    seq = list(state.hands)
    seq[seat] = hand
    d["hands"] = tuple(seq)
    seq = list(state.counts)
    left = seq[seat] = seq[seat] - len(cards)
    d["counts"] = tuple(seq)
    d["trick"] = cards
    d["trick_seat"] = seat
    d["trick_combo"] = combo
    d["passes"] = 0
    seq = list(state.seat_last)
    seq[seat] = cards
    d["seat_last"] = tuple(seq)
    seq = list(state.plays_made)
    seq[seat] += 1
    d["plays_made"] = tuple(seq)
    d["played"] = state.played + cards
    d["log"] = state.log + ((seat, cards),)  # the public play log (RoundState.log)
    d["must_contain"] = None
    d["turn"] = -1
    if rules.on_play is not None:
        new = rules.on_play(rules, new, action, combo)
    if left == 0:
        new = _went_out(rules, new, seat)
        if new.phase == Phase.DONE:
            return new
    # fresh object: safe to set before it escapes
    new.__dict__["turn"] = next_active(new, seat) if new.finished else (seat + 1) % new.players
    return new


def _went_out(rules: Rules, state: RoundState, seat: int) -> RoundState:
    """ZSY-6.1: ``seat`` emptied its hand; freeze hands for scoring on the first out."""
    state = evolve(state, finished=state.finished + (seat,))
    if len(state.finished) == 1:
        state = evolve(
            state,
            first_out_hands=state.hands,
            first_out_counts=state.counts,
            first_out_plays=state.plays_made,
        )
    over = rules.round_over(rules, state) if rules.round_over is not None else None
    if over is None:
        over = len(state.active) <= 1  # ZSY-6.2
    if over:
        rest = sorted(state.active, key=lambda s: (s - seat) % state.players)
        return evolve(state, finished=state.finished + tuple(rest), phase=Phase.DONE, turn=-1)
    return state


def _apply_pass(rules: Rules, state: RoundState, action: Action) -> RoundState:
    seat = action.seat
    if state.phase == Phase.DONE or seat != state.turn:
        _require_turn(state, seat, "ZSY-5.1")
    if state.trick is None:
        raise RuleError("ZSY-5.1", "the leader must play: passing is only for following a play")
    passes = state.passes + 1
    owner = state.trick_seat
    log = state.log + ((seat, ()),)  # the public play log (RoundState.log): () is a pass
    n = state.players
    if state.finished:
        active = state.active
        owner_active = owner in active
        needed = len(active) - 1 if owner_active else len(active)
    else:  # everybody still holds cards (the common case): no need to build ``active``
        owner_active = 0 <= owner < n
        needed = n - 1 if owner_active else n
    if passes < needed:
        new, d = fresh_copy(state)
        d["passes"] = passes
        d["log"] = log
        seq = list(state.seat_last)
        seq[seat] = ()
        d["seat_last"] = tuple(seq)
        d["turn"] = next_active(state, seat) if state.finished else (seat + 1) % n
        return new
    # ZSY-5.2 the trick is won; ZSY-5.4 D if its winner is out, the next active seat leads
    if owner_active:
        leader = owner
    else:
        leader = -1
        if rules.next_leader is not None:
            choice = rules.next_leader(rules, state, owner)
            leader = -1 if choice is None else choice
        if leader < 0:
            leader = next_active(state, owner)
    new, d = fresh_copy(state)
    d["trick"] = None
    d["trick_seat"] = -1
    d["trick_combo"] = None
    d["passes"] = 0
    d["log"] = log
    d["seat_last"] = (None,) * n
    d["leader"] = leader
    d["turn"] = leader
    return new


# --- tribute (ZSY-7) ---------------------------------------------------------


def required_tribute(hand: Hand, n: int) -> list[int]:
    """The ranks of the ``n`` highest natural cards of ``hand`` (ZSY-7.1, jokers excluded)."""
    naturals = sorted((rank_of(c) for c in hand if rank_of(c) < BJ), reverse=True)
    return sorted(naturals[:n])


def _apply_tribute(rules: Rules, state: RoundState, action: Action) -> RoundState:
    duty = state.duties[0]
    rule = "ZSY-7.1"
    _require_turn(state, action.seat, rule)
    if action.kind != duty.kind:
        raise RuleError(
            rule, f"seat {duty.giver} must {duty.kind} {duty.n} card(s) to seat {duty.receiver}"
        )
    n = action.value if action.hidden else len(action.cards)
    if n != duty.n:
        raise RuleError(rule, f"the tribute is {duty.n} card(s), not {n}")
    cards: Hand = ()
    giver_hand = state.hands[duty.giver]
    if not action.hidden:
        giver_hand = remove_cards(state, duty.giver, action.cards, rule)
        cards = sort_cards(action.cards)
        if duty.kind == GIVE and state.hands[duty.giver] is not None:
            need = required_tribute(state.hands[duty.giver], duty.n)  # type: ignore[arg-type]
            got = sorted(rank_of(c) for c in cards)
            if got != need:
                raise RuleError(
                    "ZSY-7.4",
                    f"the tribute must be the {duty.n} highest natural card(s): "
                    f"ranks {' '.join(_rank_names(need))}",
                )
    elif duty.kind == GIVE:
        raise RuleError(rule, "tribute cards are handed face up")
    else:
        giver_hand = None  # a face-down return seen from outside: only the counts move
    recv = state.hands[duty.receiver]
    if recv is not None and cards:
        recv = sort_cards(recv + cards)
    elif recv is not None and not cards:
        recv = None  # a hidden card arrived: only possible in a view that lacks the card
    counts = list(state.counts)
    counts[duty.giver] -= duty.n
    counts[duty.receiver] += duty.n
    hands = _set(_set(state.hands, duty.giver, giver_hand), duty.receiver, recv)
    face_up = cards if duty.kind == GIVE else None
    rest = state.duties[1:]
    new = evolve(
        state,
        hands=hands,
        counts=tuple(counts),
        duties=rest,
        tribute_log=state.tribute_log + ((duty.giver, duty.receiver, face_up, duty.n),),
    )
    if rest:
        return evolve(new, turn=rest[0].giver)
    return evolve(new, phase=Phase.PLAY, turn=state.leader)


def _rank_names(ranks: Sequence[int]) -> list[str]:
    from .cards import RANK_NAMES

    return [RANK_NAMES[r] for r in ranks]


# --- enumeration ---------------------------------------------------------


# Per-hand facts the hot paths need again and again while a hand waits for its
# turn: (rank counts, the counts as bytes, each card's rank as bytes). Bounded;
# only pure functions of the hand tuple, so output never depends on it.
_HAND_INFO: dict[Hand, tuple[tuple[int, ...], bytes | None, bytes]] = {}
_HAND_INFO_LIMIT = 4096
_RANK_BYTES = bytes(RANK_OF) + bytes(256 - len(RANK_OF))  # translate table: card id -> rank


def _hand_info(hand: Hand) -> tuple[tuple[int, ...], bytes | None, bytes] | None:
    global _LAST_HAND
    last = _LAST_HAND
    if last[0] is hand:  # the hand asked about just before (legal_moves, then move_action)
        return last[1]
    if type(hand) is not tuple:
        return None
    info = _HAND_INFO.get(hand)
    if info is None:
        counts = rank_counts(hand)
        try:  # rank_counts accepted the ids, so bytes() only fails on negative ones
            ranks = bytes(hand).translate(_RANK_BYTES)
        except (TypeError, ValueError):
            ranks = bytes([RANK_OF[c] for c in hand])
        info = (tuple(counts), raw_counts(counts), ranks)
        if len(_HAND_INFO) >= _HAND_INFO_LIMIT:
            _HAND_INFO.clear()
        _HAND_INFO[hand] = info
    _LAST_HAND = (hand, info)  # one tuple (it keeps the hand alive): replaced atomically
    return info


_LAST_HAND: tuple[object, tuple[tuple[int, ...], bytes | None, bytes] | None] = (None, None)


def _clear_memos() -> None:
    """Forget every memoised hand and generated play (benchmarks time cold calls with this)."""
    global _LAST_HAND
    _LAST_HAND = (None, None)
    _HAND_INFO.clear()
    clear_memos()


def pick_cards(hand: Hand, ranks: Sequence[int], prefer: int | None = None) -> Hand:
    """Concrete cards from ``hand`` for ``ranks``: lowest suits first, ``prefer`` first of all."""
    if prefer is None:
        last = _LAST_HAND
        if last[0] is hand:
            info = last[1]
        else:
            info = _HAND_INFO.get(hand) if type(hand) is tuple else None
        if info is not None:
            picked = _pick_fast(hand, info[2], ranks)
            if picked is not None:
                return picked
    need = [0] * NUM_RANKS
    for r in ranks:
        need[r] += 1
    out = []
    if prefer is not None:
        for c in hand:
            if c % DECK == prefer and need[RANK_OF[c]]:
                need[RANK_OF[c]] -= 1
                out.append(c)
                break
    left = len(ranks) - len(out)
    for c in hand:
        r = RANK_OF[c]
        if need[r] and c not in out:
            need[r] -= 1
            out.append(c)
            left -= 1
            if not left:
                break
    if left:
        raise RuleError("ZSY-5.1", _not_held(hand, ranks))
    return sort_cards(out) if prefer is not None else tuple(out)


def _not_held(hand: Hand, ranks: Sequence[int]) -> str:
    """Why ``ranks`` cannot be taken from ``hand``, saying how many of the rank it holds."""
    from .cards import RANK_NAMES

    held = rank_counts(hand)
    asked = _rank_counts_of(ranks)
    for r in range(NUM_RANKS):
        if asked[r] > held[r]:
            name = RANK_NAMES[r]
            if not held[r]:
                return f"you do not hold any {name}"
            return f"you hold only {_count(held[r])} {name}, not {_count(asked[r])}"
    return "you do not hold those cards"


_COUNTS = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight")


def _count(n: int) -> str:
    return _COUNTS[n] if 0 <= n < len(_COUNTS) else str(n)


def _rank_counts_of(ranks: Sequence[int]) -> list[int]:
    """How many of each rank index a list of ranks holds (a 15-slot list)."""
    out = [0] * NUM_RANKS
    for r in ranks:
        out[r] += 1
    return out


def _pick_fast(hand: Hand, hand_ranks: bytes, ranks: Sequence[int]) -> Hand | None:
    """:func:`pick_cards` without ``prefer`` by searching the hand's rank bytes.

    ``None`` when it cannot answer (a rank not held, odd input): the loop decides.
    """
    if len(ranks) == 1:
        r = ranks[0]
        if type(r) is int and 0 <= r < NUM_RANKS:
            i = hand_ranks.find(r)
            if i >= 0:
                return (hand[i],)
        return None
    found: list[int] = []
    after: dict[int, int] = {}
    for r in ranks:
        if type(r) is not int or not 0 <= r < NUM_RANKS:
            return None
        i = hand_ranks.find(r, after.get(r, 0))
        if i < 0:
            return None
        found.append(i)
        after[r] = i + 1
    found.sort()
    out = tuple([hand[i] for i in found])
    if len(set(out)) != len(out):
        return None  # a card id held twice: the loop's rules apply
    return out


def legal_moves(rules: Rules, state: RoundState, seat: int) -> list[Play | None]:
    """The play phase's choices as rank patterns (``None`` = pass): cheaper than actions.

    Bots and hints work on these and turn only the chosen one into cards with
    :func:`move_action`. Empty outside the play phase or when not ``seat``'s turn.
    """
    if state.phase != Phase.PLAY or seat != state.turn:
        return []
    hand = state.hands[seat]
    if hand is None:
        return []
    if rules.in_effect is not None:
        rules = rules.in_effect(rules, state)
    info = _hand_info(hand)
    if info is None:
        out: list[Play | None] = list(
            legal_plays(rules, rank_counts(hand), state.trick_combo, hand)
        )
    else:
        out = list(legal_plays_raw(rules, list(info[0]), info[1], state.trick_combo, hand))
    if state.must_contain is not None:
        start = state.must_contain
        start_rank = RANK_OF[start]
        out = [
            p
            for p in out
            if p is not None
            and (
                start_rank in p.ranks
                if p.cards is None
                else any(c % DECK == start for c in p.cards)
            )
        ]
    if state.trick is not None:
        out.append(None)
    return out


def move_action(state: RoundState, seat: int, move: Play | None) -> Action:
    """The concrete action for a move of :func:`legal_moves`."""
    if move is None:
        return _new_tuple(Action, (PASS, seat, (), 0, False))  # Action(PASS, seat), cheaper
    if move.cards is not None:
        return Action(PLAY, seat, move.cards)
    hand = state.hands[seat]
    assert hand is not None
    cards = pick_cards(hand, move.ranks, state.must_contain)
    return _new_tuple(Action, (PLAY, seat, cards, 0, False))  # Action(PLAY, seat, cards)


def legal_actions(rules: Rules, state: RoundState, seat: int) -> list[Action]:
    """What ``seat`` may do now (empty when it is not its turn or its hand is unknown).

    One action per distinct choice of ranks: suits never matter for rank, so
    ``3♦ 3♣`` and ``3♥ 3♠`` are one entry (lowest suits picked; the start
    card always included when the first lead needs it).
    """
    if state.phase == Phase.DONE or seat != state.turn:
        return []
    return phase_handler(rules, state.phase).legal(rules, state, seat)


def _tribute_actions(state: RoundState, hand: Hand) -> list[Action]:
    duty = state.duties[0]
    if duty.kind == GIVE:
        need = required_tribute(hand, duty.n)
        return [Action(GIVE, duty.giver, pick_cards(hand, need))]
    seen = set()
    out = []
    for combo in combinations(hand, duty.n):
        key = tuple(rank_of(c) for c in combo)
        if key not in seen:
            seen.add(key)
            out.append(Action(RETURN, duty.giver, combo))
    return out


def play_from_ranks(rules: Rules, state: RoundState, seat: int, ranks: Sequence[int]) -> Action:
    """The concrete play for typed ranks (the UI's ``3 3``), from the seat's known hand."""
    hand = state.hands[seat]
    if hand is None:
        raise ValueError("the seat's hand is not known here")
    return Action(PLAY, seat, pick_cards(hand, ranks, state.must_contain))


__all__ = [
    "ENGINE_PHASES",
    "GIVE",
    "PASS",
    "PLAY",
    "RETURN",
    "apply",
    "check_play",
    "deal_hands",
    "legal_actions",
    "legal_moves",
    "move_action",
    "new_round",
    "next_active",
    "phase_handler",
    "pick_cards",
    "play_from_ranks",
    "required_tribute",
    "start_card_holder",
]
