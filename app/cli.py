"""``flask --app app ...`` commands: migrate, create a game, rotate a link, show a game,
check every stored game against its replay, ``status`` (is the mail loop alive?), and
the operator's commands (issue 19 item 5, ``app.services.operator``): stuck games,
failed and held mail, dead inbound mail, re-send a mail, extend a deadline, change a
seat's address, back the store up (docs/operations.md).

Long because: one command per operator task, each only parsing and printing (the
queries and repairs are ``app.services.operator``); one file lists them all.

They call ``app.services`` like the web pages do, so a game made here is the
same as one made in the lobby (bots move at once, hooks send invitations).
"""
from __future__ import annotations

import json
from datetime import datetime
from typing import Any

import click
from flask import current_app
from flask.cli import with_appcontext

from app import services
from app.access import tokens


@click.command("db-upgrade")
@with_appcontext
def db_upgrade_command() -> None:
    """Create or update the tables (Alembic upgrade head), and say which it did."""
    from app.db import upgrade_words

    click.echo(upgrade_words(current_app.config["DATABASE_URL"]))


def _parse_player(text: str) -> dict[str, Any]:
    """'Ann:ann@example.com', 'Ann' or 'bot[:Name]' → a player dict."""
    head, _, tail = text.partition(":")
    if head.strip().lower() == "bot":
        return {"kind": "bot", "name": tail.strip()}
    return {"kind": "human", "name": head.strip(), "email": tail.strip()}


@click.command("create-game")
@click.option("--player", "-p", "players", multiple=True, required=True,
              help="NAME[:EMAIL], or bot[:NAME]; 2 to 4 times, in seat order.")
@click.option("--name", default="", help="A name for the game.")
@click.option("--memory/--no-memory", default=False, help="The memory variant.")
@click.option("--option", "extra", multiple=True, metavar="KEY=JSON",
              help="Any other option, e.g. deadline_hours=24.")
@click.option("--seed", default=None, help="Fix the secret seed (tests, demos).")
@with_appcontext
def create_game_command(players: tuple[str, ...], name: str, memory: bool,
                        extra: tuple[str, ...], seed: str | None) -> None:
    """Create a game and print each seat's link."""
    options: dict[str, Any] = {"memory": memory}
    for item in extra:
        key, sep, raw = item.partition("=")
        if not sep:
            raise click.BadParameter(f"{item!r} is not KEY=VALUE", param_hint="--option")
        try:
            options[key.strip()] = json.loads(raw)
        except json.JSONDecodeError:
            options[key.strip()] = raw
    try:
        created = services.create_game([_parse_player(p) for p in players], options,
                                       name=name, seed=seed)
    except services.ServiceError as exc:
        raise click.ClickException(exc.message) from None
    game = created.snapshot.game
    click.echo(f"game {game.id} \"{game.name}\" created; seed commitment {game.commitment}")
    for seat, token in zip(game.seats, created.tokens):
        link = tokens.seat_url(token) if seat.kind == "human" else "(bot)"
        click.echo(f"  seat {seat.index} {seat.name}: {link}")


@click.command("rotate-link")
@click.argument("game_id")
@click.argument("seat", type=int)
@with_appcontext
def rotate_link_command(game_id: str, seat: int) -> None:
    """Revoke a seat's links and print its new one."""
    try:
        token = services.rotate_link(game_id, seat)
    except services.ServiceError as exc:
        raise click.ClickException(exc.message) from None
    click.echo(tokens.seat_url(token))


