"""Standing that follows the person (issue 47): each ended game's result per stretch at a
seat (``standing_result``), each person's record and rating (``standing``), and whether a
person shows their page to others (``person.standing_hidden``): ``app.standing``.

No existing game was rated, so no rating is made here; the records of the games that
ended before are made by ``flask --app app rerate --from-log`` (docs/operations.md).

Revision ID: 0025
Revises: 0024
Create Date: 2026-12-06

"""
from __future__ import annotations

from typing import Sequence, Union

import sqlalchemy as sa
from alembic import op

revision: str = "0025"
down_revision: Union[str, Sequence[str], None] = "0024"
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    op.create_table(
        "standing_result",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("game_id", sa.String(length=64), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("from_step", sa.Integer(), nullable=False),
        sa.Column("person_id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=100), nullable=False),
        sa.Column("outcome", sa.String(length=16), nullable=False),
        sa.Column("own_moves", sa.Integer(), nullable=False),
        sa.Column("clock_moves", sa.Integer(), nullable=False),
        sa.Column("place", sa.Integer(), nullable=True),
        sa.Column("seats", sa.Integer(), nullable=False),
        sa.Column("mu_before", sa.Float(), nullable=True),
        sa.Column("sigma_before", sa.Float(), nullable=True),
        sa.Column("mu_after", sa.Float(), nullable=True),
        sa.Column("sigma_after", sa.Float(), nullable=True),
        sa.Column("ended_at", sa.DateTime(timezone=True), nullable=False),
        sa.UniqueConstraint("game_id", "seat", "from_step", name="uq_standing_result"),
    )
    op.create_index("ix_standing_result_person", "standing_result", ["person_id", "ended_at"])
    op.create_table(
        "standing",
        sa.Column("person_id", sa.Integer(), primary_key=True, autoincrement=False),
        sa.Column("public_id", sa.String(length=24), nullable=False),
        sa.Column("name", sa.String(length=100), nullable=False),
        sa.Column("ended", sa.Integer(), nullable=False),
        sa.Column("recent", sa.Integer(), nullable=False),
        sa.Column("recent_left", sa.Integer(), nullable=False),
        sa.Column("recent_moves", sa.Integer(), nullable=False),
        sa.Column("recent_clock", sa.Integer(), nullable=False),
        sa.Column("mu", sa.Float(), nullable=True),
        sa.Column("sigma", sa.Float(), nullable=True),
        sa.Column("rated_games", sa.Integer(), nullable=False),
        sa.Column("rated_by", sa.String(length=64), nullable=True),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=True),
        sa.UniqueConstraint("public_id", name="uq_standing_public_id"),
    )
    op.create_index("ix_standing_board", "standing",
                    [sa.text("(mu - 3 * sigma) DESC"), "person_id"],
                    postgresql_where=sa.text("mu IS NOT NULL"),
                    sqlite_where=sa.text("mu IS NOT NULL"))
    # (no batch: SQLite adds a column in place; a batch would copy the table and lose
    # its expression index ix_person_lower, which reflection cannot see)
    op.add_column("person", sa.Column("standing_hidden", sa.Boolean(), nullable=False,
                                      server_default=sa.false()))


def downgrade() -> None:
    op.drop_column("person", "standing_hidden")
    op.drop_index("ix_standing_board", table_name="standing")
    op.drop_table("standing")
    op.drop_index("ix_standing_result_person", table_name="standing_result")
    op.drop_table("standing_result")
