"""What a spectator reads at a --lang zh table: Chinese lists and brackets (U2 finding 2).

Seen: ``牌数：0 号座位（alice） 17, 1 号座位（bob） 17`` (an ASCII ", " between Chinese
items, a space after a full-width bracket) and ``2 号座位（carol）：4♦ 4♠（一对4） （还剩 18 张）``
(a space between two full-width brackets). The spectator's story is built from whole
sentences and the language's own joins (``zsy_lan.text.i18n.join_items``). A stand-in catalogue
adds this change's Chinese sentences to the real one (the coordinator merges
/work/briefs/tr/W1.json into it later). Deterministic: local bot matches, fixed seeds.
"""

from __future__ import annotations

import gettext
import re
from pathlib import Path

import pytest
from local_support import play_out, spectator_story

import zsy_lan.text.i18n as i18n
from zsy_lan.engine.ruleset import build_rules
from zsy_lan.table.local_table import make_local_table
from zsy_lan.table.spectator_desk import SpectatorDesk

pytestmark = [pytest.mark.timeout(120)]

#: this change's msgids, as /work/briefs/tr/W1.json gives them in Chinese
_NEW = {
    "{who}: {play} ({n} left)": "{who}：{play}（还剩 {n} 张）",
    "{nick} is watching ({note})": "{nick} 在观战（{note}）",
    # a seat label "0 号座位（alice）" followed by a number or a word: no space after "）"
    "{who} {n}": "{who}：{n} 张",
    "  {who} held {cards}": "  {who}的牌是 {cards}",
    "{who} {points}": "{who}：{points}",
    "{who} {points:+d}": "{who}：{points:+d}",
    "{who} {times}": "{who}：{times}",
    "{who} {title}": "{who}为{title}",
    "hand {n} over: {first} went out first; the landlord wins": (
        "第 {n} 局结束：{first}先出完；地主赢"
    ),
    "hand {n} over: {first} went out first; the farmers win": (
        "第 {n} 局结束：{first}先出完；农民赢"
    ),
}


class ZhStandIn(gettext.NullTranslations):
    """The real Chinese catalogue, with this change's sentences added."""

    def __init__(self) -> None:
        super().__init__()
        self.real = gettext.translation(
            i18n.DOMAIN, localedir=str(i18n.LOCALE_DIR), languages=["zh"]
        )

    def gettext(self, message: str) -> str:
        return _NEW.get(message) or self.real.gettext(message)

    def ngettext(self, singular: str, plural: str, n: int) -> str:
        return self.real.ngettext(singular, plural, n)

    def pgettext(self, context: str, message: str) -> str:
        return self.real.pgettext(context, message)


@pytest.fixture
def zh(monkeypatch):
    monkeypatch.setattr(i18n, "_translation", ZhStandIn())


async def _record(path: Path, players: int, variants: list[str], seed: str) -> list[str]:
    options = {"doudizhu.match_multiple": 1} if variants else {}
    table = make_local_table(build_rules(players, variants, options), 1, 0, "easy", path, seed=seed,
                             me="alice", bot_chat=False)
    await play_out(table)
    return path.read_text().splitlines()


_HAN = r"[\u3000-\u9fff\uff00-\uffef]"


def _latin_glue(text: str) -> list[str]:
    """Places where ASCII punctuation or a space sits between Chinese text and what follows."""
    bad = re.findall(_HAN + r", ", text)  # an ASCII comma after Chinese
    bad += re.findall(r"[）】」] ", text)  # a space right after a full-width closing bracket
    return bad


@pytest.mark.asyncio
@pytest.mark.parametrize(
    "players,variants,seed", [(3, ["doudizhu"], "w1-zh-ddz"), (4, [], "w1-zh-zsy")]
)
async def test_the_spectator_s_story_in_chinese_joins_the_chinese_way(
    zh, tmp_path, players, variants, seed
):
    told = spectator_story(await _record(tmp_path / "r.jsonl", players, variants, seed))
    dealt = [t for t in told if t.startswith("第 1 局已发牌")]
    assert dealt, told[:5]
    # the deal's counts: one seat after another with 、, never ", "
    assert "、" in dealt[0] and ", " not in dealt[0], dealt[0]
    plays = [t for t in told if "（还剩" in t]
    assert plays, told[:10]
    for line in told:
        assert not _latin_glue(line), line
    # a play and its count: one bracket right after the other
    assert any("）（还剩" in t for t in plays), plays[:5]
    over = [t for t in told if t.startswith("比赛结束")]
    assert over and ", " not in over[0], over


def test_the_host_s_watchers_list_is_joined_the_chinese_way(zh) -> None:
    from zsy_lan.table.spectator_desk import _Seen

    desk = SpectatorDesk(identity=None, mode="ask", mesh=None, notify=lambda _t: None)  # type: ignore[arg-type]
    for i, (nick, state) in enumerate([("甲", "watching"), ("乙", "watching"), ("丙", "asking")]):
        desk.seen[bytes([i]) * 32] = _Seen(bytes([i]) * 32, nick=nick, state=state)
    said = desk.command("watchers")
    assert said is not None and "甲、乙" in said and "；" in said and ", " not in said, said


def test_english_keeps_its_own_words() -> None:
    desk = SpectatorDesk(identity=None, mode="ask", mesh=None, notify=lambda _t: None)  # type: ignore[arg-type]
    from zsy_lan.table.spectator_desk import _Seen

    for i, nick in enumerate(["ann", "bob"]):
        desk.seen[bytes([i]) * 32] = _Seen(bytes([i]) * 32, nick=nick, state="watching")
    assert desk.command("watchers") == "watching: ann, bob"
