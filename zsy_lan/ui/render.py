"""Text rendering of an engine view: the table as a few plain lines.

The UI never holds game state: it renders a seat's *view* (own hand, counts,
each seat's last move in the trick, whose turn) into lines that work in any
terminal and with screen readers (no box drawing; colour is optional and
never carries meaning alone: every suit keeps its letter or symbol, and
warnings are words). ``ascii_suits`` prints ``10S`` instead of ``10♠``;
``suit_words`` (``--plain``) prints ``10 of spades``.

Each variant is told in its own words: Dou Dizhu names the landlord and the
farmers, the bids, the stake and its multipliers and the kitty when it is
turned up, and never the base game's titles (Upstream, place 2); a table with
partnerships shows its teams. Lines are wrapped to the terminal's width as
:func:`text_width` measures it (♠♥♣ are "ambiguous width": two columns in
CJK locales, see :func:`ambiguous_wide`).
"""

from __future__ import annotations

import os
import re
import shutil
import unicodedata
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from wcwidth import wcwidth

from zsy_lan.engine.cards import (
    LEGEND,
    RANK_NAMES,
    card_str,
    rank_counts,
    rank_of,
    sort_cards,
    suit_of,
)
from zsy_lan.engine.choices import in_tricks, over, tribute_duty
from zsy_lan.engine.rules import Rules
from zsy_lan.engine.state import RoundState
from zsy_lan.protocol.chat import continued
from zsy_lan.text import words
from zsy_lan.text.engine_text import translate as engine_said
from zsy_lan.text.i18n import (
    N_,
    NO_LINE_END,
    NO_LINE_START,
    _,
    breaks_anywhere,
    join_clauses,
    join_items,
    join_sentences,
    ngettext,
    pgettext,
)

# the sentences the core narrates too live outside the UI (zsy_lan/text/present.py); the
# UI keeps these names (stake_text and place_titles are also the table's)
from zsy_lan.text.play_order import hand_shown, shown_order
from zsy_lan.text.present import (  # noqa: F401 - re-exported for the UI's modules
    dealt_text,
    ended_at_first_out,
    game_of,
    is_doudizhu,
    landlord_of_result,
    level_name,
    place_titles,
    round_over_text,
    stake_parts,
    stake_text,
    team_label,
    tribute_text,
)
from zsy_lan.text.sanitize import clean

_RED = "\x1b[31m"
_BOLD = "\x1b[1m"
_RESET = "\x1b[0m"

WIDE_ENV = "ZSY_WIDE_SUITS"  # 1: count ♠♥♣ as two columns; 0: as one (default: by locale)


def ambiguous_wide(environ: Mapping[str, str] | None = None) -> bool:
    """Whether "ambiguous width" characters (♠ ♥ ♣) take two columns here.

    ``$ZSY_WIDE_SUITS`` decides when set (1/0); otherwise a CJK locale (zh, ja,
    ko in ``LC_ALL``, ``LC_CTYPE`` or ``LANG``) means wide, as CJK terminals draw them.
    """
    env = os.environ if environ is None else environ
    forced = env.get(WIDE_ENV, "").strip().lower()
    if forced in ("1", "yes", "true", "on"):
        return True
    if forced in ("0", "no", "false", "off"):
        return False
    for var in ("LC_ALL", "LC_CTYPE", "LANG"):
        value = env.get(var, "")
        if value:
            return value.split(".")[0].split("_")[0].lower() in ("zh", "ja", "ko")
    return False


