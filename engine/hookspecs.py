"""The hook specifications of zsy-lan rule plugins: the plugin author's contract.

A rule plugin is a module (or any object) with hook implementations marked
``@hookimpl`` (``from zsy_lan import hookimpl``) and three attributes:
``name`` (the CLI name, equal to its ``zsy.variants`` entry-point name),
``version`` and ``description``; a *game* plugin (a whole game: Zheng
Shangyou, Dou Dizhu) also sets ``game = True``. docs/plugins.md shows each
hook with an example.

How hooks are called, so that every peer computes the same rules:

* One plugin manager per table, holding exactly the enabled plugins,
  registered in one canonical order: the game plugin first, then the modifier
  plugins sorted by name, except that a plugin with ``after = ("other",)``
  comes after ``other`` when both are enabled. pluggy calls hooks in
  *reverse* registration order, so for a ``firstresult`` hook a modifier's
  answer wins over the game's, and among modifiers the later one's. Two
  modifiers that answer the same firstresult hook differently are refused
  when the table is built unless one of them declares that order
  (:mod:`zsy_lan.engine.plugin_conflicts` says how that is found).
* A hook that raises is named: the exception becomes a
  :class:`~zsy_lan.engine.errors.PluginError` naming the plugin and the hook
  (:mod:`zsy_lan.engine.plugin_guard`); play-time hooks read their table's
  options with ``rules.option(plugin, name)``.
* Hooks marked *fold* are called by the ruleset builder in canonical order
  (game first, then modifiers by name), each receiving the value decided so
  far and returning the new value, or ``None`` to keep it.
* Build hooks take the :class:`TableConfig` and run once, when a table's
  :class:`~zsy_lan.engine.rules.Rules` are built. *Play-time* hooks (``beats``,
  ``next_leader``, ``on_*``, ``round_over``, ``score_round``, ...) are collected
  at build time into small callables stored in the Rules: pluggy is never on
  the hot path.
* Hooks are pure: no I/O, clock, randomness (the only randomness is the
  round seed handed to :func:`zsy_on_seed`), ``hash()``, set-iteration order
  or floats in anything that affects the game.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import pluggy

from .combos import Combo, ComboKind

if TYPE_CHECKING:
    from .match import MatchState
    from .rules import PhaseHandler, Rules
    from .state import Action, Duty, RoundState

PROJECT = "zsy"
ENTRY_POINT_GROUP = "zsy.variants"

hookspec = pluggy.HookspecMarker(PROJECT)
hookimpl = pluggy.HookimplMarker(PROJECT)

OPTION_TYPES = ("bool", "int", "str", "choice")


@dataclass(frozen=True)
class Option:
    """A table option a plugin declares.

    ``type`` is ``bool``, ``int`` (with optional ``min``/``max``), ``str`` or
    ``choice`` (one of ``choices``). Values arrive from the command line as
    strings and are coerced by type; ``default`` must already be of the type.
    """

    name: str
    type: str
    default: Any
    help: str
    choices: tuple[str, ...] = ()
    min: int | None = None
    max: int | None = None

    def describe(self) -> str:
        """``bool, default false`` style summary for listings."""
        if self.type == "choice":
            kind = "one of " + "|".join(self.choices)
        elif self.type == "int" and (self.min is not None or self.max is not None):
            lo = "" if self.min is None else str(self.min)
            hi = "" if self.max is None else str(self.max)
            kind = f"int {lo}..{hi}"
        else:
            kind = self.type
        default = str(self.default).lower() if isinstance(self.default, bool) else self.default
        return f"{kind}, default {default}"


@dataclass(frozen=True)
class TableConfig:
    """What a table is configured with, as every build hook sees it.

    ``plugins`` are the enabled plugin names in canonical order (game first);
    ``options`` maps plugin name to its resolved options (every declared
    option, defaults filled in).
    """

    game: str
    players: int
    plugins: tuple[str, ...]
    options: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)

    def opt(self, plugin: str, name: str) -> Any:
        """The value of ``plugin``'s option ``name`` (a KeyError names a missing one)."""
        return self.options[plugin][name]

    def enabled(self, plugin: str) -> bool:
        """Is ``plugin`` enabled at this table?"""
        return plugin in self.plugins


@dataclass(frozen=True)
class Deck:
    """The cards of a table: how many 54-card decks, and the card ids used."""

    decks: int
    cards: tuple[int, ...]


