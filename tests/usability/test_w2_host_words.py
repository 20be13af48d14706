"""The host's and the joiner's lobby lines, as a new user met them (U2 findings 4, 11, 12, 13).

"0 Bot(s)" in the host's first line; ``accept NICK`` for nobody waiting answered half in
English at a German table (the lobby returned English problems); a refused joiner read
"the host refused: the host did not accept you"; ``kick`` alone answered "no guest ...
named ''". A stand-in catalogue marks every translated text, so the tests see which words
went through ``_()`` without waiting for the real catalogues.
"""

from __future__ import annotations

import asyncio
import gettext

import pytest

import zsy_lan.text.i18n as i18n
from zsy_lan.engine.ruleset import build_rules, ruleset_id
from zsy_lan.protocol import Identity
from zsy_lan.protocol.host_lobby import HostLobby
from zsy_lan.protocol.lobby import (
    HOST_RULES_DIFFER,
    RULES_DIFFER,
    LobbyMessage,
    Roster,
    Seat,
    join_body,
)
from zsy_lan.table.hosting import _Refusals, lobby_command, opened_line
from zsy_lan.table.joining import ruleset_difference
from zsy_lan.table.reach import KICKED, NOT_ACCEPTED, refusal_error


class Marked(gettext.NullTranslations):
    """Every translated text comes back as ``«text»``: what was not translated shows bare."""

    def gettext(self, message: str) -> str:
        return f"«{message}»"

    def ngettext(self, singular: str, plural: str, n: int) -> str:
        return f"«{singular if n == 1 else plural}»"


@pytest.fixture
def marked(monkeypatch):
    monkeypatch.setattr(i18n, "_translation", Marked())


def _lobby(approve: bool = True) -> HostLobby:
    host = Identity.generate()
    rules = build_rules(3, [], {})
    roster = Roster(
        "t1", "table", 1, rules.config,
        [Seat(0, host.public_key, host.curve_public, "tcp://127.0.0.1:4000", "host")],
    )
    return HostLobby(host, roster, 3, ruleset_id(rules), approve_each=approve)


def _typed(line: str, lobby: HostLobby) -> list[str]:
    said: list[str] = []
    asyncio.run(lobby_command(line, None, lobby, None, said.append))  # type: ignore[arg-type]
    return said


def test_accept_for_nobody_waiting_is_worded_whole_in_the_hosts_language(marked) -> None:
    said = _typed("accept zed", _lobby())
    # the problem inside the sentence went through _() too (it was English at a German table)
    assert said == ["«cannot accept: {problem}»".replace(
        "{problem}", "«nobody of that name is waiting to sit down»")]


def test_the_lobbys_approve_returns_a_message_id_not_words() -> None:
    seat, problem = _lobby().approve("zed")
    assert seat is None and problem == "nobody of that name is waiting to sit down"


def test_kick_alone_says_how_to_kick() -> None:
    said = _typed("kick", _lobby())
    assert len(said) == 1
    assert "kick SEAT" in said[0] and "''" not in said[0] and "no guest" not in said[0]


def test_kick_of_a_name_nobody_has_still_names_it() -> None:
    said = _typed("kick zed", _lobby())
    assert len(said) == 1 and "'zed'" in said[0]


@pytest.mark.parametrize("reason", [NOT_ACCEPTED, KICKED])
def test_a_refusal_that_names_the_host_is_read_once(reason: str) -> None:
    msg = LobbyMessage("refused", b"", {"reason": reason})
    text = str(refusal_error(msg))
    assert text == reason
    assert text.count("host") == 1


def test_another_refusal_says_the_host_refused() -> None:
    msg = LobbyMessage("refused", b"", {"reason": "the table is full"})
    assert str(refusal_error(msg)) == "the host refused: the table is full"


@pytest.mark.parametrize(
    ("bots", "words"),
    [(0, "2 for other players. Ruleset"), (1, "1 for other players, 1 bot. "),
     (2, "0 for other players, 2 bots. ")],
)
def test_the_hosts_first_line_counts_its_bots_in_words(bots: int, words: str) -> None:
    line = opened_line("ddz", 3, 2 - bots if bots < 2 else 0, bots, "abc")
    assert line.startswith("Table 'ddz' open: 3 seats, ")
    assert words in line and "(s)" not in line
    assert line.endswith("Ruleset abc. ")


def test_a_joiner_with_other_rules_is_refused_in_words_each_side_reads() -> None:
    """The host read "refused a player: your ruleset 'mismatch' differs ..." in English."""
    lobby = _lobby(approve=False)
    ident = Identity.generate()
    body = join_body(ident, "ana", "tcp://127.0.0.1:5000")
    lobby.on_join(LobbyMessage("join", ident.public_key, body))
    sit = LobbyMessage("sit", ident.public_key, {"ruleset": "mismatch", "difference": "plugin 'x'"})
    reply, seat, reason = lobby.on_sit(sit)
    assert seat is None and reply is not None and reason == RULES_DIFFER
    said: list[str] = []
    _Refusals(said.append)(reason)
    assert said == ["refused a player: " + HOST_RULES_DIFFER]


def test_the_joiner_reads_what_differs_in_its_language(marked) -> None:
    config = dict(build_rules(3, [], {}).config)
    config["options"] = {"zsy": {"no_such_option": 1}}
    english = ruleset_difference(config, lambda s: s)
    worded = ruleset_difference(config, i18n._)
    assert english is not None and worded is not None and english != worded
    assert worded.startswith("«") and "«" not in english
