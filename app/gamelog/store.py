"""The action log's tables, and its rows written and read one by one.

The action log is the truth: a game's state is ``engine.replay`` of its
actions. ``Action`` rows are only ever inserted (never updated or deleted) and
``(game_id, seq)`` is unique, so two racing submissions for the same step end
in one row and one IntegrityError. ``StateCache`` is an optimisation only: it
holds the pickled state after some ``seq`` and is rebuilt from the log
whenever it is missing, unreadable or behind. How a stored game becomes the
engine's state (its seed and options, the cache, the one query that reads the game
with the log after a held state) is ``app.gamelog.states``; here are the tables, the
log's rows (appended, read, counted), the seats, and the lobby's guards (the locks
that serialise a key's transactions, the form token used once).
"""
from __future__ import annotations

import functools
import secrets
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Iterable

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import OperationalError
from sqlalchemy.orm.attributes import set_committed_value
from sqlmodel import Field, Session, SQLModel, col, select

# re-exported: callers stamp and read rows' times as store.utcnow(), store.as_utc()
from app.clock.time import as_utc as as_utc, utcnow as utcnow  # noqa: F401
from app.db.statements import Insert, table_of
from app.db.unit import Row, Unit

GAME_STATUSES = ("running", "over", "abandoned")
SEAT_KINDS = ("human", "bot")
ACTION_SOURCES = ("player", "timeout", "system", "mail")  # mail: a reply to a turn mail


GAME_ID_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789"
GAME_ID_LENGTH = 10


def new_game_id() -> str:
    """A fresh game id: 10 letters/digits (about 49 random bits), easy to read aloud."""
    return "".join(secrets.choice(GAME_ID_ALPHABET) for _ in range(GAME_ID_LENGTH))


class Game(SQLModel, table=True):
    """One game: who sits where is in ``Seat``, what happened is in ``Action``."""

    __tablename__ = "game"
    __table_args__ = (sa.Index("ix_game_created_by", "created_by", "created"),)

    #: Short random id: spectator and replay URLs carry it, so it is not guessable.
    id: str = Field(default_factory=lambda: new_game_id(), primary_key=True, max_length=64)
    created: datetime = Field(default_factory=utcnow, sa_type=sa.DateTime(timezone=True),
                             nullable=False)
    status: str = Field(default="running", max_length=16, nullable=False)
    name: str = Field(default="", max_length=200, nullable=False)
    options: dict[str, Any] = Field(default_factory=dict, sa_type=sa.JSON, nullable=False)
    #: The secret the deal derives from; shown only once the game is over.
    seed: str = Field(max_length=64, nullable=False)
    #: sha256 hex of ``seed``, public from the start (provably fair deals).
    commitment: str = Field(max_length=64, nullable=False)
    seats: int = Field(nullable=False)
    #: Who started it, as a keyed hash of the lobby request's address (never the
    #: address itself): the lobby counts recent games per address to limit floods.
    created_by: str | None = Field(default=None, max_length=64, nullable=True)
    #: The rules version the game was created under (``engine.RULES_VERSION`` then);
    #: the game is replayed under it for ever (docs/rules.md, "Rules versions").
    rules_version: int = Field(default=1, nullable=False,
                               sa_column_kwargs={"server_default": "1"})
    #: Whether spectators (and the public replay while the game runs) read the table
    #: talk (issue 20 item 1): the creator's choice in the lobby and on its seat page.
    talk_spectators: bool = Field(default=True, nullable=False,
                                  sa_column_kwargs={"server_default": sa.true()})
    #: Why a game that is not running any more ended early (None for one played to
    #: its end): ``away`` (every person away, R29), ``agreement`` (the people voted to
    #: abort it, issue 21), ``resigned`` (every person resigned) or ``operator``.
    end_reason: str | None = Field(default=None, max_length=16, nullable=True)
    #: A rematch (issue 21 item 6): the first game of its series, the game it is a
    #: rematch of, and its number in the series (1 for a game that is no rematch).
    series_id: str | None = Field(default=None, max_length=64, nullable=True, index=True)
    rematch_of: str | None = Field(default=None, max_length=64, nullable=True, index=True)
    series_no: int = Field(default=1, nullable=False, sa_column_kwargs={"server_default": "1"})


