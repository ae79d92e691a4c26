"""How a unit of work's queued writes become SQL (``app.db.unit``): one statement each
(SQLite, or a unit that sends as it goes), or every write a CTE of one statement
(PostgreSQL). Either way each shape of write is built once and kept (``single``,
``one_statement``): only the values change from one move to the next.

Long because: the two stores' statements are made from the same parts (a write's shape,
its guards, a close's conditions: ``_shape``, ``_guard``, ``_guarded``, ``_close``); in
two modules, SQLite's and PostgreSQL's forms of one write could drift apart unseen.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any, Callable

import sqlalchemy as sa
from sqlalchemy.dialects.postgresql import ARRAY
from sqlalchemy.dialects import postgresql, sqlite
from sqlmodel import SQLModel

from app.db.wake import notify, woken_returning


@functools.cache
def table_of(model: type[SQLModel]) -> sa.Table:
    """The table a SQLModel table model maps (what ``model.__table__`` is at run time,
    an attribute SQLModel does not declare to a type checker); looked up once a model
    (a move's read asks it a dozen times)."""
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
    PostgreSQL channel to notify when the row is written (a sender listens); the
    notification says when the earliest row written is due (``wake_payload``)."""

    table: sa.Table
    rows: list[dict[str, Any]]
    conflict: tuple[str, ...] = ()
    key: str | None = None
    wake: str | None = None
    #: Columns a row whose key is there already overwrites (``ON CONFLICT DO UPDATE``)
    #: instead of being dropped.
    replace: tuple[str, ...] = ()


#: A condition on one column of the written row, as data (so a statement can be built
#: once for its shape): ``(column, "eq", value)`` or ``(column, "null_or_before", when)``.
Guard = tuple[str, str, Any]


@dataclass
class Update:
    """Changes to one row of ``table`` (by its ``id``), only where every ``where``
    guard holds when the write is sent. A later ``Update`` of the same row is merged
    into this one: its values win, its guards replace these."""

    table: sa.Table
    id: Any
    values: dict[str, Any]
    where: tuple[Guard, ...] = ()


@dataclass
class Close:
    """Open rows of a game's ``table`` (deadlines: ``game_id``, ``seat``, ``kind``,
    ``done_at``, ``outcome``) closed at ``at`` with ``outcome``: of one ``seat`` (or of
    every seat), of ``kinds``, but for the seat-and-kind pairs ``apart`` and the rows
    ``skip`` that other writes of the unit close."""

    table: sa.Table
    game_id: str
    at: Any
    outcome: str
    seat: int | None
    kinds: tuple[str, ...]
    apart: tuple[tuple[int, str], ...] = ()
    skip: tuple[int, ...] = ()


@dataclass
class Statement:
    """A write its owner built whole (values bound in it), touching no row another
    write of the unit touches."""

    statement: Any


Write = Insert | Update | Close | Statement


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
    bound = {key: value if isinstance(value, sa.ColumnElement)
             else sa.literal(value, type_=table.c[key].type) for key, value in values.items()}
    holds = [_guard(table, column, op, sa.literal(value, type_=table.c[column].type))
             for column, op, value in write.where]
    return _guarded(table, sa.literal(write.id, type_=table.c.id.type), bound, holds)


def _guard(table: sa.Table, column: str, op: str, value: Any) -> Any:
    if op == "eq":
        return table.c[column] == value
    if op == "null_or_before":
        return sa.or_(table.c[column].is_(None), table.c[column] < value)
    raise ValueError(f"no guard {op!r}")


def _guarded(table: sa.Table, row_id: Any, values: dict[str, Any], holds: list[Any]) -> Any:
    if holds:
        held = sa.and_(*holds)
        values = {key: sa.case((held, value), else_=table.c[key])
                  for key, value in values.items()}
    return sa.update(table).where(table.c.id == row_id).values(values)


def close(write: Close) -> Any:
    """The UPDATE of a ``Close``, its values bound."""
    return _close(write, lambda name, value, type_: sa.literal(value, type_=type_))


def _close(write: Close, bind: Any) -> Any:
    table = write.table
    c = table.c
    which: list[Any] = [c.game_id == bind("game", write.game_id, c.game_id.type),
                        c.done_at.is_(None),
                        sa.or_(*(c.kind == sa.literal_column(f"'{kind}'") for kind in write.kinds))]
    if write.seat is not None:
        which.append(c.seat == bind("seat", write.seat, c.seat.type))
    for number, (seat, kind) in enumerate(write.apart):
        which.append(sa.not_(sa.and_(c.seat == bind(f"apart{number}", seat, c.seat.type),
                                     c.kind == sa.literal_column(f"'{kind}'"))))
    for number, row_id in enumerate(write.skip):
        which.append(c.id != bind(f"skip{number}", row_id, c.id.type))
    return (sa.update(table).where(*which)
            .values(done_at=bind("at", write.at, c.done_at.type),
                    outcome=bind("outcome", write.outcome, c.outcome.type)))


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


def one_statement(writes: list[Write], answer: str | None = None) -> tuple[Any, dict[str, Any]]:
    """PostgreSQL: the writes as one ``WITH ... SELECT`` and its parameters. The
    statement is built once for each shape (which writes, of which tables and columns,
    guarded how) with named parameters, and kept: SQLAlchemy then knows its compiled
    form by the object, psycopg its text, and a move only fills in the values (built
    afresh for every move, it cost more than a round trip). A unit with a ``Statement``
    of its own is built as it is."""
    ordered = ([w for w in writes if isinstance(w, Insert)]
               + [w for w in writes if not isinstance(w, Insert)])
    if any(isinstance(w, Statement) for w in ordered):
        return _built(ordered, answer), {}
    keyed = {w.key: n for n, w in enumerate(ordered) if isinstance(w, Insert) and w.key}
    shapes: list[tuple[Any, ...]] = []
    params: dict[str, Any] = {}
    for number, write in enumerate(ordered):
        shape, values = _shape(write, keyed)
        shapes.append(shape)
        params.update({f"w{number}_{name}": value for name, value in values.items()})
    shape_key = (tuple(shapes), keyed.get(answer) if answer is not None else None)
    statement = _TEMPLATES.get(shape_key)
    if statement is None:
        if len(_TEMPLATES) > 1024:  # (a few dozen shapes in practice)
            _TEMPLATES.clear()
        statement = _TEMPLATES[shape_key] = _template(shape_key)
    return statement, params


#: The statement of each shape of writes (``one_statement``).
_TEMPLATES: dict[tuple[Any, ...], Any] = {}

_TABLES: dict[str, sa.Table] = {}


def _shape(write: Write, keyed: dict[str, int]) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """What the statement of ``write`` looks like (hashable), and its values by name."""
    assert not isinstance(write, Statement)  # (built as it is: ``one_statement``)
    table = write.table
    _TABLES[table.name] = table
    if isinstance(write, Insert):
        if len(write.rows) == 1:
            row = {k: v for k, v in write.rows[0].items() if v is not None}
            return (("insert", table.name, tuple(row), write.conflict, write.replace,
                     write.key is not None, write.wake), row)
        names = tuple(n for n in write.rows[0] if any(r.get(n) is not None for r in write.rows))
        return (("rows", table.name, names, write.conflict, write.wake),
                {n: [r.get(n) for r in write.rows] for n in names})
    if isinstance(write, Update):
        columns = tuple((k, keyed[v.key] if isinstance(v, Ref) else None)
                        for k, v in write.values.items())
        values = {f"v_{k}": v for k, v in write.values.items() if not isinstance(v, Ref)}
        values.update({f"g{n}": g[2] for n, g in enumerate(write.where)})
        values["id"] = write.id
        return (("update", table.name, columns, tuple(g[:2] for g in write.where)), values)
    assert isinstance(write, Close)
    values = {"game": write.game_id, "at": write.at, "outcome": write.outcome}
    if write.seat is not None:
        values["seat"] = write.seat
    values.update({f"apart{n}": seat for n, (seat, _) in enumerate(write.apart)})
    values.update({f"skip{n}": row_id for n, row_id in enumerate(write.skip)})
    return (("close", table.name, write.seat is not None, write.kinds,
             tuple(kind for _, kind in write.apart), len(write.skip)), values)


def _shaped(dialect: str, shape: tuple[Any, ...], bind: Callable[[str, Any], Any],
            ref: Callable[[int], Any] = lambda _n: None) -> Any:
    """The statement of one write's ``shape`` (an ``insert``'s without its RETURNING, an
    ``update``, a ``close``), its values ``bind(name, type)`` parameters: what
    PostgreSQL's CTEs (``_template``) and SQLite's single statements (``single``) are
    both made of. ``ref(n)``: the id written by the unit's ``n``-th write (an update's
    value that names a row inserted before it; PostgreSQL only)."""
    table = _TABLES[shape[1]]
    if shape[0] == "insert":
        _, _, columns, conflict, replace, _keyed, _wake = shape
        statement = dialect_insert(table, dialect).values(
            {c: bind(c, table.c[c].type) for c in columns})
        if conflict and replace:
            return statement.on_conflict_do_update(
                index_elements=list(conflict),
                set_={c: statement.excluded[c] for c in replace})
        if conflict:
            return statement.on_conflict_do_nothing(index_elements=list(conflict))
        return statement
    if shape[0] == "update":
        _, _, columns, guards = shape
        values = {k: (ref(number) if number is not None
                      else bind(f"v_{k}", table.c[k].type)) for k, number in columns}
        holds = [_guard(table, column, op, bind(f"g{n}", table.c[column].type))
                 for n, (column, op) in enumerate(guards)]
        return _guarded(table, bind("id", table.c.id.type), values, holds)
    assert shape[0] == "close", shape
    _, _, one_seat, kinds, apart_kinds, skips = shape
    like = Close(table, "", None, "", 0 if one_seat else None, kinds,
                 tuple((0, kind) for kind in apart_kinds), tuple(range(skips)))
    return _close(like, lambda name, _value, type_: bind(name, type_))


def _template(shape_key: tuple[Any, ...]) -> Any:
    shapes, answer = shape_key
    ctes: list[Any] = []
    woken: list[tuple[str, Any]] = []
    for number, shape in enumerate(shapes):
        prefix = f"w{number}_"
        table = _TABLES[shape[1]]

        def bind(name: str, type_: Any, prefix: str = prefix) -> Any:
            return sa.bindparam(prefix + name, type_=type_)

        if shape[0] == "rows":
            _, _, names, conflict, wake = shape
            arrays = [sa.cast(bind(n, ARRAY(table.c[n].type)), ARRAY(table.c[n].type))
                      for n in names]
            each = sa.func.unnest(*arrays).table_valued(*names).render_derived(name="each")
            statement = dialect_insert(table, "postgresql").from_select(
                list(names), sa.select(*(each.c[n] for n in names)))
            if conflict:
                statement = statement.on_conflict_do_nothing(index_elements=list(conflict))
            cte = (statement.returning(*woken_returning(table)) if wake
                   else statement).cte(f"w{number}")
            if wake:
                woken.append((wake, cte))
        else:
            statement = _shaped("postgresql", shape, bind,
                                lambda n: sa.select(ctes[n].c.id).scalar_subquery())
            if shape[0] == "insert":
                _, _, _, _, _, keyed, wake = shape
                statement = (statement.returning(*woken_returning(table)) if wake
                             else statement.returning(table.c.id) if keyed else statement)
            cte = statement.cte(f"w{number}")
            if shape[0] == "insert" and wake:
                woken.append((wake, cte))
        ctes.append(cte)
    return _final(ctes, woken, ctes[answer] if answer is not None else None)


def single(write: Insert | Update | Close, dialect: str,
           refs: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
    """SQLite (which has no data-modifying CTEs): one write as its own statement, built
    once for each shape, as ``one_statement`` builds PostgreSQL's, and kept; the values
    (a ``Ref`` resolved from ``refs``, the ids this unit's keyed inserts got) go as
    parameters. Built afresh for every write, its expression tree and cache key cost a
    move more Python than all the rest of the unit (issue 46 item 4)."""
    if isinstance(write, Update) and any(isinstance(v, Ref) for v in write.values.values()):
        write = Update(write.table, write.id,
                       {k: refs.get(v.key) if isinstance(v, Ref) else v
                        for k, v in write.values.items()}, write.where)
    shape, params = _shape(write, {})
    shape_key = (dialect, shape)
    statement = _SINGLES.get(shape_key)
    if statement is None:
        if len(_SINGLES) > 1024:  # (a few dozen shapes in practice)
            _SINGLES.clear()
        statement = _SINGLES[shape_key] = _single_template(dialect, shape)
    return statement, {f"p_{name}": value for name, value in params.items()}


#: The statement of each shape of one write on its own (``single``).
_SINGLES: dict[tuple[Any, ...], Any] = {}


def _single_template(dialect: str, shape: tuple[Any, ...]) -> Any:
    statement = _shaped(dialect, shape,  # (a column's own name is SQLAlchemy's: p_ before)
                        lambda name, type_: sa.bindparam(f"p_{name}", type_=type_))
    keyed = shape[0] == "insert" and shape[5]
    return statement.returning(_TABLES[shape[1]].c.id) if keyed else statement


def _final(ctes: list[Any], woken: list[tuple[str, Any]], answer: Any) -> Any:
    if answer is not None:
        final = sa.select(answer.c.id, *([notify(woken)] if woken else []))
    elif woken:
        ids = sa.union_all(*(sa.select(cte.c.id) for _, cte in woken)).subquery("woken")
        final = sa.select(notify(woken)).select_from(ids).limit(1)
    else:
        final = sa.select(sa.literal(1))
    return final.add_cte(*ctes)


def _built(writes: list[Write], answer: str | None = None) -> Any:

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
                if write.wake is not None:  # (a keyed insert returns its id already)
                    statement = statement.returning(*woken_returning(write.table)[
                        1 if write.key is not None else 0:])
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
        elif isinstance(write, Close):
            cte = close(write).cte(name)
        else:
            cte = write.statement.cte(name)
        ctes.append(cte)
    if answer is not None:
        cte = keyed[answer]
        final = sa.select(cte.c.id, *([notify(woken)] if woken else []))
    elif woken:
        ids = sa.union_all(*(sa.select(cte.c.id) for _, cte in woken)).subquery("woken")
        final = sa.select(notify(woken)).select_from(ids).limit(1)
    else:
        final = sa.select(sa.literal(1))
    return final.add_cte(*ctes)
