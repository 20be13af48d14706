"""Engine commands: ``zsy moves``, ``zsy selfplay`` and the local ``zsy play``."""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Iterable
from typing import Any

import click

from zsy_lan.cli.options import make_rules, match_rounds, rounds_option, rules_options
from zsy_lan.engine.cards import (
    RANK_NAMES,
    cards_str,
    parse_cards_exact,
    parse_ranks,
    rank_counts,
    rank_of,
    ranks_str,
)
from zsy_lan.engine.combos import Combo, classify_cards, legal_plays
from zsy_lan.engine.errors import EngineError, ParseError
from zsy_lan.engine.rules import Rules
from zsy_lan.engine.selfplay import play_match
from zsy_lan.engine.state import RoundState
from zsy_lan.text import words
from zsy_lan.text.engine_text import translate as engine_said
from zsy_lan.text.i18n import _, exit_reason


def _cards(rules: Rules, text: str, what: str) -> tuple[int, ...]:
    """Concrete cards for typed text: suits as typed, else the lowest this table's deck holds.

    A bare rank is read as the suits the table's deck holds, so ``3 3`` with 3
    players is 3♥ 3♠ (3♦ and 3♣ are not dealt, ZSY-1.2).
    """
    try:
        return parse_cards_exact(text, rules.decks, rules.deck)
    except ParseError as exc:
        token = exc.token or ""
        if token and "too many" in str(exc):
            rank = next(i for i, n in enumerate(RANK_NAMES) if n == token)
            have = sum(1 for c in rules.deck if rank_of(c) == rank)
            asked = sum(1 for r, _s in parse_ranks(text) if r == rank)
            raise ParseError(
                _("{what} has {asked} {ranks}, but a {players}-player deck holds only {have} "
                  "(ZSY-1.2)").format(
                    what=what, asked=words.count_word(asked), ranks=words.rank_plural(rank),
                    players=rules.players, have=words.count_word(have),
                ),
                token=token,
            ) from exc
        if token and "not in this table's deck" in str(exc):
            raise ParseError(
                _("{what} has {card}, which this table's deck does not hold (ZSY-1.2)").format(
                    what=what, card=token
                ),
                token=token,
            ) from exc
        raise


#: ``--level``'s ranks (a level is a rank from 2 to A: GD-1.2)
LEVELS: dict[str, int] = {
    **{str(n): n for n in range(2, 11)}, "J": 11, "Q": 12, "K": 13, "A": 14,
}


def at_level(rules: Rules, level: str | None) -> Rules:
    """``rules`` as in a deal played at ``level`` (``7``, ``J``...): a game with levels
    (Guandan) ranks its cards and finds its wild cards by the round's public
    ``deal_level`` field (docs/plugins.md), so the rules in effect for such a round."""
    if level is None:
        return rules
    value = LEVELS.get(level.strip().upper())
    if value is None:
        raise click.BadParameter(
            _("{level!r} is not a level: a rank from 2 to A (2-10, J, Q, K, A).").format(
                level=level
            ),
            param_hint="--level",
        )
    if rules.in_effect is None:
        raise click.BadParameter(
            _("this game is not played at levels (Guandan is: --variant guandan)."),
            param_hint="--level",
        )
    n = rules.players
    state = RoundState(
        players=n, round_no=1, dealer=0, phase="play", hands=(None,) * n, counts=(0,) * n,
        turn=0, leader=0, extra=(("deal_level", value),),
    )
    return rules.in_effect(rules, state)


def compute_moves(rules: Rules, hand: str, last: str | None) -> list[str]:
    """Every legal play: ranks lowest first; suits shown only where the play needs them."""
    return [text for text, _combo in compute_plays(rules, hand, last)]


def named_moves(rules: Rules, plays: list[tuple[str, Combo]]) -> list[str]:
    """The plays as ``zsy moves`` prints them: the same cards listed twice (with a wild
    card Guandan's ``3♥ 4♥ 5♥ 6♥ 7♥`` is a straight and a straight flush) are named
    after them (``(straight flush)``), so a reader sees which is which."""
    seen: dict[str, int] = {}
    for text, _combo in plays:
        seen[text] = seen.get(text, 0) + 1
    return [
        _("{cards} ({combination})").format(
            cards=text, combination=words.combo_name(rules, combo)
        )
        if seen[text] > 1
        else text
        for text, combo in plays
    ]