@dataclass
class Style:
    """How to draw cards and lines: suits, colour, sort order, width rules."""

    ascii_suits: bool = False
    color: bool = False
    by_suit: bool = False
    suit_words: bool = False  # --plain: "10 of spades", for screen readers
    wide_ambiguous: bool = False  # count ♠♥♣ as two columns (CJK terminals)
    width: int | None = None  # wrap to this many columns (None: the terminal's)

    @classmethod
    def detect(cls, color: str = "auto", ascii_suits: bool | None = None) -> Style:
        """Honour ``--color never|always|auto`` and ``NO_COLOR``; ASCII suits if not UTF-8."""
        if color == "always":
            use = True
        elif color == "never" or os.environ.get("NO_COLOR"):
            use = False
        else:
            use = os.isatty(1) and os.environ.get("TERM", "") not in ("", "dumb")
        if ascii_suits is None:
            import sys

            enc = (getattr(sys.stdout, "encoding", None) or "").lower()
            ascii_suits = "utf" not in enc
        return cls(ascii_suits=ascii_suits, color=use, wide_ambiguous=ambiguous_wide())

    def columns(self) -> int:
        """The width to wrap to: ``width``, else the terminal's (80 when unknown)."""
        if self.width is not None:
            return max(20, self.width)
        return max(20, shutil.get_terminal_size((80, 24)).columns)


_ESCAPE = re.compile(r"\x1b\[[0-9;]*m")


def text_width(text: str, wide_ambiguous: bool = False) -> int:
    """Columns ``text`` takes in a terminal (colour codes take none).

    ``wcwidth`` gives East Asian wide characters two columns; "ambiguous"
    ones (♠ ♥ ♣, but not ♦) count two as well with ``wide_ambiguous``.
    """
    total = 0
    for ch in _ESCAPE.sub("", text):
        w = wcwidth(ch)
        if w < 0:
            w = 0
        if wide_ambiguous and w == 1 and unicodedata.east_asian_width(ch) == "A":
            w = 2
        total += w
    return total


def wrap(text: str, width: int, wide_ambiguous: bool = False) -> list[str]:
    """``text`` (may hold newlines) as lines of at most ``width`` columns.

    Breaks at spaces; continuation lines are indented two more than the line
    they continue, so a wrapped line still reads as one; a chat line's are marked
    too (:func:`zsy_lan.protocol.chat.continued`), so another seat's text never
    starts a row that reads as a new line. A word wider than the
    line is cut. Chinese (and Japanese, Korean) runs on without spaces and may
    break between any two of its characters: such a word fills the line it
    starts on instead of leaving ``*`` alone above a Chinese sentence, and
    never carries a closing mark (``。``, ``）``) to the start of a line. A short
    Chinese word (at most a third of the line: a name in a German or Spanish
    sentence) is not broken; it moves to the next line whole, as any word does.
    """
    out: list[str] = []
    for line in text.split("\n"):
        if text_width(line, wide_ambiguous) <= width:
            out.append(line)
            continue
        body = line.lstrip(" ")
        first = line[: len(line) - len(body)]
        more = first + "  " if len(first) + 2 < width // 2 else "  "
        mark = continued(line)  # a chat line: its rows never read as lines of their own
        if mark is not None and len(mark) < width // 2:
            more = mark
        current, cur_w, empty = first, len(first), True
        for word in body.split(" "):
            w = text_width(word, wide_ambiguous)
            if not empty and cur_w + 1 + w <= width:
                current, cur_w = current + " " + word, cur_w + 1 + w
                continue
            if not empty and breaks_anywhere(word) and w > width // 3 and (
                cur_w + 1 + text_width(word[:2], wide_ambiguous) <= width
            ):  # a short one (a name, "(安娜)" in a German line) moves down whole instead
                current, cur_w = current + " ", cur_w + 1  # its start fits here
            elif not empty:
                out.append(current)
                current, cur_w = more, len(more)
            while word and cur_w + w > width:  # wider than a line: cut it by columns
                take, taken = "", 0
                for ch in word:
                    cw = text_width(ch, wide_ambiguous)
                    if take and cur_w + taken + cw > width:
                        break
                    take, taken = take + ch, taken + cw
                while 1 < len(take) < len(word) and word[len(take)] in NO_LINE_START:
                    take = take[:-1]  # a closing mark stays with the word before it
                if breaks_anywhere(word):
                    take = take[: _keep_whole(word, len(take), allow_empty=cur_w > len(more))]
                out.append((current + take).rstrip(" ") if not take else current + take)
                word = word[len(take) :]
                w = text_width(word, wide_ambiguous)
                current, cur_w = more, len(more)
            current, cur_w, empty = current + word, cur_w + w, False
        out.append(current)
    return out


