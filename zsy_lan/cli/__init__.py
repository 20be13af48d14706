"""The ``zsy`` command: one click group; each family of commands in its own module."""

from __future__ import annotations

import contextlib
import importlib.metadata
import logging
import re
import sys
import unicodedata
from collections.abc import Sequence

try:  # Ctrl-C while the program loads (about a second): leave as quietly as Ctrl-C later
    import click
    from click.formatting import wrap_text

    from zsy_lan.cli.bot_cmds import bot
    from zsy_lan.cli.engine_cmds import moves, play, selfplay
    from zsy_lan.cli.history_cmds import history
    from zsy_lan.cli.net_cmds import demo, host, join, replay, tables
    from zsy_lan.cli.plugin_cmds import plugins, rules_cmd
    from zsy_lan.cli.relay_cmds import relay
    from zsy_lan.cli.watch_cmds import watch
    from zsy_lan.engine.errors import PluginError
    from zsy_lan.text.engine_text import plugin_failed
    from zsy_lan.text.i18n import (
        LANGUAGES,
        NO_LINE_END,
        NO_LINE_START,
        NP_,
        _,
        breaks_anywhere,
        help_msgid,
        pgettext,
        pick_language,
        serve_gettext_of,
        set_language,
    )
except KeyboardInterrupt:  # it printed a traceback of the imports
    raise SystemExit(130) from None

# Click's own words ("Usage:", "Error: No such option", "Show this message and exit.")
# come from our catalogue, in the language set_language chose (docs/translating.md).
serve_gettext_of("click")

#: The names of click's value types, shown in an error ("'x' is not a valid integer.")
#: and, upper-cased, as an option's placeholder in --help (--rounds INTEGER). Click does
#: not mark them for translation; the CLI translates them (see localise_help).
_TYPE_NAMES = (
    # TRANSLATORS: a kind of value: "'x' is not a valid {number_type}." and, upper-cased,
    # the placeholder in --help: "--name TEXT" (one word reads best there)
    NP_("click type", "text"),
    # TRANSLATORS: "'x' is not a valid integer." and "--rounds INTEGER" (one word)
    NP_("click type", "integer"),
    # TRANSLATORS: "'x' is not a valid integer range." (the range is shown apart:
    # say just "integer"), and "--rounds INTEGER RANGE"
    NP_("click type", "integer range"),
    # TRANSLATORS: "'x' is not a valid float." (a number with decimals) and "--x FLOAT"
    NP_("click type", "float"),
    # TRANSLATORS: as "float" (the range is shown apart)
    NP_("click type", "float range"),
)
#: Click's placeholders in a usage line (its defaults, not marked by click either).
#: Placeholders our options show after their name (``--relay URL``): the words a
#: player fills in are translated, the values they may take are not (``off|fast|...``).
_METAVARS = (
    # TRANSLATORS: "--variant NAME": a rule variant's name (one word; upper case if any)
    NP_("click metavar", "NAME"),
    # TRANSLATORS: "--option NAME=VALUE": keep the "=" (what is typed is e.g. scoring=penalty)
    NP_("click metavar", "NAME=VALUE"),
    # TRANSLATORS: "--relay URL": an mqtt:// or mqtts:// address
    NP_("click metavar", "URL"),
    # TRANSLATORS: "--relay-ca FILE": the path of a file
    NP_("click metavar", "FILE"),
    # TRANSLATORS: "--interface IF": a network interface (eth0, lo)
    NP_("click metavar", "IF"),
    # TRANSLATORS: "--host HOST": an address or host name
    NP_("click metavar", "HOST"),
    # TRANSLATORS: "--limit N": a number
    NP_("click metavar", "N"),
    # TRANSLATORS: "--turn-timer off|fast|normal|slow|SECONDS": translate SECONDS only
    NP_("click metavar", "off|fast|normal|slow|SECONDS"),
)

