"""protocol/chat.py: phrases, free text, hostile text a modified peer may sign, limits, mutes."""

from __future__ import annotations

import pytest

from zsy_lan.engine.ruleset import build_rules
from zsy_lan.engine.state import Action
from zsy_lan.protocol import chat
from zsy_lan.protocol.chat import (
    MAX_TEXT,
    PHRASES,
    BotChatter,
    Bucket,
    ChatError,
    ChatRoom,
    body_for,
    chat_command,
    find_seat,
    read,
)
from zsy_lan.testing import cards


def test_phrases_are_a_small_table_of_stable_ids():
    assert 8 <= len(PHRASES) <= 12
    for pid in ("gg", "nice", "hurry", "oops", "thanks", "well-played", "hello", "bye"):
        assert pid in PHRASES
    assert all(pid == pid.lower() and " " not in pid for pid in PHRASES)


def test_the_wire_carries_the_phrase_id_never_its_text():
    assert body_for(":gg") == {"phrase": "gg"}
    assert body_for(": GG ") == {"phrase": "gg"}
    assert body_for("hello there") == {"text": "hello there"}


@pytest.mark.parametrize("typed", ["", "   ", ":nope", "x" * (MAX_TEXT + 1), "\x1b[2J\x07"])
def test_bad_lines_are_refused_with_one_sentence(typed):
    with pytest.raises(ChatError) as err:
        body_for(typed)
    text = str(err.value)
    assert text and "\n" not in text and "Traceback" not in text


def test_own_text_is_cleaned_before_it_is_signed():
    assert body_for("hi\x1b[31m red\x1b[0m\u202e!") == {"text": "hi red!"}


