"""The rules in effect at a table, as a player reads them (``zsy rules``, the table's ``rules``).

Why not print the options: ``house-rules.three_card_bombs = true`` tells a
player nothing. Each line here is a rule from RULES.md, with its id, in
words, and where this table's plugins or options change it, the line says
how ("(this table: no 2 in straights)"). Lines come from the enabled plugins
in the table's order: each built-in plugin contributes its sections, and
what can be read off the compiled :class:`Rules` (deck, hand sizes, bombs,
tribute, combinations) is read from there, so a modifier that changes a rule
changes the line. A third-party plugin gives its own lines in its vocabulary
(``rules:<plugin name>``, see ``zsy_vocabulary`` in engine/hookspecs.py);
without them it is listed with its name, version and options, so a player at
least sees that it is there.

The built-in plugins' text lives here rather than in the plugins because
plugins must not import :mod:`zsy_lan.text.i18n`; every line goes through ``_()``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from zsy_lan.engine.cards import BJ, TWO, card_str, full_deck, rank_of
from zsy_lan.engine.rules import Rules
from zsy_lan.engine.ruleset import ruleset_id
from zsy_lan.text.i18n import _, join_items, join_sentences
from zsy_lan.text.sanitize import clean
from zsy_lan.text.words import kind_name

__all__ = ["rules_lines"]

Section = Callable[[Rules, Mapping[str, Any]], list[str]]


def _seq(items: list[str]) -> str:
    """A list of named things (combinations, ranks) joined as the language lists them."""
    return join_items(items)


def _opts(rules: Rules, plugin: str) -> Mapping[str, Any]:
    """A plugin's options as the table set them (base rules without plugins: the config)."""
    cfg = rules.config
    options = cfg.get("options")
    if isinstance(options, Mapping) and isinstance(options.get(plugin), Mapping):
        return options[plugin]
    return cfg if plugin == "zsy" and "plugins" not in cfg else {}


def _combinations_line(rules: Rules, rule: str) -> str:
    """Every combination kind this table knows, by its player name (plugins' kinds too)."""
    names = [kind_name(rules, k.name) for k in rules.kinds if not k.bomb]
    bombs = [kind_name(rules, k.name) for k in rules.bomb_kinds]
    if bombs:
        return _("{rule} Combinations at this table: {kinds}; bombs: {bombs}.").format(
            rule=rule, kinds=_seq(names), bombs=_seq(bombs)
        )
    return _("{rule} Combinations at this table: {kinds}; no bombs.").format(
        rule=rule, kinds=_seq(names)
    )


# --- Zheng Shangyou (the base game, ZSY-1..8) ------------------------------------------


def _deck_line(rules: Rules) -> str:
    sizes = "/".join(map(str, rules.hand_sizes()))
    removed = sorted(set(full_deck(rules.decks)) - set(rules.deck))
    if removed and all(rank_of(c) >= BJ for c in removed):
        note = _(" (this table: the jokers are removed)")
    elif removed:
        note = _(" (this table: {cards} removed)").format(
            cards=" ".join(card_str(c) for c in removed)
        )
    else:
        note = ""
    return _(
        "ZSY-1.2 Deck: {cards} cards from {decks} deck(s){note}, all dealt: hands of {sizes}; "
        "the seat after the dealer is dealt first and gets any extra card."
    ).format(cards=len(rules.deck), decks=rules.decks, note=note, sizes=sizes)


