"""Deadlines and each seat's clock state, kept in the database (never in memory).

A decision deadline is written when a seat gets a pending decision and closed
(``done_at`` set) in the same transaction as the action that ends it, so a
clock killed at any moment loses nothing: the next tick finds the same open
rows with the partial index on ``due_at``. Reminders are rows of their own, and so is
a vote's expiry (issue 21).

Long because: the two tables (``Deadline``, ``SeatClock``) and every change any path
makes to them live together (a move's netted opens and closes, a time bank's charge,
a decision moved by more time or the operator, a vacation, a vote's expiry), so what a
row means and how it is written cannot drift apart. The settings they follow are
``app.clock.settings``, the calendar they are counted on ``app.clock.calendar``.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Iterable

from sqlalchemy import DateTime, Index, Table, UniqueConstraint, insert, or_, text, update
from sqlalchemy import select as sa_select
from sqlmodel import Field, Session, SQLModel, col, select

from app.clock.calendar import Calendar
# re-exported (the ``X as X`` form): callers read the clock's settings and time
# through this module, as ``dl.ClockSettings``, ``dl.span_words`` and ``dl.now()``
from app.clock.settings import ALWAYS
from app.clock.settings import ClockSettings as ClockSettings, span_words as span_words  # noqa: F401
from app.clock.time import as_utc as as_utc, at as at, now as now  # noqa: F401
from app.db.statements import Close, Insert, Update, Write, table_of
from app.db.unit import Row, Unit

#: What a row asks the clock to do; a ``vote`` row is a vote's expiry (issue 21), the
#: vote named by ``ref_id``.
DECISION, REMINDER, DIGEST, VOTE = "decision", "reminder", "digest", "vote"

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
    #: A ``vote`` row: the vote that expires at ``due_at`` (issue 21).
    ref_id: int | None = None
    #: A decision of a time-bank game: the running time the seat may take without
    #: touching its bank (the allowance, plus any time given or paused since); what it
    #: takes past this comes off its bank when the decision closes (issue 21 item 2).
    budget_seconds: int | None = None


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
    #: A time-bank game (issue 21 item 2): the seconds of its bank this seat used so
    #: far (the time it took past each decision's allowance); what is left is the
    #: game's bank less this.
    bank_used_seconds: int = 0


def clock_row(unit: Unit, game_id: str, seat: int) -> Row | None:
    """The seat's clock row as this transaction holds it (None: it has none yet);
    every seat's row of the game is read once (a move reads them with its seats)."""
    return unit.seat_row(_CLOCKS, game_id, seat)


def seat_clock(unit: Unit, game_id: str, seat: int) -> Row:
    """The seat's clock row, created now when it has none (one INSERT; a racing
    transaction that created it first wins, and its row is read)."""
    row = clock_row(unit, game_id, seat)
    if row is not None:
        return row
    return unit.create_seat_row(_CLOCKS, {
        "game_id": game_id, "seat": seat, "consecutive_timeouts": 0, "absent": False,
        "vacation_days_used": 0, "vacation_until": None, "away_noticed": False,
        "bank_used_seconds": 0})


@dataclass(frozen=True)
class Opened:
    """A decision's deadline as ``open_decision`` wrote it: when it falls due, and the
    step it was opened at (what the seat's turn mail names)."""

    seat: int
    opened_step: int
    due_at: datetime


