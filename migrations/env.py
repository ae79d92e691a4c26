"""Alembic environment: the app's own DATABASE_URL, the app's own tables.

The database is chosen in this order: a connection handed over by the caller
(``config.attributes["connection"]``, used by tests and ``app.db.upgrade``),
a URL in ``config.attributes["url"]``, the ``DATABASE_URL`` environment
variable, and finally the app's default (the SQLite file under instance/).
"""
from __future__ import annotations

import os
from logging.config import fileConfig

from alembic import context
from sqlmodel import SQLModel

import app.gamelog.store  # noqa: F401  (registers the core tables)

try:  # tables of the mail/clock issue, present once it has landed
    import app.mail.models  # noqa: F401
except ImportError:
    pass
try:
    import app.clock.deadlines  # noqa: F401
except ImportError:
    pass
import app.services.my_games  # noqa: F401  (the version of each address's "all my games" link)
import app.inbound.models  # noqa: F401  (the inbox of play by replying)
import app.talk.models  # noqa: F401  (table talk, issue 20)
import app.channels.models  # noqa: F401  (notification targets and deliveries, issue 20)
import app.people.models  # noqa: F401  (the person and their tenures, issues 32, 46)
import app.table.models  # noqa: F401  (votes, ballots and time given, issue 21)
import app.plans.models  # noqa: F401  (plans and standing orders, issue 35)
import app.people.keys  # noqa: F401  (settings links and person-wide changes, issue 45)
import app.standing.models  # noqa: F401  (results, records and ratings, issue 47)
import app.people.moves  # noqa: F401  (moving to a new address, issue 47 item 5)
import app.seating.models  # noqa: F401  (open tables, issue 48)

config = context.config
target_metadata = SQLModel.metadata

if config.config_file_name and not config.attributes.get("embedded"):
    fileConfig(config.config_file_name, disable_existing_loggers=False)


def database_url() -> str:
    """The URL to migrate when no connection was handed over."""
    url = config.attributes.get("url") or os.environ.get("DATABASE_URL")
    if url:
        return url
    from app import create_app
    return create_app().config["DATABASE_URL"]


def run_with(connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        render_as_batch=connection.dialect.name == "sqlite",
        compare_type=True,
    )
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_offline() -> None:
    """``alembic upgrade --sql``: print the SQL instead of running it."""
    context.configure(url=database_url(), target_metadata=target_metadata,
                      literal_binds=True, dialect_opts={"paramstyle": "named"})
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    connection = config.attributes.get("connection")
    if connection is not None:
        run_with(connection)
        return
    from app.db import make_engine
    engine = make_engine(database_url())
    try:
        with engine.connect() as connection:
            run_with(connection)
            connection.commit()
    finally:
        engine.dispose()


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