def _narrow(ch: str) -> bool:
    """A character of a Latin-script run (a nick, a card, a number): not Chinese, not a space."""
    return not breaks_anywhere(ch) and not ch.isspace()


def _keep_whole(word: str, cut: int, allow_empty: bool) -> int:
    """Where to cut a Chinese ``word`` at ``cut`` without splitting a name in it.

    Chinese may break between any two characters, but a nick, card or number in
    it (``2号座位（normal-1）``) is one word: a cut inside such a run moves back to
    before it, and before an opening mark (``（``) that leads into it, so the
    line never ends ``（no`` with ``rmal-1）`` below. A run wider than the whole
    line is cut where it must be (``cut`` stays when nothing would be left).
    """
    if not 0 < cut < len(word):
        return cut
    at = cut
    if _narrow(word[at - 1]) and _narrow(word[at]):
        while at > 0 and _narrow(word[at - 1]):
            at -= 1
    while at > 0 and word[at - 1] in NO_LINE_END:
        at -= 1
    if at == 0 and not allow_empty:
        return cut
    return at


SUIT_NAMES = (N_("diamonds"), N_("clubs"), N_("hearts"), N_("spades"))


def card_text(card: int, style: Style) -> str:
    """One card, coloured red for hearts/diamonds/red joker when colour is on.

    With ``suit_words`` (``--plain``) the suit is a word: ``10 of spades``.
    """
    suit = suit_of(card)
    if style.suit_words and suit is not None:
        text = _("{rank} of {suit}").format(
            rank=RANK_NAMES[rank_of(card)], suit=_(SUIT_NAMES[suit])
        )
    else:
        text = card_str(card, ascii_suits=style.ascii_suits)
    if style.color and (suit in (0, 2) or rank_of(card) == 14):
        return f"{_RED}{text}{_RESET}"
    return text


_SUITED = re.compile(r"\b(10|[2-9JQKA])([♦♣♥♠])")
_CARD = r"(?:\b(?:10|[2-9JQKA])[♦♣♥♠]|\bBJ\b|\bRJ\b)"
# a space between two cards, one of them suited: a comma there once suits are words
_BETWEEN = re.compile(rf"(?<=[♦♣♥♠]) (?={_CARD})|(?<=J) (?=(?:10|[2-9JQKA])[♦♣♥♠])")


def suits_as_words(text: str) -> str:
    """Every ``10♠`` in ``text`` as ``10 of spades`` (``--plain``: any line, narration too).

    Cards in a row are separated by commas (``10 of spades, J of hearts``), so a
    screen reader does not run them together: once cards are words they are a
    list like any other, and Chinese separates it with ``、`` (``方块3、红桃3``).
    """
    text = _BETWEEN.sub(lambda _m: pgettext("between list items", ", "), text)
    return _SUITED.sub(
        lambda m: _("{rank} of {suit}").format(
            rank=m.group(1), suit=_(SUIT_NAMES["♦♣♥♠".index(m.group(2))])
        ),
        text,
    )


def line_printer(style: Style, emit: Callable[[str], None]) -> Callable[[str], None]:
    """Line mode's ``say``: suits as words where the style says so (``--plain``), then
    :func:`wrap` to the terminal at spaces, each piece to ``emit``; a seat's line mode
    and ``zsy watch --plain`` print through it alike, so no terminal cuts a word."""

    def say(text: str) -> None:
        if style.suit_words:
            text = suits_as_words(text)
        for line in wrap(text, style.columns(), style.wide_ambiguous):
            emit(line)

    return say


def _joined(cards: Sequence[int], style: Style) -> str:
    sep = ", " if style.suit_words else " "
    return sep.join(card_text(c, style) for c in cards)


