"""What the host reads when the lobby turns a player away (found hosting with --invite).

The reason is the guest's: a msgid sent as it is, which the guest translates. The host's
line printed it untranslated ("einen Spieler abgewiesen: the table is full" under
--lang de), and for the invitation told the host to "ask the host for the join URL".
"""

from __future__ import annotations

import pytest

from zsy_lan.protocol.table_settings import INVITE_REFUSAL
from zsy_lan.table.hosting import _Refusals
from zsy_lan.text.i18n import N_, set_language


@pytest.fixture
def german():
    set_language("de")
    yield
    set_language("en")


def test_the_host_reads_an_invitation_refusal_in_words_meant_for_the_host() -> None:
    said: list[str] = []
    _Refusals(said.append)(INVITE_REFUSAL)
    assert said == [
        "refused a player: they came without the invitation "
        "(the join URL you printed, with its secret)"
    ]
    assert "ask the host" not in said[0]


def test_the_host_reads_the_reason_in_their_language(german) -> None:
    said: list[str] = []
    _Refusals(said.append)(N_("the table is full"))
    assert said and "the table is full" not in said[0]
    assert said[0].startswith("einen Spieler abgewiesen: ")


def test_a_reason_that_is_no_msgid_is_shown_as_it_is(german) -> None:
    said: list[str] = []
    _Refusals(said.append)("cb64f06fb61c6267: rules differ")
    assert said == ["einen Spieler abgewiesen: cb64f06fb61c6267: rules differ"]
