"""Names that look alike: the confusable skeleton of Unicode's UTS #39.

A seat named "hоst" (with a Cyrillic о) reads exactly like "host" on every
screen; :func:`~zsy_lan.text.sanitize.clean` keeps both, as both are honest
printable text. Two names are confusable when their *skeletons* are equal
(UTS #39, section 4): the string in NFD, its default-ignorable characters
removed, each character replaced by its prototype from Unicode's
``confusables.txt``, and NFD again. :func:`looks_alike` also compares the
case-folded names, so "ALICE" and "alice" (or "Аlice") are one name to a
person reading a seat list too.

Why not a library: the maintained ones on PyPI do not compute this.
``confusable_homoglyphs`` (MIT, 900 KB of JSON) answers whether one string
mixes scripts dangerously, not whether two strings look the same;
``confusables`` (MIT, last release 2021, 3.4 MB) lowercases and enumerates
every ASCII reading of a string, which grows exponentially with its length
and is not the skeleton. The skeleton itself is a dozen lines, so the game
ships Unicode's data (``confusables.txt`` beside this file, compacted by
``tools/confusables_data.py``: its header says which version) and computes it
here. Python's :mod:`unicodedata` has no Default_Ignorable_Code_Point
property: the characters removed are those of format category (Cf) and the
ranges that property lists beyond them (variation selectors, fillers, the
combining grapheme joiner), which the lobby's cleaning mostly removed already.
"""

from __future__ import annotations

import unicodedata
from functools import cache, lru_cache
from importlib import resources

__all__ = ["alike_positions", "looks_alike", "skeleton", "skeletons", "unusual_letters"]

#: Default_Ignorable_Code_Point ranges that are not of category Cf (DerivedCoreProperties).
_IGNORABLE_RANGES = (
    (0x034F, 0x034F),  # COMBINING GRAPHEME JOINER
    (0x115F, 0x1160),  # HANGUL CHOSEONG/JUNGSEONG FILLER
    (0x17B4, 0x17B5),  # KHMER VOWEL INHERENT AQ/AA
    (0x180B, 0x180F),  # MONGOLIAN FREE VARIATION SELECTORS
    (0x3164, 0x3164),  # HANGUL FILLER
    (0xFE00, 0xFE0F),  # VARIATION SELECTORS
    (0xFFA0, 0xFFA0),  # HALFWIDTH HANGUL FILLER
    (0xE0000, 0xE0FFF),  # tags, variation selectors supplement, unassigned ignorables
)


@cache
def _prototypes() -> dict[str, str]:
    """Unicode's mapping, read once from the data shipped in the package."""
    table: dict[str, str] = {}
    text = resources.files("zsy_lan.text").joinpath("confusables.txt").read_text("utf-8")
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        source, _sep, target = line.partition(";")
        table[chr(int(source, 16))] = "".join(chr(int(cp, 16)) for cp in target.split())
    return table


def _ignorable(ch: str) -> bool:
    if unicodedata.category(ch) == "Cf":
        return True
    cp = ord(ch)
    return any(lo <= cp <= hi for lo, hi in _IGNORABLE_RANGES)


def skeleton(text: str) -> str:
    """The UTS #39 skeleton of ``text``: equal skeletons mean the strings look alike."""
    table = _prototypes()
    nfd = unicodedata.normalize("NFD", text)
    mapped = "".join(table.get(ch, ch) for ch in nfd if not _ignorable(ch))
    return unicodedata.normalize("NFD", mapped)


@lru_cache(maxsize=4096)
def skeletons(name: str) -> frozenset[str]:
    """The forms a name is compared by: its skeleton, and skeletons of folded forms.

    UTS #39's skeleton alone keeps "ALICE" apart from "alice" and "ｈｏｓｔ"
    (fullwidth) from "host", which read the same to a person choosing whom to
    seat; so the name folded (NFKC, then case-folded) is compared too, and the
    skeleton folded and mapped again (Unicode maps the digit 0 to a capital O,
    so "h0st" meets "host" only that way). The plain skeleton stays, as
    folding would part "Ilya" (capital I) from "llya".
    """
    name = name.strip()
    plain = skeleton(name)
    return frozenset({plain, skeleton(_fold(name)), skeleton(_fold(plain))})


def _fold(text: str) -> str:
    return unicodedata.normalize("NFKC", text).casefold()


def looks_alike(a: str, b: str) -> bool:
    """True when names ``a`` and ``b`` would read the same to a person (equal ones too)."""
    return not skeletons(a).isdisjoint(skeletons(b))


def unusual_letters(name: str, most: int = 3) -> str:
    """The characters of ``name`` beyond ASCII, each with its Unicode name (``о CYRILLIC SMALL
    LETTER O``), so that a sentence about two names that look alike can say how they differ.
    ``""`` for an ASCII name; at most ``most`` are named, then ``…``."""
    seen: list[str] = []
    for ch in dict.fromkeys(name):  # each once, in order
        if ord(ch) >= 0x80:
            seen.append(f"{ch} {unicodedata.name(ch, f'U+{ord(ch):04X}')}")
    return ", ".join(seen[:most]) + (", …" if len(seen) > most else "")


def alike_positions(names: list[str]) -> set[int]:
    """The positions in ``names`` whose name looks like another's there (equal ones too).

    Where refusing a name is not ours to do (the seats of a roster another host
    made, a table resumed from before this check), the screens show these seats
    with their key fingerprint, so two names that read the same are told apart.
    """
    return {
        i
        for i, a in enumerate(names)
        if any(j != i and looks_alike(a, b) for j, b in enumerate(names))
    }
