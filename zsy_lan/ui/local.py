"""``zsy play``: one human against baseline bots, line by line in the terminal.

Plain ``input()`` and ``print``: nothing changes the terminal's modes, so any
exit (Ctrl-C, Ctrl-D, ``q``) leaves it exactly as it was, and a screen reader
reads every line.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Callable

from ..engine.bots import BOTS, Bot
from ..engine.errors import EngineError
from ..engine.game import Game
from ..engine.match import titles
from ..engine.round import PASS
from ..engine.rules import Rules
from ..engine.state import Action, RoundState
from .commands import Request, describe, interpret
from .render import HELP, Style, counter_text, table_lines

InputFn = Callable[[str], str]


class Narrator:
    """Turns each applied action into one line of commentary."""

    def __init__(self, style: Style, me: int) -> None:
        self.style = style
        self.me = me

    def who(self, seat: int) -> str:
        return "you" if seat == self.me else f"seat {seat}"

    def action(self, before: RoundState, action: Action, after: RoundState | None) -> list[str]:
        who = self.who(action.seat)
        out = []
        if action.kind == PASS:
            out.append(f"{who}: pass")
        else:
            out.append(f"{who}: {describe(action, self.style.ascii_suits)}")
        if after is None:
            return out
        if action.seat in after.finished and action.seat not in before.finished:
            out.append(
                f"{who} {'are' if action.seat == self.me else 'is'} out "
                f"(#{after.finished.index(action.seat) + 1})"
            )
        if after.trick is None and before.trick is not None and after.phase == "play":
            out.append(
                f"-- trick won by {self.who(before.trick_seat)}; {self.who(after.turn)} leads"
            )
        return out


def run_local(
    rules: Rules,
    rounds: int,
    seed: str | None,
    bot: str,
    me: int,
    color: str = "auto",
    ascii_suits: bool | None = None,
    input_fn: InputFn = input,
    print_fn: Callable[[str], None] = print,
) -> Game:
    """Play a match; returns the finished (or abandoned) game."""
    style = Style.detect(color, ascii_suits)
    seed_text = seed if seed is not None else secrets.token_hex(8)
    game = Game(rules, rounds)
    bots: dict[int, Bot] = {
        s: BOTS[bot](f"{seed_text}:{s}") for s in range(rules.players) if s != me
    }
    narrator = Narrator(style, me)
    print_fn(
        f"zsy play: {rules.players} players, {rounds} round(s), you are seat {me}; "
        f"seed {seed_text}. Type help for commands."
    )
    index = 0
    hint_at = 0
    try:
        while not game.finished():
            if game.needs_seed():
                if index:
                    _show_scores(game, print_fn)
                    answer = input_fn("Enter for the next round, q to quit: ").strip().lower()
                    if answer in ("q", "quit"):
                        return game
                s = hashlib.sha256(f"zsy-play\x00{seed_text}\x00{index}".encode()).digest()
                index += 1
                game.start_round(s)
                st = game.round
                assert st is not None
                print_fn("")
                print_fn(f"=== Round {st.round_no}: dealer seat {st.dealer} ===")
                _show_tribute_duties(st, narrator, print_fn)
                hint_at = 0
                continue
            state = game.round
            assert state is not None
            seat = state.turn
            if seat != me:
                action = bots[seat].act(rules, game.view(seat), seat)  # type: ignore[arg-type]
                _apply(game, action, narrator, print_fn, me)
                continue
            view = game.view(me)
            assert view is not None
            names = titles(game.match.results[-1].order) if game.match.results else None
            for line in table_lines(view, me, style, titles=names):
                print_fn(line)
            legal = game.legal(me)
            while True:
                try:
                    text = input_fn("> ")
                except EOFError:
                    print_fn("Bye.")
                    return game
                try:
                    got = interpret(text, rules, view, me, legal)
                except EngineError as exc:
                    print_fn(f"! {exc}")
                    continue
                if isinstance(got, Request):
                    if got.name == "quit":
                        print_fn("Bye.")
                        return game
                    hint_at = _request(got, game, view, legal, style, hint_at, print_fn, me)
                    if got.name == "sort":
                        style.by_suit = not style.by_suit
                        for line in table_lines(view, me, style, titles=names):
                            print_fn(line)
                    continue
                try:
                    _apply(game, got, narrator, print_fn, me)
                except EngineError as exc:
                    print_fn(f"! {exc} - try again (? lists your legal moves)")
                    continue
                hint_at = 0
                break
    except KeyboardInterrupt:
        print_fn("\nBye.")
        return game
    _show_scores(game, print_fn)
    winners = " ".join(map(str, game.match.winners))
    print_fn(
        f"Match over. Winner: seat(s) {winners}"
        + (" - that's you!" if me in game.match.winners else "")
    )
    return game


def _apply(
    game: Game, action: Action, narrator: Narrator, print_fn: Callable[[str], None], me: int
) -> None:
    before = game.round
    assert before is not None
    game.apply(action.seat, action)
    after = game.round
    for line in narrator.action(before, _seen(before, action, me), after):
        print_fn(line)
    if after is not None and after.phase == "done":
        order = " ".join(str(s) for s in after.finished)
        print_fn(f"Round over. Finishing order: {order}")
        if after.trick is None and after.finished[-1] == me:
            print_fn("You are Downstream this round.")


def _seen(state: RoundState, action: Action, me: int) -> Action:
    from ..engine.view import view_action

    return view_action(state, action, me)


def _show_tribute_duties(
    state: RoundState, narrator: Narrator, print_fn: Callable[[str], None]
) -> None:
    for d in state.duties:
        if d.kind == "give":
            print_fn(
                f"Tribute: {narrator.who(d.giver)} must hand {d.n} highest card(s) to "
                f"{narrator.who(d.receiver)}, who returns {d.n} of their choice (ZSY-7)."
            )


def _show_scores(game: Game, print_fn: Callable[[str], None]) -> None:
    m = game.match
    if not m.results:
        return
    last = m.results[-1]
    t = titles(last.order)
    print_fn("Titles: " + ", ".join(f"seat {s} {t[s]}" for s in last.order))
    print_fn(
        f"Score sheet after {len(m.results)} round(s): rounds as Upstream "
        + " ".join(f"s{s}={m.upstreams[s]}" for s in range(m.players))
        + "; points "
        + " ".join(f"s{s}={m.totals[s]}" for s in range(m.players))
    )
    if m.tied:
        print_fn("Tie: seats " + " ".join(map(str, m.tied)) + " play a deciding round (ZSY-8.5).")


def _request(
    req: Request,
    game: Game,
    view: RoundState,
    legal: list[Action],
    style: Style,
    hint_at: int,
    print_fn: Callable[[str], None],
    me: int,
) -> int:
    if req.name == "list":
        if not legal:
            print_fn("No legal move.")
        for i, a in enumerate(legal, 1):
            print_fn(f"  #{i}  {describe(a, style.ascii_suits)}")
        return hint_at
    if req.name == "hint":
        from .table import hint_list

        plays = hint_list(game.rules, view, me, legal)
        if not plays:
            print_fn("No hint: nothing to do.")
            return hint_at
        a = plays[hint_at % len(plays)]
        print_fn(
            f"Hint ({hint_at % len(plays) + 1}/{len(plays)}): {describe(a, style.ascii_suits)}"
            " - press h again for the next"
        )
        return hint_at + 1
    if req.name == "counter":
        print_fn("Played so far: " + (counter_text(view) or "nothing"))
        return hint_at
    if req.name in ("legend", "help"):
        print_fn(HELP)
    return hint_at
