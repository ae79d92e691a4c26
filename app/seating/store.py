"""The rows of open tables, read and written (issue 48): one home of their statements.

A sit-down or a click reads its table whole under the table's lock (``at_table``: the
table, its seats and its holds still in play, two statements) and writes through the
caller's unit of work. The list at ``/tables`` reads one page of open tables by
``ix_open_table_listed`` and the seated people of those tables only, with their standing,
in a second statement (``listed``): its cost is the page's, not the number of tables.
"""
from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Sequence

import sqlalchemy as sa
from sqlmodel import Session

from app.clock.time import as_utc
from app.db.statements import Insert, table_of
from app.db.unit import Row, Unit
from app.gamelog import store as log_store
from app.people.models import Person
from app.seating.models import (OPEN, OPEN_SEAT, STARTED, OpenTable, TableHold,
                                TableSeat)
from app.standing.models import Standing
from app.standing.record import Record

TABLES, SEATS, HOLDS = table_of(OpenTable), table_of(TableSeat), table_of(TableHold)
_PERSONS, _STANDING, _GAMES = table_of(Person), table_of(Standing), table_of(log_store.Game)


def new_id(size: int = 9) -> str:
    """A random id (a table's: 12 characters; a hold's, which its link signs: 22)."""
    return secrets.token_urlsafe(size)


@dataclass
class AtTable:
    """A table as a sit-down or a click holds it: the table, its seats by index, and its
    holds that may still matter (not given up)."""

    table: Row
    seats: list[Row]
    holds: list[Row]

    def live_holds(self, now: datetime, but: str | None = None) -> list[Row]:
        """Strangers' holds that keep an open seat now (not seated, not lapsed)."""
        return [h for h in self.holds if h.seat is None and h.seated_at is None
                and h.left_at is None and as_utc(h.held_until) > now and h.id != but]

    def empty(self) -> list[Row]:
        """The open seats nobody sits in yet, first seat first."""
        return [s for s in self.seats if s.kind == OPEN_SEAT and s.email is None]

    def free(self, now: datetime, but: str | None = None) -> int:
        """Open seats neither taken nor held for someone else."""
        return len(self.empty()) - len(self.live_holds(now, but))

    def person_keys(self, now: datetime) -> set[str]:
        """The people at the table: seated, named, or holding a seat now."""
        keys = {s.person_key for s in self.seats if s.person_key}
        return keys | {h.person_key for h in self.live_holds(now)}

    def waiting_for(self) -> list[Row]:
        """The seats still waiting: open ones, and named ones not confirmed yet."""
        return [s for s in self.seats
                if s.kind == OPEN_SEAT and s.email is None
                or s.kind != "bot" and s.email is not None and s.confirmed_at is None]


def at_table(session: Session, table_id: str) -> AtTable | None:
    """The table with its seats and its holds not given up (None: no such table)."""
    connection = session.connection()
    table = connection.execute(sa.select(TABLES).where(TABLES.c.id == str(table_id))
                               ).mappings().first()
    if table is None:
        return None
    seats = connection.execute(sa.select(SEATS).where(SEATS.c.table_id == table["id"])
                               .order_by(SEATS.c.index)).mappings().all()
    holds = connection.execute(sa.select(HOLDS).where(
        HOLDS.c.table_id == table["id"], HOLDS.c.left_at.is_(None))
        .order_by(HOLDS.c.asked_at, HOLDS.c.id)).mappings().all()
    return AtTable(Row(TABLES, table), [Row(SEATS, s) for s in seats],
                   [Row(HOLDS, h) for h in holds])


def hold(session: Session, hold_id: str) -> Row | None:
    values = session.connection().execute(
        sa.select(HOLDS).where(HOLDS.c.id == str(hold_id))).mappings().first()
    return Row(HOLDS, values) if values is not None else None


def record_of(session: Session, address: str) -> Record:
    """The reliability record of the person at ``address`` (nothing yet: new)."""
    row = session.connection().execute(
        sa.select(_STANDING).select_from(_STANDING.join(
            _PERSONS, _PERSONS.c.id == _STANDING.c.person_id))
        .where(sa.func.lower(_PERSONS.c.address) == address.lower())).mappings().first()
    return Record.of(Columns(row) if row is not None else None)


