"""The players' languages: every player-facing string goes through here.

Strings are written in English in the code and wrapped in :func:`_` (or
:func:`ngettext` for counts); Babel extracts them into
``zsy_lan/locale/zsy.pot`` and the catalogues ``zsy_lan/locale/<lang>/
LC_MESSAGES/zsy.po`` translate them; the compiled ``.mo`` files ship in the
package. :func:`N_` marks a string for extraction where it is defined (a
table of names, a plugin's vocabulary) and is translated later, where it is
shown, with :func:`_`.

The language is chosen once per process by :func:`set_language` (``--lang``,
else ``ZSY_LANG``, else the locale: ``LC_ALL``, ``LC_MESSAGES``, ``LANG``).
The engine and plugins never import this module (they stay pure): what they
name is an English message id that this layer translates.
"""

from __future__ import annotations

import gettext
import os
from pathlib import Path

__all__ = [
    "LANGUAGES",
    "N_",
    "_",
    "current_language",
    "ngettext",
    "pick_language",
    "set_language",
]

DOMAIN = "zsy"
LOCALE_DIR = Path(__file__).with_name("locale")

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
    for var in ("ZSY_LANG", "LC_ALL", "LC_MESSAGES", "LANG", "LANGUAGE"):
        value = env.get(var, "")
        for part in value.split(":"):
            code = _normalise(part)
            if code in LANGUAGES:
                return code
        if value and var != "ZSY_LANG":
            # The first locale variable that is set decides, as in POSIX.
            return "en"
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


def N_(message: str) -> str:
    """Mark ``message`` for extraction without translating it yet."""
    return message
