"""One shape for the three queues the background loops work (issue 18 item 4).

Deadlines (``app.runners.clock``), the outbox (``app.runners.sending``) and the
inbox of replies (``app.runners.inbound``) are each a table of rows that fall
due; a loop takes a batch of them under a lease, handles each, and ends each
lease. That lease query used to be written three times. Here it is once:

- ``Lease`` names a queue's table, what makes a row due, its order and the
  columns that hold the lease. ``claim`` leases up to ``limit`` due rows in one
  statement, ``UPDATE ... WHERE id IN (SELECT ... FOR UPDATE SKIP LOCKED)
  RETURNING ...`` (PostgreSQL skips the rows another worker is leasing right
  now; SQLite runs writers one at a time and has no ``FOR UPDATE``, which
  SQLAlchemy leaves out there). ``ended`` is the UPDATE that gives a row back,
  only while its lease is still the caller's.
- ``Runner`` is the loop over one queue, after GNU Mailman 3's runners (one
  base class, each queue a subclass that says how to dispose of one item):
  claim a batch under a lease, ``handle`` each, ``failed`` for one that raised,
  and, with ``drain``, batch after batch until a batch comes back short or
  brings only rows this run has seen already (a row given back still due, e.g.
  a busy game, waits for the next run instead of looping). A row a claim took
  again that this run will not handle is given back at once, with a log line,
  so no row sits out a lease that nobody works (issue 30 item 3).

A worker that dies mid-batch leaves its leases; they run out and another
worker takes the rows, which is why every handler is safe to run twice.
"""
from __future__ import annotations

import logging
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Callable, Generic, NamedTuple, Sequence, TypeVar

from sqlalchemy import Update, bindparam, update
from sqlalchemy.engine import Engine
from sqlalchemy.sql import ColumnElement
from sqlmodel import Session, col, select

from app.clock.time import as_utc

Item = TypeVar("Item")

log = logging.getLogger("app.runners")


class Ending(NamedTuple):
    """A lease's end: the statement and its parameters, run as ``execute(*ending)``."""

    statement: Update
    params: dict[str, Any]


@dataclass(frozen=True)
class Lease:
    """How one queue leases its rows.

    ``due(now)``: the conditions, beyond the lease, that make a row due (open,
    its time come, attempts left...). ``order``: which due rows go first (the
    columns of the queue's partial index). ``length``: how long a claim holds a
    row before another worker may take it over (the first one died).
    """

    model: Any
    due: Callable[[datetime], Sequence[ColumnElement[bool]]]
    order: Sequence[Any]
    length: timedelta
    #: The rows a lease can still matter on (default: any): those ``release_all`` looks
    #: through, by the queue's partial index, so that giving back a dead worker's claims
    #: reads the open rows of the queue, not its whole history (issue 46: it read all
    #: 250,000 rows of a lived outbox, once a dead claimer at a time).
    open: Callable[[], Sequence[ColumnElement[bool]]] = lambda: ()
    _endings: dict[tuple[str, ...], Update] = field(default_factory=dict, init=False,
                                                    repr=False, compare=False)

    @property
    def id(self) -> Any:
        return col(self.model.id)

    def free(self, now: datetime) -> ColumnElement[bool]:
        """No lease on the row, or its lease ran out."""
        until = col(self.model.lease_until)
        return until.is_(None) | (until < now)

    def due_rows(self, now: datetime, *columns: Any, where: Sequence[Any] = (),
                 limit: int | None = None, locked: bool = False) -> Any:
        """``SELECT columns`` (default: the ids) of the due, unleased rows, in order;
        ``locked``: ``FOR UPDATE SKIP LOCKED`` (left out on SQLite), as a claim takes them."""
        query = (select(*(columns or (self.id,)))
                 .where(*self.due(now), self.free(now), *where)
                 .order_by(*self.order))
        if limit is not None:
            query = query.limit(limit)
        return query.with_for_update(skip_locked=True) if locked else query

    def claim(self, engine: Engine, now: datetime, owner: str, limit: int, *,
              where: Sequence[Any] = (), values: dict[str, Any] | None = None,
              returning: Sequence[Any] = (), length: timedelta | None = None,
              session: Session | None = None) -> list[Any]:
        """Lease up to ``limit`` due rows to ``owner`` in one statement and commit
        (``session``: in that session's transaction, which its caller commits: a batch
        that reads what its rows need in the claim's own transaction).

        Returns what ``returning`` names of each row leased now (default: its id,
        as scalars; an entity: the rows themselves, detached), straight from
        RETURNING, so no read walks a backlog. In no particular order: callers
        sort what they got. ``where`` narrows the due rows; ``values`` are written
        with the lease (e.g. an attempt counted); ``length`` overrides the lease's."""
        now = as_utc(now)
        statement = (update(self.model)
                     .where(self.id.in_(self.due_rows(now, where=where, limit=limit, locked=True)
                                        .scalar_subquery()))
                     .values(lease_owner=owner, lease_until=now + (length or self.length),
                             **(values or {}))
                     .returning(*(returning or (self.id,)))
                     .execution_options(synchronize_session=False))
        def leased_in(session: Session) -> list[Any]:
            result = session.execute(statement)
            leased = list(result.scalars() if len(returning) <= 1 else result.all())
            if returning and isinstance(returning[0], type):
                for row in leased:  # entities: handed over loaded, without a session
                    session.expunge(row)
            return leased

        if session is not None:
            return leased_in(session)
        with Session(engine) as own:
            leased = leased_in(own)
            own.commit()
        return leased

    def ended(self, row_id: int, owner: str, **values: Any) -> "Ending":
        """The UPDATE that ends ``owner``'s lease on ``row_id`` and writes ``values``,
        and its parameters (``execute(*ended)``); it changes nothing once the lease
        has gone to another worker.

        One statement per set of columns written, made once and kept, its values bound
        at execution: building and compiling a fresh UPDATE for every row cost more
        than running it (issue 30: 0.38 -> 0.15 ms a sent mail's end)."""
        names = tuple(sorted(values))
        statement = self._endings.get(names)
        if statement is None:
            statement = (update(self.model)
                         .where(self.id == bindparam("ended_row"),
                                col(self.model.lease_owner) == bindparam("ended_owner"))
                         .values(lease_owner=None, lease_until=None,
                                 **{name: bindparam(name) for name in names}))
            statement = self._endings.setdefault(names, statement)
        return Ending(statement, {**values, "ended_row": row_id, "ended_owner": owner})

    def release_all(self, engine: Engine, owner: str) -> int:
        """End every lease ``owner`` holds on an open row (a worker known dead: its
        heartbeat went stale), so its rows are taken now, not when each lease runs out;
        how many."""
        with Session(engine) as session:
            released = session.exec(
                update(self.model).where(*self.open(), col(self.model.lease_owner) == owner)
                .values(lease_owner=None, lease_until=None)
                .execution_options(synchronize_session=False)).rowcount
            session.commit()
        return int(released or 0)

    def end(self, engine: Engine, row_id: int, owner: str, **values: Any) -> None:
        """``ended`` in a transaction of its own."""
        with Session(engine) as session:
            session.execute(*self.ended(row_id, owner, **values))
            session.commit()