def compute_plays(rules: Rules, hand: str, last: str | None) -> list[tuple[str, Combo]]:
    """Every legal play and its combination (see :func:`compute_moves`)."""
    cards = _cards(rules, hand, "--hand")
    off_deck = [c for c in cards if c not in rules.deck]
    if off_deck:
        raise ParseError(f"--hand has {cards_str(off_deck)}, which this table's deck does not hold")
    combo: Combo | None = None
    if last:
        last_cards = _cards(rules, last, "--last")
        combo = classify_cards(rules, last_cards)
        if combo is None:
            raise ParseError(
                f"--last '{last}' is not a combination, so nothing can beat it "
                f"({rules.rule_id('ZSY-3.5')})"
            )
    plays = legal_plays(rules, rank_counts(cards), combo, hand=cards)
    return [(cards_str(p.cards) if p.cards else ranks_str(p.ranks), p.combo) for p in plays]


@click.command()
@click.option(
    "--hand",
    help='The hand, e.g. "3 3 4 5 6 7 BJ RJ"; a rank without a suit takes the suits this '
    "table's deck holds (3♥ 3♠ for two 3s with 3 players).",
)
@click.option("--last", default=None, help='The play to beat, e.g. "4 4" (omit when leading).')
@rules_options()
@click.option(
    "--level",
    default=None,
    metavar="RANK",
    help="The level the deal is played at, 2-10, J, Q, K or A, in a game played at levels "
    "(Guandan: the two ♥ of that rank are wild; default 2, the first deal's).",
)
@click.option(
    "--json", "as_json", is_flag=True,
    help='Print {"plays": [...], "kinds": [...]}: each play\'s combination (straight, '
    "straightflush...).",
)
@click.option(
    "--batch",
    is_flag=True,
    help='Read JSON lines {"hand": ..., "last": ...} on stdin; write one JSON result per line.',
)
def moves(
    hand: str | None,
    last: str | None,
    players: int | None,
    variants: tuple[str, ...],
    options: tuple[str, ...],
    level: str | None,
    as_json: bool,
    batch: bool,
) -> None:
    """List every legal play for a hand: as leader, or every play that beats --last.

    One play per line, ranks lowest first (3 3 4 4 5 5, 10 J Q K A, BJ RJ); the
    same cards listed twice (a straight and a straight flush) are named.
    """
    rules = at_level(make_rules(players, variants, options), level)
    if batch:
        sys.exit(_batch(rules, sys.stdin))
    if hand is None:
        raise click.UsageError(_("--hand is required (or use --batch)."))
    try:
        plays = compute_plays(rules, hand, last)
    except ParseError as exc:
        raise click.UsageError(engine_said(str(exc))) from exc
    if as_json:
        out = {"plays": [text for text, _c in plays], "kinds": [c.kind for _t, c in plays]}
        click.echo(json.dumps(out, ensure_ascii=False))
        return
    for p in named_moves(rules, plays):
        click.echo(p)
    if not plays:
        click.echo(_("No play beats that: the only move is to pass."), err=True)


def _batch(rules: Rules, lines: Iterable[str]) -> int:
    """``--batch``: one result line per input line; exit 2 if any line was bad."""
    status = 0
    for n, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        result: dict[str, Any]
        try:
            req = json.loads(line)
            if not isinstance(req, dict) or not isinstance(req.get("hand"), str):
                raise ParseError('each line must be an object with a "hand" string')
            last = req.get("last")
            if last is not None and not isinstance(last, str):
                raise ParseError('"last" must be a string or null')
            result = {"plays": compute_moves(rules, req["hand"], last)}
        except (ParseError, json.JSONDecodeError) as exc:
            status = 2
            result = {"error": f"line {n}: {exc}"}
        click.echo(json.dumps(result, ensure_ascii=False))
    return status


