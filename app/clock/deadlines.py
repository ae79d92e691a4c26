"""Deadlines and each seat's clock state, kept in the database (never in memory).

A decision deadline is written when a seat gets a pending decision and closed
(``done_at`` set) in the same transaction as the action that ends it, so a
clock killed at any moment loses nothing: the next tick finds the same open
rows with the partial index on ``due_at``. Reminders are rows of their own.
"""
from __future__ import annotations

import functools
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Any, Iterable, Iterator

from sqlalchemy import (ARRAY, DateTime, Index, UniqueConstraint, bindparam, cast, func,
                        insert, literal, or_, text, update)
from sqlmodel import Field, Session, SQLModel, col, select

from app.db import hold, send, take
from app.db.loaded import Stored, as_object, note

DECISION, REMINDER, DIGEST = "decision", "reminder", "digest"

#: Per-game clock settings and their defaults (hours unless said otherwise).
DEFAULT_DEADLINE_HOURS = 48.0
#: Reminder leads: "half" means halfway through the window, a number means
#: that many hours before the deadline. Leads that would fall before the
#: decision opened are dropped.
DEFAULT_REMINDERS: tuple[str | float, ...] = ("half", 2.0)
DEFAULT_ABSENT_AFTER = 3
DEFAULT_VACATION_DAYS = 14


_frozen_now: ContextVar[datetime | None] = ContextVar("silver_eye_now", default=None)


def now() -> datetime:
    """The clock's "now": the injected moment inside ``at(...)``, else wall time (UTC).

    Hooks write deadlines relative to this, so a tick run for an injected
    moment (tests, a clock catching up after downtime) schedules the next
    deadlines from that moment, not from the wall clock.
    """
    frozen = _frozen_now.get()
    return frozen if frozen is not None else datetime.now(timezone.utc)


@contextmanager
def at(moment: datetime) -> Iterator[datetime]:
    """Run the block as if it were ``moment`` (see ``now``)."""
    token = _frozen_now.set(as_utc(moment))
    try:
        yield as_utc(moment)
    finally:
        _frozen_now.reset(token)


class Deadline(SQLModel, table=True):
    """A moment at which the clock must do something for one seat of one game."""

    __tablename__ = "deadline"
    __table_args__ = (
        # The clock's query: open rows by due time. Partial, so closed rows
        # (almost all of them after a while) cost nothing.
        Index("ix_deadline_open_due", "due_at",
              sqlite_where=text("done_at IS NULL"),
              postgresql_where=text("done_at IS NULL")),
        # A game's (or a seat's) open rows, which every action closes or
        # reads: partial too, so the cost stays the few open rows of the
        # game however many closed rows a long game has left behind.
        Index("ix_deadline_game_open", "game_id", "seat",
              sqlite_where=text("done_at IS NULL"),
              postgresql_where=text("done_at IS NULL")),
    )

    id: int | None = Field(default=None, primary_key=True)
    game_id: str = Field(max_length=64)
    seat: int
    kind: str = Field(max_length=16)
    due_at: datetime = Field(sa_type=DateTime(timezone=True))
    #: The step (actions applied so far) when the decision opened (for the
    #: record and idempotency keys; a timeout submits with the step it reads
    #: just before, and the row closes in the same transaction as the action
    #: that ends the decision, so a stale row never acts on a later decision).
    opened_step: int = 0
    opened_at: datetime = Field(sa_type=DateTime(timezone=True))
    #: When the first timeout action of this window was applied: the seat's
    #: run of timeouts counts a window once, however many defaults it took.
    fired_at: datetime | None = Field(default=None, sa_type=DateTime(timezone=True))
    done_at: datetime | None = Field(default=None, sa_type=DateTime(timezone=True))
    #: Why it closed: "acted", "fired", "cancelled".
    outcome: str | None = Field(default=None, max_length=16)
    lease_owner: str | None = Field(default=None, max_length=64)
    lease_until: datetime | None = Field(default=None, sa_type=DateTime(timezone=True))


class SeatClock(SQLModel, table=True):
    """The clock's memory of one seat: timeouts in a row, absence, vacation."""

    __tablename__ = "seat_clock"
    __table_args__ = (UniqueConstraint("game_id", "seat", name="uq_seat_clock"),)

    id: int | None = Field(default=None, primary_key=True)
    game_id: str = Field(max_length=64)
    seat: int
    consecutive_timeouts: int = 0
    absent: bool = False
    vacation_days_used: int = 0
    vacation_until: datetime | None = Field(default=None, sa_type=DateTime(timezone=True))
    #: Whether the others were told this seat is away, since it last played a
    #: move itself: "X is away" is mailed once per stretch of absence, however
    #: often away/back is toggled meanwhile (issue 9).
    away_noticed: bool = False