_USAGE_WORDS = (
    # TRANSLATORS: after the command in "Usage: zsy host [OPTIONS]" (keep the brackets)
    NP_("click usage", "[OPTIONS]"),
    # TRANSLATORS: "Usage: zsy [OPTIONS] COMMAND [ARGS]..." (keep the brackets and dots)
    NP_("click usage", "COMMAND [ARGS]..."),
)


def _lang_in_args(args: list[str]) -> str | None:
    """The ``--lang`` value among the group's own options, if any (before the command)."""
    for i, arg in enumerate(args):
        if arg == "--lang":
            return args[i + 1] if i + 1 < len(args) else None
        if arg.startswith("--lang="):
            return arg.partition("=")[2]
        if not arg.startswith("-"):
            return None  # the command's name: what follows is the command's own
    return None


def lang_first(args: list[str]) -> list[str]:
    """``args`` with a ``--lang`` given after the command moved before it, where it belongs.

    ``zsy play --lang de`` answered "No such option '--lang'. Did you mean '--plain'?":
    ``--lang`` is the group's option, and people type it after the command too.
    Nothing after ``--`` is looked at.
    """
    langs: list[str] = []
    rest: list[str] = []
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "--":
            rest += args[i:]
            break
        if arg == "--lang" and i + 1 < len(args):
            langs.append(f"--lang={args[i + 1]}")
            i += 2
            continue
        (langs if arg.startswith("--lang=") else rest).append(arg)
        i += 1
    return langs[-1:] + rest  # the last one counts, as click takes the last of an option


def choose_language(explicit: str | None = None) -> str:
    """Use ``explicit`` (``--lang``), else ``ZSY_LANG``/the locale; translate the help to match.

    A ``--lang`` we do not ship raises :class:`ValueError` (``--lang`` refuses it).
    """
    code = pick_language(explicit)
    set_language(code)
    localise_help(cli)
    return code


def _each_command(command: click.Command) -> list[click.Command]:
    out = [command]
    if isinstance(command, click.Group):
        for name in sorted(command.commands):
            out += _each_command(command.commands[name])
    return out


def localise_help(command: click.Command) -> None:
    """Show ``command``'s (and its subcommands') help and option texts in the current language.

    Help texts are English message ids in the code (command docstrings, literal
    ``help=`` texts, which ``i18n_tools`` extracts); the English is kept
    aside on first use so the language can change again (tests, ``--lang``).
    """
    for cmd in _each_command(command):
        if cmd.context_class is click.Context:
            cmd.context_class = _ZsyContext
        texts: list[tuple[object, str]] = [(cmd, "help"), (cmd, "epilog")]
        texts += [(param, "help") for param in cmd.params if isinstance(param, click.Option)]
        # click makes the --help option once per command and keeps it (its help text
        # is in the language of that moment); a later --lang must still reach it
        help_option = getattr(cmd, "_help_option", None)
        if isinstance(help_option, click.Option):
            help_option.__dict__.setdefault("_zsy_msgids", {"help": "Show this message and exit."})
            texts.append((help_option, "help"))
        for param in cmd.params:
            _localise_type(param.type)
            _localise_metavar(param)
        for obj, attr in texts:
            originals: dict[str, str | None] = obj.__dict__.setdefault("_zsy_msgids", {})
            msgid = originals.setdefault(attr, getattr(obj, attr, None))
            if msgid:
                setattr(obj, attr, _(help_msgid(msgid)))
        # click shortens the help for the command list at a '.' between words, which
        # Chinese has neither of: give it the first sentence in that language.
        originals = cmd.__dict__["_zsy_msgids"]
        short = originals.setdefault("short_help", cmd.short_help)
        cmd.short_help = short if short or not cmd.help else _first_sentence(cmd.help)
        # the usage line's placeholders: "Usage: zsy host [OPTIONS]", "COMMAND [ARGS]..."
        for attr in ("options_metavar", "subcommand_metavar"):
            english = originals.setdefault(attr, getattr(cmd, attr, None))
            if english in _USAGE_WORDS:
                setattr(cmd, attr, pgettext("click usage", english))


