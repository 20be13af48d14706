"""The JSON-lines bot protocol: one observation per line in, one action per line out.

Why JSON lines: a bot in any language only needs to read a line, parse JSON
and print a line. The observation carries the seat's *view* (never another
seat's cards), the legal actions, and the table's rules as ``players``,
``variants`` and ``options`` (what ``build_rules`` takes) plus the ruleset id
to check against. The exact schema is documented in ``docs/bots.md``; this
module is its one implementation, used by ``zsy bot --stdio`` (decoding) and
by :class:`~zsy_lan.bots.external.ExternalBot` (encoding).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from zsy_lan.bots.base import Observation
from zsy_lan.engine.cards import card_str
from zsy_lan.engine.errors import ConfigError
from zsy_lan.engine.rules import Rules
from zsy_lan.engine.ruleset import build_rules, ruleset_id
from zsy_lan.engine.state import Action, RoundState, round_from_json, round_to_json
from zsy_lan.engine.view import view as view_of

PROTOCOL_VERSION = 1
DEFAULT_GAME = "zsy"


class WireError(ValueError):
    """A malformed observation or answer; the message says what is wrong."""


def table_of(rules: Rules) -> tuple[int, list[str], dict[str, Any]]:
    """``(players, variants, options)`` that rebuild ``rules`` with ``build_rules``.

    Taken from the ruleset's canonical config: every enabled plugin, and each
    resolved option spelled ``plugin.name`` so it is never ambiguous.
    """
    config = rules.config
    plugins = [p[0] for p in config.get("plugins", []) if isinstance(p, (list, tuple))]
    variants = [p for p in plugins if p != DEFAULT_GAME]  # the default game is implied
    options: dict[str, Any] = {}
    for plugin, opts in sorted(config.get("options", {}).items()):
        if isinstance(opts, Mapping):
            for name, value in sorted(opts.items()):
                options[f"{plugin}.{name}"] = value
    return rules.players, variants, options


def action_text(action: Action) -> str:
    """A short human form of an action, for logs and for bots that print."""
    if action.cards:
        return f"{action.kind} " + " ".join(card_str(c, ascii_suits=True) for c in action.cards)
    if action.value:
        return f"{action.kind} {action.value}"
    return action.kind


def encode_observation(obs: Observation, request_id: int | None = None) -> dict[str, Any]:
    """The JSON object sent to an external bot for one decision."""
    players, variants, options = table_of(obs.rules)
    view = view_of(obs.view, obs.seat)  # never send another seat's cards
    out: dict[str, Any] = {
        "type": "observation",
        "protocol": PROTOCOL_VERSION,
        "seat": obs.seat,
        "players": players,
        "variants": list(obs.variants) or variants,
        "options": dict(obs.options) or options,
        "ruleset": ruleset_id(obs.rules),
        "phase": view.phase,
        "hand": list(view.hands[obs.seat] or ()),
        "view": round_to_json(view, log=True),
        "legal": [a.to_json() for a in obs.legal],
        "legal_text": [action_text(a) for a in obs.legal],
    }
    if request_id is not None:
        out["id"] = request_id
    return out


@lru_cache(maxsize=32)
def _rules_cached(players: int, variants: tuple[str, ...], options_json: str) -> Rules:
    return build_rules(players, list(variants), json.loads(options_json))


def decode_observation(data: Any) -> Observation:
    """Parse an observation object (as sent by :func:`encode_observation`).

    Raises :class:`WireError` naming the first problem. The view is re-masked
    to the seat, so a sender that leaked other hands still leaks nothing here.
    """
    if not isinstance(data, dict):
        raise WireError("an observation is a JSON object")
    if data.get("type", "observation") != "observation":
        raise WireError(f"unknown message type {data.get('type')!r} (expected 'observation')")
    seat = data.get("seat")
    players = data.get("players")
    if not isinstance(players, int) or isinstance(players, bool):
        raise WireError("'players' must be an integer")
    if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < players:
        raise WireError(f"'seat' must be an integer 0..{players - 1}")
    variants = data.get("variants", [])
    options = data.get("options", {})
    if not isinstance(variants, list) or not all(isinstance(v, str) for v in variants):
        raise WireError("'variants' must be a list of plugin names")
    if not isinstance(options, dict):
        raise WireError("'options' must be an object")
    try:
        rules = _rules_cached(players, tuple(variants), json.dumps(options, sort_keys=True))
    except ConfigError as exc:
        raise WireError(f"bad table: {exc}") from exc
    expected = data.get("ruleset")
    if expected is not None and expected != ruleset_id(rules):
        raise WireError(
            f"ruleset id {expected} does not match these variants/options ({ruleset_id(rules)})"
        )
    raw_view = data.get("view")
    if not isinstance(raw_view, dict):
        raise WireError("'view' must be an object (the round state as the seat sees it)")
    try:
        state = round_from_json(raw_view)
    except (TypeError, ValueError, KeyError) as exc:
        raise WireError(f"bad view: {exc}") from exc
    if state.players != players:
        raise WireError(f"the view has {state.players} players, the table {players}")
    state = view_of(state, seat)
    legal_raw = data.get("legal")
    if legal_raw is None:
        from zsy_lan.engine.round import legal_actions

        legal = tuple(legal_actions(rules, state, seat))
    else:
        if not isinstance(legal_raw, list):
            raise WireError("'legal' must be a list of actions")
        try:
            legal = tuple(Action.from_json(a) for a in legal_raw)
        except ValueError as exc:
            raise WireError(f"bad legal action: {exc}") from exc
    if not legal:
        raise WireError(f"seat {seat} has no legal action in this observation")
    return Observation(rules, state, seat, legal, tuple(variants), dict(options))


def view_state(obs: Observation) -> RoundState:
    """The observation's view (for callers that hold only the wire form)."""
    return obs.view


def encode_action(action: Action, request_id: Any = None) -> dict[str, Any]:
    """The JSON answer for an action (``id`` echoed when the observation had one)."""
    out = action.to_json()
    if request_id is not None:
        out["id"] = request_id
    return out


def decode_action(data: Any) -> tuple[Action, Any]:
    """``(action, id or None)`` from an answer object; raises :class:`WireError`."""
    if not isinstance(data, dict):
        raise WireError("an answer is a JSON object like {\"kind\": \"pass\", \"seat\": 1}")
    if "error" in data:
        raise WireError(f"the bot reported an error: {data['error']}")
    body = dict(data)
    rid = body.pop("id", None)
    try:
        return Action.from_json(body), rid
    except ValueError as exc:
        raise WireError(str(exc)) from exc
