"""A write transaction's unit of work: the rows it read, and the writes it sends at the end.

Every transaction that changes a game goes through one ``Unit`` (Fowler's Unit of
Work, as eventsourcing's ``Repository`` saves an aggregate's pending events in one
go). It holds two things, both explicit, both on this object and nowhere else:

- **the rows read**, as ``Row`` values (plain columns, one identity per row: never
  an ORM object as well), keyed by table and seat or address. A move reads them all
  in one query (``services.move_read``); code that needs a row this transaction has
  not read asks the module that owns its table, which reads it once into the unit.
- **the writes queued**, as data: ``Insert`` (new rows, optionally keyed so that a
  later write can name the id they get: ``Ref``), ``Update`` (one row by id, changes
  merged per row) and ``Statement`` (a write its owner built, such as closing a
  seat's deadlines). ``write()`` sends them all: on PostgreSQL as one statement, each
  write a CTE of it (two when the unit queues mail, ``statements.groups``); elsewhere
  one plain statement each, in an order that gives the same result (statements
  first, then inserts, then updates).

Writes queued in a unit behave as if sent at once on the state before them (the one
snapshot of a PostgreSQL statement): each write sees the rows as the transaction
found them, never another queued write's effect, except an id named with ``Ref``.
The owners of tables keep that true by merging their own changes before they queue
them (``clock.deadlines.Changes`` nets a move's closes and opens; an ``Update`` of
a row already queued is merged into it). Code that must write *now* (rare paths: a
seat's clock row, a timeout's mark on its deadline) executes its statement on
``unit.session`` directly; such a write never touches a row a queued write changes.

Nothing here knows a table of the game: the owners of the tables queue the writes,
and ``services.repository.write_move`` sends a move's (read it to see them all).
"""
from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Iterator, Mapping, TypeVar

import sqlalchemy as sa
from sqlalchemy.engine import Engine
from sqlmodel import Session

from app.db import get_engine, statements
from app.db.statements import Close, Insert, Ref, Statement, Update, Write  # noqa: F401 - the unit's vocabulary


class Row:
    """One row as read: its columns as attributes, read-only to everyone but its unit.

    A change to it is queued on the unit (``Unit.update``) or written at once by its
    table's owner, and noted here (``Unit.noted``), so that what this transaction
    reads later is what it will have written."""

    __slots__ = ("table", "values")

    def __init__(self, table: sa.Table, values: Mapping[Any, Any]) -> None:
        """``values``: the columns by name (a dict, or a ``RowMapping`` as read)."""
        self.table = table
        self.values: dict[str, Any] = dict(values)

    @classmethod
    def sharing(cls, table: sa.Table, values: dict[str, Any]) -> "Row":
        """A row whose values *are* ``values`` (a row a unit will insert: changing the
        row changes what is inserted)."""
        row = cls(table, {})
        row.values = values
        return row

    @property
    def id(self) -> Any:
        """The primary key (None: a row not inserted yet)."""
        return self.values.get("id")

    def __getattr__(self, name: str) -> Any:
        try:
            return self.values[name]
        except KeyError:
            raise AttributeError(name) from None

    def __repr__(self) -> str:
        return f"Row({self.table.name}, {self.values!r})"


#: The class of a table owner's accumulator (``Unit.part``).
_Part = TypeVar("_Part")

#: ``Unit.facts`` key: the ``(table name, game id)`` whose seat rows the unit holds.
LOADED = "seat rows read"