def _zsy(rules: Rules, opts: Mapping[str, Any]) -> list[str]:
    out = [
        _("ZSY-1.1 Players: {n}, in seat order; the first dealer is drawn by shared randomness, "
          "then the dealer is the last round's Downstream.").format(n=rules.players),
        _deck_line(rules),
    ]
    if rules.deal_lead is not None:  # a plugin's zsy_deal_lead: its own rules say how
        out.append(_("ZSY-2 Leads: at this table a plugin decides who leads each deal (see its "
                     "rules below)."))
    elif rules.start_card_lead:
        card = card_str(rules.lowest_card)
        note = (
            _(" (this table: the start card is fixed)")
            if rules.start_card is not None
            else _(" (the lowest card in the deck)")
        )
        out.append(
            _("ZSY-2.1 First lead: in round 1 the holder of {card}{note} leads, and the lead "
              "must contain it.").format(card=card, note=note)
        )
    if rules.deal_lead is None:
        out.append(
            _("ZSY-2.2 Later rounds: the previous Upstream leads freely, after the tribute.")
        )
    out.append(_("ZSY-3.1 Single, pair, triple: one, two or three cards of the same rank."))
    out.append(
        _("ZSY-3.2 Full house: a triple and a pair of another rank, compared by the triple.")
    )
    if rules.kind_by_name.get("straight") is not None:
        if rules.straight_top == TWO:
            note = _("this table: the 2 may end a straight, J-Q-K-A-2")
        else:
            note = _("this table: no 2 in straights, A is the highest end")
        out.append(
            _("ZSY-3.3 Straight: {n} or more consecutive ranks, never a joker, no wrap-around; "
              "compared by the top card, only with straights of the same length ({note}).")
            .format(n=rules.min_straight, note=note)
        )
    if rules.bomb_kinds:
        jokers = (
            _("all four jokers") if rules.decks == 2 else _("the two jokers (never a pair)")
        )
        note = _(" (this table: bombs from 3 cards)") if rules.min_bomb == 3 else ""
        out.append(
            _("ZSY-3.4 Bomb: {n} or more cards of one rank{note}, or the joker bomb: {jokers}.")
            .format(n=rules.min_bomb, note=note, jokers=jokers)
        )
    else:
        out.append(_("ZSY-3.4 Bombs: none at this table."))
    out.append(_combinations_line(rules, "ZSY-3"))
    out += [
        _("ZSY-4.1 Beating: play the same kind and size, higher, or a bomb, or pass."),
        _("ZSY-4.2 A bomb beats any other play; between bombs more cards win, then the higher "
          "rank; the joker bomb beats every bomb."),
        _("ZSY-5.1 Passing is always allowed and does not keep you out of the trick."),
        _("ZSY-5.2 When all the others have passed after a play, its player wins the trick and "
          "leads the next."),
        _("ZSY-5.4 If the trick's winner went out with it, the next player still in leads."),
        _("ZSY-6 The first to empty their hand is Upstream; play goes on until one player is "
          "left holding cards: Downstream."),
    ]
    out += _tribute_lines(rules)
    out += _scoring_lines(str(opts.get("scoring", rules.scoring)), rules.players)
    out.append(_("ZSY-8.5 A match is an agreed number of rounds; tied players play deciding "
                 "rounds."))
    return out


def _tribute_lines(rules: Rules) -> list[str]:
    if not rules.tribute and rules.tribute_duties is None:
        return [_("ZSY-7 Tribute: none at this table (ZSY-9.3).")]
    if rules.tribute_duties is not None and not rules.tribute:
        return [_("ZSY-7 Tribute: decided by this table's variant (see below).")]
    if _opts(rules, "house-rules").get("single_tribute"):
        return [_("ZSY-7 Tribute, from round 2 (this table: single-card tribute, ZSY-9.6): "
                  "Downstream gives their highest card to Upstream, who offers two cards; "
                  "Downstream takes one of them.")]
    n = rules.tribute_cards
    out = [_(
        "ZSY-7.1 Tribute, from round 2: Downstream hands their {n} highest cards (never a "
        "joker) face up to Upstream, who returns {n} cards of their choice face down."
    ).format(n=n)]
    if n == 3:
        out[0] = join_sentences([out[0], _("(this table: doubled tribute, ZSY-9.2)")])
    if rules.teams is not None:
        out[0] = join_sentences([out[0], _(
            "(this table, partnerships: only the losing team gives; its last "
            "player out gives to the Upstream.)"
        )])
    if rules.second_tribute and rules.players != 4:
        out.append(_("ZSY-7.2 (this table, with {n} players): the 2nd-to-last out also gives "
                     "their highest card to the 2nd out, who returns one.").format(n=rules.players))
    elif rules.second_tribute:
        out.append(_(
            "ZSY-7.2 Second-Downstream also gives their highest card to Second-Upstream, who "
            "returns one."
        ))
    out.append(_("ZSY-7.4 The giving is no choice: the highest cards must go, and every seat "
                 "checks it."))
    return out