@click.command("show-game")
@click.argument("game_id")
@click.option("--links", is_flag=True, help="Also print each seat's current link.")
@with_appcontext
def show_game_command(game_id: str, links: bool) -> None:
    """Print a game's status, players, step and scores (public view only)."""
    try:
        snap = services.snapshot(game_id)
    except services.ServiceError as exc:
        raise click.ClickException(exc.message) from None
    game, view = snap.game, snap.view(None)
    click.echo(f"game {game.id} \"{game.name}\" · {game.status} · step {snap.seq} · "
               f"round {view.get('round')} · phase {view.get('phase')}")
    click.echo(f"commitment {game.commitment}" + (f" · seed {game.seed}" if game.seed else ""))
    seat_tokens = services.seat_tokens(game_id) if links else []
    totals = view.get("totals") or []
    for seat in game.seats:
        total = totals[seat.index] if seat.index < len(totals) else ""
        mark = " ← to act" if seat.index in (view.get("to_act") or []) else ""
        line = f"  seat {seat.index} {seat.name} ({seat.kind}) total {total}{mark}"
        if links and seat.kind == "human":
            line += f"\n    {tokens.seat_url(seat_tokens[seat.index])}"
        click.echo(line)


@click.command("abandon-game")
@click.argument("game_id")
@with_appcontext
def abandon_game_command(game_id: str) -> None:
    """Stop a running game for good (its log and replay stay)."""
    try:
        services.abandon_game(game_id)
    except services.ServiceError as exc:
        raise click.ClickException(exc.message) from None
    click.echo(f"game {game_id} abandoned")


@click.command("check-games")
@click.option("--game", "game_ids", multiple=True, help="Check only this game (repeatable).")
@click.option("--quiet", "-q", is_flag=True, help="Print only the games that fail.")
@with_appcontext
def check_games_command(game_ids: tuple[str, ...], quiet: bool) -> None:
    """Replay every game under its rules version; compare with its log's seq and its cache.

    Read only: a failing game is reported (exit status 1), never rewritten.
    """
    from app.gamelog.check import check_games

    checked = failed = 0
    for result in check_games(list(game_ids)):
        checked += 1
        failed += not result.ok
        if not quiet or not result.ok:
            click.echo(result.line())
    click.echo(f"{checked} games checked, {failed} failed")
    if failed:
        raise SystemExit(1)


def _ago(moment: datetime | str | None, now: datetime) -> str:
    """``2026-12-02 01:02:03 UTC (4 s ago)``, or ``never``."""
    if moment is None:
        return "never"
    from app.clock.time import as_utc

    moment = as_utc(datetime.fromisoformat(moment) if isinstance(moment, str) else moment)
    return f"{moment:%Y-%m-%d %H:%M:%S} UTC ({_seconds((now - moment).total_seconds())} ago)"


def _seconds(value: float) -> str:
    value = max(0.0, value)
    if value < 120:
        return f"{value:.0f} s"
    if value < 7200:
        return f"{value / 60:.0f} min"
    return f"{value / 3600:.1f} h"