class Seat(SQLModel, table=True):
    """A seat of a game; ``token_version`` is inside its signed link."""

    __tablename__ = "seat"
    #: Whether an address ever played (app/mail/trust.py, issue 17 item 7), case-folded.
    __table_args__ = (sa.Index("ix_seat_email", sa.func.lower(sa.column("email"))),)

    game_id: str = Field(foreign_key="game.id", max_length=64, primary_key=True)
    index: int = Field(primary_key=True)
    name: str = Field(max_length=100, nullable=False)
    email: str = Field(default="", max_length=320, nullable=False)
    token_version: int = Field(default=1, nullable=False)
    kind: str = Field(default="human", max_length=16, nullable=False)
    preferences: dict[str, Any] = Field(default_factory=dict, sa_type=sa.JSON, nullable=False)
    #: The last round whose summary the seat dismissed on its page (0: none).
    summary_dismissed: int = Field(default=0, nullable=False,
                                   sa_column_kwargs={"server_default": "0"})


#: Action sources that a person made themselves (not the clock, not the server): an
#: address that has such a move is a known player (``app.mail.trust``), and such a move
#: resets a seat's run of timeouts (``app.services.reactions``).
OWN_SOURCES = ("player", "mail")
_OWN = sa.text("source IN ('player', 'mail')")


class Action(SQLModel, table=True):
    """One applied action. Inserted once, never updated, never deleted."""

    __tablename__ = "action"
    __table_args__ = (
        sa.UniqueConstraint("game_id", "seq", name="uq_action_game_seq"),
        sa.Index("ix_action_created", "created"),
        #: one probe per seat for "did this address ever move itself" (issue 30)
        sa.Index("ix_action_own", "game_id", "seat", postgresql_where=_OWN, sqlite_where=_OWN),
    )

    id: int | None = Field(default=None, primary_key=True)
    game_id: str = Field(foreign_key="game.id", max_length=64, nullable=False)
    #: 1-based position in the game's log: the engine's ``step`` after it.
    seq: int = Field(nullable=False)
    seat: int = Field(nullable=False)
    action: dict[str, Any] = Field(sa_type=sa.JSON, nullable=False)
    source: str = Field(default="player", max_length=16, nullable=False)
    created: datetime = Field(default_factory=utcnow, sa_type=sa.DateTime(timezone=True),
                             nullable=False)


class StateCache(SQLModel, table=True):
    """The pickled engine state after action ``seq`` of a game (optimisation)."""

    __tablename__ = "state_cache"

    game_id: str = Field(foreign_key="game.id", max_length=64, primary_key=True)
    seq: int = Field(nullable=False)
    state: bytes = Field(sa_type=sa.LargeBinary, nullable=False)
    #: ``engine.ENGINE_VERSION`` of the code that pickled ``state``; any other is ignored.
    engine_version: str = Field(default="", max_length=64, nullable=False,
                                sa_column_kwargs={"server_default": ""})
    updated: datetime = Field(default_factory=utcnow, sa_type=sa.DateTime(timezone=True),
                             nullable=False)


class UsedFormToken(SQLModel, table=True):
    """A lobby form that already created a game: each form token works once.

    Keyed by a hash of the token's nonce; rows older than the token's own
    life are pruned as new ones come (an expired token is refused anyway).
    """

    __tablename__ = "used_form_token"
    __table_args__ = (sa.Index("ix_used_form_token_used_at", "used_at"),)

    id: str = Field(primary_key=True, max_length=64)
    used_at: datetime = Field(default_factory=utcnow, sa_type=sa.DateTime(timezone=True),
                              nullable=False)


# -- the log -----------------------------------------------------------------

