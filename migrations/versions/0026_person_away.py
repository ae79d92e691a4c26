"""Away until a date, for all of a person's games (issue 47 item 5): when the person's
pause ends and began, and the days of the year's allowance it used
(``app.people.away``).

Revision ID: 0026
Revises: 0025
Create Date: 2026-12-10

"""
from __future__ import annotations

from typing import Sequence, Union

import sqlalchemy as sa
from alembic import op

revision: str = "0026"
down_revision: Union[str, Sequence[str], None] = "0025"
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


#: Plain ALTERs (SQLite 3.35+ has DROP COLUMN): a batch copy of the table would lose the
#: expression index ix_person_lower, which SQLite cannot reflect (as 0023 does for outbox).
COLUMNS = ("away_until", "away_since", "away_days_used", "away_year")


def upgrade() -> None:
    op.add_column("person", sa.Column("away_until", sa.DateTime(timezone=True), nullable=True))
    op.add_column("person", sa.Column("away_since", sa.DateTime(timezone=True), nullable=True))
    op.add_column("person", sa.Column("away_days_used", sa.Integer(), nullable=False,
                                      server_default="0"))
    op.add_column("person", sa.Column("away_year", sa.Integer(), nullable=True))


def downgrade() -> None:
    for name in reversed(COLUMNS):
        op.execute(f"ALTER TABLE person DROP COLUMN {name}")