@click.command("status")
@with_appcontext
def status_command() -> None:
    """Is the mail loop alive? Last tick, send and inbound apply, mail waiting, the inbox.

    For operators and monitors (issue 17 item 1): exit status 1 when not ready
    (the same checks as ``/readyz``), so a cron job or a monitor can call it.
    Read only.
    """
    from sqlalchemy import func
    from sqlmodel import Session, col, select
    from sqlmodel.sql.expression import Select

    from app.runners import heartbeats
    from app.db import get_engine
    from app.inbound import inbox
    from app.inbound.models import DEAD, STATES, InboxMessage
    from app.mail.models import SENT, Outbox

    engine = get_engine()
    now = heartbeats.wall_now()
    ready = heartbeats.readiness(engine, now)
    if not ready.checks["database"]["ok"]:
        click.echo(f"database: {ready.checks['database']['error']}")
        click.echo("ready: no (failed: database)")
        raise SystemExit(1)
    beats = heartbeats.read(engine, now)
    backlog = heartbeats.mail_backlog(engine, now)
    with Session(engine) as session:
        last_sent = session.exec(select(func.max(Outbox.sent_at))
                                 .where(col(Outbox.status) == SENT)).one()
        last_applied = session.exec(select(func.max(InboxMessage.done_at))
                                    .where(col(InboxMessage.status) == "applied")).one()
        by_state = inbox.by_status(session)
        # what sqlmodel's select() builds for several columns; its overloads stop at four
        dead_rows: Select[int | None, datetime, int, str | None, str | None] = Select(
            col(InboxMessage.id), col(InboxMessage.received_at), col(InboxMessage.attempts),
            col(InboxMessage.outcome), col(InboxMessage.last_error))
        dead = session.exec(dead_rows
                            .where(col(InboxMessage.status) == DEAD)
                            .order_by(col(InboxMessage.received_at).desc())
                            .limit(DEAD_SHOWN)).all()
        session.rollback()

    def alive(name: str) -> str:
        beat = beats.get(name)
        if beat is None:
            return "no heartbeat ever"
        state = "alive" if beat.fresh else "NOT ALIVE"
        return f"{state}, pid {beat.pid} on {beat.host}, last beat {_ago(beat.beat_at, now)}"

    clock, sender, inbound = (beats.get(name) for name in (heartbeats.CLOCK, heartbeats.SENDER,
                                                           heartbeats.INBOUND))
    last_tick = clock.detail.get("last_tick") if clock else None
    last_apply = inbound.detail.get("last_apply") if inbound else None
    click.echo("database: reachable")
    click.echo(f"clock:   last tick {_ago(last_tick, now)} · "
               f"{alive(heartbeats.CLOCK)}")
    click.echo(f"sender:  last send {_ago(last_sent, now)} · {alive(heartbeats.SENDER)}")
    click.echo(f"inbound: last apply {_ago(last_apply, now)}"
               f" · last reply applied {_ago(last_applied, now)} · {alive(heartbeats.INBOUND)}")
    late = backlog.late_seconds(now)
    click.echo(f"mail:    oldest due-but-unsent "
               f"{'none' if late is None else _seconds(late)} · pending {backlog.pending} "
               f"(held by a cap {backlog.held}) · failed {backlog.failed}")
    click.echo("inbox:   " + " · ".join(f"{state} {by_state.get(state, 0)}"
                                        for state in [*STATES, *sorted(set(by_state) - set(STATES))]))
    if dead:
        click.echo(f"dead-lettered replies (newest {len(dead)} of {by_state.get(DEAD, 0)}):")
        for row_id, received_at, attempts, outcome, last_error in dead:
            error = " ".join(str(last_error or outcome or "no error kept").split())
            click.echo(f"  #{row_id} received {_ago(received_at, now)}, {attempts} attempts: "
                       f"{error[:200]}")
    if ready.ready:
        click.echo("ready: yes")
        return
    reasons = "; ".join(f"{name}: {ready.checks[name].get('error', 'failed')}"
                        for name in ready.failed)
    click.echo(f"ready: no ({reasons})")
    raise SystemExit(1)


#: How many dead-lettered inbox rows ``status`` lists (newest first).
DEAD_SHOWN = 10


# -- the operator's commands (issue 19 item 5: app.services.operator) ----------------

def _when(moment: datetime | None) -> str:
    return "none" if moment is None else f"{moment:%Y-%m-%d %H:%M} UTC"


def _fail(exc: services.ServiceError) -> click.ClickException:
    return click.ClickException(exc.message)


@click.command("stuck-games")
@click.option("--days", type=click.FloatRange(min=0, min_open=True), default=3.0,
              show_default=True, help="No move, or a deadline overdue, for this many days.")
@with_appcontext
def stuck_games_command(days: float) -> None:
    """Running games with no move for N days, or a deadline overdue for N days (the clock
    plays a due deadline within a tick: overdue means it is down or stuck). Read only."""
    from app.clock.time import now
    from app.services import operator

    moment = now()
    found = operator.stuck_games(days, moment)
    for game in found:
        waiting = ", ".join(f"seat {seat} {name}" for seat, name in game.waiting_on) or "nobody"
        overdue = ("no deadline overdue" if game.overdue is None else
                   f"deadline overdue since {_when(game.overdue)} "
                   f"({_seconds((moment - game.overdue).total_seconds())})")
        click.echo(f"game {game.id} \"{game.name}\": last move "
                   f"{_seconds((moment - game.last_move).total_seconds())} ago · {overdue} · "
                   f"waiting on {waiting}")
    click.echo(f"{len(found)} stuck game{'' if len(found) == 1 else 's'} "
               f"(no move or a deadline overdue for {days:g} days)")