@click.command()
@rules_options()
@rounds_option(100_000)
@click.option("--seed", default="0", show_default=True, help="Any text; same seed, same match.")
@click.option(
    "--bot",
    default="easy",
    show_default=True,
    callback=lambda ctx, param, value: _selfplay_level(ctx, param, value),
    metavar="easy|normal|hard|random|rule",
    help="The bots' level (the same levels as zsy play and zsy host; random and rule "
    "are baselines for measuring).",
)
@click.option(
    "--budget",
    type=click.IntRange(min=1),
    default=48,
    show_default=True,
    help="Worlds the hard level samples per move (no clock: the seed decides everything).",
)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def selfplay(
    players: int | None,
    variants: tuple[str, ...],
    options: tuple[str, ...],
    rounds: int | None,
    seed: str,
    bot: str,
    budget: int,
    as_json: bool,
) -> None:
    """Play a whole match engine-only between bots of one level and print a summary."""
    from zsy_lan.bots.registry import make_bot

    rules = make_rules(players, variants, options)
    rounds = match_rounds(rules, rounds)
    opts: dict[str, Any] = {"budget": budget, "budget_ms": None} if bot == "hard" else {}
    bots = [make_bot(bot, f"{seed}:{s}", **opts) for s in range(rules.players)]
    start = time.perf_counter()
    try:
        res = play_match(rules, rounds, seed, bots)
    except EngineError as exc:
        raise click.ClickException(
            _("selfplay stopped: {reason}").format(reason=engine_said(str(exc)))
        ) from exc
    seconds = time.perf_counter() - start
    if as_json:
        click.echo(
            json.dumps(
                {
                    "players": rules.players,
                    "rounds": len(res.orders),
                    "hashes": res.hashes,
                    "actions": res.actions,
                    "seconds": round(seconds, 6),
                    "orders": res.orders,
                    "points": res.points,
                    "totals": res.totals,
                    "upstreams": res.upstreams,
                    "winners": res.winners,
                    # per round: the tied seats of a deciding round (ZSY-8.5), else []
                    "deciding": [list(t) for t in res.deciding],
                }
            )
        )
        return
    titled = words.place_title(rules, 1) is not None  # Dou Dizhu has no titles
    rows = zip(res.orders, res.points, res.hashes, res.deciding, strict=True)
    for i, (order, pts, h, tied) in enumerate(rows, 1):
        if titled:
            places = _("{first} seat {up}, {last} seat {down}").format(
                first=words.place_title(rules, 1), up=order[0],
                last=words.place_title(rules, len(order)), down=order[-1],
            )
        else:
            places = _("seat {seat} out first").format(seat=order[0])
        line = (
            _(
                "round {i}, deciding round between seats {tied} (ZSY-8.5): finishing order "
                "{order}; {places}; points {points}; hash {hash}"
            )
            if tied
            else _("round {i}: finishing order {order}; {places}; points {points}; hash {hash}")
        )
        click.echo(
            line.format(
                i=i, order=" ".join(map(str, order)), places=places,
                points=" ".join(map(str, pts)), hash=h[:16], tied=" ".join(map(str, tied)),
            )
        )
    totals = " ".join(map(str, res.totals))
    if titled:
        click.echo(
            _("totals: {totals}; rounds as {title}: {counts}").format(
                totals=totals, title=words.place_title(rules, 1),
                counts=" ".join(map(str, res.upstreams)),
            )
        )
    else:
        click.echo(_("totals: {totals}").format(totals=totals))
    click.echo(_("winner: seat(s) {seats}").format(seats=" ".join(map(str, res.winners))))
    click.echo(_("{n} actions in {secs} s").format(n=res.actions, secs=f"{seconds:.3f}"))


def _selfplay_level(ctx: click.Context, param: click.Parameter, value: str) -> str:
    """The selfplay level: a bot level or the random baseline (old ``greedy`` is easy)."""
    from zsy_lan.bots.registry import level_names

    low = value.strip().lower()
    if low in level_names(include_baselines=True):
        return low
    if low == "greedy":
        raise click.BadParameter(_("'greedy' is now the level easy: use --bot easy"),
                                 ctx=ctx, param=param)
    raise click.BadParameter(
        _("'{value}' is not a bot level: use easy, normal or hard").format(value=value),
        ctx=ctx, param=param,
    )


