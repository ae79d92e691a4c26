"""The operator's use cases behind ``flask --app app ...`` (issue 19 item 5): what is stuck,
what did not go out, and the few repairs an operator makes by hand (extend a deadline,
change a seat's address, back the store up; re-sending a mail is ``services.resend``).
The dead inbound mail is listed by ``app.cli`` itself: the inbox lives above this layer.

Kept here rather than in ``app.cli`` so the queries and the repairs are tested without a
terminal and the command only prints: every repair is one transaction that refuses, with
a sentence, whatever would make things worse (a mail sent twice, a deadline moved under
the clock's lease, an address that cannot be mailed). The listings are read only.
"""
from __future__ import annotations

import os
import re
import shutil
import sqlite3
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path

from sqlalchemy import func, or_, update
from sqlalchemy.engine import make_url
from sqlmodel import col, select

from app.access import tokens
from app.clock import deadlines as dl
from app.clock.time import as_utc
from app.db import read_session, write_session
from app.gamelog import store
from app.mail import compose, notify
from app.mail import unsent
from app.mail.addresses import BadAddress, normalise
from app.mail.models import FAILED, PENDING, SUPERSEDED, Outbox
from app.services.errors import BadRequest, Conflict, NotFound
from app.people.calendar import calendar_of

DAY = timedelta(days=1)


# -- stuck games -------------------------------------------------------------------

@dataclass(frozen=True)
class StuckGame:
    """A running game nobody moved in for a while, or whose clock should have played."""

    id: str
    name: str
    last_move: datetime
    #: The oldest open decision deadline that is past due (None: none is).
    overdue: datetime | None
    #: The seats with an open decision: the game waits on them.
    waiting_on: list[tuple[int, str]]


def stuck_games(days: float, now: datetime) -> list[StuckGame]:
    """Running games with no move for ``days`` days, or with a decision deadline overdue
    for more than ``days`` days (the clock plays a due deadline within a tick: overdue
    means the clock process is down or stuck). Oldest last move first."""
    now = as_utc(now)
    since = now - DAY * days
    with read_session() as session:
        games = session.exec(select(store.Game).where(col(store.Game.status) == "running")).all()
        moved = dict(session.exec(select(store.Action.game_id, func.max(store.Action.created))
                                  .group_by(col(store.Action.game_id))).all())
        waiting: dict[str, list[dl.Deadline]] = {}
        for row in session.exec(select(dl.Deadline).where(
                col(dl.Deadline.done_at).is_(None), col(dl.Deadline.kind) == dl.DECISION)):
            waiting.setdefault(row.game_id, []).append(row)
        found = []
        for game in games:
            last = as_utc(moved.get(game.id) or game.created)
            due = [as_utc(row.due_at) for row in waiting.get(game.id, [])
                   if as_utc(row.due_at) < now]
            overdue = min(due) if due else None
            if last >= since and (overdue is None or overdue >= since):
                continue
            names = {seat.index: seat.name for seat in store.load_seats(session, game.id)}
            seats = sorted({(row.seat, names.get(row.seat, ""))
                            for row in waiting.get(game.id, [])})
            found.append(StuckGame(game.id, game.name, last, overdue, seats))
    return sorted(found, key=lambda each: each.last_move)


# -- mail that did not go out ----------------------------------------------------------

@dataclass(frozen=True)
class TroubleMail:
    """A mail that failed for good, or that a cap holds back."""

    id: int
    kind: str
    to: str
    game_id: str | None
    seat: int | None
    attempts: int
    status: str
    #: ``failed``: the last error; held: the cap and until when.
    why: str
    held_until: datetime | None = None


def failed_and_held(game_id: str | None = None, address: str | None = None) -> list[TroubleMail]:
    """Failed outbox rows and held ones (pending with ``held_until``: ``app.mail.holds``),
    of one game and/or one address (case-folded), oldest first."""
    query = select(Outbox).where(or_(col(Outbox.status) == FAILED,
                                     (col(Outbox.status) == PENDING)
                                     & col(Outbox.held_until).is_not(None)))
    if game_id:
        query = query.where(col(Outbox.game_id) == game_id)
    if address:
        query = query.where(func.lower(col(Outbox.to)) == address.strip().casefold())
    found = []
    with read_session() as session:
        rows = session.exec(query.order_by(col(Outbox.id))).all()
        for row in rows:
            assert row.id is not None  # (stored rows have ids)
            held = row.status == PENDING
            why = (f"held ({row.held_why or 'cap'}): {row.last_error or 'a cap holds it'}" if held
                   else row.last_error or "the mail server refused it (no error kept)")
            found.append(TroubleMail(row.id, row.kind, row.to, row.game_id, row.seat, row.attempts,
                                     "held" if held else FAILED, " ".join(why.split()),
                                     as_utc(row.held_until) if held and row.held_until else None))
    return found


