"""A PostgreSQL result is described by name and type code, once (``app.db.lean_cursor``,
issue 30): what SQLAlchemy reads of a description, at a third of psycopg's cost.

Runs on the server of ``QUICK_PG_URL`` in the quick set, as
``test_move_writes_postgres.py`` does (skipped without one, failed under ``CI=true``),
and in the PostgreSQL suite, where every other test reads its rows through it too."""
from __future__ import annotations

from typing import Iterator

import pytest
import sqlalchemy as sa

from app.db import make_engine
from app.db.lean_cursor import LeanCursor
from tests.web.test_move_writes_postgres import _postgres  # noqa: F401  (the server's URL)

INT4, TEXT, TIMESTAMPTZ = 23, 25, 1184  # PostgreSQL's type oids


@pytest.fixture
def engine(_postgres: str) -> Iterator[sa.Engine]:  # noqa: F811
    engine = make_engine(_postgres, poolclass=sa.pool.NullPool)
    yield engine
    engine.dispose()


def test_a_result_is_described_by_name_and_type_code_once(engine):
    with engine.connect() as conn:
        result = conn.exec_driver_sql("SELECT 1 AS one, 'x'::text AS word, now() AS at")
        cursor = result.cursor
        described = cursor.description

        assert isinstance(cursor, LeanCursor)
        assert [(column.name, column.type_code) for column in described] == [
            ("one", INT4), ("word", TEXT), ("at", TIMESTAMPTZ)]
        assert [tuple(column)[2:] for column in described] == [(None,) * 5] * 3  # (DB-API)
        assert cursor.description is described, "built once for its result"
        row = result.one()
        assert list(result.keys()) == ["one", "word", "at"]
        assert (row.one, row.word, row.at.tzinfo is not None) == (1, "x", True)

        again = conn.exec_driver_sql("SELECT 2 AS two")
        assert [column.name for column in again.cursor.description] == ["two"], \
            "a new result, a new description"
        assert again.scalar() == 2


def test_a_statement_without_rows_has_no_description(engine):
    with engine.connect() as conn:
        result = conn.exec_driver_sql("CREATE TEMPORARY TABLE lean_cursor_probe (a int)")
        assert result.cursor is None or result.cursor.description is None
        assert not result.returns_rows
        empty = conn.exec_driver_sql("SELECT a FROM lean_cursor_probe")
        assert [column.name for column in empty.cursor.description] == ["a"]
        assert empty.all() == []