@dataclass(frozen=True)
class DealLayout:
    """How the deck is dealt: ``kitty`` cards stay face down (Dou Dizhu: 3).

    The rest is dealt one card at a time from the seat after the dealer, so the
    first seats get any extra card (ZSY-1.2 D). ``kitty_shown``: when the kitty
    is taken (Dou Dizhu's landlord, DDZ-2.4) everyone sees it; the private deal
    then opens it to every seat instead of to the taker alone.
    """

    kitty: int = 0
    kitty_shown: bool = False


@dataclass(frozen=True)
class FirstLead:
    """ZSY-2.1: who leads round 1.

    ``start_card`` set: its holder leads and must play it (``None`` with
    ``required``: the lowest card of the deck). ``required=False``: no
    start-card rule; the game's ``on_deal`` hook decides (Dou Dizhu: bidding).
    """

    required: bool = True
    start_card: int | None = None


@dataclass(frozen=True)
class Lead:
    """Who leads one deal (:func:`zsy_deal_lead`): a seat, or the holder of a card.

    ``card`` set: the seat holding it (as dealt; with two copies, the first
    after the dealer) leads, and with ``must_play`` its first play must
    include it. Only the card's rank and suit count (``card % 54``). With the
    private deal nobody can see who holds it: after the deal each seat from
    the dealer's left says in turn whether it holds the card, the holder
    showing it, and the end-of-deal audit checks every "no" (a false one
    voids the deal and names the seat). ``seat`` set instead: that seat leads
    freely. A deal owing tribute cannot be led by a card (the card may change
    hands); give ``seat`` there, or ``None`` for the base rule.

    ``stock`` (with ``card``): the cards the deal set aside (``DealLayout.kitty``)
    go to the holder of ``card`` before anyone plays, or to the first seat dealt
    when ``card`` is itself set aside (Big Two with three players, B2-1.1). With
    the private deal the holder is the seat that shows the card in the lead
    stage (the first seat dealt when every seat says no, each "no" checked by
    the audit), and only it opens the set-aside cards. ``seat`` may then be set
    too: that seat leads freely, ``card`` only decides who takes the stock.
    """

    seat: int | None = None
    card: int | None = None
    must_play: bool = True
    stock: bool = False


@dataclass(frozen=True)
class ComboLimits:
    """Numbers the base combination kinds read: chain length, chain top, bomb size."""

    min_straight: int = 5
    straight_top: int = 12
    min_bomb: int = 4


@dataclass(frozen=True)
class Tribute:
    """ZSY-7: whether tribute is paid, how many cards, and the second tribute."""

    enabled: bool = True
    cards: int = 2
    second: bool = False


# --- declaring a plugin -------------------------------------------------------


@hookspec
def zsy_options() -> Sequence[Option]:
    """Declare this plugin's table options.

    Return the :class:`Option` list (name, type, default, help). Options are
    set per table with ``--option name=value`` (or ``plugin.name=value`` when
    two enabled plugins declare the same name) and reach every build hook
    through :meth:`TableConfig.opt`, already coerced and validated, and every
    play-time hook through ``rules.option(plugin, name)``. Called once per
    plugin, also by ``zsy plugins``; anything but a list of Options (None, a
    raise) marks the plugin broken, left out of every table.
    """


@hookspec(firstresult=True)
def zsy_default_players() -> int | None:
    """The player count used when the table does not say (Dou Dizhu: 3).

    First non-None answer wins (modifiers before the game).
    """


@hookspec
def zsy_supported_players(options: Mapping[str, Any]) -> Sequence[int] | None:
    """The player counts this plugin supports, given its own resolved ``options``.

    Return ``None`` for "any". A table whose player count is not in every
    enabled plugin's list is refused before it opens, naming the plugin
    (partnerships: 4 or 6).
    """


@hookspec
def zsy_conflicts(table: TableConfig) -> Sequence[str] | None:
    """Problems with this combination of plugins and options, as messages.

    Return messages that name the other plugin or option ("conflicts with
    no-tribute: ..."); any message refuses the table before it opens. Check
    only what involves this plugin.
    """


# --- the deck and the deal ----------------------------------------------------


@hookspec(firstresult=True)
def zsy_deck(table: TableConfig) -> Deck | None:
    """The cards this table plays with (ZSY-1.2; Dou Dizhu: 54 or 108).

    First non-None answer wins: a modifier that removes the jokers answers
    before the game plugin.
    """


