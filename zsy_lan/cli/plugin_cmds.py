"""Plugin commands: ``zsy plugins`` (what is installed) and ``zsy rules`` (what is in effect)."""

from __future__ import annotations

import json
from typing import Any

import click

from zsy_lan.cli.options import make_rules, rules_options
from zsy_lan.engine.cards import card_str
from zsy_lan.engine.rules import Rules
from zsy_lan.engine.ruleset import installed, player_counts, ruleset_id
from zsy_lan.text.engine_text import translate as engine_said
from zsy_lan.text.i18n import N_, _
from zsy_lan.text.sanitize import clean

#: The built-in plugins' descriptions and option help, marked for extraction: the
#: plugins cannot import zsy_lan.text.i18n, so ``zsy plugins`` translates them from here
#: (tests/i18n checks the list is complete). A third-party plugin's text stays as written.
BUILTIN_PLUGIN_TEXTS: tuple[str, ...] = (
    # big-two
    N_("Big Two (锄大地 / 大老二): 52 cards, every card ranked, 3♦ leads, B2-1..4"),
    N_("B2-1.1 D: three players, 17 each, the 52nd card to the holder of 3♦"),
    N_("B2-2.1 D: from the second deal the previous winner leads freely"),
    N_("B2-3.4 D: flushes compare by suit first, then by their highest card"),
    N_("B2-4.2 D: a loser still holding any 2 pays double again"),
    # doubled-tribute
    N_("ZSY-9.2: the main tribute is three cards each way"),
    # doudizhu
    N_("Dou Dizhu (斗地主): bidding, kitty, landlord against farmers, DDZ-1..6"),
    N_("DDZ-2.4: the kitty is shown to everyone when taken"),
    N_("DDZ-6.2: after the kitty each farmer may double, then the landlord redouble"),
    N_("DDZ-5.3: a match is a multiple of this many hands (1: any number)"),
    # guandan
    N_("Guandan (掼蛋): two decks, fixed teams, levels 2..A, wild ♥ level cards, GD-1..6"),
    N_("GD-5.2 D: after 3 failed attempts at A the team drops to 2"),
    N_("GD-6: tribute from the second deal"),
    # house-rules
    N_("Seed 004 house rules (ZSY-9.6): chains, bombs, wrap straights, revolution..."),
    N_("ZSY-9.6: two or more consecutive pairs, e.g. 5 5 6 6"),
    N_("ZSY-9.6: two or more consecutive triples, e.g. 5 5 5 6 6 6"),
    N_("ZSY-9.6: a triple with a single, compared by the triple"),
    N_("ZSY-9.6: three of a kind is a bomb"),
    N_("ZSY-9.6: A-2-3-4-5 highest, then 2-3-4-5-6, then 10-J-Q-K-A"),
    N_("ZSY-9.6: a straight of one suit is its own combination; a higher one or a bomb beats it"),
    N_("ZSY-9.6: equal straights: the higher suit of the top card wins"),
    N_("ZSY-9.6: Downstream gives their highest card; Upstream offers two, one comes back"),
    N_("ZSY-9.6: 3♥ is the start card of the first round"),
    N_("ZSY-9.6: 4 players with 52 cards (jokers removed)"),
    N_("ZSY-9.6: four of a kind reverses the rank order (no bombs)"),
    # no-tribute
    N_("ZSY-9.3: no tribute exchange between rounds"),
    # partnerships
    N_("ZSY-9.1 partnerships: alternating-seat teams with 4 or 6 players"),
    # zsy
    N_("Zheng Shangyou (争上游), the base game: 3-6 players, tribute, ZSY-1..8"),
    N_("ZSY-8: ranking (rounds as Upstream), penalty (seeds 000/001) or cardcount (seed 004)"),
    N_("ZSY-3.3 D: a 2 may end a straight (J Q K A 2)"),
    N_(
        "ZSY-2.1: the card whose holder leads round 1: the lowest dealt (3♦, 3♥ with 3 players), "
        "3C or 3H"
    ),
    N_("ZSY-7.2 option: with 5-6 players the 2nd and 2nd-to-last also exchange one card"),
)


def plugins_data() -> list[dict[str, Any]]:
    """Every installed plugin as plain data (the ``--json`` output)."""
    reg = installed()
    out = []
    for name in reg.names():
        info = reg.plugins[name]
        out.append(
            {
                "name": name,
                "version": info.version,
                "kind": "game" if info.game else "modifier",
                "description": info.description,
                "source": info.source,
                "options": [
                    {
                        "name": o.name,
                        "type": o.type,
                        "default": o.default,
                        "help": o.help,
                        **({"choices": list(o.choices)} if o.choices else {}),
                        **({"min": o.min} if o.min is not None else {}),
                        **({"max": o.max} if o.max is not None else {}),
                    }
                    for o in info.options
                ],
                "problem": info.problem,
                "after": list(info.after),
                **dict(zip(("players", "default_players"), player_counts(info), strict=True)),
            }
        )
    return out