def hand_text(
    cards: Sequence[int], style: Style, rules: Rules | None = None, state: RoundState | None = None
) -> str:
    """A hand sorted by rank as the game sorts it (or by suit with ``style.by_suit``)."""
    ordered = hand_shown(rules, state, cards)
    if style.by_suit:
        ordered = tuple(sorted(ordered, key=lambda c: (suit_of(c) is None, suit_of(c) or 0)))
    return _joined(ordered, style)


def play_text(
    cards: Sequence[int] | None, style: Style, rules: Rules | None = None
) -> str:
    """A seat's last move in the trick: cards (main part first, as the log shows a play:
    :func:`zsy_lan.text.play_order.shown_order`), ``pass`` or ``-``."""
    if cards is None:
        return "-"
    if not cards:
        return _("pass")
    return _joined(shown_order(rules, cards), style)


def count_text(n: int, warn: bool = True) -> str:
    """A card count with the one-and-two-cards-left warning players expect.

    ``warn=False`` once the round is over: "1 card LEFT!" next to "Round over" would
    warn of a seat that can no longer play.
    """
    if n == 0:
        return _("out")
    if n <= 2 and warn:
        return ngettext("{n} card LEFT!", "{n} cards LEFT!", n).format(n=n)
    return ngettext("{n} card", "{n} cards", n).format(n=n)


def seat_label(seat: int, names: Sequence[str] | None, me: int) -> str:
    """``seat 2 (ana)``, with ``you`` for the viewer."""
    name = clean(names[seat]) if names and seat < len(names) else ""
    if seat == me:
        return _("seat {seat} (you)").format(seat=seat)
    if name:
        return _("seat {seat} ({name})").format(seat=seat, name=name)
    return _("seat {seat}").format(seat=seat)


# --- the variant's vocabulary (zsy_lan/text/words.py) --------------------------------------


def role_titles(rules: Rules | None, state: RoundState) -> dict[int, str]:
    """Dou Dizhu: ``landlord`` / ``farmer`` once the bidding chose the landlord."""
    out = {}
    for s in range(state.players):
        role = words.seat_role(rules, state, s)
        if role is not None:
            out[s] = role
    return out


def team_lines(
    rules: Rules | None,
    names: Sequence[str] | None,
    me: int,
    state: RoundState | None = None,
) -> list[str]:
    """Fixed teams (partnerships, Guandan): who plays with whom, one line per team.

    With ``state``, teams with levels (a game's public ``team_levels`` field,
    one per team, docs/plugins.md) show them, and a deal played at a level
    (``deal_level``) says so in the plugin's words (``term:deal_level``) on one
    more line.
    """
    if rules is None or rules.teams is None:
        return []
    levels = state.get("team_levels") if state is not None else None
    out = []
    for i, team in enumerate(rules.teams):
        members = join_items(seat_label(s, names, me) for s in team)
        line = _("{team}: {members}").format(team=team_label(rules, team[0]), members=members)
        if isinstance(levels, tuple) and i < len(levels):
            line = _("{team_line}, level {rank}").format(
                team_line=line, rank=level_name(levels[i])
            )
        out.append(line)
    deal = state.get("deal_level") if state is not None else None
    if deal is not None:
        said = words.term(rules, "term:deal_level", rank=level_name(deal))
        out.append(said or _("This deal is played at level {rank}").format(rank=level_name(deal)))
    return out


# --- Dou Dizhu: bids, stake, kitty (DDZ-2, DDZ-5, DDZ-6.2) ----------------------------