@click.command("failed-mails")
@click.option("--game", "game_id", default=None, help="Only this game's mail.")
@click.option("--address", default=None, help="Only mail to this address.")
@with_appcontext
def failed_mails_command(game_id: str | None, address: str | None) -> None:
    """Mail that failed for good, and mail a cap holds back (app.mail.holds). Read only."""
    from app.services import operator

    found = operator.failed_and_held(game_id, address)
    for mail in found:
        where = f"game {mail.game_id} seat {mail.seat}" if mail.game_id else "no game"
        until = f" until {_when(mail.held_until)}" if mail.held_until else ""
        click.echo(f"#{mail.id} {mail.status}{until} · {mail.kind} to {mail.to} · {where} · "
                   f"{mail.attempts} attempts · {mail.why[:300]}")
    failed = sum(mail.status == "failed" for mail in found)
    click.echo(f"{failed} failed, {len(found) - failed} held")


@click.command("dead-inbound")
@with_appcontext
def dead_inbound_command() -> None:
    """Inbound messages the worker gave up on (a transient failure outlasted its tries),
    newest first, with why; the sender in full (the operator may see it). Read only."""
    from sqlmodel import col, select

    from app.clock.time import as_utc
    from app.db import read_session
    from app.inbound.models import DEAD, InboxMessage

    with read_session() as session:
        found = session.exec(select(InboxMessage).where(col(InboxMessage.status) == DEAD)
                             .order_by(col(InboxMessage.received_at).desc())).all()
        for message in found:
            game = f" · game {message.game_id}" if message.game_id else ""
            why = " ".join(str(message.last_error or message.outcome or "no error kept").split())
            click.echo(f"#{message.id} from {message.mail_from or '(no sender)'} · received "
                       f"{_when(as_utc(message.received_at))} · {message.attempts} attempts"
                       f"{game} · {why[:300]}")
    click.echo(f"{len(found)} dead inbound message{'' if len(found) == 1 else 's'}")


@click.command("resend-mail")
@click.argument("mail_id", type=int)
@with_appcontext
def resend_mail_command(mail_id: int) -> None:
    """Queue a failed (or sent) mail again as a new mail; never one still pending. A
    delivered mail kept no body: a turn mail or reminder is composed again from the game
    as it stands, and the command says so; any other is refused, in words."""
    from app.clock.time import now
    from app.services import resend

    try:
        resent = resend.resend_mail(mail_id, now())
    except services.ServiceError as exc:
        raise _fail(exc) from None
    if resent.recomposed:
        click.echo(f"{resent.recomposed}; queued as mail {resent.id}: the sender sends it "
                   "next, unless that decision is played first")
    else:
        click.echo(f"mail {mail_id} queued again as mail {resent.id}: the sender sends it next")


@click.command("extend-deadline")
@click.argument("game_id")
@click.option("--seat", type=int, default=None, help="Only this seat (default: every seat "
              "waited on).")
@click.option("--by", "by", required=True, help="How much later: 2d, 36h, 90m.")
@with_appcontext
def extend_deadline_command(game_id: str, seat: int | None, by: str) -> None:
    """Move a game's open deadline(s) later; reminders follow; the seat page shows it."""
    from app.clock.time import now
    from app.services import operator

    try:
        moved = operator.extend_deadline(game_id, operator.parse_duration(by), now(), seat)
    except services.ServiceError as exc:
        raise _fail(exc) from None
    for each in moved:
        reminders = ", ".join(_when(at) for at in each.reminders) or "none"
        click.echo(f"seat {each.seat}: deadline {_when(each.before)} → {_when(each.after)} "
                   f"(reminders {reminders})")


@click.command("change-address")
@click.argument("game_id")
@click.argument("seat", type=int)
@click.argument("address")
@with_appcontext
def change_address_command(game_id: str, seat: int, address: str) -> None:
    """Give a seat a new address: its old links die, the new address gets the new link."""
    from app.clock.time import now
    from app.services import operator

    try:
        token = operator.change_address(game_id, seat, address, now())
    except services.ServiceError as exc:
        raise _fail(exc) from None
    click.echo(f"seat {seat} of game {game_id} now mails {address.strip()}; its old links "
               "are dead; its new link is mailed there:")
    click.echo(tokens.seat_url(token))


