"""Table settings: what the host decides for every seat alike (issue #15).

A small typed record: the table clock (seconds per turn, or none), whether
the hint and the card counter are available, and whether the table is by
invitation. The host sets it (``zsy host --turn-timer ... --no-hints
--no-counter --invite``); it travels in the lobby's signed ``welcome`` and
``roster``, so every seat learns the same settings before the first deal;
it is saved with the roster (resume) and written in the transcript header
(``zsy replay``); mDNS carries the clock, the assists and the invite flag
(never the invitation secret).

Why not in the engine's ruleset id: these are not rules of the game. The
same ruleset is played with or without a clock or hints, and the engine
(pure, deterministic) never reads a clock. Keeping them out also keeps old
records and every ruleset id unchanged. Every value is an int or a bool:
nothing here is a float, so the canonical JSON of a roster stays exact.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from zsy_lan.text.i18n import N_, _, ngettext, pgettext

__all__ = [
    "CLOCK_MAX",
    "CLOCK_MIN",
    "CLOCK_PRESETS",
    "INVITE_REFUSAL",
    "TableSettings",
    "clock_problem",
    "clock_words",
    "parse_clock",
    "phrase_separator",
    "settings_line",
    "settings_words",
]

#: ``--turn-timer`` names: seconds per turn (``off``: no clock, which friends often want).
CLOCK_PRESETS: dict[str, int | None] = {"off": None, "fast": 15, "normal": 30, "slow": 60}
CLOCK_MIN = 3
CLOCK_MAX = 600

#: The one sentence a join without (or with a wrong) invitation gets; the lobby
#: sends it as the refusal reason and ``zsy join NAME`` says it before trying.
#: Marked for extraction where it is defined, translated where it is shown.
INVITE_REFUSAL = N_("this table is by invitation: ask the host for the join URL")


def clock_problem(seconds: object) -> str | None:
    """Why ``seconds`` is not a table clock (``None``: it is one, or ``None`` for no clock)."""
    if seconds is None:
        return None
    if not isinstance(seconds, int) or isinstance(seconds, bool):
        return "the table clock must be a whole number of seconds"
    if not CLOCK_MIN <= seconds <= CLOCK_MAX:
        return f"the table clock must be {CLOCK_MIN} to {CLOCK_MAX} seconds"
    return None


def parse_clock(value: str) -> int | None:
    """``--turn-timer``: a preset name or a whole number of seconds (3 to 600).

    Raises ``ValueError`` with one sentence saying what is accepted.
    """
    text = value.strip().lower()
    if text in CLOCK_PRESETS:
        return CLOCK_PRESETS[text]
    try:
        seconds = float(text)
    except ValueError:
        seconds = -1.0
    if not CLOCK_MIN <= seconds <= CLOCK_MAX:
        raise ValueError(
            _(
                "'{value}' is not off, fast, normal, slow or a number of seconds from 3 to 600"
            ).format(value=value)
        )
    return round(seconds)


@dataclass(frozen=True)
class TableSettings:
    """What the host set for every seat: ``clock`` seconds per turn (``None``: none),
    ``hints`` and ``counter`` available or not, ``invite`` required or not."""

    clock: int | None = None
    hints: bool = True
    counter: bool = True
    invite: bool = False

    @property
    def is_default(self) -> bool:
        """No clock, every assist on, open to anyone: what a table without settings had."""
        return self == TableSettings()

    def to_json(self) -> dict[str, Any]:
        """The canonical form carried in the welcome and the roster (ints and bools only)."""
        return {
            "clock": self.clock if self.clock is not None else 0,
            "hints": self.hints,
            "counter": self.counter,
            "invite": self.invite,
        }

    @classmethod
    def from_json(cls, data: object) -> TableSettings:
        """Parse the host's settings; ``ValueError`` saying what is malformed.

        ``None`` (a roster from before settings existed) is the defaults.
        """
        if data is None:
            return cls()
        if not isinstance(data, Mapping):
            raise ValueError("the table settings are not an object")
        clock = data.get("clock", 0)
        if clock == 0 and not isinstance(clock, bool):
            clock = None
        problem = clock_problem(clock)
        if problem is not None:
            raise ValueError(problem)
        flags = {}
        for key, default in (("hints", True), ("counter", True), ("invite", False)):
            value = data.get(key, default)
            if not isinstance(value, bool):
                raise ValueError(f"the table setting {key!r} must be true or false")
            flags[key] = value
        return cls(clock, flags["hints"], flags["counter"], flags["invite"])

    def to_txt(self) -> dict[str, str]:
        """The mDNS TXT items: ``clock`` (seconds), ``assists`` and ``invite`` (a flag only).

        Absent items mean the defaults, so an old host's record reads as
        "no clock, every assist, open".
        """
        out: dict[str, str] = {}
        if self.clock is not None:
            out["clock"] = str(self.clock)
        if not (self.hints and self.counter):
            on = [name for name, flag in (("hints", self.hints), ("counter", self.counter)) if flag]
            out["assists"] = ",".join(on) or "none"
        if self.invite:
            out["invite"] = "1"
        return out

    @classmethod
    def from_txt(cls, props: Mapping[str, str]) -> TableSettings:
        """Read the TXT items of :meth:`to_txt` (untrusted: anything odd is the default)."""
        clock: int | None = None
        raw = props.get("clock", "")
        if raw.isdigit() and clock_problem(int(raw)) is None:
            clock = int(raw)
        assists = props.get("assists")
        on = set(assists.split(",")) if assists is not None else {"hints", "counter"}
        return cls(clock, "hints" in on, "counter" in on, props.get("invite") == "1")


def settings_words(settings: TableSettings) -> list[str]:
    """The settings as short phrases for one line (``zsy tables``, the table header)."""
    out = [clock_words(settings.clock) if settings.clock is not None else _("no table clock")]
    if settings.hints and settings.counter:
        out.append(_("hints and card counter on"))
    elif settings.hints:
        out.append(_("hints on, card counter off"))
    elif settings.counter:
        out.append(_("hints off, card counter on"))
    else:
        out.append(_("hints and card counter off"))
    if settings.invite:
        out.append(_("invite only"))
    return out


def clock_words(seconds: int) -> str:
    """``table clock 30 seconds per turn`` in the player's language."""
    return ngettext(
        "table clock {s} second per turn", "table clock {s} seconds per turn", seconds
    ).format(s=seconds)


def phrase_separator() -> str:
    """What stands between the short phrases of one line, in the player's language
    (Chinese writes a full-width semicolon; a bare ``"; "`` there reads as a typo)."""
    # TRANSLATORS: between short phrases: "table clock 30 seconds per turn; invite only"
    return pgettext("between phrases", "; ")


def settings_line(settings: TableSettings) -> str:
    """The table header's line: the same settings for every seat, set by the host."""
    return _("Set by the host for everyone: {settings}").format(
        settings=phrase_separator().join(settings_words(settings))
    )
