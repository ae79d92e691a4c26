"""Shared fixtures (Flask tutorial style): ``app``, ``client``, ``runner``, ``db``.

Every test gets a store of its own, migrated with Alembic: a SQLite file in the
test's tmp dir by default (a copy of one migrated from empty once per worker), or, when
``TEST_DATABASE_URL`` points at PostgreSQL, a fresh schema of that database (selected
with ``search_path``), migrated for the test and dropped afterwards. On PostgreSQL only
the tests that touch a store are collected (``pytest_collection_modifyitems``).
"""
from __future__ import annotations

import os
import random
import uuid
import warnings
from contextlib import contextmanager
from typing import Any, Callable, Iterator

import pytest
import sqlalchemy as sa

from app import create_app
from app.db import get_engine, make_engine, upgrade

TEST_DATABASE_URL = os.environ.get("TEST_DATABASE_URL", "").strip()
TEST_SECRET_KEY = "test-secret-key-not-for-production"


def url_with_schema(url: str, schema: str) -> str:
    """A PostgreSQL URL whose connections live in ``schema`` (via libpq options)."""
    parsed = sa.engine.make_url(url).update_query_dict({"options": f"-csearch_path={schema}"})
    return parsed.render_as_string(hide_password=False)


@contextmanager
def fresh_schema(server_url: str, prefix: str = "test") -> Iterator[str]:
    """A new, empty schema of the PostgreSQL server at ``server_url`` (its URL), dropped
    afterwards."""
    schema = f"{prefix}_{uuid.uuid4().hex[:16]}"
    admin = make_engine(server_url, poolclass=sa.pool.NullPool)
    with admin.begin() as conn:
        conn.exec_driver_sql(f'CREATE SCHEMA "{schema}"')
    try:
        yield url_with_schema(server_url, schema)
    finally:
        try:
            drop_schema(admin, schema)
        finally:
            admin.dispose()


#: How long the drop of a test's schema waits for a lock before it looks for who holds it.
DROP_LOCK_TIMEOUT = "20s"


def drop_schema(admin: sa.Engine, schema: str) -> None:
    """Drop a test's schema. A connection the test left idle in a transaction on it (a
    session never closed) would make the drop wait for ever and hang the whole run: it
    is ended instead, and a warning names its last statement, so the run finishes and
    the leak is still seen in the summary."""
    for _ in range(3):
        try:
            with admin.begin() as conn:
                conn.exec_driver_sql(f"SET LOCAL lock_timeout = '{DROP_LOCK_TIMEOUT}'")
                conn.exec_driver_sql(f'DROP SCHEMA "{schema}" CASCADE')
            return
        except sa.exc.OperationalError:
            with admin.begin() as conn:
                stuck = conn.exec_driver_sql(
                    "SELECT DISTINCT a.pid, left(a.query, 300) FROM pg_locks l "
                    "JOIN pg_class c ON c.oid = l.relation "
                    "JOIN pg_namespace n ON n.oid = c.relnamespace "
                    "JOIN pg_stat_activity a ON a.pid = l.pid "
                    "WHERE n.nspname = %s AND a.state LIKE 'idle in transaction%%'",
                    (schema,)).all()
                for pid, query in stuck:
                    conn.exec_driver_sql("SELECT pg_terminate_backend(%s)", (pid,))
                    warnings.warn(f"a connection was left idle in a transaction on {schema} "
                                  f"after: {query}")
    with admin.begin() as conn:
        conn.exec_driver_sql(f'DROP SCHEMA "{schema}" CASCADE')


@pytest.fixture
def database_url(tmp_path) -> Iterator[str]:
    """A database nobody else uses, empty (not yet migrated)."""
    if not TEST_DATABASE_URL:
        yield f"sqlite:///{tmp_path / 'test.db'}"
        return
    with fresh_schema(TEST_DATABASE_URL) as url:
        yield url


@pytest.fixture(scope="session")
def migrated_sqlite(tmp_path_factory) -> str:
    """A SQLite file migrated from empty with Alembic, once per session (and xdist worker):
    the ``app`` fixture gives each test a copy of it (issue 31: migrating ~1,300 stores one
    by one cost about a tenth of ``make test``). tests/web/test_migrations.py still
    migrates from empty, step by step, in its own tests."""
    path = tmp_path_factory.mktemp("migrated") / "migrated.db"
    upgrade(f"sqlite:///{path}")
    return str(path)


def migrated_copy(template: str, database_url: str) -> bool:
    """Copy the migrated ``template`` to the SQLite file of ``database_url`` (the SQLite
    backup API: a consistent copy, WAL included); False when that URL is no SQLite file."""
    import sqlite3

    parsed = sa.engine.make_url(database_url)
    if parsed.get_backend_name() != "sqlite" or parsed.database in (None, "", ":memory:"):
        return False
    source, target = sqlite3.connect(template), sqlite3.connect(parsed.database)
    try:
        source.backup(target)
    finally:
        target.close()
        source.close()
    return True