def doudizhu_lines(
    rules: Rules | None, state: RoundState, style: Style, names: Sequence[str] | None, me: int
) -> list[str]:
    """Dou Dizhu's own lines: the bids, the landlord, the stake and the kitty when shown."""
    if not is_doudizhu(rules):
        return []
    out = []
    bids = state.get("bids") or ()
    if bids:
        said = []
        for seat, value in bids:
            who = seat_label(seat, names, me)
            if value:
                said.append(_("{who} bid {value}").format(who=who, value=value))
            else:
                said.append(_("{who} passed").format(who=who))
        out.append(_("Bids (DDZ-2): {bids}.").format(bids=join_clauses(said)))
    lord = int(state.get("landlord", -1))
    if lord >= 0:
        parts = stake_parts(rules, state)
        out.append(
            _("Landlord: {lord}; farmers: {farmers}.").format(
                lord=seat_label(lord, names, me),
                farmers=join_items(
                    seat_label(s, names, me) for s in range(state.players) if s != lord
                ),
            )
        )
        out.append(stake_text(parts))
        doubles = parts["doubles"]
        doubled = [s for s, d in enumerate(doubles) if d == 1 and s != lord]
        if doubled:
            text = _("Doubled (DDZ-6.2) by {seats}; that stake is x2.").format(
                seats=join_items(seat_label(s, names, me) for s in doubled)
            )
            if len(doubles) > lord and doubles[lord] == 1:
                text = join_sentences([text, _("The landlord redoubled: x4 with them.")])
            out.append(text)
    kitty = state.get("kitty")
    if kitty:
        out.append(
            _("Kitty (turned up, DDZ-2.4): {cards}").format(cards=_joined(sort_cards(kitty), style))
        )
    return out


def seat_stakes(rules: Rules | None, state: RoundState) -> dict[int, tuple[int, int]]:
    """Dou Dizhu: each seat's own stake as it will be paid, and the factor doubles put on it.

    ``{seat: (stake, factor)}`` once the landlord is known, else ``{}``. A farmer who
    doubled plays for the table stake x2, x4 when the landlord redoubled (DDZ-6.2, as
    the plugin's ``stakes`` pays it); the landlord plays against every farmer, so theirs
    is the sum (factor 1). The table stake alone hid the x4 a farmer paid (issue #26).
    """
    if not is_doudizhu(rules):
        return {}
    lord = int(state.get("landlord", -1))
    if lord < 0:
        return {}
    base = int(stake_parts(rules, state)["stake"])
    doubles = tuple(state.get("doubles") or ())
    redoubled = lord < len(doubles) and doubles[lord] == 1
    out: dict[int, tuple[int, int]] = {}
    for s in range(state.players):
        if s != lord:
            factor = (4 if redoubled else 2) if s < len(doubles) and doubles[s] == 1 else 1
            out[s] = (base * factor, factor)
    out[lord] = (sum(stake for stake, _factor in out.values()), 1)
    return out


def stake_short(stake: int, factor: int, ascii_only: bool = False) -> str:
    """One seat's stake in a few columns: ``stake 24 (×4)``, ``stake 6``."""
    if factor > 1:
        times = "x" if ascii_only else "×"
        return _("stake {stake} ({times}{factor})").format(
            stake=stake, times=times, factor=factor
        )
    return _("stake {stake}").format(stake=stake)


def paid_tribute_lines(
    state: RoundState, style: Style, names: Sequence[str] | None, me: int
) -> list[str]:
    """Tribute a game made when the deal started (its public ``tribute_paid`` field:
    Guandan's face-up gives, GD-6), one line a give, until the deal's first play."""
    paid = state.get("tribute_paid")
    if paid is None or any(state.plays_made):
        return []
    if paid == "resisted":
        return [_("No tribute this deal: it was resisted")]
    if not isinstance(paid, tuple):
        return []
    out = []
    for item in paid:
        if not (isinstance(item, tuple) and len(item) == 3 and all(type(x) is int for x in item)):
            continue
        giver, receiver, card = item
        if not (0 <= giver < state.players and 0 <= receiver < state.players and 0 <= card < 108):
            continue
        out.append(
            _("{giver} gave {card} to {receiver} as tribute").format(
                giver=seat_label(giver, names, me),
                card=_joined((card,), style),
                receiver=seat_label(receiver, names, me),
            )
        )
    return out


