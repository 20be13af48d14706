"""What a player types, turned into an engine action or a UI request.

Shared by the local game and the network table so both accept exactly the
same input: cards (``3 3``, ``10 J Q K A``, ``33 44 55``), ``p``/``pass``,
``?`` (list legal moves, numbered), ``#N`` for move N of that list (a bare
number is a card: ``4`` plays a four, never move 4), ``h`` (hint:
cycles through the legal plays), ``c`` (card counter), ``s`` (sort by suit or
rank), ``l`` (legend), ``help``, ``quit``.

A card is never read as a command: every word here is checked against the card
parser (:func:`is_card_text`), so ``q``/``Q`` is always a queen, ``t`` a ten, ``b``/``r``
a joker, in any case; leaving the table is the whole word ``quit`` (or ``exit``).
"""

from __future__ import annotations

from dataclasses import dataclass

from zsy_lan.engine.cards import RANK_NAMES, cards_str, parse_ranks, rank_of
from zsy_lan.engine.choices import cards_make, decline
from zsy_lan.engine.errors import EngineError, ParseError, RuleError
from zsy_lan.engine.round import pick_cards
from zsy_lan.engine.rules import Rules
from zsy_lan.engine.state import Action, RoundState
from zsy_lan.text import words
from zsy_lan.text.i18n import _, join_items, ngettext
from zsy_lan.text.present import describe  # one function for the core and the UI

UI_WORDS = {
    "?": "list",
    "??": "list",
    "list": "list",
    "h": "hint",
    "hint": "hint",
    "c": "counter",
    "count": "counter",
    "s": "sort",
    "sort": "sort",
    "l": "legend",
    "legend": "legend",
    "help": "help",
    # no "q": a single Q is a queen (typing Q to play one used to quit the table)
    "quit": "quit",
    "exit": "quit",
}
PASS_WORDS = {"p", "pass", "-", "不要", "过"}


def is_card_text(text: str) -> bool:
    """True when ``text`` reads as cards (``q``, ``T``, ``B``, ``33``): then it is never a word."""
    try:
        parse_ranks(text)
    except EngineError:
        return False
    return True


@dataclass(frozen=True)
class Request:
    """A UI request that is not an action (``list``, ``hint``, ``quit``...)."""

    name: str


def interpret(
    text: str, rules: Rules, state: RoundState, seat: int, legal: list[Action]
) -> Action | Request:
    """Turn a typed line into an :class:`Action` to try, or a :class:`Request`.

    Raises :class:`ParseError` (bad card token, with what to type instead) or
    :class:`RuleError` (e.g. cards not held). Legality beyond that is the
    engine's to check when the action is applied.
    """
    raw = text.strip()
    low = raw.lower()
    if not raw:
        raise ParseError(_("type cards to play, p to pass, ? for your legal moves, help for more"))
    if low in UI_WORDS and not is_card_text(raw):
        return Request(UI_WORDS[low])
    if low.startswith("#"):
        number = low[1:].strip()
        if not legal:
            raise ParseError(_("no moves to choose from now: it is not your turn"))
        if not number.isdigit() or not 1 <= int(number) <= len(legal):
            raise ParseError(
                _("there is no move {typed}: type ? to list your moves, then #1..#{last}").format(
                    typed=raw, last=len(legal)
                )
            )
        return legal[int(number) - 1]
    if low in PASS_WORDS:
        # outside the tricks a "pass" means the variant's own pass or decline
        # (a bid of 0, no double, no redouble)
        return decline(state, seat, legal)
    named = _variant_action(raw, rules, legal)
    if named is not None:
        return named
    hand = state.hands[seat]
    if hand is None:
        raise RuleError("ZSY-5.1", _("your hand is not known here"))
    wanted = parse_ranks(raw)
    if not any(s is not None for _r, s in wanted):
        _check_held(hand, [r for r, _ in wanted])
    exact = [(r, s) for r, s in wanted if s is not None]
    if exact:
        return Action(cards_make(state), seat, pick_exact(hand, wanted))
    ranks = [r for r, _ in wanted]
    action = Action(cards_make(state), seat, pick_cards(hand, ranks, state.must_contain))
    return action if action in legal else _suited_choice(ranks, legal) or action


def _suited_choice(ranks: list[int], legal: list[Action]) -> Action | None:
    """Where suits decide (Big Two's 7♦ 7♠ on 7♣ 7♥, a flush typed as ranks), the lowest
    legal play with exactly the typed ranks; ``None`` when there is none."""
    want = sorted(ranks)
    for a in legal:
        if a.cards and sorted(rank_of(c) for c in a.cards) == want:
            return a
    return None


def _variant_action(raw: str, rules: Rules, legal: list[Action]) -> Action | None:
    """A variant's action typed in words: what the list shows (``double``, ``no redouble``,
    ``bid 2``) or the kind and its value (``double 1``); ``None`` when the text is no such
    word (then it is read as cards)."""
    found = words.match_action(rules, raw, legal)
    if found is not None:
        return found
    word, _sep, rest = raw.lower().partition(" ")
    same = [a for a in legal if a.kind == word and not a.cards and not a.hidden]
    if not same or is_card_text(raw):
        return None
    if rest:
        for a in same:
            if rest.strip() == str(a.value):
                return a
    if len(same) == 1 and not rest:
        return same[0]
    choices = join_items(describe(a, rules=rules) for a in legal if not a.cards)
    raise ParseError(
        _("'{typed}' is not one of your choices now: type one of {choices}").format(
            typed=raw, choices=choices
        )
    )


def _check_held(hand: tuple[int, ...], ranks: list[int]) -> None:
    """ZSY-5.1: refuse ranks the hand does not hold enough of, saying how many it holds."""
    held = [0] * len(RANK_NAMES)
    for c in hand:
        held[rank_of(c)] += 1
    asked = [0] * len(RANK_NAMES)
    for r in ranks:
        asked[r] += 1
    for r, n in enumerate(asked):
        if n > held[r]:
            if held[r] == 0:
                text = _("you hold no {ranks}").format(ranks=words.rank_plural(r))
            else:
                text = ngettext(
                    "you hold only {held} {rank}, not {asked}",
                    "you hold only {held} {ranks}, not {asked}",
                    held[r],
                ).format(
                    held=words.count_word(held[r]),
                    rank=words.rank_word(r),
                    ranks=words.rank_plural(r),
                    asked=words.count_word(n),
                )
            raise RuleError("ZSY-5.1", text)


def pick_exact(hand: tuple[int, ...], wanted: list[tuple[int, int | None]]) -> tuple[int, ...]:
    """Cards for typed tokens where some name a suit (``10s``): those exactly, others lowest."""
    from zsy_lan.engine.cards import make_card, sort_cards

    left = list(hand)
    out = []
    for rank, suit in sorted(wanted, key=lambda rs: rs[1] is None):
        match = None
        for c in left:
            if rank_of(c) == rank and (suit is None or c % 54 == make_card(rank, suit) % 54):
                match = c
                break
        if match is None:
            label = cards_str([make_card(rank, suit)]) if suit is not None else RANK_NAMES[rank]
            raise RuleError("ZSY-5.1", _("you do not hold {card}").format(card=label))
        left.remove(match)
        out.append(match)
    return sort_cards(out)
