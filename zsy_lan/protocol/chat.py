"""Chat at the table, the sans-IO part: phrases, what a line may hold, limits, mutes.

Why a module of its own (issue #15): chat travels like everything else, a
signed message of its author's feed (``chat``), but it is outside the game. It
never enters the transcript chain or the state hash, no seat ever waits on it,
so it cannot block or delay a move (:mod:`zsy_lan.protocol.ledger` treats it
as transcript-neutral, like a vote). What it may say is judged here, on the
reader's side, because the author may be a modified peer:

* a **quick phrase** travels as its id (``{"phrase": "gg"}``), never as text:
  each reader shows it in its own language (:data:`PHRASES` holds English
  message ids marked with ``N_``, translated with ``_()`` when shown); an
  unknown id is dropped with a logged reason;
* **free text** (``{"text": "..."}``) is at most :data:`MAX_TEXT` characters;
  longer is dropped, anything else goes through :func:`zsy_lan.text.sanitize.clean_words`
  (escape sequences, controls, bidi overrides removed, every run of white space
  one space) before it is shown, and a line wrapped on a screen marks its
  continuation (:func:`continued`) so that no part of it reads as a line of its
  own (issue #25: "wrap" + 90 spaces + "» host: I concede"). A
  body over ``MAX_CHAT_BODY`` bytes (2 KiB, far above the longest honest line)
  never gets here: the envelope refuses it as its author's malformed frame;
* a **rate limit** per seat (:class:`~zsy_lan.protocol.bucket.Bucket`, the
  token bucket fed the times it is given, so it is deterministic): a seat's
  lines beyond it are hidden and the seat is named as flooding the chat, once
  per episode, never as a cheat;
* **mute** hides one seat's chat on this screen only (its moves still show).

Nothing here does I/O or reads a clock.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from zsy_lan.engine.cards import parse_ranks
from zsy_lan.engine.combos import classify_cards
from zsy_lan.engine.errors import EngineError
from zsy_lan.engine.rules import Rules
from zsy_lan.engine.state import PLAY, Action, RoundState
from zsy_lan.protocol.bucket import Bucket
from zsy_lan.text.i18n import N_, _
from zsy_lan.text.sanitize import clean, clean_words

__all__ = [
    "BURST",
    "CHAT_MARK",
    "CONTINUED",
    "MAX_TEXT",
    "PHRASES",
    "RATE",
    "SEND_BURST",
    "SEND_RATE",
    "BotChatter",
    "ChatCommand",
    "ChatError",
    "ChatRoom",
    "Heard",
    "body_for",
    "chat_command",
    "continued",
    "find_seat",
    "notice_mark",
    "phrase_lines",
    "read",
]

log = logging.getLogger("zsy.chat")

#: The quick phrases: stable id (what the wire carries) -> English message id.
PHRASES: dict[str, str] = {
    "hello": N_("Hello!"),
    "luck": N_("Good luck, have fun!"),
    "nice": N_("Nice play!"),
    "well-played": N_("Well played!"),
    "thanks": N_("Thanks!"),
    "oops": N_("Oops!"),
    "hurry": N_("Could you play a little faster, please?"),
    "wait": N_("One moment, please."),
    "gg": N_("Good game!"),
    "again": N_("Another match?"),
    "bye": N_("Bye, thanks for the game!"),
}

MAX_TEXT = 200  # characters of free text in one line
# What a reader shows per seat: a burst of BURST lines, then one every 1/RATE seconds.
RATE = 0.5
BURST = 6.0
# What this seat's own UI lets it send: below the readers' limit, so an honest seat's
# lines are never hidden (a catch-up after a reconnect may still bring a few at once).
SEND_RATE = 0.4
SEND_BURST = 4.0
FLOOD_QUIET = 30.0  # seconds without a hidden line before a seat's flooding is told again


class ChatError(ValueError):
    """A line this seat typed cannot be sent; the message says why and what to do."""


def body_for(text: str) -> dict[str, str]:
    """The wire body for what the player typed after ``say``: a phrase (``:gg``) or text.

    Raises :class:`ChatError` (one sentence, in the player's language) for an
    empty line, an unknown phrase or text over :data:`MAX_TEXT` characters.
    Our own text is cleaned before it is signed, so nothing we send can drive
    another terminal even before the reader cleans it again.
    """
    raw = text.strip()
    if raw.startswith(":"):
        pid = raw[1:].strip().lower()
        if pid not in PHRASES:
            raise ChatError(
                _("there is no quick phrase '{typed}': type phrases to list them").format(
                    typed=clean(raw, 40)
                )
            )
        return {"phrase": pid}
    said = clean_words(raw)
    if not said:
        raise ChatError(_("say what? Type say and your message, or say :gg for a quick phrase"))
    if len(said) > MAX_TEXT:
        raise ChatError(
            _("that message has {n} characters; the limit is {limit}: say it shorter").format(
                n=len(said), limit=MAX_TEXT
            )
        )
    return {"text": said}


def read(body: Any) -> tuple[str | None, str | None]:
    """A received body as (text to show, None) or (None, why it is dropped).

    The text is already in this reader's language (a phrase) or cleaned (free
    text). The reason is for the log, in English, and quotes nothing raw.
    """
    if not isinstance(body, Mapping):
        return None, "the chat body is not an object"
    if set(body) == {"phrase"}:
        pid = body["phrase"]
        if isinstance(pid, str) and pid in PHRASES:
            return _(PHRASES[pid]), None
        return None, f"unknown quick phrase {clean(pid, 40)!r}"
    if set(body) == {"text"}:
        raw = body["text"]
        if not isinstance(raw, str):
            return None, "the chat text is not a string"
        if len(raw) > MAX_TEXT:
            return None, f"{len(raw)} characters, more than the limit of {MAX_TEXT}"
        said = clean_words(raw)
        if not said:
            return None, "nothing printable left once cleaned"
        return said, None
    return None, "the chat body is neither a phrase nor a text"


@dataclass(frozen=True)
class Heard:
    """What to do with a received chat line: ``text`` to show, or None (``why`` for the log).

    ``flooding``: this is the first hidden line of a flooding episode (tell the
    player once that the seat is flooding the chat).
    """

    seat: int
    text: str | None
    why: str | None = None
    flooding: bool = False


@dataclass
class ChatRoom:
    """One seat's chat state: its mutes, each author's rate limit, its own send limit."""

    me: int
    muted: set[int] = field(default_factory=set)
    rate: float = RATE
    burst: float = BURST
    _in: dict[int, Bucket] = field(default_factory=dict)
    _flood: dict[int, float] = field(default_factory=dict)  # seat -> last hidden line
    _out: Bucket | None = None

    def hear(self, seat: int, body: Any, now: float) -> Heard:
        """Judge ``seat``'s chat ``body`` arriving at ``now``: show it, or drop it and say why."""
        text, why = read(body)
        if text is None:
            return Heard(seat, None, f"chat from seat {seat} dropped: {why}")
        if seat == self.me:
            return Heard(seat, text)  # our own line (already limited when we sent it)
        if seat in self.muted:
            return Heard(seat, None, f"chat from seat {seat} hidden: muted here")
        bucket = self._in.get(seat)
        if bucket is None:
            bucket = self._in[seat] = Bucket(self.rate, self.burst, now)
        if not bucket.take(now):
            last = self._flood.get(seat)
            self._flood[seat] = now
            first = last is None or now - last > FLOOD_QUIET
            return Heard(seat, None, f"chat from seat {seat} hidden: over its rate limit", first)
        return Heard(seat, text)

    def may_send(self, now: float) -> float:
        """0.0 when this seat may send a line now (it is counted), else seconds to wait."""
        if self._out is None:
            self._out = Bucket(SEND_RATE, SEND_BURST, now)
        wait = self._out.wait(now)
        if wait <= 0.0:
            self._out.take(now)
        return wait