class Runner(Generic[Item]):
    """A loop over one queue: claim a batch under a lease, handle each, end each lease.

    A subclass says how: ``claim(limit)`` (normally ``lease.claim``), ``handle``
    one item (what it returns goes to ``finish``), ``finish`` (ends the item's
    lease, counts its outcome; outside the error handling, so a database that is
    gone there stops the run), and optionally ``failed`` for an item whose
    ``handle`` raised (default: the error propagates and the leases left run
    out), ``batch`` (a context around one batch, e.g. one SMTP connection) and
    ``key`` (what identifies an item across batches: its row id). ``run()`` returns
    how many items it claimed; what they came to is the subclass's report.

    ``lease``: the queue's lease, with which a row claimed again but not handled in
    this run is given back (``give_back``).
    """

    lease: Lease | None = None
    #: Rows one claim takes at most.
    limit: int = 100
    #: Keep claiming while full batches come back (else: one batch per run).
    drain: bool = True

    def __init__(self, engine: Engine, now: datetime, owner: str) -> None:
        self.engine = engine
        self.now = as_utc(now)
        self.owner = owner

    def claim(self, limit: int) -> list[Item]:
        raise NotImplementedError

    def handle(self, item: Item) -> Any:
        raise NotImplementedError

    def finish(self, item: Item, result: Any) -> None:
        """After ``handle`` went through (default: nothing, ``handle`` ended the lease)."""

    def failed(self, item: Item, error: Exception) -> None:
        raise error

    def batch(self, items: list[Item]) -> AbstractContextManager[Any]:
        return nullcontext()

    def key(self, item: Item) -> int:
        """The item's row id (an int item is one; a row object has ``id``).

        Never ``id(item)``: the objects of a batch are freed when the next is claimed,
        and Python gives a new row the address of an old one, which made the sender
        skip rows it had just leased (8 of 400 a run sat out a 10-minute lease)."""
        if isinstance(item, int):
            return item
        row_id = getattr(item, "id", None)
        if not isinstance(row_id, int):
            raise TypeError(f"{type(item).__name__} has no row id to tell it by")
        return row_id

    def give_back(self, items: list[Item]) -> None:
        """End this run's lease on ``items``, claimed again after this run handled them
        once (given back still due): they wait for the next run, not for the lease."""
        for item in items:
            log.info("%s: row %s was handled once in this run and is still due; given "
                     "back for the next run", type(self).__name__, self.key(item))
            if self.lease is not None:
                self.lease.end(self.engine, self.key(item), self.owner)

    def run(self) -> int:
        seen: set[int] = set()
        claimed = 0
        while True:
            got = self.claim(self.limit)
            items = [item for item in got if self.key(item) not in seen]
            if len(items) < len(got):
                self.give_back([item for item in got if self.key(item) in seen])
            if not items:
                return claimed
            claimed += len(items)
            seen.update(self.key(item) for item in items)
            with self.batch(items):
                for item in items:
                    try:
                        result = self.handle(item)
                    except Exception as exc:  # noqa: BLE001 - the subclass decides
                        self.failed(item, exc)
                    else:
                        self.finish(item, result)
            if not self.drain or len(items) < self.limit:
                return claimed