def tribute_line(
    duty: Any, names: Sequence[str] | None, me: int, rules: Rules | None = None
) -> str:
    """A pending tribute step (ZSY-7) naming the real giver and receiver, whole sentences.

    A variant with a tribute of its own says it in its words (``tribute:give:me`` ...
    in its vocabulary: Guandan counts jokers and returns a 10 or lower, GD-6); the base
    game's sentences are the default.
    """
    giver, receiver = seat_label(duty.giver, names, me), seat_label(duty.receiver, names, me)
    n = duty.n
    who = "me" if duty.giver == me else "to_me" if duty.receiver == me else "others"
    own = words.term(rules, f"tribute:{duty.kind}:{who}", giver=giver, receiver=receiver, n=n)
    if own is not None:
        return own
    if duty.kind == "give":
        if duty.giver == me:
            text = ngettext(
                "Tribute (ZSY-7): you must give your highest card (no jokers) face up to "
                "{receiver}.",
                "Tribute (ZSY-7): you must give your {n} highest cards (no jokers) face up to "
                "{receiver}.",
                n,
            )
        elif duty.receiver == me:
            text = ngettext(
                "Tribute (ZSY-7): {giver} must give you their highest card (no jokers), face up.",
                "Tribute (ZSY-7): {giver} must give you their {n} highest cards (no jokers), "
                "face up.",
                n,
            )
        else:
            text = ngettext(
                "Tribute (ZSY-7): {giver} must give their highest card (no jokers) face up to "
                "{receiver}.",
                "Tribute (ZSY-7): {giver} must give their {n} highest cards (no jokers) face up "
                "to {receiver}.",
                n,
            )
    elif duty.giver == me:
        text = ngettext(
            "Tribute (ZSY-7): you return a card of your choice, face down, to {receiver}.",
            "Tribute (ZSY-7): you return {n} cards of your choice, face down, to {receiver}.",
            n,
        )
    elif duty.receiver == me:
        text = ngettext(
            "Tribute (ZSY-7): {giver} returns a card of their choice to you, face down.",
            "Tribute (ZSY-7): {giver} returns {n} cards of their choice to you, face down.",
            n,
        )
    else:
        text = ngettext(
            "Tribute (ZSY-7): {giver} returns a card of their choice, face down, to {receiver}.",
            "Tribute (ZSY-7): {giver} returns {n} cards of their choice, face down, to {receiver}.",
            n,
        )
    return text.format(giver=giver, receiver=receiver, n=n)


