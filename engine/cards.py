"""Cards: ranks, suits, card ids, decks, and the text players type and read.

A card is a plain ``int`` so that hands are cheap tuples and every encoding is
canonical. Natural cards of deck ``d`` (0 or 1) are ``54*d + rank*4 + suit``
for ranks 3..2 (rank index 0..12) and suits ♦ ♣ ♥ ♠ (0..3, the suit order of
seed 004, RULES.md); the black joker is ``54*d + 52``, the red one
``54*d + 53``. Rank indices run low to high: ``3 4 5 6 7 8 9 10 J Q K A 2 BJ RJ``
is 0..14, so comparing ranks is comparing ints.

Parsing accepts what people type (``10``, ``T``, ``t``, ``0``; ``BJ``/``RJ`` and
the aliases in :data:`JOKER_ALIASES`; an optional suit as a letter or a symbol)
and raises :class:`~zsy_lan.engine.errors.ParseError` naming the bad token.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from .errors import ParseError

RANK_NAMES: tuple[str, ...] = (
    "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "2", "BJ", "RJ",
)
NUM_RANKS = 15
TWO = 12
BJ = 13
RJ = 14
NATURAL_RANKS = range(13)

SUIT_LETTERS = ("D", "C", "H", "S")
SUIT_SYMBOLS = ("♦", "♣", "♥", "♠")
SUIT_WORDS = ("diamonds", "clubs", "hearts", "spades")

BLACK_JOKER_ID = 52
RED_JOKER_ID = 53
DECK_SIZE = 54

# Everything a player may type for a rank, lower-cased.
_RANK_ALIASES: dict[str, int] = {name.lower(): i for i, name in enumerate(RANK_NAMES)}
_RANK_ALIASES.update({"t": 7, "0": 7})
JOKER_ALIASES: dict[str, tuple[str, ...]] = {
    "BJ": ("BJ", "B", "SJ", "LJ", "X", "小王", "black joker"),
    "RJ": ("RJ", "R", "DJ", "大王", "red joker"),
}
for _alias in JOKER_ALIASES["BJ"]:
    _RANK_ALIASES[_alias.lower()] = BJ
for _alias in JOKER_ALIASES["RJ"]:
    _RANK_ALIASES[_alias.lower()] = RJ
_SUIT_ALIASES: dict[str, int] = {}
for _i, (_l, _s) in enumerate(zip(SUIT_LETTERS, SUIT_SYMBOLS, strict=True)):
    _SUIT_ALIASES[_l.lower()] = _i
    _SUIT_ALIASES[_s] = _i
_SUIT_ALIASES.update({"♢": 0, "♧": 1, "♡": 2, "♤": 3})

LEGEND = (
    "Ranks low to high: 3 4 5 6 7 8 9 10 J Q K A 2 BJ RJ. Ten: 10, T or 0. "
    "Black joker: BJ, B, SJ, X, 小王. Red joker: RJ, R, DJ, 大王. "
    "Suits (optional): D/♦ C/♣ H/♥ S/♠, e.g. 10s or 10♠."
)


def _rank_slow(card: int) -> int:
    c = card % DECK_SIZE
    if c >= BLACK_JOKER_ID:
        return BJ if c == BLACK_JOKER_ID else RJ
    return c >> 2


# Lookup tables: move generation and apply are hot, and a tuple index is the
# cheapest way Python has to map a card id to its rank or sort position.
RANK_OF: tuple[int, ...] = tuple(_rank_slow(c) for c in range(2 * DECK_SIZE))


def rank_of(card: int) -> int:
    """Rank index 0..14 of a card id."""
    return RANK_OF[card]


def suit_of(card: int) -> int | None:
    """Suit index 0..3 of a natural card, ``None`` for a joker."""
    c = card % DECK_SIZE
    return None if c >= BLACK_JOKER_ID else c & 3


def make_card(rank: int, suit: int | None = None, deck: int = 0) -> int:
    """The card id of ``rank`` (and ``suit`` for natural cards) in ``deck``."""
    if rank == BJ:
        return deck * DECK_SIZE + BLACK_JOKER_ID
    if rank == RJ:
        return deck * DECK_SIZE + RED_JOKER_ID
    if suit is None:
        raise ValueError("a natural card needs a suit")
    return deck * DECK_SIZE + rank * 4 + suit


def full_deck(decks: int = 1) -> tuple[int, ...]:
    """All card ids of ``decks`` 54-card decks, in id order."""
    return tuple(range(DECK_SIZE * decks))


def _sort_slow(card: int) -> int:
    s = suit_of(card)
    return (rank_of(card) * 5 + (0 if s is None else s + 1)) * 2 + card // DECK_SIZE


SORT_KEY: tuple[int, ...] = tuple(_sort_slow(c) for c in range(2 * DECK_SIZE))


def sort_key(card: int) -> int:
    """Sort by rank, then suit, then deck: the order hands are shown in."""
    return SORT_KEY[card]


def sort_cards(cards: Iterable[int]) -> tuple[int, ...]:
    """Cards sorted for display and canonical encoding (rank, suit, deck)."""
    return tuple(sorted(cards, key=SORT_KEY.__getitem__))


def rank_counts(cards: Iterable[int]) -> list[int]:
    """A 15-slot list: how many cards of each rank index."""
    counts = [0] * NUM_RANKS
    for c in cards:
        counts[RANK_OF[c]] += 1
    return counts


def card_str(card: int, *, ascii_suits: bool = False) -> str:
    """``10♠``, ``3♦``, ``BJ`` (or ``10S`` with ``ascii_suits``)."""
    r = rank_of(card)
    s = suit_of(card)
    if s is None:
        return RANK_NAMES[r]
    return RANK_NAMES[r] + (SUIT_LETTERS[s] if ascii_suits else SUIT_SYMBOLS[s])


def cards_str(cards: Iterable[int], *, ascii_suits: bool = False) -> str:
    """Space-separated cards, sorted."""
    return " ".join(card_str(c, ascii_suits=ascii_suits) for c in sort_cards(cards))


def ranks_str(ranks: Iterable[int]) -> str:
    """Space-separated rank names, lowest first: ``3 3 4 4``, ``BJ RJ``."""
    return " ".join(RANK_NAMES[r] for r in sorted(ranks))


def _split_tokens(text: str) -> list[str]:
    """Tokens separated by spaces or commas; ``33 44`` style runs split per rank."""
    tokens: list[str] = []
    for raw in text.replace(",", " ").split():
        tokens.extend(_split_run(raw))
    return tokens


# Pieces a glued run may be cut into: plain ranks only, never the one-letter
# joker aliases (``4x`` is a typo, not "4 and the black joker").
_RUN_PIECES = {1: set("3456789tjqka20"), 2: {"10", "bj", "rj"}}


def _split_run(raw: str) -> list[str]:
    """Split a glued run such as ``334455`` or ``10JQKA`` into rank tokens.

    Only splits when every piece is a plain rank (possibly with a suit), so a
    single token like ``10s`` or ``BJ`` stays whole.
    """
    if _parse_token(raw) is not None:
        return [raw]
    out: list[str] = []
    i = 0
    low = raw
    while i < len(low):
        for size in (2, 1):
            piece = low[i : i + size]
            low_piece = piece.lower()
            if low_piece in _RUN_PIECES[size]:
                out.append(piece)
                i += size
                break
        else:
            return [raw]  # not a run: let the caller name the whole token
    return out


def _parse_token(token: str) -> tuple[int, int | None] | None:
    """``(rank, suit or None)`` for one token, or ``None`` when unparseable."""
    t = token.strip()
    low = t.lower()
    if low in _RANK_ALIASES:
        return _RANK_ALIASES[low], None
    # rank followed by one suit character
    if len(t) >= 2:
        head, tail = t[:-1].lower(), t[-1]
        suit = _SUIT_ALIASES.get(tail.lower(), _SUIT_ALIASES.get(tail))
        if suit is not None and head in _RANK_ALIASES:
            rank = _RANK_ALIASES[head]
            if rank >= BJ:
                return None
            return rank, suit
    return None


def parse_ranks(text: str) -> list[tuple[int, int | None]]:
    """Parse typed cards into ``(rank, suit or None)`` pairs.

    Raises :class:`ParseError` naming the first token that is not a card.
    """
    tokens = _split_tokens(text)
    if not tokens:
        raise ParseError("no cards given: type ranks like '3 3' or '10 J Q K A'", token="")
    out = []
    for tok in tokens:
        parsed = _parse_token(tok)
        if parsed is None:
            raise ParseError(
                f"'{tok}' is not a card (ranks: 3-10 J Q K A 2 BJ RJ; ten also T or 0; "
                "optional suit D C H S or ♦ ♣ ♥ ♠)",
                token=tok,
            )
        out.append(parsed)
    return out


def parse_rank_list(text: str) -> list[int]:
    """Parse typed cards and keep only the ranks (suits ignored)."""
    return sorted(r for r, _ in parse_ranks(text))


def parse_cards_exact(
    text: str, decks: int = 1, deck: Sequence[int] | None = None
) -> tuple[int, ...]:
    """Parse fully specified cards (every natural card with a suit) into ids.

    Used for test fixtures and ``--hand`` when suits are given. A natural card
    without a suit gets the lowest free suit; repeated cards take the next deck.
    With ``deck`` (the table's cards) only its cards are used: a bare ``3`` at a
    3-player table is 3♥, then 3♠ (3♦ and 3♣ are not dealt, ZSY-1.2), and a
    card the deck does not hold is refused by name.
    """
    used: set[int] = set()
    wanted = parse_ranks(text)
    allowed = None if deck is None else frozenset(deck)
    # suited tokens first, so "A Ad" gives the unsuited A another suit
    ordered = sorted(wanted, key=lambda rs: rs[1] is None)
    return sort_cards(
        _free_card(rank, suit, decks, used, text, allowed) for rank, suit in ordered
    )


def _free_card(
    rank: int,
    suit: int | None,
    decks: int,
    used: set[int],
    text: str,
    allowed: frozenset[int] | None = None,
) -> int:
    suits: Sequence[int | None]
    if rank >= BJ:
        suits = [None]
    else:
        suits = [suit] if suit is not None else range(4)
    for deck in range(decks):
        for s in suits:
            c = make_card(rank, s, deck)
            if c not in used and (allowed is None or c in allowed):
                used.add(c)
                return c
    if allowed is not None and suit is not None:
        card = make_card(rank, suit)
        if all(make_card(rank, suit, d) not in allowed for d in range(decks)):
            raise ParseError(
                f"{card_str(card)} is not in this table's deck", token=card_str(card)
            )
    raise ParseError(
        f"too many {RANK_NAMES[rank]} in '{text}' for {decks} deck(s)", token=RANK_NAMES[rank]
    )


def hand_from_ranks(ranks: Iterable[int], decks: int = 1) -> tuple[int, ...]:
    """A concrete hand with the given ranks (lowest suits first), for tools and tests."""
    used: set[int] = set()
    return sort_cards(_free_card(r, None, decks, used, ranks_str(ranks)) for r in ranks)