@hookspec(firstresult=True)
def zsy_deal_layout(table: TableConfig, deck: Deck) -> DealLayout | None:
    """How many cards stay face down as a kitty (DDZ-1: 3; DDZ-6.3: 8).

    First non-None answer wins. The hand sizes follow (``Rules.hand_sizes``).
    """


@hookspec(firstresult=True)
def zsy_first_lead(table: TableConfig, deck: Deck) -> FirstLead | None:
    """Who leads round 1 (ZSY-2.1): the start-card rule, a fixed start card, or none.

    First non-None answer wins (house rules' 3♥ before the game's default).
    """


@hookspec(firstresult=True)
def zsy_deal_lead(rules: Rules, match: MatchState, seed: bytes) -> Lead | None:
    """Play time: who leads the deal about to be dealt, for every deal of the match.

    ``match`` is the match before the deal (``match.results``: the deals so
    far; ``match.extra``: your match-level state); ``seed`` the deal's shared
    seed (a seat drawn by lot: ``shuffle.choose(seed, "your-label", n)``,
    Guandan's first deal, GD-4.1). Return a :class:`Lead`
    (the holder of a card, or a seat), or ``None`` for the base rule: round 1
    by :func:`zsy_first_lead`, later rounds the previous first out (ZSY-2.2).
    First non-None answer wins. Big Two: ``Lead(card=3♦)`` on every deal.
    """


# --- combinations and how they compare --------------------------------------


@hookspec
def zsy_combo_kinds(
    table: TableConfig, kinds: tuple[ComboKind, ...]
) -> Sequence[ComboKind] | None:
    """Fold: the combination kinds of the game, after this plugin's change.

    ``kinds`` is what the plugins before this one decided (empty for the game
    plugin, which is first). Return the complete new sequence (add, drop or
    replace kinds; order matters: the first kind that classifies a play wins),
    or ``None`` to keep ``kinds``. Kinds work on rank counts; a kind that needs
    suits sets ``ComboKind.cards`` (see :mod:`zsy_lan.engine.combos`).
    """


@hookspec
def zsy_combo_limits(table: TableConfig, limits: ComboLimits) -> ComboLimits | None:
    """Fold: the shortest straight, the highest rank a chain may reach, the smallest bomb.

    Return a changed :class:`ComboLimits` or ``None``. The base kinds read
    these numbers from the Rules (three-card bombs: ``min_bomb=3``).
    """


@hookspec(firstresult=True)
def zsy_move_generator(table: TableConfig) -> Any | None:
    """Optional: one function generating every play of the game at once (speed).

    ``fn(rules, counts, last) -> list[Play]`` must return exactly what the
    per-kind generators would (every play as leader, or every play that beats
    ``last``); the engine uses it instead of looping over kinds. Dou Dizhu uses
    it to stay under its move-generation budget.
    """


@hookspec(firstresult=True)
def zsy_beats(rules: Rules, play: Combo, last: Combo) -> bool | None:
    """Play time, tri-state: does ``play`` beat ``last``?

    Return ``True`` or ``False`` to decide, ``None`` for no opinion (the base
    rule ZSY-4 then decides: same kind and length and higher key, or bombs by
    bomb power). First non-None answer wins. Implementing this hook makes move
    generation filter every play through it, so keep it cheap.
    """


@hookspec(firstresult=True)
def zsy_rules_in_effect(table: TableConfig) -> Any | None:
    """Optional: rules that change with the state of the round (a revolution).

    Return ``fn(rules, state) -> Rules`` giving the rules in effect in
    ``state`` (``rules`` itself when nothing changed); the engine calls it at
    the start of ``apply`` and move generation. Derived Rules must set
    ``in_effect=None``.
    """


@hookspec(firstresult=True)
def zsy_card_order(rules: Rules, state: RoundState) -> Any | None:
    """Play time, optional: the order a player's hand is shown in during ``state``.

    Return a key function ``fn(card) -> comparable`` (Guandan: the 2 lowest,
    the level rank above A, the wild cards beside it), or ``None`` for the
    engine's order (rank, then suit). Display only: records, the wire and the
    engine keep their own canonical order.
    """


# --- words -----------------------------------------------------------------------


