"""Database engine and sessions, one engine per Flask app.

Transactions are opened with the helpers here and nowhere else (the test
``tests/test_architecture.py`` checks that no other module makes a ``Session``):
``app.db.unit.unit_of_work`` for a move (its writes queued and sent together),
``write_session`` for other writes (commits on success, rolls back on any error),
``read_session`` for reads (never commits, which is how GET requests are kept
from changing anything).
"""
from __future__ import annotations

import time
from contextlib import contextmanager
from typing import Any, Iterator

import sqlalchemy as sa
from sqlalchemy.engine import Engine
from sqlalchemy.pool import StaticPool
from sqlmodel import Session

EXTENSION_KEY = "silver_eye_db"
SQLITE_BUSY_TIMEOUT_MS = 10_000
#: A pooled connection older than this is replaced (servers and proxies drop old ones).
POOL_RECYCLE_SECONDS = 1800
#: A pooled connection unused this long is pinged before a request gets it.
IDLE_PING_SECONDS = 10.0


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    """WAL (readers never block the writer), real foreign keys, and wait for locks."""
    cursor = dbapi_connection.cursor()
    try:
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
        cursor.execute("PRAGMA synchronous=NORMAL")
    finally:
        cursor.close()


def make_engine(url: str, idle_ping_seconds: float = IDLE_PING_SECONDS,
                **kwargs: Any) -> Engine:
    """An engine for ``url`` with the SQLite pragmas applied on every connection.

    Other databases: connections are recycled after ``POOL_RECYCLE_SECONDS``
    and pinged before use only after ``idle_ping_seconds`` unused (see
    ``_ping_after_idle``), not on every checkout.
    """
    parsed = sa.engine.make_url(url)
    if parsed.get_backend_name() == "sqlite":
        kwargs.setdefault("connect_args", {})
        kwargs["connect_args"].setdefault("check_same_thread", False)
        kwargs["connect_args"].setdefault("timeout", SQLITE_BUSY_TIMEOUT_MS / 1000)
        if parsed.database in (None, "", ":memory:"):
            kwargs.setdefault("poolclass", StaticPool)
        engine = sa.create_engine(url, **kwargs)
        sa.event.listen(engine, "connect", _sqlite_pragmas)
        return engine
    kwargs.setdefault("pool_recycle", POOL_RECYCLE_SECONDS)
    engine = sa.create_engine(url, **kwargs)
    if parsed.get_driver_name() == "psycopg":
        from app.db.lean_cursor import use_lean_cursors
        sa.event.listen(engine, "connect", use_lean_cursors)
    sa.event.listen(engine, "before_cursor_execute", _refuse_writes)
    if not kwargs.get("pool_pre_ping"):
        _ping_after_idle(engine, idle_ping_seconds)
    return engine


def _ping_after_idle(engine: Engine, idle_seconds: float) -> None:
    """Check a pooled connection before use only when it sat idle ``idle_seconds``.

    A ping on every checkout (``pool_pre_ping``) costs a round trip per
    request; under load connections are busy and the server has not gone
    anywhere since their last statement. A connection that waited longer
    (the quiet hours in which a database restarts or a firewall drops idle
    links) is pinged, and a dead one is replaced before the request sees it.
    A connection that dies mid-use still fails that request, and SQLAlchemy
    then drops the whole pool, as it always did.
    """
    def checked_in(_dbapi_connection: Any, record: Any) -> None:
        record.info["silver_eye_idle_since"] = time.monotonic()

    def checkout(dbapi_connection: Any, record: Any, _proxy: Any) -> None:
        since = record.info.pop("silver_eye_idle_since", None)
        if since is None or time.monotonic() - since < idle_seconds:
            return
        try:
            alive = engine.dialect.do_ping(dbapi_connection)
        except Exception:  # noqa: BLE001 - any failure of the ping means "reconnect"
            alive = False
        if not alive:
            raise sa.exc.DisconnectionError("connection was dropped while idle")

    sa.event.listen(engine, "checkin", checked_in)
    sa.event.listen(engine, "checkout", checkout)