@dataclass(frozen=True)
class ChatCommand:
    """A chat word typed at the table: ``say`` (with ``arg``), ``phrases``, ``mute``, ``unmute``."""

    name: str
    arg: str = ""


CHAT_WORDS = {
    "say": "say",
    "chat": "say",
    "phrases": "phrases",
    "mute": "mute",
    "unmute": "unmute",
}


def chat_command(text: str) -> ChatCommand | None:
    """The chat command in a typed line, or None (then it is a card, a move or another word).

    ``say hello``, ``chat hello``, ``say :gg``, ``:gg``, ``phrases``,
    ``mute 2``/``mute Alice``, ``unmute``. A line that reads as cards is never
    chat (no card is spelt like these words; the check keeps it so).
    """
    raw = text.strip()
    if not raw:
        return None
    if raw.startswith(":") and len(raw) > 1:
        return ChatCommand("say", raw)
    word, _sep, rest = raw.partition(" ")
    name = CHAT_WORDS.get(word.lower())
    if name is None:
        return None
    try:
        parse_ranks(raw)
    except EngineError:
        pass
    else:
        return None  # cards (none of the words reads as cards today)
    return ChatCommand(name, rest.strip())


def find_seat(arg: str, nicks: Sequence[str]) -> int | None:
    """The seat ``arg`` names: its number, or a nickname (whole, any case; cleaned first)."""
    arg = clean(arg).strip()
    if arg.isdigit():
        n = int(arg)
        return n if 0 <= n < len(nicks) else None
    low = arg.casefold()
    hits = [s for s, nick in enumerate(nicks) if clean(nick).strip().casefold() == low]
    return hits[0] if len(hits) == 1 else None


