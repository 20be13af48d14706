"""``zsy history``: the profile's finished matches, tallies and ratings, from verified records."""

from __future__ import annotations

import json
import time
from typing import Any

import click

from zsy_lan.text.i18n import _, deal_word, join_items, ngettext
from zsy_lan.text.sanitize import clean


def _when(t: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(t))


def _iso(t: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S%z", time.localtime(t))


def _variant_text(variant: str, players: int) -> str:
    return ngettext(
        "{variant}, {n} player", "{variant}, {n} players", players
    ).format(variant=variant, n=players)


def _who(nick: str, fp: str, bot: bool, me: bool = False) -> str:
    """A player as the history names them: the (unsigned) nick and the key's fingerprint."""
    nick = clean(nick, 40)
    if me:
        return _("{nick} ({fingerprint}, you)").format(nick=nick, fingerprint=fp)
    if bot:
        return _("{nick} ({fingerprint}, bot)").format(nick=nick, fingerprint=fp)
    return _("{nick} ({fingerprint})").format(nick=nick, fingerprint=fp)


def _result_text(m: Any) -> str:
    """My result in one match: placement of the table and points."""
    if m.me is None:
        return _("you did not play in this match (your key is not in its roster)")
    mine = m.result_of(m.me)
    n = len(m.entry.seats)
    if m.won:
        said = ngettext(
            "won: place {place} of {n}, {points} point",
            "won: place {place} of {n}, {points} points",
            abs(mine.points),
        )
    else:
        said = ngettext(
            "place {place} of {n}, {points} point",
            "place {place} of {n}, {points} points",
            abs(mine.points),
        )
    return said.format(place=mine.place, n=n, points=mine.points)


def _match_json(m: Any) -> dict[str, Any]:
    e = m.entry
    mine = m.result_of(m.me) if m.me is not None else None
    return {
        "status": "finished",
        "date": _iso(m.time),
        "time": m.time,
        "table": e.table,
        "name": e.name,
        "variant": e.variant,
        "players": e.players,
        "deal": e.deal,
        "local": e.local,
        "head": e.head,
        "seats": [
            {
                "seat": s.seat,
                "nick": s.nick,
                "fingerprint": s.fingerprint,
                "key": s.key,
                "bot": s.bot,
                "place": s.place,
                "points": s.points,
            }
            for s in e.seats
        ],
        "winners": e.winners,
        "me": m.me,
        "result": None
        if mine is None
        else {"place": mine.place, "of": len(e.seats), "points": mine.points, "won": m.won},
        "record": e.path,
        "copies": m.copies,
    }


def _entry_json(r: Any) -> dict[str, Any]:
    """An unfinished or non-verifying record (``--all``, and every listing for bad ones)."""
    return {
        "status": {"bad": "does not verify"}.get(r.status, r.status),
        "date": _iso(r.mtime),
        "time": r.mtime,
        "table": r.table,
        "name": r.name,
        "variant": r.variant if r.game else "",
        "reason": r.why(),  # in words, as zsy replay says it; structured below
        "kind": r.kind,
        "line": r.line,
        "detail": r.reason,
        "record": r.path,
    }


def _show_matches(h: Any, limit: int | None, show_all: bool, as_json: bool) -> None:
    """The list, newest first: matches, records that do not verify, unfinished with ``--all``."""
    rows: list[tuple[float, str, Any]] = [(m.time, "match", m) for m in h.matches]
    rows += [(r.mtime, "bad", r) for r in h.bad]
    if show_all:
        rows += [(r.mtime, "unfinished", r) for r in h.unfinished]
    rows.sort(key=lambda row: row[0], reverse=True)
    if limit is not None:
        rows = rows[:limit]
    if as_json:
        click.echo(
            json.dumps([_match_json(x) if k == "match" else _entry_json(x) for _t, k, x in rows])
        )
        return
    if not rows:
        if h.unfinished:  # say so: a player who left a match wonders where it went
            n = len(h.unfinished)
            click.echo(
                ngettext(
                    "No finished matches in this history yet; {n} unfinished match is not a "
                    "result (zsy history --all lists it).",
                    "No finished matches in this history yet; {n} unfinished matches are not "
                    "results (zsy history --all lists them).",
                    n,
                ).format(n=n)
            )
        else:
            click.echo(_("No finished matches in this history yet."))
        return
    for _t, kind, x in rows:
        if kind == "match":
            e = x.entry
            said = (
                _("{date}  {name}: {variant}, a local match against bots (zsy play)")
                if e.local
                else _("{date}  {name}: {variant}, {deal} deal")
            )
            click.echo(
                said.format(
                    date=_when(x.time),
                    name=e.name,
                    variant=_variant_text(e.variant, e.players),
                    deal=deal_word(e.deal),
                )
            )
            players = join_items(
                _who(s.nick, s.fingerprint, s.bot, s.seat == x.me) for s in e.seats
            )
            click.echo(_("  players: {players}").format(players=players))
            click.echo(_("  your result: {result}").format(result=_result_text(x)))
            click.echo(_("  record: {path}").format(path=e.path))
        elif kind == "bad" and x.status == "unreadable":  # a local fault, not the record's
            click.echo(
                _("{date}  CANNOT BE READ (counts for nothing until it can): {path}").format(
                    date=_when(x.mtime), path=x.path
                )
            )
            click.echo(_("  why: {reason}").format(reason=clean(x.reason, 300)))
        elif kind == "bad":
            click.echo(
                _("{date}  DOES NOT VERIFY (counts for nothing): {path}").format(
                    date=_when(x.mtime), path=x.path
                )
            )
            click.echo(_("  why: {reason}").format(reason=x.why()))  # cleaned where worded
        else:
            click.echo(
                _("{date}  {name}: unfinished match, not a result: {path}").format(
                    date=_when(x.mtime), name=x.name, path=x.path
                )
            )


def _show_opponents(h: Any, as_json: bool) -> None:
    from zsy_lan.record.history import opponents

    rows = opponents(h.matches)
    if as_json:
        click.echo(
            json.dumps(
                [
                    {
                        "key": o.key or None,  # None: a level's bots, each key one table's
                        "fingerprint": o.fingerprint or None,
                        "nick": o.nick,
                        "bot": o.bot,
                        "games": o.games,
                        "seats": o.seats,
                        "wins": o.wins,
                        "losses": o.losses,
                        "ties": o.ties,
                        "my_points": o.my_points,
                        "their_points": o.their_points,
                    }
                    for o in rows
                ]
            )
        )
        return
    if not rows:
        click.echo(_("No opponents yet: no verified network match in this history."))
        return
    for o in rows:
        if not o.key:  # a level's bots, met at one table each (zsy_lan.record.history)
            click.echo(_bots_line(o))
            continue
        click.echo(
            ngettext(
                "{who}: {games} match; you finished ahead of them in {wins}, behind in "
                "{losses}, tied in {ties}; your points {mine}, theirs {theirs}",
                "{who}: {games} matches; you finished ahead of them in {wins}, behind in "
                "{losses}, tied in {ties}; your points {mine}, theirs {theirs}",
                o.games,
            ).format(
                who=_who(o.nick, o.fingerprint, o.bot),
                games=o.games,
                wins=o.wins,
                losses=o.losses,
                ties=o.ties,
                mine=o.my_points,
                theirs=o.their_points,
            )
        )


def _bots_line(o: Any) -> str:
    """The bots of one level as one row: their seats counted one by one, ``theirs`` their
    points together; each bot's key was made for its table, so no fingerprint."""
    matches = ngettext("{n} match", "{n} matches", o.games).format(n=o.games)
    return ngettext(
        "{level}: {matches}, {seats} bot seat; you finished ahead of it in {wins}, behind in "
        "{losses}, tied in {ties}; your points {mine}, the bots' {theirs}",
        "{level}: {matches}, {seats} bot seats; you finished ahead of them in {wins}, "
        "behind in {losses}, tied in {ties}; your points {mine}, the bots' {theirs}",
        o.seats,
    ).format(
        level=clean(o.nick, 40),
        matches=matches,
        seats=o.seats,
        wins=o.wins,
        losses=o.losses,
        ties=o.ties,
        mine=o.my_points,
        theirs=o.their_points,
    )


def _show_variants(h: Any, as_json: bool) -> None:
    from zsy_lan.record.history import variants

    rows = variants(h.matches)
    if as_json:
        click.echo(
            json.dumps(
                [
                    {
                        "variant": t.variant,
                        "players": t.players,
                        "games": t.games,
                        "wins": t.wins,
                        "points": t.points,
                        "places": t.places,
                    }
                    for t in rows
                ]
            )
        )
        return
    if not rows:
        click.echo(_("No finished matches in this history yet."))
        return
    for t in rows:
        avg = sum(t.places) / len(t.places)
        click.echo(
            ngettext(
                "{variant}: {games} match, {wins} won, average place {avg}, points in all: "
                "{points}",
                "{variant}: {games} matches, {wins} won, average place {avg}, points in all: "
                "{points}",
                t.games,
            ).format(
                variant=_variant_text(t.variant, t.players),
                games=t.games,
                wins=t.wins,
                points=t.points,
                avg=f"{avg:.1f}",
            )
        )


def _show_ratings(h: Any, as_json: bool) -> None:
    from zsy_lan.record.history import K_FACTOR, START_RATING, rated, ratings

    rows = ratings(h.matches)
    if as_json:
        click.echo(
            json.dumps(
                [
                    {
                        "key": r.key,
                        "fingerprint": r.fingerprint,
                        "nick": r.nick,
                        "bot": r.bot,
                        "me": r.key == h.me_key,
                        "rating": round(r.rating, 1),
                        "games": r.games,
                        "wins": r.wins,
                    }
                    for r in rows
                ]
            )
        )
        return
    if not rows:
        click.echo(_("No ratings yet: no verified network match in this history."))
        return
    n = len(rated(h.matches))
    click.echo(
        ngettext(
            "Elo ratings from {n} verified match (start {start}, K {k}; see docs/history.md):",
            "Elo ratings from {n} verified matches (start {start}, K {k}; see docs/history.md):",
            n,
        ).format(n=n, start=int(START_RATING), k=int(K_FACTOR))
    )
    for r in rows:
        click.echo(
            ngettext(
                "{rating}  {who}: {games} match, {wins} won",
                "{rating}  {who}: {games} matches, {wins} won",
                r.games,
            ).format(
                rating=f"{r.rating:6.0f}",
                who=_who(r.nick, r.fingerprint, r.bot, r.key == h.me_key),
                games=r.games,
                wins=r.wins,
            )
        )


@click.command()
@click.option("--limit", type=click.IntRange(min=1), default=None, metavar="N",
              help="Show only the N newest entries.")
@click.option("--all", "show_all", is_flag=True,
              help="Also list unfinished matches (they are not results).")
@click.option("--opponents", "by_opponent", is_flag=True,
              help="Tally per opponent (by key fingerprint): matches, above/below you, points.")
@click.option("--variants", "by_variant", is_flag=True,
              help="Tally per variant: matches, wins, points, average place.")
@click.option("--ratings", "by_rating", is_flag=True,
              help="Elo rating of every identity met in verified matches (docs/history.md).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of text.")
@click.option("--profile", default="default", show_default=True, help="Whose history.")
@click.option("--data-dir", type=click.Path(file_okay=False), default=None,
              help="Data directory (default: $ZSY_DATA_DIR or the user data folder).")
def history(
    limit: int | None,
    show_all: bool,
    by_opponent: bool,
    by_variant: bool,
    by_rating: bool,
    as_json: bool,
    profile: str,
    data_dir: str | None,
) -> None:
    """Your finished matches, newest first, from records that verify.

    Each record is checked as `zsy replay --verify` does; one that does not
    verify is listed as such and counts for nothing. Players are named by
    nick and key fingerprint; the key is the identity.
    """
    from zsy_lan.record.history import build_history
    from zsy_lan.record.store import Profile
    from zsy_lan.record.store import data_dir as resolve

    # one view at a time, and the list's own options only with the list: said, never
    # silently dropped (``--opponents --ratings`` showed the ratings alone)
    views = [
        (flag, name)
        for flag, name, on in (
            ("--opponents", "opponents", by_opponent),
            ("--variants", "variants", by_variant),
            ("--ratings", "ratings", by_rating),
        )
        if on
    ]
    if len(views) > 1:
        raise click.UsageError(
            _("Choose one of --opponents, --variants and --ratings: they are separate views.")
        )
    view = views[0][1] if views else None
    if views and (limit is not None or show_all):
        raise click.UsageError(
            _("--limit and --all apply to the list of matches: leave them out with {view}.").format(
                view=views[0][0]
            )
        )
    root = resolve(data_dir)
    if data_dir and not root.is_dir():  # a typo'd folder is not an empty history
        raise click.ClickException(
            _("The folder {dir} does not exist: check the path given to --data-dir.").format(
                dir=root
            )
        )
    try:
        Profile(root, profile)  # the name check (no lock: reading only)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--profile") from None
    try:
        h = build_history(root, profile)
    except OSError as exc:
        raise click.ClickException(
            _("cannot read the records under {dir}: {why}; check its permissions.").format(
                dir=root, why=exc.strerror or exc
            )
        ) from None
    if view == "opponents":
        _show_opponents(h, as_json)
    elif view == "variants":
        _show_variants(h, as_json)
    elif view == "ratings":
        _show_ratings(h, as_json)
    else:
        _show_matches(h, limit, show_all, as_json)
    if h.cache_error is not None:
        exc = h.cache_error
        click.echo(
            _(
                "Note: the history index {file} was not saved ({why}); the history above is "
                "complete, but the next run checks every record again. Make {dir} writable "
                "or free some space to keep it."
            ).format(
                file=h.cache_path,
                why=exc.strerror or exc,
                dir=h.cache_path.parent if h.cache_path is not None else root,
            ),
            err=True,
        )