@hookspec
def zsy_vocabulary(table: TableConfig) -> Mapping[str, str] | None:
    """English words for this plugin's terms: what the presenter shows players.

    Return a mapping of term key -> English text, or ``None``. Maps are merged
    in canonical order (game first, then modifiers by name), a later plugin's
    entry replacing an earlier one for the same key. Engine names (``triple1``,
    ``fullhouse``) must never reach players: every combination kind and action
    kind a plugin adds should have its words here. Keys:

    * ``kind:<kind>`` / ``kinds:<kind>``: the kind's noun, singular and plural
      (``"pair"`` / ``"pairs"``);
    * ``play:<kind>``: one play of that kind, a template with the placeholders
      ``{rank}`` (the deciding rank as on a card: ``9``), ``{ranks}`` (that rank
      in the plural: ``9s``), ``{count}`` (how many cards of it, in words),
      ``{low}``/``{high}`` (the ends of a run), ``{kickers}`` (the other cards'
      ranks), ``{kicker_ranks}`` (their rank in the plural), ``{n}`` (cards):
      ``"pair of {ranks}"``, ``"straight {low} to {high}"``,
      ``"bomb of {count} {ranks}"``;
    * ``role:<role>`` / ``roles:<role>``: a side's name (``landlord``, ``farmer``);
    * ``place:<n>``: the title of the n-th out (``place:1`` Upstream),
      ``place:-<n>`` counted from the last (``place:-1`` Downstream),
      ``place:<players>:<n>`` for one player count only (``place:4:2``
      Second-Upstream); a game without titles (Dou Dizhu) sets ``places`` to
      ``"none"``;
    * ``action:<kind>`` (and ``action:<kind>:<value>``): an action, a template
      with ``{value}`` and ``{cards}`` (``"bid {value}"``; ``action:bid:0``
      ``"pass"``; ``action:double:1`` ``"double"``; ``action:double:0``
      ``"no double"``);
    * ``stake``: the word for what a hand is played for (``"stake"``);
    * ``rules:<plugin name>``: the plugin's rules as a player reads them, one
      rule a line, each starting with its id (``"SS-1 Straights: 3 or more
      consecutive ranks."``); ``zsy rules`` and the table's ``rules`` command
      print them in the plugin's place (without it: its name, version and options).

    Plugins cannot translate (they never import ``zsy_lan.text.i18n``): the
    presenter (``zsy_lan.text.words``) translates each English text with gettext, so
    a built-in plugin's texts are also listed in ``zsy_lan/text/words.py``.
    """


# --- tribute --------------------------------------------------------------------


@hookspec
def zsy_tribute(table: TableConfig, tribute: Tribute) -> Tribute | None:
    """Fold: whether tribute is paid (ZSY-7), how many cards, and the second tribute.

    Return a changed :class:`Tribute` or ``None`` (no tribute: ``enabled=False``;
    doubled tribute: ``cards=3``).
    """


@hookspec(firstresult=True)
def zsy_tribute_duties(rules: Rules, order: tuple[int, ...]) -> Sequence[Duty] | None:
    """Play time: the tribute owed after a round that finished in ``order``.

    Return the :class:`~zsy_lan.engine.state.Duty` list (all gives, then all
    returns) or ``None`` for the base rule (ZSY-7.1/7.2 from ``rules.tribute``,
    ``tribute_cards`` and ``second_tribute``).
    """


@hookspec
def zsy_phases(table: TableConfig) -> Mapping[str, PhaseHandler] | None:
    """The round phases this plugin runs itself (``bidding``, ``doubling``, ``tribute``).

    Each handler has ``legal(rules, state, seat) -> list[Action]`` and
    ``apply(rules, state, action) -> RoundState`` (raising ``RuleError``). Two
    plugins handling the same phase are refused as a conflict.
    """


# --- who leads, teams, the end of a round --------------------------------------


@hookspec(firstresult=True)
def zsy_next_leader(rules: Rules, state: RoundState, winner: int) -> int | None:
    """Play time: who leads when the trick's ``winner`` went out with it (ZSY-5.4).

    Return an active seat, or ``None`` for the base rule (the next active seat
    after the winner).
    """


@hookspec(firstresult=True)
def zsy_teams(table: TableConfig) -> Sequence[Sequence[int]] | None:
    """Fixed teams for the whole match (partnerships: alternate seats), or ``None``.

    Teams share results: match winners are a whole team.
    """


@hookspec
def zsy_on_deal(rules: Rules, state: RoundState) -> RoundState | None:
    """Play time, chained in canonical order: change the state right after the deal.

    Return the new state or ``None`` (Dou Dizhu: enter the ``bidding`` phase).
    """