class Changes:
    """A transaction's changes to deadline rows, netted, for its unit to send at once.

    A move closes the deadlines of the seats whose decision ended and opens those of
    the seats that started waiting; a step of the same move may close what an earlier
    one opened. Sent as one statement (``Unit.write``), each change would see the rows
    as the move found them, so they are netted here first: a row opened and closed
    in the same move is inserted closed; each open row found in the database closes
    once, with the first outcome that closes it; a row a rare path marks (a timeout's
    ``fired_at``, a vacation's new ``due_at``) is changed whole by one UPDATE of its
    own, its close included, and left out of the others.
    """

    def __init__(self) -> None:
        self.opens: list[dict[str, Any]] = []
        #: (game, seat or None for every seat, kinds, outcome, when), in order.
        self.closes: list[tuple[str, int | None, tuple[str, ...], str, datetime]] = []
        #: id -> (game, seat, kind, values) of rows found open and changed by a rare path.
        self.touched: dict[int, tuple[str, int, str, dict[str, Any]]] = {}

    @property
    def pending(self) -> bool:
        return bool(self.opens or self.closes or self.touched)

    def open(self, rows: list[dict[str, Any]]) -> None:
        self.opens.extend(rows)

    def close(self, game_id: str, seat: int | None, kinds: tuple[str, ...], outcome: str,
              now: datetime) -> None:
        for row in self.opens:
            if (row["done_at"] is None and row["game_id"] == game_id and row["kind"] in kinds
                    and (seat is None or row["seat"] == seat)):
                row["done_at"], row["outcome"] = now, outcome
        self.closes.append((game_id, seat, kinds, outcome, now))

    def closing(self, game_id: str, seat: int, kind: str) -> tuple[str, datetime] | None:
        """The first close of this transaction that takes an open row of ``seat`` and
        ``kind`` found in the database: ``(outcome, when)``, None if none does."""
        for game, each, kinds, outcome, at in self.closes:
            if game == game_id and kind in kinds and each in (None, seat):
                return outcome, at
        return None

    def touch(self, row: Row, **values: Any) -> None:
        """Change a row found open (by id), in memory and when the unit is written."""
        held = self.touched.setdefault(int(row.id), (row.game_id, row.seat, row.kind, {}))
        held[3].update(values)
        row.values.update(values)

    def writes(self) -> list[Write]:
        table = _DEADLINES
        found: list[Write] = []
        taken: dict[str, set[tuple[int, str]]] = {}
        every: dict[str, set[str]] = {}
        for row_id, (game, row_seat, kind, values) in self.touched.items():
            closed = self.closing(game, row_seat, kind)
            if closed is not None:
                values = {"done_at": closed[1], "outcome": closed[0], **values}
            found.append(Update(table, row_id, values))
        skip = tuple(sorted(self.touched))
        for game, seat, kinds, outcome, at in self.closes:
            pairs, wide = taken.setdefault(game, set()), every.setdefault(game, set())
            if seat is not None:
                mine = tuple(kind for kind in kinds
                             if kind not in wide and (seat, kind) not in pairs)
                if not mine:
                    continue
                pairs.update((seat, kind) for kind in mine)
                found.append(Close(table, game, at, outcome, seat, mine, skip=skip))
            else:
                fresh = tuple(kind for kind in kinds if kind not in wide)
                if not fresh:
                    continue
                apart = tuple(sorted((s, k) for s, k in pairs if k in fresh))
                wide.update(fresh)
                found.append(Close(table, game, at, outcome, None, fresh, apart, skip))
        if self.opens:
            found.append(Insert(table, [dict(row) for row in self.opens]))
        self.opens, self.closes, self.touched = [], [], {}
        return found


def changes(unit: Unit) -> Changes:
    """This transaction's netted deadline changes (``Unit.write`` sends them)."""
    return unit.part(Changes)


def open_decision(unit: Unit, game_id: str, seat: int, step: int, now: datetime,
                  settings: ClockSettings, *, remind: bool = True,
                  calendar: Calendar | None = None,
                  paused_until: datetime | None = None) -> Opened:
    """Queue the deadline (and its reminders) of a decision that just opened.

    Its time is counted on the seat's ``calendar`` (issue 21 item 1: only on the game's
    running days, in the seat's zone; it never falls due in the seat's quiet hours):
    the game's fixed deadline, or, in a time-bank game, the allowance plus what is left
    of the seat's bank (item 2; the allowance and any pause are the row's
    ``budget_seconds``, what is taken past them comes off the bank: ``charge_bank``).
    A seat on vacation gets its window counted from the end of the vacation, and so
    does a seat whose person is away from all their games (``paused_until``: issue 47
    item 5, ``app.people.away.pause_of``).
    """
    now = as_utc(now)
    cal = calendar or settings.calendar()
    clock = seat_clock(unit, game_id, seat)  # (made with the seat's first decision)
    start = now
    if clock.vacation_until is not None and as_utc(clock.vacation_until) > now:
        start = as_utc(clock.vacation_until)
    if paused_until is not None and as_utc(paused_until) > start:
        start = as_utc(paused_until)
    budget: int | None = None
    if settings.banked:
        assert settings.allowance is not None
        duration = settings.allowance + settings.bank_left(clock)
        paused = cal.used(now, start)  # (a vacation: not the seat's time to pay for)
        budget = int((settings.allowance + paused).total_seconds())
    else:
        duration = settings.deadline
    due = cal.due(start, duration)
    dues = [(DECISION, due)]
    if remind:
        dues += [(REMINDER, at) for at in settings.reminder_times(start, due, cal)]
    rows = [_new_row(game_id, seat, kind, at, step, now) for kind, at in dues]
    rows[0]["budget_seconds"] = budget
    changes(unit).open(rows)
    unit.sent()
    return Opened(seat, step, due)


