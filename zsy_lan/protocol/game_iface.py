"""What the replica needs from a game: the engine adapts its match to this.

The replica knows nothing about cards. It asks the game who may act now,
whether a round needs shared randomness, and whether an action is legal; the
order of the transcript follows from these answers alone, so every replica
that applied the same transcript asks the same questions and gets the same
answers. All methods must be deterministic functions of the applied history.

Simultaneous phases (``actors()`` returns several seats): every listed seat
submits one action against the same public state, and the replica applies
them in seat order once all are in. The game must therefore accept those
actions in seat order no matter which arrived first.

Blame needs proof (docs/protocol.md, "Blame"). :meth:`GameMachine.check` is
the only place a signed message can prove its author broke a rule, so what it
raises is typed: an exception that is an instance of the game's
``violations`` (:func:`violation_types`) proves the author broke a rule or the
deal, and the ledger names the author with the frame as evidence. Anything
else (a bug in a rules plugin, a programming error) is a *local fault*: every
honest replica would hit the same bug on the same frame, so it proves nothing
about the author. The ledger stops this replica with a sentence that names the
bug (:func:`describe_fault`) and keeps the traceback for the log; the table
sees this seat drop, and nobody is called a cheater.
"""

from __future__ import annotations

import os
import traceback
from typing import Any, Protocol, runtime_checkable

from zsy_lan.engine.errors import EngineError, PluginError

__all__ = [
    "DEFAULT_VIOLATIONS",
    "GameMachine",
    "TableGame",
    "VoidableGame",
    "can_void",
    "describe_fault",
    "fault_traceback",
    "is_violation",
    "violation_types",
]

#: What ``check`` raises for an illegal or malformed action when a game does not
#: say otherwise: the engine's typed errors (``RuleError``, ``ParseError``...) and
#: ``ValueError``, the plain contract of a small game written without the engine.
DEFAULT_VIOLATIONS: tuple[type[BaseException], ...] = (EngineError, ValueError)


@runtime_checkable
class GameMachine(Protocol):
    def actors(self) -> tuple[int, ...]:
        """Seats the game waits on now (one, or several in a simultaneous phase); () when over."""
        ...

    def needs_seed(self) -> bool:
        """True when a new round must be dealt from shared randomness."""
        ...

    def start_round(self, seed: bytes) -> None:
        """Deal from the combined 32-byte seed."""
        ...

    def check(self, seat: int, action: dict[str, Any]) -> None:
        """Raise with a message naming the rule if ``action`` by ``seat`` is illegal now.

        Raise only an instance of :func:`violation_types` for that: any other
        exception is taken as a bug of this replica (a local fault), not as
        the author's doing.
        """
        ...

    def apply(self, seat: int, action: dict[str, Any]) -> None:
        """Apply an action that :meth:`check` accepted."""
        ...

    def public_hash(self) -> str:
        """Hex SHA-256 of the public state; must cover everything ``actors`` depends on."""
        ...

    def finished(self) -> bool:
        """True when the match is over."""
        ...


@runtime_checkable
class VoidableGame(Protocol):
    """Optional: a game whose current round the table can vote void (motions, ``void``).

    The replica only moves or joins a ``void`` motion when the game has both
    methods; without them it refuses to vote and says so. Both must be
    deterministic functions of the applied history, like the rest.
    """

    def can_void_round(self) -> bool:
        """True when :meth:`void_round` may be called now (a round is in progress).

        Asked at the position where the table waits on the seat voted about; a
        motion carried where this says False is ``refused`` and changes nothing.
        """
        ...

    def void_round(self, seat: int, reason: str) -> None:
        """End the current round with no result because ``seat`` withheld what it owed.

        Nothing from earlier rounds is lost (results, totals, titles, tribute
        duties they set). The round counts for nothing: afterwards the game
        must be waiting for the next round's seed (``needs_seed()`` True) or be
        over, and ``public_hash()`` must differ from before (it should record
        the void, e.g. the round number and ``seat``). Every message signed on
        the voided state is skipped by the ledger, so the game must not need them.
        """
        ...