@dataclass(frozen=True)
class ClockSettings:
    """The per-game settings chosen in the lobby, with defaults filled in."""

    deadline: timedelta
    reminders: tuple[str | float, ...]
    absent_after: int
    vacation_days: int

    @classmethod
    def from_options(cls, options: dict[str, Any] | None) -> "ClockSettings":
        """Read a game's options; unknown or bad values fall back to defaults.

        Accepted keys: ``deadline_hours`` (or ``deadline_days``), ``reminders``
        (list of "half" or hours before), ``absent_after``, ``vacation_days``.
        """
        opts = options or {}
        hours = _positive(opts.get("deadline_hours"))
        if hours is None and _positive(opts.get("deadline_days")) is not None:
            hours = _positive(opts.get("deadline_days")) * 24
        reminders: list[str | float] = []
        raw = opts.get("reminders", DEFAULT_REMINDERS)
        if isinstance(raw, (str, int, float)):
            raw = [raw]
        for lead in raw if isinstance(raw, (list, tuple)) else DEFAULT_REMINDERS:
            if lead == "half":
                reminders.append("half")
            elif _positive(lead) is not None:
                reminders.append(float(lead))
        absent = opts.get("absent_after", DEFAULT_ABSENT_AFTER)
        vacation = opts.get("vacation_days", DEFAULT_VACATION_DAYS)
        return cls(
            deadline=timedelta(hours=hours or DEFAULT_DEADLINE_HOURS),
            reminders=tuple(reminders),
            absent_after=absent if isinstance(absent, int) and absent >= 1 else DEFAULT_ABSENT_AFTER,
            vacation_days=vacation if isinstance(vacation, int) and vacation >= 0 else DEFAULT_VACATION_DAYS,
        )

    def reminder_times(self, opened: datetime, due: datetime) -> list[datetime]:
        """When to remind for a window ``opened``..``due`` (sorted, distinct, inside it)."""
        times: set[datetime] = set()
        for lead in self.reminders:
            at = opened + (due - opened) / 2 if lead == "half" else due - timedelta(hours=float(lead))
            if opened < at < due:
                times.add(at)
        return sorted(times)


def as_utc(moment: datetime) -> datetime:
    """An aware UTC datetime: SQLite gives stored times back naive (they are UTC)."""
    if moment.tzinfo is None:
        return moment.replace(tzinfo=timezone.utc)
    return moment.astimezone(timezone.utc)