def _scoring_lines(scheme: str, players: int) -> list[str]:
    if scheme == "penalty":
        return [_("ZSY-8.2 Scoring (this table: penalty points): each card left in hand scores "
                 "1, each 2 scores 2, each joker 3; the lowest total wins.")]
    if scheme == "cardcount":
        out = [_("ZSY-8.3 Scoring (this table: card-count points): the others lose 1 a card "
                 "left, 2 a card with 10 or more left, 3 a card if they played none; Upstream "
                 "wins the sum. Counted when Upstream goes out (ZSY-8.4).")]
        if players == 3:
            out.append(_("ZSY-8.3 With 3 players: a player who played no card counts triple, one "
                         "with 12 or more cards left double."))
        return out
    return [_("ZSY-8.1 Scoring: ranking only; the places are titles for the next round, and the "
             "match goes to the most rounds as Upstream.")]


# --- modifiers -------------------------------------------------------------------------------


def _partnerships(rules: Rules, opts: Mapping[str, Any]) -> list[str]:
    teams = " v ".join("+".join(map(str, t)) for t in rules.teams or ())
    return [
        _("ZSY-9.1 Partnerships: fixed teams in alternating seats ({teams}); the team of the "
          "Upstream wins the round, and when a player goes out with a trick their partner "
          "leads.").format(teams=teams),
    ]


def _doubled_tribute(rules: Rules, opts: Mapping[str, Any]) -> list[str]:
    return [_("ZSY-9.2 Doubled tribute: Downstream gives three cards and Upstream returns "
              "three.")]


def _no_tribute(rules: Rules, opts: Mapping[str, Any]) -> list[str]:
    return [_("ZSY-9.3 No tribute: no cards change hands between rounds.")]


def _house_rules(rules: Rules, opts: Mapping[str, Any]) -> list[str]:
    texts = {
        "pair_chains": _("Runs of pairs: two or more consecutive pairs, e.g. 5 5 6 6."),
        "triple_chains": _("Runs of triples: two or more consecutive triples, e.g. "
                           "5 5 5 6 6 6."),
        "triple_single": _("Triple with a single, compared by the triple."),
        "three_card_bombs": _("Three of a kind is a bomb."),
        "wrap_straights": _("Straights may wrap: A-2-3-4-5 is the highest, then 2-3-4-5-6, "
                            "then 10-J-Q-K-A."),
        "straight_flush": _("Straight flush: its own kind, beaten only by a higher straight "
                            "flush of the same length or a bomb; it does not beat a plain "
                            "straight."),
        "suit_tiebreak": _("Equal straights: the higher suit of the top card wins "
                           "(♦ < ♣ < ♥ < ♠)."),
        "single_tribute": _("Single-card tribute: Downstream gives their highest card; "
                            "Upstream offers two, and one of them comes back."),
        "start_3h": _("3♥ is the start card of the first round."),
        "no_jokers": _("Four players with 52 cards: the jokers are removed."),
        "revolution": _("Revolution: four of a kind reverses the rank order; there are no "
                        "bombs."),
    }
    on = [texts[k] for k in texts if opts.get(k)]
    if not on:
        return [_("ZSY-9.6 House rules: enabled, but none of its options is on.")]
    return [_("ZSY-9.6 House rule: {text}").format(text=t) for t in on]


# --- Dou Dizhu (DDZ-1..6) ---------------------------------------------------------------------