def charge_bank(unit: Unit, game_id: str, seat: int, now: datetime,
                settings: ClockSettings, calendar: Calendar) -> timedelta | None:
    """A time-bank game: the seat's decision ends because it acted (or its time ran
    out): the running time it took past the decision's budget comes off its bank
    (never below empty). Asked before the decision's row is closed in the same
    transaction. Returns what came off (None: no bank in this game, or no row)."""
    if not settings.banked:
        return None
    rows = [row for row in open_now(unit, game_id, seat, DECISION) if row.id is not None]
    if not rows or rows[0].budget_seconds is None:
        return None
    row = rows[0]
    taken = calendar.used(as_utc(row.opened_at), as_utc(now))
    over = taken - timedelta(seconds=int(row.budget_seconds))
    clock = seat_clock(unit, game_id, seat)
    left = settings.bank_left(clock)
    charged = min(max(over, timedelta(0)), left)
    if charged > timedelta(0):
        unit.update(clock, bank_used_seconds=int(clock.bank_used_seconds or 0)
                    + int(charged.total_seconds()))
    return charged


def _new_row(game_id: str, seat: int, kind: str, due: datetime, step: int,
             now: datetime) -> dict[str, Any]:
    return {"game_id": game_id, "seat": seat, "kind": kind, "due_at": due,
            "opened_step": step, "opened_at": now, "fired_at": None, "done_at": None,
            "outcome": None, "lease_owner": None, "lease_until": None, "ref_id": None,
            "budget_seconds": None}


def close_open(unit: Unit, game_id: str, now: datetime, outcome: str, *,
               seat: int | None = None, kinds: Iterable[str] = (DECISION, REMINDER)) -> None:
    """Close a game's (or one seat's) open deadlines, with the transaction's writes."""
    changes(unit).close(game_id, seat, tuple(kinds), outcome, now)
    unit.sent()


def close_turn(unit: Unit, game_id: str, seat: int, now: datetime, outcome: str) -> None:
    """A seat's turn ended: its open decision and reminders close."""
    close_open(unit, game_id, now, outcome, seat=seat)


def open_now(unit: Unit, game_id: str, seat: int, kind: str | None = None) -> list[Row]:
    """A seat's open deadlines as this transaction leaves them, earliest first: those
    found in the database that no change of the transaction closes (read once per
    seat), and those it opens (no ``id`` yet: a change to one of them is made to the
    row it will insert)."""
    found = unit.facts.setdefault(OPEN_READ, {})
    if (game_id, seat) not in found:
        found[(game_id, seat)] = [Row(_DEADLINES, values) for values in
                                  unit.session.connection().execute(
                                      sa_select(_DEADLINES).where(
                                          _DEADLINES.c.game_id == game_id,
                                          _DEADLINES.c.seat == seat,
                                          _DEADLINES.c.done_at.is_(None))
                                      .order_by(_DEADLINES.c.due_at, _DEADLINES.c.id)).mappings()]
    pending = changes(unit)
    rows = [row for row in found[(game_id, seat)]
            if pending.closing(game_id, seat, row.kind) is None and row.done_at is None]
    rows += [Row.sharing(_DEADLINES, values) for values in pending.opens
             if values["game_id"] == game_id and values["seat"] == seat
             and values["done_at"] is None]
    if kind is not None:
        rows = [row for row in rows if row.kind == kind]
    return sorted(rows, key=lambda row: as_utc(row.due_at))


#: ``Unit.facts`` key: each seat's open deadlines as the database held them.
OPEN_READ = "open deadlines read"


def schedule_digest(unit: Unit, game_id: str, seat: int, now: datetime,
                    last_digest_at: datetime | None, period: timedelta) -> None:
    """At most one digest a period: reuse an open digest row, else schedule one."""
    if open_now(unit, game_id, seat, DIGEST):
        return
    now = as_utc(now)
    due = max(now, as_utc(last_digest_at) + period) if last_digest_at else now
    changes(unit).open([_new_row(game_id, seat, DIGEST, due, 0, now)])
    unit.sent()


def open_rows(session: Session, game_id: str, seat: int | None = None,
              kind: str | None = None) -> list[Deadline]:
    """The open deadlines of a game (or a seat), earliest first, as ORM objects: for
    code outside a move (the clock, the seat page, a vacation)."""
    query = select(Deadline).where(Deadline.game_id == game_id, col(Deadline.done_at).is_(None))
    if seat is not None:
        query = query.where(Deadline.seat == seat)
    if kind is not None:
        query = query.where(Deadline.kind == kind)
    return list(session.exec(query.order_by(col(Deadline.due_at), col(Deadline.id))))