@hookspec
def zsy_on_seed(
    rules: Rules, state: RoundState, seed: bytes, match: MatchState
) -> RoundState | None:
    """Play time, chained: use the round's shared seed (the only randomness there is).

    ``match`` is the match before this deal: copy what the deal needs from your
    match-level state into the round here (Guandan: the level in force, GD-1.2).

    Return the new state or ``None``. Draw with
    :func:`zsy_lan.engine.shuffle.choose` and a label of your own (Dou Dizhu:
    the first bidder, DDZ-1).
    """


@hookspec
def zsy_on_play(rules: Rules, state: RoundState, action: Action, combo: Combo) -> RoundState | None:
    """Play time, chained: after a play was applied (before going-out is handled).

    Return the new state or ``None`` (Dou Dizhu: count bombs for the stake).
    """


@hookspec(firstresult=True)
def zsy_round_over(rules: Rules, state: RoundState) -> bool | None:
    """Play time: is the round over now that a player went out?

    ``True``/``False`` decides, ``None`` keeps ZSY-6.2 (one player left).
    Dou Dizhu ends at the first player out (DDZ-4.5).
    """


# --- scoring and the match ------------------------------------------------------


@hookspec(firstresult=True)
def zsy_scoring(table: TableConfig) -> str | None:
    """The base scoring scheme (ZSY-8): ``ranking``, ``penalty`` or ``cardcount``."""


@hookspec(firstresult=True)
def zsy_score_round(rules: Rules, state: RoundState) -> Sequence[int] | None:
    """Play time: each seat's points for a finished round, or ``None`` for the scheme.

    Ints only; with teams or sides, decide how points sum (Dou Dizhu: zero-sum).
    """


@hookspec(firstresult=True)
def zsy_match_score(rules: Rules, match: MatchState) -> Sequence[int] | None:
    """Play time: each seat's match standing (higher is better) at the end of a match.

    ``None`` uses the scheme (rounds as Upstream, or totals). The best standing
    wins; ties play deciding rounds (ZSY-8.5 D).
    """


@hookspec
def zsy_deal_over(rules: Rules, match: MatchState) -> Mapping[str, Any] | None:
    """Play time, chained in canonical order: update match-level state after each deal.

    Called once per scored deal (not for a void one), after the result is
    recorded: ``match.results[-1]`` is this deal's result, ``match.round`` the
    finished round (every hand known), ``match.extra`` the state so far (read
    it with ``match.get(key, default)``). Return the keys to set (a mapping;
    each plugin sees the earlier plugins' updates) or ``None``. Values must
    be canonical: ints, strings, bools, ``None``, lists/tuples and str-keyed
    dicts of them (no floats, sets or objects); lists are stored as tuples.
    The state is part of every match hash, the record and the replay, and
    every peer computes it from the same deals. Prefix keys with your plugin
    name to keep clear of other plugins (Guandan: each team's level).
    """


@hookspec(firstresult=True)
def zsy_match_over(rules: Rules, match: MatchState) -> Sequence[int] | None:
    """Play time: has the match ended after this deal, and who won?

    Called after each scored deal, after :func:`zsy_deal_over`. Return the
    winning seats (every member of a winning team) to end the match now, an
    empty sequence to play on (even past the agreed number of rounds), or
    ``None`` for the base rule: the agreed number of rounds, the best
    standing wins, ties play deciding rounds (ZSY-8.5). First non-None
    answer wins (Guandan: a team that wins a deal at level A, GD-5.2).
    """


@hookspec
def zsy_rule_ids(table: TableConfig) -> Mapping[str, str] | None:
    """The plugin's own rule ids for the engine's refusals: engine id -> your id.

    A refusal the engine raises under your rules (a play that does not beat
    the last, ``ZSY-4.1``) then cites your id (``{"ZSY-4.1": "B2-3.2"}``),
    in the error, the table's message and the record. Merged in canonical
    order, a later plugin's entry replacing an earlier one. ``zsy rules``
    lists them; give each id a line in your ``rules:<name>`` vocabulary.
    """


@hookspec(firstresult=True)
def zsy_check_rounds(rules: Rules, rounds: int) -> tuple[str, str] | None:
    """Play time: refuse a match length, as ``(rule id, reason)`` (DDZ-5.3: a multiple of 3)."""
