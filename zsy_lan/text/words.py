"""The presenter's vocabulary: the words players read for the game's terms.

Why a module of its own (DESIGN.md, "Presentation is a layer of its own"):
the engine and the plugins name things for the machine (``fullhouse``,
``triple1``, ``chain``, ``double`` with value 0); players must read "full
house, 9s over 4s", "three 9s with 4", "straight 10 to A", "no double", in
their own language. Each variant fills one vocabulary through the
``zsy_vocabulary`` hook (English texts, merged into ``Rules.vocabulary``);
this module looks a term up there (falling back on the base game's words
below), translates it with gettext and fills in the placeholders.

Plugins cannot import :mod:`zsy_lan.text.i18n`, so the English texts of the
built-in plugins are repeated in :data:`BUILTIN_TERMS`, each marked with
``N_`` so that the catalogue extraction finds them (a test checks that every
built-in plugin's text is listed here). A third-party plugin's words are
shown in English unless a catalogue happens to translate them.

Everything here is pure (no I/O); the functions the UI calls are
:func:`combo_name`, :func:`play_name`, :func:`kind_name`, :func:`action_text`,
:func:`role_name`, :func:`seat_role`, :func:`place_title`, :func:`stake_word`,
:func:`rank_word` and :func:`match_action` (typed words -> a legal action).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from zsy_lan.engine.cards import NUM_RANKS, RANK_NAMES, RANK_OF, card_str, cards_str
from zsy_lan.engine.combos import Combo, classify_cards
from zsy_lan.engine.rules import Rules
from zsy_lan.engine.state import PASS, PLAY, Action, RoundState
from zsy_lan.text.i18n import N_, NP_, _, ngettext, pgettext
from zsy_lan.text.play_order import run_order, shown_order, split_play

__all__ = [
    "BUILTIN_TERMS",
    "action_text",
    "combo_name",
    "count_word",
    "english",
    "kind_name",
    "match_action",
    "place_title",
    "play_name",
    "rank_plural",
    "rank_word",
    "role_name",
    "seat_role",
    "stake_word",
    "term",
]

# --- the built-in plugins' English words (extracted for translation) -----------------
#
# Keys are documented in engine/hookspecs.py (zsy_vocabulary). The base game's
# words are also the fallback for rules built without plugins (base_rules()).

_ZSY: dict[str, str] = {
    # TRANSLATORS: combination templates: {rank} a rank as on a card (9, A), {ranks} that
    # rank in the plural (9s, aces), {count} how many cards in words, {low}/{high} the ends
    # of a run, {kickers} the extra cards' ranks, {kicker_ranks} their rank in the plural.
    "kind:single": N_("single"),
    "kinds:single": N_("singles"),
    "play:single": N_("single {rank}"),
    "kind:pair": N_("pair"),
    "kinds:pair": N_("pairs"),
    "play:pair": N_("pair of {ranks}"),
    "kind:triple": N_("triple"),
    "kinds:triple": N_("triples"),
    "play:triple": N_("three {ranks}"),
    "kind:fullhouse": N_("full house"),
    "kinds:fullhouse": N_("full houses"),
    "play:fullhouse": N_("full house, {ranks} over {kicker_ranks}"),
    "kind:straight": N_("straight"),
    "kinds:straight": N_("straights"),
    "play:straight": N_("straight {low} to {high}"),
    "kind:bomb": N_("bomb"),
    "kinds:bomb": N_("bombs"),
    "play:bomb": N_("bomb of {count} {ranks}"),
    "kind:jokerbomb": N_("joker bomb"),
    "kinds:jokerbomb": N_("joker bombs"),
    "play:jokerbomb": N_("joker bomb"),
    "place:1": N_("Upstream"),
    "place:-1": N_("Downstream"),
    "place:4:2": N_("Second-Upstream"),
    "place:4:3": N_("Second-Downstream"),
    "action:pass": N_("pass"),
    "action:give": N_("give {cards}"),
    "action:return": N_("return {cards}"),
    "stake": N_("points"),
}

_DDZ: dict[str, str] = {
    "kind:triple1": N_("triple with a single"),
    "kinds:triple1": N_("triples with a single"),
    "play:triple1": N_("three {ranks} with {kickers}"),
    "kind:triple2": N_("triple with a pair"),
    "kinds:triple2": N_("triples with a pair"),
    "play:triple2": N_("three {ranks} with a pair of {kicker_ranks}"),
    "kind:chain": N_("straight"),
    "kinds:chain": N_("straights"),
    "play:chain": N_("straight {low} to {high}"),
    "kind:pairchain": N_("run of pairs"),
    "kinds:pairchain": N_("runs of pairs"),
    "play:pairchain": N_("pairs {low} to {high}"),
    "kind:plane": N_("airplane"),
    "kinds:plane": N_("airplanes"),
    "play:plane": N_("airplane {low} to {high}"),
    "kind:plane1": N_("airplane with wings"),
    "kinds:plane1": N_("airplanes with wings"),
    "play:plane1": N_("airplane {low} to {high} with wings {kickers}"),
    "kind:plane2": N_("airplane with pair wings"),
    "kinds:plane2": N_("airplanes with pair wings"),
    "play:plane2": N_("airplane {low} to {high} with pair wings {kickers}"),
    "kind:four2": N_("four with two singles"),
    "kinds:four2": N_("fours with two singles"),
    "play:four2": N_("four {ranks} with {kickers}"),
    "kind:four22": N_("four with two pairs"),
    "kinds:four22": N_("fours with two pairs"),
    "play:four22": N_("four {ranks} with pairs {kickers}"),
    "kind:rocket": N_("rocket"),
    "kinds:rocket": N_("rockets"),
    "play:rocket": N_("rocket"),
    "role:landlord": N_("landlord"),
    "roles:landlord": N_("landlords"),
    "role:farmer": N_("farmer"),
    "roles:farmer": N_("farmers"),
    "places": "none",
    "action:bid": N_("bid {value}"),
    "action:bid:0": NP_("bid", "pass"),  # 不叫, not the play's 不要
    "action:double:1": N_("double"),
    "action:double:0": N_("no double"),
    "action:redouble:1": N_("redouble"),
    "action:redouble:0": N_("no redouble"),
    "stake": N_("stake"),
}

_HOUSE: dict[str, str] = {
    "kind:pairchain": N_("run of pairs"),
    "kinds:pairchain": N_("runs of pairs"),
    "play:pairchain": N_("pairs {low} to {high}"),
    "kind:triplechain": N_("run of triples"),
    "kinds:triplechain": N_("runs of triples"),
    "play:triplechain": N_("triples {low} to {high}"),
    "kind:triple1": N_("triple with a single"),
    "kinds:triple1": N_("triples with a single"),
    "play:triple1": N_("three {ranks} with {kickers}"),
    "kind:straightflush": N_("straight flush"),
    "kinds:straightflush": N_("straight flushes"),
    "play:straightflush": N_("straight flush {low} to {high}"),
    "kind:four": N_("revolution"),
    "kinds:four": N_("revolutions"),
    "play:four": N_("revolution of {count} {ranks}"),
    "action:offer": N_("offer {cards}"),
    "action:pick": N_("take {cards}"),
}

_BIG_TWO: dict[str, str] = {
    "kind:single": N_("single"),
    "kinds:single": N_("singles"),
    "play:single": N_("single {rank}"),
    "kind:pair": N_("pair"),
    "kinds:pair": N_("pairs"),
    "play:pair": N_("pair of {ranks}"),
    "kind:triple": N_("triple"),
    "kinds:triple": N_("triples"),
    "play:triple": N_("three {ranks}"),
    "kind:straight": N_("straight"),
    "kinds:straight": N_("straights"),
    "play:straight": N_("straight {low} to {high}"),
    "kind:flush": N_("flush"),
    "kinds:flush": N_("flushes"),
    "play:flush": N_("flush, {high} high"),
    "kind:fullhouse": N_("full house"),
    "kinds:fullhouse": N_("full houses"),
    "play:fullhouse": N_("full house, {ranks} over {kicker_ranks}"),
    "kind:fourkind": N_("four of a kind"),
    "kinds:fourkind": N_("fours of a kind"),
    "play:fourkind": N_("four {ranks} with {kickers}"),
    "kind:straightflush": N_("straight flush"),
    "kinds:straightflush": N_("straight flushes"),
    "play:straightflush": N_("straight flush {low} to {high}"),
    "places": "none",
    "action:pass": N_("pass"),
    "stake": N_("points"),
}

#: Big Two's rules as players read them (its ``rules:big-two`` vocabulary, one line
#: each): ``zsy rules`` translates a plugin's lines one by one, so each is listed here.
BIG_TWO_RULES: tuple[str, ...] = (
    N_("B2-1.1 Four players, 52 cards (no jokers), 13 each; option: three players, 17 each, "
       "the 52nd card to the holder of 3♦."),
    N_("B2-1.2 Ranks 3 4 5 6 7 8 9 10 J Q K A 2; suits ♦ < ♣ < ♥ < ♠: 3♦ is the lowest card, "
       "2♠ the highest."),
    N_("B2-2.1 Every deal the holder of 3♦ leads, and the first play includes 3♦ "
       "(option: the previous winner leads)."),
    N_("B2-2.2 Play goes round; you may always pass and play again later in the trick. "
       "When all others pass, the last to play leads."),
    N_("B2-3.1 Plays: single, pair, triple, or a five-card hand. Nothing else."),
    N_("B2-3.2 Beat a single, pair or triple with a higher one of the same size; "
       "equal ranks: the highest suit wins."),
    N_("B2-3.3 Five-card hands, low to high: straight, flush, full house, four of a kind + one, "
       "straight flush; a higher one beats any lower one."),
    N_("B2-3.4 Same category: straights by their highest card, flushes by their highest card "
       "(option: suit first), full houses by the triple, four of a kind by the four."),
    N_("B2-3.5 Straights: five ranks in a row; 2 3 4 5 6 is the highest, A 2 3 4 5 next, "
       "then 10 J Q K A. No other wraps."),
    N_("B2-4.1 The deal ends when a player empties their hand."),
    N_("B2-4.2 Each other player loses 1 a card left, double with 10-12, triple with 13 "
       "(option: double again holding a 2); the winner gains it all."),
    N_("B2-4.3 After the agreed number of deals the highest total wins; ties share."),
)

_PARTNERS: dict[str, str] = {
    "role:team": N_("team"),
    "roles:team": N_("teams"),
    "role:partner": N_("partner"),
    "roles:partner": N_("partners"),
}

# TRANSLATORS: Guandan's rules, one a line, as `zsy rules --variant guandan` prints them.
_GD_RULES: tuple[str, ...] = (
    N_("GD-1.1 4 players, partners opposite (seats 0+2, 1+3); two decks, 27 cards each."),
    N_(
        "GD-1.2 Each team has a level from 2 to A; a deal is played at the level of the team that "
        "won the previous one (2 on the first)."
    ),
    N_("GD-2.1 Ranks: 2 3 4 5 6 7 8 9 10 J Q K A, then the level rank, then BJ, RJ."),
    N_("GD-2.2 The two ♥ cards of the level rank are wild: each stands for any card but a joker."),
    N_(
        "GD-3.1 Single, pair, triple, full house (triple + pair), straight of exactly 5, tube of "
        "exactly 3 pairs, plate of exactly 2 triples."
    ),
    N_("GD-3.2 In runs A is low (A 2 3 4 5) or high (10 J Q K A); no wrap."),
    N_(
        "GD-3.3 Bombs: 4 < 5 of a rank < straight flush < 6 < 7 < 8 < 9 < 10 of a rank < the four "
        "jokers."
    ),
    N_(
        "GD-3.4 A play beats only the same kind, higher; a bomb beats any non-bomb and lower "
        "bombs."
    ),
    N_(
        "GD-4.1 First deal: a seat drawn by lot leads; later the tribute giver, or the first "
        "finisher."
    ),
    N_("GD-4.2 Passing is always allowed; the last to play leads the next trick."),
    N_("GD-4.3 接风: who goes out on an unbeaten play hands the lead to their partner."),
    N_("GD-4.4 The deal ends when both players of one team are out."),
    N_(
        "GD-5.1 The first finisher's team goes up 3, 2 or 1 levels as the partner finished 2nd, "
        "3rd or last."
    ),
    N_("GD-5.2 A team at A wins the match by winning a deal at A with the partner not last."),
    N_(
        "GD-6.1 From the second deal the losers give their highest card (not the wild ones): both "
        "when they finished 3rd and last, else the lower of them."
    ),
    N_("GD-6.2 Each receiver returns a card of 10 or lower to its giver."),
    N_("GD-6.3 抗贡: no tribute when the givers hold both red jokers; the first finisher leads."),
)

_GD: dict[str, str] = {
    # TRANSLATORS: Guandan (掼蛋). Its plays are named without ranks (the cards are shown
    # beside them); a tube is three consecutive pairs (连对), a plate two consecutive
    # triples (钢板); {n} a number of cards, {rank} a level's rank (2..A).
    # Its tribute (GD-6): the highest card, jokers counted, the wild ♥ level card not; a
    # return of 10 or lower. {giver} and {receiver} are seats ("seat 2 (ana)", "you").
    "tribute:give:me": N_(
        "Tribute (GD-6.1): you must give your highest card (jokers count, the wild ♥ level "
        "card does not) face up to {receiver}."
    ),
    "tribute:give:to_me": N_(
        "Tribute (GD-6.1): {giver} must give you their highest card (jokers count, the wild "
        "♥ level card does not), face up."
    ),
    "tribute:give:others": N_(
        "Tribute (GD-6.1): {giver} must give their highest card (jokers count, the wild ♥ "
        "level card does not) face up to {receiver}."
    ),
    "tribute:return:me": N_(
        "Tribute (GD-6.2): you return a card of 10 or lower, face down, to {receiver}."
    ),
    "tribute:return:to_me": N_(
        "Tribute (GD-6.2): {giver} returns a card of 10 or lower to you, face down."
    ),
    "tribute:return:others": N_(
        "Tribute (GD-6.2): {giver} returns a card of 10 or lower, face down, to {receiver}."
    ),
    "kind:single": N_("single"),
    "kinds:single": N_("singles"),
    "play:single": N_("single"),
    "kind:pair": N_("pair"),
    "kinds:pair": N_("pairs"),
    "play:pair": N_("pair"),
    "kind:triple": N_("triple"),
    "kinds:triple": N_("triples"),
    "play:triple": N_("triple"),
    "kind:fullhouse": N_("full house"),
    "kinds:fullhouse": N_("full houses"),
    "play:fullhouse": N_("full house"),
    "kind:straight": N_("straight"),
    "kinds:straight": N_("straights"),
    "play:straight": N_("straight"),
    "kind:tube": N_("tube"),
    "kinds:tube": N_("tubes"),
    "play:tube": N_("tube"),
    "kind:plate": N_("plate"),
    "kinds:plate": N_("plates"),
    "play:plate": N_("plate"),
    "kind:bomb": N_("bomb"),
    "kinds:bomb": N_("bombs"),
    "play:bomb": N_("bomb of {n} cards"),
    "kind:straightflush": N_("straight flush"),
    "kinds:straightflush": N_("straight flushes"),
    "play:straightflush": N_("straight flush"),
    "kind:jokerbomb": N_("four jokers"),
    "kinds:jokerbomb": N_("four jokers"),
    "play:jokerbomb": N_("four jokers"),
    "role:team": N_("team"),
    "roles:team": N_("teams"),
    "role:partner": N_("partner"),
    "place:1": N_("first out"),
    "place:-1": N_("last out"),
    "place:4:2": N_("second out"),
    "place:4:3": N_("third out"),
    "action:pass": N_("pass"),
    "action:give": N_("give {cards}"),
    "action:return": N_("return {cards}"),
    "stake": N_("levels"),
    "term:deal_level": N_("This deal is played at level {rank}: the two {rank}♥ are wild"),
    # TRANSLATORS: the deal's level in the table's title, beside "Round 1": short
    "term:deal_level_short": N_("level {rank}, {rank}♥ wild"),
    # TRANSLATORS: why --rounds is not used at this game (said when a player gives it)
    "term:match_end": N_("Guandan is played until a team wins a deal at level A (GD-5.2)"),
    "rules:guandan": "\n".join(_GD_RULES),
}

#: Every built-in plugin's English terms, by plugin name (the catalogue's source).
#: Terms whose English word other languages say differently elsewhere (the key's
#: gettext context): a bid's "pass" is 不叫 in Chinese, a play's "pass" 不要.
_CONTEXTS: dict[str, str] = {"action:bid:0": "bid"}

BUILTIN_TERMS: dict[str, dict[str, str]] = {
    "zsy": _ZSY,
    "doudizhu": _DDZ,
    "house-rules": _HOUSE,
    "partnerships": _PARTNERS,
    "guandan": _GD,
    "big-two": _BIG_TWO,
}

_ANY_ACTION: dict[str, str] = {
    k: v for terms in BUILTIN_TERMS.values() for k, v in terms.items() if k.startswith("action:")
}

# Ranks as words: singular as on a card (jokers spelled out), plural for "pair of 9s".
# TRANSLATORS: ranks as printed on the cards (3..10 J Q K A 2) and the jokers, singular.
_RANK_WORDS: tuple[str, ...] = (
    N_("3"), N_("4"), N_("5"), N_("6"), N_("7"), N_("8"), N_("9"), N_("10"),
    N_("J"), N_("Q"), N_("K"), N_("A"), N_("2"), N_("black joker"), N_("red joker"),
)
_RANK_PLURALS: tuple[str, ...] = (
    N_("3s"), N_("4s"), N_("5s"), N_("6s"), N_("7s"), N_("8s"), N_("9s"), N_("10s"),
    N_("jacks"), N_("queens"), N_("kings"), N_("aces"), N_("2s"),
    N_("black jokers"), N_("red jokers"),
)
_COUNT_WORDS: tuple[str, ...] = (
    N_("no"), N_("one"), N_("two"), N_("three"), N_("four"), N_("five"), N_("six"),
    N_("seven"), N_("eight"),
)
_ORDINALS: tuple[str, ...] = (
    N_("1st"), N_("2nd"), N_("3rd"), N_("4th"), N_("5th"), N_("6th"),
)


class _Blank(dict):
    """Placeholders a template names but we do not know stay visible, never crash."""

    def __missing__(self, key: str) -> str:
        return "{" + key + "}"


# --- looking terms up ----------------------------------------------------------------


def english(rules: Rules | None, key: str) -> str | None:
    """The English text of ``key`` at this table.

    The table's plugins' words first; then the base game's, and for actions
    any built-in plugin's (so an action read without its table, say a record's
    ``double`` with value 0, still reads ``no double``).
    """
    vocab: Mapping[str, str] = getattr(rules, "vocabulary", None) or {}
    text = vocab.get(key)
    if text is None:
        text = _ZSY.get(key)
    if text is None and key.startswith("action:"):
        text = _ANY_ACTION.get(key)
    return text


def term(rules: Rules | None, key: str, default: str | None = None, **values: Any) -> str | None:
    """``key`` translated, with ``values`` filled in; ``default`` (untouched) when unknown.

    A template naming a placeholder that is not given keeps it as ``{name}``
    rather than failing: a third-party plugin's typo must not crash a table.
    """
    text = english(rules, key)
    if text is None:
        return default
    context = _CONTEXTS.get(key)
    out = pgettext(context, text) if context else text
    if out == text:
        out = _(text)
    if values:
        for template in (out, text):  # a broken translation falls back on the English
            try:
                return template.format_map(_Blank(values))
            except (ValueError, IndexError, AttributeError):
                continue
        return text
    return out


def rank_word(rank: int) -> str:
    """A rank as a word: ``9``, ``A``, ``black joker``."""
    return _(_RANK_WORDS[rank])


def rank_plural(rank: int) -> str:
    """A rank in the plural: ``9s``, ``aces``, ``black jokers``."""
    return _(_RANK_PLURALS[rank])


def count_word(n: int) -> str:
    """A small count in words (``four``), digits from nine on."""
    return _(_COUNT_WORDS[n]) if 0 <= n < len(_COUNT_WORDS) else str(n)


def kind_name(rules: Rules | None, kind: str, plural: bool = False) -> str:
    """The noun for a combination kind: ``full house`` / ``full houses``.

    An unknown kind (a third-party plugin without words) shows its own name.
    """
    found = term(rules, ("kinds:" if plural else "kind:") + kind)
    return found if found is not None else kind


# --- combinations --------------------------------------------------------------------


def _run_ends(main: Sequence[int]) -> tuple[int, int]:
    """The first and last rank of a run, reading wrapped runs (A 2 3 4 5) in wrap order."""
    ordered = run_order(main)
    return ordered[0], ordered[-1]


def combo_name(rules: Rules | None, combo: Combo, ranks: Sequence[int] | None = None) -> str:
    """A combination in the players' words: ``pair of 2s``, ``straight 10 to A``, ``rocket``.

    ``ranks`` are the play's ranks (a ``Play.ranks``, or the ranks of the cards
    played); without them a play is read as ``length`` cards of its key rank,
    which is right for singles, pairs, triples and bombs only.
    """
    if ranks is None or not ranks:
        key = combo.key if 0 <= combo.key < NUM_RANKS else 0
        ranks = (key,) * max(1, combo.length)
    main, kickers = split_play(combo.key, ranks)
    low, high = _run_ends(main)
    top = combo.key if 0 <= combo.key < NUM_RANKS and combo.key in main else high
    kicker_ranks = sorted(set(kickers))
    values = {
        "rank": rank_word(top),
        "ranks": rank_plural(top),
        "count": count_word(sum(1 for r in ranks if r == top)),
        "low": rank_word(low),
        "high": rank_word(high),
        "kickers": " ".join(RANK_NAMES[r] for r in kickers),
        "kicker_ranks": (
            rank_plural(kicker_ranks[0])
            if len(kicker_ranks) == 1
            else " ".join(RANK_NAMES[r] for r in kickers)
        ),
        "n": str(len(ranks)),
    }
    found = term(rules, "play:" + combo.kind, **values)
    return found if found is not None else kind_name(rules, combo.kind)


def play_name(rules: Rules, cards: Sequence[int], combo: Combo | None = None) -> str | None:
    """The name of the combination ``cards`` make here (``combo`` if already known).

    ``None`` when the cards are no combination at this table.
    """
    if combo is None:
        combo = classify_cards(rules, list(cards))
        if combo is None:
            return None
    return combo_name(rules, combo, [RANK_OF[c] for c in cards])


# --- actions -------------------------------------------------------------------------


def action_text(
    rules: Rules | None,
    action: Action,
    *,
    ascii_suits: bool = False,
    combo: Combo | None = None,
    name_combo: bool = True,
) -> str:
    """An action in words, for narration, the numbered list and ``zsy replay``.

    A play of two or more cards is its cards followed by the combination's
    name (``9♦ 9♣ (pair of 9s)``; ``name_combo=False`` for the cards only;
    ``combo`` when the caller knows how it was read); a single card is itself.
    Bids, doubling and tribute use the variant's words (``bid 2``, ``pass``,
    ``no double``, ``give 2♠``); a face-down card handed over is counted,
    never shown.
    """
    kind = action.kind
    if kind == PASS:
        return term(rules, "action:pass") or _("pass")
    if action.hidden:
        return ngettext(
            "{verb} {n} card face down", "{verb} {n} cards face down", action.value
        ).format(verb=_action_word(rules, kind), n=action.value)
    cards = cards_str(action.cards, ascii_suits=ascii_suits) if action.cards else ""
    if kind == PLAY:
        cards = " ".join(
            card_str(c, ascii_suits=ascii_suits) for c in shown_order(rules, action.cards, combo)
        )
        if not name_combo or rules is None or len(action.cards) < 2:
            return cards  # a single card says all there is to say
        name = play_name(rules, action.cards, combo)
        return cards if name is None else _("{cards} ({combination})").format(
            cards=cards, combination=name
        )
    found = term(rules, f"action:{kind}:{action.value}", cards=cards, value=action.value)
    if found is None:
        found = term(rules, f"action:{kind}", cards=cards, value=action.value)
    if found is not None:
        return found
    # a third-party action without words: its name and what it carries
    parts = [kind] + ([cards] if cards else []) + ([str(action.value)] if action.value else [])
    return " ".join(parts)


def _action_word(rules: Rules | None, kind: str) -> str:
    """The bare verb of an action kind (``give``) for counted, face-down texts."""
    found = term(rules, f"action:{kind}", cards="", value="")
    return found.strip() if found else kind


def match_action(rules: Rules | None, text: str, legal: Sequence[Action]) -> Action | None:
    """The legal action whose words are ``text`` (``double``, ``no double``, ``bid 2``).

    Compares case-insensitively with each action's words, in English and in
    the language in use, so players type what the list shows them. ``None``
    when nothing matches (the caller then reads the text as cards).
    """
    want = " ".join(text.lower().split())
    if not want:
        return None
    for a in legal:
        if a.cards or a.hidden:
            continue
        shown = action_text(rules, a).lower()
        plain = _english_action(rules, a).lower()
        if want in (shown, plain):
            return a
    return None


def _english_action(rules: Rules | None, action: Action) -> str:
    text = english(rules, f"action:{action.kind}:{action.value}")
    if text is None:
        text = english(rules, f"action:{action.kind}")
    if text is None:
        return action.kind
    try:
        return text.format_map(_Blank(cards="", value=action.value)).strip()
    except (ValueError, IndexError, AttributeError):
        return text


# --- sides, places, stakes -----------------------------------------------------------


def role_name(rules: Rules | None, role: str, plural: bool = False) -> str:
    """A side's name: ``landlord``, ``farmers``, ``team`` (the role key if unknown)."""
    found = term(rules, ("roles:" if plural else "role:") + role)
    return found if found is not None else role


