"""Maintaining the translations: extract, merge, compile and check the catalogues.

A developer's tool (it needs Babel, which the ``test`` extra installs; the game
itself needs only the compiled ``.mo`` files). Run from the repository::

    python tools/i18n_tools.py update        # extract -> zsy.pot -> merge into each .po -> .mo
    python tools/i18n_tools.py todo > t.json # what still needs a translation, all languages
    python tools/i18n_tools.py apply t.json  # write those translations into the .po files
    python tools/i18n_tools.py compile       # .po -> .mo only
    python tools/i18n_tools.py check         # what the tests in tests/i18n check; exit 1 if bad

The extraction map is ``babel.cfg`` at the repository root: ``_``, ``N_``,
``ngettext``, ``pgettext`` and ``npgettext`` calls everywhere in ``zsy_lan/``,
plus (in ``zsy_lan/cli/``) click's command docstrings and ``help="..."`` texts,
which ``zsy_lan.cli.localise_help`` translates when a command is shown.
Click's own words (``Usage:``, ``Error: {message}``...) are extracted from the
installed click (:func:`click_messages`) into the same catalogue: the CLI
points click's gettext at ours (``zsy_lan.text.i18n.serve_gettext_of``), so a click
upgrade that adds a message shows up as a missing translation.
``docs/translating.md`` describes the workflow.
"""

from __future__ import annotations

import argparse
import ast
import gettext
import importlib.metadata
import importlib.util
import io
import json
import re
import string
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from zsy_lan.text.i18n import DOMAIN, LANGUAGES, LOCALE_DIR, help_msgid

ROOT = LOCALE_DIR.parent.parent
BABEL_CFG = ROOT / "babel.cfg"
POT_FILE = LOCALE_DIR / f"{DOMAIN}.pot"
#: The languages that need a catalogue (English is the source text).
TARGETS: tuple[str, ...] = tuple(code for code in LANGUAGES if code != "en")
#: The marking functions Babel looks for (name -> which arguments are messages).
KEYWORDS: dict[str, Any] = {
    "_": None,
    "N_": None,
    "NP_": ((1, "c"), 2),
    "ngettext": (1, 2),
    "pgettext": ((1, "c"), 2),
    "npgettext": ((1, "c"), 2, 3),
}
#: How click spells its gettext calls (``from gettext import gettext as _``, ``ngettext``).
CLICK_KEYWORDS: dict[str, Any] = {"_": None, "gettext": None, "ngettext": (1, 2)}
#: Click's messages that reach gettext through a variable, which no extractor sees:
#: ``_(extra["required"])`` in ``click/core.py`` (the ``[required]`` of an option's
#: help). :func:`click_messages` counts such calls; a new one fails a test.
CLICK_DYNAMIC_MSGIDS: tuple[str, ...] = ("required",)
#: Notes for the translators of click's words that say little on their own.
_CLICK_NOTES = {
    "d": "days in a progress bar's time left: 2d 03:04:05",
    "Usage:": "before the command line: Usage: zsy host [OPTIONS]",
    "Options": "heading of the options in --help (click adds the colon)",
    "Commands": "heading of the commands in --help (click adds the colon)",
    "Positional arguments": "heading in --help (click adds the colon)",
    "default: {default}": "in an option's help: [default: 4]",
    "required": "in an option's help: [required]",
    "file": "a path's kind, in 'File 'x' does not exist.' and the FILE placeholder",
    "directory": "a path's kind, in 'Directory 'x' is a file.' and DIRECTORY",
    "path": "a path's kind, in 'Path 'x' does not exist.' and PATH",
}
_CLICK_DECORATORS = frozenset({"command", "group"})
_CLICK_TEXT_KEYWORDS = frozenset({"help", "short_help", "epilog"})


def _babel() -> Any:
    """Import Babel's catalogue modules, or say how to get them."""
    try:
        from babel.messages import catalog, extract, frontend, mofile, pofile
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise SystemExit(
            "Babel is needed to maintain the translations: pip install -e '.[test]'"
        ) from exc
    return catalog, extract, frontend, mofile, pofile


