"""What ``zsy replay`` and ``zsy history`` say about a file that is no record (U2 findings 6, 6b).

``zsy replay /etc/passwd`` printed Python's JSON error ("not canonical JSON: Expecting
value ..."); an empty record (a copy cut by a full disk) was listed as "Not a game record
that can be checked: empty file: not a zsy game record" - "not a record" twice, and in
English in every language. Now: one sentence for a foreign file, a distinct one for an
empty file, each a message id worded in the reader's language when shown.
"""

from __future__ import annotations

import gettext
from pathlib import Path

import pytest
from click.testing import CliRunner

import zsy_lan.text.i18n as i18n
from zsy_lan.cli import cli
from zsy_lan.record.history import verify_record
from zsy_lan.record.replay import (
    BAD_HEADER,
    EMPTY,
    NOT_A_RECORD,
    NOT_ZSY,
    NotARecord,
    check_record,
    reason_text,
)


class Marked(gettext.NullTranslations):
    """Every translated text comes back as ``«text»``: what was not translated shows bare."""

    def gettext(self, message: str) -> str:
        return f"«{message}»"


@pytest.mark.parametrize(
    "data",
    [b"root:x:0:0:root:/root:/bin/bash\n", b"hello", b"[1, 2, 3]\n", b'{"a": 1}\n{"b": 2}\n'],
)
def test_a_foreign_file_is_said_to_be_no_record_in_one_sentence(data: bytes) -> None:
    with pytest.raises(NotARecord) as caught:
        check_record(data)
    assert caught.value.msgid == NOT_ZSY
    assert str(caught.value) == "This file is not a zsy game record."


@pytest.mark.parametrize("data", [b"", b"\n\n", b"\x00" * 4096])
def test_an_empty_file_is_told_apart_from_a_foreign_one(data: bytes) -> None:
    with pytest.raises(NotARecord) as caught:
        check_record(data)
    assert caught.value.msgid == EMPTY
    assert "cut before its first line" in str(caught.value)


def test_a_zsy_header_without_a_game_is_a_header_that_cannot_be_read() -> None:
    with pytest.raises(NotARecord) as caught:
        check_record(b'{"roster":{},"table":"x","zsy_transcript":1}\n')
    assert caught.value.msgid == BAD_HEADER


def test_zsy_replay_says_the_sentence_not_pythons_json_error(tmp_path: Path) -> None:
    passwd = tmp_path / "passwd"
    passwd.write_text("root:x:0:0:root:/root:/bin/bash\n")
    res = CliRunner().invoke(cli, ["replay", str(passwd)])
    assert res.exit_code == 1
    assert "This file is not a zsy game record." in res.output
    assert "canonical" not in res.output and "Expecting value" not in res.output


def test_the_history_words_an_empty_record_once_in_the_readers_language(
    tmp_path: Path, monkeypatch
) -> None:
    entry = verify_record(tmp_path / "cut.jsonl", b"")
    assert entry.reason == EMPTY  # the cache keeps the message id, not words
    assert entry.why() == EMPTY
    monkeypatch.setattr(i18n, "_translation", Marked())
    assert entry.why() == f"«{EMPTY}»"  # translated whole, "not a record" not said twice


def test_a_reason_cached_by_an_earlier_version_is_worded_the_new_way(monkeypatch) -> None:
    monkeypatch.setattr(i18n, "_translation", Marked())
    said = reason_text(NOT_A_RECORD, None, "empty file: not a zsy game record")
    assert said == f"«{EMPTY}»"


def test_any_other_reason_still_says_what_could_not_be_checked() -> None:
    said = reason_text(NOT_A_RECORD, None, "unknown plugin 'x'")
    assert said == "Not a game record that can be checked: unknown plugin 'x'"
