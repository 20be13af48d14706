"""What a seat may do now, asked of the game (engine/choices.py, Game.may) and the phases
registered in the engine (engine/phases.py, round.phase_handler)."""

from __future__ import annotations

from zsy_lan.engine.choices import cards_make, decline, in_tricks, over, to_act, tribute_duty
from zsy_lan.engine.game import Game
from zsy_lan.engine.phases import MatchPhase, Phase
from zsy_lan.engine.round import ENGINE_PHASES, phase_handler
from zsy_lan.engine.ruleset import build_rules
from zsy_lan.engine.state import GIVE, PASS, PLAY, Duty, evolve

SEED = bytes(32)


def test_the_phase_names_keep_their_values() -> None:
    """They are in every state hash and record: renaming one would break every golden."""
    assert Phase.ALL == ("bidding", "doubling", "tribute", "play", "done")
    assert MatchPhase.ALL == ("deal", "playing", "over")


def test_the_engine_runs_tribute_play_and_done_as_handlers_a_plugin_may_add_to() -> None:
    zsy, ddz = build_rules(4), build_rules(3, ["doudizhu"])
    assert set(ENGINE_PHASES) == {Phase.TRIBUTE, Phase.PLAY, Phase.DONE}
    assert phase_handler(zsy, Phase.PLAY) is ENGINE_PHASES[Phase.PLAY]
    assert phase_handler(ddz, Phase.BIDDING) is ddz.phase_handlers[Phase.BIDDING]
    assert phase_handler(zsy, "no such phase") is ENGINE_PHASES[Phase.PLAY]  # as it always was
    single = build_rules(4, ["house-rules"], {"single_tribute": True})
    assert phase_handler(single, Phase.TRIBUTE) is not ENGINE_PHASES[Phase.TRIBUTE]


def test_may_says_whose_turn_it_is_and_what_they_may_do() -> None:
    game = Game(build_rules(4), 1)
    assert not game.may(0).turn and game.may(0).legal == ()  # nothing dealt yet
    game.start_round(SEED)
    r = game.round
    assert r is not None
    me, other = r.turn, (r.turn + 1) % 4
    mine = game.may(me)
    assert mine.turn and list(mine.legal) == game.legal(me)
    assert mine.cards_make == PLAY and not mine.words and mine.decline is not None
    assert not game.may(other).turn and game.may(other).legal == ()


def test_a_pass_outside_the_tricks_is_the_variants_no() -> None:
    game = Game(build_rules(3, ["doudizhu"]), 3)
    game.start_round(SEED)
    r = game.round
    assert r is not None and r.phase == Phase.BIDDING and not in_tricks(r)
    may = game.may(r.turn)
    assert may.turn and may.words
    assert may.decline is not None and may.decline.kind == "bid" and may.decline.value == 0
    assert decline(evolve(r, phase=Phase.PLAY), r.turn, may.legal).kind == PASS


def test_cards_make_a_tribute_during_the_tribute() -> None:
    game = Game(build_rules(4), 1)
    game.start_round(SEED)
    r = game.round
    assert r is not None and cards_make(r) == PLAY and tribute_duty(r) is None
    paying = evolve(r, phase=Phase.TRIBUTE, duties=(Duty(GIVE, 1, 0, 1),), turn=1)
    assert cards_make(paying) == GIVE and tribute_duty(paying) == Duty(GIVE, 1, 0, 1)
    done = evolve(r, phase=Phase.DONE)
    assert over(done) and not to_act(done, done.turn) and to_act(r, r.turn)
