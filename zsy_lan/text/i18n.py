"""The players' languages: every player-facing string goes through here.

Strings are written in English in the code and wrapped in :func:`_` (or
:func:`ngettext` for counts); Babel extracts them into
``zsy_lan/locale/zsy.pot`` and the catalogues ``zsy_lan/locale/<lang>/
LC_MESSAGES/zsy.po`` translate them; the compiled ``.mo`` files ship in the
package. :func:`N_` marks a string for extraction where it is defined (a
table of names, a plugin's vocabulary) and is translated later, where it is
shown, with :func:`_`.

The language is chosen once per process by :func:`set_language` (``--lang``,
else ``ZSY_LANG``, else GNU's ``LANGUAGE`` list, else the locale: ``LC_ALL``,
``LC_MESSAGES``, ``LANG``).
The engine and plugins never import this module (they stay pure): what they
name is an English message id that this layer translates.

Click's own words (``Usage:``, ``Error: …``, ``Show this message and exit.``)
are gettext messages too: :func:`serve_gettext_of` points click at
:func:`_`/:func:`ngettext`, and their translations live in our catalogue
(``i18n_tools`` extracts them from the installed click).
"""

from __future__ import annotations

import gettext
import importlib
import inspect
import os
import pkgutil
import sys
import unicodedata
from collections.abc import Iterable
from pathlib import Path

__all__ = [
    "LANGUAGES",
    "NP_",
    "N_",
    "_",
    "current_language",
    "deal_word",
    "exit_reason",
    "help_msgid",
    "join_clauses",
    "join_items",
    "join_phrases",
    "join_sentences",
    "ngettext",
    "npgettext",
    "pgettext",
    "pick_language",
    "serve_gettext_of",
    "breaks_anywhere",
    "NO_LINE_START",
    "NO_LINE_END",
    "set_language",
]

DOMAIN = "zsy"
LOCALE_DIR = Path(__file__).resolve().parent.parent / "locale"

#: The languages we ship, code -> the language's own name.
LANGUAGES: dict[str, str] = {
    "en": "English",
    "zh": "简体中文",
    "de": "Deutsch",
    "es": "Español",
}

_translation: gettext.NullTranslations = gettext.NullTranslations()
_language = "en"


def pick_language(explicit: str | None = None, environ: dict[str, str] | None = None) -> str:
    """The language code to use: ``explicit``, else ``ZSY_LANG``, else the locale.

    Locale names like ``zh_CN.UTF-8``, ``de_AT`` or ``es-419`` map to their
    language; anything we do not ship (or ``C``/``POSIX``) is English.
    ``explicit`` that we do not ship raises :class:`ValueError` naming the
    choices, so ``--lang xx`` is refused rather than silently English.
    """
    if explicit:
        code = _normalise(explicit)
        if code not in LANGUAGES:
            choices = ", ".join(sorted(LANGUAGES))
            raise ValueError(f"unknown language {explicit!r}: choose one of {choices}")
        return code
    env = os.environ if environ is None else environ
    # ZSY_LANG and GNU's LANGUAGE are lists of wishes: the first one we ship wins,
    # and if none is shipped the locale still decides.
    for var in ("ZSY_LANG", "LANGUAGE"):
        for part in env.get(var, "").split(":"):
            code = _normalise(part)
            if code in LANGUAGES:
                return code
    for var in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = env.get(var, "")
        if value:
            # The first locale variable that is set decides, as in POSIX.
            code = _normalise(value)
            return code if code in LANGUAGES else "en"
    return "en"


def _normalise(name: str) -> str:
    return name.strip().split(".")[0].split("@")[0].replace("-", "_").split("_")[0].lower()


def set_language(code: str) -> None:
    """Use ``code``'s catalogue from now on (``en`` needs none)."""
    global _translation, _language
    _language = code
    if code == "en":
        _translation = gettext.NullTranslations()
        return
    _translation = gettext.translation(
        DOMAIN, localedir=str(LOCALE_DIR), languages=[code], fallback=True
    )