def append_action(unit: Unit, game_id: str, seq: int, seat: int,
                  action: dict[str, Any], source: str = "player") -> datetime:
    """Queue action ``seq`` of a game on the move's unit of work (sent with the move's
    other writes: ``services.repository.write_move``); returns the row's ``created``
    (what identifies it to ``warm_states``).

    ``sqlalchemy.exc.IntegrityError`` when ``seq`` already exists, from the statement
    that sends it, inside the caller's transaction. Not an ORM object: nothing reads
    the row back in the transaction that wrote it."""
    if source not in ACTION_SOURCES:
        raise ValueError(f"unknown action source {source!r}")
    created = utcnow()
    unit.insert(Insert(_ACTIONS, [{"game_id": game_id, "seq": seq, "seat": seat,
                                   "action": dict(action), "source": source,
                                   "created": created}]))
    return created


def load_actions(session: Session, game_id: str, after_seq: int = 0) -> list[Action]:
    """The game's actions with ``seq > after_seq``, in order."""
    query = (select(Action).where(Action.game_id == game_id, Action.seq > after_seq)
             .order_by(col(Action.seq)))
    return list(session.exec(query))


def actions_since(session: Session, game_id: str, seat: int, since: datetime) -> list[Action]:
    """One seat's actions logged at ``since`` or later, oldest first (rate limits)."""
    query = (select(Action).where(Action.game_id == game_id, Action.seat == seat,
                                  Action.created >= since).order_by(col(Action.seq)))
    return list(session.exec(query))


def action_at(session: Session, game_id: str, seq: int) -> Action | None:
    """The action with this ``seq``, if the log has reached it."""
    return session.exec(
        select(Action).where(Action.game_id == game_id, Action.seq == seq)).first()


def last_seq(session: Session, game_id: str) -> int:
    """The number of actions in the game's log (0 before the first)."""
    value = session.exec(
        select(sa.func.max(Action.seq)).where(Action.game_id == game_id)).one()
    return int(value or 0)


def game_seq(session: Session, game_id: str) -> int | None:
    """The last step of a game in one query, or None if there is no such game
    (what a page polling for news asks every few seconds)."""
    newest = (select(sa.func.max(Action.seq)).where(Action.game_id == game_id)
              .scalar_subquery())
    row = session.exec(select(Game.id, newest).where(Game.id == game_id)).first()
    return None if row is None else int(row[1] or 0)


def set_status(unit: Unit, game: Game | Row, status: str, reason: str | None = None) -> None:
    """A game's new status ("over", "abandoned"), queued on the unit with its other
    writes and noted on the row the caller holds; ``reason``: why it ended early
    (``Game.end_reason``)."""
    values: dict[str, Any] = {"status": status}
    if reason is not None:
        values["end_reason"] = reason
    unit.update_id(_GAMES, game.id, (), **values)
    for name, value in values.items():
        if isinstance(game, Row):
            game.values[name] = value
        else:
            set_committed_value(game, name, value)


def load_seats(session: Session, game_id: str) -> list[Seat]:
    """The game's seats ordered by index."""
    return list(session.exec(_seats_of_game(), params={"game_id": game_id}))


@dataclass(frozen=True, slots=True)
class SeatRow:
    """What a link check, a game's public info and a move's mail read of a seat:
    no ORM object (a read-only request leaves ``email`` out)."""

    index: int
    name: str
    kind: str
    token_version: int
    email: str = ""


def seat_rows(session: Session, game_id: str, with_email: bool = False) -> list[SeatRow]:
    """The game's seats for reading only (a GET's link check: no ``email``), ordered by
    index; ``with_email``: with their addresses (the mail of a transaction that is not a
    move, which read none)."""
    return [SeatRow(*row) for row in session.connection().execute(
        _seat_columns(with_email), {"game_id": game_id})]


@functools.cache
def _seat_columns(with_email: bool) -> Any:
    seat = _SEATS.c
    columns = [seat.index, seat.name, seat.kind, seat.token_version,
               *([seat.email] if with_email else [])]
    return sa.select(*columns).where(seat.game_id == sa.bindparam("game_id")).order_by(seat.index)


@functools.cache
def _seats_of_game() -> Any:
    return select(Seat).where(Seat.game_id == sa.bindparam("game_id")).order_by(col(Seat.index))


