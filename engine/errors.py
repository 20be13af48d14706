"""The engine's error taxonomy: malformed input versus a broken rule.

Every illegal action raises :class:`RuleError` carrying the RULES.md id it
breaks (``ZSY-4.1``), so the UI, the network layer and tests can all name it.
"""

from __future__ import annotations

from collections.abc import Mapping


class EngineError(Exception):
    """Base of every error the engine raises on purpose."""


class ParseError(EngineError, ValueError):
    """Text that is not a card or a play; ``token`` is the offending piece."""

    def __init__(self, message: str, token: str = "") -> None:
        super().__init__(message)
        self.token = token


class MalformedAction(EngineError, ValueError):
    """An action that is not well-formed JSON for the engine (a field missing, a bad type).

    Typed so the network layer can tell a signed malformed action (proof
    against its author) from a bug (a plain ``ValueError`` in a plugin).
    """


class RuleError(EngineError):
    """An action that breaks a rule; ``rule`` is its RULES.md id."""

    def __init__(self, rule: str, message: str) -> None:
        super().__init__(f"{message} ({rule})")
        self.rule = rule
        self.reason = message

    def cited(self, rule_ids: Mapping[str, str]) -> RuleError:
        """This refusal citing the table's own id for its rule (a plugin's ``zsy_rule_ids``:
        a Big Two table says B2-3.2 where the engine says ZSY-4.1); itself when unchanged."""
        own = rule_ids.get(self.rule)
        if own is None or own == self.rule:
            return self
        return RuleError(own, self.reason)


class ConfigError(EngineError, ValueError):
    """A table configuration that cannot be played (bad option, player count...)."""


class PluginError(Exception):
    """A rules plugin's code raised: one sentence naming the plugin and its hook.

    Deliberately *not* an :class:`EngineError` nor a ``ValueError``: a bug in a
    plugin proves nothing about the player whose move it was checking, so the
    network layer reads it as this seat's local fault, never as a cheat. The
    original exception is ``__cause__`` (its traceback goes to the log only).
    """

    def __init__(self, plugin: str, hook: str, exc: BaseException) -> None:
        text = str(exc).strip().splitlines()[0][:200] if str(exc).strip() else ""
        what = f"{type(exc).__name__}: {text}" if text else type(exc).__name__
        super().__init__(f"rules plugin '{plugin}' failed in its {hook}: {what}")
        self.plugin = plugin
        self.hook = hook
        self.cause = exc