@dataclass
class Unit:
    """One write transaction's rows and queued writes (see the module docstring)."""

    session: Session
    #: False: every write is sent as it is queued (a transaction that is not a move:
    #: a reminder, a digest, a fresh link, whose callers want to know at once whether
    #: a mail was queued); True (``unit_of_work``): sent together by ``write()``.
    queued: bool = True
    #: Rows read, by ``(table name, game id, seat)`` or ``(table name, key)``; None: the
    #: transaction looked, and there is no such row.
    rows: dict[tuple[Any, ...], Row | None] = field(default_factory=dict)
    #: What this transaction learnt that later steps ask (the seats that moved by
    #: reply, the games whose state cache was unusable...), by name, or by a tuple
    #: that begins with its owner's name (``(name, game id)``: one fact per game).
    facts: dict[Any, Any] = field(default_factory=dict)
    #: Per-transaction accumulators of the tables' owners (``clock.deadlines.Changes``),
    #: by class: made on first use, emptied by ``write``.
    parts: dict[type, Any] = field(default_factory=dict)
    _writes: list[Write] = field(default_factory=list)
    _updates: dict[tuple[str, Any], Update] = field(default_factory=dict)
    _inserts: dict[str, Insert] = field(default_factory=dict)
    _after_commit: list[Callable[[], None]] = field(default_factory=list)

    @property
    def dialect(self) -> str:
        return self.session.get_bind().dialect.name

    # -- queueing ---------------------------------------------------------------

    def insert(self, write: Insert) -> Any:
        """Queue ``write``; when the unit is not ``queued``, send it now and return the
        id of its (keyed) row, None if its key was there already."""
        if write.key is not None:
            if write.key in self._inserts:
                return None  # the same keyed row twice (an idempotency key): the first wins
            self._inserts[write.key] = write
        self._writes.append(write)
        if not self.queued:
            return self._now().get(write.key) if write.key is not None else None
        return None

    def update(self, row: Row, where: tuple[Any, ...] = (), **values: Any) -> None:
        """Queue a change of ``row`` (merged with one queued already) and note it on it."""
        self.update_id(row.table, row.values["id"], where, **values)
        row.values.update(values)

    def update_id(self, table: sa.Table, row_id: Any, where: tuple[Any, ...] = (),
                  **values: Any) -> None:
        if isinstance(row_id, Ref):  # a row this unit inserts: change what it inserts
            pending = self._inserts[row_id.key]
            pending.rows[0].update(values)
            return
        queued = self._updates.get((table.name, row_id))
        if queued is not None:
            queued.values.update(values)
            queued.where = where
            return
        write = Update(table, row_id, dict(values), where)
        self._updates[(table.name, row_id)] = write
        self._writes.append(write)
        if not self.queued:
            self._now()

    def statement(self, statement: Any) -> None:
        self._writes.append(Statement(statement))
        if not self.queued:
            self._now()

    def sent(self) -> None:
        """An owner's accumulator changed (``part``): send it now if the unit is not
        ``queued``."""
        if not self.queued:
            self._now()

    def _now(self) -> dict[str, Any]:
        refs: dict[str, Any] = {}
        self.write(refs=refs)
        return refs

    # -- the rows of a game's seats ----------------------------------------------------

    def seat_row(self, table: sa.Table, game_id: str, seat: int) -> Row | None:
        """The row of ``table`` (a table with ``game_id`` and ``seat``) for this seat, as
        this transaction holds it: every seat's row of the game is read once."""
        loaded = self.facts.setdefault(LOADED, set())
        if (table.name, game_id) not in loaded:
            self.remember(table, game_id, self.session.connection().execute(
                sa.select(table).where(table.c.game_id == game_id)).mappings())
        return self.rows.get((table.name, game_id, seat))

    def remember(self, table: sa.Table, game_id: str,
                 rows: Iterable[Mapping[Any, Any]]) -> None:
        """Every row of ``table`` the game has, read by the caller's own query."""
        for values in rows:
            self.rows[(table.name, game_id, values["seat"])] = Row(table, values)
        self.facts.setdefault(LOADED, set()).add((table.name, game_id))

    def create_seat_row(self, table: sa.Table, values: Mapping[str, Any]) -> Row:
        """A seat's first row of ``table`` (``values`` name its ``game_id`` and ``seat``),
        inserted now with one INSERT; when a racing transaction made it first, its row is
        read instead. Held by the unit from then on (``seat_row``)."""
        connection = self.session.connection()
        game_id, seat = values["game_id"], values["seat"]
        created = connection.execute(
            statements.dialect_insert(table, self.dialect).values(dict(values))
            .on_conflict_do_nothing(index_elements=["game_id", "seat"])
            .returning(*table.columns)).mappings().first()
        if created is None:
            created = connection.execute(sa.select(table).where(
                table.c.game_id == game_id, table.c.seat == seat)).mappings().one()
        row = self.rows[(table.name, game_id, seat)] = Row(table, created)
        return row

    def update_now(self, row: Row, **values: Any) -> None:
        """Change ``row`` with one UPDATE sent now (rare paths; see the module docstring)."""
        self.session.connection().execute(
            sa.update(row.table).where(row.table.c.id == row.values["id"]).values(values))
        row.values.update(values)

    def inserted(self, key: str) -> dict[str, Any] | None:
        """The values of the keyed row this unit will insert (None: no such insert)."""
        pending = self._inserts.get(key)
        return pending.rows[0] if pending is not None else None

    def queued_rows(self, table: sa.Table) -> list[dict[str, Any]]:
        """The rows this unit will insert into ``table`` and has not sent yet: what a
        step that reads the table in the same transaction must add to what it reads
        (a game's end reads its whole log, the last move of which is still queued)."""
        return [row for write in self._writes if isinstance(write, Insert)
                and write.table is table for row in write.rows]

    def part(self, kind: type[_Part]) -> _Part:
        """This transaction's accumulator of ``kind`` (made on first use)."""
        held = self.parts.get(kind)
        if held is None:
            held = self.parts[kind] = kind()
        return held

    def after_commit(self, callback: Callable[[], None]) -> None:
        """Run ``callback()`` once this unit's transaction committed (never after a
        rollback): what may only be believed of committed data."""
        self._after_commit.append(callback)

    @property
    def pending(self) -> bool:
        return bool(self._writes) or any(part.pending for part in self.parts.values())

    # -- sending ----------------------------------------------------------------

    def write(self, *parts: type, refs: dict[str, Any] | None = None) -> int:
        """Send every queued write (first the writes of ``parts``' accumulators, in that
        order, then any other accumulator's, then the rest as queued); returns how many
        statements that took (0, 1 on PostgreSQL, or one per write elsewhere)."""
        for kind in [*parts, *(kind for kind in self.parts if kind not in parts)]:
            part = self.parts.pop(kind, None)
            if part is not None:
                for write in part.writes():
                    if isinstance(write, Insert):
                        self.insert(write)
                    else:
                        self._writes.append(write)
        writes, self._writes = self._writes, []
        self._updates, inserts, self._inserts = {}, self._inserts, {}
        if not writes:
            return 0
        if refs is None:
            refs = {}
        if self.dialect == "postgresql":
            sent = 0
            for group in statements.groups(writes):
                keyed = [w.key for w in group if isinstance(w, Insert) and w.key is not None]
                answer = keyed[0] if keyed and not self.queued else None
                statement, params = statements.one_statement(group, answer)
                result = self.session.connection().execute(statement, params)
                if answer is not None:  # (sent as queued: one keyed insert at a time)
                    refs[answer] = result.scalar()
                sent += 1
            return sent
        ordered = ([w for w in writes if isinstance(w, (Statement, Close))]
                   + [w for w in writes if isinstance(w, Insert)]
                   + [w for w in writes if isinstance(w, Update)])
        connection = self.session.connection()
        for write in ordered:
            if isinstance(write, Statement):
                connection.execute(write.statement)
            elif isinstance(write, Insert) and len(write.rows) > 1:
                # (never keyed: a key names one row)
                connection.execute(statements.insert(write, self.dialect, {}), write.rows)
            else:  # (each shape's statement built once: ``statements.single``)
                statement, params = statements.single(write, self.dialect, refs)
                result = connection.execute(statement, params)
                if isinstance(write, Insert) and write.key is not None:
                    refs[write.key] = result.scalar()
        del inserts
        return len(ordered)

    def committed(self) -> None:
        callbacks, self._after_commit = self._after_commit, []
        for callback in callbacks:
            callback()


@contextmanager
def unit_of_work(engine: Engine | None = None) -> Iterator[Unit]:
    """A write transaction as a unit: committed at the end, rolled back on any error.

    Whatever is still queued at the end is a bug (the use case forgot to write what
    it decided), and says so rather than committing half of it."""
    with Session(engine or get_engine(), expire_on_commit=False) as session:
        unit = Unit(session)
        try:
            yield unit
            if unit.pending:
                raise RuntimeError("a unit of work ended with writes still queued")
            session.commit()
        except BaseException:
            session.rollback()
            raise
        unit.committed()