@click.command()
@click.option("--json", "as_json", is_flag=True, help="Print the list as JSON.")
def plugins(as_json: bool) -> None:
    """List installed rule plugins (built-in and third-party alike) and their options."""
    data = plugins_data()
    if as_json:
        click.echo(json.dumps({"plugins": data}, ensure_ascii=False, indent=2))
        return
    for p in data:
        if p["problem"]:
            # a broken plugin: its name, why, where from; nothing it declares is trusted
            # (its name, reason and source come from the plugin's package: cleaned)
            click.echo(_("{name}: broken, left out of every table").format(name=clean(p["name"])))
            click.echo("    " + engine_said(clean(p["problem"])))
            click.echo("    " + _("from {source}").format(source=clean(p["source"])))
            continue
        if p["kind"] == "game":
            head = _("{name} {version} (game) - {description}")
        else:
            head = _("{name} {version} (modifier) - {description}")
        # a built-in plugin's description is translated if a catalogue has it
        description = _(p["description"]) if p["description"] else ""
        click.echo(head.format(name=p["name"], version=p["version"], description=description))
        click.echo("    " + _("from {source}").format(source=p["source"]))
        if p["players"] is not None or p["default_players"] is not None:
            counts = ", ".join(map(str, p["players"])) if p["players"] else _("any")
            line = _("players: {counts}").format(counts=counts)
            if p["default_players"] is not None:
                line += " " + _("(default {n})").format(n=p["default_players"])
            click.echo("    " + line)
        if p["after"]:  # its declared order: where it and those differ, its answers win
            click.echo("    " + _("comes after: {names} (where they differ, its rules win)").format(
                names=", ".join(clean(a) for a in p["after"])
            ))
        for o in p["options"]:
            default = str(o["default"]).lower() if isinstance(o["default"], bool) else o["default"]
            kind = o["type"]
            if o.get("choices"):
                kind = "|".join(o["choices"])
            elif "min" in o or "max" in o:
                kind = f"int {o.get('min', '')}..{o.get('max', '')}"
            line = _("--option {name}=<{kind}> (default {default}): {help}").format(
                name=o["name"], kind=kind, default=default, help=_(o["help"]) if o["help"] else ""
            )
            click.echo("    " + line)
    click.echo(
        _(
            "Enable with --variant NAME; set options with --option NAME=VALUE "
            "(or PLUGIN.NAME=VALUE)."
        )
    )


def describe_rules(rules: Rules) -> dict[str, Any]:
    """The rules in effect as plain data (what ``zsy rules`` prints)."""
    cfg = rules.config
    if rules.deal_lead is not None:
        first = "decided by a plugin for every deal (zsy_deal_lead)"
    elif rules.start_card_lead:
        first = f"the holder of {card_str(rules.lowest_card)} leads with it (ZSY-2.1)"
    else:
        first = "decided by the game (bidding: the landlord leads)"
    if rules.tribute_duties is None and not rules.tribute:
        tribute = "none"
    else:
        tribute = f"{rules.tribute_cards} card(s)" if rules.tribute else "none"
        if rules.tribute and rules.second_tribute:
            tribute += " + second tribute of 1"
    return {
        "ruleset_id": ruleset_id(rules),
        "game": cfg.get("game"),
        "players": rules.players,
        "plugins": cfg.get("plugins", []),
        "options": cfg.get("options", {}),
        "deck": {"cards": len(rules.deck), "decks": rules.decks},
        "hand_sizes": list(rules.hand_sizes()),
        "kitty": rules.kitty_size,
        "combinations": [k.name for k in rules.kinds],
        "bombs": [k.name for k in rules.bomb_kinds],
        "first_lead": first,
        "tribute": tribute,
        "teams": None if rules.teams is None else [list(t) for t in rules.teams],
        "rule_ids": dict(sorted(rules.rule_ids.items())),
        "phases": sorted(rules.phase_handlers or ()),
        "scoring": (
            rules.scoring + (" (team results)" if rules.teams else "")
            if cfg.get("game", "zsy") == "zsy"
            else "the game's own"
        ),
    }


@click.command(name="rules")
@rules_options()
@click.option("--json", "as_json", is_flag=True, help="Print the rules as JSON.")
def rules_cmd(
    players: int | None, variants: tuple[str, ...], options: tuple[str, ...], as_json: bool
) -> None:
    """Show the rules in effect for a table as a player reads them, with the rule ids.

    Each line is a rule of docs/rules.md in words, saying where this table's
    variants and options change it; --json gives the same table as plain data.
    """
    from zsy_lan.text.rules_text import rules_lines

    rules = make_rules(players, variants, options)
    if as_json:
        click.echo(json.dumps(describe_rules(rules), ensure_ascii=False, indent=2))
        return
    for line in rules_lines(rules):
        click.echo(line)
