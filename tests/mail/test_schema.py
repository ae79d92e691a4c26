"""The mail and clock tables Alembic builds are the ones the models describe."""
from __future__ import annotations

import sqlalchemy as sa

from app.clock import deadlines  # noqa: F401  (registers the clock tables)
from app.db import make_engine, upgrade
from app.mail import models  # noqa: F401  (registers the mail tables)
from app.talk import models as _talk  # noqa: F401  (registers the talk table)
from app.channels import models as _channels  # noqa: F401  (targets and deliveries)
from tests.schema_drift import drift

MAIL_AND_CLOCK_TABLES = {"outbox", "seat_mail", "deadline", "seat_clock", "person", "tenure",
                         # issue 20: table talk, notice targets and their deliveries
                         "talk", "notice_target", "notice_delivery", "game"}


def test_the_migrations_match_the_mail_and_clock_models(database_url):
    assert drift(database_url, MAIL_AND_CLOCK_TABLES) == []


def test_open_deadlines_of_a_game_are_found_through_a_partial_index(database_url):
    """Closed rows pile up in a long game; the index every action uses holds open rows only."""
    upgrade(database_url)
    engine = make_engine(database_url)
    try:
        indexes = {ix["name"]: ix for ix in sa.inspect(engine).get_indexes("deadline")}
        assert indexes["ix_deadline_game_open"]["column_names"] == ["game_id", "seat"]
        assert "ix_deadline_game_seat" not in indexes  # the old one held closed rows too
        with engine.connect() as conn:
            if conn.dialect.name == "sqlite":
                sql = conn.exec_driver_sql("SELECT sql FROM sqlite_master WHERE name = "
                                           "'ix_deadline_game_open'").scalar_one()
            else:
                sql = conn.exec_driver_sql(
                    "SELECT indexdef FROM pg_indexes WHERE indexname = 'ix_deadline_game_open'"
                    " AND schemaname = current_schema()").scalar_one()
        assert "done_at IS NULL" in sql.replace("(", "").replace(")", "")
    finally:
        engine.dispose()