class Columns:
    """A mapping's columns as attributes (``Record.of`` and ``line`` read a row's)."""

    def __init__(self, values: Any) -> None:
        self.__dict__.update(dict(values))


def asks_since(session: Session, since: datetime, *, person_key: str | None = None,
               ip_key: str | None = None) -> int:
    """Asks to sit down since ``since`` by one address (its person key) or one network."""
    where = (HOLDS.c.person_key == person_key if person_key is not None
             else HOLDS.c.ip_key == ip_key)
    return int(session.connection().execute(sa.select(sa.func.count()).select_from(HOLDS)
                                            .where(where, HOLDS.c.asked_at > since,
                                                   HOLDS.c.seat.is_(None))).scalar() or 0)


def asks_at_other_spellings(session: Session, since: datetime, person_key: str,
                            address: str) -> int:
    """Join mails since ``since`` to ``person_key``'s inbox at another spelling than
    ``address`` (its other ``+tag``s): mail that the outbox's count of ``address`` does not
    see, though it lands in the same inbox (``ix_table_hold_person``)."""
    return int(session.connection().execute(
        sa.select(sa.func.count()).select_from(HOLDS).where(
            HOLDS.c.person_key == person_key, HOLDS.c.asked_at > since, HOLDS.c.seat.is_(None),
            sa.func.lower(HOLDS.c.email) != address.lower())).scalar() or 0)


def tables_created_by(session: Session, creator: str, since: datetime) -> int:
    """Tables opened by the lobby's key of one network address since ``since``."""
    return int(session.connection().execute(sa.select(sa.func.count()).select_from(TABLES)
                                            .where(TABLES.c.created_by == creator,
                                                   TABLES.c.created_at >= since)).scalar() or 0)


def in_play(session: Session, person_key: str, now: datetime) -> int:
    """The open-table games ``person_key`` is in and that have not ended: tables still
    open where they sit or hold a seat, and running games that began at an open table
    where they sat down."""
    connection = session.connection()
    seated_open = sa.select(SEATS.c.table_id).select_from(
        SEATS.join(TABLES, TABLES.c.id == SEATS.c.table_id)).where(
        SEATS.c.person_key == person_key, TABLES.c.status == OPEN)
    holding = sa.select(HOLDS.c.table_id).select_from(
        HOLDS.join(TABLES, TABLES.c.id == HOLDS.c.table_id)).where(
        HOLDS.c.person_key == person_key, HOLDS.c.seated_at.is_(None),
        HOLDS.c.left_at.is_(None), HOLDS.c.held_until > now, TABLES.c.status == OPEN)
    running = sa.select(SEATS.c.table_id).select_from(
        SEATS.join(TABLES, TABLES.c.id == SEATS.c.table_id)
        .join(_GAMES, _GAMES.c.id == TABLES.c.game_id)).where(
        SEATS.c.person_key == person_key, TABLES.c.status == STARTED,
        _GAMES.c.status == "running")
    every = sa.union(seated_open, holding, running).subquery()
    return int(connection.execute(sa.select(sa.func.count()).select_from(every)).scalar() or 0)


# -- writes ---------------------------------------------------------------------------

def open_table(unit: Unit, values: dict[str, Any], seats: Sequence[dict[str, Any]]) -> None:
    """A new table and its seats, queued on ``unit``."""
    unit.insert(Insert(TABLES, [values]))
    unit.insert(Insert(SEATS, [{"table_id": values["id"], **seat} for seat in seats]))


def new_hold(unit: Unit, values: dict[str, Any]) -> None:
    unit.insert(Insert(HOLDS, [values]))


def seat_hold(unit: Unit, table_id: str, index: int, hold: Row, now: datetime) -> None:
    """``hold``'s person sits in seat ``index`` (confirmed now)."""
    unit.statement(sa.update(SEATS).where(SEATS.c.table_id == table_id,
                                          SEATS.c.index == int(index))
                   .values(name=hold.name, email=hold.email, person_key=hold.person_key,
                           confirmed_at=now, hold_id=hold.id))
    unit.statement(sa.update(HOLDS).where(HOLDS.c.id == hold.id).values(seated_at=now))