def init_app(app: Any) -> None:
    """Create the app's engine from ``DATABASE_URL``."""
    app.extensions[EXTENSION_KEY] = make_engine(
        app.config["DATABASE_URL"],
        idle_ping_seconds=float(app.config["DB_IDLE_PING_SECONDS"]))


def get_engine(app: Any = None) -> Engine:
    """The engine of ``app`` (default: the current Flask app)."""
    if app is None:
        from flask import current_app
        app = current_app
    return app.extensions[EXTENSION_KEY]


@contextmanager
def write_session(engine: Engine | None = None) -> Iterator[Session]:
    """A session whose work is committed at the end, or rolled back on error: for writes
    that are not a game's move (settings, links, the queues' bookkeeping). A move is a
    unit of work (``app.db.unit.unit_of_work``)."""
    with Session(engine or get_engine(), expire_on_commit=False) as session:
        try:
            yield session
            session.commit()
        except BaseException:
            session.rollback()
            raise


@contextmanager
def read_session(engine: Engine | None = None) -> Iterator[Session]:
    """A session that can only read: reading must never write.

    SQLite: a transaction (one snapshot for all its statements), always rolled
    back. PostgreSQL: its connection in autocommit, where a transaction would
    add nothing (at READ COMMITTED each statement has its own snapshot either
    way) but a BEGIN and a ROLLBACK, two round trips around what is usually one
    query; and any statement other than a SELECT is refused before it is sent
    (``_refuse_writes``), so nothing can be committed by accident either.
    """
    engine = engine or get_engine()
    if engine.dialect.name != "postgresql":
        with Session(engine, expire_on_commit=False) as session:
            try:
                yield session
            finally:
                session.rollback()
        return
    with engine.connect() as connection:
        connection.execution_options(isolation_level="AUTOCOMMIT")
        connection.info[READ_ONLY] = True
        try:
            with Session(bind=connection, expire_on_commit=False) as session:
                yield session
        finally:
            connection.info.pop(READ_ONLY, None)


#: ``Connection.info`` key set while a connection serves a ``read_session``.
READ_ONLY = "silver_eye_read_only"


class WriteInReadSession(RuntimeError):
    """A statement that is not a SELECT was sent in a ``read_session``: a bug."""


def _refuse_writes(connection: Any, _cursor: Any, statement: str, *_args: Any) -> None:
    if connection.info.get(READ_ONLY) and statement.lstrip()[:6].upper() != "SELECT":
        raise WriteInReadSession(f"a read-only request tried to write: {statement[:80]}")


# -- migrations ----------------------------------------------------------------

def alembic_config(url: str | None = None, connection: Any = None) -> Any:
    """An Alembic config for this checkout, independent of the working directory."""
    from pathlib import Path

    from alembic.config import Config

    root = Path(__file__).resolve().parent.parent.parent
    config = Config(str(root / "alembic.ini"))
    config.set_main_option("script_location", str(root / "migrations"))
    config.attributes["embedded"] = True
    if url is not None:
        config.attributes["url"] = url  # not a main option: URLs may hold '%'
    if connection is not None:
        config.attributes["connection"] = connection
    return config


def upgrade(url: str | None = None, connection: Any = None, revision: str = "head") -> None:
    """Bring the database at ``url`` (or on ``connection``) to ``revision``."""
    from alembic import command

    command.upgrade(alembic_config(url, connection), revision)


def revision_of(url: str) -> str | None:
    """The migration the database at ``url`` stands at (None: no tables of ours yet)."""
    from alembic.runtime.migration import MigrationContext

    engine = make_engine(url)
    try:
        with engine.connect() as connection:
            return MigrationContext.configure(connection).get_current_revision()
    finally:
        engine.dispose()


def upgrade_words(url: str) -> str:
    """Migrate the database at ``url`` to the newest revision and say what that did, in
    words for whoever started the server (issue 51 item 5: a fresh machine's first run
    said "database is up to date" although it had just created every table)."""
    before = revision_of(url)
    upgrade(url)
    after = revision_of(url)
    shown = url.split("@", 1)[-1] if "@" in url else url
    if before is None:
        return f"created the database at {shown} (every table, migration {after})"
    if before != after:
        return f"updated the database at {shown} from migration {before} to {after}"
    return f"the database at {shown} is up to date (migration {after})"