HOSTILE = {
    "clear screen": ({"text": "\x1b[2Jhi"}, "hi"),
    "osc title": ({"text": "\x1b]0;pwned\x07ok"}, "ok"),
    "bidi override": ({"text": "\u202eabc\u202c"}, "abc"),
    "nul": ({"text": "a\x00b"}, "ab"),
    "c1 csi": ({"text": "\x9b2Jx"}, "x"),
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_text_is_cleaned_before_display(name):
    body, shown = HOSTILE[name]
    text, why = read(body)
    assert why is None and text == shown
    assert not any(ord(c) < 32 or 0x7F <= ord(c) <= 0x9F for c in text)


@pytest.mark.parametrize(
    "body",
    [
        {"text": "x" * 10_240},  # 10 kB
        {"phrase": "no-such-id"},
        {"phrase": 3},
        {"text": 5},
        {"text": "\x1b[2J"},  # nothing left once cleaned
        {"text": "a", "phrase": "gg"},
        {},
        ["not", "an", "object"],
    ],
)
def test_bad_bodies_are_dropped_with_a_reason_never_raised(body):
    text, why = read(body)
    assert text is None and why
    assert "\x1b" not in why and len(why) < 200


def test_bucket_is_deterministic_from_the_times_given():
    b = Bucket(rate=0.5, burst=3, now=0.0)
    assert [b.take(0.0) for _ in range(4)] == [True, True, True, False]
    assert not b.take(1.0)  # half a token
    assert b.take(2.0)
    assert b.wait(2.0) == pytest.approx(2.0)


def test_rate_limit_per_seat_hides_a_flood_and_names_it_once():
    room = ChatRoom(me=0)
    shown = [room.hear(1, {"text": f"m{i}"}, 10.0) for i in range(20)]
    assert sum(h.text is not None for h in shown) == int(chat.BURST)
    assert [h.flooding for h in shown].count(True) == 1  # told once per episode
    assert all("rate limit" in h.why for h in shown if h.text is None)
    # another seat has its own allowance; time refills it
    assert room.hear(2, {"text": "hi"}, 10.0).text == "hi"
    assert room.hear(1, {"text": "later"}, 10.0 + 2 / chat.RATE).text == "later"


def test_own_sending_is_limited_below_what_readers_accept():
    room = ChatRoom(me=0)
    sent = [room.may_send(0.0) == 0.0 for _ in range(10)]
    assert sent.count(True) == int(chat.SEND_BURST) <= int(chat.BURST)
    assert chat.SEND_RATE <= chat.RATE
    assert room.may_send(0.0) > 0


def test_mute_hides_one_seat_only():
    room = ChatRoom(me=0)
    room.muted.add(2)
    assert room.hear(2, {"phrase": "gg"}, 0.0).text is None
    assert room.hear(1, {"phrase": "gg"}, 0.0).text == "Good game!"
    assert room.hear(0, {"text": "mine"}, 0.0).text == "mine"  # own lines are never muted


@pytest.mark.parametrize(
    "typed", ["3", "q", "Q", "t", "10 J Q K A", "33 44 55", "p", "pass", "?", "#2", "h", "s"]
)
def test_cards_and_moves_are_never_chat(typed):
    assert chat_command(typed) is None


def test_chat_words():
    assert chat_command("say hello all") == chat.ChatCommand("say", "hello all")
    assert chat_command("chat hi") == chat.ChatCommand("say", "hi")
    assert chat_command(":gg") == chat.ChatCommand("say", ":gg")
    assert chat_command("say :gg") == chat.ChatCommand("say", ":gg")
    assert chat_command("phrases") == chat.ChatCommand("phrases", "")
    assert chat_command("mute Bob") == chat.ChatCommand("mute", "Bob")
    assert chat_command("UNMUTE") == chat.ChatCommand("unmute", "")


def test_find_seat_by_number_or_whole_name():
    nicks = ["alice", "Bob", "bob2", "\x1b[31mEve"]
    assert find_seat("1", nicks) == 1
    assert find_seat("bob", nicks) == 1
    assert find_seat("eve", nicks) == 3
    assert find_seat("9", nicks) is None
    assert find_seat("bo", nicks) is None


def test_quick_phrase_in_the_readers_language(monkeypatch):
    """Each reader translates the id itself: a fake catalogue stands in for the merged .po files.

    (The real German text arrives when the coordinator merges /work/briefs/tr/C.json.)
    """
    fake = {"Good game!": "Gutes Spiel!"}
    monkeypatch.setattr(chat, "_", lambda msgid: fake.get(msgid, msgid))
    assert read({"phrase": "gg"}) == ("Gutes Spiel!", None)
    assert read({"phrase": "nice"}) == ("Nice play!", None)


def test_bot_phrases_are_sparse_and_fixed_by_the_seed():
    rules = build_rules(4)
    bomb = Action("play", 1, cards("9 9 9 9"))
    from zsy_lan.engine.game import Game
    from zsy_lan.testing import seed_bytes

    g = Game(rules, 1)
    g.start_round(seed_bytes(1))
    r = g.round
    said = {}
    for seed in range(40):
        c = BotChatter(f"s{seed}", 0, rules)
        first = c.after_play(bomb, r)
        assert c.after_play(bomb, r) is None  # at most once per round
        assert BotChatter(f"s{seed}", 0, rules).after_play(bomb, r) == first  # same seed, same
        said[seed] = first
    assert set(said.values()) == {"nice", None}  # sometimes, not always
    assert BotChatter("s", 1, rules).after_play(bomb, r) is None  # its own bomb
    assert BotChatter("s", 0, rules).after_play(Action("play", 1, cards("9")), r) is None


class _FakeReplica:
    def __init__(self) -> None:
        self.sent: list[dict] = []

    def chat(self, body, now):
        self.sent.append(dict(body))
        return []


class _FakeGame:
    def __init__(self, rules) -> None:
        from zsy_lan.engine.game import Game
        from zsy_lan.testing import seed_bytes

        g = Game(rules, 1)
        g.start_round(seed_bytes(2))
        self.round = g.round
        self.log: list[Action] = []
        self.over = False

    def finished(self) -> bool:
        return self.over


def test_a_network_bot_seat_says_its_phrases_through_its_replica():
    """TablePeer's bot seat (BotChat): nice after an opponent's bomb, gg at the end, seeded."""
    from types import SimpleNamespace

    from zsy_lan.table.chat_desk import BotChat

    rules = build_rules(4)

    def seat_for(table: str, bot: bool = True) -> SimpleNamespace:
        p = SimpleNamespace(replica=_FakeReplica(), game=_FakeGame(rules), decider=None)
        p.chat = BotChat(
            table,
            0,
            rules,
            game=lambda: p.game,
            has_bot=lambda: p.decider is not None,
            say=lambda phrase: p.replica.chat({"phrase": phrase}, 0.0),
            enabled=bot,
        )
        if bot:
            assert p.chat.chatter is None  # no bot yet (zsy join --bot sets the decider later)
        p.decider = object()
        assert (p.chat.chatter is not None) is bot  # from the game as it is now
        return p

    # a table id whose rolls say both phrases (the rolls are fixed by it)
    table = next(
        t for t in (f"t{i}" for i in range(200))
        if BotChatter(t, 0, rules).at_match_end() == "gg"
        and BotChatter(t, 0, rules).after_play(Action("play", 1, cards("9 9 9 9")),
                                               _FakeGame(rules).round) == "nice"
    )
    p = seat_for(table)
    p.game.log.append(Action("play", 1, cards("9 9 9 9")))
    p.chat.after_moves()
    p.game.log.append(Action("play", 2, cards("10 10 10 10")))
    p.chat.after_moves()  # at most one nice a round
    p.game.over = True
    p.chat.after_moves()
    p.chat.after_moves()  # gg once
    assert p.replica.sent == [{"phrase": "nice"}, {"phrase": "gg"}]
    quiet = seat_for(table, bot=False)
    quiet.game.over = True
    quiet.chat.after_moves()
    assert quiet.replica.sent == []


def test_quick_phrase_with_the_real_catalogue_once_merged():
    """The same wire body read by a German reader, through the shipped catalogue.

    Skipped until the coordinator merges /work/briefs/tr/C.json into the .po/.mo files.
    """
    from zsy_lan.text.i18n import set_language

    body = body_for(":gg")
    try:
        set_language("de")
        text, _why = read(body)
    finally:
        set_language("en")
    if text == "Good game!":
        pytest.skip("the German catalogue has no chat phrases yet (merged by the coordinator)")
    assert text == "Gutes Spiel!"
    assert read(body) == ("Good game!", None)  # an English reader, the same bytes
