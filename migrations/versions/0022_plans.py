"""Deciding ahead (issue 35): a seat's plan for the rest of its turn, its standing
orders and what they did, one row per seat that ever sent one (``app.plans.models``).

Revision ID: 0022
Revises: 0021
Create Date: 2026-12-04

"""
from __future__ import annotations

from typing import Sequence, Union

import sqlalchemy as sa
from alembic import op

revision: str = "0022"
down_revision: Union[str, Sequence[str], None] = "0021"
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    op.create_table(
        "plan",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("game_id", sa.String(length=64), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("turn", sa.JSON(), nullable=True),
        sa.Column("orders", sa.JSON(), nullable=True),
        sa.Column("told", sa.JSON(), nullable=True),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=True),
        sa.UniqueConstraint("game_id", "seat", name="uq_plan_game_seat"),
    )


def downgrade() -> None:
    op.drop_table("plan")
