"""The schema comes from Alembic, from empty, on the test store (SQLite or PostgreSQL)."""
from __future__ import annotations

import sqlalchemy as sa
from alembic import command
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory

from app.gamelog import store
from app.db import alembic_config, make_engine, upgrade
from tests.schema_drift import drift

CORE_TABLES = {"game", "seat", "action", "state_cache"}


def test_upgrade_from_empty_creates_the_tables_and_stamps_head(database_url):
    engine = make_engine(database_url)
    try:
        assert not CORE_TABLES & set(sa.inspect(engine).get_table_names())
        upgrade(database_url)
        inspector = sa.inspect(engine)
        assert CORE_TABLES <= set(inspector.get_table_names())
        uniques = {tuple(u["column_names"]) for u in inspector.get_unique_constraints("action")}
        assert ("game_id", "seq") in uniques
        head = ScriptDirectory.from_config(alembic_config(database_url)).get_current_head()
        with engine.connect() as conn:
            assert MigrationContext.configure(conn).get_current_revision() == head
        upgrade(database_url)  # a second run is a no-op, not an error
    finally:
        engine.dispose()


def test_the_migrations_match_the_models(database_url):
    """What Alembic built is what SQLModel describes: autogenerate finds nothing to do."""
    assert drift(database_url, CORE_TABLES) == []


def test_downgrade_to_empty_and_up_again(database_url):
    upgrade(database_url)
    command.downgrade(alembic_config(database_url), "base")
    engine = make_engine(database_url)
    try:
        assert not CORE_TABLES & set(sa.inspect(engine).get_table_names())
    finally:
        engine.dispose()
    upgrade(database_url)


def test_the_action_log_refuses_a_second_row_for_a_step(database_url):
    upgrade(database_url)
    engine = make_engine(database_url)
    try:
        with engine.begin() as conn:
            conn.execute(sa.insert(store.Game.__table__).values(
                id="g1", created=store.utcnow(), status="running", name="", options={},
                seed="1", commitment="x", seats=2))
            row = dict(game_id="g1", seq=1, seat=0, action={"type": "draw"}, source="player",
                       created=store.utcnow())
            conn.execute(sa.insert(store.Action.__table__).values(**row))
        try:
            with engine.begin() as conn:
                conn.execute(sa.insert(store.Action.__table__).values(**row))
        except sa.exc.IntegrityError:
            pass
        else:
            raise AssertionError("a second row for (g1, 1) was accepted")
        with engine.connect() as conn:
            assert conn.execute(sa.text("SELECT count(*) FROM action")).scalar_one() == 1
    finally:
        engine.dispose()


def test_the_database_refuses_to_rewrite_or_delete_a_logged_action(database_url):
    upgrade(database_url)
    engine = make_engine(database_url)
    try:
        with engine.begin() as conn:
            conn.execute(sa.insert(store.Game.__table__).values(
                id="g1", created=store.utcnow(), status="running", name="", options={},
                seed="1", commitment="x", seats=2))
            conn.execute(sa.insert(store.Action.__table__).values(
                game_id="g1", seq=1, seat=0, action={"type": "draw"}, source="player",
                created=store.utcnow()))
        for statement in ("UPDATE action SET seat = 1", "DELETE FROM action"):
            try:
                with engine.begin() as conn:
                    conn.exec_driver_sql(statement)
            except sa.exc.DBAPIError as exc:
                assert "append-only" in str(exc)
            else:
                raise AssertionError(f"{statement!r} was accepted")
        with engine.connect() as conn:
            assert conn.execute(sa.text("SELECT seat FROM action")).scalar_one() == 0
    finally:
        engine.dispose()
