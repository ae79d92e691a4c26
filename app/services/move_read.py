"""The one query a move starts with, as plain columns: the game's seats, each with
its mail, clock and address rows, and, when the worker holds the game's state, the
game and the log after that state.

Read through the ORM, this query cost about a fifth of a move: every execution
builds a compile state and a row processor for each of its five entities, whether
or not anything looks at the objects. As columns, each row is handed on as values
(``app.db.unit.Row``), registered on the move's unit of work, which queues every change
the move makes to them. Each seat's unsent mail comes along too (its status, kind and
lease): whether a drawing seat's waiting turn mail can be re-aimed is decided from
it (``unsent.seat_acted``) without a query of its own.

Every row it joins is found through an index whatever the statistics say (issue 30
item 1). On PostgreSQL the address and unsent-mail rows come through ``LEFT JOIN
LATERAL (... LIMIT 1)``: a plain join on ``outbox.id = seat_mail.unsent_mail_id`` was
planned as a merge join over the whole ``outbox_pkey`` (for a seat whose turn mail is
among the newest rows: nearly every outbox row, three times a move), so a move grew
slower with every mail the store kept. A lateral subquery with a LIMIT is not pulled
up into the join, so each seat's row is one primary-key (unique-key) probe. The other
joins name ``game_id``, which the WHERE fixes, so each is an index range of one game.
SQLite plans only nested loops over its indexes, and has no LATERAL: plain joins.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any, Sequence

from sqlalchemy import and_, bindparam, select, true
from sqlalchemy.orm import Session
from sqlalchemy.sql import FromClause
from sqlmodel import SQLModel

from app.clock import deadlines as dl
from app.db.statements import table_of
from app.gamelog import states, store
from app.mail.models import Outbox, SeatMail
from app.people.models import Person
from app.plans.models import Plan

#: What a move needs of a seat itself (``store.SeatRow``'s fields, in order).
SEAT_COLUMNS = ("index", "name", "kind", "token_version", "email")
LOG_COLUMNS = ("seq", "seat", "action", "created")
#: The rows each seat comes with, every column of each (a seat's ``plan`` row, issue
#: 35: none for a seat that never decided ahead, so no plan costs no statement).
PER_SEAT = (SeatMail, dl.SeatClock, Person, Plan)
#: What is read of each seat's unsent mail (``SeatMail.unsent_mail_id``).
UNSENT_COLUMNS = ("id", "status", "kind", "lease_until")


@dataclass(frozen=True)
class MoveRows:
    """What the query returned: the seats, each model's row of every seat as values
    (None where a seat has none), and (when asked) the game's values and the log."""

    seats: list[store.SeatRow]
    per_seat: dict[type, list[dict[str, Any] | None]]
    #: Each seat's unsent mail (``UNSENT_COLUMNS``), None where it has none.
    unsent: list[dict[str, Any] | None]
    game: dict[str, Any] | None
    logged: list[states.Logged]


def read(session: Session, game_id: str, from_seq: int | None) -> MoveRows:
    """The seats of ``game_id`` with their rows; ``from_seq``: with the game and the log
    from that step on (the step of the state the worker holds)."""
    query = _Query.of(from_seq is not None, session.get_bind().dialect.name)
    rows = session.connection().execute(query.statement, {
        "game_id": game_id, "from_seq": from_seq or 0}).all()
    return query.split(rows)


class _Query:
    """The statement, and where each table's columns sit in its rows: the seat's
    own, then every column of its mail, clock and address rows, then (``with_game``)
    the game's and the log's. The log rows go with seat 0's row only (every game has
    a seat 0), so seats + log rows come back, not seats × log rows; a game without
    a seat 0 gets none, its held state does not fit, and the move reads the game
    the other way (``gamelog._load_game``)."""

    def __init__(self, with_game: bool, dialect: str) -> None:
        seat, action = table_of(store.Seat), table_of(store.Action)
        game = table_of(store.Game)
        self.with_game = with_game
        mail, clock, plan = table_of(SeatMail), table_of(dl.SeatClock), table_of(Plan)
        address: FromClause = table_of(Person)
        outbox: FromClause = table_of(Outbox)
        by_key = dialect == "postgresql"
        if by_key:  # one probe each (see the module's docstring)
            address = (select(*address.c).where(address.c.address == seat.c.email)
                       .limit(1).lateral("person"))
            outbox = (select(*(outbox.c[name] for name in UNSENT_COLUMNS))
                      .where(outbox.c.id == mail.c.unsent_mail_id).limit(1).lateral("unsent"))
        columns: list[Any] = [seat.c[name] for name in SEAT_COLUMNS]
        self.at: dict[type, int] = {}
        sources: tuple[FromClause, ...] = (mail, clock, address, plan)
        for model, source in zip(PER_SEAT, sources):
            self.at[model] = len(columns)
            columns += list(source.c)  # (a lateral's columns are its table's, in order)
        self.unsent_at = len(columns)
        columns += [outbox.c[name] for name in UNSENT_COLUMNS]
        if with_game:
            self.at[store.Game] = len(columns)
            columns += list(game.columns)
        self.log_at = len(columns)
        statement = (select(*columns).select_from(seat)
                     .outerjoin(mail, and_(mail.c.game_id == seat.c.game_id,
                                           mail.c.seat == seat.c.index))
                     .outerjoin(clock, and_(clock.c.game_id == seat.c.game_id,
                                            clock.c.seat == seat.c.index))
                     .outerjoin(plan, and_(plan.c.game_id == seat.c.game_id,
                                           plan.c.seat == seat.c.index)))
        if by_key:
            statement = statement.outerjoin(address, true()).outerjoin(outbox, true())
        else:
            statement = (statement.outerjoin(address, address.c.address == seat.c.email)
                         .outerjoin(outbox, outbox.c.id == mail.c.unsent_mail_id))
        order = [seat.c.index]
        if with_game:
            statement = (statement.add_columns(*(action.c[name] for name in LOG_COLUMNS))
                         .join(game, game.c.id == seat.c.game_id)
                         .outerjoin(action, and_(action.c.game_id == seat.c.game_id,
                                                 seat.c.index == 0,
                                                 action.c.seq >= bindparam("from_seq"))))
            order.append(action.c.seq)
        self.statement = statement.where(seat.c.game_id == bindparam("game_id")).order_by(*order)

    @staticmethod
    @functools.cache
    def of(with_game: bool, dialect: str) -> "_Query":
        """Built once of each kind and store (every move asks one)."""
        return _Query(with_game, dialect)

    def split(self, rows: Sequence[Any]) -> MoveRows:
        by_seat = list({row[0]: row for row in rows}.values())
        return MoveRows(
            seats=[store.SeatRow(*row[:len(SEAT_COLUMNS)]) for row in by_seat],
            per_seat={model: [self._values(model, row) for row in by_seat]
                      for model in PER_SEAT},
            unsent=[None if row[self.unsent_at] is None else
                    dict(zip(UNSENT_COLUMNS, row[self.unsent_at:self.unsent_at + len(UNSENT_COLUMNS)]))
                    for row in by_seat],
            game=self._values(store.Game, rows[0]) if self.with_game and rows else None,
            logged=list({row[self.log_at]: states.Logged(*row[self.log_at:])
                         for row in rows if row[self.log_at] is not None}.values())
            if self.with_game else [])

    def _values(self, model: type[SQLModel], row: Any) -> dict[str, Any] | None:
        """``model``'s columns in ``row`` by name; None when the outer join found none."""
        table = table_of(model)
        part = row[self.at[model]:self.at[model] + len(table.columns)]
        return None if part[0] is None else dict(zip(table.columns.keys(), part))
