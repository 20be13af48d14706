"""One place that turns peer-controlled text into something safe to print.

Everything that reaches us from the network (nicks, table names, a guest's
ruleset difference, mDNS TXT fields, an external bot's messages, error
strings that quote any of these) is *data*. A terminal treats some bytes as
commands: C0 controls (ESC, BEL, CR, backspace), C1 controls (U+0080-U+009F,
which some terminals honour as 8-bit CSI/OSC), and whole escape sequences
(``ESC ] 0;title BEL`` sets the window title; ``ESC [ 2J`` clears the
screen). Bidirectional overrides and zero-width characters can make one
string look like another. :func:`clean` removes all of these, so a modified
peer can neither drive our terminal nor spoof a name, and :func:`clean` is
the only function that does it: call it where the string enters (lobby,
discovery, roster) and again nowhere else is needed, though calling it twice
is harmless (it is idempotent).
"""

from __future__ import annotations

import re
import unicodedata

__all__ = ["clean", "clean_or", "clean_words"]

# A whole escape sequence first (so its parameters do not survive as text):
# CSI (ESC [ ... final), OSC/DCS/SOS/PM/APC strings (ESC ] ... BEL or ST),
# and two-byte escapes (ESC + one char). The 8-bit forms (U+009B CSI,
# U+009D OSC, ...) are matched the same way.
_SEQUENCE = re.compile(
    r"""
    (?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]?                 # CSI ... final byte
  | (?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f])           # OSC, DCS, SOS, PM, APC
        .*?(?:\x07|\x1b\\|\x9c|$)                       # ... up to BEL or ST
  | \x1b[ -/]*[0-~]?                                    # any other ESC sequence
    """,
    re.VERBOSE | re.DOTALL,
)

# Unicode categories that never belong in a name or a line of text:
# Cc (controls), Cf (format: bidi overrides, zero-width joiners), Cs
# (surrogates), Co (private use), Cn (unassigned), Zl/Zp (line/paragraph
# separators).
_DROP = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})


def clean(text: object, max_len: int | None = None) -> str:
    """Return ``text`` as printable, single-line, escape-free text.

    Non-strings are converted with ``str`` first (a peer may send a number
    where a name belongs). Escape sequences are removed whole; every other
    control, format or separator character is removed; tabs and newlines
    become single spaces so that a name never starts a new line of output.
    ``max_len`` cuts the result (in code points) and marks the cut with
    ``…``.
    """
    s = text if isinstance(text, str) else str(text)
    s = _SEQUENCE.sub("", s)
    out = []
    for ch in s:
        if ch in "\t\n\r\v\f":
            out.append(" ")
        elif unicodedata.category(ch) not in _DROP:
            out.append(ch)
    s = "".join(out)
    if max_len is not None and len(s) > max_len:
        s = s[: max(0, max_len - 1)] + "…"
    return s


# Characters that draw as blank space without being white space: Hangul fillers,
# the blank braille pattern. In a line of text they align it as spaces do.
_BLANK = frozenset("\u115f\u1160\u3164\uffa0\u2800")
# Marks of no width that :func:`clean` keeps (not format characters): dropped in words.
_NO_WIDTH = frozenset("\u034f\u17b4\u17b5")
_RUN = re.compile(r" {2,}")


def clean_words(text: object, max_len: int | None = None) -> str:
    """:func:`clean`, then every run of white space one space, trimmed: words, not layout.

    For a line of another's free text shown beside our own lines (a chat line):
    a run of spaces (any Unicode space, a tab, a filler that draws blank) can
    push the rest of the line to where the terminal wraps it, so that it starts
    a row of its own and reads as a new line (issue #25: "wrap" + 90 spaces +
    "» host: I concede"). Zero-width and bidi characters are gone already
    (:func:`clean`). The wrapping that remains is marked where it is shown
    (:func:`zsy_lan.protocol.chat.continued`). ``max_len`` cuts as :func:`clean`
    does, after the collapse.
    """
    out = []
    for ch in clean(text):
        if ch in _NO_WIDTH:
            continue
        out.append(" " if ch.isspace() or ch in _BLANK else ch)
    s = _RUN.sub(" ", "".join(out)).strip()
    if max_len is not None and len(s) > max_len:
        s = s[: max(0, max_len - 1)] + "…"
    return s


def clean_or(text: object, fallback: str, max_len: int | None = None) -> str:
    """:func:`clean`, or ``fallback`` when nothing printable is left."""
    s = clean(text, max_len).strip()
    return s if s else fallback