def _positive(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        return None
    try:
        number = float(value)
    except ValueError:
        return None
    return number if number > 0 else None


def transaction_memo(session: Session) -> dict[str, Any]:
    """A dict that lives as long as the session's current transaction.

    What one transaction read (a game's seat rows, an address's preferences)
    is remembered here; a new transaction (after a commit or a rollback)
    starts with an empty memo, so nothing another transaction wrote is missed.
    """
    transaction = session.get_transaction()
    if transaction is None:
        session.connection()  # begin now (no statement is sent), so the memo has an owner
        transaction = session.get_transaction()
    memo = session.info.get("silver_eye_memo")
    if memo is None or memo["transaction"] is not transaction:
        memo = {"transaction": transaction}
        session.info["silver_eye_memo"] = memo
    return memo


def remembered(session: Session, table: type[SQLModel], game_id: str, seat: int) -> Any:
    """The one row of ``table`` for this seat, as the ORM object (for code that
    changes it through the session); ``peeked`` gives it as read, for code that
    only reads it or writes it with ``write_through``."""
    row = peeked(session, table, game_id, seat)
    if isinstance(row, Stored):  # read as columns with the seats: an object from now on
        row = _seat_rows(session)[(table.__name__, game_id, seat)] = as_object(session, row)
    return row


def peeked(session: Session, table: type[SQLModel], game_id: str, seat: int) -> Any:
    """The one row of ``table`` for this seat, as this transaction holds it (``Stored``
    values, or the ORM object once someone asked ``remembered`` for it); the game's
    rows are read once per transaction.

    Every action reads seat clock and mail rows several times (the hook,
    each mail, ``is_absent`` for each seat that may play automatically), for
    several seats; one query brings every seat's row of the game, and the
    transaction remembers which seats have none yet. Rows created since are
    registered with ``remember`` by the code that creates them.
    """
    memo = _seat_rows(session)
    loaded_games = memo.setdefault("loaded", set())
    if (table.__name__, game_id) not in loaded_games:
        for row in session.exec(select(table).where(col(table.game_id) == game_id)):  # type: ignore[attr-defined]
            memo[(table.__name__, game_id, row.seat)] = row
        loaded_games.add((table.__name__, game_id))
    row = memo.get((table.__name__, game_id, seat))
    if row is not None and not isinstance(row, Stored) and row not in session:
        # expunged meanwhile: ask again
        row = session.exec(select(table).where(col(table.game_id) == game_id,  # type: ignore[attr-defined]
                                               col(table.seat) == seat)).first()  # type: ignore[attr-defined]
        memo[(table.__name__, game_id, seat)] = row
    return row


def _seat_rows(session: Session) -> dict[Any, Any]:
    return transaction_memo(session).setdefault("seat_rows", {})


def remember_all(session: Session, table: type[SQLModel], game_id: str,
                 rows: Iterable[dict[str, Any]]) -> None:
    """Register every row of ``table`` a game has, read as columns by the caller's own
    query (the services read them with the seats), so ``peeked`` asks no more."""
    memo = _seat_rows(session)
    for values in rows:
        memo[(table.__name__, game_id, values["seat"])] = Stored(table, values)
    memo.setdefault("loaded", set()).add((table.__name__, game_id))


def write_through(session: Session, row: Any, **values: Any) -> None:
    """Change a seat row at once with one Core UPDATE, and the row held with it
    (``Stored`` values or the ORM object), without a unit-of-work flush: a move
    changes a seat's mail row every time, and the flush cost more than the
    UPDATE it sends."""
    if row.id is None:  # an ORM object not inserted yet: let the flush write it whole
        session.flush()
    table = (row.model if isinstance(row, Stored) else type(row)).__table__
    session.connection().execute(update(table).where(table.c.id == row.id).values(**values))
    note(row, **values)


def remember(session: Session, row: Any) -> None:
    """Register a seat row just created in this transaction (see ``remembered``)."""
    memo = transaction_memo(session).setdefault("seat_rows", {})
    memo[(type(row).__name__, row.game_id, row.seat)] = row


def seat_clock(session: Session, game_id: str, seat: int) -> SeatClock:
    """The seat's clock row, created on first use (inside the caller's transaction)."""
    row = remembered(session, SeatClock, game_id, seat)
    if row is None:
        row = SeatClock(game_id=game_id, seat=seat)
        session.add(row)
        session.flush()
        remember(session, row)
    return row


@dataclass(frozen=True)
class Opened:
    """A decision's deadline as ``open_decision`` wrote it: when it falls due, and the
    step it was opened at (what the seat's turn mail names)."""

    seat: int
    opened_step: int
    due_at: datetime


def open_decision(session: Session, game_id: str, seat: int, step: int, now: datetime,
                  settings: ClockSettings, *, remind: bool = True) -> Opened:
    """Write the deadline (and its reminders) for a decision that just opened.

    A seat on vacation gets its window counted from the end of the vacation.
    """
    now = as_utc(now)
    clock = peeked(session, SeatClock, game_id, seat) or seat_clock(session, game_id, seat)
    start = now
    if clock.vacation_until is not None and as_utc(clock.vacation_until) > now:
        start = as_utc(clock.vacation_until)
    due = start + settings.deadline
    rows = [{"kind": DECISION, "due_at": due}]
    if remind:
        rows += [{"kind": REMINDER, "due_at": at} for at in settings.reminder_times(start, due)]
    if session.get_bind().dialect.name == "postgresql":
        # one statement: the rows as arrays, and the close a turn that just ended left
        # waiting (``close_turn``), so a turn passing from one seat to the next is one
        # UPDATE and one INSERT in a single round trip
        carried = take(session, CLOSING)
        session.connection().execute(_open_with_arrays(carried is not None), {
            "new_game_id": game_id, "new_seat": seat, "new_opened_step": step,
            "new_opened_at": now, "kinds": [row["kind"] for row in rows],
            "dues": [row["due_at"] for row in rows], **(carried or {})})
    else:  # one executemany of a statement built once
        session.connection().execute(_INSERT_DEADLINE, [
            {"game_id": game_id, "seat": seat, "opened_step": step, "opened_at": now,
             "fired_at": None, "done_at": None, "outcome": None, **row} for row in rows])
    return Opened(seat, step, due)


_INSERT_DEADLINE = insert(Deadline.__table__)  # type: ignore[attr-defined]


@functools.cache
def _open_with_arrays(carrying: bool) -> Any:
    """PostgreSQL, built once: ``INSERT INTO deadline ... SELECT ... FROM unnest(:kinds,
    :dues)``, one row for each kind and due time (an executemany went through psycopg's
    pipeline, which cost more than the statement, and a multi-row ``VALUES`` built
    for each count was compiled afresh on every execution); ``carrying``: with the
    pending close of a seat's open deadlines (``close_turn``) as a CTE."""
    table = Deadline.__table__  # type: ignore[attr-defined]
    each = func.unnest(cast(bindparam("kinds"), ARRAY(table.c.kind.type)),
                       cast(bindparam("dues"), ARRAY(table.c.due_at.type))
                       ).table_valued("kind", "due_at").render_derived(name="each")
    # named apart from the columns, so the carried UPDATE takes none of them as its own
    shared = {key: bindparam(f"new_{key}", type_=table.c[key].type)
              for key in ("game_id", "seat", "opened_step", "opened_at")}
    statement = insert(table).from_select(
        [*shared, "kind", "due_at"], select(*shared.values(), each.c.kind, each.c.due_at))
    return (statement.add_cte(_close(True, (DECISION, REMINDER)).cte("closed")) if carrying
            else statement)


def close_open(session: Session, game_id: str, now: datetime, outcome: str, *,
               seat: int | None = None, kinds: Iterable[str] = (DECISION, REMINDER)) -> int:
    """Close a game's (or one seat's) open deadlines; returns how many closed.

    A Core UPDATE built once for each choice of kinds (no Deadline is held as an
    object to keep in step): the ORM's bulk update cost more than it."""
    send(session, CLOSING)
    return session.connection().execute(_close(seat is not None, tuple(kinds)), {
        "of_game": game_id, "of_seat": seat, "at": now, "why": outcome}).rowcount


def close_turn(session: Session, game_id: str, seat: int, now: datetime, outcome: str) -> None:
    """A seat's turn ended: its open decision and reminders close.

    On PostgreSQL the UPDATE waits for the decision the move opens next, which
    carries it (``open_decision``): a turn that passes from one seat to another is
    then one statement. Anything else that touches deadlines in the transaction,
    and the commit, send it first (``db.hold``); a rollback drops it."""
    if session.get_bind().dialect.name == "postgresql":
        hold(session, CLOSING, _close(True, (DECISION, REMINDER)),
             {"of_game": game_id, "of_seat": seat, "at": now, "why": outcome})
    else:
        close_open(session, game_id, now, outcome, seat=seat)


#: The kind of write ``db.hold`` keeps for a seat's close (``close_turn``) not sent yet.
CLOSING = "close of a seat's deadlines"


@functools.cache
def _close(one_seat: bool, kinds: tuple[str, ...]) -> Any:
    """The kinds are written into the statement (a handful of choices, each built
    once): an ``IN`` of bound values is expanded afresh on every execution, which
    was a third of the statement's cost."""
    table = Deadline.__table__  # type: ignore[attr-defined]
    statement = (update(table)
                 .where(table.c.game_id == bindparam("of_game"), table.c.done_at.is_(None),
                        or_(*(table.c.kind == literal(kind) for kind in kinds)))
                 .values(done_at=bindparam("at"), outcome=bindparam("why")))
    return statement.where(table.c.seat == bindparam("of_seat")) if one_seat else statement


def open_rows(session: Session, game_id: str, seat: int | None = None,
              kind: str | None = None) -> list[Deadline]:
    """The open deadlines of a game (or a seat), earliest first."""
    send(session, CLOSING)
    query = select(Deadline).where(Deadline.game_id == game_id, col(Deadline.done_at).is_(None))
    if seat is not None:
        query = query.where(Deadline.seat == seat)
    if kind is not None:
        query = query.where(Deadline.kind == kind)
    return list(session.exec(query.order_by(col(Deadline.due_at), col(Deadline.id))))


def shift_open(session: Session, game_id: str, seat: int, now: datetime,
               until: datetime) -> None:
    """Push a seat's open deadlines past ``until`` (vacation), keeping the time left.

    A deadline due in 5 hours when a 7-day vacation starts is due 5 hours
    after the vacation ends; its reminders move with it.
    """
    for row in open_rows(session, game_id, seat):
        if row.kind in (DECISION, REMINDER):
            left = max(as_utc(row.due_at) - as_utc(now), timedelta(0))
            row.due_at = until + left
            session.add(row)


def schedule_digest(session: Session, game_id: str, seat: int, now: datetime,
                    last_digest_at: datetime | None, period: timedelta) -> None:
    """At most one digest a period: reuse an open digest row, else schedule one."""
    if open_rows(session, game_id, seat, DIGEST):
        return
    now = as_utc(now)
    due = max(now, as_utc(last_digest_at) + period) if last_digest_at else now
    session.add(Deadline(game_id=game_id, seat=seat, kind=DIGEST, due_at=due,
                         opened_step=0, opened_at=now))
