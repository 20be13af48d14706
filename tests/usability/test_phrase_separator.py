"""The settings line joins its phrases with the language's own separator (found with --lang zh).

"主机为所有人设定：牌桌计时每回合 20 秒; 提示已开启，记牌器已关闭; 仅限受邀": the
table header and `zsy tables` glued translated phrases with an English "; ".
"""

from __future__ import annotations

import gettext

import zsy_lan.text.i18n as i18n
from zsy_lan.protocol.table_settings import TableSettings, phrase_separator, settings_line


class StandIn(gettext.NullTranslations):
    """A catalogue that knows only the separator (the real one is merged later)."""

    def pgettext(self, context: str, message: str) -> str:
        if (context, message) == ("between phrases", "; "):
            return "；"
        return message


def test_the_settings_line_uses_the_languages_separator(monkeypatch) -> None:
    monkeypatch.setattr(i18n, "_translation", StandIn())
    line = settings_line(TableSettings(clock=20, hints=True, counter=False, invite=True))
    assert "; " not in line
    assert line.count("；") == 2


def test_english_keeps_its_semicolon() -> None:
    line = settings_line(TableSettings(clock=30, hints=False, counter=False, invite=True))
    assert line == (
        "Set by the host for everyone: table clock 30 seconds per turn; "
        "hints and card counter off; invite only"
    )


def test_chinese_separator_with_the_real_catalogue() -> None:
    """The shipped zh catalogue has its own separator (merged from /work/briefs/tr/U.json)."""
    try:
        i18n.set_language("zh")
        sep = phrase_separator()
    finally:
        i18n.set_language("en")
    assert sep == "；"