def _localise_metavar(param: click.Parameter) -> None:
    """An option's placeholder (``--relay URL``) in the current language, if it is one of ours."""
    originals: dict[str, str | None] = param.__dict__.setdefault("_zsy_msgids", {})
    english = originals.setdefault("metavar", param.metavar)
    if english in _METAVARS:
        param.metavar = pgettext("click metavar", english)


def _localise_type(kind: click.ParamType) -> None:
    """Name a value type in the current language (click names it once, in English).

    A path's kind (``file``, ``directory``, ``path``) is one of click's own
    messages, fixed when the option was made; number and text types are named in
    :data:`_TYPE_NAMES`. Types shared by many options (``click.INT``) are renamed
    once for all of them: a process shows one language.
    """
    originals: dict[str, str | None] = kind.__dict__.setdefault("_zsy_msgids", {})
    msgid = originals.setdefault("name", kind.name)
    if not msgid:
        return
    if isinstance(kind, click.Path):
        kind.name = _(msgid)
    elif msgid in _TYPE_NAMES:
        kind.name = pgettext("click type", msgid)


#: Columns a command's line in ``zsy --help`` leaves its short help (80 - 2 - 8 - 2 - 8).
_SHORT_HELP_COLUMNS = 60
_WIDE = frozenset("WF")


def _columns(text: str) -> int:
    """Terminal columns of ``text``: a Chinese character takes two (click counts one)."""
    return sum(2 if unicodedata.east_asian_width(ch) in _WIDE else 1 for ch in text)


def _first_sentence(text: str) -> str | None:
    """The first sentence of a translated help, shortened (``None``: let click shorten it).

    Click finds a sentence at ``". "`` and shortens at spaces, which Chinese has
    neither of: it would list ``tables`` with its whole paragraph, and a
    translation's line break would show as a space between two characters.
    """
    paragraph = text.strip().split("\n\n")[0]
    if not breaks_anywhere(paragraph):
        return None  # a language with spaces: click's own shortening is right
    lines = [line.strip() for line in paragraph.splitlines()]
    line = lines[0] if lines else ""
    for nxt in lines[1:]:
        wide_join = _columns(line[-1:]) == 2 or _columns(nxt[:1]) == 2
        line += nxt if wide_join else f" {nxt}"
    for stop in ("。", "！", "？"):
        if stop in line:
            line = line.partition(stop)[0] + stop
            break
    return _shorten(line, _SHORT_HELP_COLUMNS)


def _fill(text: str, width: int) -> list[str]:
    """``text`` in lines of at most ``width`` columns, breaking at spaces or between
    Chinese characters (never before a closing mark nor after an opening one); a
    longer Latin word stays whole, and so does a command in backquotes (`zsy plugins`)."""
    tokens: list[str] = []  # runs of spaces, Latin words, single Chinese characters
    code = False  # inside `...`: one token, spaces and all
    for ch in text:
        ch = " " if ch.isspace() else ch
        last = tokens[-1][-1] if tokens else ""
        if code and last:
            tokens[-1] += ch
        elif not last or _columns(ch) == 2 or _columns(last) == 2 or (ch == " ") != (last == " "):
            tokens.append(ch)
        else:
            tokens[-1] += ch
        code = code != (ch == "`")
    lines: list[str] = []
    line = ""
    space = ""
    for tok in tokens:
        if tok.startswith(" "):
            space = tok if line else ""
            continue
        candidate = line + space + tok
        space = ""
        if not line or _columns(candidate) <= width:
            line = candidate
        elif tok in NO_LINE_START:  # the character before it goes down with it
            cut = len(line) - 1
            while cut > 0 and line[cut] in NO_LINE_START:
                cut -= 1
            if cut > 0 and line[cut] == "`" and line.rfind("`", 0, cut) > 0:
                cut = line.rfind("`", 0, cut)  # a command in backquotes goes down whole
            elif cut > 0 and _columns(line[cut]) != 2:  # a Latin word goes down whole, with it
                while cut > 0 and _columns(line[cut - 1]) != 2 and line[cut - 1] != " ":
                    cut -= 1
            if cut > 0:
                lines.append(line[:cut].rstrip(" "))
                line = line[cut:] + tok
            else:  # a Latin word alone on its line: the mark stands out by its columns
                line = candidate
        elif line[-1] in NO_LINE_END and len(line) > 1:
            lines.append(line[:-1])
            line = line[-1] + tok
        else:
            lines.append(line)
            line = tok
    if line:
        lines.append(line)
    return lines