@pytest.fixture
def app(database_url, tmp_path, request) -> Iterator[Any]:
    """The app on a freshly migrated store, with an app context pushed (on SQLite a copy
    of ``migrated_sqlite``; a PostgreSQL schema is migrated for the test)."""
    if TEST_DATABASE_URL or not migrated_copy(request.getfixturevalue("migrated_sqlite"),
                                              database_url):
        upgrade(database_url)
    app = create_app({
        "TESTING": True,
        "DATABASE_URL": database_url,
        "SECRET_KEY": TEST_SECRET_KEY,
        "BASE_URL": "http://silver-eye.test",
        "INSTANCE_PATH": str(tmp_path / "instance"),
    })
    with app.app_context():
        yield app
    get_engine(app).dispose()


@pytest.fixture
def turn_mail_at_once(request):
    """Turn mails leave without the grace period and without the per-address
    hourly cap (issue 7, issue 9): for tests that play fast and count every
    mail, unless a test sets ``TURN_MAIL_DELAY_SECONDS`` /
    ``MAIL_PER_ADDRESS_PER_HOUR`` or the game option itself
    (tests/mail/test_when_mail_matters.py does). The mail, clock and inbound
    tests use it for every test."""
    if "app" in request.fixturenames:
        request.getfixturevalue("app").config.update(TURN_MAIL_DELAY_SECONDS=0,
                                                     MAIL_PER_ADDRESS_PER_HOUR=0)


@pytest.fixture
def client(app):
    return app.test_client()


@pytest.fixture
def runner(app):
    return app.test_cli_runner()


class Db:
    """Read-only peeks into the store, for checking what a request left behind."""

    def __init__(self, app: Any) -> None:
        self.engine = get_engine(app)

    def count(self, table: str, **where: Any) -> int:
        query = f'SELECT count(*) FROM "{table}"'
        if where:
            query += " WHERE " + " AND ".join(f'"{k}" = :{k}' for k in where)
        with self.engine.connect() as conn:
            return int(conn.execute(sa.text(query), where).scalar_one())

    def actions(self, game_id: str) -> list[tuple[int, int, str]]:
        with self.engine.connect() as conn:
            return [tuple(row) for row in conn.execute(sa.text(
                "SELECT seq, seat, source FROM action WHERE game_id = :g ORDER BY seq"),
                {"g": game_id})]

    def dump(self) -> dict[str, list[tuple]]:
        """Every row of every table (sorted), to prove that nothing changed."""
        tables = sa.inspect(self.engine).get_table_names()
        out = {}
        with self.engine.connect() as conn:
            for table in sorted(tables):
                rows = conn.execute(sa.text(f'SELECT * FROM "{table}"')).all()
                out[table] = sorted((tuple(map(repr, row)) for row in rows))
        return out


@pytest.fixture
def db(app) -> Db:
    return Db(app)


PEOPLE = [("Ann", "ann@example.com"), ("Bob", "bob@example.com"),
          ("Cid", "cid@example.com"), ("Dee", "dee@example.com")]


@pytest.fixture
def new_game(app) -> Callable[..., Any]:
    """Make a game through the service: ``new_game(seats=2, bots=(), **options)``
    (``people``: other (name, address) pairs than ``PEOPLE``)."""
    from app import services

    def make(seats: int = 2, bots: tuple[int, ...] = (), seed: str | None = "12345",
             people: list[tuple[str, str]] | None = None, **options: Any) -> Any:
        players = []
        for index in range(seats):
            name, email = (people or PEOPLE)[index]
            players.append({"name": name, "email": email, "kind": "human"}
                           if index not in bots else {"name": f"Robo{index}", "kind": "bot"})
        return services.create_game(players, options, name="Test game", seed=seed)

    return make


def random_move(state: Any, rng: random.Random) -> tuple[int, dict]:
    """A legal move of some seat that has to act (for games played at random)."""
    from app import engine

    seat = rng.choice(engine.view(state, None)["to_act"])
    return seat, rng.choice(engine.legal_actions(state, seat))


def statements_sent(app: Any, work: Callable[[], Any]) -> list[str]:
    """The SQL ``work()`` sends through the app's engine, whitespace folded."""
    from app.db import get_engine

    sent: list[str] = []

    def note(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        sent.append(" ".join(statement.split()))

    engine = get_engine(app)
    sa.event.listen(engine, "before_cursor_execute", note)
    try:
        work()
    finally:
        sa.event.remove(engine, "before_cursor_execute", note)
    return sent


def pytest_collection_modifyitems(config: Any, items: list[Any]) -> None:
    """On PostgreSQL (``TEST_DATABASE_URL`` set) run only the tests that touch a store.

    Every store a test can reach comes from the ``database_url`` fixture (``app``,
    ``client``, ``db``, ``new_game`` and the rest depend on it); a test without it (the
    engine's rules, templates, parsers, the architecture check, a test with its own
    SQLite file) runs exactly as it does on SQLite, so the PostgreSQL suite leaves it to
    the SQLite one (issue 31: that suite was ~550 s, much of it repeated). Tests marked
    ``postgres`` always run there, whatever fixtures they take; browser tests (``e2e``,
    their own SQLite server) are left to their own target."""
    if not TEST_DATABASE_URL:
        return
    keep, skip = [], []
    for item in items:
        touches_store = ("database_url" in getattr(item, "fixturenames", ())
                         or item.get_closest_marker("postgres") is not None
                         or item.get_closest_marker("e2e") is not None)
        (keep if touches_store else skip).append(item)
    if skip:
        config.hook.pytest_deselected(items=skip)
        items[:] = keep
