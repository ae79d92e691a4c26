"""A move's PostgreSQL write path in the quick set (issue 31).

On PostgreSQL a move's writes leave as one statement, every write a CTE
(``app/db/unit.py`` → ``app/db/statements.one_statement``); on SQLite as one statement
each. ``make test`` runs on SQLite, so without this module the combined statement would
run only in the PostgreSQL suite. Here the scenarios of ``test_move_writes.py`` and the
36 counted moves of ``test_statement_count.py`` run again on PostgreSQL whenever it is
reachable: on the server of ``QUICK_PG_URL`` (default
``postgresql+psycopg://postgres@127.0.0.1:5432/test``), in a schema of their own dropped
afterwards. That costs a few seconds (one migration per test); when no server answers
they are skipped and say why (under ``CI=true`` they fail instead: CI starts PostgreSQL
before ``make test``, so a skip there would hide the path again).

In the PostgreSQL suite (``TEST_DATABASE_URL`` set) every test already runs there, the
originals included, so this module steps aside.
"""
from __future__ import annotations

import os
from typing import Iterator

import pytest
import sqlalchemy as sa

from app.db import make_engine
from tests.conftest import TEST_DATABASE_URL, fresh_schema
from tests.web.test_move_writes import (  # noqa: F401  (collected again here, on PostgreSQL)
    test_a_move_sends_its_action_row_with_the_mail_row_update,
    test_a_second_row_for_the_same_step_is_refused,
    test_a_written_row_is_dropped_by_a_rollback_and_a_forgotten_one_refuses_to_commit,
    test_an_appended_row_is_in_the_log_once_its_unit_is_written,
)
from tests.web.test_statement_count import test_a_move_is_a_handful_of_statements  # noqa: F401

QUICK_PG_URL = os.environ.get("QUICK_PG_URL",
                              "postgresql+psycopg://postgres@127.0.0.1:5432/test")

pytestmark = pytest.mark.skipif(
    bool(TEST_DATABASE_URL),
    reason="TEST_DATABASE_URL is set: the originals of these tests run on that store")


def _unreachable() -> str | None:
    """Why the PostgreSQL server cannot be used, or None when it can."""
    url = sa.engine.make_url(QUICK_PG_URL).update_query_dict({"connect_timeout": "2"})
    engine = make_engine(url.render_as_string(hide_password=False), poolclass=sa.pool.NullPool)
    try:
        with engine.connect() as conn:
            conn.exec_driver_sql("SELECT 1")
    except Exception as exc:  # noqa: BLE001  (whatever it is, it is the reason to give)
        return f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
    finally:
        engine.dispose()
    return None


@pytest.fixture(scope="module")
def _postgres() -> str:
    """The server's URL, once it answered (asked once per module and worker)."""
    why = _unreachable()
    if why is not None:
        message = (f"PostgreSQL is not reachable at {QUICK_PG_URL} ({why}): the combined "
                   "write statement of a move is not exercised by this run (set QUICK_PG_URL, "
                   "or run make test-pg)")
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail(message)
        pytest.skip(message)
    return QUICK_PG_URL


@pytest.fixture
def database_url(_postgres) -> Iterator[str]:
    """A fresh schema of the PostgreSQL server (this module's tests only: it overrides
    tests/conftest.py's SQLite file)."""
    with fresh_schema(_postgres, prefix="quick") as url:
        yield url


def test_these_tests_run_on_postgresql(app):
    """The override took: the store under the app is PostgreSQL."""
    from app.db import get_engine

    assert get_engine(app).dialect.name == "postgresql"
