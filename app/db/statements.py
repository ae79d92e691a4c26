"""How a unit of work's queued writes become SQL (``app.db.unit``): one statement each
(SQLite, or a unit that sends as it goes), or every write a CTE of one statement
(PostgreSQL)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa


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


def insert(write: Insert, dialect: str) -> Any:
    if dialect == "postgresql":
        from sqlalchemy.dialects.postgresql import insert as dialect_insert
    elif dialect == "sqlite":
        from sqlalchemy.dialects.sqlite import insert as dialect_insert
    else:  # pragma: no cover - the two stores the project supports
        raise RuntimeError(f"no insert for {dialect}")
    statement = dialect_insert(write.table).values(write.rows)
    if write.conflict and write.replace:
        statement = statement.on_conflict_do_update(
            index_elements=list(write.conflict),
            set_={column: statement.excluded[column] for column in write.replace})
    elif write.conflict:
        statement = statement.on_conflict_do_nothing(index_elements=list(write.conflict))
    if write.key is not None:
        statement = statement.returning(write.table.c.id)
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
            statement = insert(write, "postgresql")
            if write.wake is not None and write.key is None:
                statement = statement.returning(write.table.c.id)
            cte = statement.cte(name)
            if write.key is not None:
                keyed[write.key] = cte
            if write.wake is not None:
                woken.append((write.wake, cte))
        elif isinstance(write, Update):
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