def games_created_by(session: Session, creator: str, since: datetime) -> int:
    """How many games ``creator`` started at ``since`` or later (index ix_game_created_by)."""
    value = session.exec(select(sa.func.count()).select_from(Game).where(
        Game.created_by == creator, Game.created >= since)).one()
    return int(value or 0)


def as_pairs(actions: Iterable[Action]) -> list[tuple[int, dict[str, Any]]]:
    """The ``(seat, action)`` pairs ``engine.replay`` takes."""
    return [(row.seat, dict(row.action)) for row in actions]


def dialect_insert(session: Session, table: Any) -> Any:
    """``INSERT`` of the session's dialect (PostgreSQL or SQLite), which has
    ``on_conflict_do_nothing``/``on_conflict_do_update``."""
    return insert_for(session.get_bind().dialect.name, table)


def insert_for(dialect: str, table: Any) -> Any:
    """``INSERT`` of the named dialect, for statements built once per dialect."""
    if dialect == "postgresql":
        return postgresql.insert(table)
    return sqlite.insert(table)


# -- the lobby's guards ------------------------------------------------------------

def lock_key(session: Session, creator: str) -> bool:
    """Serialise the transactions that take the same key until this one ends: game
    creation by one creator, invitations of one address, the talk of one game.

    PostgreSQL: a transaction-scoped advisory lock on a hash of the key, so
    two workers counting the same creator's games wait for each other.
    SQLite: the database's write lock, taken now (``BEGIN IMMEDIATE``) rather
    than at the first insert, so the count read under it cannot be stale.
    Returns False when SQLite's busy timeout ran out (the caller says "busy").
    """
    connection = session.connection()
    if connection.dialect.name == "postgresql":  # (the key is the schema's: _SCHEMA_KEY)
        connection.execute(sa.text(f"SELECT pg_advisory_xact_lock({_SCHEMA_KEY.format('CAST(:key AS text)')})"),
                           {"key": creator})
    elif connection.dialect.name == "sqlite":
        raw = connection.connection.driver_connection
        if raw is not None and not raw.in_transaction:
            try:
                connection.exec_driver_sql("BEGIN IMMEDIATE")
            except OperationalError:
                return False
    return True


def lock_keys(session: Session, keys: list[str]) -> bool:
    """``lock_key`` of each of ``keys`` in one statement (a sending batch's addresses,
    issue 34 item 1), taken in one order (sorted by their numbers), so two
    transactions locking overlapping sets never wait on each other in a circle.
    SQLite: its one write lock covers them all."""
    connection = session.connection()
    if connection.dialect.name != "postgresql":
        return lock_key(session, keys[0]) if keys else True
    connection.execute(sa.text(
        "SELECT count(pg_advisory_xact_lock(n)) FROM (SELECT DISTINCT "
        f"{_SCHEMA_KEY.format('k')} AS n FROM unnest(CAST(:keys AS text[])) AS k "
        "ORDER BY n) AS sorted"), {"keys": sorted(set(keys))})
    return True


#: An advisory lock's number: a hash of the key *in this schema*. PostgreSQL's advisory
#: locks are the database's, not a schema's: two servers (or two test runs) that share
#: a database in schemas of their own must not wait on each other's keys (a clock in one
#: schema waited on a transaction of another that held "mail-caps:player0@...").
_SCHEMA_KEY = "hashtextextended(current_schema() || ':' || {}, 0)"


def use_form_token(session: Session, token_id: str, older_than: datetime) -> bool:
    """Mark a lobby form token used; False if it was used already.

    One ``INSERT ... ON CONFLICT DO NOTHING``: of two racing posts of the same
    form, the second waits for the first and then inserts nothing. Tokens
    used before ``older_than`` (expired anyway) are forgotten on the way.
    """
    session.exec(sa.delete(UsedFormToken).where(col(UsedFormToken.used_at) < older_than))
    statement = (dialect_insert(session, UsedFormToken).values(id=token_id, used_at=utcnow())
                 .on_conflict_do_nothing(index_elements=["id"]).returning(UsedFormToken.id))
    return session.execute(statement).first() is not None


_GAMES: sa.Table = table_of(Game)
_SEATS: sa.Table = table_of(Seat)
_ACTIONS: sa.Table = table_of(Action)