@click.command("rerate")
@click.option("--from-log", is_flag=True,
              help="First give every ended game without results its results, from its log "
                   "(the games that ended before standing existed).")
@with_appcontext
def rerate_command(from_log: bool) -> None:
    """Rate every rated game again in the order they ended and sum every record again;
    correct and count what differs (issue 47). Safe to run at any time."""
    from app.services import standing

    click.echo(standing.rerate(from_log).words())


@click.command("backup")
@click.argument("dest", type=click.Path(file_okay=False))
@with_appcontext
def backup_command(dest: str) -> None:
    """Copy the SQLite store (consistent while the server runs) and the secret key into
    the folder DEST. On PostgreSQL: says what to do instead, exit status 1."""
    from app.services import operator

    try:
        done = operator.backup(current_app.config["DATABASE_URL"], current_app.instance_path,
                               str(current_app.config["SECRET_KEY"]), dest)
    except services.ServiceError as exc:
        raise _fail(exc) from None
    click.echo(f"database copied to {done.database}")
    if done.secret_key is not None:
        click.echo(f"secret key copied to {done.secret_key}: keep the two files together and "
                   "private; restore both into the instance folder")
    if done.warning:
        click.echo(f"WARNING: {done.warning}", err=True)


@click.command("mail-works")
@click.argument("address")
@with_appcontext
def mail_works_command(address: str) -> None:
    """The address bounced but reads its mail again (its owner says so): clear the
    bounce mark, and mail is tried to it again, in every game (docs/deliverability.md)."""
    from sqlmodel import Session

    from app.db import get_engine
    from app.mail import bounces

    with Session(get_engine()) as session:
        cleared = bounces.clear(session, address.strip())
        session.commit()
    if not cleared:
        raise click.ClickException(f"{address.strip()} is not marked as bouncing: nothing "
                                   "to clear")
    click.echo(f"{address.strip()} no longer counts as bouncing: mail is tried to it again "
               "(mail that failed meanwhile stays failed: `resend-mail ID` sends one again)")


@click.command("doors")
@with_appcontext
def doors_command() -> None:
    """Every route, the kind of key that opens it and what it may touch: the door table
    of docs/security.md (issue 45; tests/web/test_doors.py holds the two the same)."""
    from app.web import doors

    click.echo(doors.table(current_app))


@click.command("push-keys")
@click.option("--again", is_flag=True, help="Make a new pair although one is set: every "
              "browser's subscription stops working and must be made again.")
@with_appcontext
def push_keys_command(again: bool) -> None:
    """Make the server's VAPID key pair for Web Push (issue 49), once: prints the two
    settings to put in the environment (docs/operations.md, "Web Push"). Refuses when a
    pair is set already, since new keys orphan every subscription made with the old."""
    from app.channels import push

    if push.public_key() is not None and not again:
        raise click.ClickException("VAPID keys are set already (VAPID_PUBLIC_KEY "
                                   f"{push.public_key()}): new ones would end every browser's "
                                   "subscription. Pass --again if that is what you want.")
    private, public = push.generate_keys()
    click.echo(f"VAPID_PRIVATE_KEY={private}")
    click.echo(f"VAPID_PUBLIC_KEY={public}")
    click.echo("# put both in the environment of the web and the clock (the private key is "
               "a secret: whoever holds it can push to every subscribed browser)", err=True)


COMMANDS = (db_upgrade_command, doors_command, push_keys_command, create_game_command, rotate_link_command,
            show_game_command, abandon_game_command, check_games_command, status_command,
            stuck_games_command, failed_mails_command, dead_inbound_command,
            resend_mail_command, extend_deadline_command, change_address_command,
            backup_command, mail_works_command, rerate_command)


def init_app(app: Any) -> None:
    for command in COMMANDS:
        app.cli.add_command(command)
