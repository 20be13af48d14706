"""The ``zsy`` command: one click group; each family of commands in its own module."""

from __future__ import annotations

import contextlib
import importlib.metadata
import sys

try:  # Ctrl-C while the program loads (about a second): leave as quietly as Ctrl-C later
    import click

    from ..i18n import (
        LANGUAGES,
        NP_,
        _,
        help_msgid,
        pgettext,
        pick_language,
        serve_gettext_of,
        set_language,
    )
    from .bot_cmds import bot
    from .engine_cmds import moves, play, selfplay
    from .history_cmds import history
    from .net_cmds import demo, host, join, replay, tables
    from .plugin_cmds import plugins, rules_cmd
    from .relay_cmds import relay
    from .watch_cmds import watch
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
    ``help=`` texts, which ``zsy_lan.i18n_tools`` extracts); the English is kept
    aside on first use so the language can change again (tests, ``--lang``).
    """
    for cmd in _each_command(command):
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


def _first_sentence(text: str) -> str | None:
    """The first sentence of a translated help (``None``: let click shorten it)."""
    line = text.strip().split("\n\n")[0].replace("\n", " ")
    for stop in ("。", "！", "？"):
        if stop in line:
            return line.partition(stop)[0] + stop
    return None


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