# -- extending a deadline --------------------------------------------------------------

_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([dhm])\s*$")
_UNITS = {"d": timedelta(days=1), "h": timedelta(hours=1), "m": timedelta(minutes=1)}


def parse_duration(text: str) -> timedelta:
    """``2d``, ``36h``, ``90m`` → a positive timedelta, or ``BadRequest`` saying how to write it."""
    match = _DURATION.match(text or "")
    if not match or float(match.group(1)) <= 0:
        raise BadRequest(f"{text!r} is not a duration: write a number and d, h or m "
                         "(2d, 36h, 90m).")
    try:
        by = _UNITS[match.group(2)] * float(match.group(1))
        if by > timedelta(days=366):
            raise OverflowError
    except OverflowError:
        raise BadRequest(f"{text!r} is more than a year: extend by less.") from None
    return by


@dataclass(frozen=True)
class Moved:
    """One seat's decision deadline, before and after."""

    seat: int
    before: datetime
    after: datetime
    reminders: list[datetime] = field(default_factory=list)


def extend_deadline(game_id: str, by: timedelta, now: datetime,
                    seat: int | None = None) -> list[Moved]:
    """Move the open decision deadline of each waiting seat (or of ``seat``) ``by`` later,
    counted from its due time or from now if it is already past (an overdue deadline
    moved "2 days later" still in the past would fire at once). The seat's open
    reminders are dropped and scheduled again for the new window, as when the decision
    opened; the seat page reads the deadline rows, so it shows the new time at once.
    No mail: the reminders carry the new time. A row the clock holds right now (its
    lease) is refused: try again in a minute."""
    now = as_utc(now)
    with write_session() as session:
        game = session.get(store.Game, str(game_id))
        if game is None:
            raise NotFound(f"There is no game {game_id}.")
        if game.status != "running":
            raise Conflict(f"Game {game_id} is {game.status}: it has no deadline to extend.")
        rows = dl.open_rows(session, game.id, seat, dl.DECISION)
        if not rows:
            who = "this game" if seat is None else f"seat {seat}"
            raise Conflict(f"{who[0].upper()}{who[1:]} has no open deadline: nobody is waited on.")
        if any(row.lease_until is not None and as_utc(row.lease_until) > now for row in rows):
            raise Conflict("The clock is playing this deadline right now: try again in a minute.")
        settings = dl.ClockSettings.from_options(game.options)
        moved = []
        for row in rows:
            before = as_utc(row.due_at)
            # counted on the seat's calendar, and never due in its quiet hours (issue 21)
            calendar = calendar_of(session, game.id, row.seat, settings)
            after = calendar.settle(max(before, now) + by)
            try:
                times = dl.move_decision(session, row, after, now, settings, calendar,
                                         credit=calendar.used(before, after))
            except dl.Busy as exc:
                raise Conflict(str(exc)) from None
            moved.append(Moved(row.seat, before, after, times))
        return moved


# -- changing a seat's address ---------------------------------------------------------