def extract_cli(
    fileobj: IO[bytes], keywords: Any, comment_tags: Any, options: dict[str, Any]
) -> Iterator[tuple[int, str | None, str | tuple[str, ...], list[str]]]:
    """Babel extractor for the command modules: the usual calls and click's help texts.

    Yields what Babel's own Python extractor finds, then every docstring of a
    function decorated with ``@….command(…)`` / ``@….group(…)`` and every
    literal ``help=``/``short_help=``/``epilog=`` argument.
    """
    _catalog, extract, _frontend, _mofile, _pofile = _babel()
    source = fileobj.read()
    yield from extract.extract_python(io.BytesIO(source), keywords, comment_tags, options)
    tree = ast.parse(source.decode(options.get("encoding", "utf-8")))
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and _is_click_command(node):
            doc = ast.get_docstring(node, clean=False)
            if doc and help_msgid(doc):
                yield node.body[0].lineno, "_", help_msgid(doc), ["click command help"]
        elif isinstance(node, ast.Call):
            for kw in node.keywords:
                if (
                    kw.arg in _CLICK_TEXT_KEYWORDS
                    and isinstance(kw.value, ast.Constant)
                    and isinstance(kw.value.value, str)
                    and help_msgid(kw.value.value)
                ):
                    yield kw.value.lineno, "_", help_msgid(kw.value.value), ["click help"]