class TableGame(GameMachine, VoidableGame, Protocol):
    """The one game surface the shell holds: the open deal (``zsy_lan.engine.game.Game``)
    and the private deal (``zsy_lan.deal.private_game.PrivateGame``) both implement it.

    The seated peer, its narration and seat holding, the spectator desk, the
    record's replay and retelling and the UI ask these questions and never which
    kind of deal they hold (tests/test_layers.py fails on an ``isinstance`` of
    the private deal outside its module). Where the answers differ, the
    difference is the deal's: the open deal owes no step of its own, has no
    notes, and lets a bot hold any seat.
    """

    #: no replica knows another seat's hand (the private deal): the record is told
    #: from what the audits opened, and the seat owes steps it signs by itself
    hidden_hands: bool
    #: the rounds that count for nothing (a table vote, an audit's finding)
    voids: list[Any]

    def prepare(self, action: dict[str, Any]) -> dict[str, Any]:
        """This seat's move as the feed action to sign (the private deal adds its keys)."""
        ...

    def local_action(self) -> dict[str, Any] | None:
        """A message this seat owes by itself, no choice (a private deal step), or None."""
        ...

    def wants_decision(self) -> bool:
        """True when what this seat may do now is a choice (a bot's or the player's)."""
        ...

    def decision_seats(self) -> tuple[int, ...]:
        """Seats whose choice the game waits for (the UI's "whose turn")."""
        ...

    def may(self, seat: int) -> Any:
        """What ``seat`` may do now: ``zsy_lan.engine.choices.Options`` (turn, legal moves,
        what a pass or a set of cards means)."""
        ...

    def engine_action(self, seat: int, action: dict[str, Any]) -> Any:
        """The engine action in a feed action as this seat may know it, or None (a deal step)."""
        ...

    def withholding(self, seat: int, gone: bool) -> bool:
        """True when what the table waits for from ``seat`` only that seat can give."""
        ...

    def holder_view(self, seat: int) -> Any:
        """The view a bot holding absent ``seat`` plays from, or None (nobody else knows it)."""
        ...

    def owed(self, seat: int) -> str | None:
        """What ``seat`` owes now, as an English message id for the narration, or None."""
        ...

    def pop_notes(self) -> list[str]:
        """Things to tell the player since the last call (deal done, audit verdicts)."""
        ...


def can_void(game: object) -> bool:
    """True when ``game`` implements the optional :class:`VoidableGame` methods."""
    return callable(getattr(game, "void_round", None)) and callable(
        getattr(game, "can_void_round", None)
    )


def violation_types(game: object) -> tuple[type[BaseException], ...]:
    """The exception types whose instances, raised by ``game.check``, prove a violation.

    A game names them in a ``violations`` attribute (a tuple of exception
    classes); without one, :data:`DEFAULT_VIOLATIONS`. A game backed by the
    engine should leave out ``ValueError`` (a plugin bug raises it as easily as
    a cheat) and use the engine's typed errors only.
    """
    own = getattr(game, "violations", None)
    if isinstance(own, tuple) and own and all(isinstance(t, type) for t in own):
        return own
    return DEFAULT_VIOLATIONS


def is_violation(game: object, exc: BaseException) -> bool:
    """True when ``exc`` (raised by ``game.check``) proves its author broke a rule."""
    return isinstance(exc, violation_types(game))


# Code that only passes a call on: the fault is named after the first frame outside these.
_PASS_THROUGH = (
    "pluggy",
    "zsy_lan.engine",
    "engine.",
    "zsy_lan.protocol",
    "zsy_lan.deal.private_game",
)


def describe_fault(exc: BaseException) -> str:
    """One sentence naming a local bug: the exception and where it was raised.

    The place is the innermost frame outside the engine, pluggy and the
    protocol, which is where a rules plugin's hook is; when that frame's module
    declares a plugin ``name`` (and ``version``) it is named as a plugin.
    Deterministic text, no paths beyond the file's base name (a log has the
    full traceback: :func:`fault_traceback`).
    """
    if isinstance(exc, PluginError):
        # the engine knows whose hook it was (plugin_guard): the hook's own exception says
        # where; the plugin is named even when its frame's module declares no name
        said = describe_fault(exc.cause)
        if f"rules plugin '{exc.plugin}'" in said:
            return said
        cause = exc.cause
        what = f"{type(cause).__name__}: {cause}" if str(cause) else type(cause).__name__
        frames = traceback.extract_tb(cause.__traceback__) if cause.__traceback__ else []
        last = frames[-1] if frames else None
        place = f"{os.path.basename(last.filename)} line {last.lineno}, " if last else ""
        return f"{what} in rules plugin '{exc.plugin}' ({place}in its {exc.hook})"
    what = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
    frames = traceback.extract_tb(exc.__traceback__) if exc.__traceback__ else []
    tb = exc.__traceback__
    modules: list[tuple[str, dict[str, Any]]] = []
    while tb is not None:
        glb = tb.tb_frame.f_globals
        modules.append((str(glb.get("__name__", "")), glb))
        tb = tb.tb_next
    where = ""
    for frame, (module, glb) in zip(reversed(frames), reversed(modules), strict=False):
        if module.startswith(_PASS_THROUGH) or module == "engine":
            continue
        place = f"{os.path.basename(frame.filename)} line {frame.lineno}, in {frame.name}"
        name, version = glb.get("name"), glb.get("version")
        if isinstance(name, str) and isinstance(version, str):
            where = f" in rules plugin '{name}' {version} ({place})"
        else:
            where = f" in {module or 'unknown code'} ({place})"
        break
    if not where and frames:
        last = frames[-1]
        where = f" ({os.path.basename(last.filename)} line {last.lineno}, in {last.name})"
    return f"{what}{where}"


def fault_traceback(exc: BaseException) -> str:
    """The full traceback of a local fault, for the log (never for another peer)."""
    return "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
