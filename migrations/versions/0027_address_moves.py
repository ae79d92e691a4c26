"""Moving to a new address, by oneself (issue 47 item 5): each move asked for
(``address_move``) and each seat link a move replaced (``moved_seat``):
``app.people.moves``.

Revision ID: 0027
Revises: 0026
Create Date: 2026-12-10

"""
from __future__ import annotations

from typing import Sequence, Union

import sqlalchemy as sa
from alembic import op

revision: str = "0027"
down_revision: Union[str, Sequence[str], None] = "0026"
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    op.create_table(
        "address_move",
        sa.Column("id", sa.String(length=32), primary_key=True),
        sa.Column("person_id", sa.Integer(), nullable=False),
        sa.Column("old_address", sa.String(length=320), nullable=False),
        sa.Column("new_address", sa.String(length=320), nullable=False),
        sa.Column("via", sa.String(length=16), nullable=False),
        sa.Column("asked_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("done_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("ended_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("ended", sa.String(length=16), nullable=True),
    )
    op.create_index("ix_address_move_old", "address_move", [sa.text("lower(old_address)")])
    op.create_index("ix_address_move_person", "address_move", ["person_id"])
    op.create_table(
        "moved_seat",
        sa.Column("game_id", sa.String(length=64), primary_key=True),
        sa.Column("seat", sa.Integer(), primary_key=True),
        sa.Column("version", sa.Integer(), primary_key=True),
        sa.Column("move_id", sa.String(length=32), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("moved_seat")
    op.drop_index("ix_address_move_person", table_name="address_move")
    op.drop_index("ix_address_move_old", table_name="address_move")
    op.drop_table("address_move")