def seat_role(rules: Rules | None, state: RoundState, seat: int) -> str | None:
    """``seat``'s side in this round in words (Dou Dizhu: landlord or farmer), or ``None``."""
    lord = state.get("landlord") if hasattr(state, "get") else None
    if lord is None or english(rules, "role:landlord") is None:
        return None
    return role_name(rules, "landlord" if seat == lord else "farmer")


def place_title(rules: Rules | None, place: int, n_players: int | None = None) -> str | None:
    """The title of the ``place``-th player out (1 = first), or ``None`` without titles.

    The base game (ZSY-6): Upstream, Downstream, and with four players
    Second-Upstream and Second-Downstream; other places are ranked (``3rd``).
    Dou Dizhu has no titles (``None``): the landlord or the farmers win.
    """
    if english(rules, "places") == "none":
        return None
    n = n_players if n_players is not None else getattr(rules, "players", 0)
    if not 1 <= place <= max(n, place):
        return None
    for key in (f"place:{n}:{place}", f"place:{place}", f"place:-{n - place + 1}"):
        found = term(rules, key)
        if found is not None:
            return found
    return _(_ORDINALS[place - 1]) if place <= len(_ORDINALS) else str(place)


def stake_word(rules: Rules | None) -> str:
    """The word for what a hand is played for (Dou Dizhu: ``stake``; base game: ``points``)."""
    return term(rules, "stake") or _("points")
