"""The compiled rules of one table: plain data plus a few narrow callables.

A :class:`Rules` value is what the round and match state machines consult.
It is built once per table (by :func:`base_rules` for the base game, or by the
plugin manager in :mod:`zsy_lan.engine.ruleset` from the enabled variants) and
then only read: the hot paths (move generation, apply) never go through
pluggy. Everything in it is deterministic.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from .cards import TWO, full_deck, make_card, sort_key
from .combos import ZSY_KINDS, Combo, ComboKind
from .errors import ConfigError

if TYPE_CHECKING:
    from .state import Action, RoundState

SCORING_SCHEMES = ("ranking", "penalty", "cardcount")

BeatsOverride = Callable[["Rules", Combo, Combo], "bool | None"]
NextLeader = Callable[["Rules", "RoundState", int], "int | None"]
StateHook = Callable[..., "RoundState"]


class PhaseHandler(Protocol):
    """A variant's own round phase (Dou Dizhu's bidding): its actions and transitions.

    Optional third method, ``audit(rules, state, action, hand) -> None``: with the
    private deal nobody sees the hand a seat acted from, so a rule about that hand
    ("the tribute is my highest card", "I do not hold both red jokers") cannot be
    checked when the action comes. The private deal keeps such actions and calls
    ``audit`` at the end-of-deal audit, with ``state`` the round just before the
    action (read only its public fields: it is this peer's view), ``action`` with
    its cards (a face-down return's too) and ``hand`` every card the seat held
    then. Raise :class:`RuleError` when the action broke a rule: the deal is void
    and the seat named (docs/plugins.md, "Claims about a hidden hand").
    """

    def legal(self, rules: Rules, state: RoundState, seat: int) -> list[Action]:
        """What ``seat`` may do in this phase."""
        ...

    def apply(self, rules: Rules, state: RoundState, action: Action) -> RoundState:
        """The next state, or raise :class:`RuleError`."""
        ...


@dataclass(frozen=True)
class Rules:
    """Everything the state machines need to know about a table's rules."""

    players: int
    decks: int
    deck: tuple[int, ...]
    kinds: tuple[ComboKind, ...] = ZSY_KINDS
    kitty_size: int = 0
    kitty_shown: bool = False  # the kitty is shown to all when taken (DealLayout.kitty_shown)
    min_straight: int = 5
    straight_top: int = TWO
    min_bomb: int = 4
    start_card: int | None = None
    tribute: bool = True
    tribute_cards: int = 2
    second_tribute: bool = False
    scoring: str = "ranking"
    teams: tuple[tuple[int, ...], ...] | None = None
    beats_override: BeatsOverride | None = None
    next_leader: NextLeader | None = None
    # Variant seams (see docs/plugins.md): extra phases, and hooks run after the
    # deal, after each play, and to decide when a round is over (None: base rule).
    phase_handlers: dict[str, PhaseHandler] | None = field(default=None, compare=False)
    on_deal: StateHook | None = None
    on_play: StateHook | None = None
    round_over: Callable[[Rules, RoundState], bool | None] | None = None
    on_seed: StateHook | None = None
    tribute_duties: Callable[[Rules, tuple[int, ...]], Any] | None = None
    score_round: Callable[[Rules, RoundState], Any] | None = None
    match_score: Callable[[Rules, Any], Any] | None = None
    # ZSY-2.1 applies (round 1: the start-card holder leads with it). A game with
    # its own first lead (Dou Dizhu: the landlord) turns it off.
    start_card_lead: bool = True
    # A game's own all-kinds move generator (fast path replacing the per-kind loop;
    # used only when no kind needs the actual cards), see combos.legal_plays.
    move_generator: Callable[[Rules, Any, Combo | None], list[Any]] | None = None
    # The rules in effect in a state (a revolution reverses rank order): None = these.
    in_effect: Callable[[Rules, RoundState], Rules] | None = None
    # How a hand is shown (a key function for a state), or None: rank, then suit.
    card_order: Callable[[Rules, RoundState], Any] | None = None
    # Refuses a match length (Dou Dizhu: a multiple of 3 hands): (rule id, reason) or None.
    check_rounds: Callable[[Rules, int], tuple[str, str] | None] | None = None
    # Across deals (see docs/plugins.md): who leads each deal (a Lead or None), the
    # match-level state updates after each deal, and when the match ends (winners,
    # () to play on, None for the agreed rounds). None: the base rules.
    deal_lead: Callable[[Rules, Any], Any] | None = None
    deal_over: Callable[[Rules, Any], Any] | None = None
    match_over: Callable[[Rules, Any], Any] | None = None
    # The plugins' own ids for the engine's refusals (engine id -> plugin id, B2-3.2).
    rule_ids: Mapping[str, str] = field(default_factory=dict, compare=False, repr=False)
    config: dict[str, Any] = field(default_factory=dict, compare=False)
    # English words for the table's terms (combination kinds, roles, places, actions),
    # merged from the plugins' zsy_vocabulary hooks; zsy_lan.text.words presents them.
    vocabulary: Mapping[str, str] = field(default_factory=dict, compare=False, repr=False)
    kind_by_name: dict[str, ComboKind] = field(init=False, compare=False, repr=False)
    bomb_kinds: tuple[ComboKind, ...] = field(init=False, compare=False, repr=False)
    card_kinds: tuple[ComboKind, ...] = field(init=False, compare=False, repr=False)
    rank_kinds: tuple[ComboKind, ...] = field(init=False, compare=False, repr=False)
    gen_order: tuple[ComboKind, ...] = field(init=False, compare=False, repr=False)
    classify_memo: dict[tuple[int, ...], Combo | None] = field(
        init=False, compare=False, repr=False, default_factory=dict
    )

    def __post_init__(self) -> None:
        if not 3 <= self.players <= 6:
            raise ConfigError(f"{self.players} players: Zheng Shangyou needs 3 to 6 (ZSY-1.1)")
        if self.scoring not in SCORING_SCHEMES:
            raise ConfigError(
                f"unknown scoring '{self.scoring}': choose one of {', '.join(SCORING_SCHEMES)}"
            )
        object.__setattr__(self, "kind_by_name", {k.name: k for k in self.kinds})
        object.__setattr__(self, "bomb_kinds", tuple(k for k in self.kinds if k.bomb))
        object.__setattr__(self, "card_kinds", tuple(k for k in self.kinds if k.cards))
        object.__setattr__(self, "rank_kinds", tuple(k for k in self.kinds if not k.cards))
        # generation order: ordinary kinds first, bombs last (readable lists, cheap pruning)
        object.__setattr__(
            self, "gen_order", tuple(k for k in self.kinds if not k.bomb) + self.bomb_kinds
        )

    def option(self, plugin: str, name: str) -> Any:
        """The value of ``plugin``'s option ``name`` at this table, for play-time hooks.

        The same resolved, coerced value the build hooks read with
        ``table.opt(plugin, name)`` (defaults filled in); it is part of the
        ruleset id, so every peer reads the same. A ``KeyError`` names an option
        (or a plugin) this table does not have.
        """
        try:
            return self.config["options"][plugin][name]
        except (KeyError, TypeError):
            raise KeyError(f"this table has no option '{name}' of plugin '{plugin}'") from None

    def options_of(self, plugin: str) -> Mapping[str, Any]:
        """Every option of ``plugin`` at this table (empty when it is not enabled)."""
        return dict(self.config.get("options", {}).get(plugin, {}))

    @property
    def lowest_card(self) -> int:
        """ZSY-2.1 D: the start card is the lowest dealt card by rank, then suit."""
        if self.start_card is not None:
            return self.start_card
        return min(self.deck, key=sort_key)

    def hand_sizes(self) -> tuple[int, ...]:
        """Cards per hand in deal order (ZSY-1.2 D: the first dealt get the extras)."""
        n = len(self.deck) - self.kitty_size
        base, extra = divmod(n, self.players)
        return tuple(base + (1 if i < extra else 0) for i in range(self.players))

    def rule_id(self, rule: str) -> str:
        """The id this table cites for the engine's rule ``rule`` (a plugin's own, or itself)."""
        return self.rule_ids.get(rule, rule)

    def team_of(self, seat: int) -> tuple[int, ...] | None:
        """The team holding ``seat``, or ``None`` when there are no teams."""
        if self.teams is None:
            return None
        for team in self.teams:
            if seat in team:
                return team
        return None

    def partner_of(self, seat: int) -> tuple[int, ...]:
        """Seats on ``seat``'s team other than itself, in play order after it."""
        team = self.team_of(seat)
        if not team:
            return ()
        n = self.players
        return tuple(sorted((s for s in team if s != seat), key=lambda s: (s - seat) % n))


def deck_for(players: int) -> tuple[int, int, tuple[int, ...]]:
    """ZSY-1.2: ``(decks, deck cards)`` for a player count.

    3 players: 54 cards minus 3♦ and 3♣; 4: 54 cards; 5–6: two decks.
    """
    if players == 3:
        removed = {make_card(0, 0), make_card(0, 1)}
        return 1, tuple(c for c in full_deck(1) if c not in removed)
    if players == 4:
        return 1, full_deck(1)
    if players in (5, 6):
        return 2, full_deck(2)
    raise ConfigError(f"{players} players: Zheng Shangyou needs 3 to 6 (ZSY-1.1)")


def base_rules(
    players: int = 4,
    *,
    scoring: str = "ranking",
    two_in_straights: bool = True,
    start_card: int | None = None,
    second_tribute_big: bool = False,
) -> Rules:
    """The base game of RULES.md (ZSY-1 to ZSY-8) with its table options.

    ``two_in_straights`` (ZSY-3.3 D), ``start_card`` (ZSY-2.1 option: a card
    id), ``scoring`` (ZSY-8), ``second_tribute_big`` (ZSY-7.2 option for 5–6
    players).
    """
    decks, deck = deck_for(players)
    if start_card is not None and start_card not in deck:
        raise ConfigError(f"start card {start_card} is not in the {players}-player deck (ZSY-2.1)")
    return Rules(
        players=players,
        decks=decks,
        deck=deck,
        straight_top=TWO if two_in_straights else TWO - 1,
        start_card=start_card,
        second_tribute=players == 4 or (second_tribute_big and players >= 5),
        scoring=scoring,
        config={
            "players": players,
            "scoring": scoring,
            "two_in_straights": two_in_straights,
            "start_card": start_card,
            "second_tribute_big": second_tribute_big,
        },
    )