def current_language() -> str:
    """The code of the language in use."""
    return _language


def _(message: str) -> str:
    """``message`` in the current language (the English text if untranslated)."""
    return _translation.gettext(message)


def ngettext(singular: str, plural: str, n: int) -> str:
    """The form of a message for count ``n`` in the current language."""
    return _translation.ngettext(singular, plural, n)


def pgettext(context: str, message: str) -> str:
    """``message`` in the current language, told apart by ``context``.

    For a short English word that other languages say differently in two
    places (``pass`` the verb a player types about vs. a seat's state).
    """
    return _translation.pgettext(context, message)


def npgettext(context: str, singular: str, plural: str, n: int) -> str:
    """:func:`ngettext` told apart by ``context`` (see :func:`pgettext`)."""
    return _translation.npgettext(context, singular, plural, n)


def serve_gettext_of(package: str) -> list[str]:
    """Let ``package`` (click) speak the current language: its gettext names become ours.

    Click marks its words with Python's *global* gettext functions (``from
    gettext import gettext as _``), which take their language from the
    environment, not from ``--lang``. Each of ``package``'s modules (those whose
    source names gettext are imported here, so a lazily imported one is not missed) that holds
    ``gettext.gettext`` or ``gettext.ngettext`` under any name gets :func:`_` /
    :func:`ngettext` instead: click's messages are then looked up in our
    catalogue, in the language :func:`set_language` chose. Returns the names
    rebound (``"click.core._"``...), for the test that checks none is missed.
    The other way, binding our catalogue as the global domain, would need
    ``os.environ["LANGUAGE"]`` set: every child process would inherit it and
    :func:`pick_language` would read it back as the user's wish.
    """
    root = importlib.import_module(package)
    for info in pkgutil.walk_packages(getattr(root, "__path__", []), prefix=f"{package}."):
        if info.name in sys.modules or not _worth_importing(info):
            continue  # a module that never names gettext holds none of its functions
        try:
            importlib.import_module(info.name)
        except Exception:  # noqa: BLE001 - e.g. click._winconsole off Windows: never used here
            continue
    ours = ((gettext.gettext, _), (gettext.ngettext, ngettext))
    rebound = []
    for name, module in sorted(sys.modules.items()):
        if module is None or not (name == package or name.startswith(f"{package}.")):
            continue
        for attr, value in list(vars(module).items()):
            for theirs, mine in ours:
                if value is theirs:
                    setattr(module, attr, mine)
                    rebound.append(f"{name}.{attr}")
    return rebound


def _worth_importing(info: pkgutil.ModuleInfo) -> bool:
    """Whether a module not yet imported could hold gettext's functions here.

    Its source must name gettext (importing all of click's costs 40 ms), and it
    must not be for Windows only on another system (``click._winconsole`` asserts
    ``win32`` after 17 ms of ctypes imports).
    """
    spec = info.module_finder.find_spec(info.name, None)  # type: ignore[call-arg]
    origin = getattr(spec, "origin", None)
    try:
        with open(origin or "", encoding="utf-8") as fh:
            source = fh.read()
    except (OSError, UnicodeDecodeError):
        return True  # no source to read: import it and look
    windows_only = 'assert sys.platform == "win32"' in source
    return "gettext" in source and (sys.platform == "win32" or not windows_only)


#: Marks a line never starts with (kinsoku): they close what comes before them.
NO_LINE_START = frozenset("。，、；：！？）」』》”’…")
#: Marks a line never ends with: they open what comes after them.
NO_LINE_END = frozenset("（「『《“‘")


def breaks_anywhere(text: str) -> bool:
    """True for text with Chinese, Japanese or Korean, where a line may break anywhere.

    The line-breaking rules of a script, shared by the table's wrapping
    (``ui.render.wrap``) and the help's (``cli``): those scripts write no spaces.
    """
    return any(unicodedata.east_asian_width(ch) in ("W", "F") for ch in text)