def shift_open(session: Session, game_id: str, seat: int, now: datetime,
               until: datetime, calendar: Calendar | None = None) -> None:
    """Push a seat's open deadlines past ``until`` (vacation), keeping the time left.

    A deadline due in 5 hours of the seat's running time when a 7-day vacation starts
    is due 5 running hours after the vacation ends (and out of its quiet hours); its
    reminders move with it. A time-bank decision's budget grows by the pause, so the
    vacation is not taken from the seat's bank.
    """
    cal = calendar or ALWAYS
    now = as_utc(now)
    for row in open_rows(session, game_id, seat):
        if row.kind in (DECISION, REMINDER):
            left = cal.used(now, as_utc(row.due_at))
            values: dict[str, Any] = {
                "due_at": cal.due(until, left) if row.kind == DECISION else cal.add(until, left)}
            if row.kind == DECISION and row.budget_seconds is not None:
                values["budget_seconds"] = (int(row.budget_seconds)
                                            + int(cal.used(now, until).total_seconds()))
            session.execute(update(_DEADLINES).where(_DEADLINES.c.id == row.id).values(values))


class Busy(RuntimeError):
    """A clock holds the row's lease right now (it is firing it): try again in a minute."""


def unleased_update(session: Session, row_id: int, now: datetime, **values: Any) -> int:
    """Change one open deadline row unless a clock holds its lease now; how many rows
    changed (on PostgreSQL the UPDATE waits for a claim and then finds the lease)."""
    done = session.exec(update(Deadline).where(
        col(Deadline.id) == row_id, col(Deadline.done_at).is_(None),
        or_(col(Deadline.lease_until).is_(None), col(Deadline.lease_until) < now))
        .values(**values))
    return int(done.rowcount or 0)


def move_decision(session: Session, row: Deadline, after: datetime, now: datetime,
                  settings: ClockSettings, calendar: Calendar | None = None, *,
                  credit: timedelta = timedelta(0)) -> list[datetime]:
    """Move a seat's open decision deadline to ``after`` (more time given by a seat,
    issue 21 item 3, or by the operator), with its reminders: the seat's open ones are
    dropped and planned again for the new window, as when the decision opened (those
    still to come). ``credit``: running time added to a time-bank decision's budget,
    so the time given is not taken from the bank. Returns the new reminder times.
    ``Busy`` when a clock is firing the row right now (nothing changed)."""
    now = as_utc(now)
    values: dict[str, Any] = {"due_at": after}
    if row.budget_seconds is not None:
        values["budget_seconds"] = int(row.budget_seconds) + int(credit.total_seconds())
    assert row.id is not None
    if unleased_update(session, row.id, now, **values) != 1:
        raise Busy("The clock is playing this deadline right now: try again in a minute.")
    for reminder in open_rows(session, row.game_id, row.seat, REMINDER):
        assert reminder.id is not None
        unleased_update(session, reminder.id, now, done_at=now, outcome="cancelled")
    times = [at for at in settings.reminder_times(as_utc(row.opened_at), after, calendar)
             if at > now]
    if times:
        session.execute(insert(_DEADLINES), [
            {"game_id": row.game_id, "seat": row.seat, "kind": REMINDER, "due_at": at,
             "opened_step": row.opened_step, "opened_at": row.opened_at} for at in times])
    return times


def open_vote_expiry(session: Session, game_id: str, seat: int, vote_id: int,
                     step: int, now: datetime, due: datetime) -> None:
    """The expiry of a vote (issue 21): a row of kind ``vote`` the clock fires at
    ``due``, naming the vote; closed with the vote when it ends before."""
    session.execute(insert(_DEADLINES).values(
        game_id=game_id, seat=seat, kind=VOTE, due_at=due, opened_step=step,
        opened_at=as_utc(now), ref_id=vote_id))


def close_vote_expiry(session: Session, vote_id: int, now: datetime, outcome: str) -> None:
    """A vote ended: its expiry row closes (nothing left for the clock to do)."""
    session.exec(update(Deadline).where(col(Deadline.kind) == VOTE,
                                        col(Deadline.ref_id) == vote_id,
                                        col(Deadline.done_at).is_(None))
                 .values(done_at=as_utc(now), outcome=outcome))


_DEADLINES: Table = table_of(Deadline)
_CLOCKS: Table = table_of(SeatClock)
