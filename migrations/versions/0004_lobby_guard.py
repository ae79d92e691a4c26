"""Lobby guard: who started a game (a keyed hash of the address), to limit games per hour.

The lobby refuses a new game when the same address started too many in the
last hour; it counts ``game`` rows by ``created_by`` and ``created`` through
the index made here. Games made before this revision (or by the CLI) have no
``created_by`` and count for nobody.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-29

"""
from typing import Sequence, Union

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: Union[str, Sequence[str], None] = "0003"
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    with op.batch_alter_table("game") as batch:
        batch.add_column(sa.Column("created_by", sa.String(length=64), nullable=True))
    op.create_index("ix_game_created_by", "game", ["created_by", "created"])


def downgrade() -> None:
    op.drop_index("ix_game_created_by", table_name="game")
    with op.batch_alter_table("game") as batch:
        batch.drop_column("created_by")