def N_(message: str) -> str:
    """Mark ``message`` for extraction without translating it yet."""
    return message


def NP_(context: str, message: str) -> str:  # noqa: N802 - the gettext family's spelling
    """Mark ``message`` in ``context`` for extraction; translate later with :func:`pgettext`."""
    del context
    return message


def help_msgid(text: str) -> str:
    """The message id of a click help text: what click shows, as it shows it.

    Click cleans a docstring's indentation and cuts it at a form feed; the
    extractor (``i18n_tools.extract_cli``) and the CLI's translation
    of its help both use this, so the id found in the code is the id looked up.
    """
    return inspect.cleandoc(text).partition("\f")[0].strip()


def deal_word(deal: str) -> str:
    """A table's kind of deal (``open``/``private``, as peers say it) in the current language.

    For the texts that name it, ``"{deal} deal"``: the network value itself
    stays English; anything else (a newer peer's word) is shown as it came.
    """
    if deal == "private":
        return pgettext("deal", "private")
    if deal == "open":
        return pgettext("deal", "open")
    return deal


def exit_reason(why: str) -> str:
    """Why the table was left (``quit``, ``match over``...) in the current language.

    The table returns these as plain English words that the program compares
    (``why == "match over"``); they are translated only where they are shown,
    ``Bye ({why})``. Anything else (a stop reason already in words) is kept.
    """
    reasons = {
        "quit": pgettext("left the table", "quit"),
        "match over": pgettext("left the table", "match over"),
        "end of input": pgettext("left the table", "end of input"),
        "stopped": pgettext("left the table", "stopped"),
    }
    return reasons.get(why, why)


# Sentence ends after which a language that writes no space between sentences
# (Chinese) glues the next one straight on; after anything else (an English
# sentence left untranslated, a nick) a space still stands.
_FULL_WIDTH_ENDS = ("。", "！", "？", "…", "）", "」", "』")


def join_items(items: Iterable[str]) -> str:
    """A list of names or seats, ``Ann, Bob, Cy``, with the language's own separator.

    Chinese enumerates with the ideographic comma (``、``); an ASCII ``", "``
    between Chinese words reads as a typo. Only for translated or player text,
    never for cards (they have their own spacing, docs/ui.md) or log lines.
    """
    # TRANSLATORS: between the items of a list of names or seats: "Ann, Bob, Cy" (zh: 、)
    return pgettext("between list items", ", ").join(items)


def join_phrases(items: Iterable[str]) -> str:
    """Short phrases about one thing, ``connected, to act, 13 s left``, in the language's way.

    Chinese writes a full-width comma (``，``) between such phrases.
    """
    # TRANSLATORS: between short phrases about one thing: "connected, to act, 13 s left" (zh: ，)
    return pgettext("between short phrases", ", ").join(items)


def join_clauses(items: Iterable[str]) -> str:
    """Longer phrases of one line, ``table clock 30 s; invite only``: Chinese ``；``.

    The same separator as the settings line
    (:func:`zsy_lan.protocol.table_settings.phrase_separator`).
    """
    # TRANSLATORS: between short phrases: "table clock 30 seconds per turn; invite only"
    return pgettext("between phrases", "; ").join(items)


def join_sentences(items: Iterable[str]) -> str:
    """Whole sentences one after the other, as the language writes them.

    English, German and Spanish put a space after a full stop; Chinese puts
    nothing after ``。`` (``已出牌。牌桌计时…``, never ``。 牌桌计时``). No
    language writes a space after a full-width mark, so that decides it (a
    catalogue cannot say "nothing": an empty translation counts as missing);
    after an English sentence left untranslated a space still stands.
    """
    out = ""
    for item in items:
        if not item:
            continue
        if out and not out.endswith(_FULL_WIDTH_ENDS):
            out += " "
        out += item
    return out
