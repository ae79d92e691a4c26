"""What autogenerate would still change: the migrations against the models, for some tables."""
from __future__ import annotations

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlmodel import SQLModel

from app.db import make_engine, upgrade


def drift(database_url: str, tables: set[str]) -> list:
    """Upgrade the store to head, then list how it differs from the models of `tables`."""
    def only_these(obj, name, type_, reflected, compare_to) -> bool:
        table = name if type_ == "table" else getattr(getattr(obj, "table", None), "name", None)
        return table in tables

    upgrade(database_url)
    engine = make_engine(database_url)
    try:
        with engine.connect() as conn:
            context = MigrationContext.configure(
                conn, opts={"compare_type": True, "include_object": only_these})
            return compare_metadata(context, SQLModel.metadata)
    finally:
        engine.dispose()