def _bot_level(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """The bot level; the old ``zsy play`` names are refused with the name to use now."""
    if value is None:
        return None
    low = value.strip().lower()
    if low in ("easy", "normal", "hard"):
        return low
    if low == "greedy":
        hint = _("'greedy' is now the level easy: use --bot-level easy")
    elif low == "random":
        hint = _(
            "'random' is no longer a level (it plays at random, for benchmarks only): "
            "use --bot-level easy, normal or hard"
        )
    else:
        hint = _("'{value}' is not a bot level: use easy, normal or hard").format(value=value)
    raise click.BadParameter(hint, ctx=ctx, param=param)


@click.command()
@rules_options()
@rounds_option(1000)
@click.option("--seed", default=None, help="Fix the deals (default: a fresh random seed).")
@click.option(
    "--bot-level",
    default="normal",
    show_default=True,
    callback=_bot_level,
    metavar="easy|normal|hard",
    help="How well the bots play (the same levels as zsy host --bots).",
)
@click.option(
    "--bot", "old_bot", default=None, hidden=True, callback=_bot_level,
    help="Old name of --bot-level.",
)
@click.option("--seat", type=int, default=0, show_default=True, help="Your seat.")
@click.option(
    "--color",
    type=click.Choice(["auto", "always", "never"]),
    default="auto",
    show_default=True,
    help="Colours: auto (on a terminal, unless NO_COLOR is set), always or never.",
)
@click.option("--ascii", "ascii_suits", is_flag=True, default=None, help="Suits as S H D C.")
@click.option("--plain", is_flag=True, help="Plain line input (screen readers, pipes).")
@click.option(
    "--four-color", is_flag=True, help="Four-colour deck on the full-screen table."
)
@click.option(
    "--turn-timer",
    default="off",
    show_default=True,
    metavar="off|fast|normal|slow|SECONDS",
    callback=lambda ctx, param, value: _turn_timer(ctx, param, value),
    help="Play the hint for you when a turn takes longer (as at a network table).",
)
@click.option(
    "--budget",
    type=click.IntRange(min=1),
    default=None,
    help="Worlds a hard bot samples per move (more: stronger and slower; its thinking "
    "time still caps each move).",
)
@click.option(
    "--quiet-bots", is_flag=True, help="The bots never chat (by default they say a quick "
    "phrase now and then, such as gg at the end)."
)
# hidden (tests, impatient players): seconds before each bot move, 0 as fast as they think
@click.option("--pace", type=click.FloatRange(0, 10), default=0.3, hidden=True)
@click.option(
    "--data-dir", type=click.Path(file_okay=False), default=None,
    help="Where the game record goes (default: $ZSY_DATA_DIR or the user data dir).",
)
def play(
    players: int | None,
    variants: tuple[str, ...],
    options: tuple[str, ...],
    rounds: int | None,
    seed: str | None,
    bot_level: str,
    old_bot: str | None,
    seat: int,
    color: str,
    ascii_suits: bool | None,
    plain: bool,
    four_color: bool,
    turn_timer: float | None,
    quiet_bots: bool,
    pace: float,
    data_dir: str | None,
    budget: int | None,
) -> None:
    """Play a local match against bots in this terminal (no network).

    The same table as a network game (who, score, table, auto, rules...), the
    bots labelled with their level, and a game record that `zsy replay` checks:
    its path is printed when you leave.
    """
    import shlex

    from zsy_lan.record.store import data_dir as resolve
    from zsy_lan.table.local_table import record_path
    from zsy_lan.ui.play import CTRL_C, run_local
    from zsy_lan.ui.render import Style

    rules = make_rules(players, variants, options)
    rounds = match_rounds(rules, rounds)
    if not 0 <= seat < rules.players:
        raise click.BadParameter(
            _("the seat must be 0..{last}").format(last=rules.players - 1), param_hint="--seat"
        )
    level = old_bot or bot_level
    record = record_path(resolve(data_dir))
    try:
        record.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        record.touch(mode=0o600)
    except OSError as exc:
        raise click.ClickException(
            _(
                "cannot write the game record in {folder} ({error}): "
                "choose another folder with --data-dir"
            ).format(folder=record.parent, error=exc.strerror or exc)
        ) from exc
    style = Style.detect(color, ascii_suits)
    why = CTRL_C
    try:
        why = run_local(rules, rounds, seed, level, seat, record, style=style, plain=plain,
                        nick=_login(), print_fn=print, timer=turn_timer, pace=pace,
                        four_color=four_color, budget=budget, bot_chat=not quiet_bots)
    except KeyboardInterrupt:
        click.echo("")
    finally:
        path = shlex.quote(str(record))
        click.echo(
            _("Bye ({why}). The game record: {path} (see it with: zsy replay {path})").format(
                why=_("Ctrl-C") if why == CTRL_C else exit_reason(why), path=path
            )
        )
    if why == CTRL_C:
        sys.exit(130)  # as zsy host and zsy join leave on Ctrl-C


def _turn_timer(ctx: click.Context, param: click.Parameter, value: str) -> float | None:
    """``--turn-timer``, read exactly as ``zsy host`` and ``zsy join`` read it."""
    from zsy_lan.cli.net_cmds import _timer

    return _timer(ctx, param, value)


def _login() -> str:
    """The player's login name as the table's nickname ("you" when there is none)."""
    import contextlib
    import getpass

    with contextlib.suppress(Exception):
        return getpass.getuser()[:24] or "you"
    return "you"


__all__ = ["moves", "play", "selfplay", "RANK_NAMES"]