def phrase_lines() -> list[str]:
    """The quick phrases as the ``phrases`` command lists them (this reader's language)."""
    out = [_("Quick phrases (each player reads them in their own language): say :ID")]
    out += [f"  :{pid:<12} {_(msgid)}" for pid, msgid in PHRASES.items()]
    return out


def notice_mark(kind: str) -> str:
    """How a notice line starts: ``! `` an error, ``» `` a chat line, ``* `` the table's news."""
    return {"error": "! ", "chat": CHAT_MARK}.get(kind, "* ")


#: How a chat line starts (after any indent: ``zsy replay`` indents its lines).
CHAT_MARK = "» "
#: How each further row of a wrapped chat line starts, after the line's own indent:
#: deeper than any line starts, then a bar no line starts with (a nick never starts
#: with a space). ASCII, so that a console without UTF-8 shows it too.
CONTINUED = "  | "


def continued(line: str) -> str | None:
    """What each further row starts with when ``line`` is a chat line and must wrap, else
    ``None`` (then the line wraps as any other).

    Another seat's text cannot start a row that reads as a new line, someone else's
    (``» host: I concede``): each row after the first starts with the line's indent and
    :data:`CONTINUED`. Every screen that shows chat wraps it so (``ui/render.py``'s
    ``wrap``: the line mode, ``zsy watch --plain``, the full screen's log, ``zsy replay``).
    """
    body = line.lstrip(" ")
    if not body.startswith(CHAT_MARK):
        return None
    return line[: len(line) - len(body)] + CONTINUED


class BotChatter:
    """A bot's few quick phrases, decided from its seed alone (the same seed, the same words).

    ``nice`` after an opponent's bomb, at most once per round and not every
    time; ``gg`` at the match's end from some bots; a ``hello`` answered once
    per match. Each choice is a SHA-256 roll over (seed, seat, occasion), never
    ``random``.
    """

    def __init__(self, seed: str, seat: int, rules: Rules) -> None:
        self.seed, self.seat, self.rules = seed, seat, rules
        self._nice_round: int | None = None
        self._greeted = False
        self._bombs = frozenset(k.name for k in rules.bomb_kinds)

    def _roll(self, occasion: str, percent: int) -> bool:
        digest = hashlib.sha256(f"zsy-chat\x00{self.seed}\x00{self.seat}\x00{occasion}".encode())
        return int.from_bytes(digest.digest()[:4], "big") % 100 < percent

    def _opponent(self, seat: int, state: RoundState) -> bool:
        if seat == self.seat:
            return False
        teams = self.rules.teams
        if teams:
            return not any(self.seat in t and seat in t for t in teams)
        lord = state.get("landlord")
        if lord is not None:  # Dou Dizhu: the farmers play together
            return int(lord) in (seat, self.seat)
        return True

    def after_play(self, action: Action, after: RoundState) -> str | None:
        """A phrase after ``action`` was applied (``after`` the round now), or None."""
        if action.kind != PLAY or not action.cards or not self._opponent(action.seat, after):
            return None
        if self._nice_round == after.round_no:
            return None
        combo = classify_cards(self.rules, action.cards)
        if combo is None or combo.kind not in self._bombs:
            return None
        self._nice_round = after.round_no  # one roll per round: at most one "nice"
        occasion = f"nice/{after.round_no}/{action.seat}/{len(after.played)}"
        return "nice" if self._roll(occasion, 50) else None

    def at_match_end(self) -> str | None:
        """``gg`` (or nothing) once the match is over."""
        return "gg" if self._roll("gg", 60) else None

    def heard(self, seat: int, body: Any) -> str | None:
        """An answer to another seat's ``hello`` phrase, once per match."""
        if seat == self.seat or self._greeted or not isinstance(body, Mapping):
            return None
        if body.get("phrase") != "hello":
            return None
        self._greeted = True
        return "hello" if self._roll("hello", 70) else None