def leave(unit: Unit, table_id: str, index: int, hold: Row, now: datetime) -> None:
    """``hold``'s person gives their open seat up: it is open again."""
    unit.statement(sa.update(SEATS).where(SEATS.c.table_id == table_id,
                                          SEATS.c.index == int(index))
                   .values(name=None, email=None, person_key=None, confirmed_at=None,
                           hold_id=None))
    unit.statement(sa.update(HOLDS).where(HOLDS.c.id == hold.id).values(left_at=now))


def bots_in(unit: Unit, table_id: str, indexes: Sequence[int]) -> None:
    """The creator's "start now": each still-open seat becomes a bot."""
    for index in indexes:
        unit.statement(sa.update(SEATS).where(SEATS.c.table_id == table_id,
                                              SEATS.c.index == int(index))
                       .values(kind="bot", name=f"Bot {index + 1}", confirmed_at=None))


def end(unit: Unit, table_id: str, status: str, now: datetime,
        game_id: str | None = None) -> None:
    """The table leaves the list: started (as ``game_id``), expired or closed."""
    unit.statement(sa.update(TABLES).where(TABLES.c.id == table_id, TABLES.c.status == OPEN)
                   .values(status=status, ended_at=now, game_id=game_id))


def due(session: Session, now: datetime, limit: int = 100) -> list[str]:
    """Open tables whose wait is over (``ix_open_table_wait``)."""
    return [str(v) for v in session.connection().execute(
        sa.select(TABLES.c.id).where(TABLES.c.status == OPEN, TABLES.c.wait_until <= now)
        .order_by(TABLES.c.wait_until).limit(limit)).scalars()]


# -- the list -------------------------------------------------------------------------

@dataclass(frozen=True)
class Listed:
    """One page of the list: its tables, their seats (with each seated person's
    standing row and whether they hide it), their live holds, and how many are open."""

    tables: list[dict[str, Any]]
    seats: dict[str, list[dict[str, Any]]]
    held: dict[str, int]
    total: int


def listed(session: Session, now: datetime, limit: int, offset: int = 0,
           only: str | None = None) -> Listed:
    """A page of the open tables, newest first (``only``: that one table, if open)."""
    connection = session.connection()
    # the status as a literal, as the partial indexes say it: a bound parameter keeps
    # SQLite from proving the index's WHERE, and it then read every open table's row to
    # count them (5.6 ms at 10,000 tables; 0.29 ms so: bench tables)
    where = [TABLES.c.status == sa.literal_column(f"'{OPEN}'"), TABLES.c.wait_until > now]
    if only is not None:
        where.append(TABLES.c.id == only)
    tables = [dict(t) for t in connection.execute(
        sa.select(TABLES).where(*where).order_by(TABLES.c.created_at.desc(), TABLES.c.id)
        .limit(limit).offset(offset)).mappings()]
    total = int(connection.execute(sa.select(sa.func.count()).select_from(TABLES)
                                   .where(*where)).scalar() or 0) if only is None else len(tables)
    ids = [t["id"] for t in tables]
    seats: dict[str, list[dict[str, Any]]] = {i: [] for i in ids}
    held: dict[str, int] = {i: 0 for i in ids}
    if ids:
        found = connection.execute(
            sa.select(SEATS.c.table_id, SEATS.c.index, SEATS.c.kind, SEATS.c.name,
                      SEATS.c.email.is_not(None).label("taken"), SEATS.c.confirmed_at,
                      _PERSONS.c.standing_hidden,
                      *[c for c in _STANDING.c if c.name != "name"])
            .select_from(SEATS.outerjoin(_PERSONS, sa.func.lower(_PERSONS.c.address)
                                         == sa.func.lower(SEATS.c.email))
                         .outerjoin(_STANDING, _STANDING.c.person_id == _PERSONS.c.id))
            .where(SEATS.c.table_id.in_(ids)).order_by(SEATS.c.table_id, SEATS.c.index)
        ).mappings()
        for row in found:
            seats[row["table_id"]].append(dict(row))
        for table_id, count in connection.execute(
                sa.select(HOLDS.c.table_id, sa.func.count()).where(
                    HOLDS.c.table_id.in_(ids), HOLDS.c.seat.is_(None),
                    HOLDS.c.seated_at.is_(None), HOLDS.c.left_at.is_(None),
                    HOLDS.c.held_until > now).group_by(HOLDS.c.table_id)).all():
            held[str(table_id)] = int(count)
    return Listed(tables, seats, held, total)