def _wrap_wide(text: str, width: int, indent: str = "") -> str:
    """Click's ``wrap_text(..., preserve_paragraphs=True)`` measuring terminal columns.

    Click counts a Chinese character as one column and breaks only at spaces: a
    Chinese help ran past the terminal's edge. Paragraphs are kept; one that
    starts with ``\\b`` is left as written.
    """
    out = []
    for block in text.expandtabs().split("\n\n"):
        lines = block.splitlines()
        if lines and lines[0].strip() == "\b":
            out.append("\n".join(indent + line for line in lines[1:]))
            continue
        lines = [line for line in lines if line.strip()]
        if not lines:
            continue
        extra = " " * (len(lines[0]) - len(lines[0].lstrip()))
        joined = lines[0].strip()
        for nxt in (line.strip() for line in lines[1:]):
            wide_join = _columns(joined[-1:]) == 2 or _columns(nxt[:1]) == 2
            joined += nxt if wide_join else f" {nxt}"
        filled = _fill(joined, max(width - len(indent) - len(extra), 10))
        out.append("\n".join(indent + extra + line for line in filled))
    return "\n\n".join(out)


_EXTRAS = re.compile(r"\[([^\[\]]*)\]$")


def _full_width_extras(text: str) -> str:
    """Click joins an option's ``[default: 0; 0<=x<=5]`` with ``"; "`` (no message to
    translate): in a Chinese help the parts are joined by ``；`` as the sentences are."""
    return _EXTRAS.sub(lambda m: "[" + m.group(1).replace("; ", "；") + "]", text)


class _WideHelpFormatter(click.HelpFormatter):
    """Click's help layout, wrapping Chinese by the columns it takes (see :func:`_wrap_wide`).

    Text without wide characters is left to click, unchanged.
    """

    def write_usage(self, prog: str, args: str = "", prefix: str | None = None) -> None:
        """``Usage: zsy host [OPTIONS]``; after a full-width colon (``用法：``) no space."""
        if prefix is None:
            word = _("Usage:")
            prefix = word if word.endswith("：") else f"{word} "
        super().write_usage(prog, args, prefix)

    def write_heading(self, heading: str) -> None:
        """``Options:``; a Chinese heading ends with the full-width colon (``选项：``)."""
        if not breaks_anywhere(heading):
            super().write_heading(heading)
            return
        self.write(f"{'':>{self.current_indent}}{heading}：\n")

    def write_text(self, text: str) -> None:
        """A paragraph of help (the command's own text)."""
        if not breaks_anywhere(text):
            super().write_text(text)
            return
        self.write(_wrap_wide(text, self.width, " " * self.current_indent))
        self.write("\n")

    def write_dl(
        self, rows: Sequence[tuple[str, str]], col_max: int = 30, col_spacing: int = 2
    ) -> None:
        """The options or the commands with their help (click's layout, wide-aware)."""
        rows = list(rows)
        if not any(breaks_anywhere(first + second) for first, second in rows):
            super().write_dl(rows, col_max, col_spacing)
            return
        # as click's, but measured in columns, and each help that holds Chinese is
        # wrapped by its columns (a translated placeholder: --rounds 整数)
        first_col = min(max((_columns(first) for first, _s in rows), default=0), col_max)
        first_col += col_spacing
        pad = " " * (first_col + self.current_indent)
        for first, second in rows:
            self.write(f"{'':>{self.current_indent}}{first}")
            if not second:
                self.write("\n")
                continue
            if _columns(first) <= first_col - col_spacing:
                self.write(" " * (first_col - _columns(first)))
            else:
                self.write("\n" + pad)
            text_width = max(self.width - first_col - 2, 10)
            if breaks_anywhere(second):
                second = _full_width_extras(second)
                lines = _wrap_wide(second, text_width).splitlines()
            else:
                lines = wrap_text(second, text_width, preserve_paragraphs=True).splitlines()
            self.write("\n".join([lines[0], *(pad + line for line in lines[1:])]) + "\n")


