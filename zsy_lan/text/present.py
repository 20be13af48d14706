"""What the core tells a player, in words: an action, a deal, a tribute, a round's end.

Why a module of its own, outside :mod:`zsy_lan.ui` (DESIGN.md, "Presentation
is a layer of its own"): the network peer (:mod:`zsy_lan.table.peer`), the local
table (:mod:`zsy_lan.table.local_table`) and the record readers (``zsy replay``,
``zsy retell``) narrate the same events in the same sentences as the terminal
screens, yet the core must not import the UI (``tests/test_layers.py`` holds
it). So the sentences live here, on top of the vocabulary in
:mod:`zsy_lan.text.words`, and both the core and :mod:`zsy_lan.ui` import them.

Everything here is pure (no I/O): a rules object, a state or a match result in,
one translated sentence out.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from zsy_lan.engine.phases import Phase
from zsy_lan.engine.rules import Rules
from zsy_lan.engine.state import Action, RoundState
from zsy_lan.text import words
from zsy_lan.text.i18n import _, join_items, join_phrases, join_sentences, ngettext

__all__ = [
    "dealt_text",
    "describe",
    "ended_at_first_out",
    "game_of",
    "is_doudizhu",
    "landlord_of_result",
    "level_name",
    "place_titles",
    "redeal_text",
    "round_or_hand",
    "round_over_text",
    "stake_parts",
    "stake_text",
    "team_label",
    "tribute_text",
]


def describe(action: Action, ascii_suits: bool = False, rules: Rules | None = None) -> str:
    """An action in the players' words, for narration and the numbered list.

    With the table's ``rules`` a play also names its combination (``9♦ 9♣ (pair
    of 9s)``) and every action uses the variant's vocabulary (``no double``,
    ``redouble``); see :func:`zsy_lan.text.words.action_text`.
    """
    return words.action_text(rules, action, ascii_suits=ascii_suits)


def game_of(rules: Rules | None) -> str:
    """The table's game: ``zsy`` (the base game) or a variant's own (``doudizhu``)."""
    if rules is None:
        return "zsy"
    return str(rules.config.get("game", "zsy"))


def is_doudizhu(rules: Rules | None) -> bool:
    """Dou Dizhu has its own words: landlord and farmers, stakes, no Upstream."""
    return game_of(rules) == "doudizhu"


def ended_at_first_out(state: RoundState | None) -> bool:
    """Did this finished round end when its first player went out (Big Two, Dou Dizhu)?

    Then only the first out counts: the others are listed after it in seat order
    while still holding cards, so there is no finishing order to tell.
    """
    done = state is not None and state.phase == Phase.DONE and len(state.finished) > 1
    return done and state.counts[state.finished[1]] > 0


def round_or_hand(rules: Rules | None, round_text: str, hand_text: str) -> str:
    """The sentence in the variant's word for a unit of the match: Dou Dizhu plays hands,
    the base game rounds (issue #26: one word per variant, in the header, the log, the
    void hints and votes alike). Both sentences are whole, translated by the caller."""
    return hand_text if is_doudizhu(rules) else round_text


def place_titles(rules: Rules | None, order: Sequence[int]) -> dict[int, str]:
    """ZSY-6.3 titles a finishing order gives, in words; none in Dou Dizhu (landlord/farmers)."""
    n = len(order)
    out = {}
    for place, seat in enumerate(order, start=1):
        title = words.place_title(rules, place, n)
        if title is not None:
            out[seat] = title
    return out


LEVEL_NAMES = {11: "J", 12: "Q", 13: "K", 14: "A"}


def level_name(level: Any) -> str:
    """A team level (2..14) as its rank: ``7``, ``J``, ``A`` (Guandan, GD-1.2)."""
    if not isinstance(level, int) or isinstance(level, bool) or not 2 <= level <= 14:
        return "?"
    return LEVEL_NAMES.get(level, str(level))


def team_label(rules: Rules | None, seat: int) -> str:
    """``team A`` / ``team B`` for a seat at a table with partnerships (ZSY-9.1), else ``""``."""
    if rules is None or rules.teams is None:
        return ""
    for i, team in enumerate(rules.teams):
        if seat in team:
            return _("team {letter}").format(letter=chr(ord("A") + i))
    return ""


def stake_parts(rules: Rules | None, state: RoundState) -> dict[str, Any]:
    """The numbers behind a Dou Dizhu stake: bid, bombs (rocket included), spring, doubles.

    ``stake`` is the base stake between the landlord and a farmer who did not
    double (DDZ-5.1: the bid, doubled per bomb and rocket, and for a spring).
    """
    bid = int(state.get("bid", 0) or 0)
    bombs = int(state.get("bombs", 0) or 0)
    lord = int(state.get("landlord", -1))
    spring = False
    if state.phase == Phase.DONE and lord >= 0 and state.finished and state.plays_made:
        farmers = [s for s in range(state.players) if s != lord]
        if state.finished[0] == lord:
            spring = all(state.plays_made[f] == 0 for f in farmers)
        else:
            spring = state.plays_made[lord] <= 1
    doubles = tuple(state.get("doubles") or ())
    multiplier = 2**bombs * (2 if spring else 1)
    return {
        "bid": bid,
        "bombs": bombs,
        "spring": spring,
        "doubles": doubles,
        "multiplier": multiplier,
        "stake": max(bid, 1) * multiplier,
    }


def stake_text(parts: Mapping[str, Any]) -> str:
    """``Stake (DDZ-5.1): 12 = bid 3, x4 for 2 bombs or rockets, x2 for the spring.``"""
    why = [_("bid {bid}").format(bid=parts["bid"])]
    if parts["bombs"]:
        why.append(
            ngettext(
                "x2 for {n} bomb or rocket", "x{m} for {n} bombs or rockets", parts["bombs"]
            ).format(n=parts["bombs"], m=2 ** parts["bombs"])
        )
    if parts["spring"]:
        why.append(_("x2 for the spring"))
    return _("Stake (DDZ-5.1): {stake} = {why}.").format(
        stake=parts["stake"], why=join_phrases(why)
    )


def landlord_of_result(points: Sequence[int]) -> int:
    """The landlord of a finished Dou Dizhu hand, from its points (DDZ-5.2).

    The landlord wins or pays every farmer's stake, so their points are the
    largest in size (each farmer's stake is at least 1 and there are 2+ farmers).
    """
    return max(range(len(points)), key=lambda s: (abs(points[s]), -s))


def tribute_text(
    kind: str,
    giver: int,
    receiver: int,
    me: int,
    who: Callable[[int], str],
    cards: str = "",
    n: int = 0,
) -> str:
    """A tribute step that was made (ZSY-7), naming the real giver and receiver.

    ``cards``: the cards in words when this seat may see them (every given
    card, a returned card only to its giver and receiver), else ``n`` counts them.
    """
    g, r = who(giver), who(receiver)
    if kind == "give":
        if giver == me:
            text = _("you give {cards} to {receiver} (tribute)")
        elif receiver == me:
            text = _("{giver} gives you {cards} (tribute)")
        else:
            text = _("{giver} gives {cards} to {receiver} (tribute)")
    elif cards:
        if giver == me:
            text = _("you return {cards} to {receiver}, face down")
        elif receiver == me:
            text = _("{giver} returns {cards} to you, face down")
        else:
            text = _("{giver} returns {cards} to {receiver}, face down")
    elif receiver == me:
        text = ngettext(
            "{giver} returns {n} card to you, face down",
            "{giver} returns {n} cards to you, face down",
            n,
        )
    else:
        text = ngettext(
            "{giver} returns {n} card to {receiver}, face down",
            "{giver} returns {n} cards to {receiver}, face down",
            n,
        )
    return text.format(giver=g, receiver=r, cards=cards, n=n)


def dealt_text(
    rules: Rules | None,
    state: RoundState,
    who: Callable[[int], str],
    open_deal: bool = True,
    me: int = -1,
) -> str:
    """A new round dealt, and who acts first: a hand and its first bidder in DDZ.

    ``open_deal``: the network table's open deal says so (``(open deal)``);
    a local table (``zsy play``) deals on this machine and says only who acts.
    ``me``: the reader's seat, for "you bid first" (``who(me)`` is "you").
    """
    n = state.round_no
    if is_doudizhu(rules) and state.turn >= 0:
        if state.turn == me:
            text = (
                _("hand {n} dealt (open deal); you bid first")
                if open_deal
                else _("Hand {n} dealt; you bid first.")
            )
        else:
            text = (
                _("hand {n} dealt (open deal); {who} bids first")
                if open_deal
                else _("Hand {n} dealt; {who} bids first.")
            )
        return text.format(n=n, who=who(state.turn))
    if is_doudizhu(rules):
        return _("hand {n} dealt (open deal)").format(n=n)
    if state.turn >= 0 and state.turn == me:  # its own sentence: "du ist dran" read wrong
        text = (
            _("round {n} dealt (open deal); you to act")
            if open_deal
            else _("Round {n} dealt; you to act.")
        )
        return text.format(n=n)
    if state.turn >= 0:
        text = (
            _("round {n} dealt (open deal); {who} to act")
            if open_deal
            else _("Round {n} dealt; {who} to act.")
        )
        return text.format(n=n, who=who(state.turn))
    return _("round {n} dealt (open deal)").format(n=n)


def redeal_text(
    rules: Rules | None, state: RoundState | None, action: Action | None = None
) -> str | None:
    """DDZ-2.3, told when it happens: everybody passed the bidding, so the hand is dealt
    again (``None`` for any other state). A round voided by a table vote carries its
    reason in ``void`` and is told by the vote's own notices.

    ``action``: the move being told. A table tells moves after its replica applied them,
    sometimes several at once, so ``state`` may already be past an earlier pass: the
    redeal is told with the last bid only (the one ``state``'s bids end with).
    """
    if state is None or state.phase != Phase.DONE or state.get("void") is not True:
        return None
    bids = state.get("bids") or ()
    if action is not None and bids and tuple(bids[-1])[0] != action.seat:
        return None
    if is_doudizhu(rules):
        return _("Everybody passed: hand {n} is dealt again (DDZ-2.3).").format(n=state.round_no)
    return _("Everybody passed: round {n} is dealt again.").format(n=state.round_no)


def round_over_text(rules: Rules | None, match: Any, who: Callable[[int], str]) -> str:
    """The last finished round in the variant's words, for the narration.

    Dou Dizhu: who went out first, which side won, each seat's stake won or
    lost and the totals (never Upstream). The base game: the titles, the
    winning team with partnerships, rounds as Upstream and points.
    """
    res = match.results[-1]
    totals = join_items(
        _("{who} {points}").format(who=who(s), points=t) for s, t in enumerate(match.totals)
    )
    if is_doudizhu(rules):
        lord = landlord_of_result(res.points)
        head = (
            _("hand {n} over: {first} went out first; the landlord wins")
            if res.order and res.order[0] == lord
            else _("hand {n} over: {first} went out first; the farmers win")
        ).format(n=res.round_no, first=who(res.order[0]) if res.order else "?")
        stakes = join_items(
            _("{who} {points:+d}").format(who=who(s), points=p) for s, p in enumerate(res.points)
        )
        text = _("{head}. Stakes: {stakes}. Totals: {totals}.").format(
            head=head, stakes=stakes, totals=totals
        )
        done = getattr(match, "round", None)
        if done is not None and done.phase == Phase.DONE and done.get("landlord") == lord:
            text = join_sentences([text, stake_text(stake_parts(rules, done))])
        return text
    if ended_at_first_out(getattr(match, "round", None)):  # Big Two: the first out wins
        points = join_items(
            _("{who} {points:+d}").format(who=who(s), points=p) for s, p in enumerate(res.points)
        )
        return _("round {n} over: {first} went out and wins the round. Points: {points}. "
                 "Totals: {totals}.").format(
            n=res.round_no, first=who(res.order[0]), points=points, totals=totals
        )
    named = place_titles(rules, res.order)
    order = join_items(
        _("{who} {title}").format(who=who(s), title=named[s]) if s in named else who(s)
        for s in res.order
    )
    text = _("round {n} over: {order}.").format(n=res.round_no, order=order)
    if rules is not None and rules.teams is not None and res.order:
        team = team_label(rules, res.order[0])
        levels = _team_levels(rules, match)
        up = 0
        if levels is not None:  # a game of team levels (Guandan, GD-5): the levels gained
            before, after = levels
            won = next(i for i, seats in enumerate(rules.teams) if res.order[0] in seats)
            up = after[won] - before[won]
        said = (
            ngettext(
                "{team} wins the round and goes up {n} level.",
                "{team} wins the round and goes up {n} levels.",
                up,
            ).format(team=team, n=up)
            if up > 0
            else _("{team} wins the round.").format(team=team)
        )
        text = join_sentences([text, said])
        if levels is not None:
            # where each team stands, for the rounds out first and the points (which are
            # levels gained, summed)
            standing = join_items(
                _("{who} {points}").format(who=team_label(rules, t[0]), points=level_name(lv))
                for t, lv in zip(rules.teams, levels[1], strict=True)
            )
            return join_sentences([text, _("Levels: {levels}.").format(levels=standing)])
    ups = join_items(
        _("{who} {times}").format(who=who(s), times=u) for s, u in enumerate(match.upstreams)
    )
    first = words.place_title(rules, 1)
    tally = (
        _("Rounds as {title}: {ups}; points: {totals}.").format(title=first, ups=ups, totals=totals)
        if first is not None  # a game without titles never says Upstream
        else _("Rounds out first: {ups}; points: {totals}.").format(ups=ups, totals=totals)
    )
    return join_sentences([text, tally])


def _team_levels(rules: Rules, match: Any) -> tuple[tuple[int, ...], tuple[int, ...]] | None:
    """Each team's level when the last round was dealt and now, in ``rules.teams``' order,
    for a game whose rounds show team levels (a public ``team_levels`` field, docs/plugins.md)
    and whose plugin gives the match's standing (``zsy_match_score``: a seat's team level);
    else None."""
    if rules.teams is None or rules.match_score is None:
        return None
    done = getattr(match, "round", None)
    before = done.get("team_levels") if done is not None and done.phase == Phase.DONE else None
    if not isinstance(before, tuple) or len(before) != len(rules.teams):
        return None
    standing = rules.match_score(rules, match)
    after = tuple(int(standing[team[0]]) for team in rules.teams)
    return tuple(int(x) for x in before), after