def _doudizhu(rules: Rules, opts: Mapping[str, Any]) -> list[str]:
    four = rules.players == 4
    hand = rules.hand_sizes()[0]
    out = [
        _("DDZ-1 Players and deal: {n} players, {cards} cards ({decks} deck(s)): {hand} each "
          "and {kitty} face-down kitty cards.").format(
            n=rules.players, cards=len(rules.deck), decks=rules.decks, hand=hand,
            kitty=rules.kitty_size),
        _("DDZ-2.1 Bidding: from the first bidder each player passes or bids higher: 1, 2 or 3."),
        _("DDZ-2.2 A bid of 3 ends the bidding, as do all the others passing after a bid; the "
          "highest bidder is the landlord and the bid is the stake."),
        _("DDZ-2.3 If everyone passes, the hand is dealt again."),
    ]
    if opts.get("show_kitty"):
        out.append(_("DDZ-2.4 The landlord takes the kitty (this table: shown to everyone "
                     "first)."))
    else:
        out.append(_("DDZ-2.4 The landlord takes the kitty, face down (this table: not shown)."))
    out.append(_combinations_line(rules, "DDZ-3"))
    out += [
        _("DDZ-3 Chains never contain a 2 or a joker; wings differ in rank from the triples."),
        _("DDZ-4.1 The landlord leads the first trick; play goes in seat order."),
        _("DDZ-4.2 Follow with the same kind and number of cards, higher; kickers never count."),
        _("DDZ-4.3 A bomb beats anything but a higher bomb or the rocket; the rocket beats all."),
        _("DDZ-4.4 Passing is always allowed; when all the others pass, the last player to "
          "play leads."),
        _("DDZ-4.5 The hand ends when a player empties their hand: the landlord alone, or the "
          "farmers together, win."),
        _("DDZ-5.1 Stake: the bid, doubled for every bomb and rocket, doubled again for a "
          "spring."),
        _("DDZ-5.2 The landlord wins: each farmer pays the stake; the landlord loses: pays each "
          "farmer the stake."),
    ]
    multiple = int(opts.get("match_multiple", 3) or 1)
    if multiple > 1:
        out.append(_("DDZ-5.3 A match is a multiple of {n} hands; the highest total wins.")
                   .format(n=multiple))
    else:
        out.append(_("DDZ-5.3 A match is any number of hands; the highest total wins."))
    if opts.get("doubling"):
        out.append(_("DDZ-6.2 Doubling (this table: on): after the kitty each farmer may double "
                     "their stake, then the landlord may redouble every doubled stake."))
    if four:
        out.append(_("DDZ-6.3 Four players (this table): no single wings and no four with two; "
                     "bombs are 4 or more of a rank, more cards beat fewer; the rocket is all "
                     "four jokers; only bombs of 6 or more cards and the rocket double the "
                     "stake."))
    return out


SECTIONS: dict[str, Section] = {
    "zsy": _zsy,
    "doudizhu": _doudizhu,
    "partnerships": _partnerships,
    "doubled-tribute": _doubled_tribute,
    "no-tribute": _no_tribute,
    "house-rules": _house_rules,
}


def _shown(value: Any) -> str:
    return str(value).lower() if isinstance(value, bool) else clean(str(value))


def rules_lines(rules: Rules) -> list[str]:
    """The rules in effect, one line per rule with its RULES.md id, for a player to read."""
    cfg = rules.config
    plugins = [(str(n), str(v)) for n, v in cfg.get("plugins", [])] or [("zsy", "")]
    game = str(cfg.get("game", "zsy"))
    out = [
        _("Rules in effect: {game} for {n} players (ruleset {id}).").format(
            game=clean(game), n=rules.players, id=ruleset_id(rules)
        )
    ]
    for name, version in plugins:
        section = SECTIONS.get(name)
        opts = _opts(rules, name)
        if section is not None:
            out += section(rules, opts)
            continue
        own = rules.vocabulary.get(f"rules:{name}")
        if isinstance(own, str) and own.strip():
            # a third-party plugin's own text (its vocabulary, see engine/hookspecs.py)
            out += [_(clean(x.strip())) for x in own.splitlines() if x.strip()]
            if game == name:
                out.append(_combinations_line(rules, name))
            continue
        shown = ", ".join(f"{clean(k)}={_shown(v)}" for k, v in sorted(opts.items()))
        out.append(
            _("Plugin {name} {version}: it has no rules text; its options: {options}.").format(
                name=clean(name), version=clean(version), options=shown or _("none")
            )
        )
        if game == name:
            out.append(_combinations_line(rules, name))
    out += _rule_ids_lines(rules)
    return out


def _rule_ids_lines(rules: Rules) -> list[str]:
    """The plugins' own rule ids (``zsy_rule_ids``): what this table's refusals cite."""
    if not rules.rule_ids:
        return []
    pairs = ", ".join(
        _("{own} in place of {base}").format(own=clean(own), base=clean(base))
        for base, own in sorted(rules.rule_ids.items())
    )
    return [_("Rule ids of this table's plugins, cited when a play is refused: {pairs}.").format(
        pairs=pairs
    )]