def table_lines(
    state: RoundState,
    me: int,
    style: Style,
    names: Sequence[str] | None = None,
    titles: dict[int, str] | None = None,
    rules: Rules | None = None,
    marks: dict[int, str] | None = None,
) -> list[str]:
    """The table as ``me`` sees it: every seat's count and last move, the trick, the turn.

    ``marks``: a further tag per seat (``⇄ relay 12 ms``: that seat is reached
    through the relay, see :func:`zsy_lan.table.relay_join.relay_marks`).

    ``titles``: a tag per seat (last round's titles in the base game); with
    ``rules`` the variant's own tags and lines are added (landlord and farmers,
    bids, stake and kitty in Dou Dizhu; teams with partnerships), and a Dou
    Dizhu table never shows the base game's titles.
    """
    if is_doudizhu(rules):
        titles = role_titles(rules, state)
        lines = [_("Hand {n}").format(n=state.round_no)]
    else:
        lines = [
            _("Round {n} - dealer seat {dealer}").format(n=state.round_no, dealer=state.dealer)
        ]
    lines += team_lines(rules, names, me, state)
    for s in range(state.players):
        marker = ">" if s == state.turn else " "
        tags = [titles[s]] if titles and s in titles else []
        team = team_label(rules, s)
        if team:
            tags.append(team)
        if marks and s in marks:
            tags.append(marks[s])
        tag = "".join(f" [{t}]" for t in tags)
        place = ""
        if s in state.finished and not over(state):
            place = " " + _("finished #{n}").format(n=state.finished.index(s) + 1)
        last = play_text(state.seat_last[s] if state.seat_last else None, style, rules)
        lines.append(
            _("{marker} {seat}{tags}: {count}{place}; last: {last}").format(
                marker=marker,
                seat=seat_label(s, names, me),
                tags=tag,
                count=count_text(state.counts[s], warn=not over(state)),
                place=place,
                last=last,
            )
        )
    lines += doudizhu_lines(rules, state, style, names, me)
    lines += paid_tribute_lines(state, style, names, me)
    duty = tribute_duty(state)
    if duty is not None:
        lines.append(tribute_line(duty, names, me, rules))
    if state.trick is not None:
        combo = state.trick_combo
        trick = play_text(state.trick, style, rules)
        by = seat_label(state.trick_seat, names, me)
        if combo:
            lines.append(
                _("To beat: {cards} ({combo}) by {seat}").format(
                    cards=trick,
                    combo=words.combo_name(rules, combo, [rank_of(c) for c in state.trick]),
                    seat=by,
                )
            )
        else:
            lines.append(_("To beat: {cards} by {seat}").format(cards=trick, seat=by))
    elif in_tricks(state):
        lines.append(_("New trick: {seat} leads").format(seat=seat_label(state.turn, names, me)))
    hand = state.hands[me] if 0 <= me < len(state.hands) else None
    if hand is not None:
        lines.append(
            _("Your hand ({n}): {cards}").format(
                n=len(hand), cards=hand_text(hand, style, rules, state)
            )
        )
    if over(state):
        if is_doudizhu(rules) and state.finished:
            lord = int(state.get("landlord", -1))
            first = state.finished[0]
            lines.append(
                (
                    _("Hand over: {seat} went out first; the landlord wins.")
                    if first == lord
                    else _("Hand over: {seat} went out first; the farmers win.")
                ).format(seat=seat_label(first, names, me))
            )
        elif ended_at_first_out(state):
            lines.append(
                _("Round over: {seat} went out and wins the round.").format(
                    seat=seat_label(state.finished[0], names, me)
                )
            )
        else:
            order = " ".join(str(s) for s in state.finished)
            lines.append(
                _("Round over. Finishing order (first out first): {order}").format(order=order)
            )
    elif state.turn == me:
        lines.append(_("Your turn."))
    elif state.turn >= 0:
        lines.append(_("Waiting for {seat}.").format(seat=seat_label(state.turn, names, me)))
    return lines


def known_cards(state: RoundState, me: int) -> set[int]:
    """Card ids ``me`` has seen this round: own hand, every play, a turned-up kitty, tribute."""
    known = set(state.played)
    hand = state.hands[me] if 0 <= me < len(state.hands) else None
    known.update(hand or ())
    known.update(state.get("kitty") or ())
    for _giver, _receiver, face_up, _n in state.tribute_log:
        known.update(face_up or ())
    return known


def counter_text(state: RoundState) -> str:
    """A card counter: how many of each rank have been played this round."""
    counts = rank_counts(state.played)
    return " ".join(f"{RANK_NAMES[r]}:{counts[r]}" for r in range(15) if counts[r])


def unseen_text(state: RoundState, me: int, deck: Sequence[int]) -> str:
    """The cards ``me`` has not seen yet, by rank (``A:3 2:4 BJ:1``): in the others' hands.

    ``deck`` is the table's deck (with a kitty not turned up, its cards are unseen too).
    """
    known = known_cards(state, me)
    counts = rank_counts(c for c in deck if c not in known)
    return " ".join(f"{RANK_NAMES[r]}:{counts[r]}" for r in range(15) if counts[r])


def help_text() -> str:
    """The commands at the table, in the player's language (wrapped by the caller)."""
    return (
        _(
            "Type cards to play (3 3, 10 J Q K A, 33 44 55, BJ RJ), p to pass, "
            "? to list legal plays (then #2 plays the second), h for a hint, "
            "c for the card counter, s to sort by suit/rank, l for the legend, "
            "quit to leave. A card is always a card: Q plays a queen, T a ten, B a joker."
        )
        + "\n"
        + engine_said(LEGEND)
    )