def change_address(game_id: str, seat: int, address: str, now: datetime) -> str:
    """Give a seat a new address; its old links die; returns the seat's new token.

    The token version goes up (as ``rotate-link``), so every link and reply address in
    the mail the old address holds is refused from now on; the old address's unsent
    mail of this seat is superseded (it would carry dead links to the wrong person);
    and the new address gets the seat's link at once (the "your link" mail)."""
    now = as_utc(now)
    try:
        new = normalise(address)
    except BadAddress as exc:
        raise BadRequest(f"{address!r} is not an address we can mail: {exc}") from None
    with write_session() as session:
        game = session.get(store.Game, str(game_id))
        if game is None:
            raise NotFound(f"There is no game {game_id}.")
        row = session.get(store.Seat, (game.id, seat))
        if row is None:
            raise NotFound(f"Game {game_id} has no seat {seat}.")
        if row.kind != "human":
            raise BadRequest(f"Seat {seat} is a bot: it has no address.")
        if row.email.casefold() == new.casefold():
            raise Conflict(f"Seat {seat} already has the address {new}: nothing changed.")
        old = row.email
        row.email, row.token_version = new, row.token_version + 1
        session.flush()
        session.exec(update(Outbox).where(
            col(Outbox.game_id) == game.id, col(Outbox.seat) == seat,
            col(Outbox.status) == PENDING, func.lower(col(Outbox.to)) == old.casefold(),
            or_(col(Outbox.lease_until).is_(None), col(Outbox.lease_until) < now))
            .values(status=SUPERSEDED, held_until=None, held_untold=False,
                    last_error="not sent: the seat's address changed"))
        ctx = notify.Context.load(session, game)
        with notify.writing_to(ctx.unit, new):  # the new address's person's language
            mail = compose.notice_mail(ctx.info, seat, "address_changed", about=None,
                                       link=ctx.link(seat), unsubscribe=ctx.unsubscribe(seat))
        unsent.queue(ctx.unit, game_id=ctx.id, seat=seat, kind="link", to=new,
                     to_name=ctx.info.names[seat], mail=mail,
                     idempotency=f"address:{ctx.id}:{seat}:{row.token_version}",
                     domain=ctx.domain, now=now, unsubscribe=ctx.unsubscribe(seat))
        return tokens.seat_token(game.id, seat, row.token_version)


# -- backups ---------------------------------------------------------------------------

#: What an operator of PostgreSQL does instead of ``flask backup`` (printed, exit 1).
POSTGRES_BACKUP = (
    "This server's database is PostgreSQL: `flask backup` copies SQLite files only. Back it "
    "up with pg_dump (e.g. `pg_dump --format=custom --file=eye.dump \"$DATABASE_URL\"`, "
    "restore with pg_restore) and keep the SECRET_KEY setting with it: without that key "
    "every link in every mail ever sent stops working.")


@dataclass(frozen=True)
class Backup:
    """What ``backup`` wrote, and where the secret key is when it could not copy it."""

    database: Path
    secret_key: Path | None
    warning: str | None


def sqlite_path(url: str) -> Path | None:
    """The database file of a SQLite URL (None: not SQLite, or in memory)."""
    parsed = make_url(url)
    if not parsed.drivername.startswith("sqlite") or parsed.database in (None, "", ":memory:"):
        return None
    return Path(parsed.database)


def backup(url: str, instance_path: str, secret_key: str, dest: str) -> Backup:
    """Copy the SQLite store into the folder ``dest`` as ``silver_eye.db`` (the online
    backup API: a consistent copy while the server writes), and the instance's
    ``secret_key`` file beside it, so that restoring is copying both files into an
    instance folder. A key set by the environment is not in a file: the warning then
    says to keep ``SECRET_KEY`` with the backup. Refuses to overwrite a backup.
    ``BadRequest`` with ``POSTGRES_BACKUP`` on PostgreSQL."""
    source = sqlite_path(url)
    if source is None:
        raise BadRequest(POSTGRES_BACKUP)
    if not source.exists():
        raise NotFound(f"There is no database file at {source}.")
    folder = Path(dest)
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    target = folder / "silver_eye.db"
    if target.exists():
        raise Conflict(f"{target} exists already: back up into a new folder.")
    # the copy holds every address and seed: readable by its owner only (issue 34), from
    # its first byte (created 0600, not chmod-ed after the copy)
    os.close(os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    with sqlite3.connect(source, timeout=30) as live, sqlite3.connect(target) as copy:
        live.backup(copy)
    live.close()
    copy.close()
    key_file = Path(instance_path) / "secret_key"
    if key_file.exists() and key_file.read_text().strip() == secret_key:
        kept = folder / "secret_key"
        shutil.copyfile(key_file, kept)
        kept.chmod(0o600)
        return Backup(target, kept, None)
    return Backup(target, None,
                  "The secret key is not in a file of the instance folder: it comes from the "
                  "SECRET_KEY setting (the environment). Keep that value with this backup: "
                  "without it every link in every mail ever sent stops working.")