class _ZsyContext(click.Context):
    """Every ``zsy`` command's context: its help wraps Chinese by columns."""

    formatter_class = _WideHelpFormatter


def _shorten(text: str, columns: int) -> str:
    """``text`` cut to ``columns`` with ``…``, at a comma or bracket when one is near the end."""
    if _columns(text) <= columns:
        return text
    out = ""
    for ch in text:
        if _columns(out + ch) > columns - 2:  # room for the ellipsis
            break
        out += ch
    for mark in ("，", "；", "、", "（", "：", " "):
        cut = out.rfind(mark)
        if cut >= len(out) // 2:
            out = out[:cut]
            break
    return out.rstrip() + "…"


def _lang_option(ctx: click.Context, param: click.Parameter, value: str | None) -> None:
    if value is None:
        return
    try:
        choose_language(value)
    except ValueError:
        raise click.BadParameter(
            _("'{value}' is not a language we ship: choose one of {choices}.").format(
                value=value, choices=", ".join(LANGUAGES)
            ),
            ctx=ctx,
            param=param,
        ) from None


class _Zsy(click.Group):
    """The ``zsy`` group: picks the language before anything is shown, even ``--help``."""

    context_class = _ZsyContext

    def invoke(self, ctx: click.Context) -> object:
        """Run the command; Ctrl-C in one that does not handle it ends it in one line.

        Click said "Aborted!" (in English in every language) and exited 1; a table says
        its own "Bye (Ctrl-C)" and is not affected.
        """
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt:
            click.echo(err=True)  # the terminal's ^C is left on the line
            click.echo(_("Stopped (Ctrl-C)."), err=True)
            raise SystemExit(130) from None
        except PluginError as exc:
            # a rules plugin's bug: one sentence naming it, the traceback to the log only
            logging.getLogger(__name__).info("%s", exc, exc_info=exc.cause)
            click.echo(plugin_failed(exc), err=True)
            raise SystemExit(1) from None

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        args = lang_first(args)
        try:
            choose_language(_lang_in_args(args))
        except ValueError:
            choose_language()  # the --lang option itself reports the bad value
        return super().parse_args(ctx, args)


def _show_version(ctx: click.Context, param: click.Parameter, value: bool) -> None:
    """``zsy --version`` in the current language.

    Click's own ``version_option`` translates its sentence once, when the option is
    made (at import, before ``--lang`` is read): it would stay English.
    """
    del param
    if not value or ctx.resilient_parsing:
        return
    version = importlib.metadata.version("zsy-lan")
    click.echo(_("%(prog)s, version %(version)s") % {"prog": "zsy", "version": version})
    ctx.exit()


@click.group(cls=_Zsy, context_settings={"help_option_names": ["-h", "--help"]})
@click.option(
    "--version",
    is_flag=True,
    expose_value=False,
    is_eager=True,
    callback=_show_version,
    help="Show the version and exit.",
)
@click.option(
    "--lang",
    metavar="|".join(LANGUAGES),
    expose_value=False,
    is_eager=True,
    callback=_lang_option,
    help="The game's language: en, zh, de or es (default: ZSY_LANG, else the locale).",
)
def cli() -> None:
    """Zheng Shangyou (争上游) and Dou Dizhu in the terminal, peer to peer on a LAN."""


cli.add_command(moves)
cli.add_command(selfplay)
cli.add_command(play)
cli.add_command(bot)
cli.add_command(plugins)
cli.add_command(rules_cmd)
cli.add_command(history)
cli.add_command(relay)
cli.add_command(watch)
for _cmd in (host, join, tables, replay, demo):
    cli.add_command(_cmd)


def main() -> None:
    """Console-script entry point."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            with contextlib.suppress(ValueError, OSError):
                reconfigure(errors="replace")
    cli()
