"""Away until a date, for all of a person's games (issue 47 item 5): when the person's
pause ends and began, and the days of the year's allowance it used
(``app.people.away``).

Revision ID: 0026
Revises: 0024 (another branch adds 0025; the lead re-chains them on merge)
Create Date: 2026-12-10

"""
from __future__ import annotations

from typing import Sequence, Union

import sqlalchemy as sa
from alembic import op

revision: str = "0026"
down_revision: Union[str, Sequence[str], None] = "0024"
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    with op.batch_alter_table("person") as batch:
        batch.add_column(sa.Column("away_until", sa.DateTime(timezone=True), nullable=True))
        batch.add_column(sa.Column("away_since", sa.DateTime(timezone=True), nullable=True))
        batch.add_column(sa.Column("away_days_used", sa.Integer(), nullable=False,
                                   server_default="0"))
        batch.add_column(sa.Column("away_year", sa.Integer(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("person") as batch:
        batch.drop_column("away_year")
        batch.drop_column("away_days_used")
        batch.drop_column("away_since")
        batch.drop_column("away_until")
