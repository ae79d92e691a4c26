"""How a unit of work's queued writes become SQL (``app.db.unit``): one statement each
(SQLite, or a unit that sends as it goes), or every write a CTE of one statement
(PostgreSQL)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from sqlalchemy.dialects.postgresql import ARRAY
from sqlalchemy.dialects import postgresql, sqlite
from sqlmodel import SQLModel


def table_of(model: type[SQLModel]) -> sa.Table:
    """The table a SQLModel table model maps (what ``model.__table__`` is at run time,
    an attribute SQLModel does not declare to a type checker)."""
    table = sa.inspect(model).local_table
    if not isinstance(table, sa.Table):  # pragma: no cover - every model here has a table
        raise TypeError(f"{model.__name__} maps no table")
    return table


@dataclass(frozen=True)
class Ref:
    """The id of the row the keyed ``Insert`` ``key`` of the same unit writes (NULL
    when it wrote none: a conflict on its unique key)."""

    key: str


@dataclass
class Insert:
    """New rows of ``table``. ``conflict``: columns of a unique key; a row whose key is
    there already is not inserted (``ON CONFLICT DO NOTHING``). ``key``: the id of
    this (one) row can be named by later writes (``Ref(key)``). ``wake``: a
    PostgreSQL channel to notify when the row is written (a sender listens)."""

    table: sa.Table
    rows: list[dict[str, Any]]
    conflict: tuple[str, ...] = ()
    key: str | None = None
    wake: str | None = None
    #: Columns a row whose key is there already overwrites (``ON CONFLICT DO UPDATE``)
    #: instead of being dropped.
    replace: tuple[str, ...] = ()


@dataclass
class Update:
    """Changes to one row of ``table`` (by its ``id``), only where ``where`` (further
    conditions on ``table.c``) holds when the write is sent. A later ``Update`` of the
    same row is merged into this one: its values win, its conditions replace these."""

    table: sa.Table
    id: Any
    values: dict[str, Any]
    where: tuple[Any, ...] = ()


@dataclass
class Statement:
    """A write its owner built whole (values bound in it), touching no row another
    write of the unit touches."""

    statement: Any


Write = Insert | Update | Statement


def dialect_insert(table: sa.Table, dialect: str) -> postgresql.Insert | sqlite.Insert:
    """``INSERT INTO table`` of the dialect, which can say ``ON CONFLICT``."""
    if dialect == "postgresql":
        return postgresql.insert(table)
    if dialect == "sqlite":
        return sqlite.insert(table)
    raise RuntimeError(f"no insert for {dialect}")  # pragma: no cover - the two stores supported


def insert(write: Insert, dialect: str, row: dict[str, Any] | None = None) -> Any:
    """The INSERT of one ``row`` of ``write`` (its first when not given), or, with
    ``row={}``, the statement without values, for an executemany of all its rows.

    One row each, never a multi-row ``VALUES``: SQLAlchemy cannot cache the compiled
    form of a multi-row insert, and a move's statement compiled afresh on every POST
    cost more than the round trip it saved."""
    statement = dialect_insert(write.table, dialect)
    values = write.rows[0] if row is None else row
    if values:  # (a column left out is NULL, as a None in it would be: a shorter statement)
        statement = statement.values({key: value for key, value in values.items()
                                      if value is not None})
    if write.conflict and write.replace:
        statement = statement.on_conflict_do_update(
            index_elements=list(write.conflict),
            set_={column: statement.excluded[column] for column in write.replace})
    elif write.conflict:
        statement = statement.on_conflict_do_nothing(index_elements=list(write.conflict))
    if write.key is not None:
        return statement.returning(write.table.c.id)
    return statement


def rows_insert(write: Insert) -> Any:
    """PostgreSQL: the rows of ``write`` as one ``INSERT ... SELECT FROM unnest(...)``,
    one array per column: a statement of the same text (cached by SQLAlchemy and by
    psycopg) whatever the number of rows, which are inserted in their order (the ids
    follow it: the clock fires deadlines due at one moment in id order)."""
    table = write.table
    names = [name for name in write.rows[0] if any(row.get(name) is not None
                                                  for row in write.rows)]
    arrays = [sa.cast(sa.literal([row.get(name) for row in write.rows],
                                 type_=ARRAY(table.c[name].type)),
                      ARRAY(table.c[name].type)) for name in names]
    each = sa.func.unnest(*arrays).table_valued(*names).render_derived(name="each")
    statement = dialect_insert(table, "postgresql").from_select(
        names, sa.select(*(each.c[name] for name in names)))
    if write.conflict:
        statement = statement.on_conflict_do_nothing(index_elements=list(write.conflict))
    return statement


def update(write: Update, values: dict[str, Any]) -> Any:
    """``UPDATE table SET ... WHERE id = :id``: the row is found by its key alone, and
    the write's conditions guard each value (``CASE WHEN <conditions> THEN value ELSE
    column END``). Put in the WHERE clause, a condition such as ``status = 'pending'``
    let PostgreSQL walk a partial index of every pending row instead of the key (the
    cost of a move grew with the outbox: tests/mail/test_flat_cost.py)."""
    table = write.table
    if write.where:
        holds = sa.and_(*write.where)
        values = {key: sa.case((holds, value if isinstance(value, sa.ColumnElement)
                                else sa.literal(value, type_=table.c[key].type)),
                               else_=table.c[key])
                  for key, value in values.items()}
    return sa.update(table).where(table.c.id == write.id).values(values)


def groups(writes: list[Write]) -> list[list[Write]]:
    """PostgreSQL: the writes in at most two statements, the new keyed rows (a move's
    mail, with the marker rows that name them) apart from the rest.

    One statement would do, but psycopg parses a statement's placeholders afresh every
    time (it caches none over 4096 bytes or 50 parameters: ``MAX_CACHED_STATEMENT_*``),
    and a move that hands the turn on, with its turn mail, is about twice that: the
    parse cost more than the round trip it saved. Two statements each fit. No row is
    in both (an update of a row is merged into one), and neither reads what the other
    writes, so sending one after the other changes nothing."""
    def with_mail(write: Write) -> bool:
        return ((isinstance(write, Insert) and write.key is not None)
                or (isinstance(write, Update) and any(isinstance(v, Ref)
                                                      for v in write.values.values())))
    mail = [write for write in writes if with_mail(write)]
    rest = [write for write in writes if not with_mail(write)]
    return [group for group in (rest, mail) if group]


def one_statement(writes: list[Write], answer: str | None = None) -> Any:

    """PostgreSQL: every write a CTE of one ``WITH ... SELECT`` (inserts that wake a
    sender are selected from, with ``pg_notify``: delivered at commit, dropped on
    rollback, folded into one per transaction); ``answer``: the key of the insert
    whose id the statement returns."""
    # inserts first: an update may name the id one returns, and a CTE sees only those
    # before it (the order changes nothing else: every part sees the same snapshot)
    writes = ([w for w in writes if isinstance(w, Insert)]
              + [w for w in writes if not isinstance(w, Insert)])
    ctes: list[Any] = []
    keyed: dict[str, Any] = {}
    woken: list[tuple[str, Any]] = []
    for number, write in enumerate(writes):
        name = f"w{number}"
        if isinstance(write, Insert):
            for part, row in enumerate(write.rows[:1] if len(write.rows) > 1 else write.rows):
                statement = (insert(write, "postgresql", row) if len(write.rows) == 1
                             else rows_insert(write))
                if write.wake is not None and write.key is None:
                    statement = statement.returning(write.table.c.id)
                cte = statement.cte(f"{name}_{part}")
                if write.key is not None:
                    keyed[write.key] = cte
                if write.wake is not None:
                    woken.append((write.wake, cte))
                ctes.append(cte)
            continue
        if isinstance(write, Update):
            cte = update(write, {k: (sa.select(keyed[v.key].c.id).scalar_subquery()
                                      if isinstance(v, Ref) else v)
                                  for k, v in write.values.items()}).cte(name)
        else:
            cte = write.statement.cte(name)
        ctes.append(cte)
    if answer is not None:
        cte = keyed[answer]
        final = sa.select(cte.c.id, *(sa.func.pg_notify(channel, "") for channel, _ in woken[:1]))
    elif woken:
        channel = woken[0][0]
        ids = sa.union_all(*(sa.select(cte.c.id) for _, cte in woken)).subquery("woken")
        final = sa.select(sa.func.pg_notify(channel, "")).select_from(ids)
    else:
        final = sa.select(sa.literal(1))
    return final.add_cte(*ctes)
