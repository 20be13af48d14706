"""Issue #26: Spanish never reads "al tú", "del tú", "por el tú" (nor German "von du").

The narration names the reader's own seat "you" (tú, du, 你). A sentence that puts a
seat after a preposition (``ejecutado por el {holder}``, ``la moción del {movers}``)
has a sentence of its own for the reader's seat, so each language can say "por ti",
"tu moción", "von dir". Rendered here in Spanish for the reader's own seat and for
another seat, with the stub view of tests/table/test_void_while_away.py.
"""

from __future__ import annotations

import re
from types import SimpleNamespace

import pytest
from test_void_while_away import StubView, _holder

from zsy_lan.engine.ruleset import build_rules
from zsy_lan.engine.state import Action
from zsy_lan.protocol.events import Applied, Motion
from zsy_lan.table.narration import Narrator
from zsy_lan.table.session import Notice
from zsy_lan.text.i18n import _, set_language

#: a preposition (or "el") before the reader's "tú", or German "von du"
WRONG = re.compile(r"\b(al|del|a|de|por|el|con|para|von|bei|für) (tú|du)\b")
ME = 3  # the stub view's reader


def _who(seat: int) -> str:
    """As the narration names seats: "you" for the reader (narration.Narrator.who)."""
    return _("you") if seat == ME else _("seat {seat} ({nick})").format(seat=seat, nick=f"p{seat}")


def _motion_texts(view: StubView, *events: Motion) -> list[str]:
    told: list[Notice] = []
    holder = _holder(view, [], told)
    holder._who = _who
    for ev in events:
        holder.motion(ev)
    return [n.text for n in told]


@pytest.fixture(autouse=True)
def _spanish():
    set_language("es")


def test_a_bot_the_reader_runs_holds_a_dropped_seat():
    mine, theirs = _motion_texts(
        StubView(),
        Motion("hold", 1, "at", "held", holder=ME),
        Motion("hold", 1, "at", "held", holder=2),
    )
    assert mine == "asiento 1 (p1) se desconectó; un bot que ejecutas tú ocupa el asiento"
    assert theirs == (
        "asiento 1 (p1) se desconectó; un bot (ejecutado por el asiento 2) ocupa el asiento"
    )


def test_a_seat_that_stopped_held_by_the_reader_s_bot():
    view = StubView()
    view.stopped = lambda seat: "disk" if seat == 1 else None  # type: ignore[method-assign]
    mine, theirs = _motion_texts(
        view,
        Motion("hold", 1, "at", "held", holder=ME),
        Motion("hold", 1, "at", "held", holder=2),
    )
    assert "un bot que ejecutas tú ocupa el asiento hasta que vuelva" in mine
    assert "un bot (ejecutado por el asiento 2) ocupa el asiento hasta que vuelva" in theirs


@pytest.mark.parametrize("motion", ["hold", "void"])
def test_a_refused_motion_names_the_reader_s_part_in_its_own_words(motion):
    texts = _motion_texts(
        StubView(),
        Motion(motion, 0, "at", "declined", movers=(ME,)),
        Motion(motion, 0, "at", "declined", movers=(ME, 2)),
        Motion(motion, 0, "at", "declined", movers=(2,)),
        Motion(motion, ME, "at", "declined", movers=(2,)),
        Motion(motion, ME, "at", "declined"),
    )
    alone, with_other, other, against_me, no_movers = texts
    assert "se rechazó tu moción" in alone
    assert "la moción que presentaste con el asiento 2 (p2)" in with_other
    assert "la moción del asiento 2 (p2)" in other
    assert against_me.startswith("actuaste a tiempo: se rechazó la moción del asiento 2 (p2)")
    assert no_movers == "actuaste a tiempo: se desestimó la moción sobre tu asiento"
    for text in texts:
        assert not WRONG.search(text), text
        assert "tú actuó" not in text and "de ti y" not in text


class _Game(SimpleNamespace):
    def engine_action(self, seat: int, action: object) -> Action:
        return Action(kind="pass", seat=seat)


class _PlayView(StubView):
    """The stub view with a game that turns every move into a pass."""

    game = _Game(round=None, match=SimpleNamespace(results=()))  # type: ignore[assignment]


def _played(ev: Applied) -> str:
    view = _PlayView()
    told: list[Notice] = []
    narrator = Narrator(view, build_rules(4), told.append)  # type: ignore[arg-type]
    narrator.play(ev)
    return told[0].text


def test_a_held_seat_s_bot_plays_for_or_is_run_by_the_reader():
    run_by_me = _played(Applied(1, 5, {}, by=ME))
    for_me = _played(Applied(ME, 5, {}, by=2))
    others = _played(Applied(1, 5, {}, by=2))
    assert run_by_me == "un bot (ejecutado por ti) juega por el asiento 1 (p1): paso"
    assert for_me == "un bot (ejecutado por el asiento 2) juega por ti: paso"
    assert others == "un bot (ejecutado por el asiento 2) juega por el asiento 1 (p1): paso"
    for text in (run_by_me, for_me, others):
        assert not WRONG.search(text), text


def test_german_says_von_dir():
    set_language("de")
    text = _motion_texts(StubView(), Motion("void", 0, "at", "declined", movers=(ME, 2)))[0]
    assert "von dir und Platz 2 (p2)" in text and not WRONG.search(text), text


def test_motions_the_reader_s_own_peer_moved_and_a_void_about_the_reader():
    view = StubView()
    moved, voided = _motion_texts(
        view,
        Motion("void", 0, "at", "open", by=ME),
        Motion("void", ME, "at", "voided"),
    )
    assert moved.startswith("propusiste anular la ronda porque asiento 0 (p0) retiene su parte")
    assert voided.startswith("la ronda se anuló: retuviste tu parte")
    view.stopped = lambda seat: "disk" if seat == 1 else None  # type: ignore[method-assign]
    (held,) = _motion_texts(view, Motion("hold", 1, "at", "open", by=ME))
    assert held.startswith("propusiste que un bot ocupe el asiento 1 (p1), que se detuvo")
    for text in (moved, voided, held):
        assert not WRONG.search(text) and "tú propuso" not in text, text


@pytest.mark.parametrize("lang", ["de", "es", "zh"])
def test_a_round_dealt_to_the_reader_says_you_in_its_own_sentence(lang):
    """Found by hand: "Runde 1 ist gegeben; du ist dran." ({who} filled with du)."""
    from types import SimpleNamespace

    from zsy_lan.engine.ruleset import build_rules
    from zsy_lan.text.present import dealt_text

    set_language(lang)
    state = SimpleNamespace(round_no=1, turn=ME)
    mine = dealt_text(build_rules(4), state, lambda s: "du" if s == ME else f"Platz {s}", me=ME)
    theirs = dealt_text(build_rules(4), SimpleNamespace(round_no=1, turn=1), str, me=ME)
    expected = {"de": "du bist dran", "es": "te toca", "zh": "轮到你"}[lang]
    assert expected in mine and "du ist" not in mine, mine
    assert expected not in theirs, theirs