def _is_click_command(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    for deco in node.decorator_list:
        target = deco.func if isinstance(deco, ast.Call) else deco
        name = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")
        if name in _CLICK_DECORATORS:
            return True
    return False


def click_messages() -> tuple[list[tuple[str | tuple[str, str], str, int]], list[str]]:
    """The messages the installed click passes to gettext, and its calls Babel cannot read.

    Returns ``([(msgid or (singular, plural), "click/core.py", line), ...],
    ["click/core.py:3415", ...])``: the second list names each call whose
    message is not a literal (see :data:`CLICK_DYNAMIC_MSGIDS`).
    """
    _catalog, extract_mod, _frontend, _mofile, _pofile = _babel()
    spec = importlib.util.find_spec("click")
    if spec is None or not spec.submodule_search_locations:  # pragma: no cover
        raise SystemExit("click is not installed")
    root = Path(next(iter(spec.submodule_search_locations)))
    found: list[tuple[str | tuple[str, str], str, int]] = []
    dynamic: list[str] = []
    for source in sorted(root.glob("*.py")):
        where = f"click/{source.name}"
        with source.open("rb") as fh:
            calls = extract_mod.extract_python(fh, CLICK_KEYWORDS, [], {})
            for lineno, funcname, args, _comments in calls:
                if funcname == "ngettext":
                    pair = tuple(args[:2]) if isinstance(args, tuple) else (args, None)
                    if all(isinstance(a, str) and a for a in pair):
                        found.append(((pair[0], pair[1]), where, lineno))
                        continue
                elif isinstance(args, str) and args:
                    found.append((args, where, lineno))
                    continue
                dynamic.append(f"{where}:{lineno}")
    return found, dynamic


def _add_click_messages(template: Any) -> None:
    version = importlib.metadata.version("click")
    messages, _dynamic = click_messages()
    messages += [(mid, "click/core.py", 0) for mid in CLICK_DYNAMIC_MSGIDS]
    for msgid, where, lineno in messages:
        key = msgid[0] if isinstance(msgid, tuple) else msgid
        notes = [f"click {version}'s own words"]
        if key in _CLICK_NOTES:
            notes.append(_CLICK_NOTES[key])
        template.add(msgid, None, [(where, lineno)], auto_comments=notes)


def extract() -> Any:
    """A fresh template catalogue of every message marked in ``zsy_lan/`` today, click's too."""
    catalog_mod, extract_mod, frontend, _mofile, _pofile = _babel()
    with BABEL_CFG.open(encoding="utf-8") as fh:
        method_map, options_map = frontend.parse_mapping_cfg(fh, str(BABEL_CFG))
    template = catalog_mod.Catalog(
        domain=DOMAIN, project="zsy-lan", version="0.1.0", charset="utf-8", fuzzy=False
    )
    found = extract_mod.extract_from_dir(
        str(ROOT), method_map, options_map, keywords=KEYWORDS, comment_tags=("TRANSLATORS:",)
    )
    for filename, lineno, message, comments, context in found:
        template.add(
            message,
            None,
            [(filename.replace("\\", "/"), lineno)],
            auto_comments=comments,
            context=context,
        )
    _add_click_messages(template)
    return template


def po_path(lang: str) -> Path:
    """Where ``lang``'s editable catalogue lives."""
    return LOCALE_DIR / lang / "LC_MESSAGES" / f"{DOMAIN}.po"


def mo_path(lang: str) -> Path:
    """Where ``lang``'s compiled catalogue lives (what the game reads)."""
    return po_path(lang).with_suffix(".mo")


def read_catalog(lang: str) -> Any:
    """``lang``'s catalogue from its ``.po`` file (a new, empty one if there is none)."""
    catalog_mod, _extract, _frontend, _mofile, pofile = _babel()
    path = po_path(lang)
    if not path.exists():
        return catalog_mod.Catalog(
            locale=lang, domain=DOMAIN, project="zsy-lan", version="0.1.0", fuzzy=False
        )
    with path.open("rb") as fh:
        return pofile.read_po(fh, locale=lang, domain=DOMAIN)


def _po_bytes(catalog: Any) -> bytes:
    _c, _e, _f, _m, pofile = _babel()
    catalog.copyright_holder = "the zsy-lan authors"
    catalog.msgid_bugs_address = "the zsy-lan issue tracker"
    if catalog.locale is not None:
        catalog.last_translator = "zsy-lan translators"
        catalog.language_team = f"{LANGUAGES[str(catalog.locale)]} (zsy-lan)"
    buf = io.BytesIO()
    pofile.write_po(buf, catalog, width=78, include_lineno=False, sort_output=False)
    return buf.getvalue()


def _write_if_changed(path: Path, data: bytes, ignore: re.Pattern[bytes] | None = None) -> bool:
    """Write ``data`` unless the file already says the same (dates aside): less churn."""
    if path.exists():
        old = path.read_bytes()
        if old == data or (ignore is not None and ignore.sub(b"", old) == ignore.sub(b"", data)):
            return False
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return True


_DATES = re.compile(rb'^"(POT-Creation-Date|PO-Revision-Date): .*\\n"\n', re.M)


def update() -> list[str]:
    """Extract, rewrite ``zsy.pot``, merge it into each ``.po``, compile; the files changed."""
    template = extract()
    changed = []
    if _write_if_changed(POT_FILE, _po_bytes(template), _DATES):
        changed.append(str(POT_FILE))
    for lang in TARGETS:
        catalog = read_catalog(lang)
        catalog.update(template, no_fuzzy_matching=False, update_header_comment=False)
        catalog.fuzzy = False
        if _write_if_changed(po_path(lang), _po_bytes(catalog), _DATES):
            changed.append(str(po_path(lang)))
    changed += compile_all()
    return changed


def mo_bytes(lang: str) -> bytes:
    """``lang``'s ``.po`` compiled as the game reads it (fuzzy entries left out)."""
    _c, _e, _f, mofile, _p = _babel()
    catalog = read_catalog(lang)
    for message in list(catalog):
        # Babel would compile a plural with an empty form (an empty tuple entry is
        # still "translated" to it); gettext would then show nothing. Leave it English.
        if message.id and isinstance(message.string, tuple) and not all(message.string):
            catalog.delete(message.id, context=message.context)
    buf = io.BytesIO()
    mofile.write_mo(buf, catalog, use_fuzzy=False)
    return buf.getvalue()


def compile_all() -> list[str]:
    """Compile every ``.po`` into its ``.mo``; the files changed."""
    return [
        str(mo_path(lang)) for lang in TARGETS if _write_if_changed(mo_path(lang), mo_bytes(lang))
    ]


def _key(message: Any) -> str:
    mid = message.id[0] if isinstance(message.id, tuple) else message.id
    return f"{message.context}\x04{mid}" if message.context else mid


def _forms(message: Any) -> list[str]:
    if isinstance(message.string, tuple | list):
        return list(message.string)
    return [message.string or ""]


def missing(lang: str, template: Any | None = None) -> list[str]:
    """Message ids in the code with no usable translation in ``lang`` (absent, empty, fuzzy)."""
    template = extract() if template is None else template
    catalog = read_catalog(lang)
    out = []
    for message in template:
        if not message.id:
            continue
        mid = message.id[0] if isinstance(message.id, tuple) else message.id
        have = catalog.get(mid, context=message.context)
        plural_ok = not isinstance(message.id, tuple) or (
            have is not None and isinstance(have.string, tuple | list)
        )
        if have is None or have.fuzzy or not plural_ok or not all(f.strip() for f in _forms(have)):
            out.append(_key(message))
    return out


_PERCENT = re.compile(r"%(?:\([^)]*\))?[-#0 +]*\d*(?:\.\d+)?[sdifr%]")


def placeholders(text: str) -> list[str]:
    """The ``{name}`` fields and ``%`` conversions in ``text``, sorted (``{{`` is not one)."""
    fields = []
    try:
        for _lit, field, spec, conv in string.Formatter().parse(text):
            if field is not None:
                fields.append(
                    "{" + field + (f"!{conv}" if conv else "") + (f":{spec}" if spec else "") + "}"
                )
    except ValueError:
        fields.append("<unbalanced braces>")
    fields += [m for m in _PERCENT.findall(text) if m != "%%"]
    return sorted(fields)


def placeholder_problems(lang: str) -> list[str]:
    """Translations whose placeholders differ from their message id's."""
    out = []
    for message in read_catalog(lang):
        if not message.id or message.fuzzy:
            continue
        forms = _forms(message)
        if isinstance(message.id, tuple):
            singular, plural = (placeholders(t) for t in message.id)
            allowed = set(singular) | set(plural)
            for i, form in enumerate(forms):
                got = placeholders(form)
                if not form:
                    continue
                if not set(got) <= allowed or (i == len(forms) - 1 and got != plural):
                    out.append(f"{lang}: {message.id[1]!r}: form {i} has {got}, expected {plural}")
        else:
            want = placeholders(message.id)
            got = placeholders(forms[0])
            if forms[0] and got != want:
                out.append(f"{lang}: {message.id!r}: has {got}, expected {want}")
    return out


def _mo_table(data: bytes) -> dict[Any, str]:
    table = dict(gettext.GNUTranslations(io.BytesIO(data))._catalog)  # type: ignore[attr-defined]
    table.pop("", None)
    return table


def stale_mo(lang: str) -> bool:
    """True if ``lang``'s shipped ``.mo`` does not say what its ``.po`` says."""
    path = mo_path(lang)
    return not path.exists() or _mo_table(path.read_bytes()) != _mo_table(mo_bytes(lang))


def todo() -> dict[str, Any]:
    """Every message missing in some language, with the translations each already has."""
    template = extract()
    catalogs = {lang: read_catalog(lang) for lang in TARGETS}
    gaps = {lang: set(missing(lang, template)) for lang in TARGETS}
    out: dict[str, Any] = {}
    for message in template:
        key = _key(message) if message.id else ""
        if not key or not any(key in gaps[lang] for lang in TARGETS):
            continue
        mid = message.id[0] if isinstance(message.id, tuple) else message.id
        entry: dict[str, Any] = {}
        if isinstance(message.id, tuple):
            entry["plural"] = message.id[1]
        for lang, catalog in catalogs.items():
            have = catalog.get(mid, context=message.context)
            forms = _forms(have) if have is not None and not have.fuzzy else []
            n = catalog.num_plurals if isinstance(message.id, tuple) else 1
            forms = (forms + [""] * n)[:n]
            entry[lang] = forms if isinstance(message.id, tuple) else forms[0]
        out[key] = entry
    return out


def apply(translations: dict[str, Any]) -> list[str]:
    """Write ``{key: {"zh": "…", "de": […], …}}`` (the :func:`todo` shape) into the ``.po`` files.

    Keys not in a catalogue (run ``update`` first) are reported, not added.
    """
    problems = []
    for lang in TARGETS:
        catalog = read_catalog(lang)
        for key, entry in translations.items():
            if lang not in entry or not entry[lang]:
                continue
            context, sep, mid = key.partition("\x04")
            if not sep:
                context, mid = None, key
            message = catalog.get(mid, context=context)
            if message is None:
                problems.append(f"{lang}: not in the catalogue (run update): {key!r}")
                continue
            value = entry[lang]
            if isinstance(message.id, tuple):
                forms = [value] if isinstance(value, str) else list(value)
                # Spanish has a third form (millions) in CLDR: it reads like the plural.
                forms += [forms[-1]] * (catalog.num_plurals - len(forms))
                message.string = tuple(forms)
            else:
                message.string = value if isinstance(value, str) else value[0]
            message.flags.discard("fuzzy")
        _write_if_changed(po_path(lang), _po_bytes(catalog), _DATES)
    compile_all()
    return problems


def main(argv: list[str] | None = None) -> int:
    """``python tools/i18n_tools.py COMMAND``: see the module's docstring."""
    parser = argparse.ArgumentParser(prog="python tools/i18n_tools.py", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("update", help="extract, merge into every .po, compile")
    sub.add_parser("compile", help="compile every .po into its .mo")
    sub.add_parser("todo", help="print the messages that need translating, as JSON")
    apply_p = sub.add_parser("apply", help="write translations from a todo-shaped JSON file")
    apply_p.add_argument("file", type=Path)
    sub.add_parser("check", help="missing translations, placeholders, stale .mo; exit 1 if any")
    args = parser.parse_args(argv)
    if args.command == "update":
        for path in update():
            print("updated", path)
    elif args.command == "compile":
        for path in compile_all():
            print("compiled", path)
    elif args.command == "todo":
        json.dump(todo(), sys.stdout, ensure_ascii=False, indent=1)
        print()
    elif args.command == "apply":
        problems = apply(json.loads(args.file.read_text(encoding="utf-8")))
        for line in problems:
            print(line, file=sys.stderr)
        return 1 if problems else 0
    elif args.command == "check":
        template = extract()
        problems = []
        for lang in TARGETS:
            problems += [f"{lang}: missing: {key!r}" for key in missing(lang, template)]
            problems += placeholder_problems(lang)
            if stale_mo(lang):
                problems.append(f"{lang}: {mo_path(lang)} is stale: run compile")
        for line in problems:
            print(line)
        print(f"{len(problems)} problem(s)")
        return 1 if problems else 0
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
